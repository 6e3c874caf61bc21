"""analysis/pipeline: from a suite on disk to figures, through the two caches.

Oracles: rouge-score 0.1.2 (tests/oracles.py) for scores, SPEC's pairing rules restated on
the ids the test wrote, and a run without any cache for everything cached.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import rouge_score
from rouge_score import tokenize
from suite_helpers import COPY_MEANS, copy_suite, jsonl, make_suite

from rouge_tui.analysis import pairs, pipeline
from rouge_tui.analysis.compare import VERDICTS
from rouge_tui.analysis.figures import Figures
from rouge_tui.analysis.pipeline import Caches, open_analysis, read_texts
from rouge_tui.analysis.scores import Scorer
from rouge_tui.analysis.settings import Settings, resolve
from rouge_tui.store import cache
from rouge_tui.store.cache import BlobCache
from rouge_tui.suite.suite import open_suite
from rouge_tui.suite.toml import UserDefaults


def refs(**texts: str | list[str]) -> str:
    return jsonl(*(
        {"id": k, "references": v} if isinstance(v, list) else {"id": k, "reference": v}
        for k, v in texts.items()
    ))  # fmt: skip


def outs(**texts: str) -> str:
    return jsonl(*({"id": k, "output": v} for k, v in texts.items()))


def caches(root: Path) -> Caches:
    return Caches(BlobCache("scores", root / "scores"), BlobCache("figures", root / "figures"))


class Deferred:
    """A reader that runs what it is given only when told: the moment between the figures
    read from the cache and the texts read after them, held open."""

    def __init__(self) -> None:
        self.waiting: list[tuple[Future, object, tuple]] = []

    def submit(self, function, *args) -> Future:
        future: Future = Future()
        self.waiting.append((future, function, args))
        return future

    def run(self) -> None:
        for future, function, args in self.waiting:
            future.set_result(function(*args))
        self.waiting.clear()


# ---------------------------------------------------------------------- pairing


IDS = ["p", "q", "r", "s", "t"]
RUN = st.lists(st.sampled_from(IDS), unique=True)


@given(refs=st.dictionaries(st.sampled_from(IDS), st.sampled_from(["a cat", "  ", ""])),
       base_runs=st.lists(RUN, min_size=1, max_size=3), cand_runs=st.lists(RUN, min_size=1, max_size=3))
def test_one_example_is_paired_exactly_when_the_pairing_pairs_it(refs, base_runs, cand_runs) -> None:
    """`pairs.paired` (one id looked up, for a mark's row) against `pairs.pair` on every id:
    builds of up to three runs, each id in some runs or none, references usable, blank or
    absent. A build's ids are those in every run, in the first run's order (SPEC)."""
    from rouge_tui.suite.records import References, Run
    from rouge_tui.suite.suite import Build

    def build(name: str, runs: list[list[str]]) -> Build:
        every = [i for i in runs[0] if all(i in run for run in runs)]
        partial = sorted({i for run in runs for i in run} - set(every))
        return Build(name, Path(name), [Run(Path(name), {i: "out" for i in run}, "d") for run in runs], every, partial)

    references = References({i: (text,) for i, text in refs.items()}, {}, {},
                            [i for i, text in refs.items() if not text.strip()], "d")
    base, cand = build("1", base_runs), build("2", cand_runs)
    if not base.ids or not cand.ids:
        return
    ids = set(pairs.pair(references, base, cand).ids)
    assert {i for i in IDS if pairs.paired(references, base, cand, i)} == ids


def test_pairing_leaves_out_what_cannot_be_compared_and_says_why(tmp_path: Path) -> None:
    suite = open_suite(make_suite(
        tmp_path / "s",
        refs(a="the cat sat", b="a dog ran", c="rain today", d="sun later", e="  \n ", g="x y"),
        {
            "1.jsonl": outs(a="the cat", b="dog ran", c="rain", x="no reference", e="blank ref", g="x"),
            "2.jsonl": outs(b="a dog", a="a cat", d="sun", y="no reference", e="blank", f="none", g="y"),
        },
    ))  # fmt: skip
    figures = open_analysis(suite, Settings()).figures
    # SPEC: no usable reference (absent, or blank) -> missing_reference; of the others,
    # ids in one build only -> only_in_*; the rest are paired, in the baseline's order
    assert figures.missing_reference == ["e", "f", "x", "y"]
    assert figures.only_in_baseline == ["c"]
    assert figures.only_in_candidate == ["d"]
    assert sorted(figures.ids) == ["a", "b", "g"] and figures.paired == 3
    texts = read_texts(suite, *suite.pick())
    assert pairs.pair(texts.references, texts.baseline, texts.candidate).ids == ["a", "b", "g"]


@pytest.mark.parametrize("partial", ["1-base", "2-cand"])
def test_a_comparison_keeps_no_history_entry_for_a_build_it_pairs_in_part(tmp_path: Path, partial: str) -> None:
    """One build's runs lack c: the comparison pairs a, b and d, so its scores are not the
    other build's history (n 4, every id of it), which the trend then read from the cache
    (n 3, the mean of three). By hand: every output equals its reference but c's, whose
    F is 0, so the whole build's mean is 3/4 and the paired one 1."""
    from rouge_tui.analysis.history import trend

    words = {"a": "the cat sat", "b": "a dog ran", "c": "rain today", "d": "sun later"}
    whole = outs(**{k: (v if k != "c" else "nothing alike") for k, v in words.items()})
    runs = {"run-1.jsonl": outs(**words), "run-2.jsonl": outs(**{k: v for k, v in words.items() if k != "c"})}
    builds = {"1-base": runs, "2-cand.jsonl": whole} if partial == "1-base" else {"1-base.jsonl": whole, "2-cand": runs}
    suite = open_suite(make_suite(tmp_path / "s", refs(**words), builds))
    caches = Caches.default()
    open_analysis(suite, Settings(), caches=caches)
    texts = read_texts(suite, *suite.pick())
    other = "2-cand" if partial == "1-base" else "1-base"
    entry = {b.name: b for b in trend(suite, texts.references, Settings(), caches)}[other]
    assert (entry.stats.n, entry.stats.mean) == (4, 0.75)


def test_ids_missing_from_some_replicate_runs_are_left_out_and_said(tmp_path: Path) -> None:
    suite = open_suite(make_suite(
        tmp_path / "s",
        refs(a="the cat sat", b="a dog ran", c="rain today"),
        {
            "1-base": {"run-1.jsonl": outs(a="the cat", b="dog", c="rain"),
                       "run-2.jsonl": outs(a="cat sat", b="a dog")},
            "2-cand.jsonl": outs(a="the cat sat", b="a dog", c="rain"),
        },
    ))  # fmt: skip
    figures = open_analysis(suite, Settings()).figures
    assert sorted(figures.ids) == ["a", "b"]
    assert figures.partial == {"1-base": ["c"]}
    assert "build '1-base': 1 id missing from some runs, left out" in figures.warnings
    # c is in the candidate, and in one of the baseline's runs: not "only in the candidate"
    assert figures.only_in_candidate == [] and figures.only_in_baseline == []
    assert figures.baseline.runs == 2 and figures.baseline.band_source == "replicates"
    oracle = rouge_score(metrics=["rougeL"])
    f = {k: oracle.score(*pair)["rougeL"].fmeasure for k, pair in {
        "a1": ("the cat sat", "the cat"), "a2": ("the cat sat", "cat sat"),
        "b1": ("a dog ran", "dog"), "b2": ("a dog ran", "a dog")}.items()}  # fmt: skip
    # an example's score is its mean over runs; the build's mean, the mean of those
    expected = ((f["a1"] + f["a2"]) / 2 + (f["b1"] + f["b2"]) / 2) / 2
    assert figures.baseline.mean == pytest.approx(expected, abs=1e-15)


def test_several_references_score_the_best_f_and_ties_go_to_the_first(tmp_path: Path) -> None:
    # "p q r s t" against "p q z" (LCS 2: F 4/8) and "p x q x r x x" (LCS 3: F 6/12):
    # the same F with other precision and recall; the first listed wins (rouge-score's rule)
    tie = ["p q z", "p x q x r x x"]
    suite = open_suite(make_suite(
        tmp_path / "s",
        refs(t=tie, m=["the cat sat", "a dog ran in the park"], one=["x y z"]),
        {"1.jsonl": outs(t="p q r s t", m="a dog ran", one="x y"),
         "2.jsonl": outs(t="p q", m="the cat", one="x")},
    ))  # fmt: skip
    texts = read_texts(suite, *suite.pick())
    ids = ["t", "m", "one"]
    scored = Scorer(texts.references, Settings(), None).score(texts.baseline, ids)
    oracle = rouge_score(metrics=["rougeL"])
    for row, example in enumerate(ids):
        want = oracle.score_multi(list(texts.references.texts[example]), texts.baseline.runs[0].outputs[example])
        assert tuple(scored[0, row]) == tuple(want["rougeL"]), example
    assert tuple(scored[0, 0]) == (2 / 5, 2 / 3, 0.5)  # the first reference's P and R


# ---------------------------------------------------------------------- the tables of scores


def _suite_for_cache(root: Path) -> Path:
    return make_suite(
        root,
        refs(a="the cat sat on the mat", b="a dog ran in the park", c="rain is expected later"),
        {"1.jsonl": outs(a="the cat sat", b="a dog ran", c="rain later"),
         "2.jsonl": outs(a="the cat sat on a mat", b="dog", c="rain is expected")},
    )  # fmt: skip


def test_figures_computed_with_earlier_builds_are_fresh_for_their_own_texts(tmp_path: Path) -> None:
    """Four builds: the baseline (3) has two earlier builds, which the figures' key names. A
    comparison computed now and one read back from the cache are both fresh for the texts
    they were made from, and neither is once a compared file changes."""
    builds = {f"{n}.jsonl": outs(a=f"the cat sat {n}", b="a dog ran", c="rain later") for n in range(1, 5)}
    path = make_suite(tmp_path / "s", refs(a="the cat sat on the mat", b="a dog ran", c="rain is expected"), builds)
    cached = caches(tmp_path / "cache")
    computed = open_analysis(open_suite(path), Settings(), caches=cached)
    assert computed.key is not None and computed.fresh(computed.texts.result())
    again = open_analysis(open_suite(path), Settings(), caches=cached)  # from the cache
    assert again.key == computed.key and again.fresh(again.texts.result())
    texts = computed.texts.result()
    (path / "builds" / "4.jsonl").write_text(outs(a="changed", b="a dog ran", c="rain later"))
    changed = read_texts(open_suite(path), *open_suite(path).pick())
    assert not computed.fresh(changed) and not again.fresh(changed) and computed.fresh(texts)


def test_a_new_build_rescores_only_the_output_that_changed(
    tmp_path: Path, engine_calls: list[list[str]]
) -> None:
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    first = open_analysis(open_suite(path), Settings(), caches=cached).figures
    assert sorted(len(call) for call in engine_calls) == [3, 3]  # both builds, cold
    engine_calls.clear()
    (path / "builds" / "3.jsonl").write_text(  # the night's build: build 2 but for b
        outs(a="the cat sat on a mat", b="a dog ran in a park", c="rain is expected")
    )
    second = open_analysis(open_suite(path), Settings(), caches=cached).figures
    assert engine_calls == [["a dog ran in a park"]]  # one output scored, nothing else
    engine_calls.clear()
    uncached = open_analysis(open_suite(path), Settings(), caches=Caches.none()).figures
    assert second.to_bytes() == uncached.to_bytes()  # identical figures, to the byte
    assert first.to_bytes() != second.to_bytes()


def test_the_same_output_under_other_settings_is_scored_again(
    tmp_path: Path, engine_calls: list[list[str]]
) -> None:
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    open_analysis(open_suite(path), Settings(), caches=cached)
    engine_calls.clear()
    open_analysis(open_suite(path), Settings(metric="rouge1"), caches=cached)
    assert sorted(len(call) for call in engine_calls) == [3, 3]


# ---------------------------------------------------------------------- the figures cache


def test_the_second_open_returns_cached_figures_and_the_texts_come_after(
    tmp_path: Path, engine_calls: list[list[str]]
) -> None:
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    cold = open_analysis(open_suite(path), Settings(), caches=cached)
    assert cold.texts.done() and cold.key is not None
    engine_calls.clear()
    reader = Deferred()
    warm = open_analysis(open_suite(path), Settings(), caches=cached, reader=reader)
    assert engine_calls == []  # nothing scored
    assert not warm.texts.done()  # the figures came before the texts
    assert warm.figures.to_bytes() == cold.figures.to_bytes()
    reader.run()
    texts = warm.texts.result()
    assert warm.fresh(texts)
    assert texts.candidate.runs[0].outputs["b"] == "dog"


def test_the_texts_read_after_cached_figures_hold_the_figures_own_id_strings(tmp_path: Path) -> None:
    """The app shows cached figures first and reads the texts after: the references and the
    builds then keep the figures' id strings (a second set is 60 MB at 1M examples), and
    equal ids all the same."""
    path = make_suite(tmp_path / "s", refs(**{"ex-one": "the cat sat", "ex-two": "a dog ran", "ex-three": "rain"}),
                      {"1.jsonl": outs(**{"ex-one": "the cat", "ex-two": "a dog", "ex-three": "rain"}),
                       "2.jsonl": outs(**{"ex-one": "the cat sat", "ex-two": "dog", "ex-three": "snow"})})
    cached = caches(tmp_path / "cache")
    open_analysis(open_suite(path), Settings(), caches=cached)
    reader = Deferred()
    warm = open_analysis(open_suite(path), Settings(), caches=cached, reader=reader)
    warm.texts  # noqa: B018 - asking is what starts the reading
    reader.run()
    texts = warm.texts.result()
    assert warm.fresh(texts) and sorted(warm.figures.ids) == ["ex-one", "ex-three", "ex-two"]
    held = {id(i) for i in warm.figures.ids}
    for ids in (list(texts.references.texts), texts.baseline.ids, texts.candidate.ids,
                list(texts.candidate.runs[0].outputs)):
        assert sorted(ids) == sorted(warm.figures.ids) and all(id(i) in held for i in ids)


def test_a_file_changed_between_the_figures_and_the_texts_is_not_fresh(tmp_path: Path) -> None:
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    open_analysis(open_suite(path), Settings(), caches=cached)
    reader = Deferred()
    warm = open_analysis(open_suite(path), Settings(), caches=cached, reader=reader)
    texts = warm.texts  # asked for: the reading starts (held by the reader here)
    (path / "builds" / "2.jsonl").write_text(outs(a="changed", b="dog", c="rain is expected"))
    reader.run()
    assert not warm.fresh(texts.result())


def test_with_cached_figures_the_texts_are_read_only_when_asked_for(tmp_path: Path) -> None:
    """A cached report that needs no text (no marks, the top rows' details in the figures)
    reads none: before, it waited at exit for a thread reading every text."""
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    open_analysis(open_suite(path), Settings(), caches=cached)
    reader = Deferred()
    warm = open_analysis(open_suite(path), Settings(), caches=cached, reader=reader)
    assert reader.waiting == [] and warm.figures.paired == 3
    warm.texts  # noqa: B018 - asking is what starts the reading
    assert len(reader.waiting) == 1


def _figures_entry(tmp_path: Path) -> tuple[Path, Caches, bytes, str]:
    path = _suite_for_cache(tmp_path / "s")
    cached = caches(tmp_path / "cache")
    cold = open_analysis(open_suite(path), Settings(), caches=cached)
    return path, cached, cold.figures.to_bytes(), cold.key


def _with_baseline_f(data: bytes, value: float) -> bytes:
    """Figures bytes with the first baseline F replaced (layout: 8-byte head length, JSON
    head, then baseline_f as float64)."""
    start = 8 + int.from_bytes(data[:8], "little")
    return data[:start] + np.float64(value).tobytes() + data[start + 8 :]


@pytest.mark.parametrize(
    "payload",
    [lambda good: b"garbage", lambda good: good[:-4], lambda good: _with_baseline_f(good, 1.5),
     lambda good: _with_baseline_f(good, float("nan")), lambda good: b"\xff" * 8 + good[8:]],
    ids=["garbage", "short", "F above 1", "NaN", "head length"],
)  # fmt: skip
def test_a_corrupt_figures_entry_is_ignored(
    payload, tmp_path: Path, engine_calls: list[list[str]]
) -> None:
    path, cached, good, key = _figures_entry(tmp_path)
    with pytest.raises(ValueError, match="per-example deltas"):  # the layout: baseline_f moved
        Figures.from_bytes(_with_baseline_f(good, 0.25))
    cached.figures.put(key, payload(good))  # sealed: only its content is wrong
    engine_calls.clear()
    again = open_analysis(open_suite(path), Settings(), caches=cached, reader=Deferred())
    assert again.texts.done()  # not taken from the cache: read and computed here
    assert again.figures.to_bytes() == good
    assert engine_calls == []  # the builds' tables were still good
    assert cached.figures.get(key) == good  # and the entry is written again


def _with_head(data: bytes, **change: object) -> bytes:
    size = int.from_bytes(data[:8], "little")
    head = json.loads(data[8 : 8 + size]) | change
    text = json.dumps(head).encode()
    return len(text).to_bytes(8, "little") + text + data[8 + size :]


def test_a_sealed_figures_entry_with_a_verdict_that_is_none_is_ignored(tmp_path: Path) -> None:
    path, cached, good, key = _figures_entry(tmp_path)
    cached.figures.put(key, _with_head(good, verdict="bogus"))
    again = open_analysis(open_suite(path), Settings(), caches=cached, reader=Deferred())
    assert again.figures.verdict in VERDICTS


def test_the_figures_key_names_the_tool_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, cached, _, key = _figures_entry(tmp_path)
    monkeypatch.setattr(cache, "__version__", "9.9.9")
    again = open_analysis(open_suite(path), Settings(), caches=cached, reader=Deferred())
    assert again.key != key and again.texts.done()


# ---------------------------------------------------------------------- warnings


RUSSIAN = refs(
    a="Правительство объявило новые меры поддержки сегодня утром",
    b="Москва встретила весну тёплым дождём",
)


def test_the_zero_token_guard_names_a_tokenizer_that_keeps_the_letters(tmp_path: Path) -> None:
    assert tokenize.tokenize("Москва встретила весну", None) == []  # the oracle: all dropped
    suite = open_suite(make_suite(
        tmp_path / "s", RUSSIAN,
        {"1.jsonl": outs(a="Правительство объявило меры", b="Москва весну"),
         "2.jsonl": outs(a="Правительство меры", b="Москва встретила весну")},
    ))  # fmt: skip
    figures = open_analysis(suite, Settings(tokenizer="rouge-score")).figures
    (guard,) = [w for w in figures.warnings if "tokenizer drops" in w]
    assert guard.startswith("the rouge-score tokenizer drops 100% of the references' letters")
    assert "--tokenizer unicode" in guard
    assert figures.baseline.mean == figures.candidate.mean == 0.0
    for tokenizer in ("unicode", "character", "whitespace"):
        kept = open_analysis(suite, Settings(tokenizer=tokenizer)).figures
        assert not [w for w in kept.warnings if "tokenizer drops" in w], tokenizer
        assert kept.baseline.mean > 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab яж\n", max_size=12), max_size=12), st.integers(1, 40))
def test_the_zero_token_guard_reads_the_first_characters_of_the_references(
    texts: list[str], limit: int
) -> None:
    """The guard reads the references joined by newlines up to ``GUARD_CHARS`` characters
    (however many texts that takes): SPEC's rule, restated on that prefix, decides."""
    prefix = "\n".join(texts)[:limit]
    letters = [c for c in prefix if c.isalnum()]
    dropped = sum(not c.isascii() for c in letters)  # rouge-score keeps only a-z and 0-9
    want = bool(letters) and dropped / len(letters) > 0.5
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "GUARD_CHARS", limit)
        said = pipeline.zero_token_warning(Settings(tokenizer="rouge-score"), [(t,) for t in texts])
    assert (said is not None) == want, (prefix, said)


