"""ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum, equal (as floats) to rouge-score 0.1.2's.

Low-level functions take token sequences (any hashable tokens); `Scorer` tokenises text,
interns tokens to small ints, and caches per-text work (n-gram counts, rougeLsum's sentence
bitmasks) on a `Prepared` text, so a suite can prepare each reference once and score every
build and run against it.

Float operations follow rouge-score's order: precision = matches / candidate count,
recall = matches / reference count, F = 2 * P * R / (P + R), and 0.0 when nothing matches.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Sequence
from itertools import chain
from typing import NamedTuple

from rouge_tui.metrics.lcs import Packed, lcs_length, lcs_length_ids, rows_for, traceback
from rouge_tui.metrics.tokenize import TOKENIZERS, make_tokenizer

__all__ = [
    "METRICS",
    "ZERO",
    "Prepared",
    "Score",
    "Scorer",
    "best_index",
    "best_of",
    "lsum_pairs",
    "rouge_l",
    "rouge_lsum",
    "rouge_n",
    "score_from_counts",
]

METRICS: tuple[str, ...] = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class Score(NamedTuple):
    """Precision, recall and F-measure of one metric for one pair (rouge-score's `Score`)."""

    precision: float
    recall: float
    fmeasure: float


ZERO = Score(0.0, 0.0, 0.0)


def score_from_counts(matches: int, reference_count: int, candidate_count: int) -> Score:
    """P, R and F from a match count and the two lengths, with rouge-score's float steps."""
    if not matches:
        return ZERO
    precision = matches / candidate_count
    recall = matches / reference_count
    return Score(precision, recall, 2 * precision * recall / (precision + recall))


def _check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    metrics = tuple(metrics)
    if not metrics:
        raise ValueError("no metrics asked for")
    for metric in metrics:
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}")
    return metrics


# --- on token sequences --------------------------------------------------------------------


def _ngrams(tokens: Sequence[Hashable], n: int) -> Counter[Hashable]:
    if n == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[k:] for k in range(n))))


def _overlap(reference: Counter[Hashable], candidate: Counter[Hashable]) -> int:
    """Clipped match count: sum over n-grams of the smaller of the two counts."""
    if len(reference) > len(candidate):
        reference, candidate = candidate, reference
    total = 0
    for gram, count in reference.items():
        other = candidate.get(gram)
        if other:
            total += min(other, count)
    return total


def rouge_n(reference: Sequence[Hashable], candidate: Sequence[Hashable], n: int) -> Score:
    """ROUGE-N: clipped n-gram matches over the reference's and candidate's n-gram counts."""
    if n < 1:
        raise ValueError(f"rouge-N needs n >= 1, not {n}")
    matches = _overlap(_ngrams(reference, n), _ngrams(candidate, n))
    return score_from_counts(matches, len(reference) - n + 1, len(candidate) - n + 1)


def rouge_l(reference: Sequence[Hashable], candidate: Sequence[Hashable]) -> Score:
    """ROUGE-L: longest common subsequence of the two token lists."""
    if not reference or not candidate:
        return ZERO
    lcs = lcs_length(reference, candidate)
    return score_from_counts(lcs, len(reference), len(candidate))


def lsum_pairs(
    reference: Sequence[Sequence[Hashable]],
    candidate: Sequence[Sequence[Hashable]],
    ref_packed: Packed | None = None,
    can_packed: Packed | None = None,
) -> Iterator[tuple[int, int, list[tuple[int, int]]]]:
    """(k, s, pairs) for every reference sentence k and candidate sentence s, in order.

    `pairs` are the (index in k, index in s) of the LCS rouge-score's traceback picks
    for that sentence pair; rougeLsum's union LCS of sentence k is the union of their
    first items over s. Packed layouts of the sentences may be passed in when cached.
    (`_lsum_score` inlines the same loops: it is the scoring hot path.)
    """
    ref_packed = ref_packed or Packed(reference)
    can_packed = can_packed or Packed(candidate)
    ref_masks, ref_keep, ref_offsets = ref_packed.masks, ref_packed.keep, ref_packed.offsets
    can_masks, can_keep, can_offsets = can_packed.masks, can_packed.keep, can_packed.offsets
    # One pass per candidate sentence against all reference sentences at once, and one
    # per reference sentence against all candidate sentences; the tracebacks then read
    # every sentence pair out of these rows.
    ref_rows = [rows_for(ref_masks, ref_keep, sent, True) for sent in candidate]
    for k, ref_sent in enumerate(reference):
        can_rows = rows_for(can_masks, can_keep, ref_sent, True)
        offset = ref_offsets[k]
        for s, can_sent in enumerate(candidate):
            pairs = traceback(
                ref_sent,
                can_sent,
                ref_rows[s],
                can_rows,
                ref_masks,
                can_masks,
                offset,
                can_offsets[s],
            )
            yield k, s, pairs


