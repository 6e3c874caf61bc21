"""The batched scoring path against the per-pair `Scorer`, rouge-score and textbook oracles.

Floats are compared with ==: batching and forking must not move a single bit.
"""

from __future__ import annotations

import json
import os
import random
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer
from rouge_score.rouge_scorer import _backtrack_norec, _lcs_table

from rouge_tui import compare
from rouge_tui.metrics import METRICS, Scorer, batch, lsum
from rouge_tui.metrics.lcs import Packed, token_masks
from rouge_tui.metrics.rouge import lsum_pairs as rouge_lsum_pairs
from rouge_tui.report import render_json, to_json
from rouge_tui.scoring import SuiteScorer, analyse, resolve_settings
from rouge_tui.suite import load_suite

CONFIGS = [("whitespace", False), ("rouge-score", False), ("rouge-score", True)]


def chapter_lcs(a: list, b: list) -> int:
    """The textbook dynamic program."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


class Whitespace:
    """The chapter's tokenizer in rouge-score's tokenizer interface."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


# --- texts ---------------------------------------------------------------------------------

# Few distinct words (repeats and LCS ties everywhere), case and punctuation that the two
# tokenizers treat differently, words the stemmer changes or drops, and newlines (rougeLsum).
WORDS = [
    "the",
    "The",
    "cat",
    "cats",
    "sat",
    "running",
    "ran",
    "on",
    "mat",
    "a",
    "b,",
    "x-y",
    "é",
    "İs",
    "!!",
]
word = st.sampled_from(WORDS)
LENGTHS = [0, 1, 2, 5, 20, 63, 64, 65, 70, 130]


@st.composite
def text(draw: st.DrawFn, lengths: list[int] = LENGTHS) -> str:
    n = draw(st.sampled_from(lengths))
    words = draw(st.lists(word, min_size=n, max_size=n))
    breaks = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return "".join(w + ("\n" if b else " ") for w, b in zip(words, breaks))


@st.composite
def suite(draw: st.DrawFn) -> tuple[list[tuple[str, ...]], list[str], list[int]]:
    """Reference groups (1-3 references each) and candidates pointing at them."""
    groups = draw(
        st.lists(st.lists(text(), min_size=1, max_size=3).map(tuple), min_size=1, max_size=6)
    )
    count = draw(st.integers(0, 12))
    candidates = draw(st.lists(text(), min_size=count, max_size=count))
    owners = draw(st.lists(st.integers(0, len(groups) - 1), min_size=count, max_size=count))
    return groups, candidates, owners


def per_pair(metric: str, tokenizer: str, stem: bool, groups, candidates, owners) -> list[float]:
    scorer = Scorer([metric], tokenizer, stem)
    return [scorer.score_multi(groups[g], c)[metric].fmeasure for g, c in zip(owners, candidates)]


# --- fmeasures against the per-pair scorer and rouge-score ------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("tokenizer,stem", CONFIGS)
@settings(max_examples=20, deadline=None)
@given(data=suite())
def test_batch_equals_score_multi(metric: str, tokenizer: str, stem: bool, data) -> None:
    groups, candidates, owners = data
    got = batch.fmeasures(metric, tokenizer, stem, groups, candidates, owners)
    assert got.tolist() == per_pair(metric, tokenizer, stem, groups, candidates, owners)


