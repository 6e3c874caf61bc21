"""The comparison: pairing, means, band, verdict, delta interval, ranking and change signals.

Everything here is a pure function of per-example scores and outputs, so the same inputs give
the same numbers, band, ranking and bytes on every run. Sums use ``math.fsum`` (exactly
rounded), so no result depends on summation order or on the CPU's vector width.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rouge_tui.metrics.codes import NOT_WHITESPACE_ASCII, runs

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


def sample_sd(values: Sequence[float] | np.ndarray, mean: float | None = None) -> float:
    """Sample standard deviation (n - 1 in the denominator); 0.0 for fewer than two values.

    ``mean``, when given, must be ``fmean(values)`` (it saves summing them again)."""
    xs = np.asarray(values, dtype=np.float64)
    n = len(xs)
    if n < 2:
        return 0.0
    if mean is None:
        mean = math.fsum(xs.tolist()) / n
    deviation = xs - mean  # each square is the exactly rounded product, on every machine
    return math.sqrt(math.fsum((deviation * deviation).tolist()) / (n - 1))


def build_stats(name: str, scores: np.ndarray, k: float) -> BuildStats:
    """Mean and band of one build from its (runs x examples) score matrix.

    With two or more runs the band is mean ± k·(sample sd of the run means): the suite's own
    run-to-run variation. With one run it is mean ± k·(standard error of the mean).
    """
    runs, n = scores.shape
    run_means = tuple(fmean(scores[r]) for r in range(runs)) if n else tuple(math.nan for _ in range(runs))
    per_example = scores.mean(axis=0) if runs > 1 else scores[0]
    mean = fmean(per_example) if runs > 1 else run_means[0]
    if runs >= 2:
        half = k * sample_sd(run_means)
        source = "replicates"
    else:
        half = k * (sample_sd(per_example, mean) / math.sqrt(n) if n else 0.0)
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


def delta_interval(delta: np.ndarray, mean: float | None = None) -> tuple[float, float]:
    """95% normal-approximation interval for the mean paired delta (``mean``, when given,
    is ``fmean(delta)``)."""
    n = len(delta)
    if mean is None:
        mean = fmean(delta)
    half = Z95 * sample_sd(delta, mean) / math.sqrt(n) if n else 0.0
    return (mean - half, mean + half)


def rank(ids: Sequence[str], delta: np.ndarray) -> np.ndarray:
    """Indices ordering examples by |delta|, largest first, ties by id."""
    magnitude = -np.abs(np.asarray(delta, dtype=np.float64))
    if all(map(str.__lt__, ids, itertools.islice(ids, 1, None))):
        # Ids in increasing order (as files usually list them): ties by id are ties by index.
        return np.argsort(magnitude, kind="stable").astype(np.int64)
    if "\x00" not in "".join(ids):
        # numpy's fixed-width strings order as Python's str does (by code point), except
        # that trailing NULs are padding to numpy: ids holding a NUL take the slow path.
        return np.lexsort((np.array(ids, dtype=str), magnitude)).astype(np.int64)
    return np.array(sorted(range(len(ids)), key=lambda i: (-abs(float(delta[i])), ids[i])), dtype=np.int64)


# Every character str.split() and str.strip() treat as whitespace (str.isspace); a test
# checks this against every code point.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# is-whitespace by code point, up to the highest one; anything above is not.
_SPACE_TABLE = np.zeros(ord(max(WHITESPACE)) + 2, dtype=bool)
_SPACE_TABLE[[ord(c) for c in WHITESPACE]] = True
# Code points counted in one numpy pass (bounds the arrays alive at once).
_CHUNK_CHARS = 1 << 20


def has_duplicated_line(text: str) -> bool:
    """True when a non-blank line occurs twice (a repeated header or paragraph)."""
    lines = list(map(str.strip, text.splitlines()))
    if len(lines) < 2:
        return False  # one line: nothing to repeat
    distinct = set(lines)
    distinct.discard("")
    return len(distinct) < len(lines) - lines.count("")


def change_signals(baseline: str, candidate: str) -> int:
    """The change signals of one example, as bit flags (see ``SIGNAL_NAMES``)."""
    return _signals(baseline, candidate, len(baseline.split()), len(candidate.split()))


def _signals(baseline: str, candidate: str, base_words: int, cand_words: int) -> int:
    cand_stripped = candidate.rstrip()
    if not cand_stripped:
        return SIGNAL_EMPTY if baseline.strip() else 0
    flags = 0
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


def _shapes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``len(text.split())`` and ``len(text.rstrip())`` of every text, as int64 arrays.

    Counted by numpy over code points: words are the runs of non-whitespace characters
    (where a flag per character changes), and the stripped length runs to the end of a
    text's last word. Texts are joined with a newline before, between and after them, so
    no word runs from one into the next; the join is made a few million characters at a
    time.
    """
    words_out = np.zeros(len(texts), dtype=np.int64)
    stripped_out = np.zeros(len(texts), dtype=np.int64)
    if not len(texts):
        return words_out, stripped_out
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths + 1)
    cuts = np.unique(np.searchsorted(ends, np.arange(_CHUNK_CHARS, int(ends[-1]), _CHUNK_CHARS)))
    for first, last in zip([0, *(c + 1 for c in cuts.tolist())], [*cuts.tolist(), len(texts) - 1]):
        if first > last:
            continue
        joined = "\n".join(["", *texts[first : last + 1], ""])
        if joined.isascii():
            # One byte per character, 1 where it is not whitespace, in one C-level pass.
            ascii_bytes = joined.encode("ascii").translate(NOT_WHITESPACE_ASCII)
            solid = np.frombuffer(ascii_bytes, dtype=np.uint8)
        else:
            codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            solid = ~_SPACE_TABLE[np.minimum(codes, len(_SPACE_TABLE) - 1)]
        # The joined text starts and ends with a newline: words are the runs between.
        word_starts, word_ends = runs(solid)
        size = lengths[first : last + 1]
        begin = np.cumsum(size + 1) - size  # after the newline before each text
        before = np.searchsorted(word_starts, begin)
        through = np.searchsorted(word_starts, begin + size)
        count = through - before
        words_out[first : last + 1] = count
        last_end = word_ends[np.maximum(through - 1, 0)] if len(word_ends) else begin
        stripped_out[first : last + 1] = np.where(count > 0, last_end - begin, 0)
    return words_out, stripped_out


