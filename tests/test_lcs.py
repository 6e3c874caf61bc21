"""Bit-parallel LCS against the chapter's table and rouge-score's traceback."""

from __future__ import annotations

import itertools
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score.rouge_scorer import _backtrack_norec, _lcs_table

from rouge_tui.metrics.lcs import (
    Packed,
    lcs_indices,
    lcs_length,
    lcs_length_ids,
    lcs_pairs,
    rows_for,
    traceback,
)

LCS_MODULE = sys.modules["rouge_tui.metrics.lcs"]


def chapter_lcs(a: list[str], b: list[str]) -> int:
    """The chapter's textbook dynamic program, verbatim."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


def rouge_score_indices(ref: list, can: list) -> list[int]:
    return _backtrack_norec(_lcs_table(ref, can), ref, can)


# Small alphabets make equal tokens and tied table values common, which is where a
# traceback can pick a different LCS of the same length.
tiny = st.lists(st.sampled_from("ab"), max_size=14)
small = st.lists(st.sampled_from("abcd"), max_size=30)
words = st.lists(st.sampled_from(["the", "pool", "push", "the", "of", "UTC", "x"]), max_size=60)
sequences = st.one_of(tiny, small, words)


@settings(max_examples=400, deadline=None)
@given(sequences, sequences)
def test_length_equals_the_chapter_dp(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == chapter_lcs(a, b)
    assert lcs_length(b, a) == chapter_lcs(a, b)


# Lengths across the 64-token machine words of rapidfuzz's pass, with many repeats.
id_lists = st.lists(st.integers(0, 5), max_size=200)


@settings(max_examples=300, deadline=None)
@given(id_lists, id_lists)
def test_id_length_equals_the_chapter_dp(a: list[int], b: list[int]) -> None:
    assert lcs_length_ids(a, b) == chapter_lcs(a, b)
    assert lcs_length_ids(tuple(b), tuple(a)) == chapter_lcs(a, b)


def test_length_interns_tokens_whose_hashes_collide() -> None:
    """rapidfuzz compares hashes: 2**61 - 1 and 0 hash alike, and -1 and -2 too. Tokens
    are interned to small ids first, so only equal tokens ever match."""
    assert hash(2**61 - 1) == hash(0) and hash(-1) == hash(-2)
    assert lcs_length([2**61 - 1, -1, 5], [0, -2, 5]) == 1
    assert lcs_length([2**61 - 1, 0], [0, 2**61 - 1, 0]) == 2


def test_id_length_at_word_edges() -> None:
    """Hand-worked: all-equal runs give the shorter length; a reversed permutation, 1."""
    for n in (63, 64, 65, 127, 128, 129):
        assert lcs_length_ids([1] * n, [1] * (n + 7)) == n
        assert lcs_length_ids(list(range(n)), list(range(n - 1, -1, -1))) == 1
        assert lcs_length_ids(list(range(n)), list(range(n))[::2]) == (n + 1) // 2


@settings(max_examples=400, deadline=None)
@given(sequences, sequences)
def test_indices_equal_rouge_scores_traceback(ref: list[str], can: list[str]) -> None:
    expected = rouge_score_indices(ref, can)
    assert lcs_indices(ref, can) == expected
    pairs = lcs_pairs(ref, can)
    assert [i for i, _ in pairs] == expected
    # The candidate side is a strictly increasing match of the same tokens.
    assert all(ref[i] == can[j] for i, j in pairs)
    assert all(j1 < j2 for (_, j1), (_, j2) in itertools.pairwise(pairs))
    assert len(pairs) == chapter_lcs(ref, can)


@settings(max_examples=200, deadline=None)
@given(sequences, sequences)
def test_checkpointed_rows_give_the_same_traceback(ref: list[str], can: list[str]) -> None:
    # Force the long-input path that keeps only every k-th row.
    original = LCS_MODULE._ROW_BITS_LIMIT
    LCS_MODULE._ROW_BITS_LIMIT = 1
    try:
        assert lcs_indices(ref, can) == rouge_score_indices(ref, can)
    finally:
        LCS_MODULE._ROW_BITS_LIMIT = original


@settings(max_examples=150, deadline=None)
@given(st.lists(small, max_size=4), st.lists(small, max_size=4), st.booleans())
def test_packed_passes_trace_every_sentence_pair(
    references: list[list[str]], candidates: list[list[str]], checkpointed: bool
) -> None:
    """Several sequences share one integer; each pair must trace as if alone."""
    original = LCS_MODULE._ROW_BITS_LIMIT
    if checkpointed:
        LCS_MODULE._ROW_BITS_LIMIT = 1
    try:
        ref_packed, can_packed = Packed(references), Packed(candidates)
        ref_rows = [rows_for(ref_packed.masks, ref_packed.keep, c, True) for c in candidates]
        for k, ref in enumerate(references):
            can_rows = rows_for(can_packed.masks, can_packed.keep, ref, True)
            for s, can in enumerate(candidates):
                pairs = traceback(
                    ref,
                    can,
                    ref_rows[s],
                    can_rows,
                    ref_packed.masks,
                    can_packed.masks,
                    ref_packed.offsets[k],
                    can_packed.offsets[s],
                )
                assert [i for i, _ in pairs] == rouge_score_indices(ref, can)
    finally:
        LCS_MODULE._ROW_BITS_LIMIT = original


@pytest.mark.parametrize("seed", range(3))
def test_long_random_texts(seed: int) -> None:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(40)]
    ref = [rng.choice(vocab) for _ in range(300)]
    can = [t if rng.random() < 0.8 else rng.choice(vocab) for t in ref if rng.random() < 0.9]
    assert lcs_indices(ref, can) == rouge_score_indices(ref, can)
    assert lcs_length(ref, can) == chapter_lcs(ref, can)


def test_hand_worked_examples() -> None:
    # The chapter's fragment: pushes, that, pool, below, two.
    ref = ["pushes", "that", "reduce", "pool", "size", "below", "two"]
    can = ["pushes", "that", "shrink", "the", "pool", "below", "two", "members"]
    assert lcs_length(ref, can) == 5
    assert lcs_indices(ref, can) == [0, 1, 3, 5, 6]
    # "below two pool": only "below two" keeps its order.
    assert lcs_length(["pool", "size", "below", "two"], ["below", "two", "pool"]) == 2
    assert lcs_length([], ["a"]) == 0
    assert lcs_pairs(["a"], []) == []
    # Tie rule: with ref "a b" and can "b a" both single tokens are LCSs; rouge-score
    # goes up when left is not strictly better, so it keeps ref's "a" (index 0).
    assert rouge_score_indices(["a", "b"], ["b", "a"]) == [0]
    assert lcs_indices(["a", "b"], ["b", "a"]) == [0]
    assert lcs_pairs(["a", "b"], ["b", "a"]) == [(0, 1)]
