"""The metrics core: tokenizers, LCS and ROUGE, pure functions with no I/O.

Scores equal rouge-score 0.1.2's as floats (its tokenizer with or without Porter stemming,
or the chapter's `lower().split()`), computed with bit-parallel LCS.

Scoring many pairs::

    scorer = Scorer(["rougeL", "rougeLsum"], tokenizer="rouge-score", stem=True)
    ref = scorer.prepare(reference_text)          # once per reference
    out = scorer.prepare(output_text)             # once per output
    scores = scorer.score_prepared(ref, out)      # {"rougeL": Score(p, r, f), ...}
    best = scorer.score_multi_prepared([ref1, ref2], out)  # highest F, first on ties

`Scorer.score(reference, candidate)` and `score_multi(references, candidate)` do the same
from strings. On token lists: `rouge_n`, `rouge_l`, `rouge_lsum` (sentences as token lists).

Highlights for the diff view::

    a = alignment(reference, candidate, "rougeL", "whitespace", stem=False)
    a.reference[i].start, a.reference[i].end      # offsets into the text as written
    a.reference_hits, a.candidate_hits            # token indices on the LCS / hits
    a.score                                       # equal to the Scorer's score
    align_outputs(tokens_a, tokens_b)             # [("equal", i, j), ("delete", i), ...]

Tokenizers: `tokenize(text, name, stem)` / `make_tokenizer(name, stem)` (fast, `list[str]`),
`tokenize_with_offsets` (`Token(text, start, end)`), `sentences`, `sentence_tokens`.
Stemming with the whitespace tokenizer is a ValueError; stemming without NLTK raises
`StemmerUnavailable`.

LCS: `lcs_length(a, b)`, `lcs_indices(ref, can)` and `lcs_pairs(ref, can)` (the LCS
rouge-score's traceback picks, tie rule included).
"""

from rouge_tui.metrics.align import Alignment, align_outputs, alignment
from rouge_tui.metrics.lcs import lcs_indices, lcs_length, lcs_pairs
from rouge_tui.metrics.rouge import (
    METRICS,
    ZERO,
    Prepared,
    Score,
    Scorer,
    best_index,
    best_of,
    rouge_l,
    rouge_lsum,
    rouge_n,
    score_from_counts,
)
from rouge_tui.metrics.tokenize import (
    TOKENIZERS,
    StemmerUnavailable,
    Token,
    make_tokenizer,
    sentence_spans,
    sentence_tokens,
    sentences,
    tokenize,
    tokenize_with_offsets,
)

__all__ = [
    "METRICS",
    "TOKENIZERS",
    "ZERO",
    "Alignment",
    "Prepared",
    "Score",
    "Scorer",
    "StemmerUnavailable",
    "Token",
    "align_outputs",
    "alignment",
    "best_index",
    "best_of",
    "lcs_indices",
    "lcs_length",
    "lcs_pairs",
    "make_tokenizer",
    "rouge_l",
    "rouge_lsum",
    "rouge_n",
    "score_from_counts",
    "sentence_spans",
    "sentence_tokens",
    "sentences",
    "tokenize",
    "tokenize_with_offsets",
]
