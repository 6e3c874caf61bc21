"""analysis/history: the trend, the volatile examples, the band from history and the "new
movers first" sort (SPEC "History"), on small suites written by hand.

Oracle: every figure is worked out here from SPEC's definitions, not from the code. All
references are "a b c d" and the outputs below score, under rougeL with the whitespace
tokenizer (LCS / len, F = 2PR / (P + R)):

    "a b c d"  LCS 4, P 1,   R 1    F 1
    "a b c"    LCS 3, P 1,   R 3/4  F 6/7
    "a b"      LCS 2, P 1,   R 1/2  F 2/3
    "a"        LCS 1, P 1,   R 1/4  F 2/5
    "x"        LCS 0                F 0
"""

from __future__ import annotations

import itertools
import json
import math
import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from suite_helpers import jsonl, make_suite

from rouge_tui import cli
from rouge_tui.analysis.history import BuildScores, ByExample, trend, volatile
from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.analysis.signals import names
from rouge_tui.suite.suite import open_suite, read_references

REF = "a b c d"
FULL, THREE, TWO, ONE, NONE = "a b c d", "a b c", "a b", "a", "x"
F = {FULL: 1.0, THREE: 6 / 7, TWO: 2 / 3, ONE: 2 / 5, NONE: 0.0}
K = 2.0  # the default band half-width
HISTORY_FIELDS = ["name", "runs", "n", "mean", "band", "band_source"]  # SPEC, in its order
# then: against the build before it with figures, and the band its verdict is against
STEP_FIELDS = ["against", "delta", "verdict", "against_band", "against_band_source"]


def outs(**texts: str) -> str:
    return jsonl(*({"id": k, "output": v} for k, v in texts.items()))


def analytic(values: list[float]) -> tuple[int, float, list[float]]:
    """SPEC's band with one run: mean ± k · sample sd / √n."""
    mean = statistics.fmean(values)
    half = K * statistics.stdev(values) / math.sqrt(len(values))
    return len(values), mean, [mean - half, mean + half]


def replicates(runs: list[list[float]]) -> tuple[int, float, list[float]]:
    """SPEC's band with replicate runs: mean ± k · sample sd of the run means; an example's
    score is its mean over runs."""
    per_example = [statistics.fmean(scores) for scores in zip(*runs)]
    mean = statistics.fmean(per_example)
    half = K * statistics.stdev([statistics.fmean(run) for run in runs])
    return len(per_example), mean, [mean - half, mean + half]


# ---------------------------------------------------------------------- the trend

def trend_suite(root: Path) -> Path:
    """Five builds: 1 plain (with an id whose reference is empty and one with no reference),
    2 with a bad line, 3 with two replicate runs (z in one run only), 4 without c, 5 plain."""
    references = jsonl(*({"id": i, "reference": REF} for i in "abcz"), {"id": "d", "reference": "  "})
    return make_suite(root, references, {
        "1.jsonl": outs(a=FULL, b=TWO, c=ONE, d=FULL, e=FULL),
        "2.jsonl": outs(a=FULL) + "{broken\n",
        "3": {"run-1.jsonl": outs(a=FULL, b=TWO, c=TWO, z=FULL), "run-2.jsonl": outs(a=TWO, b=TWO, c=NONE)},
        "4.jsonl": outs(a=TWO, b=FULL),
        "5.jsonl": outs(a=FULL, b=THREE, c=FULL),
    })  # fmt: skip


# name, runs, (n, mean, band) or None, band source: worked out from SPEC's definitions.
TREND = [
    ("1", 1, analytic([F[FULL], F[TWO], F[ONE]]), "analytic"),  # d: empty reference, e: none
    ("2", 1, None, None),
    ("3", 2, replicates([[F[FULL], F[TWO], F[TWO]], [F[TWO], F[TWO], F[NONE]]]), "replicates"),  # z left out
    ("4", 1, analytic([F[TWO], F[FULL]]), "analytic"),
    ("5", 1, analytic([F[FULL], F[THREE], F[FULL]]), "analytic"),
]


def verdict_of(band: list[float], mean: float, delta: float) -> str:
    """SPEC's verdict with min_delta 0: outside the band before, and any paired move."""
    if delta == 0 or band[0] <= mean <= band[1]:
        return "within-band"
    return "drift-down" if mean < band[0] else "drift-up"


# Each build's F by example (the mean over its runs), and its step from the build before it
# with figures (2 has none: 3 is against 1): against, the paired delta over the ids both
# have, and the verdict against the band of the build before.
BY_EXAMPLE = {
    "1": {"a": F[FULL], "b": F[TWO], "c": F[ONE]},
    "3": {"a": (F[FULL] + F[TWO]) / 2, "b": F[TWO], "c": (F[TWO] + F[NONE]) / 2},
    "4": {"a": F[TWO], "b": F[FULL]},
    "5": {"a": F[FULL], "b": F[THREE], "c": F[FULL]},
}


def hand_step(before: str, after: str) -> tuple[str, float, str]:
    shared = [i for i in BY_EXAMPLE[after] if i in BY_EXAMPLE[before]]
    delta = statistics.fmean(BY_EXAMPLE[after][i] - BY_EXAMPLE[before][i] for i in shared)
    band = next(figures[2] for name, _, figures, _ in TREND if name == before)
    mean = next(figures[1] for name, _, figures, _ in TREND if name == after)
    return before, delta, verdict_of(band, mean, delta)


STEPS = {"1": None, "2": None, "3": hand_step("1", "3"), "4": hand_step("3", "4"), "5": hand_step("4", "5")}


