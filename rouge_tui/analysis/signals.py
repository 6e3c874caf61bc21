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

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat

import numpy as np

from rouge_tui.analysis import history

__all__ = ["ALARM", "NO_SOURCE", "NO_SOURCE_SHORT", "SIGNALS", "Pairs", "Signal", "counts", "find", "fired", "labels", "names", "shown_order",
           "versions"]

# A length shift: the stripped output grows or shrinks by this share and this many characters.
SHIFT_SHARE = 0.25
SHIFT_CHARS = 30
# "Much shorter", for truncation: at most this share of the baseline's characters kept.
TRUNCATED_SHARE = 0.5
# A copy of the reference: one of this many words or more (a summary, not a short answer).
COPY_WORDS = 20


@dataclass
class Pairs:
    """What the rules read, one entry per paired example: the outputs shown (a build's first
    run), the example's references and its source (None without one). The columns rules
    share (which pairs changed, stripped lengths) are worked out once, on first use."""

    ids: Sequence[str]
    baseline: Sequence[str]
    candidate: Sequence[str]
    references: Sequence[Sequence[str]] = ()
    sources: Sequence[str | None] = ()
    extra: dict[str, object] = field(default_factory=dict)  # what later rules need (history)
    min_support: float | None = None  # None: grounding's MIN_SUPPORT

    @cached_property
    def changed(self) -> np.ndarray:
        """The examples whose two outputs differ (no rule fires on the others)."""
        return ~np.fromiter(map(operator.eq, self.baseline, self.candidate), dtype=bool, count=len(self.ids))

    @cached_property
    def lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """Stripped lengths in characters, baseline's and candidate's."""
        def measure(texts: Sequence[str]) -> np.ndarray:
            return np.fromiter(map(len, map(str.strip, texts)), dtype=np.int64, count=len(texts))

        return measure(self.baseline), measure(self.candidate)

    @cached_property
    def grounded(self) -> tuple[np.ndarray, np.ndarray]:
        """How many new sentences and new figures each candidate has (SPEC "What overlap
        cannot see"; none where the outputs are the same text), once: `count_new`."""
        return self.count_new()

    def count_new(self) -> tuple[np.ndarray, np.ndarray]:
        """`grounded`, worked out each time asked (and without its lock, which Python 3.11
        shares between all the Pairs: a thread may work it out beside another's)."""
        # Here, not at import: a report of cached figures reads no text, and loads neither
        # rapidfuzz nor the grounding modules.
        from rouge_tui.analysis import grounding_bulk
        from rouge_tui.analysis.grounding import MIN_SUPPORT

        references = self.references or [()] * len(self.ids)
        sources = self.sources or [None] * len(self.ids)
        least = MIN_SUPPORT if self.min_support is None else self.min_support
        return grounding_bulk.new_counts(self.candidate, self.baseline, references, sources, least)

    def pick(self, texts: Sequence, where: np.ndarray) -> list:
        """``texts`` (a column of these pairs) at the examples where ``where`` holds, in order:
        the rules read columns through C-level maps, not a Python loop per example."""
        return list(map(texts.__getitem__, np.flatnonzero(where).tolist()))


Rule = Callable[[Pairs], np.ndarray]


@dataclass(frozen=True)
class Signal:
    name: str
    short: str
    summary: str
    version: int
    rule: Rule
    read_first: bool = False  # shown before the others where room is short: text to read
    # Reads what overlap cannot see (`Pairs.grounded`), which is found beside the scoring: the
    # app's first frame on a cold suite may come before it (`Figures.pending`).
    grounded: bool = False
    # May raise the alarm when its rate moves above its band (SPEC "Triage"), unless suite.toml's
    # [alarm] signals says otherwise; `banded` False: its rate has no band (it is measured over
    # the history itself, so the earlier pairs have no rate of it).
    alarm: bool = False
    banded: bool = True
    words: str = ""  # what it counts, in a sentence ("new figures"); "" : its name

    @property
    def said(self) -> str:
        return self.words or self.name


def _empty(pairs: Pairs) -> np.ndarray:
    base, cand = pairs.lengths
    return pairs.changed & (cand == 0) & (base > 0)