@pytest.mark.parametrize("tokenizer,stem", CONFIGS)
def test_batch_equals_rouge_score_directly(tokenizer: str, stem: bool) -> None:
    """rouge-score's own score_multi as the oracle, around the 64-token edge."""
    rng = random.Random(11)
    oracle = rouge_scorer.RougeScorer(
        list(METRICS),
        use_stemmer=stem,
        tokenizer=Whitespace() if tokenizer == "whitespace" else None,
    )

    def make(n: int) -> str:
        return " ".join(rng.choice(WORDS) + ("\n" if rng.random() < 0.15 else "") for _ in range(n))

    groups = [tuple(make(rng.choice(LENGTHS)) for _ in range(rng.randint(1, 3))) for _ in range(30)]
    candidates = [make(rng.choice(LENGTHS)) for _ in range(90)]
    owners = [rng.randrange(30) for _ in candidates]
    for metric in METRICS:
        got = batch.fmeasures(metric, tokenizer, stem, groups, candidates, owners)
        want = [
            oracle.score_multi(list(groups[g]), c)[metric].fmeasure
            for g, c in zip(owners, candidates)
        ]
        assert got.tolist() == want, metric


@pytest.mark.parametrize("tokenizer,stem", CONFIGS)
def test_rouge_lsum_sentences_around_the_word_edge(tokenizer: str, stem: bool) -> None:
    """Reference sentences of 63, 64 and 65 tokens (the last scored pair by pair), long
    candidate sentences and blank lines, against rouge-score's own score_multi."""
    rng = random.Random(5)
    oracle = rouge_scorer.RougeScorer(
        ["rougeLsum"], use_stemmer=stem, tokenizer=Whitespace() if tokenizer == "whitespace" else None
    )

    def line(n: int) -> str:
        return " ".join(rng.choice(WORDS[:12]) for _ in range(n))

    def make() -> str:
        sizes = rng.choice([[63], [64], [65], [3, 64], [64, 65, 2], [10, 0, 5], [200], [1]])
        return "\n".join(line(n) for n in sizes)

    groups = [tuple(make() for _ in range(rng.randint(1, 2))) for _ in range(25)]
    candidates = [make() for _ in range(60)]
    owners = [rng.randrange(25) for _ in candidates]
    got = batch.fmeasures("rougeLsum", tokenizer, stem, groups, candidates, owners)
    want = [oracle.score_multi(list(groups[g]), c)["rougeLsum"].fmeasure for g, c in zip(owners, candidates)]
    assert got.tolist() == want


