"""The comparison against values worked out by hand from SPEC's definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rouge_tui import compare as cmp


def _compare(base, cand, ids=None, k=2.0, base_out=None, cand_out=None):
    base = np.atleast_2d(np.array(base, dtype=float))
    cand = np.atleast_2d(np.array(cand, dtype=float))
    n = base.shape[1]
    ids = ids or [f"e{i}" for i in range(n)]
    return cmp.compare(
        metric="rougeL", tokenizer="whitespace", stem=False, k=k,
        baseline_name="b", candidate_name="c", ids=ids,
        baseline_scores=base, candidate_scores=cand,
        baseline_outputs=base_out or ["same words here"] * n,
        candidate_outputs=cand_out or ["same words here"] * n,
    )


def test_one_run_band_is_k_standard_errors():
    # base F = 0.2, 0.4, 0.6: mean 0.4, sample sd 0.2, SE 0.2/sqrt(3) = 0.115470...
    c = _compare([0.2, 0.4, 0.6], [0.1, 0.4, 0.4])
    assert c.baseline.mean == pytest.approx(0.4, abs=1e-15)
    assert c.baseline.band_source == "analytic"
    half = 2 * 0.2 / math.sqrt(3)  # 0.23094
    assert c.baseline.band[0] == pytest.approx(0.4 - half, abs=1e-12)
    assert c.baseline.band[1] == pytest.approx(0.4 + half, abs=1e-12)
    assert round(c.baseline.band[0], 5) == 0.16906
    # candidate mean 0.3 lies inside [0.169, 0.631]
    assert c.candidate.mean == pytest.approx(0.3, abs=1e-15)
    assert c.verdict == "within-band"


def test_delta_interval_is_paired_normal_95():
    # deltas -0.1, 0, -0.2: mean -0.1, sd 0.1, half = 1.959964 * 0.1 / sqrt(3) = 0.1131586
    c = _compare([0.2, 0.4, 0.6], [0.1, 0.4, 0.4])
    assert c.delta_mean == pytest.approx(-0.1, abs=1e-15)
    assert round(c.delta_interval[0], 6) == -0.213159
    assert round(c.delta_interval[1], 6) == 0.013159
    assert c.delta_interval_method == "analytic"


def test_replicate_band_uses_sd_of_run_means():
    # run means 0.6, 0.5, 0.7 -> mean 0.6, sd 0.1, k=2 -> [0.4, 0.8]
    base = [[0.5, 0.7], [0.4, 0.6], [0.6, 0.8]]
    cand = [[0.1, 0.2], [0.1, 0.2], [0.1, 0.2]]
    c = _compare(base, cand)
    assert c.baseline.runs == 3 and c.baseline.n == 2
    assert c.baseline.band_source == "replicates"
    assert c.baseline.band[0] == pytest.approx(0.4, abs=1e-12)
    assert c.baseline.band[1] == pytest.approx(0.8, abs=1e-12)
    # candidate runs are identical: zero spread, band collapses onto its mean 0.15
    assert c.candidate.band == pytest.approx((0.15, 0.15), abs=1e-12)
    assert c.verdict == "drift-down"
    # per-example score is the mean over runs: e0 0.5 -> 0.1, e1 0.7 -> 0.2
    assert sorted(c.baseline_f.tolist()) == pytest.approx([0.5, 0.7])


def test_verdict_up_and_down_follow_the_baseline_band():
    base = [0.5, 0.5, 0.5, 0.6]
    # baseline mean 0.525, sd 0.05, se 0.025, band k=2 -> [0.475, 0.575]
    assert _compare(base, [0.6, 0.6, 0.6, 0.6]).verdict == "drift-up"
    assert _compare(base, [0.4, 0.4, 0.5, 0.5]).verdict == "drift-down"
    assert _compare(base, [0.5, 0.5, 0.5, 0.6]).verdict == "within-band"
    # a wider band (k = 4 -> [0.425, 0.625]) swallows the same move up
    assert _compare(base, [0.6, 0.6, 0.6, 0.6], k=4).verdict == "within-band"


def test_ranking_by_absolute_delta_ties_by_id():
    ids = ["b", "a", "d", "c", "e"]
    base = [0.5, 0.5, 0.5, 0.5, 0.5]
    cand = [0.7, 0.3, 0.5, 0.8, 0.2]  # |delta| 0.2, 0.2, 0, 0.3, 0.3
    c = _compare(base, cand, ids=ids)
    assert c.ids == ["c", "e", "a", "b", "d"]
    assert c.delta.tolist() == pytest.approx([0.3, -0.3, -0.2, 0.2, 0.0])
    # the other sort orders, as row indices into the ranked arrays
    regress = [c.ids[i] for i in c.order("regressions")]
    assert regress[:2] == ["e", "a"]
    improve = [c.ids[i] for i in c.order("improvements")]
    assert improve[:2] == ["c", "b"]
    assert [c.ids[i] for i in c.order("id")] == ["a", "b", "c", "d", "e"]


def test_same_inputs_same_bytes():
    rng = np.random.default_rng(7)
    base = rng.random(500)
    cand = rng.random(500)
    one = _compare(base, cand)
    two = _compare(base[::-1][::-1].copy(), cand.copy())
    assert one.ids == two.ids
    assert one.delta.tobytes() == two.delta.tobytes()
    assert (one.baseline.band, one.delta_interval) == (two.baseline.band, two.delta_interval)


def test_means_are_exactly_rounded():
    # 0.1 ten times: naive left-to-right float sum gives 0.9999999999999999
    assert cmp.fmean([0.1] * 10) == 0.1
    assert cmp.sample_sd([1.0]) == 0.0


@pytest.mark.parametrize(
    "baseline, candidate, expected",
    [
        ("one two three four five six", "", {"empty"}),
        ("one two three four five six seven eight", "one two three", {"truncated", "shorter"}),
        ("alpha beta gamma delta epsilon zeta eta theta iota kappa", "alpha beta gamma delta epsilon zeta eta theta", {"truncated"}),
        ("Summary:\nthe pool shrank", "Summary:\nSummary:\nthe pool shrank", {"duplicated"}),
        ("a b c d e f g h i j", "a b c d e f g h i j k l m n o", {"longer"}),
        ("a b c d e f g h i j", "a b c d e f g h i x", set()),
        ("", "", set()),
    ],
)
def test_change_signals(baseline, candidate, expected):
    flags = cmp.change_signals(baseline, candidate)
    names = {name for flag, name in cmp.SIGNAL_NAMES.items() if flags & flag}
    assert names == expected


def test_signal_counts():
    c = _compare(
        [0.5, 0.5, 0.5], [0.1, 0.5, 0.5],
        base_out=["x y z", "a\nb", "p q r s t u v w"],
        cand_out=["", "a\na\nb", "p q r"],
    )
    counts = c.signal_counts()
    assert counts["empty"] == 1 and counts["duplicated"] == 1 and counts["truncated"] == 1


def test_no_pairs_is_an_error():
    with pytest.raises(ValueError):
        _compare(np.zeros((1, 0)), np.zeros((1, 0)), ids=[])


# --- the change signals of a whole suite at once ---------------------------------------------


def test_whitespace_is_exactly_what_split_splits_on():
    """Every code point, against Python's own str.isspace (which split and strip use)."""
    every = "".join(map(chr, range(0x110000)))
    assert cmp.WHITESPACE == "".join(c for c in every if c.isspace())


