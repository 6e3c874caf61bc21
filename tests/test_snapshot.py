"""Analysis snapshots: a comparison read back from the cache is the one computed from scratch,
a damaged or foreign entry is never trusted, the key follows every input byte and setting,
and the report and the app give the same answers warm as cold.

The oracle for "the same answer" is a fresh `analyse` of the suite (or a cold report run),
compared field by field and byte for byte; damaged entries are made by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rouge_tui.snapshot as snapshot_module
from rouge_tui.cli import main
from rouge_tui.compare import BuildStats, Comparison
from rouge_tui.scoring import ScoreSettings, SuiteScorer, analyse
from rouge_tui.snapshot import (
    Snapshot,
    SnapshotError,
    SnapshotStore,
    attach_texts,
    decode_snapshot,
    encode_snapshot,
    list_suite,
    open_analysis,
    snapshot_key,
    unchanged,
)
from rouge_tui.state import MarkStore, ScoreCache, cache_dir, outputs_hash
from rouge_tui.suite import SuiteError, load_suite

WORDS = [
    "the",
    "cache",
    "node",
    "failed",
    "at",
    "night",
    "and",
    "was",
    "replaced",
    "by",
    "a",
    "new",
    "one",
    "soon",
    "after",
]


def _text(seed: int, drop: int) -> str:
    """A deterministic sentence of the shared vocabulary, with every ``drop``-th word left out."""
    words = [WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(12)]
    return " ".join(w for i, w in enumerate(words) if not drop or i % drop)


def write_suite(root: Path, rows: int = 30, toml: str = "") -> Path:
    """A suite that exercises every list a comparison keeps: two runs with a partial id,
    ids only in one build, an empty reference, and three builds (the pair is the last two)."""
    suite = root / "suite"
    (suite / "builds" / "b").mkdir(parents=True)
    if toml:
        (suite / "suite.toml").write_text(toml, encoding="utf-8")
    refs = [{"id": f"ex-{i}", "reference": _text(i, 0)} for i in range(rows)]
    refs.append({"id": "blank", "reference": "   "})
    refs.append({"id": "new", "reference": _text(99, 0)})
    old = [{"id": f"ex-{i}", "output": _text(i, 5)} for i in range(rows)]
    base = [{"id": f"ex-{i}", "output": _text(i, 4)} for i in range(rows - 1)] + [
        {"id": "blank", "output": "x"}
    ]
    run1 = [{"id": f"ex-{i}", "output": _text(i, 3 if i % 3 else 2)} for i in range(1, rows)]
    run2 = [{"id": f"ex-{i}", "output": _text(i, 2)} for i in range(1, rows - 2)]
    run1.append({"id": "new", "output": _text(98, 3)})
    run2.append({"id": "new", "output": _text(98, 2)})
    files = {
        "references.jsonl": refs,
        "builds/0-old.jsonl": old,
        "builds/a.jsonl": base,
        "builds/b/run1.jsonl": run1,
        "builds/b/run2.jsonl": run2,
    }
    for name, records in files.items():
        (suite / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return suite


def fresh(suite_dir: Path, **choices: object) -> Comparison:
    """The oracle: the comparison computed from scratch, no cache of any kind."""
    suite = load_suite(suite_dir)
    base, cand = suite.pick(None, None)
    return analyse(suite, base, cand, ScoreSettings(**choices), None).comparison  # type: ignore[arg-type]


def assert_same(got: Comparison, want: Comparison) -> None:
    """Every field equal; arrays with the same dtype and the same bytes."""
    for field in dataclasses.fields(Comparison):
        a, b = getattr(got, field.name), getattr(want, field.name)
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype, field.name
            assert a.tobytes() == b.tobytes(), field.name
        else:
            assert a == b, field.name
            assert type(a) is type(b), field.name


def entries() -> list[Path]:
    return sorted((cache_dir() / "snapshots").rglob("*.snap"))


# ---------------------------------------------------------------------- equivalence


@pytest.mark.parametrize(
    "choices",
    [
        {},
        {"metric": "rouge2", "k": 3.5},
        {"metric": "rougeLsum", "tokenizer": "rouge-score", "stem": True},
    ],
)
def test_a_snapshot_gives_the_comparison_computed_from_scratch(
    tmp_path: Path, choices: dict
) -> None:
    suite = write_suite(tmp_path)
    want = fresh(suite, **choices)
    # the case is a real one: every list the comparison keeps is non-empty
    assert want.only_in_baseline and want.only_in_candidate and want.missing_reference
    assert want.partial and want.candidate.runs == 2
    options = {k: v for k, v in choices.items() if k != "k"} | {"k": choices.get("k")}
    cold = open_analysis(suite, snapshots=SnapshotStore(), **options)
    assert not cold.from_snapshot and len(entries()) == 1
    warm = open_analysis(suite, snapshots=SnapshotStore(), texts=False, **options)
    assert warm.from_snapshot and not warm.texts
    assert_same(warm.analysis.comparison, want)
    assert_same(cold.analysis.comparison, want)
    assert warm.analysis.suite.fingerprint == load_suite(suite).fingerprint
    assert warm.analysis.suite.name == "suite"
    assert (warm.analysis.baseline.name, warm.analysis.candidate.name) == ("a", "b")
    assert warm.analysis.signature == cold.analysis.signature


def test_texts_attached_to_a_snapshot_are_the_suites(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    open_analysis(suite, snapshots=SnapshotStore())
    warm = open_analysis(suite, snapshots=SnapshotStore(), texts=False)
    assert warm.analysis.baseline.runs[0].outputs == {}  # a shell: no texts yet
    analysis, rescored = attach_texts(warm)
    assert not rescored
    assert analysis.comparison is warm.analysis.comparison
    # the outputs are the file's, as read with json here
    line = (suite / "builds" / "a.jsonl").read_text(encoding="utf-8").splitlines()[3]
    record = json.loads(line)
    assert analysis.baseline.output(record["id"]) == record["output"]
    assert len(analysis.candidate.runs) == 2


def test_texts_of_files_changed_since_the_snapshot_bring_new_figures(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    open_analysis(suite, snapshots=SnapshotStore())
    warm = open_analysis(suite, snapshots=SnapshotStore(), texts=False)
    path = suite / "builds" / "a.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"output": "', '"output": "zz '))
    analysis, rescored = attach_texts(warm)
    assert rescored
    assert_same(analysis.comparison, fresh(suite))
    assert analysis.baseline.output("ex-0").startswith("zz ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ids=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=20, unique=True),
    data=st.data(),
)
def test_encoding_round_trips_any_comparison(ids: list[str], data: st.DataObject) -> None:
    """Hostile ids (controls, lone surrogates, quotes) and any float survive exactly."""
    n = len(ids)
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    arrays = [np.array(data.draw(st.lists(floats, min_size=n, max_size=n))) for _ in range(3)]
    signals = np.array(data.draw(st.lists(st.integers(0, 31), min_size=n, max_size=n)), np.uint8)
    names = st.text(max_size=6)

    def stats() -> BuildStats:
        mean = data.draw(floats)
        return BuildStats(
            data.draw(names),
            data.draw(st.integers(1, 5)),
            n,
            mean,
            (data.draw(floats), data.draw(floats)),
            "analytic",
            tuple(data.draw(st.lists(floats, max_size=3))),
        )

    comparison = Comparison(
        metric="rougeL",
        tokenizer="whitespace",
        stem=data.draw(st.booleans()),
        k=data.draw(st.floats(min_value=0.01, max_value=10)),
        baseline=stats(),
        candidate=stats(),
        ids=ids,
        baseline_f=arrays[0],
        candidate_f=arrays[1],
        delta=arrays[2],
        signals=signals,
        delta_mean=data.draw(floats),
        delta_interval=(data.draw(floats), data.draw(floats)),
        delta_interval_method="analytic",
        verdict="drift-up",
        only_in_baseline=data.draw(st.lists(st.text(max_size=5))),
        only_in_candidate=[],
        missing_reference=data.draw(st.lists(st.text(max_size=5))),
        partial=data.draw(st.dictionaries(names, st.lists(st.text(max_size=4)), max_size=2)),
    )
    key = data.draw(st.text(min_size=1, max_size=10))
    got = decode_snapshot(key, encode_snapshot(key, Snapshot("fp\ud800", comparison)))
    assert got.fingerprint == "fp\ud800"
    c = got.comparison
    for field in dataclasses.fields(Comparison):
        a, b = getattr(c, field.name), getattr(comparison, field.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        elif field.name in ("baseline", "candidate"):
            assert repr(a) == repr(b)  # NaN != NaN, but its repr is the same
        elif field.name in ("delta_mean", "delta_interval"):
            assert repr(a) == repr(b)
        else:
            assert a == b


# ---------------------------------------------------------------------- damaged entries


def damaged(data: bytes, other: bytes) -> dict[str, bytes]:
    """Ways an entry goes bad: cut short, bits flipped in each part, grown, another key's."""

    def flip(at: int) -> bytes:
        return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]

    return {
        "empty": b"",
        "magic only": data[:19],
        "cut in the header": data[:80],
        "cut in the arrays": data[:-5],
        "one byte short": data[:-1],
        "magic flipped": flip(0),
        "checksum flipped": flip(25),
        "header flipped": flip(70),
        "array flipped": flip(len(data) - 40),
        "grown": data + b"\x00",
        "another key's entry": other,
        "text": b"not a snapshot at all\n",
    }