@pytest.mark.parametrize("dense", [True, False])
def test_rouge_lsum_masks_dense_or_searched(dense: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentence masks as a table, or (a long reference's vocabulary times every sentence
    would not fit) as sorted keys: the same numbers as the per-pair scorer either way."""
    monkeypatch.setattr(lsum, "DENSE_MASKS", 1 << 30 if dense else 0)
    rng = random.Random(8)
    long_reference = "\n".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) for _ in range(40)
    )
    refs, cands, owners = random_suite(7, 30, 90)
    refs = [*refs, (long_reference,)]
    cands = [*cands, long_reference.replace("\n", " ", 3), ""]
    owners = [*owners, len(refs) - 1, len(refs) - 1]
    got = batch.fmeasures("rougeLsum", "whitespace", False, refs, cands, owners)
    assert got.tolist() == per_pair("rougeLsum", "whitespace", False, refs, cands, owners)


def test_multi_reference_ties_and_empty_texts() -> None:
    """Hand-worked: F is the best over the references; empty sides score 0."""
    groups = [("a b c d", "a b c d"), ("", "x y"), ("a b",)]
    candidates = ["a b", "", "x", "a b"]
    got = batch.fmeasures("rougeL", "whitespace", False, groups, candidates, [0, 0, 1, 2])
    # a b vs a b c d: P = 1, R = 1/2, F = 2/3; x vs x y: P = 1, R = 1/2; a b vs a b: 1.
    assert got.tolist() == [2 * 1.0 * 0.5 / 1.5, 0.0, 2 * 1.0 * 0.5 / 1.5, 1.0]


def test_long_texts_across_machine_words() -> None:
    """References and candidates either side of 64 and 128 tokens, where rapidfuzz's pass
    goes from one machine word to several: the same numbers as the per-pair scorer."""
    rng = random.Random(3)
    groups = [(" ".join(rng.choice("abcde") for _ in range(n)),) for n in (3, 63, 64, 65, 129)]
    candidates = [" ".join(rng.choice("abcdef") for _ in range(n)) for n in (1, 64, 65, 128, 300)]
    candidates *= 5
    owners = [i % 5 for i in range(len(candidates))]
    got = batch.fmeasures("rougeL", "whitespace", False, groups, candidates, owners)
    assert got.tolist() == per_pair("rougeL", "whitespace", False, groups, candidates, owners)


def test_bad_groups_are_refused() -> None:
    with pytest.raises(ValueError):
        batch.fmeasures("rougeL", "whitespace", False, [("a",)], ["a"], [1])
    with pytest.raises(ValueError):
        batch.fmeasures("rougeL", "whitespace", False, [()], ["a"], [0])
    with pytest.raises(ValueError):
        batch.fmeasures("rougeL", "whitespace", False, [("a",)], ["a", "b"], [0])


# --- blocks and the forked process -------------------------------------------------------------


def random_suite(
    seed: int, groups: int, candidates: int
) -> tuple[list[tuple[str, ...]], list[str], list[int]]:
    rng = random.Random(seed)

    def make() -> str:
        return " ".join(
            rng.choice(WORDS) + ("\n" if rng.random() < 0.1 else "")
            for _ in range(rng.choice(LENGTHS))
        )

    refs = [tuple(make() for _ in range(rng.randint(1, 2))) for _ in range(groups)]
    cands = [make() for _ in range(candidates)]
    return refs, cands, [rng.randrange(groups) for _ in cands]


@pytest.mark.parametrize("metric", METRICS)
def test_forked_blocks_give_the_same_array(metric: str, monkeypatch: pytest.MonkeyPatch) -> None:
    refs, cands, owners = random_suite(5, 40, 160)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 300)  # many small blocks
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0)
    here = batch.fmeasures(metric, "rouge-score", True, refs, cands, owners, workers=1)
    forked = batch.fmeasures(metric, "rouge-score", True, refs, cands, owners, workers=2)
    assert forked.tolist() == here.tolist()
    assert here.tolist() == per_pair(metric, "rouge-score", True, refs, cands, owners)


@pytest.mark.parametrize("how", ["shared", "runs", "child dies", "child dies midway"])
def test_every_way_of_sharing_blocks_gives_the_same_array(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks taken from a pipe by whichever process is free, in runs of several when there
    are too many for the pipe; a process that dies leaves its blocks to this one."""
    refs, cands, owners = random_suite(6, 40, 160)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 300)
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0)
    here = batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, workers=1)
    if how == "runs":
        monkeypatch.setattr(batch, "_PIPE_SAFE", 4)
    if how.startswith("child dies"):
        real = batch._score_claimed
        parent = os.getpid()

        def dying(fd, progress, spans):
            if os.getpid() != parent:
                if how == "child dies midway":
                    os.read(fd, batch._CLAIM.size)  # gone with a block claimed
                os._exit(9)
            return real(fd, progress, spans)

        monkeypatch.setattr(batch, "_score_claimed", dying)
    forked = batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, workers=2)
    assert forked.tolist() == here.tolist()


