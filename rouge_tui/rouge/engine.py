"""Bulk scoring: every pair through rouge-score-rs, which gives rouge-score 0.1.2's floats.

``score`` takes each example's references and one output per example and returns precision,
recall and F per example: with several references, those of the highest F, the first listed
on ties (rouge-score's ``score_multi``). rouge-score-rs scores a batch on every core without
the GIL; pairs go to it in chunks so that progress can be told and its results (a dict per
pair) never pile up for a whole suite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from operator import itemgetter

import numpy as np
import rouge_score_rs
from rouge_score_rs import rouge_scorer

from rouge_tui.rouge import metrics, tokenizers

__all__ = ["CHUNK", "ENGINE", "score"]

# Pairs handed to rouge-score-rs at a time (their spelled texts and results are what the
# scoring holds in memory beyond the suite's texts).
CHUNK = 10_000
# What a cached score depends on besides the texts and settings: the engine and its version.
ENGINE = f"rouge-score-rs {rouge_score_rs.__version__}"

Progress = Callable[[int, int], None]  # (pairs scored, pairs in all)


def score(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metric: str | Sequence[str],
    tokenizer: str,
    stem: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """Precision, recall and F of each output against its example's references
    (``references[i]``: one or more texts): an (n, 3) float64 array for one metric, an
    (n, len(metric), 3) one for a list of metrics (scored in one pass)."""
    names = [metric] if isinstance(metric, str) else list(metric)
    for name in names:
        metrics.get(name)
    entry = tokenizers.get(tokenizer)
    if stem and not entry.stems:
        raise ValueError(f"stemming is part of the rouge-score tokenizer, not {tokenizer!r}")
    scorer = rouge_scorer.RougeScorer(names, tokenizer=entry.native(stem))
    if all(len(texts) == 1 for texts in references):
        targets, owners = [texts[0] for texts in references], None
    else:
        targets = [text for texts in references for text in texts]
        owners = np.repeat(np.arange(len(references)), [len(texts) for texts in references])
        outputs = [outputs[i] for i in owners.tolist()]
    total = len(targets)
    pairs = np.zeros((total, len(names), 3), dtype=np.float64)
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        results = scorer.score_batch(
            entry.spell(targets[start:stop]), entry.spell(outputs[start:stop])
        )
        scores = map(itemgetter(*names), results)  # one metric: a Score each; several: tuples
        if len(names) > 1:
            scores = chain.from_iterable(scores)
        count = (stop - start) * len(names) * 3
        block = np.fromiter(chain.from_iterable(scores), dtype=np.float64, count=count)
        pairs[start:stop] = block.reshape(stop - start, len(names), 3)
        if progress is not None:
            progress(stop, total)
    if owners is not None:
        pairs = _best(pairs, owners, len(references))
    return pairs[:, 0, :] if isinstance(metric, str) else pairs


def _best(pairs: np.ndarray, owners: np.ndarray, count: int) -> np.ndarray:
    """Per example and metric, the reference with the highest F, the first listed on ties."""
    best = np.zeros((count, pairs.shape[1], 3), dtype=np.float64)
    seen = np.zeros((count, pairs.shape[1]), dtype=bool)
    for row, owner in enumerate(owners.tolist()):
        better = ~seen[owner] | (pairs[row, :, 2] > best[owner, :, 2])
        best[owner, better] = pairs[row, better]
        seen[owner] |= better
    return best
