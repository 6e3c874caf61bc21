"""analysis/scores: builds scored one after another, an output equal to the one last scored
or read for its example (in the same run number) never going to the engine; each build's
scores kept as one table under its bytes, and a table that does not check out scored again.

Oracle: rouge-score 0.1.2 for every value; which outputs reach the engine is worked out here
from the builds written below; the table's layout and key are restated from the module's
and the store's docstrings.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import rouge_score
from suite_helpers import jsonl, make_suite

from rouge_tui.analysis.scores import Scorer, Table
from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import engine
from rouge_tui.store.cache import BlobCache, key
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.suite import Build, open_suite, read_build, read_references

REFERENCES = {"a": "the cat sat on the mat", "b": "a dog ran in the park", "c": "rain is expected later"}


def outs(**texts: str) -> str:
    return jsonl(*({"id": k, "output": v} for k, v in texts.items()))


def nightly(root: Path, builds: dict) -> tuple[object, list]:
    suite = open_suite(make_suite(root, jsonl(*({"id": k, "reference": v} for k, v in REFERENCES.items())), builds))
    return read_references(suite), [read_build(suite, entry) for entry in suite.builds]


def entry_key(references, build) -> str:
    """A build's key as documented: the scoring setting, the references' bytes and field
    names, and each run file's digest."""
    return key("scores", Settings().scoring, references.digest, "", [run.digest for run in build.runs])


def check(scored, build, ids) -> None:
    oracle = rouge_score(metrics=["rougeL"])
    for r, run in enumerate(build.runs):
        for row, example in enumerate(ids):
            want = oracle.score(REFERENCES[example], run.outputs[example])["rougeL"]
            assert tuple(scored[r, row]) == tuple(want), (build.name, r, example)


BUILDS = {
    "1.jsonl": outs(a="the cat sat", b="a dog ran", c="rain later"),
    "2.jsonl": outs(a="the cat sat", b="a dog ran in a park", c="rain later"),  # b changed
    "3.jsonl": outs(c="rain is expected", a="the cat sat", b="a dog ran in a park"),  # c; reordered
}


@pytest.mark.parametrize("cached", [False, True], ids=["no cache", "cache"])
def test_each_build_sends_only_the_outputs_that_differ_from_the_build_before(
    tmp_path: Path, engine_calls: list[list[str]], cached: bool
) -> None:
    references, builds = nightly(tmp_path / "s", BUILDS)
    scorer = Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache") if cached else None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    assert engine_calls == [["the cat sat", "a dog ran", "rain later"], ["a dog ran in a park"], ["rain is expected"]]