@pytest.mark.parametrize("how", ["forked", "child dies", "no fork", "nothing to score"])
def test_a_side_job_runs_in_the_forked_scoring_process_or_else_here(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job runs once: in the process forked to score when there is one (no fork of its
    own), else here when its result is asked for; the scores are the same either way."""
    refs, cands, owners = random_suite(7, 40, 160)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 300)
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0 if how != "no fork" else 10**9)
    here = batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, workers=1)
    parent = os.getpid()
    runs: list[int] = []
    job = batch.SideJob(lambda tag: (runs.append(os.getpid()), (tag, os.getpid()))[1], "signals")
    if how == "child dies":
        real = batch._score_claimed

        def dying(fd, progress, spans):
            if os.getpid() != parent:
                os._exit(9)
            return real(fd, progress, spans)

        monkeypatch.setattr(batch, "_score_claimed", dying)
    with batch.beside(job):
        if how != "nothing to score":
            got = batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, workers=2)
            assert got.tolist() == here.tolist()
    tag, pid = job.result()
    assert tag == "signals"
    if how == "forked":
        assert pid != parent and runs == []  # the child's own list got the append
    else:
        assert pid == parent and runs == [parent]
    assert job.result() == (tag, pid) and len(runs) == (0 if how == "forked" else 1)


def test_an_error_here_stops_the_forked_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """When this process fails mid-work, the forked one is stopped, not left scoring."""
    refs, cands, owners = random_suite(9, 40, 160)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 300)
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0)
    parent = os.getpid()
    real = batch._score_span

    def failing(span, progress=None):
        if os.getpid() == parent:
            raise MemoryError("planted")
        return real(span, progress)

    monkeypatch.setattr(batch, "_score_span", failing)
    with pytest.raises(MemoryError):
        batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, workers=2)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left, running or not reaped


def test_progress_is_reported_between_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    refs, cands, owners = random_suite(6, 30, 90)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 200)
    seen: list[float] = []
    batch.fmeasures("rougeL", "whitespace", False, refs, cands, owners, progress=seen.append)
    assert len(seen) >= 2 and seen == sorted(seen) and 0 <= seen[0] and seen[-1] < 1


def test_no_fork_from_a_second_thread() -> None:
    """The app scores from a worker thread: forking there could copy a held lock."""
    assert batch.parallel_safe()
    seen: list[bool] = []
    thread = threading.Thread(target=lambda: seen.append(batch.parallel_safe()))
    thread.start()
    thread.join()
    assert seen == [False]


# --- whole analyses ----------------------------------------------------------------------------


def write_suite(root: Path, seed: int, examples: int, runs: int = 1) -> Path:
    """A synthetic suite: references around the 64-token edge, edited outputs, replicates."""
    rng = random.Random(seed)
    (root / "builds" / "b-candidate").mkdir(parents=True)
    refs, base, cand = [], [], [[] for _ in range(runs)]
    for index in range(examples):
        words = [rng.choice(WORDS) for _ in range(rng.choice([0, 3, 40, 63, 64, 65, 90]))]
        key = f"ex{index:04d}"
        if index % 7 == 0:
            refs.append({"id": key, "references": [" ".join(words), " ".join(words[::2])]})
        else:
            refs.append({"id": key, "reference": " ".join(words)})
        edited = [w for w in words if rng.random() > 0.3]
        base.append({"id": key, "output": " ".join(edited)})
        for r in range(runs):
            out = [w for w in edited if rng.random() > 0.2] if index % 11 else []
            cand[r].append({"id": key, "output": " ".join(out)})

    def dump(path: Path, rows: list[dict]) -> None:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    dump(root / "references.jsonl", refs)
    dump(root / "builds" / "a-baseline.jsonl", base)
    for r in range(runs):
        dump(root / "builds" / "b-candidate" / f"run{r}.jsonl", cand[r])
    return root


@pytest.mark.parametrize("metric", ["rougeL", "rougeLsum"])
def test_analysis_json_is_byte_identical_with_and_without_the_pool(
    metric: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = load_suite(write_suite(tmp_path, 9, 120, runs=2))
    baseline, candidate = suite.pick()
    settings_ = resolve_settings(suite, metric=metric)
    monkeypatch.setattr(batch, "BLOCK_TOKENS", 500)
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0)
    alone = render_json(to_json(analyse(suite, baseline, candidate, settings_, workers=1), 20, {}))
    pooled = render_json(to_json(analyse(suite, baseline, candidate, settings_, workers=2), 20, {}))
    assert pooled == alone
    # And the per-example scores are the per-pair scorer's.
    scorer = SuiteScorer(suite, settings_)
    scores = scorer.run_scores(candidate.runs[1].outputs)
    for key, value in scores.items():
        assert value == scorer.fmeasure(key, candidate.runs[1].outputs[key])


# --- helpers made linear, and compare's fast paths -------------------------------------------


def naive_masks(tokens: list) -> dict:
    masks: dict = {}
    for i, token in enumerate(tokens):
        masks[token] = masks.get(token, 0) | (1 << i)
    return masks


@pytest.mark.parametrize("n", [0, 1, 1024, 1025, 5000])
def test_token_masks_long_texts(n: int) -> None:
    rng = random.Random(n)
    tokens = [rng.choice("abcdefg") for _ in range(n)] + ["z"]
    assert token_masks(tokens) == naive_masks(tokens)


def test_packed_long_texts() -> None:
    rng = random.Random(2)
    sentences = [[rng.choice("abcd") for _ in range(rng.randint(0, 40))] for _ in range(100)]
    packed = Packed(sentences)
    position, keep, masks = 0, 0, {}
    offsets = []
    for sentence in sentences:  # the layout by its definition: bits, then a clear guard bit
        offsets.append(position)
        for token in sentence:
            masks[token] = masks.get(token, 0) | (1 << position)
            keep |= 1 << position
            position += 1
        position += 1
    assert sum(map(len, sentences)) > 1024
    assert (packed.masks, packed.keep, packed.offsets) == (masks, keep, offsets)


ids_ = st.lists(
    st.sampled_from(["a", "b", "ab", "a\x00", "\x00", "é", "Z", "10", "9", "é\x00b"]), max_size=30
)


@settings(max_examples=200, deadline=None)
@given(ids_, st.data())
def test_rank_is_the_sorted_order(ids: list[str], data) -> None:
    values = data.draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 0.5, -0.5, 0.25, 1e-300, -1.0]),
            min_size=len(ids),
            max_size=len(ids),
        )
    )
    delta = np.array(values, dtype=np.float64)
    want = sorted(range(len(ids)), key=lambda i: (-abs(values[i]), ids[i]))
    assert compare.rank(ids, delta).tolist() == want


lines = st.lists(st.sampled_from(["a", "a ", " a", "b c", "", " ", "\t"]), max_size=6)
breaks = st.sampled_from(["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", " "])


@settings(max_examples=300, deadline=None)
@given(lines, breaks)
def test_duplicated_line_fast_path(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    stripped = [line.strip() for line in text.splitlines() if line.strip()]
    assert compare.has_duplicated_line(text) == (len(set(stripped)) < len(stripped))


# --- the union LCS's matches of one text pair (the diff view's rougeLsum) ------------------

sentences_strategy = st.lists(
    st.lists(st.sampled_from("abcde"), min_size=1, max_size=70), min_size=1, max_size=4
)


@settings(max_examples=200, deadline=None)
@given(sentences_strategy, sentences_strategy)
def test_union_matches_are_the_per_pair_tracebacks(
    reference: list[list[str]], candidate: list[list[str]]
) -> None:
    # Sentences up to 70 tokens: reference sentences past 64 take the per-pair path.
    ref_pos, can_pos = lsum.union_matches(reference, candidate)
    ref_start = np.cumsum([0, *map(len, reference)])
    can_start = np.cumsum([0, *map(len, candidate)])
    per_pair = sorted(
        (int(ref_start[k] + i), int(can_start[s] + j))
        for k, s, pairs in rouge_lsum_pairs(reference, candidate)
        for i, j in pairs
    )
    assert list(zip(ref_pos.tolist(), can_pos.tolist())) == per_pair
    # The reference side against rouge-score's own traceback, sentence pair by pair.
    oracle = sorted(
        int(ref_start[k]) + i
        for k, ref in enumerate(reference)
        for can in candidate
        for i in _backtrack_norec(_lcs_table(ref, can), ref, can)
    )
    assert ref_pos.tolist() == oracle
