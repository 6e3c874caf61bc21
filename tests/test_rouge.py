"""ROUGE scores and alignments against rouge-score 0.1.2, the chapter, and hand arithmetic.

Floats are compared with ==: the scores must be rouge-score's to the last bit.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from rouge_tui.metrics import (
    METRICS,
    ZERO,
    Score,
    Scorer,
    align_outputs,
    alignment,
    best_index,
    rouge_l,
    rouge_lsum,
    rouge_n,
    tokenize,
)

CONFIGS = [("whitespace", False), ("rouge-score", False), ("rouge-score", True)]


class Whitespace:
    """The chapter's tokenizer in rouge-score's tokenizer interface, for its arithmetic."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


def oracle(tokenizer: str, stem: bool, metrics: list[str] | None = None):
    return rouge_scorer.RougeScorer(
        metrics or list(METRICS),
        use_stemmer=stem,
        tokenizer=Whitespace() if tokenizer == "whitespace" else None,
    )


ORACLES = {config: oracle(*config) for config in CONFIGS}
SCORERS = {config: Scorer(METRICS, *config) for config in CONFIGS}


def assert_same(expected: dict, got: dict) -> None:
    for metric in METRICS:
        assert tuple(got[metric]) == tuple(expected[metric]), metric


# --- texts ---------------------------------------------------------------------------------

PIECES = [
    "02:14",
    "UTC,",
    "İstanbul",
    "İ",
    "\u212aelvin",
    "café",
    "The",
    "the",
    "the",
    "pool",
    "pool.",
    "push",
    "pushes",
    "running",
    "runs",
    "ran",
    "41",
    "minutes",
    "don't",
    "—",
    "[b]",
]
SEPARATORS = [" ", " ", " ", " ", "\n", "\n\n", "\r\n", " , ", "\t"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.tuples(
                st.one_of(st.sampled_from(PIECES), st.text(max_size=3)),
                st.sampled_from(SEPARATORS),
            ),
            max_size=30,
        )
    )
    return "".join(word + sep for word, sep in parts)


WORDS = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "outage",
    "began",
    "at",
    "utc",
    "when",
    "configuration",
    "push",
    "removed",
    "read",
    "replica",
    "from",
    "connection",
    "pool",
    "checkout",
    "requests",
    "queued",
    "behind",
    "single",
    "primary",
    "timed",
    "out",
    "for",
    "minutes",
    "fix",
    "was",
    "rollback",
    "config",
    "change",
    "guard",
    "added",
    "block",
    "pushes",
    "reduce",
    "size",
    "below",
    "two",
]


def generated(rng: random.Random, n_words: int, line_every: int = 18) -> str:
    """A word salad over a small vocabulary, with punctuation and a newline now and then."""
    out = []
    for k in range(n_words):
        word = rng.choice(WORDS)
        if rng.random() < 0.1:
            word = word.capitalize() + rng.choice([",", ".", ";"])
        out.append(word)
        out.append("\n" if k % line_every == line_every - 1 else " ")
    return "".join(out)


# --- differential tests against rouge-score --------------------------------------------------


@settings(max_examples=250, deadline=None)
@given(texts(), texts())
def test_scores_equal_rouge_score_on_tricky_texts(reference: str, candidate: str) -> None:
    for config in CONFIGS:
        expected = ORACLES[config].score(reference, candidate)
        assert_same(expected, SCORERS[config].score(reference, candidate))


@pytest.mark.parametrize("config", CONFIGS)
def test_scores_equal_rouge_score_on_generated_texts(config: tuple[str, bool]) -> None:
    rng = random.Random(7)
    for _ in range(40):
        reference = generated(rng, rng.randint(0, 80))
        candidate = generated(rng, rng.randint(0, 80))
        assert_same(
            ORACLES[config].score(reference, candidate), SCORERS[config].score(reference, candidate)
        )
    # Identical texts, and a candidate that repeats the reference's words.
    text = generated(rng, 50)
    assert_same(ORACLES[config].score(text, text), SCORERS[config].score(text, text))
    assert SCORERS[config].score(text, text)["rougeL"] == Score(1.0, 1.0, 1.0)
    doubled = text + "\n" + text
    assert_same(ORACLES[config].score(text, doubled), SCORERS[config].score(text, doubled))