def test_the_hand_figures_of_the_trend_suite() -> None:
    """The oracle's own arithmetic, written out once: build 3's examples average 5/6, 2/3,
    1/3 (mean 11/18), its runs 7/9 and 4/9 (sd (1/3)/√2); build 4 is 5/6 ± 2·(1/6)."""
    n, mean, band = TREND[2][2]
    assert (n, mean) == (3, pytest.approx(11 / 18, abs=1e-15))
    assert band == pytest.approx([11 / 18 - 2 * (1 / 3) / math.sqrt(2), 11 / 18 + 2 * (1 / 3) / math.sqrt(2)], abs=1e-15)
    assert TREND[3][2] == (2, pytest.approx(5 / 6, abs=1e-15), pytest.approx([1 / 2, 7 / 6], abs=1e-15))


def test_the_trend_lists_every_build_in_name_order_with_its_n_mean_and_band(tmp_path: Path) -> None:
    suite = open_suite(trend_suite(tmp_path / "s"))
    got = trend(suite, read_references(suite), Settings(), Caches.none())
    assert [b.name for b in got] == [name for name, *_ in TREND]
    for build, (name, runs, figures, source) in zip(got, TREND):
        assert build.runs == runs, name
        if figures is None:
            assert build.stats is None and "2.jsonl" in build.problem and ":2" in build.problem
            continue
        n, mean, band = figures
        assert (build.stats.n, build.stats.band_source) == (n, source), name
        assert build.stats.mean == pytest.approx(mean, abs=1e-15), name
        assert list(build.stats.band) == pytest.approx(band, abs=1e-15), name


@pytest.mark.parametrize(("pair", "read_again"), [
    (("3", "5"), ["2", "4"]),  # both kept (2 has no entry, 4 was not compared)
    (("4", "5"), ["2"]),  # 5 holds c, which 4 lacks: its table holds c all the same
])
def test_a_comparison_keeps_its_builds_history_entries_so_the_trend_reads_neither_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pair: tuple[str, str], read_again: list[str]
) -> None:
    """After a comparison, the trend reads only the builds it has no entry for (a cold
    100,000-example open read and keyed both compared builds again: 2 s), and every entry,
    kept or made, is the trend worked out by hand."""

    suite = open_suite(trend_suite(tmp_path / "s"))
    caches = Caches.default()
    open_analysis(suite, Settings(), *pair, caches=caches)
    read = builds_read(monkeypatch)
    got = trend(suite, read_references(suite), Settings(), caches)
    assert read == read_again
    for build, (name, runs, figures, source) in zip(got, TREND):
        if figures is None:
            assert build.stats is None
            continue
        assert (build.runs, build.stats.n, build.stats.band_source) == (runs, figures[0], source), name
        assert build.stats.mean == pytest.approx(figures[1], abs=1e-15), name
        assert list(build.stats.band) == pytest.approx(figures[2], abs=1e-15), name


@pytest.mark.parametrize("caches", [Caches.none, Caches.default], ids=["no cache", "cache"])
def test_the_trend_beside_a_comparison_scores_its_builds_as_they_were_read(tmp_path: Path, caches) -> None:
    """The candidate's file changes after the comparison read it: the trend given the two
    builds read shows them as read (the history line beside that comparison), without them
    the files as they are now; `changed_since_read` names the changed one."""
    from rouge_tui.analysis.history import changed_since_read
    from rouge_tui.suite.suite import read_build

    suite_path = make_suite(tmp_path / "s", jsonl({"id": "e1", "reference": REF}, {"id": "e2", "reference": REF}),
                            {"1.jsonl": outs(e1=FULL, e2=TWO), "2.jsonl": outs(e1=THREE, e2=ONE)})
    suite = open_suite(suite_path)
    base, cand = (read_build(suite, entry) for entry in suite.builds)
    assert changed_since_read(suite, [base, cand]) == []
    (suite_path / "builds" / "2.jsonl").write_text(outs(e1=NONE, e2=NONE))
    assert changed_since_read(suite, [base, cand]) == ["2"]
    references = read_references(suite)
    as_read = trend(suite, references, Settings(), caches(), read=(base, cand))
    as_now = trend(suite, references, Settings(), caches())
    assert [b.stats.mean for b in as_read] == [statistics.fmean([F[FULL], F[TWO]]), statistics.fmean([F[THREE], F[ONE]])]
    assert [b.stats.mean for b in as_now] == [statistics.fmean([F[FULL], F[TWO]]), 0.0]


def test_a_build_rewritten_while_it_is_read_is_cached_under_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nightly job replaces a build between the trend's look at its bytes (for the cache
    key) and its reading: the figures kept are the read file's, under that file's key, so
    when the first file comes back its own figures are shown, not the other's."""
    from rouge_tui.analysis import history

    first, second = outs(e1=FULL, e2=TWO), outs(e1=NONE, e2=NONE)
    suite_path = make_suite(tmp_path / "s", jsonl({"id": "e1", "reference": REF}, {"id": "e2", "reference": REF}),
                            {"1.jsonl": first})
    build_file = suite_path / "builds" / "1.jsonl"
    suite = open_suite(suite_path)
    references = read_references(suite)
    real = history.read_build

    def replaced_meanwhile(suite, entry):
        build_file.write_text(second)
        return real(suite, entry)

    with monkeypatch.context() as patch:
        patch.setattr(history, "read_build", replaced_meanwhile)
        (raced,) = trend(suite, references, Settings(), Caches.default())
    assert raced.stats.mean == 0.0  # the file as read
    build_file.write_text(first)
    (back,) = trend(suite, references, Settings(), Caches.default())
    assert back.stats.mean == statistics.fmean([F[FULL], F[TWO]])


