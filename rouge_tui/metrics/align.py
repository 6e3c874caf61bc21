"""Word-level alignments for the diff view, consistent with the scores.

`alignment` says which words of a reference and a candidate the metric matched, on tokens
that keep their offsets into the text as written; the number of matched words on each side
is the match count in the metric's precision and recall. `align_outputs` aligns two
outputs (baseline and candidate) word by word for the baseline-vs-candidate diff.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from operator import itemgetter

from rouge_tui.metrics.lcs import lcs_pairs
from rouge_tui.metrics.rouge import METRICS, ZERO, Score, score_from_counts
from rouge_tui.metrics.tokenize import Token, tokenize_with_offsets, tokens_by_sentence

__all__ = ["Alignment", "Op", "align_outputs", "alignment"]

Op = tuple[str, int] | tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class Alignment:
    """What one metric matched between a reference and a candidate.

    `pairs` are matched (reference index, candidate index) pairs into `reference` and
    `candidate` (tokens with offsets), sorted by reference index; there are exactly
    `matches` of them, the numerator of `score`'s precision and recall, whose
    denominators are `candidate_count` and `reference_count`. For rougeL they are
    rouge-score's LCS; for rougeLsum the union-LCS hits rouge-score counts; for rouge1 and
    rouge2 the clipped n-gram matches, each pair giving the first token of an n-gram
    (`span` tokens long).
    """

    metric: str
    reference: tuple[Token, ...]
    candidate: tuple[Token, ...]
    pairs: tuple[tuple[int, int], ...]
    reference_hits: tuple[int, ...]
    candidate_hits: tuple[int, ...]
    score: Score
    span: int
    reference_count: int
    candidate_count: int

    @property
    def matches(self) -> int:
        """The match count (LCS length, union-LCS hits or clipped n-gram matches)."""
        return len(self.pairs)


# A token's text (a C-level read: tokens are tuples underneath); a pair's two sides.
_text = _first = itemgetter(0)
_second = itemgetter(1)


def _texts(tokens: Sequence[Token]) -> list[str]:
    return list(map(_text, tokens))


def _lcs_alignment(ref: list[Token], can: list[Token]) -> tuple[list[tuple[int, int]], int, int]:
    pairs = lcs_pairs(_texts(ref), _texts(can))
    return pairs, len(ref), len(can)


def _ngram_alignment(
    ref: list[Token], can: list[Token], n: int
) -> tuple[list[tuple[int, int]], int, int]:
    def starts(tokens: list[Token]) -> dict[tuple[str, ...], list[int]]:
        texts = _texts(tokens)
        where: dict[tuple[str, ...], list[int]] = {}
        for k in range(len(texts) - n + 1):
            where.setdefault(tuple(texts[k : k + n]), []).append(k)
        return where

    can_starts = starts(can)
    pairs: list[tuple[int, int]] = []
    for gram, ref_at in starts(ref).items():
        # zip stops at the shorter list: the count is clipped, as ROUGE-N clips it.
        pairs.extend(zip(ref_at, can_starts.get(gram, ())))
    pairs.sort()
    return pairs, max(len(ref) - n + 1, 0), max(len(can) - n + 1, 0)


def _lsum_alignment(
    ref_sents: list[list[Token]], can_sents: list[list[Token]]
) -> tuple[list[tuple[int, int]], int, int]:
    ref_texts = [_texts(sent) for sent in ref_sents if sent]
    can_texts = [_texts(sent) for sent in can_sents if sent]
    ref_flat = [text for sent in ref_texts for text in sent]
    can_flat = [text for sent in can_texts for text in sent]
    if not ref_flat or not can_flat:
        return [], len(ref_flat), len(can_flat)

    import numpy as np  # here: the core metrics load without numpy (see test_tokenize)

    from rouge_tui.metrics.lsum import union_matches

    # Every match the tracebacks take, as (reference position, candidate position) over
    # each text's sentences end to end, sorted: a reference position's partners come in
    # candidate-sentence order. The union LCS is the set of these reference positions.
    ref_pos, can_pos = union_matches(ref_texts, can_texts)
    union, first = np.unique(ref_pos, return_index=True)
    bounds = [*first.tolist(), len(ref_pos)]
    partners = can_pos.tolist()

    # rouge-score counts union tokens in reference order while the candidate still has
    # that token left to give.
    left = Counter(can_flat)
    by_token: dict[Hashable, list[int]] = {}
    for j, text in enumerate(can_flat):
        by_token.setdefault(text, []).append(j)
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for n, i in enumerate(union.tolist()):
        token = ref_flat[i]
        if left[token] <= 0:
            continue
        left[token] -= 1
        # Show the hit on a candidate word the LCS matched it with, if one is still free,
        # else on the first free candidate occurrence of the word (one always remains).
        j = next((j for j in partners[bounds[n] : bounds[n + 1]] if j not in used), None)
        if j is None:
            j = next(j for j in by_token[token] if j not in used)
        used.add(j)
        pairs.append((i, j))
    return pairs, len(ref_flat), len(can_flat)


def alignment(
    reference: str,
    candidate: str,
    metric: str = "rougeL",
    tokenizer: str = "whitespace",
    stem: bool = False,
    *,
    reference_tokens: Sequence[Token] | None = None,
    candidate_tokens: Sequence[Token] | None = None,
) -> Alignment:
    """The words of `reference` and `candidate` that `metric` matched, and its score.

    `reference_tokens` / `candidate_tokens`, when the caller has them, are the texts'
    `tokenize_with_offsets(text, tokenizer, stem)` (a reference aligned with both outputs
    is tokenised once).
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}")
    if reference_tokens is None:
        reference_tokens = tokenize_with_offsets(reference, tokenizer, stem)
    if candidate_tokens is None:
        candidate_tokens = tokenize_with_offsets(candidate, tokenizer, stem)
    ref, can = list(reference_tokens), list(candidate_tokens)
    span = 1
    if metric == "rougeLsum":
        # Concatenated, the sentences' tokens are the text's tokens (`sentence_tokens`).
        ref_sents = tokens_by_sentence(reference, ref)
        can_sents = tokens_by_sentence(candidate, can)
        pairs, ref_count, can_count = _lsum_alignment(ref_sents, can_sents)
    elif metric == "rougeL":
        pairs, ref_count, can_count = _lcs_alignment(ref, can)
    else:
        span = 1 if metric == "rouge1" else 2
        pairs, ref_count, can_count = _ngram_alignment(ref, can, span)
    score = score_from_counts(len(pairs), ref_count, can_count) if pairs else ZERO
    return Alignment(
        metric=metric,
        reference=tuple(ref),
        candidate=tuple(can),
        pairs=tuple(pairs),
        reference_hits=tuple(sorted(map(_first, pairs))),
        candidate_hits=tuple(sorted(map(_second, pairs))),
        score=score,
        span=span,
        reference_count=ref_count,
        candidate_count=can_count,
    )


def align_outputs(a_tokens: Sequence[Hashable], b_tokens: Sequence[Hashable]) -> list[Op]:
    """Word-level LCS alignment of two outputs, as ops in reading order.

    ("equal", i, j) pairs a[i] with b[j]; ("delete", i) is a word only in `a`;
    ("insert", j) a word only in `b`. Within a gap, deletions come before insertions.
    `Token`s are compared by their text; other items as they are.
    """
    a = [t.text if isinstance(t, Token) else t for t in a_tokens]
    b = [t.text if isinstance(t, Token) else t for t in b_tokens]
    ops: list[Op] = []
    i = j = 0
    for pi, pj in [*lcs_pairs(a, b), (len(a), len(b))]:
        ops.extend(("delete", k) for k in range(i, pi))
        ops.extend(("insert", k) for k in range(j, pj))
        if pi < len(a):
            ops.append(("equal", pi, pj))
        i, j = pi + 1, pj + 1
    return ops
