"""report: the JSON contract other tools read (SPEC "Interfaces"), and the text, Markdown and
HTML renderings, with untrusted suite text escaped in every one.

Figures are checked against hand arithmetic: SPEC's worked example for the sample suite's
inc-0042 (LCS 16 of 47 and 55 words, then 46 of 58 and 55) and rouge-score as the oracle
for a small suite whose every figure the test recomputes.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import re
from pathlib import Path

import pytest
from oracles import rouge_score
from suite_helpers import COPY_MEANS, COPY_ROWS, copy_suite, jsonl, make_suite

from rouge_tui import cli, report
from rouge_tui.analysis.compare import VERDICTS
from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.report.markdown import render_markdown
from rouge_tui.review import Request, Review, open_review
from rouge_tui.suite.suite import open_suite

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "sample_suites" / "incident-summaries"
Z95 = 1.959963984540054


def report_json(suite: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    cli.main(["report", str(suite), "--format", "json", *extra])
    return json.loads(capsys.readouterr().out)


def rendered(suite: Path, fmt: str, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    cli.main(["report", str(suite), "--format", fmt, *flags])
    return capsys.readouterr().out


# Most tests below check what a format shows: they render a Report object made by
# `report.make`, with no command line; a few run the whole command (its exit status, the
# file it writes, the order it reads the files in).


def report_of(suite: Path, top: int = 10, *, history: bool = False, **flags: object) -> report.Report:
    """``suite``'s report as `report.make` makes it from the review ``report`` opens; ``flags``
    are the command's (baseline, candidate, no_cache)."""
    opened = open_review(Request.of(suite, argparse.Namespace(**flags)))
    review = opened.review()  # first: it reads the texts
    return report.make(opened.analysis.figures, top, marks=opened.marks(), warnings=opened.warnings,
                        change=opened.change, history=opened.history() if history else None,
                        texts=opened.texts, review=review)


def render(made: report.Report, fmt: str) -> str:
    """``made`` in the format ``fmt``, as written to a file or a pipe (no terminal width)."""
    return report.FORMATS[fmt].render(made, None)


def as_format(suite: Path, fmt: str, top: int = 10, **flags: object) -> str:
    return render(report_of(suite, top, **flags), fmt)


def json_of(suite: Path, top: int = 10, **flags: object) -> dict:
    return json.loads(as_format(suite, "json", top, **flags))


# ---------------------------------------------------------------------- the JSON contract

BUILD_FIELDS = {"name": str, "runs": int, "n": int, "mean": float, "band": list, "band_source": str}
ROW_FIELDS = {"id": str, "baseline": float, "candidate": float, "delta": float, "signals": list,
              "unsupported": list, "new_sentences": list, "new_figures": list}  # fmt: skip
TOP_FIELDS = {
    "suite": str, "metric": str, "tokenizer": str, "stem": bool, "baseline": dict,
    "candidate": dict, "delta": float, "delta_interval": list, "delta_interval_method": str,
    "verdict": str, "paired": int, "only_in_baseline": list, "only_in_candidate": list,
    "missing_reference": list, "signature": str, "top": list, "signals": dict, "warnings": list,
    "delta_precision": float, "delta_recall": float, "top_share": float, "marks": dict,
    "flagged": list, "signal_drift": list, "delta_test": dict,
}  # fmt: skip


def test_every_field_spec_names_is_there_with_its_type() -> None:
    data = json_of(INCIDENTS)
    for key, kind in TOP_FIELDS.items():
        assert type(data[key]) is kind, (key, type(data[key]))
    for role in ("baseline", "candidate"):
        build = data[role]
        for key, kind in BUILD_FIELDS.items():
            assert type(build[key]) is kind, (role, key)
        low, high = build["band"]
        assert len(build["band"]) == 2 and low <= build["mean"] <= high
        assert build["band_source"] in ("replicates", "bootstrap", "analytic")
    assert len(data["delta_interval"]) == 2 and data["delta_interval"][0] <= data["delta_interval"][1]
    assert data["verdict"] in VERDICTS
    assert re.fullmatch(r"rougeL\|tok:whitespace\|stem:no\|v:\d+\.\d+\.\d+\|seed:\d+", data["signature"])
    assert len(data["top"]) == 10
    for row in data["top"] + data["flagged"]:
        for key, kind in ROW_FIELDS.items():
            assert type(row[key]) is kind, key
        for key in ("signals", "unsupported", "new_sentences", "new_figures"):
            assert all(type(item) is str for item in row[key]), key
    assert all(type(n) is int for n in data["signals"].values())
    assert set(data["signals"]) >= {"empty", "truncated", "duplicated", "longer", "shorter"}
    assert all(type(w) is str and "\n" not in w for w in data["warnings"])
    assert 0.0 <= data["top_share"] <= 1.0


def harmonic(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall)


def test_the_sample_suite_against_specs_own_arithmetic() -> None:
    data = json_of(INCIDENTS, 237)
    assert data["suite"] == "Incident summaries"
    assert (data["metric"], data["tokenizer"], data["stem"]) == ("rougeL", "whitespace", False)
    assert data["paired"] == data["baseline"]["n"] == data["candidate"]["n"] == 237
    assert (data["only_in_baseline"], data["only_in_candidate"], data["missing_reference"]) == (
        ["inc-0113"], ["inc-0158"], ["inc-0077"]
    )
    chapter = {row["id"]: row for row in data["top"]}["inc-0042"]  # SPEC's Summary A and B
    assert chapter["baseline"] == harmonic(16 / 47, 16 / 55)  # LCS 16: P 16/47, R 16/55
    assert chapter["candidate"] == harmonic(46 / 58, 46 / 55)
    assert round(chapter["baseline"], 4) == 0.3137 and round(chapter["candidate"], 4) == 0.8142
    assert chapter["delta"] == chapter["candidate"] - chapter["baseline"]
    # the ranking: |delta| descending, ties by id
    keys = [(-abs(row["delta"]), row["id"]) for row in data["top"]]
    assert keys == sorted(keys) and len(keys) == 237
    # the signal counts are the rows that carry each signal
    for name, count in data["signals"].items():
        assert count == sum(name in row["signals"] for row in data["top"]), name
    assert data["verdict"] == "drift-down"


REFS = {f"x{i:02d}": f"word{i} the cat sat on the mat near door {i}" for i in range(12)}
BASE = {k: " ".join(v.split()[: 3 + i % 5]) for i, (k, v) in enumerate(REFS.items())}
CAND = {k: " ".join(v.split()[i % 4 :]) for i, (k, v) in enumerate(REFS.items())}


