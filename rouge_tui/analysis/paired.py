"""The paired test beside the verdict (SPEC "The comparison", "Paired test"): a paired bootstrap
95% interval of the mean delta and a two-sided sign-flip permutation p-value, both seeded,
with the smallest delta the suite can detect. Pure functions of the delta array.

Same bytes on every machine: the deltas are quantised exactly to integers, multiples of 2^-b
with b the largest that keeps twice any sum of n of them within int64 (b = 41 at a million
examples; deltas lie in [-1, 1], and two closer than 2^-b count as equal); only integers are
summed; the interval's ends are order statistics of exact integer sums; the random streams
are numpy's ``PCG64`` seeded from ``seed``, one for the bootstrap and one for the flips, so
the p-value is the same with or without the zeros. (Two steps lean on the C library's
``log``/``exp``/``erfc``: numpy's binomial draws and the normal limit's p-value.)

Only the non-zero deltas cost anything (a nightly build leaves most outputs unchanged):

- a bootstrap resample of all n examples takes Binomial(n, k/n) of the k non-zero deltas, then
  that many uniformly among them: exactly the distribution of resampling all n;
- a zero delta flips to itself, so the sign-flip test runs on the k non-zero deltas (exact
  enumeration of all 2^k sign vectors when k <= ``EXACT_MAX``, which covers SPEC's n <= 16).

The bound: resampling takes about k x 10,000 random draws per statistic (10^10 when a
million deltas are all non-zero). Above ``RESAMPLE_MAX`` non-zero deltas both statistics take
the normal limit of their own resampling distribution, with its exact mean and variance: the
bootstrap's is normal(mean, population sd / sqrt(n)), the flips' is normal(0, sum of squared
deltas). With that many terms the difference is within the Monte Carlo error of 10,000
resamples unless a few deltas dwarf all the others; ``method`` says which was used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rouge_tui.analysis.compare import Z95, fsum, sample_sd

__all__ = ["EXACT_MAX", "RESAMPLES", "RESAMPLE_MAX", "SEED", "PairedTest", "paired_test"]

SEED = 0
RESAMPLES = 10_000
EXACT_MAX = 16  # non-zero deltas up to which all 2^k sign vectors are enumerated
RESAMPLE_MAX = 2_048  # non-zero deltas above which both statistics take their normal limit
DETECTABLE_SE = 2.8  # standard errors: a two-sided 5% test with 80% power
CHUNK = 1 << 20  # random draws held at once (each a few int64 arrays): memory stays small
TAIL_PER_MILLE = 25  # each tail of the 95% interval


@dataclass(frozen=True)
class PairedTest:
    """The paired test of the mean delta, as SPEC's ``delta_test``."""

    method: str
    seed: int
    resamples: int
    interval: tuple[float, float]
    p_value: float
    min_detectable: float

    def to_json(self) -> dict:
        return {
            "method": self.method,
            "seed": self.seed,
            "resamples": self.resamples,
            "interval": list(self.interval),
            "p_value": self.p_value,
            "min_detectable": self.min_detectable,
        }


