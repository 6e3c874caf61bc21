"""Which words count: the alignment behind every highlight, in rouge-score's own terms.

Bulk scores come from rouge-score-rs (`engine`); a person opens one example at a time, and
this module says, for that example, which tokens of each text make up its score. The counts
it finds give the same floats as rouge-score 0.1.2 (tests/test_align.py checks them against
rouge-score's ``_backtrack_norec`` and ``_union_lcs`` and against rouge-score-rs), so the
highlighted words are exactly the counted ones:

- rougeL: the LCS rouge-score's traceback picks (its tie rule: left when
  ``t[i][j-1] > t[i-1][j]``, else up);
- rougeLsum: summary-level hits, the union LCS of each reference sentence over the
  candidate sentences, clipped by token counts; each hit is drawn on a candidate word the
  union paired with it, else on the first free candidate word with the same token;
- rouge1 / rouge2: the clipped n-gram overlap, drawn on the first occurrences on each side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

__all__ = ["Match", "lcs_pairs", "match_lcs", "match_ngrams", "match_summary"]


def lcs_pairs(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The (reference index, candidate index) pairs of the LCS that rouge-score's
    ``_backtrack_norec`` walks back through its ``_lcs_table``.

    The table is not built: its rows come from the bit-parallel LCS pass (Allison-Dix,
    Hyyro), one integer per reference token whose bit j is 0 where the table steps up at
    candidate position j, so ``t[i][j]`` is the number of zero bits of row i below bit j.
    """
    return _pairs(ref, can, _masks(can))


def _masks(can: Sequence[Hashable]) -> dict[Hashable, int]:
    """For each candidate token, the bits of the positions where it stands."""
    masks: dict[Hashable, int] = {}
    for j, token in enumerate(can):
        masks[token] = masks.get(token, 0) | (1 << j)
    return masks


def _pairs(ref: Sequence[Hashable], can: Sequence[Hashable], masks: dict[Hashable, int]) -> list[tuple[int, int]]:
    m, n = len(ref), len(can)
    if not m or not n:
        return []
    full = (1 << n) - 1
    rows = [full]
    row = full
    for token in ref:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
        rows.append(row)

    # Each pair the walk takes lowers t by one and no other step does, so once it has taken
    # t[m][n] pairs the rest of the walk is through zeros and takes none.
    length = n - rows[m].bit_count()
    pairs = []
    i, j = m, n
    while len(pairs) < length:
        if ref[i - 1] == can[j - 1]:
            pairs.append((i - 1, j - 1))
            i -= 1
            j -= 1
            continue
        left_bits = (1 << (j - 1)) - 1  # t[i][j-1] > t[i-1][j], each as zero bits below
        if j - 1 - (rows[i] & left_bits).bit_count() > j - (rows[i - 1] & (left_bits | 1 << (j - 1))).bit_count():
            j -= 1
        else:
            i -= 1
    pairs.reverse()
    return pairs


def fmeasure(precision: float, recall: float) -> float:
    """rouge-score's ``scoring.fmeasure``, operation for operation."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


@dataclass
class Match:
    """One output scored against one reference: the counted tokens of each side and the
    arithmetic of the score. ``matches / candidate_len`` is the precision, ``matches /
    reference_len`` the recall (rouge-n divides by at least 1, as rouge-score does)."""

    matches: int
    candidate_len: int
    reference_len: int
    precision: float
    recall: float
    fmeasure: float
    candidate_on: set[int] = field(default_factory=set)  # token indices drawn as counted
    reference_on: set[int] = field(default_factory=set)


def _match(matches: int, cand_len: int, ref_len: int, cand_on: set, ref_on: set, floor: int = 0) -> Match:
    precision = matches / max(cand_len, floor) if cand_len or floor else 0.0
    recall = matches / max(ref_len, floor) if ref_len or floor else 0.0
    return Match(
        matches, cand_len, ref_len, precision, recall, fmeasure(precision, recall), cand_on, ref_on
    )


def match_lcs(ref: Sequence[str], can: Sequence[str]) -> Match:
    """rougeL: rouge-score's ``_score_lcs`` (zero when either side has no token)."""
    if not ref or not can:
        return _match(0, len(can), len(ref), set(), set())
    pairs = lcs_pairs(ref, can)
    return _match(len(pairs), len(can), len(ref), {j for _, j in pairs}, {i for i, _ in pairs})


def match_ngrams(ref: Sequence[str], can: Sequence[str], n: int) -> Match:
    """rouge-n: rouge-score's ``_score_ngrams`` over ``_create_ngrams``."""
    ref_grams = [tuple(ref[i : i + n]) for i in range(len(ref) - n + 1)]
    can_grams = [tuple(can[i : i + n]) for i in range(len(can) - n + 1)]
    ref_counts, can_counts = Counter(ref_grams), Counter(can_grams)
    shared = {gram: min(count, can_counts[gram]) for gram, count in ref_counts.items()}
    matches = sum(shared.values())

    def first(grams: list[tuple[str, ...]]) -> set[int]:
        left = dict(shared)
        on: set[int] = set()
        for start, gram in enumerate(grams):
            if left.get(gram, 0) > 0:
                left[gram] -= 1
                on.update(range(start, start + n))
        return on

    return _match(matches, len(can_grams), len(ref_grams), first(can_grams), first(ref_grams), 1)


def match_summary(ref_sentences: Sequence[Sequence[str]], can_sentences: Sequence[Sequence[str]]) -> Match:
    """rougeLsum: rouge-score's ``_summary_level_lcs``; token indices count through the
    sentences in order (the second sentence's first token follows the first's last)."""
    m = sum(map(len, ref_sentences))
    n = sum(map(len, can_sentences))
    if not ref_sentences or not can_sentences or not m or not n:
        return _match(0, n, m, set(), set())
    ref_left = Counter(t for s in ref_sentences for t in s)
    can_left = Counter(t for s in can_sentences for t in s)
    can_starts, start = [], 0
    for sentence in can_sentences:
        can_starts.append(start)
        start += len(sentence)
    can_flat = [t for s in can_sentences for t in s]
    can_masks = [_masks(sentence) for sentence in can_sentences]
    ref_on: set[int] = set()
    can_on: set[int] = set()
    ref_start = 0
    for ref_sentence in ref_sentences:
        partners: dict[int, list[int]] = {}  # reference index -> candidate indices it met
        for offset, can_sentence, masks in zip(can_starts, can_sentences, can_masks):
            for i, j in _pairs(ref_sentence, can_sentence, masks):
                partners.setdefault(i, []).append(offset + j)
        for i in sorted(partners):  # rouge-score's _find_union: the sorted union
            token = ref_sentence[i]
            if can_left[token] > 0 and ref_left[token] > 0:
                can_left[token] -= 1
                ref_left[token] -= 1
                ref_on.add(ref_start + i)
                free = [j for j in partners[i] if j not in can_on]
                if not free:
                    free = [j for j, t in enumerate(can_flat) if t == token and j not in can_on]
                can_on.add(free[0])
        ref_start += len(ref_sentence)
    return _match(len(ref_on), n, m, can_on, ref_on)