# Words, every kind of whitespace, non-ASCII letters, a lone surrogate and line breaks.
pieces = st.sampled_from(
    ["a", "bb", "é", "\u00e9t\u00e9", "x\u3000", "\x1f", "\x1c", " ", "\t", "\n", "\r\n",
     "\u2028", "\xa0", "\x85", "\ud800", "ab cd", "Summary:", "\n\n", "  "]
)
texts = st.lists(pieces, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(texts, max_size=12), st.sampled_from([1, 3, 8, 1 << 22]))
def test_word_counts_and_stripped_lengths_equal_split_and_rstrip(items, chunk):
    original = cmp._CHUNK_CHARS
    cmp._CHUNK_CHARS = chunk  # chunk edges inside and between texts
    try:
        words, stripped = cmp._shapes(items)
    finally:
        cmp._CHUNK_CHARS = original
    assert words.tolist() == [len(t.split()) for t in items]
    assert stripped.tolist() == [len(t.rstrip()) for t in items]


def spec_signals(base: str, cand: str) -> set[str]:
    """SPEC's change signals written out afresh from their definitions."""
    if not cand.strip():
        return {"empty"} if base.strip() else set()
    names = set()
    bw, cw = len(base.split()), len(cand.split())
    if len(cand.rstrip()) < len(base.rstrip()) and (
        cw <= 0.5 * bw or base.rstrip().startswith(cand.rstrip())
    ):
        names.add("truncated")

    def dup(text):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return len(set(lines)) < len(lines)

    if dup(cand) and not dup(base):
        names.add("duplicated")
    shift = cw - bw
    if abs(shift) >= 5 and abs(shift) >= 0.25 * max(bw, 1):
        names.add("longer" if shift > 0 else "shorter")
    return names


base_texts = st.lists(
    st.sampled_from(["the pool", "shrank", "Summary:", "a b c d e f", "\n", " ", "é"]), max_size=10
).map(" ".join)


@st.composite
def pairs(draw):
    base = draw(base_texts)
    how = draw(st.sampled_from(["cut", "dup", "grow", "blank", "other"]))
    if how == "cut":
        cand = base[: draw(st.integers(0, len(base)))]
    elif how == "dup":
        line = draw(st.sampled_from(["Summary:", "the pool", " x "]))
        cand = f"{line}\n{base}\n{line}"
    elif how == "grow":
        cand = base + " w" * draw(st.integers(0, 12))
    elif how == "blank":
        cand = draw(st.sampled_from(["", " ", "\n\t"]))
    else:
        cand = draw(base_texts)
    return base, cand


@settings(max_examples=400, deadline=None)
@given(st.lists(pairs(), max_size=10))
def test_all_change_signals_follow_the_definitions(items):
    flags = cmp.all_change_signals([b for b, _ in items], [c for _, c in items])
    assert flags.dtype == np.uint8
    got = [{name for flag, name in cmp.SIGNAL_NAMES.items() if f & flag} for f in flags.tolist()]
    assert got == [spec_signals(b, c) for b, c in items]
    assert [cmp.change_signals(b, c) for b, c in items] == flags.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(max_size=4), st.sampled_from([0.0, 0.25, -0.25, 0.5, -1.0, 1e-17])),
        unique_by=lambda pair: pair[0],
        max_size=300,
    ),
    st.booleans(),
)
def test_rank_orders_by_magnitude_then_id_whatever_the_id_order(pairs, in_id_order):
    # Files usually list ids in increasing order (a shortcut takes those), not always.
    if in_id_order:
        pairs = sorted(pairs)
    ids = [key for key, _ in pairs]
    delta = np.array([value for _, value in pairs], dtype=np.float64)
    expected = sorted(range(len(ids)), key=lambda i: (-abs(delta[i]), ids[i]))
    assert cmp.rank(ids, delta).tolist() == expected
