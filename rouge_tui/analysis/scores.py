"""Scoring builds against one suite's references under one setting.

Nightly builds repeat most of the outputs of the build before, and an output equal to the
one last scored for its example (against the same references, under the same setting)
scores the same; so a `Scorer` keeps the last run it scored, and only the other outputs go
to the per-example score cache and, where it has no entry, to the engine (its figures side
by side: benchmarks/README.md, "Figures behind the code").
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Self

import numpy as np

from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import engine
from rouge_tui.store.cache import ScoreCache, example_key, references_key
from rouge_tui.suite.suite import Build

__all__ = ["Scorer"]


@dataclass
class _Scored:
    """One run as scored: its ids, outputs and values."""

    ids: list[str]
    outputs: list[str]
    values: np.ndarray


class Scorer:
    """Precision, recall and F of builds' runs, each example against ``references[id]``; what
    it scored goes into the cache when it is saved (`save`, or at the end of a ``with``)."""

    def __init__(self, references: Mapping[str, Sequence[str]], settings: Settings, cache: ScoreCache | None) -> None:
        self.references = references
        self.settings = settings
        self.cache = cache
        self._scoring = settings.scoring
        self._reference_keys: dict[str, bytes] = {}
        self._last: dict[int, _Scored] = {}  # run number -> the last run of that number scored
        self._new: list[tuple[list[bytes], np.ndarray]] = []  # scored, not yet in the cache

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.save()
        if self.cache is not None:
            self.cache.forget()  # what the pass read of the cache is not held after it

    def save(self) -> None:
        """Put what was scored into the cache, in one write (a write per build rewrote the
        file each time)."""
        if self.cache is not None and self._new:
            keys = [key for part, _ in self._new for key in part]
            self.cache.put(self._scoring, keys, np.concatenate([values for _, values in self._new]))
        self._new.clear()

    def score(self, build: Build, ids: list[str], tell: Callable[[float], None] = lambda fraction: None) -> np.ndarray:
        """(runs, len(ids), 3) precision, recall and F of every run of ``build``."""
        out = np.zeros((len(build.runs), len(ids), 3), dtype=np.float64)
        for r, run in enumerate(build.runs):

            def told(done: int, total: int, r: int = r) -> None:
                tell((r + done / max(total, 1)) / len(build.runs))

            out[r] = self._score_run(r, ids, [run.outputs[i] for i in ids], told)
        return out

    def _score_run(self, r: int, ids: list[str], outputs: list[str], told: engine.Progress) -> np.ndarray:
        n = len(ids)
        values = np.full((n, 3), np.nan)
        todo = list(range(n))
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
            todo = np.flatnonzero(~same).tolist()
        keys: list[bytes] = []  # of the outputs in todo, with a cache
        if self.cache is not None and todo:
            keys = [example_key(self._reference_key(ids[k]), outputs[k]) for k in todo]
            values[todo] = self.cache.get(self._scoring, keys)
            missed = np.isnan(values[todo, 0]).tolist()
            keys = [key for key, miss in zip(keys, missed) if miss]
            todo = [k for k, miss in zip(todo, missed) if miss]
        if todo:
            s = self.settings
            scored = engine.score(
                [self.references[ids[k]] for k in todo], [outputs[k] for k in todo],
                s.metric, s.tokenizer, s.stem, told, [ids[k] for k in todo],
            )
            values[todo] = scored
            if self.cache is not None:
                self._new.append((keys, scored))
        self._last[r] = _Scored(ids, outputs, values)
        return values

    def _reference_key(self, example: str) -> bytes:
        key = self._reference_keys.get(example)
        if key is None:
            key = self._reference_keys[example] = references_key(self._scoring, self.references[example])
        return key