@pytest.mark.parametrize("caches", [Caches.none, Caches.default], ids=["no cache", "cache"])
def test_the_trend_holds_each_builds_figures_and_delta_and_no_f_by_example(tmp_path: Path, caches) -> None:
    """The app's history line holds the trend as long as the comparison is shown: each
    build's n, mean, band and its paired delta against the build before, worked out once,
    and no F by example (a million ids and floats a build at 1M examples). Hand-worked:
    build 2's delta over e1 and e2 is ((6/7 - 1) + (2/5 - 2/3)) / 2; the same from a kept
    history as from the tables."""
    from dataclasses import fields

    from rouge_tui.analysis.history import HistoryRow
    from rouge_tui.suite.suite import read_build

    suite_path = make_suite(tmp_path / "s", jsonl({"id": "e1", "reference": REF}, {"id": "e2", "reference": REF}),
                            {"1.jsonl": outs(e1=FULL, e2=TWO), "2.jsonl": outs(e2=ONE, e1=THREE)})
    suite = open_suite(suite_path)
    references = read_references(suite)
    assert [f.name for f in fields(HistoryRow)] == ["name", "runs", "stats", "problem", "delta"]
    delta = ((F[THREE] - F[FULL]) + (F[ONE] - F[TWO])) / 2
    store = caches()
    for _ in range(2):  # made, then (with a cache) read back
        base, cand = (read_build(suite, entry) for entry in suite.builds)
        got = trend(suite, references, Settings(), store, read=(base, cand))
        assert [type(row) for row in got] == [HistoryRow, HistoryRow]
        assert [row.delta for row in got] == [None, pytest.approx(delta, abs=1e-15)]
        assert [row.stats.mean for row in got] == [statistics.fmean([F[FULL], F[TWO]]),
                                                   statistics.fmean([F[THREE], F[ONE]])]


def nightly_suite(root: Path, builds: int) -> Path:
    """``builds`` one-run builds of e1, e2: build k gives e1 the k-th of the outputs below in
    turn, e2 always TWO (so each build's F and delta is in the module's table)."""
    turn = [FULL, THREE, ONE, NONE]
    return make_suite(root, jsonl({"id": "e1", "reference": REF}, {"id": "e2", "reference": REF}),
                      {f"{k}.jsonl": outs(e1=turn[k % 4], e2=TWO) for k in range(1, builds + 1)})


def hand_trend(builds: int) -> list[tuple[float, float | None]]:
    """Each build of `nightly_suite`'s mean and its delta against the build before (only e1
    moves: half its F's move)."""
    turn = [FULL, THREE, ONE, NONE]
    e1 = [F[turn[k % 4]] for k in range(1, builds + 1)]
    return [(statistics.fmean([f, F[TWO]]), None if k == 0 else (f - e1[k - 1]) / 2) for k, f in enumerate(e1)]


def test_an_imported_build_of_repeated_runs_reads_its_kept_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """promptfoo's --repeat: one file, two runs. The history is looked up under each build's
    runs as read (two digests, two runs), as it was kept: reopened, no table is read."""
    from test_importer_promptfoo import repeated_exports

    from rouge_tui.analysis.scores import Scorer

    folder = repeated_exports(tmp_path / "pf")
    first = trend(open_suite(folder), read_references(open_suite(folder)), Settings(), Caches.default())
    assert [row.runs for row in first] == [2, 2, 2]
    seen: list[int] = []
    real = Scorer.stored

    def stored(self, digests, ids=None):
        seen.append(len(digests))
        return real(self, digests, ids)

    monkeypatch.setattr(Scorer, "stored", stored)
    suite = open_suite(folder)
    assert trend(suite, read_references(suite), Settings(), Caches.default()) == first
    assert seen == []