def test_every_figure_of_a_small_suite_recomputed_by_hand(tmp_path: Path) -> None:
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in BASE.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in CAND.items()))},
    )  # fmt: skip
    data = json_of(suite, 12)
    oracle = rouge_score(metrics=["rougeL"])
    base = {k: oracle.score(REFS[k], BASE[k])["rougeL"] for k in REFS}
    cand = {k: oracle.score(REFS[k], CAND[k])["rougeL"] for k in REFS}
    n = len(REFS)

    def mean(xs: list[float]) -> float:
        return math.fsum(xs) / len(xs)

    def sd(xs: list[float]) -> float:
        m = mean(xs)
        return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))

    base_f = [base[k].fmeasure for k in REFS]
    deltas = [cand[k].fmeasure - base[k].fmeasure for k in REFS]
    assert data["baseline"]["mean"] == pytest.approx(mean(base_f), abs=1e-15)
    half = 2.0 * sd(base_f) / math.sqrt(n)  # one run: k standard errors
    assert data["baseline"]["band"] == pytest.approx([mean(base_f) - half, mean(base_f) + half], abs=1e-15)
    assert data["baseline"]["band_source"] == "analytic"
    assert data["delta"] == pytest.approx(mean(deltas), abs=1e-15)
    ci = Z95 * sd(deltas) / math.sqrt(n)
    assert data["delta_interval"] == pytest.approx([mean(deltas) - ci, mean(deltas) + ci], abs=1e-15)
    assert data["delta_precision"] == pytest.approx(mean([cand[k].precision - base[k].precision for k in REFS]), abs=1e-15)
    assert data["delta_recall"] == pytest.approx(mean([cand[k].recall - base[k].recall for k in REFS]), abs=1e-15)
    moved = sorted((abs(d) for d in deltas), reverse=True)
    assert data["top_share"] == pytest.approx(math.fsum(moved[:10]) / math.fsum(moved), abs=1e-15)
    assert 0 < data["top_share"] < 1  # twelve examples: the ten hold part of it
    low, high = data["baseline"]["band"]
    c = data["candidate"]["mean"]
    assert data["verdict"] == ("drift-down" if c < low else "drift-up" if c > high else "within-band")


def test_improved_and_regressed_are_counted_by_hand_in_every_format(tmp_path: Path) -> None:
    """Issue 38, 8: what a web viewer shows first, how many got better and how many worse,
    by more than 0.01 in F (a smaller move is not counted either way)."""
    refs = {f"x{i}": "the cat sat on the mat by the door" for i in range(6)}
    base = {k: "the cat sat on the mat" for k in refs}
    cand = {"x0": "the cat sat on the mat by the door",  # up
            "x1": "the cat sat on the mat by the",  # up
            "x2": "the cat",  # down
            "x3": "the cat sat on the mat",  # unchanged
            "x4": "the cat sat on a mat",  # down
            "x5": "the cat sat on the mat"}  # fmt: skip
    suite = make_suite(
        tmp_path / "s", jsonl(*({"id": k, "reference": v} for k, v in refs.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in base.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in cand.items()))},
    )  # fmt: skip
    oracle = rouge_score(metrics=["rougeL"])
    deltas = [oracle.score(refs[k], cand[k])["rougeL"].fmeasure - oracle.score(refs[k], base[k])["rougeL"].fmeasure
              for k in refs]
    assert all(abs(abs(d) - 0.01) > 1e-6 for d in deltas)  # none on the line
    up, down = sum(d > 0.01 for d in deltas), sum(d < -0.01 for d in deltas)
    assert (up, down) == (2, 2)  # as worked by hand above
    made = report_of(suite)
    assert json.loads(render(made, "json"))["moved"] == {"by_more_than": 0.01, "improved": up, "regressed": down}
    said = "2 improved, 2 regressed (|Δ| > 0.01)"
    for fmt, shown in (("text", said), ("markdown", said), ("html", said.replace(">", "&gt;"))):
        assert shown in render(made, fmt), fmt


def test_coverage_and_density_with_sources_at_build_level_and_in_each_row(tmp_path: Path) -> None:
    data = json_of(copy_suite(tmp_path / "s"), no_cache=True)
    for role in ("baseline", "candidate"):
        coverage, density = COPY_MEANS[role]
        assert data[role]["coverage"] == pytest.approx(coverage, abs=1e-12), role
        assert data[role]["density"] == pytest.approx(density, abs=1e-12), role
    rows = {row["id"]: row for row in data["top"]}
    assert set(rows) == set(COPY_ROWS)
    for example_id, (coverage, density) in COPY_ROWS.items():
        assert rows[example_id]["coverage"] == pytest.approx(coverage, abs=1e-12), example_id
        assert rows[example_id]["density"] == pytest.approx(density, abs=1e-12), example_id


def test_a_builds_coverage_and_density_are_the_means_over_all_its_runs(tmp_path: Path) -> None:
    """SPEC: with a source, each build has the mean coverage and density. With replicate
    runs the candidate's were its first run's alone (a newcomer's run 2 invented sentences,
    its build's figures unmoved). Run 2 here repeats the baseline's outputs, so the build's
    means are the two worked-out means' mean."""
    suite = copy_suite(tmp_path / "s")
    runs = suite / "builds" / "2"
    runs.mkdir()
    (suite / "builds" / "2.jsonl").rename(runs / "run-1.jsonl")
    (runs / "run-2.jsonl").write_text((suite / "builds" / "1.jsonl").read_text())
    data = json_of(suite, no_cache=True)
    assert data["candidate"]["runs"] == 2
    (base_cov, base_dens), (cand_cov, cand_dens) = COPY_MEANS["baseline"], COPY_MEANS["candidate"]
    assert data["baseline"]["coverage"] == pytest.approx(base_cov, abs=1e-12)
    assert data["candidate"]["coverage"] == pytest.approx((cand_cov + base_cov) / 2, abs=1e-12)
    assert data["candidate"]["density"] == pytest.approx((cand_dens + base_dens) / 2, abs=1e-12)


def test_no_coverage_or_density_without_sources(tmp_path: Path) -> None:
    data = json_of(copy_suite(tmp_path / "s", sources=False), no_cache=True)
    for place in (data["baseline"], data["candidate"], *data["top"]):
        assert "coverage" not in place and "density" not in place
    assert len(data["top"]) == 2