def _truncated(pairs: Pairs) -> np.ndarray:
    base, cand = pairs.lengths
    shorter = pairs.changed & (cand > 0) & (cand < base)
    much = shorter & (cand <= TRUNCATED_SHARE * base)
    check = shorter & ~much
    prefix = np.zeros(len(pairs.ids), dtype=bool)
    prefix[check] = np.fromiter(map(str.startswith, map(str.rstrip, pairs.pick(pairs.baseline, check)),
                                    map(str.rstrip, pairs.pick(pairs.candidate, check))),
                                dtype=bool, count=np.count_nonzero(check))
    return much | prefix


def repeats_a_line(text: str) -> bool:
    """True when a non-blank line occurs twice (a repeated header or paragraph)."""
    lines = list(filter(None, map(str.strip, text.splitlines())))
    return len(set(lines)) < len(lines)


def _each(test: Callable[[str], bool], texts: list[str]) -> np.ndarray:
    return np.fromiter(map(test, texts), dtype=bool, count=len(texts))


def _anew(pairs: Pairs, where: np.ndarray, test: Callable[[list[str], np.ndarray], np.ndarray]) -> np.ndarray:
    """Where ``where`` holds, ``test`` true of the candidate's output and false of the
    baseline's: ``test`` is given a column of one side's outputs and the examples it holds,
    the baseline's only where the candidate's passed."""
    out = np.zeros(len(pairs.ids), dtype=bool)
    out[where] = test(pairs.pick(pairs.candidate, where), where)
    fired = out.copy()
    out[fired] = ~test(pairs.pick(pairs.baseline, fired), fired)
    return out


def _duplicated(pairs: Pairs) -> np.ndarray:
    has_lines = np.fromiter(map(operator.contains, pairs.candidate, repeat("\n")), dtype=bool, count=len(pairs.ids))
    return _anew(pairs, pairs.changed & has_lines, lambda texts, at: _each(repeats_a_line, texts))


def _shift(pairs: Pairs) -> np.ndarray:
    """+1 longer, -1 shorter, 0 neither."""
    base, cand = pairs.lengths
    moved = np.abs(cand - base)
    shifted = pairs.changed & (cand > 0) & (moved >= SHIFT_CHARS) & (moved >= SHIFT_SHARE * base)
    return np.where(shifted, np.sign(cand - base), 0)


def _copies(outputs: list[str], references: list[Sequence[str]]) -> np.ndarray:
    """Whether each output is one of its references as written (surrounding whitespace aside)
    of `COPY_WORDS` words or more: a short answer may well match its reference."""
    texts = list(map(str.strip, outputs))
    many = np.fromiter(map(len, references), dtype=np.int64, count=len(texts))
    equal = np.zeros(len(texts), dtype=bool)
    for k in range(int(many.max(initial=0))):  # the k-th reference of the examples that have one
        has = np.flatnonzero(many > k).tolist()
        kth = map(str.strip, map(operator.itemgetter(k), map(references.__getitem__, has)))
        equal[has] |= np.fromiter(map(operator.eq, kth, map(texts.__getitem__, has)), dtype=bool, count=len(has))
    hits = np.flatnonzero(equal).tolist()
    equal[hits] = [len(texts[i].split()) >= COPY_WORDS for i in hits]
    return equal


def _reference_copy(pairs: Pairs) -> np.ndarray:
    """A score of 1 that overlap reads as the best of improvements, and that is more often a
    reference leaked into the prompt or a job that wrote the reference where the output goes."""
    if not pairs.references:
        return np.zeros(len(pairs.ids), dtype=bool)
    return _anew(pairs, pairs.changed, lambda texts, at: _copies(texts, pairs.pick(pairs.references, at)))