@pytest.mark.slow
def test_two_thousand_word_texts() -> None:
    rng = random.Random(2000)
    reference = generated(rng, 2000, line_every=25)
    candidate = " ".join(w for w in reference.split(" ") if rng.random() < 0.9)
    config = ("rouge-score", True)
    assert_same(
        ORACLES[config].score(reference, candidate), SCORERS[config].score(reference, candidate)
    )
    # rouge-score's rougeL table on 2,000 words takes seconds: check it once, above.
    cheap = ["rouge1", "rouge2", "rougeLsum"]
    expected = oracle("whitespace", False, cheap).score(reference, candidate)
    got = Scorer(cheap).score(reference, candidate)
    assert {m: tuple(got[m]) for m in cheap} == {m: tuple(expected[m]) for m in cheap}


@pytest.mark.parametrize("config", CONFIGS)
def test_empty_sides(config: tuple[str, bool]) -> None:
    scorer = SCORERS[config]
    for reference, candidate in [("", ""), ("a b", ""), ("", "a b"), ("\n\n", "a"), ("...", "a")]:
        got = scorer.score(reference, candidate)
        assert_same(ORACLES[config].score(reference, candidate), got)
        assert all(score == ZERO for score in got.values())
    # One word: no bigrams at all, but a unigram and LCS match.
    got = scorer.score("word", "word")
    assert got["rouge2"] == ZERO
    assert got["rouge1"] == got["rougeL"] == got["rougeLsum"] == Score(1.0, 1.0, 1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(texts(), min_size=1, max_size=4), texts())
def test_multi_reference_equals_score_multi(references: list[str], candidate: str) -> None:
    for config in CONFIGS:
        expected = ORACLES[config].score_multi(references, candidate)
        assert_same(expected, SCORERS[config].score_multi(references, candidate))


def test_multi_reference_ties_go_to_the_first_listed() -> None:
    # Equal F from different P and R: "a b" gives P 2/4, R 1; the long one P 1, R 4/8.
    short, long = "a b", "a b c d e f g h"
    scorer = Scorer(["rouge1"])
    assert (
        scorer.score(short, "a b c d")["rouge1"].fmeasure
        == scorer.score(long, "a b c d")["rouge1"].fmeasure
    )
    assert scorer.score_multi([short, long], "a b c d")["rouge1"] == Score(0.5, 1.0, 2 / 3)
    assert scorer.score_multi([long, short], "a b c d")["rouge1"] == Score(1.0, 0.5, 2 / 3)
    assert (
        oracle("whitespace", False, ["rouge1"])
        .score_multi([long, short], "a b c d")["rouge1"]
        .precision
        == 1.0
    )
    assert best_index([Score(0, 0, 0.5), Score(1, 0, 0.5), Score(0, 1, 0.25)]) == 0
    with pytest.raises(ValueError):
        scorer.score_multi([], "a")


def test_prepared_texts_are_reusable_and_owned() -> None:
    scorer = Scorer(METRICS, "rouge-score", True)
    rng = random.Random(3)
    reference = scorer.prepare(generated(rng, 60))
    candidates = [generated(rng, 60) for _ in range(5)]
    for text in candidates:
        # The prepared reference's cached masks and counts must not leak between pairs.
        fresh = scorer.score(generated(random.Random(3), 60), text)
        assert scorer.score_prepared(reference, scorer.prepare(text)) == fresh
    with pytest.raises(ValueError, match="another Scorer"):
        Scorer(METRICS).score_prepared(reference, reference)


def test_bad_settings_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        Scorer(["rouge3"])
    with pytest.raises(ValueError, match="stemming"):
        Scorer(["rougeL"], "whitespace", stem=True)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        Scorer(["rougeL"], "nltk")


# --- token-level functions and hand-worked arithmetic ------------------------------------------


