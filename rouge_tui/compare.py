"""The comparison: pairing, means, band, verdict, delta interval, ranking and change signals.

Everything here is a pure function of per-example scores and outputs, so the same inputs give
the same numbers, band, ranking and bytes on every run. Sums use ``math.fsum`` (exactly
rounded), so no result depends on summation order or on the CPU's vector width.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

# The 95% two-sided normal quantile, for the analytic interval of the mean paired delta.
Z95 = 1.959963984540054

VERDICT_DOWN = "drift-down"
VERDICT_UP = "drift-up"
VERDICT_WITHIN = "within-band"

# Change signals, as bit flags so a whole suite's signals fit in one small array.
SIGNAL_EMPTY = 1
SIGNAL_TRUNCATED = 2
SIGNAL_DUPLICATED = 4
SIGNAL_LONGER = 8
SIGNAL_SHORTER = 16
SIGNAL_NAMES = {
    SIGNAL_EMPTY: "empty",
    SIGNAL_TRUNCATED: "truncated",
    SIGNAL_DUPLICATED: "duplicated",
    SIGNAL_LONGER: "longer",
    SIGNAL_SHORTER: "shorter",
}
SIGNAL_SHORT = {
    SIGNAL_EMPTY: "empty",
    SIGNAL_TRUNCATED: "trunc",
    SIGNAL_DUPLICATED: "dup",
    SIGNAL_LONGER: "len+",
    SIGNAL_SHORTER: "len-",
}
# A length shift is flagged when the word count moves by at least this share and this many words.
LENGTH_SHIFT_RATIO = 0.25
LENGTH_SHIFT_WORDS = 5
# "Much shorter" for truncation: the candidate keeps at most this share of the baseline's words.
TRUNCATION_RATIO = 0.5

SORTS = ("|delta|", "regressions", "improvements", "id")


@dataclass(frozen=True)
class BuildStats:
    """One build's figures over the paired examples."""

    name: str
    runs: int
    n: int
    mean: float
    band: tuple[float, float]
    band_source: str  # "replicates" or "analytic"
    run_means: tuple[float, ...]


@dataclass
class Comparison:
    """A baseline/candidate comparison over the paired examples, ranked by |delta|.

    ``ids``, ``baseline_f``, ``candidate_f``, ``delta`` and ``signals`` are aligned and in
    ranking order: largest |delta| first, ties by id.
    """

    metric: str
    tokenizer: str
    stem: bool
    k: float
    baseline: BuildStats
    candidate: BuildStats
    ids: list[str]
    baseline_f: np.ndarray
    candidate_f: np.ndarray
    delta: np.ndarray
    signals: np.ndarray
    delta_mean: float
    delta_interval: tuple[float, float]
    delta_interval_method: str
    verdict: str
    only_in_baseline: list[str] = field(default_factory=list)
    only_in_candidate: list[str] = field(default_factory=list)
    missing_reference: list[str] = field(default_factory=list)
    partial: dict[str, list[str]] = field(default_factory=dict)

    @property
    def paired(self) -> int:
        return len(self.ids)

    def signal_counts(self) -> dict[str, int]:
        """How many paired examples carry each change signal."""
        return {
            name: int(np.count_nonzero(self.signals & flag)) for flag, name in SIGNAL_NAMES.items()
        }

    def order(self, sort: str = "|delta|") -> np.ndarray:
        """Row indices (into the ranked arrays) for one of the table's sort orders."""
        rank = np.arange(len(self.ids))
        if sort == "|delta|":
            return rank
        keys = np.array(self.ids, dtype=object)
        if sort == "id":
            return np.array(sorted(rank, key=lambda i: keys[i]), dtype=np.int64)
        if sort == "regressions":
            return np.lexsort((rank, self.delta))
        if sort == "improvements":
            return np.lexsort((rank, -self.delta))
        raise ValueError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")


def fmean(values: Sequence[float] | np.ndarray) -> float:
    """Exactly rounded mean (``math.fsum``), independent of order and hardware."""
    n = len(values)
    if n == 0:
        return math.nan
    return math.fsum(values.tolist() if isinstance(values, np.ndarray) else values) / n