def test_identical_replicate_runs_give_a_zero_width_band_and_a_warning(tmp_path: Path) -> None:
    same = outs(a="the cat", b="a dog ran")
    suite = open_suite(make_suite(
        tmp_path / "s", refs(a="the cat sat", b="a dog ran"),
        {"1": {"run-1.jsonl": same, "run-2.jsonl": same}, "2.jsonl": outs(a="the cat sat", b="a dog")},
    ))  # fmt: skip
    figures = open_analysis(suite, Settings()).figures
    mean = (0.8 + 1.0) / 2  # F("the cat" | "the cat sat") = 2*1*(2/3)/(5/3) = 0.8
    assert figures.baseline.mean == pytest.approx(mean, abs=1e-15)
    assert figures.baseline.band == (figures.baseline.mean, figures.baseline.mean)
    assert any(w.startswith("the baseline's band has zero width") for w in figures.warnings)
    assert any("[band] min_delta" in w for w in figures.warnings)


def _tiny_move_suite(root: Path, toml: str) -> Path:
    """30 examples, all scoring F 1 in two identical baseline runs; in the candidate one
    output of 100,000 words loses its last word to another: rouge1 F 0.99999 there, so the
    mean moves by 1e-5 / 30 = 3.3e-7."""
    long = "a " * 100_000
    references = {f"e{i:02d}": "the cat sat" for i in range(1, 30)} | {"e00": long}
    base = dict(references)
    cand = dict(references, e00="a " * 99_999 + "b")
    return make_suite(
        root, refs(**references),
        {"1": {"run-1.jsonl": outs(**base), "run-2.jsonl": outs(**base)}, "2.jsonl": outs(**cand)},
        toml=toml,
    )  # fmt: skip


