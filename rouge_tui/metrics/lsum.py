"""rougeLsum for many pairs at once in numpy, equal to rouge-score 0.1.2's as floats.

rougeLsum needs, for every reference sentence, the union over the candidate's sentences of
the reference positions on the LCS that rouge-score's traceback picks (another LCS of the
same length changes the score). `rouge.Scorer` does that pair by pair in Python; here every
sentence pair of a block of text pairs goes through the same steps side by side, one
numpy operation per step for all of them:

1. The bit-parallel pass (`lcs.lcs_rows`) with the reference sentence as the mask side,
   one uint64 per sentence pair, so reference sentences of up to 64 tokens (a text pair
   with a longer reference sentence is scored by `rouge._lsum_score` instead). Every row
   V_j is kept: the table value t[i][j] is the number of zero bits of V_j below bit i.
2. rouge-score's `_backtrack_norec` from (len(ref), len(can)): on equal tokens take the
   position and go diagonally; else go left when t[i][j-1] > t[i-1][j], else up. It stops
   once as many positions as the LCS is long are taken (the rest of its walk takes none).
3. The union per reference sentence is an OR; the hits are, per token, the smaller of its
   count in the unions and in the candidate (rouge-score's clipped walk, see
   `rouge._lsum_score`), and F comes from them with rouge-score's float steps.

Token ids are small non-negative ints, equal for equal tokens on both sides.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from rouge_tui.metrics.rouge import _lsum_score, lsum_pairs

__all__ = ["Layout", "coded_layout", "layout", "lsum_fmeasures", "union_matches"]

WORD_BITS = 64
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
# Entries of the dense mask table, at most (32 MB); past that, binary search (see _Masks).
DENSE_MASKS = 1 << 22
# LOW[i]: the i lowest bits set, i = 0..64.
LOW = np.array([(1 << i) - 1 for i in range(WORD_BITS + 1)], dtype=np.uint64)

Sentences = Sequence[Sequence[int]]
# Texts as sentences of token ids, flat: (the ids of every sentence, end to end; each
# sentence's start in them; its length; each text's first sentence, with one more entry
# at the end). Sentences are never empty.
Layout = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def layout(texts: Sequence[Sentences]) -> Layout:
    """The layout of texts given as lists of non-empty sentences of token ids."""
    counts = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    first = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    sentences = [sent for text in texts for sent in text]
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
    starts = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    tokens = np.fromiter(
        itertools.chain.from_iterable(sentences), dtype=np.int64, count=int(starts[-1])
    )
    return tokens, starts[:-1], lengths, first


def coded_layout(codes: np.ndarray, cut: np.ndarray, per_text: np.ndarray) -> Layout:
    """The layout of texts from the token codes of all their sentences (sentence k's
    tokens at codes[cut[k]:cut[k + 1]]), text i having per_text[i] sentences; those left
    without tokens are left out."""
    lengths = np.diff(cut)
    kept = lengths > 0
    owner = np.repeat(np.arange(len(per_text), dtype=np.int64), per_text)
    first = np.zeros(len(per_text) + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[kept], minlength=len(per_text)), out=first[1:])
    return codes, cut[:-1][kept], lengths[kept], first


def union_matches(
    reference: Sequence[Sequence[Hashable]], candidate: Sequence[Sequence[Hashable]]
) -> tuple[np.ndarray, np.ndarray]:
    """Every match rouge-score's tracebacks take between the sentences of one text pair
    (`rouge.lsum_pairs`, sentences not empty), as (reference position, candidate
    position) counted over each text's sentences end to end, sorted by both.

    All sentence pairs are traced at once in numpy (`_hits`); those of a reference
    sentence wider than a word, pair by pair.
    """
    ref_start = np.cumsum([0, *map(len, reference)])
    can_start = np.cumsum([0, *map(len, candidate)])
    ref_at: list[np.ndarray] = []
    can_at: list[np.ndarray] = []
    narrow = [k for k, sent in enumerate(reference) if len(sent) <= WORD_BITS]
    wide = [k for k, sent in enumerate(reference) if len(sent) > WORD_BITS]
    if wide:
        for n, s, pairs in lsum_pairs([reference[k] for k in wide], candidate):
            if pairs:
                i, j = np.array(pairs, dtype=np.int64).T
                ref_at.append(ref_start[wide[n]] + i)
                can_at.append(can_start[s] + j)
    if narrow and candidate:
        table: defaultdict[Hashable, int] = defaultdict(itertools.count().__next__)
        texts = layout(
            [
                [list(map(table.__getitem__, reference[k])) for k in narrow],
                [list(map(table.__getitem__, sent)) for sent in candidate],
            ]
        )
        traced: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        total = np.array([can_start[-1]], dtype=np.int64)
        _hits(texts, total, np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), traced)
        for pair, i, j in traced:  # sentence pairs in (reference, candidate) sentence order
            k, s = np.divmod(pair, len(candidate))
            ref_at.append(ref_start[np.asarray(narrow, dtype=np.int64)[k]] + i)
            can_at.append(can_start[s] + j)
    if not ref_at:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ref_pos, can_pos = np.concatenate(ref_at), np.concatenate(can_at)
    order = np.lexsort((can_pos, ref_pos))
    return ref_pos[order], can_pos[order]


def _sentences(texts: Layout, text: int) -> list[list[int]]:
    """One text of a layout as lists of token ids."""
    tokens, start, length, first = texts
    a, b = int(first[text]), int(first[text + 1])
    return [
        tokens[s : s + n].tolist() for s, n in zip(start[a:b].tolist(), length[a:b].tolist())
    ]


def _totals(lengths: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Tokens per text from its sentences' lengths."""
    summed = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=summed[1:])
    return summed[first[1:]] - summed[first[:-1]]


