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
from rouge_tui.safetext import one_line

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHUNK", "ENGINE", "PairProgress", "TooLong", "rows", "score"]

# Pairs handed to rouge-score-rs at a time (their spelled texts and results are what the
# scoring holds in memory beyond the suite's texts): fewer keep a big report's peak within
# its memory budget at the same speed (benchmarks/README.md, "Figures behind the code").
CHUNK = 2_500
# What a cached score depends on besides the texts and settings: the engine and its version.
ENGINE = f"rouge-score-rs {rouge_score_rs.__version__}"

PairProgress = Callable[[int, int], None]  # (pairs scored, pairs in all)

# rouge-score-rs's rougeLsum fills a table of (n + 1) x (m + 1) four-byte cells for each
# pair of lines of n and m tokens (one a reference's, one an output's): 110,000 tokens a
# side asked for 48 GB and aborted the process. Past this many cells for one pair of lines
# (200 MB), or for all of an example's (the README's "about 20 s"), the example is refused
# with its name instead.
MOST_LSUM_CELLS = 50_000_000
MOST_LSUM_EXAMPLE_CELLS = 1_000_000_000


class TooLong(ValueError):
    """An example rougeLsum cannot score within `MOST_LSUM_CELLS` / `MOST_LSUM_EXAMPLE_CELLS`."""


def rows(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metrics_: Sequence[str],
    tokenizer: str,
    stem: bool = False,
    progress: PairProgress | None = None,
    ids: Sequence[str] | None = None,
) -> Iterator[tuple[tuple[float, float, float], ...]]:
    """Per example, in order, the precision, recall and F of each of ``metrics_`` against the
    example's references (``references[i]``: one or more texts). Without numpy (but for the
    whitespace tokenizer's spelling), so that `score` the command starts as quickly as a
    script on rouge-score-rs would. `TooLong` names (by ``ids``, else by number) an example
    whose lines are too long for rougeLsum (`_check_lines`), before any scoring."""
    names = list(metrics_)
    for name in names:
        metrics.get(name)
    entry = tokenizers.get(tokenizer)
    if stem and (why := tokenizers.cannot_stem(tokenizer, "stemming")):
        raise ValueError(why)
    if "rougeLsum" in names:
        _check_lines(references, outputs, entry, stem, ids)
    scorer = rouge_scorer.RougeScorer(names, tokenizer=entry.native(stem))
    counts = list(map(len, references))
    targets = list(chain.from_iterable(references))
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


def _check_lines(references: Sequence[Sequence[str]], outputs: Sequence[str], entry: tokenizers.Tokenizer,
                 stem: bool, ids: Sequence[str] | None) -> None:
    """Refuse the first example with a pair of lines past `MOST_LSUM_CELLS`, or lines past
    `MOST_LSUM_EXAMPLE_CELLS` together, for rougeLsum. Lengths bound tokens
    (`most_per_character`), so only pairs of long texts are tokenized."""
    bound = entry.most_per_character
    longest = max((len(text) for texts in references for text in texts), default=0)
    if (longest * bound + 1) * (max(map(len, outputs), default=0) * bound + 1) <= MOST_LSUM_CELLS:
        return  # the usual case: no pair of texts is long enough

    def lines(text: str) -> list[int]:  # tokens per line, as rougeLsum cuts (and drops empty) lines
        return [len(native.tokenize(line)) for line in entry.spell([text])[0].split("\n") if line] or [0]

    native = entry.native(stem)
    for example, (texts, output) in enumerate(zip(references, outputs)):
        for text in texts:
            if (len(text) * bound + 1) * (len(output) * bound + 1) <= MOST_LSUM_CELLS:
                continue
            a, b = lines(text), lines(output)
            name = f"example '{one_line(ids[example], 40)}'" if ids is not None else f"pair {example + 1}"
            cells = (max(a) + 1) * (max(b) + 1)
            if cells > MOST_LSUM_CELLS:
                raise TooLong(
                    f"{name}: rougeLsum cannot score a line of {max(b):,} tokens against a reference line "
                    f"of {max(a):,} (its table would take {4 * cells / 1e9:.1f} GB); rougeL can"
                )
            if (sum(a) + len(a)) * (sum(b) + len(b)) > MOST_LSUM_EXAMPLE_CELLS:
                raise TooLong(
                    f"{name}: rougeLsum cannot score {sum(b):,} tokens in {len(b):,} lines against "
                    f"{sum(a):,} in {len(a):,} in reasonable time; rougeL can"
                )


def score(
    references: Sequence[Sequence[str]],
    outputs: Sequence[str],
    metric: str | Sequence[str],
    tokenizer: str,
    stem: bool = False,
    progress: PairProgress | None = None,
    ids: Sequence[str] | None = None,
) -> np.ndarray:
    """`rows` as an array: (n, 3) float64 for one metric, (n, len(metric), 3) for a list of
    metrics (scored in one pass)."""
    import numpy as np

    names = [metric] if isinstance(metric, str) else list(metric)
    found = rows(references, outputs, names, tokenizer, stem, progress, ids)
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(found)), np.float64, count=len(references) * len(names) * 3)
    pairs = flat.reshape(len(references), len(names), 3)
    return pairs[:, 0, :] if isinstance(metric, str) else pairs