def builds_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The builds the history reads from their files from now on (by name)."""
    from rouge_tui.analysis import history

    read: list[str] = []
    real = history.read_build

    def counted(suite, entry):
        read.append(entry.name)
        return real(suite, entry)

    monkeypatch.setattr(history, "read_build", counted)
    return read


def looked_up(monkeypatch: pytest.MonkeyPatch, suite_path: Path) -> list[str]:
    """The builds whose table of scores is looked up from now on (by their file's name)."""
    import hashlib

    from rouge_tui.analysis.scores import Scorer

    builds = suite_path / "builds"
    names = {hashlib.sha256(p.read_bytes()).hexdigest(): p.stem if p.parent == builds else p.parent.name
             for p in builds.rglob("*") if p.is_file()}
    seen: list[str] = []
    real = Scorer.stored

    def stored(self, digests, ids=None):
        seen.append(names.get(digests[0], "?"))
        return real(self, digests, ids)

    monkeypatch.setattr(Scorer, "stored", stored)
    return seen


def check_trend(got, builds: int) -> None:
    assert [row.name for row in got] == [str(k) for k in range(1, builds + 1)]
    for row, (mean, delta) in zip(got, hand_trend(builds)):
        assert row.stats.mean == pytest.approx(mean, abs=1e-15), row.name
        assert row.delta == (None if delta is None else pytest.approx(delta, abs=1e-15)), row.name


def tables_looked_up(monkeypatch: pytest.MonkeyPatch, suite_path: Path, builds: int) -> list[str]:
    """The builds whose tables a trend of `nightly_suite` (``builds`` of them) looks up with
    its files as they are now, its figures checked against the hand's."""
    suite = open_suite(suite_path)
    seen = looked_up(monkeypatch, suite_path)
    check_trend(trend(suite, read_references(suite), Settings(), Caches.default()), builds)
    return sorted(set(seen))


def test_a_new_build_reads_the_kept_history_and_two_tables_not_one_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC "Budgets": a history of 500 builds with a new one added. The history is kept as
    one entry under every build's bytes: reopened, no build's table is read; with a build
    added, only its own and the one before it (for its delta); the figures the hand's."""
    suite_path = nightly_suite(tmp_path / "s", 6)
    new = suite_path / "builds" / "6.jsonl"
    held = new.read_bytes()
    new.unlink()
    tables_looked_up(monkeypatch, suite_path, 5)  # cold: the history made and kept
    assert tables_looked_up(monkeypatch, suite_path, 5) == []
    new.write_bytes(held)
    assert tables_looked_up(monkeypatch, suite_path, 6) == ["5", "6"]


def test_a_last_build_rewritten_reads_the_kept_history_of_the_builds_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nightly job run again rewrites the newest build: the rows of the builds before it
    are kept too, so only its table and the one before it are read; the figures the hand's
    (the rewrite gives the same outputs in another order)."""
    suite_path = nightly_suite(tmp_path / "s", 6)
    tables_looked_up(monkeypatch, suite_path, 6)  # cold: the history made and kept
    last = suite_path / "builds" / "6.jsonl"
    last.write_text("".join(reversed(last.read_text().splitlines(keepends=True))))
    assert tables_looked_up(monkeypatch, suite_path, 6) == ["5", "6"]


def test_a_kept_history_makes_an_unreadable_builds_row_again_and_reads_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that cannot be read is kept as nothing (its reason names the suite's path):
    reopened, it alone is looked up and read again, no other build's table, and every row is
    the hand's (build 4's delta against build 3 over a and b: (2/3 - 5/6 + 1 - 2/3) / 2)."""

    suite = open_suite(trend_suite(tmp_path / "s"))
    first = trend(suite, read_references(suite), Settings(), Caches.default())
    seen = looked_up(monkeypatch, tmp_path / "s")
    read = builds_read(monkeypatch)
    again = trend(suite, read_references(suite), Settings(), Caches.default())
    assert (read, seen) == (["2"], ["2"])
    assert again == first
    assert again[1].stats is None and "2.jsonl" in again[1].problem
    assert again[3].delta == pytest.approx((F[TWO] - (F[FULL] + F[TWO]) / 2 + F[FULL] - F[TWO]) / 2, abs=1e-15)


def test_a_build_mended_while_the_kept_history_is_read_gives_the_rows_of_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Build 2 was kept as unreadable and build 3's delta against build 1; a job mends build 2
    between the trend's look at its bytes and its reading: build 2 is shown as read, and
    build 3's delta is against it, not the one kept (the whole history made again)."""
    from rouge_tui.analysis import history

    suite_path = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": REF}), {
        "1.jsonl": outs(a=ONE), "2.jsonl": outs(a=TWO) + "{broken\n", "3.jsonl": outs(a=FULL),
    })  # fmt: skip
    suite = open_suite(suite_path)
    kept = trend(suite, read_references(suite), Settings(), Caches.default())
    assert kept[1].stats is None and kept[2].delta == pytest.approx(F[FULL] - F[ONE], abs=1e-15)
    real = history.read_build

    def mended_meanwhile(suite, entry):
        if entry.name == "2":
            (suite_path / "builds" / "2.jsonl").write_text(outs(a=TWO))
        return real(suite, entry)

    monkeypatch.setattr(history, "read_build", mended_meanwhile)
    raced = trend(suite, read_references(suite), Settings(), Caches.default())
    assert raced[1].stats.mean == F[TWO]
    assert raced[2].delta == pytest.approx(F[FULL] - F[TWO], abs=1e-15)


def test_a_kept_build_rewritten_before_its_f_is_read_for_the_next_delta_is_shown_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Build 3 is added; build 2's row is kept, but its table is gone (pruned), so its F for
    build 3's delta is read from its file, which a job rewrote meanwhile: the rows shown are
    of what was read (build 2's mean and build 3's delta against the same bytes), never a
    kept mean beside a delta against other bytes."""
    from rouge_tui.analysis import history
    from rouge_tui.analysis.scores import Scorer

    suite_path = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": REF}),
                            {"1.jsonl": outs(a=ONE), "2.jsonl": outs(a=TWO)})
    suite = open_suite(suite_path)
    trend(suite, read_references(suite), Settings(), Caches.default())  # 1 and 2 kept
    (suite_path / "builds" / "3.jsonl").write_text(outs(a=FULL))
    suite = open_suite(suite_path)
    real = history.read_build

    def rewritten_meanwhile(suite, entry):
        if entry.name == "2":
            (suite_path / "builds" / "2.jsonl").write_text(outs(a=NONE))
        return real(suite, entry)

    monkeypatch.setattr(Scorer, "stored", lambda self, digests, ids=None: None)
    monkeypatch.setattr(history, "read_build", rewritten_meanwhile)
    raced = trend(suite, read_references(suite), Settings(), Caches.default())
    assert [row.stats.mean for row in raced] == [F[ONE], F[NONE], F[FULL]]
    assert [row.delta for row in raced] == [None, F[NONE] - F[ONE], F[FULL] - F[NONE]]


def kept_history(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The history entries kept from now on, by key (`pack`'s head holds its rows)."""
    from rouge_tui.store.cache import BlobCache

    kept: dict[str, bytes] = {}
    real = BlobCache.put

    def put(self, name, payload):
        if b'{"rows": ' in payload[:20]:
            kept[name] = payload
        real(self, name, payload)

    monkeypatch.setattr(BlobCache, "put", put)
    return kept


