"""The paired test (SPEC "The comparison", "Paired test") against independent computations:
every sign vector enumerated, the normal interval restated, hand-worked values."""

from __future__ import annotations

import itertools
import json
import math
import statistics
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rouge_tui.analysis.paired import RESAMPLE_MAX, RESAMPLES, SEED, PairedTest, paired_test

Z = statistics.NormalDist().inv_cdf(0.975)


def enumerated_p(delta: list[float]) -> Fraction:
    """SPEC's two-sided sign-flip p restated: the share of all 2^n sign vectors (zeros
    included) whose |sum| reaches the observed |sum|, in exact arithmetic."""
    exact = [Fraction(d) for d in delta]
    scale = math.lcm(*(d.denominator for d in exact))
    whole = [int(d * scale) for d in exact]  # integers: exact and quick
    observed = abs(sum(whole))
    reached = sum(abs(sum(s * d for s, d in zip(signs, whole))) >= observed
                  for signs in itertools.product((1, -1), repeat=len(whole)))
    return Fraction(reached, 2 ** len(whole))


def normal_interval(delta: np.ndarray) -> tuple[float, float]:
    """The mean ± z · sample sd / sqrt(n): the limit a paired bootstrap interval approaches."""
    values = delta.tolist()
    half = Z * statistics.stdev(values) / math.sqrt(len(values))
    mean = statistics.fmean(values)
    return mean - half, mean + half


# Deltas on a 1/1024 grid: exact in every quantisation, so ties stay ties.
grid_deltas = st.lists(st.integers(-1024, 1024).map(lambda i: i / 1024), min_size=1, max_size=10)


def test_exact_p_on_a_hand_worked_example() -> None:
    # |+-0.25 +-0.5 +-0.125| over the 8 sign vectors: 0.875, 0.625 (observed), 0.375, 0.125,
    # each twice; 4 of 8 reach 0.625
    result = paired_test(np.array([0.25, 0.5, -0.125]))
    assert result.p_value == 0.5
    assert result.method == "paired bootstrap + sign-flip permutation (exact)"


@settings(max_examples=60, deadline=None)
@given(grid_deltas)
def test_exact_p_is_the_enumeration_of_every_sign_vector(delta: list[float]) -> None:
    assert paired_test(np.array(delta), resamples=50).p_value == float(enumerated_p(delta))


def test_exact_enumeration_covers_sixteen_non_zero_deltas_among_zeros() -> None:
    rng = np.random.default_rng(3)
    nonzero = (rng.integers(1, 400, 16) * rng.choice([-1, 1], 16) / 512).tolist()
    delta = np.array(nonzero + [0.0] * 1000)
    result = paired_test(delta, resamples=100)
    # the zeros double numerator and denominator alike: the 2^16 vectors of the rest decide
    assert result.p_value == float(enumerated_p(nonzero))
    assert "(exact)" in result.method


def test_monte_carlo_p_is_near_the_enumeration_of_every_sign_vector() -> None:
    rng = np.random.default_rng(7)
    whole = rng.integers(1, 100, 18) * rng.choice([-1, 1], 18, p=[0.4, 0.6])  # 18: past enumeration
    # all 2^18 sign vectors, as rows of bits of 0 .. 2^18 - 1, in integers
    signs = 1 - 2 * ((np.arange(2**18)[:, None] >> np.arange(18)) & 1)
    exact = np.count_nonzero(np.abs(signs @ np.abs(whole)) >= abs(whole.sum())) / 2**18
    result = paired_test(whole / 128)
    assert result.method == "paired bootstrap + sign-flip permutation (10,000 flips)"
    assert 0.01 < exact < 0.99  # a p where Monte Carlo error shows
    assert abs(result.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / RESAMPLES)


def test_bootstrap_interval_approaches_the_normal_interval() -> None:
    delta = np.clip(np.random.default_rng(11).normal(0.02, 0.1, RESAMPLE_MAX), -1, 1)
    low, high = paired_test(delta).interval
    standard_error = statistics.stdev(delta.tolist()) / math.sqrt(len(delta))
    # Monte Carlo error of a 2.5% quantile over 10,000 resamples: about 0.03 standard errors
    for got, want in zip((low, high), normal_interval(delta)):
        assert abs(got - want) < 0.15 * standard_error


def test_bootstrap_of_few_changes_among_many_zeros_resamples_all_examples() -> None:
    # 2,000 changed of 100,000: each resample of all 100,000 draws Binomial many of the
    # changed; drawing exactly 2,000 of them would give a standard error about 11% too small
    rng = np.random.default_rng(5)
    delta = np.zeros(100_000)
    delta[rng.choice(100_000, 2_000, replace=False)] = np.clip(rng.normal(0.05, 0.1, 2_000), -1, 1)
    low, high = paired_test(delta).interval
    standard_error = statistics.stdev(delta.tolist()) / math.sqrt(len(delta))
    for got, want in zip((low, high), normal_interval(delta)):
        assert abs(got - want) < 0.15 * standard_error