SIGNALS: tuple[Signal, ...] = (
    Signal("empty", "empty", "the candidate output is empty where the baseline's was not", 1, _empty, alarm=True,
           words="empty outputs"),
    Signal("truncated", "trunc",
           "the candidate is a strict prefix of the baseline, or at most half its length", 1, _truncated,
           alarm=True, words="truncated outputs"),
    Signal("duplicated", "dup", "a line (a header, a paragraph) now appears twice", 1, _duplicated, alarm=True,
           words="duplicated lines"),
    Signal("longer", "len+", "the output grew by a quarter and 30 characters or more", 1,
           lambda pairs: _shift(pairs) > 0, words="longer outputs"),
    Signal("shorter", "len-", "the output shrank by a quarter and 30 characters or more", 1,
           lambda pairs: _shift(pairs) < 0, words="shorter outputs"),
    Signal("new-sentence", "+sent",
           "a sentence with no counterpart in the references, the source or the baseline: read it",
           1, lambda pairs: pairs.grounded[0] > 0, read_first=True, grounded=True, alarm=True,
           words="new sentences"),
    Signal("new-figure", "+fig",
           "a figure (41, 02:14, 3.5%) found in none of the references, the source and the baseline",
           1, lambda pairs: pairs.grounded[1] > 0, read_first=True, grounded=True, alarm=True,
           words="new figures"),
    Signal("volatile", "vol",
           "its F moved by 0.05 or more in most of the last build pairs: it moves every time",
           2, lambda pairs: history.volatile(pairs.ids, pairs.extra.get("history", ())),  # 2: five pairs whatever the band
           banded=False),
    Signal("reference-copy", "=ref",
           "the candidate is one of its references (20 words or more) as written, where the baseline was not: "
           "how did it get there?",
           1, _reference_copy, read_first=True, alarm=True, words="copies of a reference"),
)
# The signals that raise the alarm when suite.toml does not say ([alarm] signals).
ALARM = tuple(s.name for s in SIGNALS if s.alarm)
# Said once, in the figures' warnings, when no example has a source (SPEC "Triage").
NO_SOURCE = ("no example has a source: \"no counterpart\" is measured against the references alone, which "
             "an abstractive output rarely echoes; the signal bands, not the raw counts, decide")
NO_SOURCE_SHORT = "no source: new sentences and figures are weighed against the references alone"  # the overview's


def find(pairs: Pairs, grounded: bool | None = None) -> np.ndarray:
    """Every rule over every pair: bit i of an example's flags is ``SIGNALS[i]``. With
    ``grounded`` True or False, only the rules whose `Signal.grounded` is that (their bits
    alone set)."""
    flags = np.zeros(len(pairs.ids), dtype=np.uint32)
    for bit, signal in enumerate(SIGNALS):
        if grounded is None or signal.grounded == grounded:
            flags |= signal.rule(pairs).astype(np.uint32) << np.uint32(bit)
    return flags


def fired(flags: np.ndarray, name: str) -> np.ndarray:
    """1 where the signal ``name`` fired, else 0, for each example's ``flags``."""
    bit = [signal.name for signal in SIGNALS].index(name)
    return flags >> bit & 1


def names(flags: int) -> list[str]:
    return [s.name for bit, s in enumerate(SIGNALS) if flags >> bit & 1]


def shown_order() -> list[tuple[int, Signal]]:
    """(bit, signal) in the order the app lists signals: those to read first (a new
    sentence, a new figure), then the rest, each in registry order."""
    return sorted(enumerate(SIGNALS), key=lambda bit_signal: not bit_signal[1].read_first)


def labels(flags: int, runs: Sequence[int] | None = None, of: int = 1) -> list[str]:
    """The short labels of ``flags``, those to read first first (``+sent trunc len-``). With
    replicate runs (``runs``: how many of the ``of`` runs each signal fired in, by bit), a
    signal that did not fire in every run says in how many (``+fig1/3``)."""
    def label(bit: int, signal: Signal) -> str:
        if runs is None or runs[bit] >= of:
            return signal.short
        return f"{signal.short}{runs[bit]}/{of}"

    return [label(bit, s) for bit, s in shown_order() if flags >> bit & 1]


def counts(flags: np.ndarray) -> dict[str, int]:
    """How many examples carry each signal, in registry order."""
    return {s.name: int(np.count_nonzero(flags >> bit & 1)) for bit, s in enumerate(SIGNALS)}


def versions() -> str:
    """The registry as it enters cache keys: names, order and versions."""
    return ",".join(f"{s.name}:{s.version}" for s in SIGNALS)