def _row(mean: float, delta: float | None, runs: int = 1, n: int = 2) -> list:
    return [runs, n, mean, [mean - 0.1, mean + 0.1], "analytic" if runs == 1 else "replicates", [mean] * runs, delta]


FORGED = {  # well sealed, yet not a history of these builds: each must be refused
    "rows of other builds": {"rows": [_row(0.5, None)]},
    "a mean above 1": {"rows": [_row(2.0, None), _row(0.5, 0.1)]},
    "a NaN mean": {"rows": [_row(math.nan, None), _row(0.5, 0.1)]},
    "two runs said, one file": {"rows": [_row(0.5, None, runs=2), _row(0.5, 0.1)]},
    "a delta with no build before": {"rows": [_row(0.5, 0.1), _row(0.5, 0.1)]},
    "no delta after a build": {"rows": [_row(0.5, None), _row(0.5, None)]},
    "a mean outside its band": {"rows": [[1, 2, 0.5, [0.6, 0.7], "analytic", [0.5], None], _row(0.5, 0.1)]},
    "one run's mean not the build's": {"rows": [[1, 2, 0.5, [0.4, 0.6], "analytic", [0.55], None], _row(0.5, 0.1)]},
    "no examples": {"rows": [_row(0.5, None, n=0), _row(0.5, 0.1)]},
    "an int for a mean": {"rows": [[1, 2, 1, [0, 1], "analytic", [1], None], _row(0.5, 0.1)]},
    "a row of three": {"rows": [[1, 2, 0.5], _row(0.5, 0.1)]},
    "a row that is a number": {"rows": [7, _row(0.5, 0.1)]},
    "no rows": {"other": []},
}


@pytest.mark.parametrize("how", [*FORGED, "not a head"])
def test_a_corrupt_or_foreign_kept_history_is_made_again_never_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """An entry under the history's key that does not check out (each figure in range, a
    band around its mean, a row a build, the runs its files say, a delta exactly where a
    build before has figures) is refused: the trend is the hand's, and the entry rebuilt."""
    from rouge_tui.store.cache import BlobCache, pack

    suite_path = nightly_suite(tmp_path / "s", 2)
    suite = open_suite(suite_path)
    kept = kept_history(monkeypatch)
    trend(suite, read_references(suite), Settings(), Caches.default())
    (name, good), _before_the_last = kept.items()  # the whole history's, then its first build's
    forged = b"\xff" * 12 if how == "not a head" else pack(FORGED[how], np.zeros(0))
    BlobCache("scores").put(name, forged)
    kept.clear()
    check_trend(trend(suite, read_references(suite), Settings(), Caches.default()), 2)
    assert kept == {name: good}  # rebuilt as it was


def test_a_kept_replicate_band_not_k_sds_of_its_run_means_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept row of a build with replicate runs whose band is still around its mean, but not
    the mean ± k · sample sd of its run means (a band widened, or kept with another k), is
    refused: the trend is SPEC's, worked out by hand, and the entry is made again."""
    from rouge_tui.store.cache import BlobCache, pack, unpack

    runs = [[F[FULL], F[TWO]], [F[TWO], F[NONE]]]  # e1, e2 in run 1, then in run 2
    pair = {"run-1.jsonl": outs(e1=FULL, e2=TWO), "run-2.jsonl": outs(e1=TWO, e2=NONE)}
    suite_path = make_suite(tmp_path / "s", jsonl({"id": "e1", "reference": REF}, {"id": "e2", "reference": REF}),
                            {"1": pair, "2": pair})
    suite = open_suite(suite_path)
    kept = kept_history(monkeypatch)
    trend(suite, read_references(suite), Settings(), Caches.default())
    name, good = next(iter(kept.items()))  # the whole history's entry
    head, _ = unpack(good)
    for forged_band in ([head["rows"][0][3][0] - 0.1, head["rows"][0][3][1] + 0.1], [0.0, 1.0]):
        rows = [list(row) for row in head["rows"]]
        rows[0][3] = forged_band
        BlobCache("scores").put(name, pack({"rows": rows}, np.zeros(0)))
        kept.clear()
        got = trend(suite, read_references(suite), Settings(), Caches.default())
        n, mean, band = replicates(runs)
        assert [(row.stats.n, row.stats.band_source) for row in got] == [(n, "replicates")] * 2
        for row in got:
            assert row.stats.mean == pytest.approx(mean, abs=1e-15)
            assert list(row.stats.band) == pytest.approx(band, abs=1e-15)
        assert [row.delta for row in got] == [None, 0.0]
        assert kept == {name: good}  # made again as it was


