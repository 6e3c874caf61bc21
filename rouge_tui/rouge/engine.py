"""Bulk scoring: every pair through rouge-score-rs, which gives rouge-score 0.1.2's floats.

``score`` takes each example's references and one output per example and returns precision,
recall and F per example: with several references, those of the highest F, the first listed
on ties (rouge-score's ``score_multi``). rouge-score-rs scores a batch on every core without
the GIL; pairs go to it in chunks so that progress can be told and its results (a dict per
pair) never pile up for a whole suite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import rouge_score_rs
from rouge_score_rs import rouge_scorer

from rouge_tui.rouge import metrics, tokenizers

__all__ = ["CHUNK", "ENGINE", "score"]

# Pairs handed to rouge-score-rs at a time.
CHUNK = 20_000
# What a cached score depends on besides the texts and settings: the engine and its version.
ENGINE = f"rouge-score-rs {rouge_score_rs.__version__}"

Progress = Callable[[int, int], None]  # (pairs scored, pairs in all)


def score(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metric: str,
    tokenizer: str,
    stem: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """An (n, 3) float64 array of precision, recall and F for each output against its
    example's references (``references[i]``: one or more texts)."""
    entry = tokenizers.get(tokenizer)
    metrics.get(metric)
    if stem and not entry.stems:
        raise ValueError(f"stemming is part of the rouge-score tokenizer, not {tokenizer!r}")
    scorer = rouge_scorer.RougeScorer([metric], tokenizer=entry.native(stem))
    if all(len(texts) == 1 for texts in references):
        targets, owners = [texts[0] for texts in references], None
    else:
        targets = [text for texts in references for text in texts]
        owners = np.repeat(np.arange(len(references)), [len(texts) for texts in references])
        outputs = [outputs[i] for i in owners.tolist()]
    total = len(targets)
    pairs = np.zeros((total, 3), dtype=np.float64)
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        results = scorer.score_batch(
            entry.spell(targets[start:stop]), entry.spell(outputs[start:stop])
        )
        pairs[start:stop] = [result[metric] for result in results]
        if progress is not None:
            progress(stop, total)
    if owners is None:
        return pairs
    best = np.zeros((len(references), 3), dtype=np.float64)
    seen = np.zeros(len(references), dtype=bool)
    for row, owner in enumerate(owners.tolist()):
        if not seen[owner] or pairs[row, 2] > best[owner, 2]:
            best[owner] = pairs[row]
            seen[owner] = True
    return best