def _guarded(root: Path) -> Figures:
    suite = open_suite(_tiny_move_suite(root, 'metric = "rouge1"\n[band]\nmin_delta = 1e-6\n'))
    settings = resolve(suite.settings, UserDefaults())
    assert (settings.metric, settings.min_delta) == ("rouge1", 1e-6)  # from suite.toml
    return open_analysis(suite, settings).figures


def test_min_delta_from_suite_toml_keeps_a_tiny_move_within_band(tmp_path: Path) -> None:
    plain = open_analysis(
        open_suite(_tiny_move_suite(tmp_path / "plain", 'metric = "rouge1"\n')), Settings("rouge1")
    ).figures
    assert plain.delta_mean == pytest.approx(-1e-5 / 30, rel=1e-9)  # the 3.3e-7 move
    assert plain.baseline.band == (1.0, 1.0)
    assert plain.verdict == "drift-down"  # the rule kept: outside a zero-width band is drift
    guarded = _guarded(tmp_path / "guarded")
    assert guarded.delta_mean == plain.delta_mean
    assert guarded.verdict == "within-band"


def test_min_delta_the_report_says_why_the_verdict_is_within_band(tmp_path: Path) -> None:
    reason = _guarded(tmp_path / "guarded").verdict_reason()
    assert reason.startswith("candidate mean 1.0000 is below the baseline band [1.0000, 1.0000]")
    assert "within min_delta" in reason