def _lsum_score(
    reference: Sequence[Sequence[Hashable]],
    candidate: Sequence[Sequence[Hashable]],
    candidate_counts: Counter[Hashable],
    ref_packed: Packed | None = None,
    can_packed: Packed | None = None,
) -> Score:
    """rougeLsum from sentences without empty ones (see `lsum_pairs` for the pass layout).

    Tokens must be small non-negative int ids (`lcs_length_ids`). A sentence pair's LCS
    lies on the reference positions whose token occurs in the candidate sentence (its
    "common" positions), so two cases need no traceback: every common position is already
    in the union (nothing can be added), and as many common positions as the LCS is long
    (the LCS is exactly those). Only the other pairs trace back, over passes made for them.
    """
    m = sum(map(len, reference))
    n = sum(map(len, candidate))
    if not m or not n:
        return ZERO
    ref_packed = ref_packed or Packed(reference)
    can_packed = can_packed or Packed(candidate)
    ref_masks, ref_keep, ref_offsets = ref_packed.masks, ref_packed.keep, ref_packed.offsets
    can_masks, can_keep, can_offsets = can_packed.masks, can_packed.keep, can_packed.offsets
    get = ref_masks.get
    # Per candidate sentence: the reference positions (every sentence, packed) of its tokens.
    commons = []
    for sent in candidate:
        bits = 0
        for token in set(sent):
            bits |= get(token, 0)
        commons.append(bits)
    ref_rows: list[Sequence[int] | None] = [None] * len(candidate)
    union_counts: Counter[Hashable] = Counter()
    for ref_sent, offset in zip(reference, ref_offsets):
        sentence = ((1 << len(ref_sent)) - 1) << offset
        union = 0
        can_rows = None
        for s, can_sent in enumerate(candidate):
            common = commons[s] & sentence
            if not common & ~union:
                continue  # no position this pair could add
            lcs = lcs_length_ids(ref_sent, can_sent)
            if lcs == common.bit_count():
                union |= common
                continue
            rows = ref_rows[s]
            if rows is None:
                rows = ref_rows[s] = rows_for(ref_masks, ref_keep, can_sent, True)
            if can_rows is None:
                can_rows = rows_for(can_masks, can_keep, ref_sent, True)
            for i, _ in traceback(
                ref_sent, can_sent, rows, can_rows, ref_masks, can_masks, offset, can_offsets[s]
            ):
                union |= 1 << (offset + i)
        union >>= offset
        union_counts.update([token for i, token in enumerate(ref_sent) if union >> i & 1])
    # rouge-score walks the union tokens decrementing both texts' token counts; the
    # reference's can never run out (the union is made of its own positions), so a
    # token's hits are the smaller of its union count and its candidate count.
    hits = _overlap(union_counts, candidate_counts)
    return score_from_counts(hits, m, n)


def rouge_lsum(
    reference: Sequence[Sequence[Hashable]], candidate: Sequence[Sequence[Hashable]]
) -> Score:
    """ROUGE-Lsum: summary-level union LCS over sentences (lists of tokens), clipped."""
    ids: dict[Hashable, int] = {}
    intern = ids.setdefault  # tokens become small int ids (see `_lsum_score`)
    reference = [[intern(t, len(ids)) for t in sent] for sent in reference if sent]
    candidate = [[intern(t, len(ids)) for t in sent] for sent in candidate if sent]
    counts: Counter[Hashable] = Counter()
    for sent in candidate:
        counts.update(sent)
    return _lsum_score(reference, candidate, counts)


def best_index(scores: Sequence[Score]) -> int:
    """Index of the highest F; ties go to the first (rouge-score's `score_multi` rule)."""
    if not scores:
        raise ValueError("no references to score against")
    best = 0
    for index, score in enumerate(scores):
        if score.fmeasure > scores[best].fmeasure:
            best = index
    return best


def best_of(scores: Sequence[dict[str, Score]], metrics: Sequence[str]) -> dict[str, Score]:
    """Per metric, the score with the highest F over references; ties go to the first."""
    if not scores:
        raise ValueError("no references to score against")
    return {metric: scores[best_index([s[metric] for s in scores])][metric] for metric in metrics}


# --- prepared texts and the scorer ---------------------------------------------------------