def test_a_new_build_rewritten_while_it_is_read_never_lends_its_figures_to_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nightly job replaces the new build between the trend's look at its bytes and its
    reading: the history kept is of the file as read, under that file's bytes, so when the
    first file comes back its own figures are shown, not the other's."""
    from rouge_tui.analysis import history

    suite_path = nightly_suite(tmp_path / "s", 3)
    new = suite_path / "builds" / "3.jsonl"
    first = new.read_text()
    new.unlink()
    suite = open_suite(suite_path)
    trend(suite, read_references(suite), Settings(), Caches.default())  # 1 and 2 kept
    new.write_text(first)
    suite = open_suite(suite_path)
    real = history.read_build

    def replaced_meanwhile(suite, entry):
        if entry.name == "3":
            new.write_text(outs(e1=FULL, e2=FULL))
        return real(suite, entry)

    with monkeypatch.context() as patch:
        patch.setattr(history, "read_build", replaced_meanwhile)
        raced = trend(suite, read_references(suite), Settings(), Caches.default())
    assert raced[-1].stats.mean == 1.0  # the file as read
    new.write_text(first)
    check_trend(trend(suite, read_references(suite), Settings(), Caches.default()), 3)


def test_the_paired_delta_between_two_builds_is_over_the_ids_both_have() -> None:
    """Hand-worked: a and c in both; (0.75 - 0.5 + 0.6 - 0.9) / 2 = -0.025, whatever the
    order of the ids; b and d left out; nothing shared is 0.0."""
    import numpy as np

    from rouge_tui.analysis.history import BuildScores, ByExample, paired_delta

    def build(name: str, f: dict[str, float]) -> BuildScores:
        return BuildScores(name, 1, None, ByExample(list(f), np.array(list(f.values()))))

    before = build("1", {"a": 0.5, "b": 0.2, "c": 0.9})
    after = build("2", {"c": 0.6, "a": 0.75, "d": 0.1})
    assert paired_delta(before, after) == pytest.approx(-0.025, abs=1e-15)
    assert before.f.at(["c", "d", "a"]).tolist()[::2] == [0.9, 0.5] and math.isnan(before.f.at(["d"])[0])
    assert paired_delta(before, build("3", {"x": 1.0})) == 0.0


def test_report_history_json_has_specs_fields_for_every_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.main(["report", str(trend_suite(tmp_path / "s")), "--format", "json", "--history"])
    history = json.loads(capsys.readouterr().out)["history"]
    assert [h["name"] for h in history] == [name for name, *_ in TREND]
    for entry, (name, runs, figures, source) in zip(history, TREND):
        assert type(entry["runs"]) is int and entry["runs"] == runs
        if STEPS[name] is None:
            assert [entry[k] for k in STEP_FIELDS] == [None] * len(STEP_FIELDS)
        else:
            against, delta, verdict = STEPS[name]
            assert (entry["against"], entry["verdict"]) == (against, verdict), name
            assert entry["delta"] == pytest.approx(delta, abs=1e-15)
            _, _, figures_before, source_before = next(row for row in TREND if row[0] == against)
            assert entry["against_band"] == pytest.approx(figures_before[2], abs=1e-15)  # the build before's own
            assert entry["against_band_source"] == source_before
        if figures is None:  # listed with its error, not a reason to fail
            assert list(entry) == [*HISTORY_FIELDS, *STEP_FIELDS, "error"]
            assert "2.jsonl" in entry["error"] and entry["mean"] is None
            assert entry["n"] is None and entry["band"] is None  # not read: no count, not 0 examples
            continue
        assert list(entry) == [*HISTORY_FIELDS, *STEP_FIELDS], name
        n, mean, band = figures
        assert type(entry["n"]) is int and entry["n"] == n
        assert entry["mean"] == pytest.approx(mean, abs=1e-15)
        assert type(entry["band"]) is list and entry["band"] == pytest.approx(band, abs=1e-15)
        assert entry["band_source"] == source


