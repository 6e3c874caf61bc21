"""Scoring builds against one suite's references under one setting, a build at a time.

A build's scores are one table: its own ids that have a usable reference, in its order, and
each run's precision, recall and F of each. The cache keeps that table under the build's
bytes (each run file's digest), the references' bytes and the field names they were read
with, and the scoring setting (metric, tokenizer, stemming, the engine's version): one entry
a build, read whole or rebuilt whole.

Nightly builds repeat most of the outputs of the build before, and an output equal to the
one last scored for its example (against the same references, under the same setting)
scores the same; so a `Scorer` keeps the last table of each run number it scored or read,
and only the other outputs go to the engine, with the cache or without.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import engine
from rouge_tui.store.cache import BlobCache, key, pack, unpack
from rouge_tui.suite.records import References
from rouge_tui.suite.suite import Build

__all__ = ["Scorer", "Table"]


@dataclass
class Table:
    """One build's scores: ``ids`` (its own with a usable reference, in its order) and
    ``values``, (runs, len(ids), 3) precision, recall and F."""

    ids: list[str]
    values: np.ndarray

    def to_bytes(self) -> bytes:
        return pack({"ids": self.ids, "runs": len(self.values)}, self.values)

    @classmethod
    def from_bytes(cls, data: bytes) -> Table:
        """What `to_bytes` wrote; a ValueError for anything that does not check out."""
        head, flat = unpack(data)
        ids, runs = head.get("ids"), head.get("runs")
        if (not isinstance(ids, list) or not set(map(type, ids)) <= {str} or len(set(ids)) != len(ids)
                or type(runs) is not int or runs < 1 or flat.size != runs * len(ids) * 3):
            raise ValueError("a cached score table does not check out")
        return cls._scores(ids, runs, flat)

    @classmethod
    def of_ids(cls, data: bytes, ids: list[str], runs: int) -> Table:
        """What `to_bytes` wrote for exactly ``ids`` and ``runs``, holding ``ids`` itself (a
        build's own list); a ValueError for anything else. The head is compared as bytes
        with the one written for them, so its strings, a second million of them at 1M
        examples, and the set that checks them are never made."""
        head = pack({"ids": ids, "runs": runs}, np.zeros(0))
        if not data.startswith(head) or len(data) != len(head) + 8 * runs * len(ids) * 3:
            raise ValueError("a cached score table of other ids")
        return cls._scores(ids, runs, np.frombuffer(data, "<f8", offset=len(head)).astype(np.float64))

    @classmethod
    def _scores(cls, ids: list[str], runs: int, flat: np.ndarray) -> Table:
        """The table of ``flat``'s values, each a precision, recall or F in [0, 1]."""
        if not np.all((flat >= 0) & (flat <= 1)):  # NaN fails too
            raise ValueError("a cached score table holds a value outside [0, 1]")
        return cls(ids, flat.reshape(runs, len(ids), 3))


@dataclass
class _Scored:
    """One run as scored: its ids, outputs and values."""

    ids: list[str]
    outputs: list[str]
    values: np.ndarray


class Scorer:
    """Each build's `Table` against ``references``, from the cache (``cache``; None: from
    scratch) or scored and kept there; ``fields``: how the suite's files were read (the
    field names), part of every key."""

    def __init__(self, references: References, settings: Settings, cache: BlobCache | None, fields: str = "") -> None:
        self.references = references
        self.settings = settings
        self.cache = cache
        self.fields = fields
        self._last: dict[int, _Scored] = {}  # run number -> the last run of that number scored or read

    def _key(self, digests: Sequence[str]) -> str | None:
        if self.cache is None or not digests or not all(digests):  # no bytes named: not kept
            return None
        return key("scores", self.settings.scoring, self.references.digest, self.fields, list(digests))

    def stored(self, digests: Sequence[str], ids: list[str] | None = None) -> Table | None:
        """The table kept for a build whose run files have these digests, or None; ``ids``:
        the ids it must hold, in order (the table then holds this list)."""
        name = self._key(digests)
        found = None if name is None else self.cache.get(name)
        if found is None:
            return None
        try:
            table = Table.from_bytes(found) if ids is None else Table.of_ids(found, ids, len(digests))
        except ValueError:
            return None
        return table if len(table.values) == len(digests) else None

    def table(self, build: Build, tell: Callable[[float], None] = lambda fraction: None) -> Table:
        """``build``'s table: kept, or scored (only the outputs that differ from the run of
        the same number last scored or read) and kept."""
        usable = self.references.usable
        ids = build.ids if usable.issuperset(build.ids) else [i for i in build.ids if i in usable]
        digests = [run.digest for run in build.runs]
        table = self.stored(digests, ids)
        if table is None:
            table = Table(ids, np.zeros((len(build.runs), len(ids), 3), dtype=np.float64))
            for r, run in enumerate(build.runs):

                def told(done: int, total: int, r: int = r) -> None:
                    tell((r + done / max(total, 1)) / len(build.runs))

                self._score_run(r, ids, list(map(run.outputs.__getitem__, ids)), told, table.values[r])
            name = self._key(digests)
            if name is not None:
                self.cache.put(name, table.to_bytes())
        else:
            for r, run in enumerate(build.runs):
                self._last[r] = _Scored(ids, list(map(run.outputs.__getitem__, ids)), table.values[r])
        return table

    def score(self, build: Build, ids: list[str], tell: Callable[[float], None] = lambda fraction: None) -> np.ndarray:
        """(runs, len(ids), 3) precision, recall and F of every run of ``build`` (``ids``:
        some of its own with a usable reference)."""
        try:
            table = self.table(build, tell)
        except engine.TooLong:
            # The example refused may be one the comparison leaves out (in this build only):
            # the compared ones alone, kept nowhere; one of them refused is refused again.
            return np.stack([self._score_run(r, ids, list(map(run.outputs.__getitem__, ids)), lambda done, total: None)
                             for r, run in enumerate(build.runs)])
        if table.ids == ids:  # the usual case: the same examples in the same order
            return table.values
        where = {example: row for row, example in enumerate(table.ids)}
        return table.values[:, [where[i] for i in ids]]

    def _score_run(self, r: int, ids: list[str], outputs: list[str], told: engine.PairProgress,
                   values: np.ndarray | None = None) -> np.ndarray:
        """Run ``r``'s (n, 3) scores, in ``values`` when given (the table's row, which the
        next build's scoring then reads: one copy of the scores)."""
        n = len(ids)
        if values is None:
            values = np.empty((n, 3))
        todo = np.arange(n)
        last = self._last.get(r)
        if last is not None:
            if last.ids == ids:  # the usual case: the same examples in the same order
                rows = np.arange(n)
                same = np.fromiter(map(operator.eq, last.outputs, outputs), bool, n)
            else:
                where = {example: row for row, example in enumerate(last.ids)}
                rows = np.fromiter((where.get(example, -1) for example in ids), np.intp, n)
                same = np.fromiter((row >= 0 and last.outputs[row] == output
                                    for row, output in zip(rows.tolist(), outputs)), bool, n)
            values[same] = last.values[rows[same]]
            todo = np.flatnonzero(~same)
        if len(todo):
            s = self.settings
            every = len(todo) == n
            some = ids if every else [ids[k] for k in todo.tolist()]
            values[todo] = engine.score(
                list(map(self.references.texts.__getitem__, some)),
                outputs if every else [outputs[k] for k in todo.tolist()], s.metric, s.tokenizer, s.stem, told, some,
            )
        self._last[r] = _Scored(ids, outputs, values)
        return values
