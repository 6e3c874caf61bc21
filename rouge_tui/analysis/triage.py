"""Triage: what overlap cannot see decides too (SPEC "Triage").

ROUGE can stay flat while a build starts inventing figures, so the alarm also listens to the
change signals:

- a signal's *rate* on a build pair is the share of its paired examples where it fires;
- its *band* comes from the same signal's counts on the earlier consecutive build pairs
  ending at the baseline (the volatile window, `history.PAIRS`), by `band` below;
- a signal allowed to raise the alarm (`[alarm] signals`) whose count lies above its band is
  a *signal drift*: `report` exits 1 and says which;
- *the flagged*: the examples where a drifting signal fired, most telling first
  (`reading_order`), read after the ten most-moved.

The band's rule, in words (README "Signal bands and the flagged"): take the highest rate of the earlier
pairs, and expect that share of this pair's examples; the band's top is that expected count
plus three times its square root (a count's own Poisson noise) plus three examples. A steady
rate never crosses it; a jump does; a signal that never fired before crosses it at its fourth
example. With fewer than two earlier pairs there is no band, and the reason is said.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from rouge_tui.analysis import signals
from rouge_tui.store.cache import key, pack, unpack

__all__ = ["FLAGGED", "MIN_PAIRS", "PairCounts", "Rate", "band", "drift_words", "flagged_first", "pair_key", "rates", "reading_order"]

MIN_PAIRS = 2  # earlier pairs needed for a band (as for the volatile signal)
NOISE = 3.0  # how many square roots of the expected count the band allows above it
SLACK = 3  # and how many examples more, so that a signal that never fired needs four
FLAGGED = 10  # the flagged read by default, after the ten most-moved
OFF = "no band: no signal may raise the alarm ([alarm] signals = [])"  # so no earlier pair is counted


@dataclass(frozen=True)
class PairCounts:
    """One build pair's signal counts over its paired examples (an example counts once, when a
    signal fires in any of its runs), or why there are none."""

    baseline: str
    candidate: str
    paired: int
    counts: dict[str, int]
    problem: str | None = None

    def to_bytes(self) -> bytes:
        return pack(asdict(self), np.zeros(0))

    @classmethod
    def from_bytes(cls, data: bytes) -> PairCounts:
        """What `to_bytes` wrote; a ValueError for anything that does not check out."""
        head, values = unpack(data)
        try:
            found = cls(**head)
            ok = (not values.size and isinstance(found.paired, int) and found.paired >= 0
                  and isinstance(found.counts, dict)
                  and all(isinstance(c, int) and 0 <= c <= found.paired for c in found.counts.values()))
        except TypeError as exc:
            raise ValueError(f"cached signal counts do not check out: {exc}") from None
        if not ok:
            raise ValueError("cached signal counts do not check out")
        return found


def pair_key(references: str, min_support: float, fields: str,
             builds: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The cache key of a pair's counts: the signals' versions, the references' and each
    build's bytes (name, run count and each run's digest, build by build), min_support and
    the field names. Counts depend on no metric or tokenizer."""
    return key("pairs", signals.versions(), references, repr(min_support), fields,
               [[name, list(digests)] for name, digests in builds])


@dataclass(frozen=True)
class Rate:
    """One signal on this pair: its count, rate and band, the earlier pairs' counts the band
    came from, whether it may raise the alarm, and whether it does."""

    signal: str
    count: int
    paired: int
    band: tuple[float, float] | None  # rates; None: too little history (``reason``)
    history: tuple[PairCounts, ...]
    alarm: bool
    reason: str = ""

    @property
    def rate(self) -> float:
        return self.count / self.paired if self.paired else 0.0

    @property
    def drift(self) -> bool:
        """Above its band, and allowed to raise the alarm."""
        return self.alarm and self.band is not None and self.rate > self.band[1]

    def to_json(self) -> dict:
        """SPEC's ``signal_drift`` entry (for any signal, drifting or not)."""
        return {
            "signal": self.signal,
            "count": self.count,
            "rate": self.rate,
            "band": None if self.band is None else [self.band[0], self.band[1]],
            "history": [{"baseline": h.baseline, "candidate": h.candidate, "count": h.counts.get(self.signal, 0),
                         "paired": h.paired} for h in self.history],
        }


def drift_words(drift: dict) -> str:
    """A signal drift (`Rate.to_json`) in words, as the overview's first lines and the report
    say it: ``▲ new figures: 87 outputs (earlier pairs 27-34)``."""
    said = next((s.said for s in signals.SIGNALS if s.name == drift["signal"]), drift["signal"])
    counts = [h["count"] for h in drift["history"]] or [0]
    seen = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}-{max(counts)}"
    return f"▲ {said}: {drift['count']} {'output' if drift['count'] == 1 else 'outputs'} (earlier pairs {seen})"