def test_ids_are_matched_by_name_not_place_and_new_ids_are_scored(tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", {
        "1.jsonl": outs(a="the cat sat", b="a dog ran"),
        "2.jsonl": outs(b="the cat sat", c="rain later", a="the cat sat"),  # b took a's text
    })  # fmt: skip
    scorer = Scorer(references, Settings(), None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    assert engine_calls == [["the cat sat", "a dog ran"], ["the cat sat", "rain later"]]  # b's, c's


def test_replicate_runs_repeat_the_run_of_their_own_number(tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", {
        "1": {"r1.jsonl": outs(a="the cat", b="dog"), "r2.jsonl": outs(a="a cat", b="a dog")},
        "2": {"r1.jsonl": outs(a="the cat", b="dog"), "r2.jsonl": outs(a="a cat", b="a dog ran")},
    })  # fmt: skip
    scorer = Scorer(references, Settings(), None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    # run 1 of build 2 repeats run 1 of build 1 (no call); its run 2, one output of run 2
    assert engine_calls == [["the cat", "dog"], ["a cat", "a dog"], ["a dog ran"]]


def test_each_build_is_kept_as_one_table_of_its_ids_and_scores(tmp_path: Path, engine_calls) -> None:
    """One entry a build, under the documented key: a JSON head (8-byte length first) naming
    its ids and runs, then every run's P, R, F as float64; nothing per example."""
    references, builds = nightly(tmp_path / "s", BUILDS)
    store = BlobCache("scores", tmp_path / "cache")
    scorer = Scorer(references, Settings(), store)
    for build in builds:
        scorer.score(build, build.ids)
    assert len(list((tmp_path / "cache").rglob("*.bin"))) == len(builds)
    for build in builds:
        data = store.get(entry_key(references, build))
        size = int.from_bytes(data[:8], "little")
        assert json.loads(data[8 : 8 + size]) == {"ids": build.ids, "runs": 1}
        values = np.frombuffer(data[8 + size :], "<f8").reshape(len(build.ids), 3)
        check(values[None], build, build.ids)


def test_a_new_build_after_kept_ones_scores_only_what_changed(tmp_path: Path, engine_calls) -> None:
    """Another process (a fresh Scorer on the same cache): the baseline's table is read, not
    scored, and the new build sends the engine only the output that differs from it."""
    references, builds = nightly(tmp_path / "s", BUILDS)
    Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache")).score(builds[0], builds[0].ids)
    Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache")).score(builds[1], builds[1].ids)
    engine_calls.clear()
    later = Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache"))
    check(later.score(builds[1], builds[1].ids), builds[1], builds[1].ids)
    assert engine_calls == []
    ids = ["a", "b", "c"]  # another order than the file's: rows by id
    check(later.score(builds[2], ids), builds[2], ids)
    assert engine_calls == [["rain is expected"]]


def test_a_kept_table_read_for_its_build_holds_the_builds_own_ids(
    tmp_path: Path, engine_calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored ids are a second list of equal strings (a million at 1M examples, held as
    long as the table: the app's history line holds one a build): the build's own list is
    used instead, and the stored head is compared with it as bytes, never read as strings."""
    from rouge_tui.analysis import scores

    references, builds = nightly(tmp_path / "s", BUILDS)
    Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache")).table(builds[1])
    engine_calls.clear()

    def unread(data: bytes) -> None:
        raise AssertionError("the stored head was read as strings")

    monkeypatch.setattr(scores, "unpack", unread)
    table = Scorer(references, Settings(), BlobCache("scores", tmp_path / "cache")).table(builds[1])
    assert engine_calls == []  # read, not scored
    assert table.ids is builds[1].ids
    check(table.values, builds[1], builds[1].ids)


def _seal(root: Path, name: str, payload: bytes) -> bytes:
    """An entry sealed as the store documents (magic, HMAC-SHA256 of key, a NUL and payload
    under the 32-byte ``key`` file's secret, payload): it checks out whatever it holds."""
    secret = (root / "key").read_bytes()
    return b"rouge-tui blob 3\n" + hmac.new(secret, name.encode() + b"\0" + payload, "sha256").digest() + payload


def _table(ids: list, runs: int, values: np.ndarray) -> bytes:
    text = json.dumps({"ids": ids, "runs": runs}).encode()
    return len(text).to_bytes(8, "little") + text + np.asarray(values, "<f8").tobytes()


GOOD = np.full((3, 3), 0.5)
CORRUPT = {
    "a byte flipped": lambda raw, other, root, name: raw[:-1] + bytes([raw[-1] ^ 1]),
    "truncated": lambda raw, other, root, name: raw[: len(raw) // 2],
    "empty": lambda raw, other, root, name: b"",
    "wrong magic": lambda raw, other, root, name: b"rouge-tui blob 2\n" + raw[17:],
    "another build's entry": lambda raw, other, root, name: other,
    "wrong shape": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "c"], 1, GOOD[:2])),
    "two runs said, one given": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "c"], 2, GOOD)),
    "other ids": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "d"], 1, GOOD)),
    "an id twice": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "b"], 1, GOOD)),
    "F above 1": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "c"], 1, np.where(GOOD > 0, np.nextafter(1, 2), 0))),
    "NaN": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "c"], 1, GOOD * np.nan)),
    "a ragged tail": lambda raw, other, root, name: _seal(root, name, _table(["a", "b", "c"], 1, GOOD) + b"\0"),
    "not JSON": lambda raw, other, root, name: _seal(root, name, (5).to_bytes(8, "little") + b"{oops" + GOOD.tobytes()),
}


@pytest.mark.parametrize("ids", [[["a"], "b", "c"], [1, "b", "c"], ["a", None, "c"], [{}, "b", "c"], ["a", "b", "a"]])
def test_a_kept_table_whose_ids_are_not_strings_is_refused_not_a_crash(ids: list) -> None:
    """The history reads kept tables by their bytes alone (`Table.from_bytes`): an id that
    is not a string, even one no set can hold, is the ValueError that has it scored again."""
    with pytest.raises(ValueError, match="does not check out"):
        Table.from_bytes(_table(ids, 1, GOOD))
    assert Table.from_bytes(_table(["a", "b", "c"], 1, GOOD)).ids == ["a", "b", "c"]


