"""Bulk scoring: every pair through rouge-score-rs, which gives rouge-score 0.1.2's floats.

``rows`` takes each example's references and one output per example and gives precision,
recall and F per example and metric: with several references, those of the highest F, the
first listed on ties (rouge-score's ``score_multi``); ``score`` puts them in a numpy array.
rouge-score-rs scores a batch on every core without the GIL; pairs go to it in chunks so that
progress can be told and its results (a dict per pair) never pile up for a whole suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain, islice
from operator import itemgetter
from typing import TYPE_CHECKING

import rouge_score_rs
from rouge_score_rs import rouge_scorer

from rouge_tui.rouge import metrics, tokenizers

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHUNK", "ENGINE", "rows", "score"]

# Pairs handed to rouge-score-rs at a time (their spelled texts and results are what the
# scoring holds in memory beyond the suite's texts).
CHUNK = 10_000
# What a cached score depends on besides the texts and settings: the engine and its version.
ENGINE = f"rouge-score-rs {rouge_score_rs.__version__}"

Progress = Callable[[int, int], None]  # (pairs scored, pairs in all)


def rows(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metrics_: Sequence[str],
    tokenizer: str,
    stem: bool = False,
    progress: Progress | None = None,
) -> Iterator[tuple[tuple[float, float, float], ...]]:
    """Per example, in order, the precision, recall and F of each of ``metrics_`` against the
    example's references (``references[i]``: one or more texts). Without numpy (but for the
    whitespace tokenizer's spelling), so that `score` the command starts as quickly as a
    script on rouge-score-rs would."""
    names = list(metrics_)
    for name in names:
        metrics.get(name)
    entry = tokenizers.get(tokenizer)
    if stem and (why := tokenizers.cannot_stem(tokenizer, "stemming")):
        raise ValueError(why)
    scorer = rouge_scorer.RougeScorer(names, tokenizer=entry.native(stem))
    counts = [len(texts) for texts in references]
    targets = [text for texts in references for text in texts]
    single = all(count == 1 for count in counts)
    if not single:
        outputs = [output for output, count in zip(outputs, counts) for _ in range(count)]
    pick = itemgetter(*names)
    total = len(targets)

    def chunk(start: int) -> Iterator[tuple[tuple[float, float, float], ...]]:
        stop = min(start + CHUNK, total)
        results = scorer.score_batch(entry.spell(targets[start:stop]), entry.spell(outputs[start:stop]))
        if progress is not None:
            progress(stop, total)
        return map(pick, results) if len(names) > 1 else zip(map(pick, results))

    # Lazily, a chunk at a time, and in C from rouge-score-rs's results to the caller.
    found = chain.from_iterable(map(chunk, range(0, total, CHUNK)))
    if single:
        return found
    # Per metric, the reference with the highest F; the first listed on ties (max keeps the
    # first of equals), as rouge-score's score_multi. No reference scores 0.
    none = ((0.0, 0.0, 0.0),) * len(names)
    return (
        tuple(max(scores, key=itemgetter(2)) for scores in zip(*islice(found, count))) if count else none
        for count in counts
    )


def score(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metric: str | Sequence[str],
    tokenizer: str,
    stem: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """`rows` as an array: (n, 3) float64 for one metric, (n, len(metric), 3) for a list of
    metrics (scored in one pass)."""
    import numpy as np

    names = [metric] if isinstance(metric, str) else list(metric)
    found = rows(references, outputs, names, tokenizer, stem, progress)
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(found)), np.float64, count=len(references) * len(names) * 3)
    pairs = flat.reshape(len(references), len(names), 3)
    return pairs[:, 0, :] if isinstance(metric, str) else pairs
