"""The change-signal registry: the only list of signals rouge-tui shows beside a score.

A change signal names a usual cause of drift (a truncating prompt edit, a template that
duplicates a header, a decoding change, a model bump) from the texts of one paired example.
Each entry has a name (report, JSON, filter), a short label (the movers table), a one-line
summary (help screen), a version (part of every cached result's key: change a rule, bump it)
and its rule. A new signal is one more entry here plus its tests; the table, the overview's
counts, the filter, the report and the export all read ``SIGNALS``.

A rule reads the paired examples (`Pairs`) and says, for each, whether it fires. Examples
whose two outputs are the same text fire nothing: every rule here compares the candidate with
the baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rouge_tui.analysis import history

__all__ = ["SIGNALS", "Pairs", "Signal", "counts", "find", "labels", "names", "versions"]

# A length shift: the stripped output grows or shrinks by this share and this many characters.
SHIFT_SHARE = 0.25
SHIFT_CHARS = 30
# "Much shorter", for truncation: at most this share of the baseline's characters kept.
TRUNCATED_SHARE = 0.5


@dataclass
class Pairs:
    """What the rules read, one entry per paired example: the outputs shown (a build's first
    run), the example's references and its source (None without one)."""

    ids: Sequence[str]
    baseline: Sequence[str]
    candidate: Sequence[str]
    references: Sequence[Sequence[str]] = ()
    sources: Sequence[str | None] = ()
    extra: dict[str, object] = field(default_factory=dict)  # what later rules need (history)


Rule = Callable[[Pairs], np.ndarray]


@dataclass(frozen=True)
class Signal:
    name: str
    short: str
    summary: str
    version: int
    rule: Rule


def _each(test: Callable[[str, str], bool]) -> Rule:
    """A rule that looks at the two outputs of each changed example."""

    def rule(pairs: Pairs) -> np.ndarray:
        return np.fromiter(
            (base != cand and test(base, cand) for base, cand in zip(pairs.baseline, pairs.candidate)),
            dtype=bool,
            count=len(pairs.baseline),
        )

    return rule


def _empty(base: str, cand: str) -> bool:
    return not cand.strip() and bool(base.strip())


def _truncated(base: str, cand: str) -> bool:
    cand, base = cand.rstrip(), base.rstrip()
    return bool(cand) and len(cand) < len(base) and (
        base.startswith(cand) or len(cand) <= TRUNCATED_SHARE * len(base)
    )


def repeats_a_line(text: str) -> bool:
    """True when a non-blank line occurs twice (a repeated header or paragraph)."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    return len(set(lines)) < len(lines)


def _duplicated(base: str, cand: str) -> bool:
    return "\n" in cand and repeats_a_line(cand) and not repeats_a_line(base)


def _shift(base: str, cand: str) -> int:
    """+1 longer, -1 shorter, 0 neither (stripped lengths, in characters)."""
    old, new = len(base.strip()), len(cand.strip())
    if not new or abs(new - old) < SHIFT_CHARS or abs(new - old) < SHIFT_SHARE * old:
        return 0
    return 1 if new > old else -1


SIGNALS: tuple[Signal, ...] = (
    Signal("empty", "empty", "the candidate output is empty where the baseline's was not", 1,
           _each(_empty)),
    Signal("truncated", "trunc",
           "the candidate is a strict prefix of the baseline, or at most half its length", 1,
           _each(_truncated)),
    Signal("duplicated", "dup", "a line (a header, a paragraph) now appears twice", 1,
           _each(_duplicated)),
    Signal("longer", "len+", "the output grew by a quarter and 30 characters or more", 1,
           _each(lambda base, cand: _shift(base, cand) > 0)),
    Signal("shorter", "len-", "the output shrank by a quarter and 30 characters or more", 1,
           _each(lambda base, cand: _shift(base, cand) < 0)),
    Signal("volatile", "vol",
           "its F moved by 0.05 or more in most of the last build pairs: it moves every time",
           1, lambda pairs: history.volatile(pairs.ids, pairs.extra.get("history", ()))),
)


def find(pairs: Pairs, signals: Sequence[Signal] = SIGNALS) -> np.ndarray:
    """Every rule over every pair: bit i of an example's flags is ``signals[i]``."""
    flags = np.zeros(len(pairs.ids), dtype=np.uint32)
    for bit, signal in enumerate(signals):
        flags |= signal.rule(pairs).astype(np.uint32) << np.uint32(bit)
    return flags


def names(flags: int, signals: Sequence[Signal] = SIGNALS) -> list[str]:
    return [s.name for bit, s in enumerate(signals) if flags >> bit & 1]


def labels(flags: int, signals: Sequence[Signal] = SIGNALS) -> str:
    """The short labels of ``flags``, e.g. ``trunc len-``."""
    return " ".join(s.short for bit, s in enumerate(signals) if flags >> bit & 1)


def counts(flags: np.ndarray, signals: Sequence[Signal] = SIGNALS) -> dict[str, int]:
    """How many examples carry each signal, in registry order."""
    return {s.name: int(np.count_nonzero(flags >> bit & 1)) for bit, s in enumerate(signals)}


def versions(signals: Sequence[Signal] = SIGNALS) -> str:
    """The registry as it enters cache keys: names, order and versions."""
    return ",".join(f"{s.name}:{s.version}" for s in signals)