def test_marks_in_the_json_with_stale_and_carried_from(tmp_path: Path) -> None:
    same = {"1.jsonl": BASE, "2.jsonl": CAND, "3.jsonl": BASE, "4.jsonl": CAND}
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {name: jsonl(*({"id": k, "output": v} for k, v in texts.items())) for name, texts in same.items()},
    )  # fmt: skip
    analysis = open_analysis(open_suite(suite), Settings(), "1", "2", caches=Caches.default())
    Review(analysis, analysis.texts.result()).set_mark("x03", "fine", "as intended")
    here = open_analysis(open_suite(suite), Settings(), "3", "4", caches=Caches.default())
    Review(here, here.texts.result()).set_mark("x05", "regression", "")
    data = json_of(suite, baseline="3", candidate="4")
    assert data["marks"] == {
        "x03": {"mark": "fine", "note": "as intended", "stale": False,
                "carried_from": {"baseline": "1", "candidate": "2"}},
        "x05": {"mark": "regression", "note": "", "stale": False},
    }  # fmt: skip
    assert all(type(entry["stale"]) is bool for entry in data["marks"].values())
    # The text report's notes say where a carried one was written, and (a newcomer's pass)
    # the Markdown and HTML ones too: they said "fine (carried)" and no pair.
    notes = as_format(suite, "text", 12, baseline="3", candidate="4").split("notes:")[1]
    assert "x03 (carried from 1 → 2) as intended" in " ".join(notes.split())
    markdown = as_format(suite, "markdown", 12, baseline="3", candidate="4")
    row = next(line for line in markdown.splitlines() if line.startswith("| ") and " x03 " in line)
    assert "| fine (carried) | (carried from 1 → 2) as intended |" in row, row
    page = as_format(suite, "html", 12, baseline="3", candidate="4")
    assert "(carried from 1 → 2) as intended" in page


def parquet_rows(suite: Path, out: Path, *flags: str) -> list[dict]:
    import polars as pl

    assert cli.main(["report", str(suite), "--format", "parquet", "--out", str(out), *flags]) in (0, 1)
    return pl.read_parquet(out).to_dicts()


def test_parquet_is_the_json_reports_every_row_with_precision_and_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SPEC "Interfaces": ``--format parquet``, the per-example table (id, baseline and
    candidate P/R/F, delta, signals, marks), read back with polars: every paired example in
    rank order, F, delta, signals and marks as the JSON report gives them, P and R as
    rouge-score computes them; the same bytes from a second run."""
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in BASE.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in CAND.items()))},
    )  # fmt: skip
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    review = Review(analysis, analysis.texts.result())
    review.set_mark("x03", "regression", "cut short")
    review.set_mark("x01", "unsure")  # a mark with no note: its note is null, as README says
    rows = parquet_rows(suite, tmp_path / "r.parquet")
    assert parquet_rows(suite, tmp_path / "again.parquet") == rows
    assert (tmp_path / "again.parquet").read_bytes() == (tmp_path / "r.parquet").read_bytes()
    data = report_json(suite, capsys, "--top", str(len(REFS)))
    assert [row["id"] for row in rows] == [row["id"] for row in data["top"]] and len(rows) == len(REFS)
    oracle = rouge_score(metrics=["rougeL"])
    for row, shown in zip(rows, data["top"]):
        example = row["id"]
        assert (row["baseline_f"], row["candidate_f"], row["delta"]) == (shown["baseline"], shown["candidate"], shown["delta"])
        assert row["signals"] == shown["signals"]
        for role, outputs in (("baseline", BASE), ("candidate", CAND)):
            expected = oracle.score(REFS[example], outputs[example])["rougeL"]
            assert row[f"{role}_precision"] == pytest.approx(expected.precision, abs=1e-15), (example, role)
            assert row[f"{role}_recall"] == pytest.approx(expected.recall, abs=1e-15), (example, role)
            assert row[f"{role}_f"] == pytest.approx(expected.fmeasure, abs=1e-15), (example, role)
        marked = {"x03": ("regression", "cut short"), "x01": ("unsure", None)}
        assert (row["mark"], row["note"]) == marked.get(example, (None, None))
    assert data["marks"]["x03"]["mark"] == "regression"


def test_parquet_with_replicate_runs_gives_each_builds_mean_over_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A build with replicate runs: its P, R and F in the table are the means over its runs
    (F equal to the JSON's, P and R each run's rouge-score value averaged)."""
    runs = {"run-1.jsonl": BASE, "run-2.jsonl": CAND}
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1": {name: jsonl(*({"id": k, "output": v} for k, v in texts.items())) for name, texts in runs.items()},
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in CAND.items()))},
    )  # fmt: skip
    rows = parquet_rows(suite, tmp_path / "r.parquet", "--no-cache")
    data = report_json(suite, capsys, "--top", str(len(REFS)), "--no-cache")
    oracle = rouge_score(metrics=["rougeL"])
    for row, shown in zip(rows, data["top"], strict=True):
        assert (row["id"], row["baseline_f"], row["delta"]) == (shown["id"], shown["baseline"], shown["delta"])
        each = [oracle.score(REFS[row["id"]], texts[row["id"]])["rougeL"] for texts in runs.values()]
        assert row["baseline_precision"] == pytest.approx(math.fsum(s.precision for s in each) / 2, abs=1e-15)
        assert row["baseline_recall"] == pytest.approx(math.fsum(s.recall for s in each) / 2, abs=1e-15)


