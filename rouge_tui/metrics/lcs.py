"""Longest common subsequence over token sequences, bit-parallel.

The Allison-Dix / Hyyrö pass: one bitmask per token of one side, one step per token of
the other (`U = V & M[tok]; V = (V + U) | (V - U)`), so the work is len(b) word steps
rather than len(a) * len(b) table cells. Lengths alone (`lcs_length`, `lcs_length_ids`)
come from rapidfuzz, which runs that pass in C++; the rows a traceback needs come from
the same pass on Python's big integers (`lcs_rows`).

`lcs_pairs` / `lcs_indices` read out exactly the LCS that rouge-score 0.1.2's
`_backtrack_norec(_lcs_table(ref, can), ref, can)` picks. The table values it compares come
from the rows of the pass: with masks over the reference, `t[i][j]` is the number of zero
bits of `V_j` (V after `j` candidate tokens) below bit `i`. A second pass the other way
round gives the table in the other direction; with both, the traceback skips whole runs of
moves and costs O(LCS length) big-integer operations after the two passes.

Several sequences can share one integer ("packed"), each at its own bit offset with a
clear guard bit after it so that carries stop there: rougeLsum scores every reference
sentence against a candidate sentence in a single pass that way.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Sequence

from rapidfuzz.distance.LCSseq import similarity as _rapidfuzz_lcs

__all__ = [
    "Packed",
    "lcs_indices",
    "lcs_length",
    "lcs_length_ids",
    "lcs_pairs",
    "lcs_rows",
    "rows_for",
    "token_masks",
    "traceback",
]

# Keep every row of a pass when they fit in this many bits; beyond, keep every k-th row and
# recompute a block of rows when the traceback reaches it (about twice the pass time,
# memory ~ 2 * sqrt(rows) rows). 2**27 bits is 16 MB, two 11,000-token texts.
_ROW_BITS_LIMIT = 1 << 27


# Below this many tokens, OR-ing each bit into a growing integer is the fastest way to build
# the masks; above it that is quadratic (every OR copies an integer as wide as the text so
# far), so the masks are built in one go per token from a bytearray of its positions.
_SMALL_MASKS = 1024


def token_masks(tokens: Iterable[Hashable]) -> dict[Hashable, int]:
    """Bitmask per distinct token: bit i is set where tokens[i] is that token.

    Linear in the text's length (plus the size of the masks themselves).
    """
    if not isinstance(tokens, Sequence):
        tokens = list(tokens)
    if len(tokens) > _SMALL_MASKS:
        return _masks_at(tokens, 0)
    masks: dict[Hashable, int] = {}
    get = masks.get
    bit = 1
    for token in tokens:
        masks[token] = get(token, 0) | bit
        bit <<= 1
    return masks


def _mask_from(positions: list[int]) -> int:
    """The integer with exactly the bits at ``positions`` set (ascending), built in one go."""
    if len(positions) == 1:
        return 1 << positions[0]
    buffer = bytearray((positions[-1] >> 3) + 1)
    for position in positions:
        buffer[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(buffer, "little")


def _masks_at(tokens: Sequence[Hashable], start: int) -> dict[Hashable, int]:
    """`token_masks` by positions: each mask is made once, from all of its bits."""
    positions: dict[Hashable, list[int]] = {}
    for position, token in enumerate(tokens, start):
        found = positions.get(token)
        if found is None:
            positions[token] = [position]
        else:
            found.append(position)
    return {token: _mask_from(found) for token, found in positions.items()}


class Packed:
    """Several token sequences packed in one integer for a shared bit-parallel pass.

    Sequence k occupies bits `offsets[k]` .. `offsets[k] + len(seq_k) - 1`, followed by a
    guard bit that is clear in `keep`. `masks[token]` has the bits of every position of
    `token` in every sequence.
    """

    __slots__ = ("keep", "masks", "offsets")

    def __init__(self, sequences: Sequence[Sequence[Hashable]]):
        offsets: list[int] = []
        keep = 0
        position = 0
        if sum(map(len, sequences)) > _SMALL_MASKS:
            # Linear build for long texts (see `token_masks`).
            positions: dict[Hashable, list[int]] = {}
            guards: list[int] = []
            for seq in sequences:
                offsets.append(position)
                for at, token in enumerate(seq, position):
                    found = positions.get(token)
                    if found is None:
                        positions[token] = [at]
                    else:
                        found.append(at)
                position += len(seq) + 1
                guards.append(position - 1)
            self.masks = {token: _mask_from(found) for token, found in positions.items()}
            self.keep = ((1 << position) - 1) & ~_mask_from(guards) if guards else 0
            self.offsets = offsets
            return
        masks: dict[Hashable, int] = {}
        get = masks.get
        for seq in sequences:
            offsets.append(position)
            bit = 1 << position
            for token in seq:
                masks[token] = get(token, 0) | bit
                bit <<= 1
            keep |= ((1 << len(seq)) - 1) << position
            position += len(seq) + 1
        self.masks = masks
        self.keep = keep
        self.offsets = offsets


def lcs_length_ids(a: Sequence[int] | str, b: Sequence[int] | str) -> int:
    """LCS length of two sequences of token ids, each an int with 0 <= id < 2**61 - 1, or
    of two strings of token codes (`codes.token_codes`, one character per token).

    rapidfuzz's bit-parallel LCS (Hyyrö's, the same pass as `lcs_rows`, in C++, 64 bits a
    word). It compares ints by their Python hash, which is the value itself for these
    ints, and strings by code point, so equal ids and only equal ids match: the length is
    exact. (Larger ints wrap, `hash(2**61 - 1) == 0`, and token strings in a list could
    collide: intern first, as `lcs_length` does.)
    """
    return _rapidfuzz_lcs(a, b)


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of a longest common subsequence of `a` and `b` (any hashable tokens)."""
    ids: dict[Hashable, int] = {}
    intern = ids.setdefault  # a new token takes the next id
    return _rapidfuzz_lcs([intern(t, len(ids)) for t in a], [intern(t, len(ids)) for t in b])