def all_change_signals(baselines: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
    """``change_signals`` of every pair, as uint8: the same rules on whole arrays, with
    per-pair Python left for the prefix test and the duplicated-line test."""
    base_words, base_len = _shapes(baselines)
    cand_words, cand_len = _shapes(candidates)
    flags = np.zeros(len(baselines), dtype=np.uint8)
    empty = cand_words == 0
    flags[empty & (base_words > 0)] = SIGNAL_EMPTY
    live = ~empty
    shorter = live & (cand_len < base_len)
    truncated = shorter & (cand_words <= TRUNCATION_RATIO * base_words)
    for i in np.flatnonzero(shorter & ~truncated).tolist():
        truncated[i] = baselines[i].rstrip().startswith(candidates[i].rstrip())
    flags[truncated] |= SIGNAL_TRUNCATED
    for i in np.flatnonzero(live).tolist():
        if has_duplicated_line(candidates[i]) and not has_duplicated_line(baselines[i]):
            flags[i] |= SIGNAL_DUPLICATED
    shift = cand_words - base_words
    moved = (
        live
        & (np.abs(shift) >= LENGTH_SHIFT_WORDS)
        & (np.abs(shift) >= LENGTH_SHIFT_RATIO * np.maximum(base_words, 1))
    )
    flags[moved & (shift > 0)] |= SIGNAL_LONGER
    flags[moved & (shift < 0)] |= SIGNAL_SHORTER
    return flags


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
    signals: np.ndarray | None = None,
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
    if signals is None:
        signals = all_change_signals(baseline_outputs, candidate_outputs)
    ranked_delta = delta[order]
    delta_mean = fmean(delta)
    return Comparison(
        metric=metric,
        tokenizer=tokenizer,
        stem=stem,
        k=k,
        baseline=base,
        candidate=cand,
        ids=list(map(ids.__getitem__, order.tolist())),
        baseline_f=np.ascontiguousarray(base_f[order]),
        candidate_f=np.ascontiguousarray(cand_f[order]),
        delta=np.ascontiguousarray(ranked_delta),
        signals=signals[order],
        delta_mean=delta_mean,
        delta_interval=delta_interval(delta, delta_mean),
        delta_interval_method="analytic",
        verdict=verdict_for(base, cand.mean),
        only_in_baseline=sorted(only_in_baseline),
        only_in_candidate=sorted(only_in_candidate),
        missing_reference=sorted(missing_reference),
        partial=partial or {},
    )