@pytest.mark.parametrize("how", sorted(CORRUPT))
def test_a_corrupt_or_foreign_table_is_scored_again_and_rebuilt(how: str, tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", BUILDS)
    root = tmp_path / "cache"
    store = BlobCache("scores", root)
    for build in builds[:2]:
        Scorer(references, Settings(), store).score(build, build.ids)
    name = entry_key(references, builds[0])
    path = root / name[:2] / f"{name}.bin"
    good = path.read_bytes()
    other = next(p for p in root.rglob("*.bin") if p != path).read_bytes()
    path.write_bytes(CORRUPT[how](good, other, root, name))
    engine_calls.clear()
    check(Scorer(references, Settings(), store).score(builds[0], builds[0].ids), builds[0], builds[0].ids)
    assert engine_calls == [["the cat sat", "a dog ran", "rain later"]]  # nothing taken from it
    assert path.read_bytes() == good  # rebuilt as it was
    engine_calls.clear()
    Scorer(references, Settings(), store).score(builds[0], builds[0].ids)
    assert engine_calls == []  # rebuilt: read back whole


def test_the_key_names_the_references_fields_setting_engine_and_every_runs_bytes(tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", BUILDS)
    store = BlobCache("scores", tmp_path / "cache")
    Scorer(references, Settings(), store).score(builds[0], builds[0].ids)
    engine_calls.clear()
    other_refs = References(references.texts, {}, {}, [], "another digest")
    moved = Build("1", builds[0].path, [Run(builds[0].runs[0].path, builds[0].runs[0].outputs, "another")],
                  builds[0].ids, [])
    for scorer, build in ((Scorer(other_refs, Settings(), store), builds[0]),
                          (Scorer(references, Settings(), store, "other fields"), builds[0]),
                          (Scorer(references, Settings(metric="rouge1"), store), builds[0]),
                          (Scorer(references, Settings(), store), moved)):
        scorer.score(build, build.ids)
    assert [len(call) for call in engine_calls] == [3, 3, 3, 3]
    assert engine.ENGINE in Settings().scoring  # the engine's version is in the setting


# A few words, so that builds repeat each other's outputs often, and ids in any order.
outputs = st.one_of(st.just(""), st.lists(st.sampled_from(["the", "cat", "dog", "ran"]), min_size=1, max_size=3).map(" ".join))
nights = st.lists(  # builds in name order: runs of {id: output} over a shuffled part of a..d
    st.lists(st.dictionaries(st.sampled_from("abcd"), outputs, min_size=1), min_size=1, max_size=3),
    min_size=1, max_size=5,
)


@given(nights, st.booleans())
@settings(max_examples=300, deadline=None)
def test_scoring_builds_one_after_another_equals_scoring_each_alone(tmp_path_factory, builds, cached):
    """Whatever repeats, moves or goes missing between builds and runs, each value equals
    the engine's for that output alone (rouge-score-rs, which the engine tests hold to
    rouge-score 0.1.2)."""
    references = {k: (v,) for k, v in REFERENCES.items()} | {"d": ("a dog sat",)}
    cache = BlobCache("scores", tmp_path_factory.mktemp("cache")) if cached else None
    scorer = Scorer(References(references, {}, {}, [], "refs"), Settings(), cache)
    for number, runs in enumerate(builds):
        shared = [i for i in runs[0] if all(i in run for run in runs)]
        build = Build(str(number), Path(str(number)),
                      [Run(Path(f"{number}-{r}"), run, hashlib.sha256(repr(list(run.items())).encode()).hexdigest())
                       for r, run in enumerate(runs)], shared, [])
        got = scorer.score(build, shared)
        for r, run in enumerate(runs):
            alone = engine.score([references[i] for i in shared], [run[i] for i in shared], "rougeL", "whitespace")
            assert got[r].tolist() == alone.tolist(), (number, r)


def test_an_example_the_engine_refuses_outside_the_comparison_stops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rougeLsum past its table on an example only the baseline has: the comparison, which
    leaves that example out, is made as if it were not there (a build's table would score
    every id of the build); the same example in both builds is refused, naming it."""
    import contextlib
    import io

    from rouge_tui.cli import main

    monkeypatch.setattr(engine, "MOST_LSUM_CELLS", 30 * 30)
    line = " ".join(f"w{i % 5}" for i in range(40))
    refs = jsonl({"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": line})
    root = make_suite(tmp_path / "s", refs, {
        "1.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": line}),
        "2.jsonl": jsonl({"id": "a", "output": "the cat sat"}),
    })
    for cache in ((), ("--no-cache",)):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["report", str(root), "--format", "json", "--metric", "rougeLsum", *cache])
        assert err.getvalue() == "" and code in (0, 1), err.getvalue()
        data = json.loads(out.getvalue())
        # a alone: "the cat" against "the cat sat" is F 2 * (1 * 2/3) / (1 + 2/3) = 4/5; then 1
        assert data["paired"] == 1 and data["only_in_baseline"] == ["b"]
        assert data["baseline"]["mean"] == pytest.approx(0.8, abs=1e-15)
        assert data["candidate"]["mean"] == 1.0
    (root / "builds" / "2.jsonl").write_text(jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": line}))
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["report", str(root), "--metric", "rougeLsum", "--no-cache"])
    assert code == 2 and "example 'b': rougeLsum cannot score a line of 40 tokens" in err.getvalue()
