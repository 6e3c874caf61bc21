"""analysis/scores: builds scored one after another, an output equal to the one last scored
for its example (in the same run number) going neither to the cache nor to the engine.

Oracle: rouge-score 0.1.2 for every value; which outputs reach the engine is worked out here
from the builds written below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import rouge_score
from suite_helpers import jsonl, make_suite

from rouge_tui.analysis.scores import Scorer
from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import engine
from rouge_tui.store.cache import ScoreCache, example_key, references_key
from rouge_tui.suite.records import Run
from rouge_tui.suite.suite import Build, open_suite, read_build, read_references

REFERENCES = {"a": "the cat sat on the mat", "b": "a dog ran in the park", "c": "rain is expected later"}


def outs(**texts: str) -> str:
    return jsonl(*({"id": k, "output": v} for k, v in texts.items()))


def nightly(root: Path, builds: dict) -> tuple[object, list]:
    suite = open_suite(make_suite(root, jsonl(*({"id": k, "reference": v} for k, v in REFERENCES.items())), builds))
    return read_references(suite), [read_build(suite, entry) for entry in suite.builds]


def stored(root: Path, build) -> np.ndarray:
    """What the cache at ``root`` holds for ``build``'s outputs (NaN: nothing)."""
    scoring = Settings().scoring
    keys = [example_key(references_key(scoring, (REFERENCES[i],)), build.runs[0].outputs[i]) for i in build.ids]
    return ScoreCache(root).get(scoring, keys)


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
    scorer = Scorer(references.texts, Settings(), ScoreCache(tmp_path / "cache") if cached else None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    assert engine_calls == [["the cat sat", "a dog ran", "rain later"], ["a dog ran in a park"], ["rain is expected"]]


def test_ids_are_matched_by_name_not_place_and_new_ids_are_scored(tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", {
        "1.jsonl": outs(a="the cat sat", b="a dog ran"),
        "2.jsonl": outs(b="the cat sat", c="rain later", a="the cat sat"),  # b took a's text
    })  # fmt: skip
    scorer = Scorer(references.texts, Settings(), None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    assert engine_calls == [["the cat sat", "a dog ran"], ["the cat sat", "rain later"]]  # b's, c's


def test_replicate_runs_repeat_the_run_of_their_own_number(tmp_path: Path, engine_calls) -> None:
    references, builds = nightly(tmp_path / "s", {
        "1": {"r1.jsonl": outs(a="the cat", b="dog"), "r2.jsonl": outs(a="a cat", b="a dog")},
        "2": {"r1.jsonl": outs(a="the cat", b="dog"), "r2.jsonl": outs(a="a cat", b="a dog ran")},
    })  # fmt: skip
    scorer = Scorer(references.texts, Settings(), None)
    for build in builds:
        check(scorer.score(build, build.ids), build, build.ids)
    # run 1 of build 2 repeats run 1 of build 1 (no call); its run 2, one output of run 2
    assert engine_calls == [["the cat", "dog"], ["a cat", "a dog"], ["a dog ran"]]


def test_a_repeated_output_keeps_its_cache_key(tmp_path: Path, engine_calls) -> None:
    # Build 2 is scored after build 1 (its repeats never reach the cache); another process
    # then finds every output of build 2 in the cache under the key it makes itself.
    references, builds = nightly(tmp_path / "s", BUILDS)
    cache = ScoreCache(tmp_path / "cache")
    with Scorer(references.texts, Settings(), cache) as first:
        for build in builds[:2]:
            first.score(build, build.ids)
        assert np.isnan(stored(tmp_path / "cache", builds[0])).all()  # one write, at the end
    assert not np.isnan(stored(tmp_path / "cache", builds[0])).any()
    engine_calls.clear()
    again = Scorer(references.texts, Settings(), ScoreCache(tmp_path / "cache"))
    check(again.score(builds[1], builds[1].ids), builds[1], builds[1].ids)
    assert engine_calls == []


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
    cache = ScoreCache(tmp_path_factory.mktemp("cache")) if cached else None
    with Scorer(references, Settings(), cache) as scorer:
        for number, runs in enumerate(builds):
            shared = [i for i in runs[0] if all(i in run for run in runs)]
            build = Build(str(number), Path(str(number)), [Run(Path(f"{number}-{r}"), run, "") for r, run in enumerate(runs)],
                          shared, [])
            got = scorer.score(build, shared)
            for r, run in enumerate(runs):
                alone = engine.score([references[i] for i in shared], [run[i] for i in shared], "rougeL", "whitespace")
                assert got[r].tolist() == alone.tolist(), (number, r)