class Prepared:
    """A text tokenised and interned by one `Scorer`, with per-text work cached on it.

    `tokens` are token ids (small ints, the scorer's vocabulary); `sentences` are
    rougeLsum's sentences as token-id lists (only when the scorer computes rougeLsum,
    else None; sentences without tokens are left out, as they change nothing).
    """

    __slots__ = ("_counts", "_packed", "scorer", "sentences", "tokens")

    def __init__(
        self, scorer: Scorer, tokens: list[int], sentences: list[list[int]] | None
    ) -> None:
        self.scorer = scorer
        self.tokens = tokens
        self.sentences = sentences
        self._counts: dict[int, Counter[Hashable]] = {}
        self._packed: Packed | None = None

    def __len__(self) -> int:
        return len(self.tokens)

    def ngrams(self, n: int) -> Counter[Hashable]:
        """n-gram counts (unigrams are token ids, longer n-grams tuples of them)."""
        counts = self._counts.get(n)
        if counts is None:
            counts = self._counts[n] = _ngrams(self.tokens, n)
        return counts

    def packed(self) -> Packed:
        """LCS bitmasks over this text's sentences, packed in one integer."""
        if self._packed is None:
            if self.sentences is None:
                raise ValueError("this text was prepared without rougeLsum's sentences")
            self._packed = Packed(self.sentences)
        return self._packed


class Scorer:
    """Scores pairs on chosen metrics with one tokenizer, rouge-score's numbers exactly.

    `score` / `score_multi` take strings. For many pairs, `prepare` each text once and use
    `score_prepared` / `score_multi_prepared`; prepared texts belong to the scorer that made
    them. Safe to share between threads.
    """

    def __init__(
        self,
        metrics: Sequence[str] = ("rougeL",),
        tokenizer: str = "whitespace",
        stem: bool = False,
    ) -> None:
        self.metrics = _check_metrics(metrics)
        if tokenizer not in TOKENIZERS:
            raise ValueError(
                f"unknown tokenizer {tokenizer!r}: expected one of {', '.join(TOKENIZERS)}"
            )
        self.tokenizer = tokenizer
        self.stem = stem
        self._tokenize = make_tokenizer(tokenizer, stem)
        self._sentences = "rougeLsum" in self.metrics
        self._vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self._lock = threading.Lock()

    def prepare(self, text: str) -> Prepared:
        """Tokenise and intern `text` once for any number of `score_prepared` calls."""
        tokenize = self._tokenize
        intern = self._vocab.__getitem__  # a new token takes the next id (in C)
        if self._sentences:
            lines = [words for words in map(tokenize, text.split("\n")) if words]
            with self._lock:
                sentences = [list(map(intern, words)) for words in lines]
            tokens = list(chain.from_iterable(sentences))
            return Prepared(self, tokens, sentences)
        words = tokenize(text)
        with self._lock:
            tokens = list(map(intern, words))
        return Prepared(self, tokens, None)

    def score_prepared(self, reference: Prepared, candidate: Prepared) -> dict[str, Score]:
        """Scores of `candidate` against `reference`, both from `prepare`."""
        if reference.scorer is not self or candidate.scorer is not self:
            raise ValueError("texts prepared by another Scorer")
        result: dict[str, Score] = {}
        ref_tokens, can_tokens = reference.tokens, candidate.tokens
        for metric in self.metrics:
            if metric == "rougeL":
                if not ref_tokens or not can_tokens:
                    result[metric] = ZERO
                    continue
                lcs = lcs_length_ids(ref_tokens, can_tokens)
                result[metric] = score_from_counts(lcs, len(ref_tokens), len(can_tokens))
            elif metric == "rougeLsum":
                assert reference.sentences is not None and candidate.sentences is not None
                if not ref_tokens or not can_tokens:
                    result[metric] = ZERO
                    continue
                result[metric] = _lsum_score(
                    reference.sentences,
                    candidate.sentences,
                    candidate.ngrams(1),
                    reference.packed(),
                    candidate.packed(),
                )
            else:
                n = 1 if metric == "rouge1" else 2
                matches = _overlap(reference.ngrams(n), candidate.ngrams(n))
                result[metric] = score_from_counts(
                    matches, len(ref_tokens) - n + 1, len(can_tokens) - n + 1
                )
        return result

    def score_multi_prepared(
        self, references: Sequence[Prepared], candidate: Prepared
    ) -> dict[str, Score]:
        """Per metric, the best score over `references` (highest F, first on ties)."""
        if len(references) == 1:
            return self.score_prepared(references[0], candidate)
        return best_of([self.score_prepared(ref, candidate) for ref in references], self.metrics)

    def score(self, reference: str, candidate: str) -> dict[str, Score]:
        """Scores of `candidate` against `reference`, per metric."""
        return self.score_prepared(self.prepare(reference), self.prepare(candidate))

    def score_multi(self, references: Sequence[str], candidate: str) -> dict[str, Score]:
        """Per metric, the best score over `references` (highest F, first on ties)."""
        prepared = self.prepare(candidate)
        return self.score_multi_prepared([self.prepare(ref) for ref in references], prepared)
