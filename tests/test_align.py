"""Which words count: the alignment against rouge-score 0.1.2's own functions, and the
highlighted words equal to the counts in the arithmetic."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import chapter_lcs, plain_words
from rouge_score import rouge_scorer

from rouge_tui.rouge.align import lcs_pairs, match_lcs, match_ngrams, match_summary


@settings(max_examples=500, deadline=None)
@given(plain_words, plain_words)
def test_lcs_pairs_are_rouge_scores_traceback(ref: list[str], can: list[str]) -> None:
    table = rouge_scorer._lcs_table(ref, can)
    expected = rouge_scorer._backtrack_norec(table, ref, can)
    pairs = lcs_pairs(ref, can)
    assert [i for i, _ in pairs] == expected
    assert len(pairs) == chapter_lcs(ref, can)
    assert all(ref[i] == can[j] for i, j in pairs)
    assert [j for _, j in pairs] == sorted(j for _, j in pairs)


def test_lcs_hand_worked() -> None:
    # The chapter's fragment: "pushes that reduce pool size below two" against
    # "pushes that shrink the pool below two members": pushes, that, pool, below, two.
    ref = ["pushes", "that", "reduce", "pool", "size", "below", "two"]
    can = ["pushes", "that", "shrink", "the", "pool", "below", "two", "members"]
    assert [ref[i] for i, _ in lcs_pairs(ref, can)] == ["pushes", "that", "pool", "below", "two"]
    assert lcs_pairs([], ["a"]) == [] and lcs_pairs(["a"], []) == []


@settings(max_examples=300, deadline=None)
@given(plain_words, plain_words)
def test_rougeL_highlights_are_the_lcs(ref: list[str], can: list[str]) -> None:
    match = match_lcs(ref, can)
    assert match.matches == len(match.candidate_on) == len(match.reference_on)
    expected = rouge_scorer._score_lcs(ref, can)
    assert (match.precision, match.recall, match.fmeasure) == tuple(expected)


@settings(max_examples=300, deadline=None)
@given(plain_words, plain_words, st.sampled_from([1, 2]))
def test_rouge_n_counts_and_highlights(ref: list[str], can: list[str], n: int) -> None:
    match = match_ngrams(ref, can, n)
    expected = rouge_scorer._score_ngrams(rouge_scorer._create_ngrams(ref, n), rouge_scorer._create_ngrams(can, n))
    assert (match.precision, match.recall, match.fmeasure) == tuple(expected)
    if n == 1:
        assert len(match.candidate_on) == len(match.reference_on) == match.matches
        assert Counter(can[j] for j in match.candidate_on) == Counter(ref[i] for i in match.reference_on)


sentences = st.lists(st.lists(st.sampled_from(list("abcde")), max_size=8), max_size=5)


@settings(max_examples=400, deadline=None)
@given(sentences, sentences)
def test_rougeLsum_hits_are_rouge_scores_and_highlighted_once_each(ref, can) -> None:
    match = match_summary(ref, can)
    expected = rouge_scorer._summary_level_lcs(ref, can)
    assert (match.precision, match.recall, match.fmeasure) == tuple(expected)
    assert len(match.candidate_on) == len(match.reference_on) == match.matches
    flat_ref = [t for s in ref for t in s]
    flat_can = [t for s in can for t in s]
    assert Counter(flat_can[j] for j in match.candidate_on) == Counter(flat_ref[i] for i in match.reference_on)