def test_the_pipeline_reads_only_the_builds_it_compares(tmp_path: Path) -> None:
    path = _suite_for_cache(tmp_path / "s")
    (path / "builds" / "3-broken.jsonl").write_text('{"id": "a", "output": "x"}\n{broken\n')
    figures = open_analysis(open_suite(path), Settings(), "1", "2").figures
    assert (figures.baseline.name, figures.candidate.name) == ("1", "2")
    assert figures.paired == 3 and figures.only_in_candidate == []


def _seven_builds(root: Path) -> Path:
    """Seven builds; example v scores F 2/3 ("a b" against "a b c d") or 1 ("a b c d"), and
    moves in three of the five pairs up to the baseline (build 6): 1-2, 2-3 and 4-5. Over
    the last four pairs alone it would be two moves of four. s scores 1 on every build."""
    v = ["a b", "a b c d", "a b", "a b", "a b c d", "a b c d", "a b c"]
    return make_suite(
        root, refs(v="a b c d", s="a b c d"),
        {f"{n}.jsonl": outs(v=text, s="a b c d") for n, text in enumerate(v, 1)},
    )  # fmt: skip


def _volatile(figures: Figures) -> set[str]:
    from rouge_tui.analysis.signals import names

    return {i for i, flags in zip(figures.ids, figures.signals.tolist()) if "volatile" in names(flags)}