def lcs_rows(
    masks: dict[Hashable, int], keep: int, tokens: Iterable[Hashable], guarded: bool = False
) -> list[int]:
    """V_0 .. V_n of the pass over `tokens` (V_0 = `keep`, the mask side's positions).

    For the mask-side sequence at bit offset s, the table value t[i][j] (LCS of its first
    i tokens and the first j of `tokens`) is `(~V_j >> s & ((1 << i) - 1)).bit_count()`.
    `guarded` clears the guard bits of a `Packed` layout after every step.
    """
    v = keep
    rows = [v]
    append = rows.append
    get = masks.get
    if guarded:
        for token in tokens:
            mask = get(token)
            if mask:
                u = v & mask
                v = ((v + u) | (v - u)) & keep
            append(v)
    else:
        for token in tokens:
            mask = get(token)
            if mask:
                u = v & mask
                v = (v + u) | (v - u)
            append(v)
    return rows


def rows_for(
    masks: dict[Hashable, int], keep: int, tokens: Sequence[Hashable], guarded: bool = False
) -> Sequence[int]:
    """The V rows of a pass, as `lcs_rows`, for `traceback`.

    All rows when they fit in `_ROW_BITS_LIMIT` bits; beyond (untrusted text can hold a
    megabyte on one line), a sequence that keeps every k-th row and recomputes the rest.
    """
    if (len(tokens) + 1) * max(keep.bit_length(), 1) <= _ROW_BITS_LIMIT:
        return lcs_rows(masks, keep, tokens, guarded)
    return _Checkpoints(masks, keep, tokens, guarded)


