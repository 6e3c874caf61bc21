"""Scoring a build's runs over a list of example ids, through the per-example score cache:
only the outputs the cache has not seen go to the engine."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import engine
from rouge_tui.store.cache import ScoreCache, example_key, references_key
from rouge_tui.suite import Build

__all__ = ["score_build"]


def score_build(
    build: Build,
    ids: list[str],
    references: list[tuple[str, ...]],
    settings: Settings,
    cache: ScoreCache | None,
    tell: Callable[[float], None] = lambda fraction: None,
    ref_keys: list[bytes] | None = None,
) -> np.ndarray:
    """(runs, len(ids), 3) precision, recall and F of every run of ``build``. ``ref_keys``
    (each example's `references_key`) may be passed when several builds share them."""
    out = np.zeros((len(build.runs), len(ids), 3), dtype=np.float64)
    if cache is not None and ref_keys is None:
        ref_keys = [references_key(settings.scoring, refs) for refs in references]
    for r, run in enumerate(build.runs):
        outputs = [run.outputs[i] for i in ids]

        def told(done: int, total: int, r: int = r) -> None:
            tell((r + done / max(total, 1)) / len(build.runs))

        if cache is None:
            out[r] = engine.score(references, outputs, settings.metric, settings.tokenizer, settings.stem, told)
            continue
        keys = [example_key(k, text) for k, text in zip(ref_keys, outputs)]
        values = cache.get(settings.scoring, keys)
        missed = np.flatnonzero(np.isnan(values[:, 0])).tolist()
        if missed:
            scored = engine.score(
                [references[i] for i in missed], [outputs[i] for i in missed],
                settings.metric, settings.tokenizer, settings.stem, told,
            )
            values[missed] = scored
            cache.put(settings.scoring, [keys[i] for i in missed], scored)
        out[r] = values
    return out