@pytest.mark.parametrize("source", ["auto", "history"])
def test_the_volatile_signal_looks_at_five_pairs_whatever_the_band_source(tmp_path: Path, source: str) -> None:
    """SPEC: volatile takes the last five pairs ending at the baseline; the band's source
    changes the band only (three moves of five: volatile)."""
    figures = open_analysis(open_suite(_seven_builds(tmp_path / "s")), Settings(band_source=source)).figures
    assert (figures.baseline.name, figures.candidate.name) == ("6", "7")
    assert _volatile(figures) == {"v"}


def test_the_history_band_takes_the_five_builds_ending_with_the_baseline(tmp_path: Path) -> None:
    """Means (F v + F s) / 2 of builds 2..6: 1, 5/6, 5/6, 1, 1 (build 1's 5/6 is outside the
    window); their mean is 14/15, squared deviations 3 (1/15)^2 + 2 (1/10)^2 = 1/30, so the
    sample sd is sqrt(1/30 / 4) = sqrt(1/120)."""
    figures = open_analysis(open_suite(_seven_builds(tmp_path / "s")), Settings(band_source="history", k=2.0)).figures
    half = 2.0 * (1 / 120) ** 0.5
    assert figures.baseline.band_source == "history"
    assert figures.baseline.mean == 1.0
    assert figures.baseline.band == pytest.approx((1.0 - half, 1.0 + half), abs=1e-15)