def test_token_level_functions_by_hand() -> None:
    ref = ["the", "cat", "sat", "on", "the", "mat"]
    can = ["the", "cat", "the", "mat", "sat"]
    # Unigrams, clipped: the x2, cat, sat, mat = 5 of 5 candidate and 6 reference tokens.
    assert rouge_n(ref, can, 1) == Score(5 / 5, 5 / 6, 2 * (5 / 5) * (5 / 6) / (5 / 5 + 5 / 6))
    # Bigrams: "the cat", "the mat" match; candidate has 4 bigrams, reference 5.
    assert rouge_n(ref, can, 2) == Score(2 / 4, 2 / 5, 2 * (2 / 4) * (2 / 5) / (2 / 4 + 2 / 5))
    # LCS "the cat the mat" = 4.
    assert rouge_l(ref, can) == Score(4 / 5, 4 / 6, 2 * (4 / 5) * (4 / 6) / (4 / 5 + 4 / 6))
    # Summary level, two reference sentences against two candidate sentences:
    # ref [a b c] [d e], can [a c] [e d b]: union LCS of [a b c] is {a, c} ∪ {b} = 3 tokens,
    # of [d e] is {e} (or d; one token); hits clipped by candidate counts: 4 of 5 and 5.
    assert rouge_lsum([["a", "b", "c"], ["d", "e"]], [["a", "c"], ["e", "d", "b"]]) == Score(
        4 / 5, 4 / 5, 2 * (4 / 5) * (4 / 5) / (4 / 5 + 4 / 5)
    )
    # Clipping: the reference's "a" in two sentences, the candidate has one "a".
    assert rouge_lsum([["a"], ["a"]], [["a"]]) == Score(1.0, 0.5, 2 * 1.0 * 0.5 / 1.5)
    assert rouge_lsum([], [["a"]]) == ZERO


# The chapter's worked example, hard-wrapped lines joined with spaces.
REFERENCE = (
    "The outage began at 02:14 UTC when a configuration push removed the read "
    "replica from the connection pool. Checkout requests queued behind a single "
    "primary and timed out for 41 minutes. The fix was a rollback of the config "
    "change; a guard has since been added to block pushes that reduce pool size "
    "below two."
)
SUMMARY_A = (
    "A bad config deploy at 02:14 UTC dropped the replica out of the pool, so all "
    "checkout traffic piled onto the primary and failed for roughly three quarters "
    "of an hour. Engineers reverted the deploy, and pushes that shrink the pool "
    "below two members are now rejected."
)
SUMMARY_B = (
    "The outage began at 02:14 UTC when a configuration push removed the read "
    "replica from the connection pool. Checkout requests queued behind a single "
    "primary and timed out for 41 minutes. A guard has since been added to block "
    "pushes that reduce pool size below two. The incident was caused by "
    "insufficient test coverage in the deployment pipeline."
)