def test_every_damaged_entry_is_ignored_removed_and_rebuilt(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    store = SnapshotStore()
    open_analysis(suite, snapshots=store)
    open_analysis(suite, snapshots=store, metric="rouge1")  # another key's entry
    [first, second] = sorted(entries(), key=lambda p: p.stat().st_mtime_ns)
    good, other = first.read_bytes(), second.read_bytes()
    want = fresh(suite)
    for name, bad in damaged(good, other).items():
        first.write_bytes(bad)
        store = SnapshotStore()
        opened = open_analysis(suite, snapshots=store, texts=False)
        assert not opened.from_snapshot, name
        assert store.rejected == 1, name
        assert_same(opened.analysis.comparison, want)
        assert first.read_bytes() == good, name  # written again, whole
        assert open_analysis(suite, snapshots=SnapshotStore(), texts=False).from_snapshot


def test_snapshots_are_bounded_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rouge_tui.state as state_module

    suite = write_suite(tmp_path)
    store = SnapshotStore()
    entry_of: dict[str, Path] = {}
    for age, metric in zip((300, 200, 100), ("rougeL", "rouge1", "rouge2")):
        before = set(entries())
        open_analysis(suite, snapshots=store, metric=metric)
        [entry_of[metric]] = set(entries()) - before
        os.utime(entry_of[metric], (os.path.getmtime(entry_of[metric]) - age,) * 2)
    assert open_analysis(suite, snapshots=store, metric="rougeL", texts=False).from_snapshot
    # Room for three entries: the fourth pushes out the least recently used down to 3/4 of
    # that (the rouge1 and rouge2 entries; rougeL's, the oldest written, was just read).
    size = max(path.stat().st_size for path in entry_of.values())
    monkeypatch.setattr(state_module, "CACHE_LIMIT", 3 * size)
    before = set(entries())
    open_analysis(suite, snapshots=store, metric="rougeLsum")
    [newest] = set(entries()) - before
    assert set(entries()) == {entry_of["rougeL"], newest}


def test_a_well_formed_entry_of_another_format_or_key_is_refused() -> None:
    comparison = Comparison(
        "rougeL", "whitespace", False, 2.0,
        BuildStats("a", 1, 1, 0.5, (0.4, 0.6), "analytic", (0.5,)),
        BuildStats("b", 1, 1, 0.5, (0.4, 0.6), "analytic", (0.5,)),
        ["x"], np.array([0.5]), np.array([0.5]), np.array([0.0]), np.array([0], np.uint8),
        0.0, (0.0, 0.0), "analytic", "within-band",
    )  # fmt: skip
    data = encode_snapshot("k1", Snapshot("fp", comparison))
    assert decode_snapshot("k1", data).comparison.ids == ["x"]
    with pytest.raises(SnapshotError):
        decode_snapshot("k2", data)
    # same bytes under a new checksum, but another format number: still refused
    payload = bytearray(data[len(snapshot_module.MAGIC) + 32 :])
    payload[0] = 99
    forged = snapshot_module.MAGIC + snapshot_module._digest("k1", bytes(payload)) + payload
    with pytest.raises(SnapshotError, match="format"):
        decode_snapshot("k1", bytes(forged))
    # a header that names another key inside a valid checksum: refused
    swapped = data.replace(b'"key":"k1"', b'"key":"k3"')
    payload = swapped[len(snapshot_module.MAGIC) + 32 :]
    forged = snapshot_module.MAGIC + snapshot_module._digest("k1", payload) + payload
    with pytest.raises(SnapshotError, match="another key"):
        decode_snapshot("k1", forged)


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be")
    store = SnapshotStore(blocked / "snapshots")
    opened = open_analysis(suite, snapshots=store)
    assert_same(opened.analysis.comparison, fresh(suite))
    assert not open_analysis(suite, snapshots=store).from_snapshot


# ---------------------------------------------------------------------- the key


def key_of(suite: Path, **choices: object) -> str:
    files = list_suite(suite)
    return snapshot_key(files, "a", "b", ScoreSettings(**choices))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        "references byte",
        "baseline byte",
        "second run byte",
        "other build byte",
        "suite.toml added",
        "run renamed",
        "build added",
    ],
)
def test_the_key_follows_every_input_file(tmp_path: Path, change: str) -> None:
    suite = write_suite(tmp_path)
    before = key_of(suite)
    assert key_of(suite) == before

    def edit(name: str) -> None:
        path = suite / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("night", "nighT", 1), encoding="utf-8")

    if change == "references byte":
        edit("references.jsonl")
    elif change == "baseline byte":
        edit("builds/a.jsonl")
    elif change == "second run byte":
        edit("builds/b/run2.jsonl")
    elif change == "other build byte":
        edit("builds/0-old.jsonl")
    elif change == "suite.toml added":
        (suite / "suite.toml").write_text("# nothing set\n", encoding="utf-8")
    elif change == "run renamed":
        os.rename(suite / "builds/b/run2.jsonl", suite / "builds/b/run0.jsonl")
    elif change == "build added":
        (suite / "builds" / "c.jsonl").write_text('{"id": "ex-1", "output": "x"}\n')
    assert key_of(suite) != before