def test_with_the_band_from_history_each_verdict_says_the_band_it_was_against(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A helper's pass: with [band] source = "history", a history row read drift-down with its
    mean inside the band shown above it: the verdict was against the band from history,
    shown nowhere. Build 5 is against 4, whose band comes from the means of 1, 3 and 4 (2 has
    none): 4's mean ± k · their sample sd; 4 against 3 has two such means, too few: 3's own."""
    suite = trend_suite(tmp_path / "s")
    (suite / "suite.toml").write_text('[band]\nsource = "history"\n')
    cli.main(["report", str(suite), "--format", "json", "--history"])
    history = {h["name"]: h for h in json.loads(capsys.readouterr().out)["history"]}
    means = [figures[1] for _, _, figures, _ in TREND if figures is not None][:3]  # builds 1, 3, 4
    low, high = history["5"]["against_band"]
    assert history["5"]["against_band_source"] == "history"
    assert (low, high) == (pytest.approx(means[2] - K * statistics.stdev(means), abs=1e-15),
                           pytest.approx(means[2] + K * statistics.stdev(means), abs=1e-15))
    assert history["4"]["against_band_source"] == "replicates"
    cli.main(["report", str(suite), "--history"])
    assert 'source = "history": a verdict is against the band' in " ".join(capsys.readouterr().out.split())


def test_report_history_text_shows_the_trend_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a relative path of 58 characters in the errors, as a user's
    cli.main(["report", str(trend_suite(Path("suite-with-a-long-name-for-the-nightly-job"))), "--history"])
    lines = capsys.readouterr().out.splitlines()
    table = lines[[line.strip() for line in lines].index("history") + 1 :]
    assert table[0].split() == ["build", "runs", "n", "mean", "band", "paired", "Δ", "verdict"]
    built = [name for name, *_ in TREND]
    rows = {cells[0]: line for line in table[1:] if (cells := line.split()) and cells[0] in built}
    assert list(rows) == built
    for name, runs, figures, _source in TREND:
        cells = rows[name].split()
        if figures is None:
            assert cells[1:3] == [str(runs), "✗"]
            # Its error under the table, the file and line on one line (folded in the band's
            # column, "2.jsonl:" ended one line and its line number began the next).
            said = [line for line in table if line.startswith(f"✗ {name}: ")]
            assert len(said) == 1 and re.search(r" suite-with-a-long-name-for-the-nightly-job/builds/2[.]jsonl:[0-9]+: ",
                                                 said[0]), table
            continue
        n, mean, (low, high) = figures
        step = [] if STEPS[name] is None else [f"{STEPS[name][1]:+.4f}", *STEPS[name][2].replace("-band", " band").split()]
        assert cells[1:] == [str(runs), str(n), f"{mean:.4f}", f"[{low:.4f},", f"{high:.4f}]", *step], name


# ---------------------------------------------------------------------- volatile examples

# F of each example on builds 1..5 (the baseline is 5, the candidate 6); the pairs 1-2 ..
# 4-5 are the four the volatile signal looks at, and a move is |ΔF| >= 0.05.
MOVES = {
    "flip": [FULL, TWO, FULL, TWO, FULL],  # moves in 4 of 4 pairs: volatile
    "once": [FULL, FULL, TWO, FULL, FULL],  # one incident, down then back up: 2 of 4, not volatile
    "three": [FULL, TWO, FULL, FULL, TWO],  # 3 of 4: volatile
    "steady": [FULL] * 5,  # 0 of 4
}
CANDIDATE = {"flip": NONE, "once": TWO, "three": NONE, "steady": ONE}
VOLATILE = {"flip", "three"}


def volatile_suite(root: Path, toml: str | None = None) -> Path:
    builds = {f"{n}.jsonl": outs(**{i: texts[n - 1] for i, texts in MOVES.items()}) for n in range(1, 6)}
    builds["6.jsonl"] = outs(**CANDIDATE)
    return make_suite(root, jsonl(*({"id": i, "reference": REF} for i in MOVES)), builds, toml)


def volatile_ids(figures) -> set[str]:
    return {i for i, flags in zip(figures.ids, figures.signals.tolist()) if "volatile" in names(flags)}


def test_volatile_examples_moved_in_more_than_half_of_the_pairs_up_to_the_baseline(tmp_path: Path) -> None:
    figures = open_analysis(open_suite(volatile_suite(tmp_path / "s")), Settings()).figures
    assert (figures.baseline.name, figures.candidate.name) == ("5", "6")
    assert volatile_ids(figures) == VOLATILE


def test_an_example_counts_only_the_pairs_of_builds_that_both_scored_it() -> None:
    """Hand-worked, on the function itself: p moves in pairs 1-2 and 2-3, not 3-4 (2 of 3:
    volatile); q is in builds 1, 2 and 4 only, so only pair 1-2 has it (one pair: never
    volatile, though it moved); r is in 1, 2 and 3 and moves in both its pairs (volatile)."""
    import numpy as np

    from rouge_tui.analysis.compare import build_stats
    from rouge_tui.analysis.history import BuildScores, ByExample, volatile

    f = {"1": {"p": 1.0, "q": 1.0, "r": 1.0}, "2": {"r": 0.5, "q": 0.5, "p": 0.5},
         "3": {"p": 1.0, "r": 1.0}, "4": {"q": 0.0, "p": 0.99}}
    history = [BuildScores(name, 1, build_stats(name, np.array([list(by.values())]), K),
                           ByExample(list(by), np.array(list(by.values())))) for name, by in f.items()]
    assert volatile(["q", "p", "r", "x"], history).tolist() == [False, True, True, False]


def test_one_pair_up_to_the_baseline_makes_nothing_volatile(tmp_path: Path) -> None:
    """SPEC: at least two pairs are needed. Baseline 2, candidate 3: only the pair 1-2."""
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": REF}), {
        "1.jsonl": outs(a=FULL), "2.jsonl": outs(a=TWO), "3.jsonl": outs(a=FULL),
    })  # fmt: skip
    figures = open_analysis(open_suite(suite), Settings()).figures
    assert volatile_ids(figures) == set()


def test_new_movers_first_ranks_the_examples_that_are_not_volatile_first(tmp_path: Path) -> None:
    """Deltas against build 5: flip 0 - 1 = -1, three 0 - 2/3, steady 2/5 - 1, once 2/3 - 1.
    By |delta|: flip, three, steady, once; not volatile first, each part by |delta|."""
    figures = open_analysis(open_suite(volatile_suite(tmp_path / "s")), Settings()).figures
    assert figures.ids == ["flip", "three", "steady", "once"]
    assert [figures.ids[i] for i in figures.order("new movers").tolist()] == ["steady", "once", "flip", "three"]


@st.composite
def _histories(draw: st.DrawFn) -> tuple[list[str], list[BuildScores]]:
    ids = [f"e{k}" for k in range(draw(st.integers(1, 8)))]
    f = st.sampled_from([0.0, 0.05, 0.3, 0.35, 0.36, 0.95, 1.0])  # 0.35 - 0.3 < 0.05 in floats, 0.05 - 0 is not
    builds = []
    for k in range(draw(st.integers(0, 8))):
        scored = draw(st.lists(st.sampled_from(ids), unique=True))
        stats = None if draw(st.integers(0, 5)) == 0 else object()  # a build that could not be read
        values = [draw(f) for _ in scored]
        builds.append(BuildScores(str(k), 1, stats, ByExample(scored, np.array(values, dtype=np.float64))))  # type: ignore[arg-type]
    return ids, builds


@given(_histories())
@settings(max_examples=300, deadline=None)
def test_volatile_is_specs_definition_example_by_example(case: tuple[list[str], list[BuildScores]]) -> None:
    """SPEC "Volatile examples", restated one example at a time: the consecutive build pairs
    (both builds read) up to the baseline, the last five; an example is volatile when, in at
    least two of them where it was scored, its F moved by 0.05 or more in more than half."""
    ids, builds = case
    pairs = [(a, b) for a, b in itertools.pairwise(builds) if a.stats is not None and b.stats is not None][-5:]

    f = {build.name: dict(zip(build.f.ids, build.f.values.tolist())) for build in builds}

    def defined(example_id: str) -> bool:
        moves = [abs(f[b.name][example_id] - f[a.name][example_id]) >= 0.05
                 for a, b in pairs if example_id in f[a.name] and example_id in f[b.name]]
        return len(pairs) >= 2 and len(moves) >= 2 and sum(moves) > len(moves) / 2

    assert volatile(ids, builds).tolist() == [defined(i) for i in ids]


# ---------------------------------------------------------------------- the band from history

def test_the_band_from_history_is_the_baseline_mean_plus_minus_k_sd_of_five_means(tmp_path: Path) -> None:
    """Build means (the four examples' F / 4), in twelfths: 12, 10, 11, 11, 11. Their sample
    sd is sqrt((1 + 1) / 144 / 4) = 1 / (12 √2); the baseline (build 5) mean is 11/12."""
    path = volatile_suite(tmp_path / "s")
    means = [statistics.fmean(F[texts[n]] for texts in MOVES.values()) for n in range(5)]
    assert means == pytest.approx([12 / 12, 10 / 12, 11 / 12, 11 / 12, 11 / 12], abs=1e-15)
    half = K * statistics.stdev(means)
    assert half == pytest.approx(2 / (12 * math.sqrt(2)), abs=1e-15)
    figures = open_analysis(open_suite(path), Settings(band_source="history")).figures
    assert figures.baseline.band_source == "history"
    assert figures.baseline.mean == pytest.approx(11 / 12, abs=1e-15)
    assert list(figures.baseline.band) == pytest.approx([11 / 12 - half, 11 / 12 + half], abs=1e-15)
    assert volatile_ids(figures) == VOLATILE  # the band's source changes the band only


def test_with_fewer_than_three_builds_the_report_says_which_band_it_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Baseline 2 has two builds up to it: the usual (analytic) band, and a warning."""
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": REF}, {"id": "b", "reference": REF}), {
        "1.jsonl": outs(a=FULL, b=TWO), "2.jsonl": outs(a=TWO, b=FULL), "3.jsonl": outs(a=FULL, b=FULL),
    }, '[band]\nsource = "history"\n')  # fmt: skip
    cli.main(["report", str(suite), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    _n, _mean, band = analytic([F[TWO], F[FULL]])
    assert data["baseline"]["band_source"] == "analytic"
    assert data["baseline"]["band"] == pytest.approx(band, abs=1e-15)
    said = [w for w in data["warnings"] if "history" in w]
    assert len(said) == 1 and "three builds" in said[0] and "there were 2" in said[0]
    assert said[0].endswith("the analytic band is used")
    cli.main(["report", str(suite)])
    assert said[0] in " ".join(capsys.readouterr().out.split())


def test_a_build_the_engine_refuses_is_listed_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rougeLsum past its table (`engine.MOST_LSUM_CELLS`) in one older build only: the trend
    lists that build with the engine's reason, as it lists a build with a bad line, and the
    others with their figures."""
    from rouge_tui.rouge import engine

    monkeypatch.setattr(engine, "MOST_LSUM_CELLS", 30 * 30)
    line = " ".join(f"w{i % 5}" for i in range(40))
    refs = jsonl({"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": line})
    root = make_suite(tmp_path / "s", refs, {
        "1.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": line}),
        "2.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "w1 w2"}),
        "3.jsonl": jsonl({"id": "a", "output": "a cat sat"}, {"id": "b", "output": "w1"}),
    })
    suite = open_suite(root)
    got = trend(suite, read_references(suite), Settings(metric="rougeLsum"), Caches.none())
    assert [b.name for b in got] == ["1", "2", "3"]
    assert got[0].stats is None and "example 'b': rougeLsum cannot score a line of 40 tokens" in got[0].problem
    assert got[1].stats.n == got[2].stats.n == 2
    # a: LCS 2 of 3 and 3 (F 2/3); b: 1 of 1 and 40 (F 2 * 1/40 / (1 + 1/40) = 2/41)
    assert got[2].stats.mean == pytest.approx((2 / 3 + 2 / 41) / 2, abs=1e-15)


def test_changed_since_read_for_an_imported_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An importer's run digests pick a build out of its files (never the file's own digest):
    unchanged files are unchanged builds, an edited one is named."""
    from toy_format import install, write_toy

    from rouge_tui.analysis.history import changed_since_read
    from rouge_tui.suite.suite import read_build

    install(monkeypatch)
    folder = write_toy(tmp_path / "out")
    suite = open_suite(folder)
    read = [read_build(suite, entry) for entry in suite.builds[-2:]]
    assert changed_since_read(suite, read) == []
    (folder / "out~summ~2026-01-03~mid.jsonl").write_text(jsonl({"doc": {"n": 1}, "resp": ["other"]}))
    assert changed_since_read(suite, read) == ["mid@2026-01-03"]