def chapter_rouge_l(candidate: str, reference: str) -> float:
    """The chapter's rouge_l, verbatim (with its textbook LCS)."""
    c, r = candidate.lower().split(), reference.lower().split()
    dp = [[0] * (len(r) + 1) for _ in range(len(c) + 1)]
    for i, x in enumerate(c, 1):
        for j, y in enumerate(r, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    m = dp[-1][-1]
    if m == 0:
        return 0.0
    precision, recall = m / len(c), m / len(r)
    return 2 * precision * recall / (precision + recall)


def test_chapter_worked_example() -> None:
    scorer = Scorer(["rougeL"])
    a = scorer.score(REFERENCE, SUMMARY_A)["rougeL"]
    b = scorer.score(REFERENCE, SUMMARY_B)["rougeL"]
    assert (a.precision, a.recall) == (16 / 47, 16 / 55)
    assert (b.precision, b.recall) == (46 / 58, 46 / 55)
    assert round(a.fmeasure, 4) == 0.3137
    assert round(b.fmeasure, 4) == 0.8142
    assert a.fmeasure == chapter_rouge_l(SUMMARY_A, REFERENCE)
    assert b.fmeasure == chapter_rouge_l(SUMMARY_B, REFERENCE)
    # Newline-joined lines give the same whitespace tokens.
    wrapped = REFERENCE.replace(" replica", "\nreplica")
    assert scorer.score(wrapped, SUMMARY_A)["rougeL"] == a
    # The highlighted words are exactly the LCS in the P and R.
    view = alignment(REFERENCE, SUMMARY_A, "rougeL")
    assert len(view.candidate_hits) == len(view.reference_hits) == 16
    assert view.score == a
    assert (view.candidate_count, view.reference_count) == (47, 55)


# --- alignments for the diff view --------------------------------------------------------------


def rouge_score_lsum_hits(reference: str, candidate: str, tokenizer: str, stem: bool) -> list[int]:
    """rouge-score's own union LCS and clipped counting, as flat reference positions."""
    ref_sents = [tokenize(s, tokenizer, stem) for s in reference.split("\n") if s]
    can_sents = [tokenize(s, tokenizer, stem) for s in candidate.split("\n") if s]
    counts_r = Counter(t for s in ref_sents for t in s)
    counts_c = Counter(t for s in can_sents for t in s)
    hits, start = [], 0
    for sent in ref_sents:
        union = rouge_scorer._find_union([rouge_scorer.lcs_ind(sent, c) for c in can_sents])
        for i in union:
            token = sent[i]
            if counts_c[token] > 0 and counts_r[token] > 0:
                hits.append(start + i)
                counts_c[token] -= 1
                counts_r[token] -= 1
        start += len(sent)
    return hits


@settings(max_examples=150, deadline=None)
@given(texts(), texts())
def test_alignment_matches_what_is_counted(reference: str, candidate: str) -> None:
    for config in CONFIGS:
        tokenizer, stem = config
        expected = ORACLES[config].score(reference, candidate)
        ref_tokens = tokenize(reference, tokenizer, stem)
        can_tokens = tokenize(candidate, tokenizer, stem)
        for metric in METRICS:
            view = alignment(reference, candidate, metric, tokenizer, stem)
            assert tuple(view.score) == tuple(expected[metric])
            assert [t.text for t in view.reference] == ref_tokens
            assert [t.text for t in view.candidate] == can_tokens
            # Each matched word is highlighted once on each side.
            assert len(set(view.reference_hits)) == len(set(view.candidate_hits)) == view.matches
            for i, j in view.pairs:
                span = slice(i, i + view.span), slice(j, j + view.span)
                assert ref_tokens[span[0]] == can_tokens[span[1]]
            if metric == "rougeL":
                assert list(view.reference_hits) == rouge_scorer.lcs_ind(ref_tokens, can_tokens)
            if metric == "rougeLsum":
                assert list(view.reference_hits) == rouge_score_lsum_hits(
                    reference, candidate, tokenizer, stem
                )
                if "\n" not in reference + candidate:
                    # One sentence each: the hits are the LCS itself, on both sides.
                    lcs_view = alignment(reference, candidate, "rougeL", tokenizer, stem)
                    assert view.pairs == lcs_view.pairs
            if view.matches:
                assert view.score.precision == view.matches / view.candidate_count
                assert view.score.recall == view.matches / view.reference_count


def test_alignment_highlights_words_as_written() -> None:
    view = alignment("began at 02:14 UTC when", "Began: 02:14 UTC, then", "rougeL", "rouge-score")
    candidate = "Began: 02:14 UTC, then"
    highlighted = [
        candidate[view.candidate[j].start : view.candidate[j].end] for j in view.candidate_hits
    ]
    assert highlighted == ["Began", "02", "14", "UTC"]
    with pytest.raises(ValueError, match="unknown metric"):
        alignment("a", "a", "bleu")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=25), st.lists(st.sampled_from("abcd"), max_size=25)
)
def test_align_outputs_is_an_edit_script(a: list[str], b: list[str]) -> None:
    ops = align_outputs(a, b)
    # Replaying the ops reads both sequences in order, each item exactly once.
    assert [op[1] for op in ops if op[0] in ("equal", "delete")] == list(range(len(a)))
    assert [op[-1] for op in ops if op[0] in ("equal", "insert")] == list(range(len(b)))
    equal = [op for op in ops if op[0] == "equal"]
    assert all(a[i] == b[j] for _, i, j in equal)
    assert [i for _, i, _ in equal] == rouge_scorer.lcs_ind(a, b)


def test_align_outputs_by_hand() -> None:
    a = ["the", "pool", "was", "drained"]
    b = ["the", "pool", "was", "drained", "fully"]
    assert align_outputs(a, b) == [
        ("equal", 0, 0),
        ("equal", 1, 1),
        ("equal", 2, 2),
        ("equal", 3, 3),
        ("insert", 4),
    ]
    assert align_outputs(["x", "a"], ["a", "y"]) == [("delete", 0), ("equal", 1, 0), ("insert", 1)]
    assert align_outputs([], []) == []
