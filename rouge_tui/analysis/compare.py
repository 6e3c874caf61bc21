"""The comparison's arithmetic: means, bands, the verdict, the delta's interval and the ranking
(SPEC "The comparison"). Pure functions of score arrays.

Sums use ``math.fsum`` (exactly rounded), so no figure depends on summation order, the CPU's
vector width or the machine: the same inputs give the same bytes everywhere.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "TEN",
    "VERDICTS",
    "BuildStats",
    "Verdict",
    "build_stats",
    "delta_interval",
    "fmean",
    "fsum",
    "rank",
    "run_mean",
    "sample_sd",
    "sd_band",
    "signal_alarm",
    "verdict",
]

# The 95% two-sided normal quantile, for the analytic interval of the mean paired delta.
Z95 = 1.959963984540054
TEN = 10  # "go and read ten outputs"


@dataclass(frozen=True)
class Verdict:
    """One verdict a comparison can reach, as everything that shows it reads it (the
    report's formats, the app's overview, diff, history, list of suites and help)."""

    name: str  # as SPEC and the JSON report write it
    words: str  # for a person
    symbol: str  # its direction, which reads without colour
    style: str  # in the text report (a Rich style)
    tone: str  # the app's style for it: down, up or within
    html: str  # its background in the HTML report

    @property
    def said(self) -> str:
        """Its symbol and words: ``▼ drift-down``, ``● within band``."""
        return f"{self.symbol} {self.words}"


# The verdicts, the only list of them: `verdict` returns one of their names.
VERDICTS = {v.name: v for v in (
    Verdict("drift-down", "drift-down", "▼", "bold red", "down", "#fdd"),
    Verdict("drift-up", "drift-up", "▲", "bold yellow", "up", "#ffc"),
    Verdict("within-band", "within band", "●", "bold green", "within", "#dfd"),
)}


def signal_alarm(verdict: str, drifting: bool) -> str:
    """What follows ROUGE's verdict where it is within its band but a signal drifts (SPEC
    "Triage": the alarm listens to the signals too), else "": "● within band" alone read as
    all quiet beside a report that exited 1. The verdict itself stays ROUGE's."""
    return ", signal alarm" if drifting and verdict == "within-band" else ""


def fsum(values: Sequence[float] | np.ndarray) -> float:
    """Exactly rounded sum; an array is read as floats a block at a time, so that a million
    values are never a million Python floats at once."""
    if not isinstance(values, np.ndarray):
        return math.fsum(values)
    if len(values) <= _BLOCK:  # one list: quicker than reading blocks through a chain
        return math.fsum(values.tolist())
    return math.fsum(itertools.chain.from_iterable(values[i:i + _BLOCK].tolist() for i in range(0, len(values), _BLOCK)))


_BLOCK = 1 << 18


def fmean(values: Sequence[float] | np.ndarray) -> float:
    """Exactly rounded mean; NaN for no values."""
    return fsum(values) / len(values) if len(values) else math.nan


def run_mean(scores: np.ndarray) -> np.ndarray:
    """Each example's mean over the runs (axis 0 of ``scores``): exactly the runs' value where
    they agree (a plain mean of three equal F is not always that F, and a delta of 1e-16
    between two unchanged outputs ranked above the true zeros as "-0.0000")."""
    if len(scores) == 1:
        return scores[0]
    first = scores[0]
    return first + (scores - first).mean(axis=0)


def sample_sd(values: Sequence[float] | np.ndarray, mean: float | None = None) -> float:
    """Sample standard deviation (n - 1); 0.0 for fewer than two values. ``mean``: their
    `fmean`, when the caller has it already."""
    xs = np.asarray(values, dtype=np.float64)
    if len(xs) < 2:
        return 0.0
    deviation = xs - (fmean(xs) if mean is None else mean)  # each square is one exactly rounded product
    return math.sqrt(fsum(deviation * deviation) / (len(xs) - 1))


@dataclass(frozen=True)
class BuildStats:
    """One build's figures over the paired examples."""

    name: str
    runs: int
    n: int
    mean: float
    band: tuple[float, float]
    band_source: str  # "replicates", "analytic" or "history"
    run_means: tuple[float, ...]


def build_stats(name: str, scores: np.ndarray, k: float) -> BuildStats:
    """Mean and band of a build from its (runs x examples) F matrix.

    With two or more runs the band is mean ± k·(sample sd of the run means), the suite's own
    run-to-run variation; with one run, mean ± k·(standard error of the mean)."""
    runs, n = scores.shape
    run_means = tuple(fmean(row) for row in scores)
    per_example = run_mean(scores)
    mean = fmean(per_example) if runs >= 2 else run_means[0]  # one run: its own mean, summed once
    if runs >= 2:
        return BuildStats(name, runs, n, mean, sd_band(mean, run_means, k), "replicates", run_means)
    half = k * sample_sd(per_example, mean) / math.sqrt(n) if n else 0.0
    return BuildStats(name, runs, n, mean, (mean - half, mean + half), "analytic", run_means)


def sd_band(mean: float, means: Sequence[float], k: float) -> tuple[float, float]:
    """``mean`` ± k·(sample sd of ``means``): the band of a build from its replicate runs'
    means, or from the means of the builds before it (the history band)."""
    half = k * sample_sd(means)
    return (mean - half, mean + half)


def verdict(baseline: BuildStats, candidate_mean: float, delta: float, min_delta: float = 0.0) -> str:
    """``drift-down`` / ``drift-up`` when the candidate mean lies outside the baseline's band
    and the mean paired delta is larger than ``min_delta``; else ``within-band``."""
    low, high = baseline.band
    if abs(delta) <= min_delta:
        return "within-band"
    if candidate_mean < low:
        return "drift-down"
    if candidate_mean > high:
        return "drift-up"
    return "within-band"


def delta_interval(delta: np.ndarray) -> tuple[float, float]:
    """95% normal-approximation interval for the mean paired delta."""
    mean = fmean(delta)
    half = Z95 * sample_sd(delta) / math.sqrt(len(delta)) if len(delta) else 0.0
    return (mean - half, mean + half)


def rank(ids: Sequence[str], delta: np.ndarray) -> np.ndarray:
    """Indices ordering examples by |delta|, largest first, ties by id (code point order)."""
    if all(map(str.__lt__, ids, ids[1:])):  # files mostly list ids in order: no sort needed
        order = list(range(len(ids)))
    else:
        order = sorted(range(len(ids)), key=ids.__getitem__)
    magnitude = -np.abs(np.asarray(delta, dtype=np.float64))[order]
    by_size = np.argsort(magnitude, kind="stable")  # stable: equal sizes keep id order
    return np.asarray(order, dtype=np.int64)[by_size]