def test_html_of_files_changed_since_their_figures_were_cached_shows_the_files_as_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build rewritten between its cached figures and its texts being read: the page's
    figures are computed again from the texts it shows (it said "run it again", exit 2)."""
    from rouge_tui.analysis import pipeline

    suite = make_suite(tmp_path / "s")
    report_json(suite, capsys)  # the figures cached
    real = pipeline.read_texts

    def rewritten_first(*args, **kwargs):
        (suite / "builds" / "2-new.jsonl").write_text(jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": ""}))
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "read_texts", rewritten_first)
    page = rendered(suite, "html", capsys)
    monkeypatch.setattr(pipeline, "read_texts", real)
    now = report_json(suite, capsys, "--no-cache")
    # "a": "the cat" (F 0.8) -> "the cat sat" (F 1.0), worked by hand against "the cat sat".
    rows = {row["id"]: row for row in now["top"]}
    assert (rows["a"]["baseline"], rows["a"]["candidate"]) == (pytest.approx(0.8), 1.0)
    assert f"{now['delta']:+.4f}" in page and f"{now['candidate']['mean']:.4f}" in page


# ---------------------------------------------------------------------- Markdown and text


def test_the_text_report_cuts_long_ids_where_they_differ(tmp_path: Path) -> None:
    """A newcomer's promptfoo export: each id is a test's vars as JSON, and the text report
    cut every one at its 32nd character, so rows of one article read alike. Each id is now
    cut where it differs from the others listed, in at most 32 characters: the rows read
    apart, and each shown id is pieces of its own id, in order."""
    article = "Server-crashed-at-02:14-UTC-on-the-primary-database"  # (no space: the table splits at them)
    ids = [json.dumps({"article": article, "question": q}, separators=(",", ":")) for q in ("what-failed", "when", "paged")]
    words = ["cat sat on the mat", "dog ran in the park", "birds sing at dawn"]
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": w} for i, w in zip(ids, words))),
                       {"1.jsonl": jsonl(*({"id": i, "output": w.split()[0]} for i, w in zip(ids, words))),
                        "2.jsonl": jsonl(*({"id": i, "output": w} for i, w in zip(ids, words)))})
    text = as_format(suite, "text")
    table = text[text.index("most-moved outputs"):]
    shown = [line.split()[1] for line in table.splitlines()[2:5]]  # rank, id, ...: the ids have no space
    assert len(set(shown)) == 3, shown
    for cut in shown:
        assert len(cut) <= 32 and "…" in cut, shown
        own = next(i for i in ids if all(piece in i for piece in cut.split("…")))
        at = 0
        for piece in cut.split("…"):  # in order
            at = own.index(piece, at) + len(piece)


def test_the_text_report_shows_the_notes_of_its_rows(tmp_path: Path) -> None:
    """Markdown and HTML had each row's note; the text report had none (a newcomer's note
    about a regression was nowhere in the CI log). Shown whole, one line, escaped."""
    suite = make_suite(tmp_path / "s")
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    note = "the output is gone \x1b[31m see b; " + "the rest of a long note " * 6 + "END"
    Review(analysis, analysis.texts.result()).set_mark("b", "regression", note)
    rank = [row["id"] for row in json_of(suite)["top"]].index("b") + 1
    text = as_format(suite, "text")
    lines = text.splitlines()
    at = lines.index("notes:")
    body = " ".join(line.strip() for line in lines[at + 1:at + 6])
    assert body.startswith(f"{rank} b the output is gone \\x1b[31m see b;")
    assert "END" in body and "\x1b" not in text


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_every_mark_and_note_is_in_the_report_past_the_rows_it_lists(tmp_path: Path, fmt: str) -> None:
    """A newcomer's note on a row past the ten, and one on a flagged row, were in the JSON and
    the HTML but in neither the text nor the Markdown report: what a reviewer wrote never
    becomes invisible (SPEC)."""
    import shutil

    suite = shutil.copytree(INCIDENTS, tmp_path / "s")
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    data = json_of(suite)
    listed = {row["id"] for row in (*data["top"], *data["flagged"])}
    far = next(i for i in analysis.figures.ids if i not in listed)
    flagged = data["flagged"][0]["id"]
    review = Review(analysis, analysis.texts.result())
    review.set_mark(far, "regression", "rank-far note")
    review.set_mark(flagged, "fine", "flagged row note")
    review.set_mark(next(i for i in analysis.figures.ids[20:] if i not in listed and i != far), "unsure")
    text = as_format(suite, fmt)
    far_line = next(line for line in text.splitlines() if "rank-far note" in line)
    assert far in far_line and "regression" in far_line
    assert "flagged row note" in text
    assert ("marked, in neither list (2):" if fmt == "text" else "## Marked, in neither list (2)") in text


def test_the_text_reports_flagged_table_has_no_empty_rank_column() -> None:
    """A newcomer: "#" headed an empty column over the flagged rows, which have no rank."""
    text = as_format(INCIDENTS, "text")
    lines = text[text.index(" flagged: a drifting signal fired"):].splitlines()
    assert lines[1].split() == ["id", "base", "cand", "delta", "signals", "mark"]
    flagged = json_of(INCIDENTS)["flagged"]
    assert [line.split()[0] for line in lines[2 : 2 + len(flagged)]] == [row["id"] for row in flagged]


def test_marked_ids_in_neither_list_are_cut_where_they_differ(tmp_path: Path) -> None:
    """The marked examples in neither list were cut at 32 characters from their start: two
    promptfoo ids of one article (a test's vars as JSON) read alike (a review of the diff)."""
    ids = [f'{{"article": "the long shared part of one article", "question": {k}}}' for k in range(6)]
    words = ["the cat sat", "the cat", "a dog ran", "the mat", "cat sat on", "on the mat"]
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in ids)),
                       {"1.jsonl": jsonl(*({"id": i, "output": "the cat sat on the mat"} for i in ids)),
                        "2.jsonl": jsonl(*({"id": i, "output": w} for i, w in zip(ids, words)))})
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    review = Review(analysis, analysis.texts.result())
    outside = [i for i in analysis.figures.ids if i not in {r["id"] for r in json_of(suite, 1)["top"]}][:3]
    for example_id in outside:
        review.set_mark(example_id, "unsure")
    text = render(report_of(suite, 1), "text")
    lines = text[text.index("marked, in neither list"):].splitlines()[1:4]
    shown = [line.rsplit(" unsure", 1)[0].strip() for line in lines]
    assert len(set(shown)) == 3 and all(len(cut) <= 32 for cut in shown), shown


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_quotes_the_flagged_outputs_new_figures(fmt: str) -> None:
    """The text report quoted the flagged rows' new figures (what raised the alarm); Markdown
    and HTML quoted the ten's alone."""
    data = json_of(INCIDENTS)
    found = [row for row in data["flagged"] if row["new_figures"]]
    assert found
    text = as_format(INCIDENTS, fmt)
    said = text[re.search("says? that", text).start():]
    for row in found:
        figures = ", ".join(dict.fromkeys(row["new_figures"]))
        assert row["id"] in said and ("new figure: " if ", " not in figures else "new figures: ") + figures in said
    # Each sentence once: an output that repeats a line (the duplicated signal) said it twice.
    twice = next(row for row in data["flagged"] if len(set(row["new_sentences"])) < len(row["new_sentences"]))
    sentence = next(s for s in twice["new_sentences"] if twice["new_sentences"].count(s) > 1)
    rows = [row for row in (*data["top"], *data["flagged"]) if sentence in row["new_sentences"]]
    assert said.count(f"new sentence: {sentence}") == len(rows)


