"""The comparison's arithmetic against hand-worked values (SPEC "The comparison")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rouge_tui.analysis import compare
from rouge_tui.analysis.compare import (
    VERDICTS,
    BuildStats,
    build_stats,
    delta_interval,
    fmean,
    rank,
    sample_sd,
    verdict,
)


def test_one_run_band_is_k_standard_errors() -> None:
    # scores 0.2, 0.4, 0.6: mean 0.4, sample sd 0.2, standard error 0.2 / sqrt(3)
    stats = build_stats("b", np.array([[0.2, 0.4, 0.6]]), k=2.0)
    half = 2.0 * 0.2 / math.sqrt(3)
    assert stats.mean == pytest.approx(0.4, abs=1e-15)
    assert stats.band == pytest.approx((0.4 - half, 0.4 + half), abs=1e-15)
    assert (stats.runs, stats.n, stats.band_source) == (1, 3, "analytic")


def test_replicate_runs_band_is_k_sd_of_the_run_means() -> None:
    # run means 0.3, 0.5, 0.4 -> mean 0.4, sample sd 0.1; an example's score is its mean over runs
    scores = np.array([[0.2, 0.4], [0.4, 0.6], [0.3, 0.5]])
    stats = build_stats("b", scores, k=1.5)
    assert stats.run_means == pytest.approx((0.3, 0.5, 0.4))
    assert stats.mean == pytest.approx(0.4)
    assert stats.band == pytest.approx((0.4 - 0.15, 0.4 + 0.15))
    assert stats.band_source == "replicates"


def band(low: float, high: float) -> BuildStats:
    return BuildStats("b", 1, 10, (low + high) / 2, (low, high), "analytic", ())


def test_verdict_outside_the_band_in_either_direction() -> None:
    assert verdict(band(0.4, 0.5), 0.39, -0.06) == "drift-down"
    assert verdict(band(0.4, 0.5), 0.51, 0.06) == "drift-up"
    assert verdict(band(0.4, 0.5), 0.40, -0.05) == "within-band"  # on the edge is inside


def test_the_verdicts_are_specs_and_read_without_colour() -> None:
    """SPEC "Verdict": the JSON's names; the app's and reports' words (``within band``) and
    a symbol for each direction, as SPEC "16 colours and NO_COLOR" asks."""
    assert [(v.name, v.words, v.symbol) for v in VERDICTS.values()] == [
        ("drift-down", "drift-down", "▼"), ("drift-up", "drift-up", "▲"), ("within-band", "within band", "●")]
    assert [v.said for v in VERDICTS.values()] == ["▼ drift-down", "▲ drift-up", "● within band"]


def test_min_delta_keeps_a_tiny_move_past_a_zero_width_band_within() -> None:
    zero = band(0.5, 0.5)
    assert verdict(zero, 0.5 + 3.3e-7, 3.3e-7) == "drift-up"
    assert verdict(zero, 0.5 + 3.3e-7, 3.3e-7, min_delta=1e-3) == "within-band"
    assert verdict(zero, 0.49, -0.01, min_delta=1e-3) == "drift-down"


def test_delta_interval_is_the_normal_approximation() -> None:
    delta = np.array([0.1, -0.1, 0.3, 0.1])  # mean 0.1, sample sd sqrt(0.08/3)
    half = 1.959963984540054 * math.sqrt(0.08 / 3) / 2
    low, high = delta_interval(delta)
    assert (low, high) == pytest.approx((0.1 - half, 0.1 + half))


def test_ranking_by_size_of_delta_then_id() -> None:
    ids = ["d", "a", "c", "b", "e"]
    delta = np.array([0.1, -0.3, 0.3, 0.0, -0.1])
    assert [ids[i] for i in rank(ids, delta)] == ["a", "c", "d", "e", "b"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=4), st.sampled_from([0.0, 0.1, -0.1, 0.25, -0.5])), min_size=1, max_size=30, unique_by=lambda t: t[0]))
def test_ranking_is_sorted_by_the_rule(rows) -> None:
    ids = [i for i, _ in rows]
    delta = np.array([d for _, d in rows])
    expected = sorted(range(len(ids)), key=lambda i: (-abs(delta[i]), ids[i]))
    assert rank(ids, delta).tolist() == expected


def test_means_do_not_depend_on_order() -> None:
    values = [0.1] * 10 + [1e-17] * 1000
    assert fmean(values) == fmean(list(reversed(values)))
    assert sample_sd([0.5]) == 0.0
    assert math.isnan(fmean([]))


@pytest.mark.parametrize("block", [1, 3, 7, 1 << 18])
def test_fsum_is_the_exactly_rounded_sum_however_the_array_is_read(monkeypatch, block):
    from fractions import Fraction

    monkeypatch.setattr(compare, "_BLOCK", block)
    rng = np.random.default_rng(7)
    # Terms of very different sizes that cancel: a plain float sum gets them wrong.
    values = np.concatenate([rng.normal(0, 1, 50) * 10.0 ** rng.integers(-20, 20, 50), [1e100, 1.0, -1e100]])
    exact = float(sum(map(Fraction, values.tolist()), Fraction(0)))
    assert compare.fsum(values) == exact
    assert compare.fmean(values) == exact / len(values)
    assert compare.fsum(np.array([])) == 0.0