class _Checkpoints(Sequence[int]):
    """The V rows of a pass over long inputs: every k-th row kept, blocks recomputed.

    A traceback only moves to lower rows, so one recomputed block is kept at a time.
    """

    def __init__(
        self, masks: dict[Hashable, int], keep: int, tokens: Sequence[Hashable], guarded: bool
    ):
        self._masks = masks
        self._keep = keep
        self._tokens = tokens
        self._guarded = guarded
        self._len = len(tokens) + 1
        self._step = step = max(1, math.isqrt(len(tokens)))
        # V at rows 0, step, 2 * step, ...: every step-th row of the full pass.
        passed = enumerate(_pass(masks, keep, keep, tokens, guarded), 1)
        self._checkpoints = [keep, *(row for j, row in passed if j % step == 0)]
        self._block: list[int] = []
        self._base = -1

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, j: int) -> int:  # type: ignore[override]
        step = self._step
        base = j - j % step
        if base != self._base:
            start = self._checkpoints[base // step]
            tokens = self._tokens[base : base + step - 1]
            self._block = [start, *_pass(self._masks, self._keep, start, tokens, self._guarded)]
            self._base = base
        return self._block[j - base]


def _pass(
    masks: dict[Hashable, int], keep: int, start: int, tokens: Iterable[Hashable], guarded: bool
) -> Iterator[int]:
    """V after each token of a pass that starts from the row value `start`."""
    v = start
    get = masks.get
    for token in tokens:
        mask = get(token)
        if mask:
            u = v & mask
            v = (v + u) | (v - u)
            if guarded:
                v &= keep
        yield v


def traceback(
    ref: Sequence[Hashable],
    can: Sequence[Hashable],
    ref_rows: Sequence[int],
    can_rows: Sequence[int],
    ref_masks: dict[Hashable, int],
    can_masks: dict[Hashable, int],
    ref_shift: int = 0,
    can_shift: int = 0,
) -> list[tuple[int, int]]:
    """rouge-score's `_backtrack_norec`, with table values read from the two passes' rows.

    `ref_rows[j]` (j = 0..len(can)) are the V rows of the pass with masks over `ref`
    (`ref_masks`, `ref` at bit offset `ref_shift`) stepping through `can`; `can_rows[i]`
    (i = 0..len(ref)) those of the pass the other way round. Returns the (ref index,
    can index) pairs of the LCS, in increasing order.

    rouge-score, at a cell (i, j) whose tokens differ, moves left when
    t[i][j-1] > t[i-1][j], else up. As t[i-1][j] is t[i][j] less the zero bit i-1 of
    V_j, and t[i][j-1] is t[i][j] less the zero bit j-1 of the other pass's row i, this
    reads: go up over the set bits of V_j; at a zero bit, go left while the other row's
    bits are set, else up. Each run of such moves ends at the highest bit of one integer,
    and every iteration below lowers the LCS left to trace by one.
    """
    i, j = len(ref), len(can)
    pairs: list[tuple[int, int]] = []
    append = pairs.append
    ref_get = ref_masks.get
    can_get = can_masks.get
    cur = (~ref_rows[j] >> ref_shift & ((1 << i) - 1)).bit_count()  # t[i][j]
    while cur:
        token = can[j - 1]
        if ref[i - 1] == token:  # a match: diagonal (what the bit test below finds too)
            i -= 1
            j -= 1
            cur -= 1
            append((i, j))
            continue
        # Up while the tokens differ and t[i-1][j] == t[i][j].
        i = ((~ref_rows[j] | ref_get(token, 0)) >> ref_shift & ((1 << i) - 1)).bit_length()
        if ref[i - 1] != token:
            row = ~can_rows[i] >> can_shift
            if row >> (j - 1) & 1:  # t[i][j-1] < t[i][j]: up
                i -= 1
                cur -= 1
                continue
            # Left while the tokens differ and t[i][j-1] == t[i][j]; t[i-1][j] stays lower.
            word = ref[i - 1]
            j = ((row | can_get(word, 0) >> can_shift) & ((1 << (j - 1)) - 1)).bit_length()
            if can[j - 1] != word:  # t[i][j-1] < t[i][j]: up
                i -= 1
                cur -= 1
                continue
        i -= 1
        j -= 1
        cur -= 1
        append((i, j))
    pairs.reverse()
    return pairs


def lcs_pairs(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The (ref index, can index) pairs of the LCS rouge-score's traceback picks."""
    if not ref or not can:
        return []
    ref_masks = token_masks(ref)
    can_masks = token_masks(can)
    return traceback(
        ref,
        can,
        rows_for(ref_masks, (1 << len(ref)) - 1, can),
        rows_for(can_masks, (1 << len(can)) - 1, ref),
        ref_masks,
        can_masks,
    )


def lcs_indices(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[int]:
    """Indices into `ref` of the LCS rouge-score's `lcs_ind(ref, can)` returns."""
    return [i for i, _ in lcs_pairs(ref, can)]