def paired_test(delta: np.ndarray, seed: int = SEED, resamples: int = RESAMPLES) -> PairedTest:
    """The paired bootstrap interval and sign-flip p-value of ``delta`` (candidate minus
    baseline per paired example, each in [-1, 1]), seeded by ``seed``."""
    delta = np.asarray(delta, dtype=np.float64)
    n = len(delta)
    if n == 0:
        raise ValueError("the paired test needs at least one paired example")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not np.all(np.abs(delta) <= 1.0):  # also catches NaN
        raise ValueError("a paired delta lies outside [-1, 1] or is not a number")
    nonzero = delta[delta != 0.0]
    k = len(nonzero)
    low, high = float(delta.min()), float(delta.max())
    sd = sample_sd(delta)
    min_detectable = DETECTABLE_SE * sd / math.sqrt(n)
    boot_stream, flip_stream = (np.random.Generator(np.random.PCG64(s)) for s in np.random.SeedSequence(seed).spawn(2))

    if k > RESAMPLE_MAX:
        interval, p_value = _normal_limits(fsum(nonzero) / n, sd, n)
        method = f"normal limits of paired bootstrap + sign-flip (over {RESAMPLE_MAX:,} non-zero deltas)"
    else:
        bits = 61 - n.bit_length()  # twice a sum of n quantised deltas fits in int64
        quantised = np.rint(nonzero * float(1 << bits)).astype(np.int64)
        sums = np.sort(_bootstrap_sums(quantised, n, resamples, boot_stream))
        tail = -(-resamples * TAIL_PER_MILLE // 1000)
        scale = n << bits
        interval = (int(sums[tail - 1]) / scale, int(sums[resamples - tail]) / scale)
        if k <= EXACT_MAX:
            p_value = _exact_p(quantised)
            flips = "exact"
        else:
            p_value = _monte_carlo_p(quantised, resamples, flip_stream)
            flips = f"{resamples:,} flips"
        method = f"paired bootstrap + sign-flip permutation ({flips})"
    # Every resample's mean lies within the deltas' range; quantising must not move it out.
    interval = tuple(min(max(end, low), high) for end in interval)
    return PairedTest(method, seed, resamples, interval, p_value, min_detectable)


def _bootstrap_sums(quantised: np.ndarray, n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Each resample's sum: Binomial(n, k/n) draws land on the k non-zero deltas, uniformly."""
    k = len(quantised)
    if k == 0:
        return np.zeros(resamples, dtype=np.int64)
    hits = rng.binomial(n, k / n, size=resamples)
    sums = np.empty(resamples, dtype=np.int64)
    rows = max(1, CHUNK // k)  # a row draws about k
    for start in range(0, resamples, rows):
        counts = hits[start:start + rows]
        drawn = quantised[rng.integers(0, k, size=int(counts.sum()), dtype=np.uint32)]
        starts = np.cumsum(counts) - counts
        chunk = np.zeros(len(counts), dtype=np.int64)
        if len(drawn):  # a resample that drew none of them sums to 0
            chunk[counts > 0] = np.add.reduceat(drawn, starts[counts > 0])
        sums[start:start + rows] = chunk
    return sums


def _exact_p(quantised: np.ndarray) -> float:
    """Share of all 2^k sign vectors whose |sum| reaches the observed |sum|."""
    totals = np.zeros(1, dtype=np.int64)
    for value in np.abs(quantised):
        totals = np.concatenate((totals + value, totals - value))
    observed = abs(int(quantised.sum()))
    return int(np.count_nonzero(np.abs(totals) >= observed)) / len(totals)


def _monte_carlo_p(quantised: np.ndarray, resamples: int, rng: np.random.Generator) -> float:
    """(1 + flips whose |sum| reaches the observed |sum|) / (1 + resamples), random signs.

    Each random byte signs a group of eight deltas (a bit set: +), and a table of the 256
    signed sums of each group turns a byte into its group's sum: one lookup for eight deltas
    (benchmarks/bench_paired.py times it beside summing the signed deltas one by one)."""
    k = len(quantised)
    groups = -(-k // 8)
    magnitude = np.zeros(groups * 8, dtype=np.int64)  # padding zeros: their sign changes nothing
    magnitude[:k] = np.abs(quantised)
    per_group = magnitude.reshape(groups, 8)
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.int64)
    table = 2 * (bits @ per_group.T) - per_group.sum(axis=1)  # [byte, group]: kept +, the rest -
    observed = abs(int(quantised.sum()))
    column = np.arange(groups)
    reached = 0
    rows = max(1, CHUNK // groups)
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        signs = rng.integers(0, 256, size=(count, groups), dtype=np.uint8)  # bytes, any endianness
        flipped = table[signs, column].sum(axis=1)
        reached += int(np.count_nonzero(np.abs(flipped) >= observed))
    return (1 + reached) / (1 + resamples)


def _normal_limits(mean: float, sd: float, n: int) -> tuple[tuple[float, float], float]:
    """The bootstrap's and the flips' normal limits from the deltas' mean and sample sd."""
    spread = sd * math.sqrt((n - 1) / n)  # population sd: the bootstrap's own
    half = Z95 * spread / math.sqrt(n)
    # the flips' sum over their sd, sum / sqrt(sum of squares), with no square to underflow
    z = abs(mean) * math.sqrt(n) / math.hypot(spread, mean)
    return (mean - half, mean + half), math.erfc(z / math.sqrt(2.0))