def test_a_comparison_given_up_while_it_scores_does_not_wait_for_its_grounding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What overlap cannot see is found beside the scoring; when the scoring stops (the app's
    cancel raises from its progress callback, as Ctrl-C or an error would), the comparison
    ends then, not when the grounding ends. Here the grounding would take 60 s."""
    import threading

    from rouge_tui.analysis import grounding_bulk

    release = threading.Event()

    def slow_counts(candidates, *args, **kwargs):
        release.wait(60)
        return np.zeros(len(candidates), np.int64), np.zeros(len(candidates), np.int64)

    def cancel(stage: str, fraction: float) -> None:
        if stage.startswith("scoring"):
            raise InterruptedError("cancelled")

    monkeypatch.setattr(grounding_bulk, "new_counts", slow_counts)
    suite = open_suite(_suite_for_cache(tmp_path / "s"))
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            open_analysis(suite, Settings(), "1", "2", progress=cancel)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(20)
    try:
        assert not worker.is_alive(), "the comparison waited for its grounding"
        assert [type(exc) for exc in outcome] == [InterruptedError]
    finally:
        release.set()
        worker.join()


def test_the_figures_bytes_do_not_hang_on_how_stemming_was_asked_for(tmp_path: Path) -> None:
    """Settings.stem_asked (what the app's t cycle turns back on) is not part of what a
    comparison computed: the same comparison asked for with and without it is the same
    bytes, so the figures cache holds one thing for it."""
    from dataclasses import replace

    path = make_suite(tmp_path / "s")
    settings = Settings(tokenizer="rouge-score")
    one = open_analysis(open_suite(path), settings, caches=Caches.none()).figures
    other = open_analysis(open_suite(path), replace(settings, stem_asked=True), caches=Caches.none()).figures
    assert one.to_bytes() == other.to_bytes()
    assert type(one).from_bytes(one.to_bytes()).settings == settings


def _with_grounding_held(monkeypatch) -> threading.Event:
    """What overlap cannot see is found only once the returned event is set (as on a big
    suite, where it is still being found when the scores are in)."""
    from rouge_tui.analysis import signals

    go = threading.Event()
    count_new = signals.Pairs.count_new

    def held(self):
        assert go.wait(30)
        return count_new(self)

    monkeypatch.setattr(signals.Pairs, "count_new", held)
    return go


def test_the_first_figures_come_before_the_grounded_signals_and_the_rest_is_final(
    tmp_path: Path, monkeypatch
) -> None:
    """The app's first frame on a cold suite: ``early`` is given the comparison with the
    signals that read what overlap cannot see pending (none of their bits set, no copied
    spans yet) and every other figure already final; the figures returned after are those
    of a comparison made without ``early``. The copy suite's candidate a says "A dog sat
    there now": 2 of its 5 words at most in any sentence of its reference, source or
    baseline, a new sentence; b's "Size fell to one today" has 4 of 5 in its source."""
    from rouge_tui.analysis.signals import SIGNALS, names

    path = copy_suite(tmp_path / "s")
    without = open_analysis(open_suite(path), Settings()).figures
    go = _with_grounding_held(monkeypatch)
    shown: list[pipeline.Analysis] = []

    def early(analysis: pipeline.Analysis) -> None:
        shown.append(analysis)
        go.set()

    final = open_analysis(open_suite(path), Settings(), early=early).figures
    assert len(shown) == 1
    first = shown[0].figures
    assert first.pending == ("new-sentence", "new-figure") and final.pending == ()
    assert shown[0].texts.done() and shown[0].key is None
    flags = dict(zip(final.ids, map(names, final.signals.tolist())))
    assert "new-sentence" in flags["a"] and "new-sentence" not in flags["b"]
    grounded = sum(1 << bit for bit, s in enumerate(SIGNALS) if s.grounded)
    assert not np.any(first.signals & grounded)
    assert np.array_equal(first.signals, final.signals & ~np.uint32(grounded))
    assert first.copied == {} and final.copied == {
        role: pytest.approx(list(means), abs=1e-15) for role, means in COPY_MEANS.items()}
    for name in ("ids", "baseline_f", "candidate_f", "delta", "signals"):
        assert np.array_equal(getattr(final, name), getattr(without, name))
    assert (final.verdict, final.baseline, final.candidate, final.details, final.copied) == (
        without.verdict, without.baseline, without.candidate, without.details, without.copied)
    assert (first.verdict, first.baseline, first.candidate, first.details) == (
        final.verdict, final.baseline, final.candidate, final.details)
    with pytest.raises(ValueError, match="not cached"):
        first.to_bytes()


def test_the_app_finds_what_overlap_cannot_see_once_its_first_figures_are_given(tmp_path: Path, monkeypatch) -> None:
    """With ``early`` (the app), the grounding is begun only after ``early`` has the figures:
    beside the scoring, its Python held the first frame back. The report's is begun before
    the scoring, to run beside it."""
    from rouge_tui.analysis import unseen

    began = threading.Event()
    grounding_of = unseen.grounding_of

    def noted(*args, **kwargs):
        began.set()
        return grounding_of(*args, **kwargs)

    during: list[bool] = []  # whether the grounding was begun when the scores were made
    score_pair = pipeline._score_pair

    def scoring(*args, **kwargs):
        during.append(began.is_set())
        return score_pair(*args, **kwargs)

    monkeypatch.setattr(unseen, "grounding_of", noted)
    monkeypatch.setattr(pipeline, "_score_pair", scoring)
    path = copy_suite(tmp_path / "s")
    at_early: list[bool] = []
    final = open_analysis(open_suite(path), Settings(), early=lambda shown: at_early.append(began.is_set())).figures
    assert during == [False] and at_early == [False] and began.is_set() and final.pending == ()
    began.clear()
    assert open_analysis(open_suite(path), Settings()).figures.pending == ()
    assert during == [False, True]


def test_figures_with_pending_signals_are_never_cached_nor_read_back(tmp_path: Path, monkeypatch) -> None:
    """What the cache keeps is the final figures, whatever came early; and an entry that
    says some signals are pending (written by hand: `to_bytes` refuses) is not trusted."""
    path = copy_suite(tmp_path / "s")
    go = _with_grounding_held(monkeypatch)
    store = caches(tmp_path / "cache")
    open_analysis(open_suite(path), Settings(), caches=store, early=lambda analysis: go.set())
    again = open_analysis(open_suite(path), Settings(), caches=store)
    assert again.key is not None and again.figures.pending == ()
    assert again.figures.copied  # the final figures, with the copied spans
    data = again.figures.to_bytes()
    size = int.from_bytes(data[:8], "little")
    head = json.loads(data[8 : 8 + size])
    head["pending"] = ["new-sentence"]
    text = json.dumps(head).encode()
    with pytest.raises(ValueError, match="pending"):
        Figures.from_bytes(len(text).to_bytes(8, "little") + text + data[8 + size :])


def test_a_report_waits_for_every_signal_and_is_given_nothing_early(tmp_path: Path, monkeypatch) -> None:
    """Without ``early`` (the report), the figures come once, with the grounded signals."""
    go = _with_grounding_held(monkeypatch)
    threading.Timer(0.2, go.set).start()
    figures = open_analysis(open_suite(copy_suite(tmp_path / "s")), Settings()).figures
    assert figures.pending == () and figures.copied


def test_another_metric_on_the_same_texts_finds_what_overlap_cannot_see_once(tmp_path: Path, monkeypatch) -> None:
    """The app's m and t score the texts already read again: what overlap cannot see
    depends on neither, so it is found once for those texts (another min_support finds it
    again), and the signals equal those of texts read afresh."""
    from rouge_tui.analysis import signals

    calls: list[float] = []
    count_new = signals.Pairs.count_new

    def counted(self):
        calls.append(self.min_support)
        return count_new(self)

    path = copy_suite(tmp_path / "s")
    suite = open_suite(path)
    afresh = [pipeline.analyse(suite, Settings(metric=m), read_texts(suite, *suite.pick(None, None))).figures
              for m in ("rougeL", "rouge1")]
    monkeypatch.setattr(signals.Pairs, "count_new", counted)
    texts = read_texts(suite, *suite.pick(None, None))
    shown = [pipeline.analyse(suite, Settings(metric=m), texts).figures for m in ("rougeL", "rouge1", "rougeL")]
    assert calls == [0.5]
    for got, want in zip(shown, [*afresh, afresh[0]]):
        assert got.ids == want.ids and np.array_equal(got.signals, want.signals) and got.copied == want.copied
    assert "new-sentence" in signals.names(int(shown[1].signals[shown[1].ids.index("a")]))
    pipeline.analyse(suite, Settings(min_support=0.3), texts)
    assert calls == [0.5, 0.3]


# ---------------------------------------------------------------------- the figures key


def test_an_earlier_build_rewritten_while_read_never_lends_its_figures_to_its_old_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync job's cp rewrites build 2 (inside the history band's window) just as the
    report reads it, and puts it back after: the figures made from the rewritten bytes must
    not come back for the old ones."""
    from rouge_tui.analysis import history

    path = _seven_builds(tmp_path / "s")
    settings = Settings(band_source="history")
    build = path / "builds" / "2.jsonl"
    original = build.read_bytes()
    real = history.read_build

    def copied_in_meanwhile(suite, entry):
        if entry.name == "2":
            build.write_text(outs(v="a", s="a"))
        return real(suite, entry)

    cached = caches(tmp_path / "cache")
    with monkeypatch.context() as patch:
        patch.setattr(history, "read_build", copied_in_meanwhile)
        during = open_analysis(open_suite(path), settings, caches=cached).figures
    build.write_bytes(original)
    uncached = open_analysis(open_suite(path), settings, caches=Caches.none()).figures
    assert during.baseline.band != uncached.baseline.band  # the rewrite did change the figures
    again = open_analysis(open_suite(path), settings, caches=cached).figures
    assert again.to_bytes() == uncached.to_bytes()


def test_a_run_file_moved_to_the_other_build_is_another_key(tmp_path: Path) -> None:
    """A misfiled run-2.jsonl moved from the baseline's folder to the candidate's: the same
    bytes in the same order, and other builds; the figures must be the new ones."""
    reference = refs(a="the cat sat on the mat", b="a dog ran in the park")
    path = make_suite(tmp_path / "s", reference, {
        "1": {"run-1.jsonl": outs(a="the cat sat on the mat", b="a dog ran in the park"),
              "run-2.jsonl": outs(a="the cat", b="a dog")},
        "2": {"run-3.jsonl": outs(a="a cat sat", b="dog ran")},
    })  # fmt: skip
    cached = caches(tmp_path / "cache")
    before = open_analysis(open_suite(path), Settings(), caches=cached).figures
    (path / "builds" / "1" / "run-2.jsonl").rename(path / "builds" / "2" / "run-2.jsonl")
    uncached = open_analysis(open_suite(path), Settings(), caches=Caches.none()).figures
    assert (uncached.baseline.runs, uncached.candidate.runs) == (1, 2)
    assert uncached.candidate.mean != before.candidate.mean
    again = open_analysis(open_suite(path), Settings(), caches=cached).figures
    assert again.to_bytes() == uncached.to_bytes()


def test_the_figures_of_an_imported_build_of_repeated_runs_come_from_the_cache(
    tmp_path: Path, engine_calls: list[list[str]]
) -> None:
    """promptfoo's --repeat: one file, two runs. The key looked up before reading counts the
    runs the importer names (two digests), as the key stored after reading does."""
    from test_importer_promptfoo import repeated_exports

    folder = repeated_exports(tmp_path / "pf")
    first = open_analysis(open_suite(folder), Settings(), caches=Caches.default())
    assert first.figures.candidate.runs == 2 and engine_calls
    engine_calls.clear()
    reader = Deferred()
    again = open_analysis(open_suite(folder), Settings(), caches=Caches.default(), reader=reader)
    assert engine_calls == [] and not again.texts.done()  # the figures came before the texts
    assert again.figures.to_bytes() == first.figures.to_bytes()


def test_an_imported_suites_figures_come_from_the_cache_until_a_file_changes(
    tmp_path: Path, engine_calls: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key looked up before reading names the importer's digests, as the key stored
    after reading does: a second look is a hit (nothing scored), an edited build a miss."""
    from toy_format import install, write_toy

    install(monkeypatch)
    folder = write_toy(tmp_path / "out")
    first = open_analysis(open_suite(folder), Settings(), caches=Caches.default()).figures
    assert engine_calls
    engine_calls.clear()
    reader = Deferred()
    again = open_analysis(open_suite(folder), Settings(), caches=Caches.default(), reader=reader)
    assert engine_calls == [] and not again.texts.done()  # the figures came before the texts
    assert again.figures.to_bytes() == first.to_bytes()
    reader.run()
    assert again.fresh(again.texts.result())
    (folder / "out~summ~2026-01-03~mid.jsonl").write_text(jsonl(*({"doc": {"n": n}, "resp": ["rain"]} for n in (1, 2, 3))))
    changed = open_analysis(open_suite(folder), Settings(), caches=Caches.default()).figures
    assert engine_calls and changed.delta_mean != first.delta_mean