def test_markdown_carries_the_verdicts_reason_warnings_and_notes(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    Review(analysis, analysis.texts.result()).set_mark("b", "regression", "the output is | gone\nsee b")
    data = json_of(suite)
    text = as_format(suite, "markdown")
    assert data["verdict_reason"] in text.splitlines()[2]
    row = next(line for line in text.splitlines() if line.startswith("| ") and "| b |" in line)
    assert "| regression |" in row
    # a cell is one line: the pipe escaped, the note's first line there and the whole note
    # below the table, a quoted line each (issue 38, 9: it read `gone\\nsee b`)
    assert row.endswith("| the output is \\| gone (whole note below) |")
    assert "- **1. b**\n\n  > the output is \\| gone\n  > see b\n" in text
    data["warnings"] = ["the references changed", "a second warning"]
    markdown = render_markdown(data)
    assert "> **warning:** the references changed" in markdown
    assert "> **warning:** a second warning" in markdown


HOSTILE_IDS = ["a|b", "`code`", "```", "<script>alert(1)</script>", "\x1b[31mred\x1b]0;title\x07",
               "back\\slash|", "*bold*_x_", "[link](http://x)"]  # fmt: skip


def _hostile_suite(root: Path) -> Path:
    output = "the cat <script>x</script> ``` sat on \x1b[2J the mat"
    return make_suite(
        root,
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in HOSTILE_IDS)),
        {"1.jsonl": jsonl(*({"id": i, "output": "the cat sat"} for i in HOSTILE_IDS)),
         "2.jsonl": jsonl(*({"id": i, "output": output} for i in HOSTILE_IDS))},
        toml='name = "suite | `x` <b>\\u001b[1m"\n',
    )  # fmt: skip


def unescaped_pipes(line: str) -> int:
    """Pipes that end a Markdown table cell: those after an even run of backslashes."""
    return sum(1 for m in re.finditer(r"(\\*)\|", line) if len(m.group(1)) % 2 == 0)


def test_untrusted_text_is_escaped_in_markdown(tmp_path: Path) -> None:
    text = as_format(_hostile_suite(tmp_path / "s"), "markdown")
    assert "\x1b" not in text and "\x07" not in text
    assert "<script>" not in text and "<b>" not in text
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(rows) == len(HOSTILE_IDS)
    for line in rows:
        assert unescaped_pipes(line) == 9, line  # eight cells, no more
        # no unescaped backtick: none can open code that swallows the rest of the row
        assert not re.search(r"(?<!\\)`", line), line
    title = text.splitlines()[0]
    assert title == "# ROUGE drift report: suite \\| \\`x\\` \\<b\\>\\\\x1b\\[1m"


def test_an_entity_in_untrusted_text_is_shown_as_written_in_markdown() -> None:
    """A newcomer's note "pipe &amp; `tick`" was written as is, and a Markdown renderer shows
    "&amp;" as "&": an & is backslashed like the other marks (CommonMark: a backslashed
    punctuation character is itself), so the note renders as typed."""
    from markdown_it import MarkdownIt

    from rouge_tui.report.markdown import md

    assert md("pipe &amp; `tick`") == "pipe \\&amp; \\`tick\\`"
    assert md("R&D &#x41;") == "R\\&D \\&\\#x41;"
    for text in ("pipe &amp; `tick`", "R&D &#x41; &copy;", "a *b* _c_ [d](e) <f> ~g~ #h |i| \\j"):
        (line,) = MarkdownIt("commonmark").parseInline(md(text))  # rendered: what a reader sees
        assert [child.type for child in line.children] == ["text"] and line.children[0].content == text


def test_a_url_in_untrusted_text_is_no_link_in_markdown() -> None:
    """A newcomer pasted the Markdown report into a ticket: GitHub's renderer made links of
    the URLs in outputs (a phishing URL, clickable). Backslashed, "://" and "www." are
    text; checked with markdown-it's GFM-like renderer, which links bare URLs."""
    from markdown_it import MarkdownIt

    from rouge_tui.report.markdown import md

    gfm = MarkdownIt("gfm-like")
    assert "<a " in gfm.renderInline("see http://evil.example/login now")  # the renderer does link them
    for text in ("see http://evil.example/login now", "<https://evil.example/x?a=1&b=2>", "FTP://a.b/c",
                 "visit www.evil.example today", "a_www.evil.example", "(WWW.evil.example)", "10:30 // a:b www"):
        rendered = gfm.renderInline(md(text))
        assert "<a " not in rendered, (text, rendered)
        (line,) = gfm.parseInline(md(text))
        assert "".join(child.content for child in line.children) == text
    assert md("a_www.evil.example and awww.x") == "a\\_www\\.evil.example and awww\\.x"  # GitHub links after a _