def quiet_words(rates: Sequence[dict]) -> str:
    """Where no signal, of the alarm's or not, is above its band (`Rate.to_json` entries),
    that in words; else "" (the alarm lines say a drift). The alarm looks above a band only
    (SPEC "Triage"), so a rate far under its band (earlier pairs that changed every output)
    is not "within" it."""
    if not rates or any(r["band"] is not None and r["rate"] > r["band"][1] for r in rates):
        return ""
    pairs = len(rates[0]["history"])
    return f"no signal above its band (from {pairs} earlier build {'pair' if pairs == 1 else 'pairs'})"


def band(history: Sequence[PairCounts], signal: str, paired: int) -> tuple[tuple[float, float] | None, str]:
    """The band of ``signal``'s rate on a pair of ``paired`` examples, from its counts on the
    earlier pairs ``history`` (those with figures): from the lowest earlier rate to the
    expected count at the highest earlier rate, plus NOISE square roots of it, plus SLACK
    examples, as a rate. None, and why, with fewer than MIN_PAIRS earlier pairs."""
    usable = [h for h in history if h.problem is None and h.paired]
    if len(usable) < MIN_PAIRS:
        return None, f"no band: fewer than {MIN_PAIRS} earlier build pairs counted"
    shares = [h.counts.get(signal, 0) / h.paired for h in usable]
    expected = max(shares) * paired
    top = expected + NOISE * math.sqrt(expected) + SLACK
    return (min(shares), min(1.0, top / paired) if paired else 1.0), ""


def rates(counts: dict[str, int], paired: int, history: Sequence[PairCounts], alarm: Sequence[str]) -> list[Rate]:
    """Every banded signal's `Rate` on this pair, in registry order."""
    usable = tuple(h for h in history if h.problem is None and h.paired)
    out = []
    for signal in signals.SIGNALS:
        if not signal.banded:
            continue
        found, reason = band(usable, signal.name, paired) if alarm else (None, OFF)
        out.append(Rate(signal.name, counts.get(signal.name, 0), paired, found, usable, signal.name in alarm, reason))
    return out


def _groups(flags: np.ndarray, drifting: Sequence[str]) -> np.ndarray:
    """Each row's part in the reading order: 0 a new figure, 1 a new sentence, 2 + bit another
    drifting signal (the first that fired, in registry order); past them all, no drifting
    signal fired."""
    bits = {s.name: bit for bit, s in enumerate(signals.SIGNALS)}
    first = {"new-figure": 0, "new-sentence": 1}
    group = np.full(len(flags), NONE, np.int8)  # a byte a row: at 1M, int64 parts weighed on the peak
    for name in drifting:
        fired = (flags >> np.uint32(bits[name]) & 1).astype(bool)
        group = np.where(fired, np.minimum(group, first.get(name, 2 + bits[name])), group)
    return group


NONE = 2 + 32  # the part of a row where no drifting signal fired (past every bit's)


def fired(flags: np.ndarray, drifting: Sequence[str]) -> np.ndarray:
    """Whether one of the ``drifting`` signals fired on each row (`_groups`' parts but the last)."""
    return _groups(flags, drifting) < NONE


def reading_order(flags: np.ndarray, drifting: Sequence[str], new_figures: np.ndarray, least: np.ndarray,
                  skip: int, limit: int = FLAGGED) -> list[int]:
    """The flagged, most telling first: rows (of arrays in ranking order) where a drifting
    signal fired, past the first ``skip`` (the ten most-moved, read already): those with new
    figures (the most first), then those with new sentences (the least supported first), then
    the rest by signal in registry order; ties by rank. At most ``limit``."""
    group = _groups(flags, drifting)
    group[:skip] = NONE
    rows = np.flatnonzero(group < NONE)
    part = group[rows]  # the flagged rows alone (whole-length temporaries weighed on the peak)
    figures, fewest = np.asarray(new_figures)[rows].astype(np.float64), np.asarray(least)[rows]
    within = np.where(part == 0, -figures, np.where(part == 1, fewest, 0.0))
    return rows[np.lexsort((rows, within, part))][:limit].tolist()


def flagged_first(flags: np.ndarray, drifting: Sequence[str], flagged: Sequence[int] = ()) -> np.ndarray:
    """Row indices for the table's sort "flagged first": the flagged (``flagged``, rows in
    their reading order: `reading_order`), then the other rows where a drifting signal
    fired, in `_groups`' parts, each part in ranking order, then the rest (a newcomer's
    "flagged first" began with the ten most-moved, none of them on the flagged list)."""
    order = np.lexsort((np.arange(len(flags)), _groups(flags, drifting)))
    head = np.asarray(flagged, dtype=order.dtype)
    return np.concatenate((head, order[~np.isin(order, head)])) if len(head) else order