def _scores_through(cache: ScoreCache, suite_dir: Path) -> tuple[list[np.ndarray], int]:
    """Both builds of the pair scored through ``cache``; the scores and the cache hits."""
    suite = load_suite(suite_dir)
    base, cand = suite.pick(None, None)
    ids = sorted(set(base.ids) & set(cand.ids) & set(suite.references) - {"blank"})
    scorer = SuiteScorer(suite, ScoreSettings(metric="rouge1"), cache)
    return scorer.builds_scores([(base, ids), (cand, ids)]), scorer.cache_hits


def _same_scores(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    return [a.tobytes() for a in got] == [b.tobytes() for b in want]


def test_the_score_cache_follows_a_run_file_byte_for_byte(tmp_path: Path) -> None:
    """The score cache keys a run on its file's bytes: a one-letter edit that keeps the size
    and the modification time still gets fresh scores, and the untouched runs are hits."""
    suite = write_suite(tmp_path)
    cache = ScoreCache(tmp_path / "scores")
    first, hits = _scores_through(cache, suite)
    assert hits == 0
    again, hits = _scores_through(cache, suite)
    assert hits == 3 and _same_scores(again, first)  # a, b/run1, b/run2 from the cache
    path = suite / "builds/b/run1.jsonl"
    stat = path.stat()
    text = path.read_text(encoding="utf-8")
    assert text.count("night") >= 1
    path.write_text(text.replace("night", "nigh ", 1), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    edited, hits = _scores_through(cache, suite)
    oracle, _ = _scores_through(ScoreCache(tmp_path / "empty"), suite)
    assert hits == 2 and _same_scores(edited, oracle)
    assert not _same_scores(edited, first)


def test_the_score_cache_follows_the_output_field_of_suite_toml(tmp_path: Path) -> None:
    """The same bytes read under another output field are other outputs: other scores."""
    suite = write_suite(tmp_path)
    for path in (suite / "builds").rglob("*.jsonl"):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for record in records:
            record["alt"] = record["output"].replace("night", "day")
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    cache = ScoreCache(tmp_path / "scores")
    plain, _ = _scores_through(cache, suite)
    (suite / "suite.toml").write_text('[fields]\noutput = "alt"\n', encoding="utf-8")
    remapped, hits = _scores_through(cache, suite)
    oracle, _ = _scores_through(ScoreCache(tmp_path / "empty"), suite)
    assert hits == 0 and _same_scores(remapped, oracle)
    assert not _same_scores(remapped, plain)


def test_the_key_follows_settings_and_pair_but_not_file_times(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    files = list_suite(suite)
    base = snapshot_key(files, "a", "b", ScoreSettings())
    others = {
        snapshot_key(files, "a", "b", ScoreSettings(metric="rouge1")),
        snapshot_key(files, "a", "b", ScoreSettings(tokenizer="rouge-score")),
        snapshot_key(files, "a", "b", ScoreSettings(tokenizer="rouge-score", stem=True)),
        snapshot_key(files, "a", "b", ScoreSettings(k=2.0000000000000004)),
        snapshot_key(files, "0-old", "b", ScoreSettings()),
        snapshot_key(files, "b", "a", ScoreSettings()),
    }
    assert base not in others and len(others) == 6
    os.utime(suite / "references.jsonl", ns=(1, 1))
    assert key_of(suite) == base  # content, not times, makes the key
    assert not unchanged(files)  # but the stamps tell the file was touched


def test_a_snapshot_is_not_written_when_the_files_move_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = write_suite(tmp_path)
    real = snapshot_module.load_suite

    def load_after_an_edit(path: Path):
        target = suite / "builds" / "a.jsonl"
        target.write_text(target.read_text(encoding="utf-8").replace("node", "nodes"))
        return real(path)

    monkeypatch.setattr(snapshot_module, "load_suite", load_after_an_edit)
    open_analysis(suite, snapshots=SnapshotStore())
    assert entries() == []


def test_a_build_broken_after_the_snapshot_fails_as_it_would_cold(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    open_analysis(suite, snapshots=SnapshotStore())
    with (suite / "builds" / "0-old.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    with pytest.raises(SuiteError) as cold:
        load_suite(suite)
    with pytest.raises(SuiteError) as warm:
        open_analysis(suite, snapshots=SnapshotStore(), texts=False)
    assert str(warm.value) == str(cold.value)
    assert "0-old.jsonl:31" in str(warm.value)


# ---------------------------------------------------------------------- the report


def report(suite: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["report", str(suite), "--format", "json", *extra])
    return code, out.getvalue(), err.getvalue()


def test_report_json_is_the_same_warm_as_cold(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    cold = report(suite, "--no-cache", "--top", "50")
    assert entries() == []  # --no-cache writes no snapshot either
    first = report(suite, "--top", "50")
    assert len(entries()) == 1
    warm = report(suite, "--top", "50")
    assert cold == first == warm
    data = json.loads(warm[1])
    assert [row["id"] for row in data["top"]] == fresh(suite).ids[:50]


def test_warm_report_reads_no_texts_unless_a_mark_needs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = write_suite(tmp_path)
    report(suite)
    loads: list[Path] = []
    real = snapshot_module.load_suite

    def counting(path: Path):
        loads.append(Path(path))
        return real(path)

    monkeypatch.setattr(snapshot_module, "load_suite", counting)
    assert json.loads(report(suite)[1])["marks"] == {}
    assert loads == []
    # a mark on the outputs as they are, another on outputs since changed: stale is told
    base = {json.loads(x)["id"]: json.loads(x)["output"] for x in (suite / "builds/a.jsonl").open()}
    cand = {
        json.loads(x)["id"]: json.loads(x)["output"] for x in (suite / "builds/b/run1.jsonl").open()
    }
    fingerprint = load_suite(suite).fingerprint
    store = MarkStore("suite", fingerprint, "a", "b")
    store.load()
    store.set("ex-3", "fine", "", outputs_hash(base["ex-3"], cand["ex-3"]))
    store.set("ex-4", "regression", "", outputs_hash(base["ex-4"], "an older output"))
    marks = json.loads(report(suite)[1])["marks"]
    assert loads == [suite]
    assert marks == {
        "ex-3": {"mark": "fine", "note": "", "stale": False},
        "ex-4": {"mark": "regression", "note": "", "stale": True},
    }


# ---------------------------------------------------------------------- the review session


def test_a_deferred_review_tells_stale_marks_once_its_texts_are_in(tmp_path: Path) -> None:
    from rouge_tui.app.session import open_review

    suite = write_suite(tmp_path)
    cold = open_review(suite)
    cold.set_mark("ex-2", "regression")
    cold.store.set("ex-5", "fine", "", "0000000000000000")  # judged other outputs
    warm = open_review(suite, defer_texts=True)
    assert not warm.texts_ready
    assert_same(warm.comparison, cold.comparison)
    assert warm.mark_of("ex-5") is not None and not warm.is_stale("ex-5")  # not known yet
    analysis, rescored = warm.load_texts()
    warm.adopt_texts(analysis)
    assert warm.texts_ready and not rescored
    assert warm.is_stale("ex-5") and not warm.is_stale("ex-2")
    assert warm.outputs("ex-2") == cold.outputs("ex-2")


def test_no_cache_reads_and_writes_no_snapshot(tmp_path: Path) -> None:
    from rouge_tui.app.session import open_review

    suite = write_suite(tmp_path)
    open_review(suite)
    assert len(entries()) == 1
    review = open_review(suite, argparse.Namespace(no_cache=True), defer_texts=True)
    assert review.texts_ready  # computed, not read from the snapshot


# ---------------------------------------------------------------------- the app


async def test_enter_before_the_texts_land_says_so_then_opens_the_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rouge_tui.app import session
    from rouge_tui.app.app import RougeApp
    from rouge_tui.app.screens.diff import DiffScreen
    from rouge_tui.app.screens.review import ReviewScreen

    suite = write_suite(tmp_path)
    open_analysis(suite, snapshots=SnapshotStore(), cache=ScoreCache())
    want = fresh(suite)
    release = threading.Event()
    real = session.attach_texts

    def held(*args, **kwargs):
        assert release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "attach_texts", held)
    app = RougeApp([suite], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.review is not None:
                break
        assert screen.review is not None and not screen.review.texts_ready
        assert screen.table.current == 0
        assert screen.review.comparison.ids[0] == want.ids[0]
        await pilot.press("enter")
        assert not isinstance(app.screen, DiffScreen)
        assert any("loading texts" in n.message for n in app._notifications)
        release.set()
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, DiffScreen):
                break
        assert isinstance(app.screen, DiffScreen)
        assert app.screen.example_id == want.ids[0]
        assert screen.review.texts_ready


async def test_a_filter_typed_before_the_texts_land_applies_once_they_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rouge_tui.app import session
    from rouge_tui.app.app import RougeApp
    from rouge_tui.app.screens.review import ReviewScreen

    suite = write_suite(tmp_path)
    open_analysis(suite, snapshots=SnapshotStore(), cache=ScoreCache())
    want = fresh(suite)
    # the oracle: ids whose id or either output (read with json here) holds "ex-1"
    base = {json.loads(x)["id"]: json.loads(x)["output"] for x in (suite / "builds/a.jsonl").open()}
    cand = {
        json.loads(x)["id"]: json.loads(x)["output"] for x in (suite / "builds/b/run1.jsonl").open()
    }
    expected = sum(
        "ex-1" in i or "ex-1" in base[i].casefold() or "ex-1" in cand[i].casefold()
        for i in want.ids
    )
    assert 0 < expected < len(want.ids)
    release = threading.Event()
    real = session.attach_texts
    monkeypatch.setattr(
        session, "attach_texts", lambda *a, **k: (release.wait(10), real(*a, **k))[1]
    )
    app = RougeApp([suite], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.review is not None:
                break
        await pilot.press("slash", "e", "x", "-", "1")
        await pilot.pause(0.1)
        assert screen.filter_query == "ex-1"
        assert screen.table.row_count == len(want.ids)  # not filtered yet: no texts
        release.set()
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.table.row_count == expected:
                break
        assert screen.review is not None and screen.review.texts_ready
        assert screen.table.row_count == expected