def _repeat_ranges(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For items with these sizes: (item of each element, index of the element in its item)."""
    owner = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    begin = np.cumsum(sizes) - sizes
    return owner, np.arange(int(sizes.sum()), dtype=np.int64) - begin[owner]


def lsum_fmeasures(texts: Layout, pair_ref: np.ndarray, pair_can: np.ndarray) -> np.ndarray:
    """rougeLsum F of every pair (reference text `pair_ref[q]`, candidate text
    `pair_can[q]`, both texts of the layout `texts`)."""
    pair_ref = np.asarray(pair_ref, dtype=np.int64)
    pair_can = np.asarray(pair_can, dtype=np.int64)
    pairs = len(pair_ref)
    f = np.zeros(pairs, dtype=np.float64)
    if not pairs:
        return f
    _, _, lengths, first = texts
    total = _totals(lengths, first)
    wide = np.zeros(len(first) - 1, dtype=bool)
    wide_sentences = np.flatnonzero(lengths > WORD_BITS)
    if len(wide_sentences):
        wide[np.searchsorted(first, wide_sentences, side="right") - 1] = True
    m = total[pair_ref]
    n = total[pair_can]
    scored = (m > 0) & (n > 0)
    # Text pairs with a reference sentence wider than a word: pair by pair in Python.
    for q in np.flatnonzero(scored & wide[pair_ref]).tolist():
        ref, can = _sentences(texts, int(pair_ref[q])), _sentences(texts, int(pair_can[q]))
        counts: Counter[int] = Counter()
        for sent in can:
            counts.update(sent)
        f[q] = _lsum_score(ref, can, counts).fmeasure
    chosen = np.flatnonzero(scored & ~wide[pair_ref])
    if len(chosen):
        hits = _hits(texts, n[chosen], pair_ref[chosen], pair_can[chosen])
        mm = m[chosen].astype(np.float64)
        nn = n[chosen].astype(np.float64)
        hit = hits > 0
        h = hits[hit].astype(np.float64)
        precision = h / nn[hit]
        recall = h / mm[hit]
        values = np.zeros(len(chosen), dtype=np.float64)
        values[hit] = 2 * precision * recall / (precision + recall)
        f[chosen] = values
    return f


def _hits(
    texts: Layout,
    can_total: np.ndarray,
    pair_ref: np.ndarray,
    pair_can: np.ndarray,
    matches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    """rougeLsum's clipped union-LCS hits of every text pair (all reference sentences of
    at most 64 tokens, both texts non-empty), `can_total` the candidate's token count per
    pair. (r_ and c_ name the same layout as read for the reference or the candidate.)

    With `matches`, every pair of positions the tracebacks take is added to it, in arrays
    of (sentence pair, index in the reference sentence, index in the candidate sentence);
    sentence pairs are numbered in (text pair, reference sentence, candidate sentence)
    order."""
    r_tokens, r_start, r_len, r_first = c_tokens, c_start, c_len, c_first = texts
    pairs = len(pair_ref)
    width = int(r_tokens.max(initial=0)) + 1
    a = np.diff(r_first)[pair_ref]  # reference sentences per pair
    b = np.diff(c_first)[pair_can]  # candidate sentences per pair
    # Sentence pairs in (text pair, reference sentence, candidate sentence) order.
    sp_pair, within = _repeat_ranges(a * b)
    b_of = b[sp_pair]
    sp_ref = r_first[pair_ref][sp_pair] + within // b_of
    sp_can = c_first[pair_can][sp_pair] + within % b_of
    w = r_len[sp_ref]
    nl = c_len[sp_can]

    # Each reference's own vocabulary: the local id of each of its tokens (ids in order
    # of the sorted (reference, token) keys), and per reference sentence a mask per local id.
    used_sents = _ranges(r_first, np.unique(pair_ref))
    sent_owner = np.searchsorted(r_first, used_sents, side="right") - 1  # the reference
    tok_sent, tok_pos = _repeat_ranges(r_len[used_sents])
    tok_sent_global = used_sents[tok_sent]
    tok_ref = sent_owner[tok_sent]
    tok_id = r_tokens[r_start[tok_sent_global] + tok_pos]
    keys = tok_ref * width + tok_id
    unique_keys, local = np.unique(keys, return_inverse=True)
    key_ref = unique_keys // width
    ref_key_start = np.searchsorted(key_ref, np.arange(len(r_first)))  # a reference's first key
    local = local - ref_key_start[tok_ref]
    columns = int(local.max(initial=0)) + 1
    sent_row = np.full(len(r_len), -1, dtype=np.int64)
    sent_row[used_sents] = np.arange(len(used_sents), dtype=np.int64)
    bits = np.left_shift(np.uint64(1), tok_pos.astype(np.uint64))
    masks = _Masks(sent_row[tok_sent_global], local, bits, len(used_sents), columns)

    # Each candidate token's local id in its pair's reference (-1: not in that reference).
    # (A text's sentences, and so its tokens, lie end to end in the flat layout.)
    cand_of_pair, cand_pos_in_text = _repeat_ranges(can_total)
    text_at = c_start[c_first[pair_can]]
    flat_at = text_at[cand_of_pair] + cand_pos_in_text
    query = pair_ref[cand_of_pair] * width + c_tokens[flat_at]
    found = np.searchsorted(unique_keys, query)
    found = np.minimum(found, len(unique_keys) - 1)
    hit = unique_keys[found] == query
    cand_local = np.where(hit, found - ref_key_start[pair_ref[cand_of_pair]], -1)
    pair_tok_start = np.cumsum(can_total) - can_total

    # The pass, column by column: sentence pairs longest candidate sentence first, so the
    # ones still running at step j are a prefix.
    order = np.argsort(-nl, kind="stable")
    rank = np.empty(len(nl), dtype=np.int64)
    rank[order] = np.arange(len(nl), dtype=np.int64)
    steps = int(nl.max(initial=0))
    sorted_nl = nl[order]
    alive = len(nl) - np.searchsorted(sorted_nl[::-1], np.arange(steps), side="right")
    col_start = np.zeros(steps + 1, dtype=np.int64)
    np.cumsum(alive, out=col_start[1:])
    # Token j of each sentence pair's candidate sentence, as a local id of its reference.
    sp_tok_offset = c_start[sp_can] - text_at[sp_pair] + pair_tok_start[sp_pair]
    rows = np.empty(int(col_start[-1]), dtype=np.uint64)
    v = np.full(len(nl), _ONES, dtype=np.uint64)
    # Each sentence pair's common positions: the reference positions whose token is in
    # the candidate sentence (its LCS lies on them).
    common = np.zeros(len(nl), dtype=np.uint64)
    for j in range(steps):
        count = int(alive[j])
        live = order[:count]
        lid = cand_local[sp_tok_offset[live] + j]
        mask = masks.get(sent_row[sp_ref[live]], lid)
        common[live] |= mask
        vj = v[live]
        u = vj & mask
        vj = (vj + u) | (vj - u)
        v[live] = vj
        rows[col_start[j] : col_start[j] + count] = vj
    lcs = np.bitwise_count(~v & LOW[w]).astype(np.int64)

    # The traceback, every sentence pair with an LCS at once; except where the LCS is as
    # long as there are common positions: then it is exactly those, whatever the walk.
    union = np.zeros(len(nl), dtype=np.uint64)
    whole = (lcs > 0) & (np.bitwise_count(common).astype(np.int64) == lcs)
    if matches is not None:
        whole[:] = False  # the candidate's side of each match is wanted too: trace all
    union[whole] = common[whole]
    act = np.flatnonzero((lcs > 0) & ~whole)
    i = w.copy()
    j = nl.copy()
    left = lcs.copy()
    ref_at = r_start[sp_ref]
    can_at = c_start[sp_can]
    while len(act):
        ia, ja = i[act], j[act]
        match = r_tokens[ref_at[act] + ia - 1] == c_tokens[can_at[act] + ja - 1]
        v_j = rows[col_start[ja - 1] + rank[act]]
        before = ja >= 2
        v_prev = np.full(len(act), _ONES, dtype=np.uint64)
        v_prev[before] = rows[col_start[ja[before] - 2] + rank[act[before]]]
        up_value = np.bitwise_count(~v_j & LOW[ia - 1])
        left_value = np.bitwise_count(~v_prev & LOW[ia])
        go_left = ~match & (left_value > up_value)
        taken = act[match]
        if matches is not None:
            matches.append((taken, ia[match] - 1, ja[match] - 1))
        union[taken] |= np.left_shift(np.uint64(1), (ia[match] - 1).astype(np.uint64))
        left[taken] -= 1
        i[act] = ia - (~go_left)  # a match or up
        j[act] = ja - (match | go_left)  # a match or left
        act = act[(i[act] > 0) & (j[act] > 0) & (left[act] > 0)]

    # Union per (text pair, reference sentence): the OR over its candidate sentences.
    group_sizes = np.repeat(b, a)
    group_start = np.cumsum(group_sizes) - group_sizes
    unions = np.bitwise_or.reduceat(union, group_start)
    group_pair = np.repeat(np.arange(pairs, dtype=np.int64), a)
    group_sent = sp_ref[group_start]
    # Tokens at the union's positions, counted per (text pair, token) ...
    g, pos = _repeat_ranges(r_len[group_sent])
    on = ((unions[g] >> pos.astype(np.uint64)) & np.uint64(1)).astype(bool)
    union_keys = group_pair[g][on] * width + r_tokens[r_start[group_sent[g][on]] + pos[on]]
    u_keys, u_counts = np.unique(union_keys, return_counts=True)
    # ... against the candidate's count of the same token.
    cand_keys = cand_of_pair * width + c_tokens[flat_at]
    k_keys, k_counts = np.unique(cand_keys, return_counts=True)
    at = np.minimum(np.searchsorted(k_keys, u_keys), max(len(k_keys) - 1, 0))
    both = k_keys[at] == u_keys if len(k_keys) else np.zeros(len(u_keys), dtype=bool)
    clipped = np.minimum(u_counts[both], k_counts[at[both]])
    return np.bincount(u_keys[both] // width, weights=clipped, minlength=pairs).astype(np.int64)


class _Masks:
    """The bitmask of (reference sentence, token local to its reference), 0 when absent.

    A dense table when it is small; else (a long reference's vocabulary times every
    sentence of the block would be gigabytes) sorted keys looked up by binary search.
    """

    def __init__(
        self, rows: np.ndarray, cols: np.ndarray, bits: np.ndarray, height: int, width: int
    ) -> None:
        self.width = width
        if height * width <= DENSE_MASKS:
            self.table: np.ndarray | None = np.zeros((height, width), dtype=np.uint64)
            np.bitwise_or.at(self.table, (rows, cols), bits)
            return
        self.table = None
        keys = rows * width + cols
        order = np.argsort(keys, kind="stable")
        keys, bits = keys[order], bits[order]
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        self.keys = keys[starts]
        self.values = np.bitwise_or.reduceat(bits, starts)

    def get(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Masks at (rows, cols); a negative col (token not in the reference) gives 0."""
        present = cols >= 0
        if self.table is not None:
            return np.where(present, self.table[rows, np.maximum(cols, 0)], np.uint64(0))
        keys = rows * self.width + cols
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(present & (self.keys[at] == keys), self.values[at], np.uint64(0))


def _ranges(first: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Concatenated ranges first[r] .. first[r + 1] - 1 for r in `which`."""
    owner, offset = _repeat_ranges(first[which + 1] - first[which])
    return first[which][owner] + offset