def test_untrusted_text_is_escaped_in_the_text_report(tmp_path: Path) -> None:
    text = as_format(_hostile_suite(tmp_path / "s"), "text")
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[31mred" in text  # shown, as visible escapes


def test_untrusted_text_is_ascii_escaped_in_json_and_round_trips(tmp_path: Path) -> None:
    raw = as_format(_hostile_suite(tmp_path / "s"), "json")
    assert raw.isascii() and "\x1b" not in raw and "\x07" not in raw
    data = json.loads(raw)
    assert sorted(row["id"] for row in data["top"]) == sorted(HOSTILE_IDS)  # exact, untouched
    assert data["suite"] == "suite | `x` <b>\x1b[1m"


def test_untrusted_text_is_escaped_in_html(tmp_path: Path) -> None:
    page = as_format(_hostile_suite(tmp_path / "s"), "html")
    assert "\x1b" not in page and "\x07" not in page
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<title>ROUGE drift review: suite | `x` &lt;b&gt;\\x1b[1m</title>" in page
    assert page.count("<script") == 0 and "Content-Security-Policy" in page


def test_html_shows_control_characters_in_one_line_fields_as_visible_escapes(
    tmp_path: Path
) -> None:
    """An id "tab\\there\\nnewline" went into <h3> and <td> raw, so a browser showed "tab here
    newline", like an id with spaces; build and suite names too. Every one-line field shows
    `one_line`'s escapes, as the text and Markdown reports do; a note keeps its line breaks
    and escapes the rest."""
    tabbed, esc = "tab\there\nnewline", "esc\x1b[31mred"
    suite = make_suite(
        tmp_path / "s",
        jsonl({"id": tabbed, "reference": "the cat sat on the mat"}, {"id": esc, "reference": "a dog ran"}),
        {"1\tbase.jsonl": jsonl({"id": tabbed, "output": "the cat"}, {"id": esc, "output": "a dog ran"}),
         "2\x1bnew.jsonl": jsonl({"id": tabbed, "output": "the cat sat on the mat"}, {"id": esc, "output": "dog"})},
        toml='name = "suite\\there\\u001b[1m"\n',
    )
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    Review(analysis, analysis.texts.result()).set_mark(tabbed, "regression", "first line\nsecond \x1b[2J line")
    page = as_format(suite, "html")
    assert "\t" not in page and "\x1b" not in page and tabbed not in page
    assert "<td>tab\\there\\nnewline</td>" in page and "<td>esc\\x1b[31mred</td>" in page
    assert re.search(r"<h3>\d\. tab\\there\\nnewline: <span", page)
    assert "<td>1\\tbase</td>" in page and "<b>candidate · 2\\x1bnew</b>" in page
    assert "<title>ROUGE drift review: suite\\there\\x1b[1m</title>" in page
    assert "<h1>ROUGE drift review: suite\\there\\x1b[1m</h1>" in page
    for tag, attributes, body in re.findall(r"<(title|h1|h3|td|b)\b([^>]*)>(.*?)</\1>", page, re.DOTALL):
        assert "\n" not in body or attributes == " class=prose", (tag, body)
    assert '<blockquote class="text">first line\nsecond \\x1b[2J line</blockquote>' in page
    assert "<td class=prose>first line\nsecond \\x1b[2J line</td>" in page


def _chromium() -> str:
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "Debian's chromium is required for the HTML tests (CI installs it)"
    return found


def _in_chromium(page: Path, tmp_path: Path) -> tuple[str, str]:
    """The DOM a real headless browser builds from ``page``, and what it logged."""
    import subprocess

    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    done = subprocess.run([_chromium(), *flags, "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=90, check=False)
    return done.stdout, done.stderr


def test_the_first_html_report_of_a_suite_with_earlier_builds_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the cache on and empty, the figures were computed with the earlier builds in
    their key but checked against the texts without them: the first `--format html` of any
    suite of three builds or more said "the suite's files changed" and exited 2."""
    builds = {f"{n}.jsonl": jsonl({"id": "a", "output": f"the cat sat {n}"}, {"id": "b", "output": "a dog"})
              for n in range(1, 5)}
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "the cat sat"},
                                             {"id": "b", "reference": "a dog ran"}), builds)
    for _ in range(2):  # cold, then from the cache
        assert cli.main(["report", str(suite), "--format", "html"]) in (0, 1)
        captured = capsys.readouterr()
        assert "ROUGE drift review" in captured.out and captured.err == ""


@pytest.mark.slow
def test_the_html_page_renders_in_a_real_browser_and_suite_text_never_becomes_markup(
    tmp_path: Path
) -> None:
    """Issue 11, 15: one self-contained page, no console errors, and a suite full of
    `<script>` and `"><img onerror=…>` shows them as text."""
    suite = make_suite(
        tmp_path / "s",
        jsonl({"id": '"><img src=x onerror=alert(1)>', "reference": "the <script>alert(1)</script> pool"},
              {"id": "b", "reference": "a dog </div><iframe src=javascript:alert(2)> ran"}),
        {"1.jsonl": jsonl({"id": '"><img src=x onerror=alert(1)>', "output": "the pool"}, {"id": "b", "output": "a dog"}),
         "2.jsonl": jsonl({"id": '"><img src=x onerror=alert(1)>', "output": "<script>alert(3)</script> the pool"},
                          {"id": "b", "output": "a dog ran <svg onload=alert(4)>"})},
        toml='name = "<script>alert(5)</script>"\n',
    )
    page = tmp_path / "report.html"
    page.write_text(as_format(suite, "html"), encoding="utf-8")
    dom, log = _in_chromium(page, tmp_path)
    assert "<body" in dom and "ROUGE drift review" in dom
    tags = set(re.findall(r"<([a-zA-Z][\w-]*)", dom))  # real elements: escaped text is &lt;...
    assert tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "span",
                    "table", "tbody", "tr", "td", "th", "code", "div", "blockquote", "b",
                    "ul", "li"}, tags  # (ul, li: "what the candidate says", a list of ours)
    assert not re.search(r"<[^>]*\son\w+=", dom)  # no event handler on any element
    import html

    shown = html.unescape(re.sub(r"<[^>]+>", "", dom))  # the page's text, as a reader sees it
    assert '"><img src=x onerror=alert(1)>' in shown and "<script>alert(5)</script>" in shown
    assert "<script>alert(" in shown and "<svg onload=alert(" in shown
    assert "CONSOLE" not in log and "Uncaught" not in log
    assert "http://" not in page.read_text() and "https://" not in page.read_text()  # no network


def test_markdown_history_is_its_own_last_section() -> None:
    """The history table came before the top rows' "what the candidate says" list, so that
    list read as part of "## History"."""
    lines = as_format(INCIDENTS, "markdown", history=True).splitlines()
    said = lines.index("### What the candidate says that its reference, source and baseline do not")
    history = lines.index("## History")
    assert said < history
    assert lines[history + 2].startswith("_Each build over its own ids")
    table = lines[history + 4 :]
    assert table[0] == "| build | runs | n | mean | band | paired Δ | verdict |" and all(line.startswith("| ") for line in table)
    assert len(table) == 2 + len(list((INCIDENTS / "builds").iterdir()))
    lines = [line.strip() for line in as_format(INCIDENTS, "text", history=True).splitlines()]  # and in text
    assert lines.index("what the candidates say that reference, source and baseline do not:") < lines.index("history")


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_top_0_lists_no_table_of_the_most_moved(fmt: str) -> None:
    """It said "the 0 most-moved outputs" over an empty table; the verdict stays."""
    out = as_format(INCIDENTS, fmt, 0)
    assert "most-moved outputs" not in out
    assert "drift-down" in out
    assert "3 most-moved outputs" in as_format(INCIDENTS, fmt, 3)


def test_html_carries_what_text_and_markdown_carry(tmp_path: Path) -> None:
    """The HTML report left out --history, the ids left out of the pairing and the notes'
    column, and let a long word run off the page; an empty output's pane was blank."""
    made = report_of(INCIDENTS, history=True)
    page, data = render(made, "html"), json.loads(render(made, "json"))
    history = page[page.index("<h2>History</h2>"):]
    assert history.count("<tr><td>") == len(list((INCIDENTS / "builds").iterdir()))
    rows = re.findall(r"<tr><td>.*?</tr>", history)  # each a build's seven cells, in order
    assert len(rows) == len(data["history"]) and all(row.count("<td") == 7 for row in rows)
    said = {"drift-down": "drift-down", "drift-up": "drift-up", "within-band": "within band"}  # SPEC's words
    assert rows[-1].endswith(f"<td class=n>{data['delta']:+.4f}</td><td>{said[data['verdict']]}</td></tr>")
    for key, label in (("only_in_baseline", "Only in baseline"), ("only_in_candidate", "Only in candidate"),
                       ("missing_reference", "Missing reference")):
        assert data[key] and f"<p>{label} ({len(data[key])}): {html.escape(repr(data[key][0]))}" in page
    assert page.count("<th>mark</th><th>note</th></tr>") == 2  # the top and the flagged (as Markdown)
    assert "overflow-wrap: anywhere" in page
    # A newcomer's phone laid the page out 980 pixels wide and shrank it to 6-pixel text.
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    empty = next(row for row in data["top"] if "empty" in row["signals"])
    section = page[page.index(f"{empty['id']}: <span"):]
    assert '<span class="fold">(empty output)</span>' in section.split("<h3>")[0]
    assert "<h2>History</h2>" not in as_format(INCIDENTS, "html")


def test_the_ids_left_out_are_quoted_so_a_space_or_a_comma_shows(tmp_path: Path, capsys) -> None:
    """A red-team pass: a CSV id "1 " (a space after it) was listed "missing reference (1): 1",
    as if it were id 1; an id holding ", " read as two. Each id is quoted, in every format."""
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": "a dog"}),
                       {"1-old.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": "a dog"},
                                             {"id": "1 ", "output": "x"}, {"id": "c, d", "output": "y"}),
                        "2-new.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "a dog"},
                                             {"id": "1 ", "output": "x"}, {"id": "c, d", "output": "y"})})
    for fmt, said in (("text", "missing reference (2): '1 ', 'c, d'"), ("markdown", "Missing reference (2): '1 ', 'c, d'"),
                      ("html", "Missing reference (2): &#x27;1 &#x27;, &#x27;c, d&#x27;")):
        assert said in rendered(suite, fmt, capsys), fmt