def sample_sd(values: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (n - 1 in the denominator); 0.0 for fewer than two values."""
    xs = values.tolist() if isinstance(values, np.ndarray) else list(values)
    n = len(xs)
    if n < 2:
        return 0.0
    mean = math.fsum(xs) / n
    return math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))


def build_stats(name: str, scores: np.ndarray, k: float) -> BuildStats:
    """Mean and band of one build from its (runs x examples) score matrix.

    With two or more runs the band is mean ± k·(sample sd of the run means): the suite's own
    run-to-run variation. With one run it is mean ± k·(standard error of the mean).
    """
    runs, n = scores.shape
    run_means = tuple(fmean(scores[r]) for r in range(runs)) if n else tuple(math.nan for _ in range(runs))
    per_example = scores.mean(axis=0) if runs > 1 else scores[0]
    mean = fmean(per_example)
    if runs >= 2:
        half = k * sample_sd(run_means)
        source = "replicates"
    else:
        half = k * (sample_sd(per_example) / math.sqrt(n) if n else 0.0)
        source = "analytic"
    return BuildStats(name, runs, n, mean, (mean - half, mean + half), source, run_means)


def verdict_for(baseline: BuildStats, candidate_mean: float) -> str:
    """drift-down / drift-up when the candidate mean lies outside the baseline's band."""
    low, high = baseline.band
    if candidate_mean < low:
        return VERDICT_DOWN
    if candidate_mean > high:
        return VERDICT_UP
    return VERDICT_WITHIN


def delta_interval(delta: np.ndarray) -> tuple[float, float]:
    """95% normal-approximation interval for the mean paired delta."""
    n = len(delta)
    mean = fmean(delta)
    half = Z95 * sample_sd(delta) / math.sqrt(n) if n else 0.0
    return (mean - half, mean + half)


def rank(ids: Sequence[str], delta: np.ndarray) -> np.ndarray:
    """Indices ordering examples by |delta|, largest first, ties by id."""
    magnitude = -np.abs(np.asarray(delta, dtype=np.float64))
    if len(ids) and "\x00" not in "".join(ids):
        # numpy's fixed-width strings order as Python's str does (by code point), except
        # that trailing NULs are padding to numpy: ids holding a NUL take the slow path.
        return np.lexsort((np.array(ids, dtype=str), magnitude)).astype(np.int64)
    return np.array(sorted(range(len(ids)), key=lambda i: (-abs(float(delta[i])), ids[i])), dtype=np.int64)


# Every character str.splitlines() breaks on.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _lines(text: str) -> list[str]:
    return [line for line in map(str.strip, text.splitlines()) if line]


def has_duplicated_line(text: str) -> bool:
    """True when a non-blank line occurs twice (a repeated header or paragraph)."""
    if not _LINE_BREAK.search(text):
        return False  # one line: nothing to repeat
    lines = _lines(text)
    return len(set(lines)) < len(lines)


def change_signals(baseline: str, candidate: str) -> int:
    """The change signals of one example, as bit flags (see ``SIGNAL_NAMES``)."""
    cand_stripped = candidate.rstrip()
    if not cand_stripped:
        return SIGNAL_EMPTY if baseline.strip() else 0
    flags = 0
    base_words = len(baseline.split())
    cand_words = len(candidate.split())
    base_stripped = baseline.rstrip()
    if len(cand_stripped) < len(base_stripped) and (
        cand_words <= TRUNCATION_RATIO * base_words or base_stripped.startswith(cand_stripped)
    ):
        flags |= SIGNAL_TRUNCATED
    if has_duplicated_line(candidate) and not has_duplicated_line(baseline):
        flags |= SIGNAL_DUPLICATED
    shift = cand_words - base_words
    if abs(shift) >= LENGTH_SHIFT_WORDS and abs(shift) >= LENGTH_SHIFT_RATIO * max(base_words, 1):
        flags |= SIGNAL_LONGER if shift > 0 else SIGNAL_SHORTER
    return flags


def all_change_signals(baselines: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
    """``change_signals`` of every pair, as uint8."""
    return np.fromiter(
        map(change_signals, baselines, candidates), dtype=np.uint8, count=len(baselines)
    )


def signal_words(flags: int, short: bool = True) -> str:
    """A readable list of the signals in ``flags``, e.g. ``trunc len-``."""
    names = SIGNAL_SHORT if short else SIGNAL_NAMES
    return " ".join(name for flag, name in names.items() if flags & flag)


def compare(
    *,
    metric: str,
    tokenizer: str,
    stem: bool,
    k: float,
    baseline_name: str,
    candidate_name: str,
    ids: Sequence[str],
    baseline_scores: np.ndarray,
    candidate_scores: np.ndarray,
    baseline_outputs: Sequence[str],
    candidate_outputs: Sequence[str],
    only_in_baseline: Sequence[str] = (),
    only_in_candidate: Sequence[str] = (),
    missing_reference: Sequence[str] = (),
    partial: dict[str, list[str]] | None = None,
) -> Comparison:
    """Compare two builds over already paired ids.

    ``baseline_scores`` and ``candidate_scores`` are (runs x len(ids)) F matrices; the outputs
    are the ones shown for each example (the first run's), used for the change signals.
    """
    if not len(ids):
        raise ValueError("no paired examples")
    base = build_stats(baseline_name, np.asarray(baseline_scores, dtype=np.float64), k)
    cand = build_stats(candidate_name, np.asarray(candidate_scores, dtype=np.float64), k)
    base_f = baseline_scores.mean(axis=0) if baseline_scores.shape[0] > 1 else baseline_scores[0]
    cand_f = candidate_scores.mean(axis=0) if candidate_scores.shape[0] > 1 else candidate_scores[0]
    delta = cand_f - base_f
    order = rank(ids, delta)
    signals = all_change_signals(baseline_outputs, candidate_outputs)
    ranked_delta = delta[order]
    return Comparison(
        metric=metric,
        tokenizer=tokenizer,
        stem=stem,
        k=k,
        baseline=base,
        candidate=cand,
        ids=[ids[i] for i in order],
        baseline_f=np.ascontiguousarray(base_f[order]),
        candidate_f=np.ascontiguousarray(cand_f[order]),
        delta=np.ascontiguousarray(ranked_delta),
        signals=signals[order],
        delta_mean=fmean(delta),
        delta_interval=delta_interval(delta),
        delta_interval_method="analytic",
        verdict=verdict_for(base, cand.mean),
        only_in_baseline=sorted(only_in_baseline),
        only_in_candidate=sorted(only_in_candidate),
        missing_reference=sorted(missing_reference),
        partial=partial or {},
    )