def test_past_the_bound_both_statistics_take_their_normal_limits() -> None:
    delta = np.clip(np.random.default_rng(13).normal(0.001, 0.1, 20_000), -1, 1)
    result = paired_test(delta)
    assert result.method.startswith("normal limits")
    assert result.interval == pytest.approx(normal_interval(delta), abs=1e-7)
    # the flips' sum is normal(0, sum of squares) in the limit: two-sided tail of the observed
    z = abs(math.fsum(delta.tolist())) / math.sqrt(math.fsum((delta * delta).tolist()))
    assert 0.001 < 2 * (1 - statistics.NormalDist().cdf(z)) < 0.999
    assert result.p_value == pytest.approx(2 * (1 - statistics.NormalDist().cdf(z)), rel=1e-9)


def test_a_clear_shift_has_the_smallest_p_and_symmetric_data_p_one() -> None:
    shifted = np.clip(np.random.default_rng(17).normal(0.05, 0.02, 200), 0.001, 1)
    # every delta positive: only the one all-plus flip in 2^200 reaches the observed sum
    assert paired_test(shifted).p_value == 1 / (1 + RESAMPLES)
    for half in ([0.1, 0.3, 0.05], np.random.default_rng(19).uniform(0, 1, 100).tolist()):
        symmetric = np.array(half + [-x for x in half])  # observed sum 0: every flip reaches it
        assert paired_test(symmetric).p_value == 1.0


def test_the_smallest_detectable_delta_is_2_8_standard_errors() -> None:
    # deltas 0.1, 0.2, 0.3: sample sd 0.1
    result = paired_test(np.array([0.1, 0.2, 0.3]))
    assert result.min_detectable == pytest.approx(2.8 * 0.1 / math.sqrt(3), rel=1e-12)


def test_one_example_and_all_zeros_are_sane_and_none_is_an_error() -> None:
    one = paired_test(np.array([-0.3]))
    assert (one.interval, one.p_value, one.min_detectable) == ((-0.3, -0.3), 1.0, 0.0)
    zeros = paired_test(np.zeros(50))
    assert (zeros.interval, zeros.p_value, zeros.min_detectable) == ((0.0, 0.0), 1.0, 0.0)
    with pytest.raises(ValueError):
        paired_test(np.array([]))
    with pytest.raises(ValueError):
        paired_test(np.array([0.1, math.nan]))


def test_same_inputs_same_bytes_and_the_seed_is_said() -> None:
    delta = np.round(np.random.default_rng(23).normal(0.01, 0.1, 300), 4)
    first, again = (json.dumps(paired_test(delta, seed=7).to_json()) for _ in range(2))
    assert first == again
    assert json.loads(first)["seed"] == 7
    assert paired_test(delta, seed=8).interval != paired_test(delta, seed=7).interval
    assert paired_test(delta).seed == SEED


@pytest.mark.parametrize("changed", [10, 500])
def test_zeros_present_or_removed_give_the_same_p(changed: int) -> None:
    rng = np.random.default_rng(29)
    nonzero = np.round(rng.normal(0.01, 0.1, changed), 4)
    nonzero[nonzero == 0] = 0.5
    delta = np.zeros(changed * 20)
    delta[np.sort(rng.choice(len(delta), changed, replace=False))] = nonzero
    assert paired_test(delta, seed=3).p_value == paired_test(nonzero, seed=3).p_value


def test_to_json_is_spec_delta_test() -> None:
    data = PairedTest("m", 1, 2, (0.25, 0.5), 0.125, 0.0625).to_json()
    assert data == {"method": "m", "seed": 1, "resamples": 2, "interval": [0.25, 0.5], "p_value": 0.125,
                    "min_detectable": 0.0625}


finite_deltas = st.lists(st.floats(-1, 1, allow_nan=False, allow_subnormal=True), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(finite_deltas, st.integers(0, 2**32))
def test_interval_lies_within_the_deltas_and_negation_mirrors_it(delta: list[float], seed: int) -> None:
    values = np.array(delta)
    result = paired_test(values, seed=seed, resamples=200)
    low, high = result.interval
    assert min(delta) <= low <= high <= max(delta)
    assert 0 < result.p_value <= 1
    # every resample's sum negates exactly, so the same seed mirrors the interval, same p
    mirrored = paired_test(-values, seed=seed, resamples=200)
    assert mirrored.interval == (-high, -low)
    assert mirrored.p_value == result.p_value


def test_memory_stays_small_while_resampling() -> None:
    delta = np.clip(np.random.default_rng(31).normal(0.01, 0.1, RESAMPLE_MAX), -1, 1)
    tracemalloc.start()
    paired_test(delta)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # all 10,000 resamples' draws held at once would be over 160 MB
    assert peak < 64e6