def test_html_colours_each_mark_word_as_the_registry_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark word's HTML colour is its entry in MARKS, nowhere else."""
    from dataclasses import replace

    from rouge_tui.store.marks import MARKS

    for mark, colour in zip(list(MARKS.values()), ("#010203", "#040506", "#070809")):
        monkeypatch.setitem(MARKS, mark.word, replace(mark, html=colour))
    rules = _css_rules(as_format(INCIDENTS, "html"))
    for mark in MARKS.values():
        assert f"color: {mark.html};" in rules[f".mark-{mark.word}"], mark


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_says_the_verdict_as_the_registry_does(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict's words and symbol (and HTML background) are its entry in VERDICTS, for
    every format (the sample's verdict is drift-down)."""
    from dataclasses import replace

    for v in list(VERDICTS.values()):
        monkeypatch.setitem(VERDICTS, v.name, replace(v, words=f"{v.name} as said", symbol="◆", html="#123"))
    out = as_format(INCIDENTS, fmt)
    assert "◆ drift-down as said" in out
    if fmt == "html":
        assert all("background: #123;" in _css_rules(out)[f".{name}"] for name in VERDICTS)


def _css_rules(page: str) -> dict[str, str]:
    """The page's style sheet: each selector and the declarations of every rule naming it."""
    sheet = page[page.index("<style>") + len("<style>") : page.index("</style>")]
    rules: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", sheet):
        for selector in selectors.split(","):
            rules[selector.strip()] = rules.get(selector.strip(), "") + body
    return rules


def test_html_numbers_and_headers_never_break_inside_a_token() -> None:
    """In Chromium at 1000 px a long note squeezed the other columns and `overflow-wrap:
    anywhere` on every cell split them: `+0.768`/`4`, `baselin`/`e`, `regressio`/`n`. Now no
    cell wraps but a note's or an error's, and a table too wide scrolls in its own box."""
    page = as_format(INCIDENTS, "html", history=True)
    rules = _css_rules(page)
    for selector in ("td", "th"):
        assert "white-space: nowrap" in rules[selector] and "anywhere" not in rules[selector], selector
    assert "white-space" not in rules["td.n"] and "anywhere" not in rules["td.n"]
    assert "overflow-x: auto" in rules[".wide"]
    assert page.count("<table>") == page.count("<div class=wide><table>") == 4  # with the flagged
    cells = re.findall(r"<td(?: class=(\w+))?>([^<]*)</td>", page)
    figures = [kind for kind, text in cells if re.fullmatch(r"[-+\[\]\d., ]+", text)]
    assert len(figures) > 50 and set(figures) == {"n"}  # every figure in a cell of class n
    assert "<td class=prose>" in page and "white-space: nowrap" not in rules["td.prose"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_the_history_says_why_its_n_and_mean_differ_from_the_comparisons(fmt: str) -> None:
    """The baseline read n 237, mean 0.4226 above and n 238, mean 0.4239 in the history, with
    nothing said: the history is over each build's own ids."""
    out = " ".join(as_format(INCIDENTS, fmt, history=True).split())
    assert "over its own ids with a reference" in out and "the ids both builds have" in out
    # And of which score, and against what each build's Δ is (a newcomer's CI log said neither).
    assert "(rougeL F, tokenizer whitespace)" in out and "paired Δ" in out and "against the build before" in out
    assert "over its own ids" not in as_format(INCIDENTS, fmt)


def test_an_output_every_run_repeats_has_a_delta_of_exactly_zero() -> None:
    """Against a build of three runs, an example whose three outputs equal the baseline's had
    a delta of ±1.1e-16 (a plain mean of three equal F), shown as -0.0000 and ranked above the
    true zeros. Which outputs repeat is read from the files."""
    base, cand = "2026-11-23_0da610", "2026-11-24_54c7f3"
    baseline = {r["id"]: r["output"] for r in map(json.loads, (INCIDENTS / "builds" / f"{base}.jsonl").read_text().splitlines())}
    runs = [{r["id"]: r["output"] for r in map(json.loads, path.read_text().splitlines())}
            for path in sorted((INCIDENTS / "builds" / cand).glob("*.jsonl"))]
    repeated = {i for i, text in baseline.items() if all(run.get(i) == text for run in runs)}
    top = json_of(INCIDENTS, 1000, baseline=base, candidate=cand)["top"]
    assert len(runs) == 3 and len(repeated & {r["id"] for r in top}) > 100
    assert all(r["delta"] == 0.0 for r in top if r["id"] in repeated)
    moved = [abs(r["delta"]) for r in top]
    assert moved == sorted(moved, reverse=True)


def test_json_of_a_build_whose_file_name_is_not_utf8_is_strict_json(tmp_path: Path, capsys) -> None:
    """Issue 39, weak spot: a build file named with a byte that is not UTF-8 (0xff) became a
    lone surrogate escape ("\\udcff") in the JSON, which strict parsers reject. orjson is one
    (it refuses lone surrogates); the name reads as the text report shows it."""
    import orjson

    suite = make_suite(tmp_path / "s")
    builds = os.fsencode(suite / "builds")
    os.rename(builds + b"/2-new.jsonl", builds + b"/2-new\xff.jsonl")
    out = rendered(suite, "json", capsys, "--history")
    data = orjson.loads(out)
    assert data["candidate"]["name"] == "2-new\\udcff"
    assert [h["name"] for h in data["history"]] == ["1-old", "2-new\\udcff"]
    assert "2-new\\udcff" in rendered(suite, "text", capsys)  # the same escape everywhere


def test_the_text_report_names_the_method_of_each_figure_of_the_paired_test(tmp_path: Path) -> None:
    """A newcomer read `paired  bootstrap 95% [...]  p 0.3748` as the bootstrap's p; the p is
    the sign-flip test's (delta_test.method names both, which the text report does not show)."""
    made = report_of(copy_suite(tmp_path / "s"))
    test = json.loads(render(made, "json"))["delta_test"]
    assert "bootstrap" in test["method"] and "sign-flip" in test["method"]
    line = next(line for line in render(made, "text").splitlines() if line.startswith("paired "))
    assert re.search(r"bootstrap 95% \[[^]]+\]  sign-flip p [<\d]", line), line


def test_a_baseline_later_than_its_candidate_is_warned_of(tmp_path: Path) -> None:
    """A newcomer's `--baseline 27 --candidate 26` gave a drift-up and "no signal above its
    band (from 5 earlier build pairs)", pairs that end at 27, after the candidate, with no
    word. The pair is still compared as asked, and said to run backwards."""
    suite = make_suite(
        tmp_path / "s", jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in BASE.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in CAND.items()))},
    )  # fmt: skip
    backwards = json_of(suite, baseline="2", candidate="1", no_cache=True)
    assert (backwards["baseline"]["name"], backwards["candidate"]["name"]) == ("2", "1")
    said = [w for w in backwards["warnings"] if "comes after" in w]
    assert said == [("the baseline '2' comes after the candidate '1' in the suite's order: the delta runs "
                     "backwards in time, and the bands come from builds later than the candidate")]
    forwards = json_of(suite, baseline="1", candidate="2", no_cache=True)
    assert not any("comes after" in w for w in forwards["warnings"])


def test_a_long_line_of_the_text_reports_head_goes_on_under_its_figures(tmp_path: Path) -> None:
    """A newcomer's pass at 80 columns: "±0.0252" of the paired line, and the rest of each long
    warning, began a line of their own at the left edge, where they read as new figures.
    Every line of the head is a label's, or goes on under the figures (11 columns in)."""
    from rouge_tui.report.text import text_for

    suite = copy_suite(tmp_path / "s", sources=False)  # no source: a warning longer than a line
    data = json.loads(render(report_of(suite), "json"))
    assert any(len(w) > 80 for w in data["warnings"])
    head = text_for(data, None).split("\n\n")[0].splitlines()[1:]  # (the suite's name first)
    labels = ("signature ", "verdict ", "delta ", "paired ", "examples ", "moved ", "alarm ", "signals ", "warning ")
    assert len(head) > 8
    for line in head:
        assert line.startswith(labels) or line.startswith(" " * 11) and line[11] != " ", head
    assert all(len(line) <= 80 for line in head)


@pytest.mark.parametrize("examples", [2, 10_000])
def test_the_text_report_tells_long_build_names_apart_one_line_each(tmp_path: Path, capsys, examples: int) -> None:
    """A helper's pass: builds a harness named "2026-11-20 openai:gpt-4o-mini ·
    summarize-incidents-prompt-v1" (v2, v3) were cut at their ends and folded, so the
    baseline, the candidate and every history row read "2026-11-20 / openai:gpt-4o-mini · /
    summari…". Each name is cut where it differs, a row a line, within 80 columns; with a
    5-digit n too (a fixed cut folded the rows there: a review)."""
    name = "2026-11-20 openai:gpt-4o-mini · summarize-incidents-prompt-v{}.jsonl"
    ids = [str(k) for k in range(examples)]
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in ids)), {
        name.format(n): jsonl(*({"id": i, "output": "the cat sat" + " down" * (n + (i == "0"))} for i in ids))
        for n in (1, 2, 3)})
    out = rendered(suite, "text", capsys, "--history")
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    baseline = next(line for line in lines if line.startswith("baseline "))
    candidate = next(line for line in lines if line.startswith("candidate "))
    assert "v2 " in baseline and "v3 " in candidate and "…" in baseline
    history = lines[[line.strip() for line in lines].index("history") + 2:][:3]
    assert [row.strip().split("  ")[0][-2:] for row in history] == ["v1", "v2", "v3"], history  # (names hold spaces)


def test_the_history_leaves_out_runs_of_one_for_the_names_room(tmp_path: Path, capsys) -> None:
    """A newcomer on call: report --history at 80 columns printed "3-poin…-gen-cov" for the
    build 3-pointer-gen-cov, which they needed whole for --baseline, beside a column of 1s.
    Where every build has one run the runs column is left out, and such a name is whole."""
    names = ["1-baseline", "2-pointer-gen", "3-pointer-gen-coverage-x", "4-nightly-1"]
    suite = make_suite(tmp_path / "s", builds={
        f"{name}.jsonl": jsonl({"id": "a", "output": "the cat sat" + " down" * n}, {"id": "b", "output": "a dog ran"})
        for n, name in enumerate(names)})
    lines = rendered(suite, "text", capsys, "--history").splitlines()
    at = [line.strip() for line in lines].index("history")
    assert lines[at + 1].split() == ["build", "n", "mean", "band", "paired", "Δ", "verdict"]
    assert [line.split()[0] for line in lines[at + 2 : at + 6]] == names
    assert max(map(len, lines)) <= 80


@pytest.mark.parametrize("width", [None, 60, 120])
def test_wide_names_and_other_widths_never_cut_a_figure(tmp_path: Path, width: int | None) -> None:
    """A review: names of wide characters took twice the cells they were measured by, and a
    terminal other than 80 columns got names cut for 80: Rich then cut the figures beside
    them ("0.57…  [0.5…"). Each mean and band is whole, whatever the names or the width."""
    from rouge_tui.report.text import text_for

    name = "二〇二六年十一月二十日版{}.jsonl"
    suite = make_suite(tmp_path / "s", builds={
        name.format(n): jsonl({"id": "a", "output": "the cat sat" + " down" * n}, {"id": "b", "output": "a dog ran"})
        for n in (1, 2, 3)})
    made = report_of(suite, history=True)
    out = text_for(json.loads(render(made, "json")), width)
    assert not re.search(r"\d…|\[-?\d\.\d*…", out), out  # no figure cut, at any width
    if width != 60:  # (at 60 columns the figures alone fill a line: a band folds, whole)
        rows = [line for line in out.splitlines() if re.match(r"baseline |candidate | 二〇", line)]
        assert len(rows) == 2 + 3, out  # the pair's, and the history's three, a line each
        assert all(re.search(r" \d\.\d{4}  \[-?\d\.\d{4}, -?\d\.\d{4}\]", row) for row in rows), rows
