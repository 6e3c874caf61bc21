"""Scoring many (candidate, references) pairs at once, with rouge-score's numbers exactly.

`fmeasures(metric, tokenizer, stem, references, candidates, groups)` gives the F of every
candidate against its group of references (the best over the group, as `Scorer.score_multi`),
equal as floats to scoring each pair with `Scorer`. It is what a suite run uses: a reference
group is tokenised once however many builds and runs are scored against it.

How (rougeL): texts are tokenised and interned in C-level loops (`map(vocab.setdefault, ...)`)
into flat numpy arrays. Every pair whose reference has at most 64 tokens runs the
bit-parallel LCS pass for all such pairs at once, one uint64 per pair and one vectorised
step per candidate position; the match masks come from exact keys `ref * V + token`
(sorted and OR-reduced on the reference side, `searchsorted` on the candidate side). Longer
references take the per-pair big-integer pass. rouge1/rouge2 count clipped n-gram matches
per pair on the interned ids; rougeLsum goes through `Scorer` pair by pair (it needs
rouge-score's exact traceback per sentence pair).

Work is done in blocks of reference groups, so the Python token strings of only one block
are alive at a time; with `workers=2` the blocks are split between this process and a
forked one (see `fmeasures`).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence

import numpy as np

from rouge_tui.gcpause import collector_paused
from rouge_tui.metrics.lcs import lcs_length_masks, token_masks
from rouge_tui.metrics.rouge import METRICS, Scorer, _ngrams, _overlap
from rouge_tui.metrics.tokenize import TOKENIZERS, make_tokenizer

__all__ = ["fmeasures", "lcs_lengths", "parallel_safe"]

# References up to this many tokens fit one uint64 per pair for the vectorised pass.
WORD_BITS = 64
# Candidates longer than this run the per-pair pass even against a short reference: the
# vectorised pass takes one numpy step per position of the longest candidate in a block.
MAX_VECTOR_STEPS = 4096
# Dense mask table size (uint64 entries, 8 MB) and the most fills of it per batch of pairs
# before falling back to binary search (a huge vocabulary leaves few references per fill).
TABLE_ENTRIES = 1 << 20
MAX_TABLE_FILLS = 512
# Pairs per block: bounds the token strings and numpy arrays alive at once.
BLOCK_TOKENS = 1 << 17
# Below this many pairs a second process costs more (~0.1 s to fork and gather) than it saves.
PARALLEL_MIN_PAIRS = 4000




# --- the vectorised LCS ----------------------------------------------------------------------


def _expand(
    offsets: np.ndarray, lengths: np.ndarray, which: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For items `which` of a flat layout: (owner index into `which`, index into the flat array)
    of every element, owners in order."""
    counts = lengths[which]
    total = int(counts.sum())
    owner = np.repeat(np.arange(len(which), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    position = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    return owner, offsets[which][owner] + position


def lcs_lengths(
    ref_ids: np.ndarray,
    ref_offsets: np.ndarray,
    can_ids: np.ndarray,
    can_offsets: np.ndarray,
    pair_ref: np.ndarray,
    pair_can: np.ndarray,
) -> np.ndarray:
    """LCS length of every pair (reference `pair_ref[q]`, candidate `pair_can[q]`).

    Texts are flat int64 token-id arrays cut by offsets (text k is
    `ids[offsets[k]:offsets[k + 1]]`); ids are non-negative and equal for equal tokens across
    both sides. Every reference in a pair must have at most 64 tokens. Pure numpy: one
    vectorised bit-parallel step per candidate position over all pairs at once.
    """
    ref_offsets = np.asarray(ref_offsets, dtype=np.int64)
    can_offsets = np.asarray(can_offsets, dtype=np.int64)
    pair_ref = np.asarray(pair_ref, dtype=np.int64)
    pair_can = np.asarray(pair_can, dtype=np.int64)
    pairs = len(pair_ref)
    result = np.zeros(pairs, dtype=np.int64)
    if not pairs:
        return result
    ref_len = np.diff(ref_offsets)
    can_len = np.diff(can_offsets)
    if int(ref_len[pair_ref].max(initial=0)) > WORD_BITS:
        raise ValueError("lcs_lengths takes references of at most 64 tokens")
    top = max(int(ref_ids.max(initial=0)), int(can_ids.max(initial=0)))
    width = top + 1
    if (len(ref_len) + 1) * width >= 1 << 62:
        # Keys would overflow int64: compact the ids first (never with real vocabularies).
        both, inverse = np.unique(np.concatenate([ref_ids, can_ids]), return_inverse=True)
        ref_ids, can_ids = inverse[: len(ref_ids)], inverse[len(ref_ids) :]
        width = len(both)
    # Reference side: one (ref, token) key per position, OR of 1 << position per key.
    refs = np.unique(pair_ref)
    owner, flat = _expand(ref_offsets, ref_len, refs)
    position = flat - ref_offsets[refs][owner]
    keys = owner * width + ref_ids[flat]  # owner: the reference's ordinal in `refs`
    order = np.argsort(keys)
    keys = keys[order]
    bits = np.left_shift(np.uint64(1), position[order].astype(np.uint64))
    if len(keys):
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        unique_keys = keys[starts]
        unique_masks = np.bitwise_or.reduceat(bits, starts)
    else:
        unique_keys = np.zeros(1, dtype=np.int64) - 1
        unique_masks = np.zeros(1, dtype=np.uint64)
    # Candidate side, laid out column by column (position j of every pair still that long),
    # pairs ordered longest candidate first so the pairs alive at step j are a prefix.
    lengths = can_len[pair_can]
    by_length = np.argsort(-lengths, kind="stable")
    rank = np.empty(pairs, dtype=np.int64)
    rank[by_length] = np.arange(pairs, dtype=np.int64)
    sorted_lengths = lengths[by_length]
    steps = int(sorted_lengths[0]) if pairs else 0
    # alive[j] = number of pairs longer than j; columns start at the cumulative sums.
    alive = pairs - np.searchsorted(sorted_lengths[::-1], np.arange(steps), side="right")
    column_start = np.concatenate(([0], np.cumsum(alive)))
    owner, flat = _expand(can_offsets, can_len, pair_can)
    column = flat - can_offsets[pair_can][owner]
    keys = np.searchsorted(refs, pair_ref)[owner] * width + can_ids[flat]
    masks = _lookup(unique_keys, unique_masks, keys, width, len(refs))
    layout = np.empty(int(column_start[-1]), dtype=np.uint64)
    layout[column_start[column] + rank[owner]] = masks
    del keys, masks, owner, flat, column
    # The pass: V starts all ones; carries out of bit 63 vanish, which only touches bits
    # above the reference's width (adding never carries downwards).
    v = np.full(pairs, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    u = np.empty(pairs, dtype=np.uint64)
    w = np.empty(pairs, dtype=np.uint64)
    for j in range(steps):
        count = int(alive[j])
        vj, uj, wj = v[:count], u[:count], w[:count]
        np.bitwise_and(vj, layout[column_start[j] : column_start[j] + count], out=uj)
        np.add(vj, uj, out=wj)
        np.subtract(vj, uj, out=uj)
        np.bitwise_or(wj, uj, out=vj)
    widths = ref_len[pair_ref][by_length].astype(np.uint64)
    low = np.where(
        widths >= WORD_BITS,
        np.uint64(0xFFFFFFFFFFFFFFFF),
        np.left_shift(np.uint64(1), np.minimum(widths, WORD_BITS - 1)) - np.uint64(1),
    )
    zeros = np.bitwise_count(np.bitwise_and(np.invert(v), low)).astype(np.int64)
    result[by_length] = zeros
    return result


def _lookup(
    unique_keys: np.ndarray, unique_masks: np.ndarray, keys: np.ndarray, width: int, refs: int
) -> np.ndarray:
    """The mask of every key (0 when absent): `unique_masks[k]` where `unique_keys[k] == key`.

    Keys are `ref * width + token`. A dense table over `TABLE_ENTRIES` keys at a time (a
    few references' whole vocabulary) makes each lookup one gather; when the vocabulary
    is so large that too many fills would be needed, binary search instead.
    """
    per_fill = max(1, TABLE_ENTRIES // width)  # references per table fill
    fills = -(-refs // per_fill)
    if fills > MAX_TABLE_FILLS or not len(keys):
        found = np.searchsorted(unique_keys, keys)
        np.minimum(found, len(unique_keys) - 1, out=found)
        return np.where(unique_keys[found] == keys, unique_masks[found], np.uint64(0))
    span = per_fill * width
    table = np.zeros(min(span, refs * width), dtype=np.uint64)
    if fills == 1:
        table[unique_keys] = unique_masks
        return table[keys]
    out = np.empty(len(keys), dtype=np.uint64)
    fill_of = keys // span
    if np.all(fill_of[1:] >= fill_of[:-1]):  # pairs usually come in reference order
        order = None
        at = np.searchsorted(fill_of, np.arange(fills + 1))
    else:
        order = np.argsort(
            fill_of.astype(np.uint16 if fills < 1 << 16 else np.int64), kind="stable"
        )
        at = np.searchsorted(fill_of[order], np.arange(fills + 1))
    ref_at = np.searchsorted(unique_keys, np.arange(fills + 1) * span)
    for fill in range(fills):
        base = fill * span
        local = unique_keys[ref_at[fill] : ref_at[fill + 1]] - base
        table[local] = unique_masks[ref_at[fill] : ref_at[fill + 1]]
        if order is None:
            out[at[fill] : at[fill + 1]] = table[keys[at[fill] : at[fill + 1]] - base]
        else:
            index = order[at[fill] : at[fill + 1]]
            out[index] = table[keys[index] - base]
        table[local] = 0
    return out


# --- interning -------------------------------------------------------------------------------


def _intern(
    token_lists: Sequence[list[str]], vocab: defaultdict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Flat int64 ids and offsets of token lists; equal tokens get equal ids.

    `vocab` is a `defaultdict(itertools.count().__next__)`: a known token is one C-level
    dict lookup, a new one takes the next id, so ids are dense (0 .. len(vocab) - 1).
    """
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    offsets = np.zeros(len(token_lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = np.fromiter(
        map(vocab.__getitem__, itertools.chain.from_iterable(token_lists)),
        dtype=np.int64,
        count=int(offsets[-1]),
    )
    return ids, offsets


def _f_from_counts(matches: np.ndarray, ref_count: np.ndarray, can_count: np.ndarray) -> np.ndarray:
    """rouge-score's F from match counts, elementwise, with its float steps (0 when no match)."""
    f = np.zeros(len(matches), dtype=np.float64)
    hit = matches > 0
    m = matches[hit].astype(np.float64)
    precision = m / can_count[hit].astype(np.float64)
    recall = m / ref_count[hit].astype(np.float64)
    f[hit] = 2 * precision * recall / (precision + recall)
    return f


# --- one block of groups ---------------------------------------------------------------------


class _Block:
    """Scores candidates against reference groups; one instance per metric setting."""

    def __init__(self, metric: str, tokenizer: str, stem: bool) -> None:
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}")
        if tokenizer not in TOKENIZERS:
            raise ValueError(
                f"unknown tokenizer {tokenizer!r}: expected one of {', '.join(TOKENIZERS)}"
            )
        self.metric = metric
        self.tokenizer = tokenizer
        self.stem = stem
        self.tokenize = make_tokenizer(tokenizer, stem)

    def score(
        self, references: Sequence[Sequence[str]], candidates: Sequence[str], groups: np.ndarray
    ) -> np.ndarray:
        """F of candidates[i] against references[groups[i]] (best over the group)."""
        # Pairs: every (candidate, reference text of its group), candidate-major.
        group_sizes = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
        if len(groups) and int(group_sizes[groups].min()) == 0:
            raise ValueError("no references to score against")
        group_start = np.zeros(len(references) + 1, dtype=np.int64)
        np.cumsum(group_sizes, out=group_start[1:])
        ref_texts = [text for group in references for text in group]
        per_candidate = group_sizes[groups]
        pair_can = np.repeat(np.arange(len(candidates), dtype=np.int64), per_candidate)
        first = np.cumsum(per_candidate) - per_candidate
        pair_ref = group_start[groups][pair_can] + (
            np.arange(len(pair_can), dtype=np.int64) - np.repeat(first, per_candidate)
        )
        if self.metric == "rougeLsum":
            f = self._lsum(ref_texts, candidates, pair_ref, pair_can)
        else:
            f = self._flat(ref_texts, candidates, pair_ref, pair_can)
        if not len(candidates):
            return np.zeros(0, dtype=np.float64)
        # Highest F over each candidate's references (ties give the same F).
        return np.maximum.reduceat(f, first) if len(f) else np.zeros(len(candidates))

    def _flat(
        self,
        ref_texts: list[str],
        candidates: Sequence[str],
        pair_ref: np.ndarray,
        pair_can: np.ndarray,
    ) -> np.ndarray:
        tokenize = self.tokenize
        vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        ref_ids, ref_offsets = _intern(list(map(tokenize, ref_texts)), vocab)
        can_ids, can_offsets = _intern(list(map(tokenize, candidates)), vocab)
        del vocab
        ref_len = np.diff(ref_offsets)
        can_len = np.diff(can_offsets)
        m = ref_len[pair_ref]
        n = can_len[pair_can]
        if self.metric == "rougeL":
            matches = np.zeros(len(pair_ref), dtype=np.int64)
            some = (m > 0) & (n > 0)
            short = some & (m <= WORD_BITS) & (n <= MAX_VECTOR_STEPS)
            picked = np.flatnonzero(short)
            matches[picked] = lcs_lengths(
                ref_ids, ref_offsets, can_ids, can_offsets, pair_ref[picked], pair_can[picked]
            )
            long = np.flatnonzero(some & ~short)
            if len(long):
                matches[long] = self._lcs_per_pair(
                    ref_ids, ref_offsets, can_ids, can_offsets, pair_ref[long], pair_can[long]
                )
            return _f_from_counts(matches, m, n)
        gram = 1 if self.metric == "rouge1" else 2
        matches = self._ngram_matches(
            ref_ids, ref_offsets, can_ids, can_offsets, pair_ref, pair_can, gram
        )
        return _f_from_counts(matches, m - gram + 1, n - gram + 1)

    @staticmethod
    def _lcs_per_pair(
        ref_ids: np.ndarray,
        ref_offsets: np.ndarray,
        can_ids: np.ndarray,
        can_offsets: np.ndarray,
        pair_ref: np.ndarray,
        pair_can: np.ndarray,
    ) -> np.ndarray:
        """Big-integer bit-parallel LCS pair by pair, masks built once per reference."""
        out = np.empty(len(pair_ref), dtype=np.int64)
        masks: dict[int, tuple[dict[Hashable, int], int]] = {}
        refs, cans = ref_offsets.tolist(), can_offsets.tolist()
        for q, (r, c) in enumerate(zip(pair_ref.tolist(), pair_can.tolist())):
            found = masks.get(r)
            if found is None:
                tokens = ref_ids[refs[r] : refs[r + 1]].tolist()
                found = masks[r] = (token_masks(tokens), len(tokens))
            out[q] = lcs_length_masks(found[0], found[1], can_ids[cans[c] : cans[c + 1]].tolist())
        return out

    @staticmethod
    def _ngram_matches(
        ref_ids: np.ndarray,
        ref_offsets: np.ndarray,
        can_ids: np.ndarray,
        can_offsets: np.ndarray,
        pair_ref: np.ndarray,
        pair_can: np.ndarray,
        n: int,
    ) -> np.ndarray:
        """Clipped n-gram matches per pair, n-gram counts made once per text."""
        out = np.empty(len(pair_ref), dtype=np.int64)
        ref_counts: dict[int, Counter[Hashable]] = {}
        can_counts: dict[int, Counter[Hashable]] = {}
        refs, cans = ref_offsets.tolist(), can_offsets.tolist()
        for q, (r, c) in enumerate(zip(pair_ref.tolist(), pair_can.tolist())):
            a = ref_counts.get(r)
            if a is None:
                a = ref_counts[r] = _ngrams(ref_ids[refs[r] : refs[r + 1]].tolist(), n)
            b = can_counts.get(c)
            if b is None:
                b = can_counts[c] = _ngrams(can_ids[cans[c] : cans[c + 1]].tolist(), n)
            out[q] = _overlap(a, b)
        return out

    def _lsum(
        self,
        ref_texts: list[str],
        candidates: Sequence[str],
        pair_ref: np.ndarray,
        pair_can: np.ndarray,
    ) -> np.ndarray:
        """rougeLsum pair by pair through `Scorer` (texts prepared once each)."""
        scorer = Scorer(["rougeLsum"], self.tokenizer, self.stem)
        prepare = scorer.prepare
        score = scorer.score_prepared
        refs: dict[int, object] = {}
        out = np.empty(len(pair_ref), dtype=np.float64)
        last_c, prepared_c = -1, None
        for q, (r, c) in enumerate(zip(pair_ref.tolist(), pair_can.tolist())):
            ref = refs.get(r)
            if ref is None:
                ref = refs[r] = prepare(ref_texts[r])
            if c != last_c:
                last_c, prepared_c = c, prepare(candidates[c])
            out[q] = score(ref, prepared_c)["rougeLsum"].fmeasure  # type: ignore[arg-type]
        return out


# --- blocks, and the second process ------------------------------------------------------------


def _blocks(
    references: Sequence[Sequence[str]],
    candidates: Sequence[str],
    order: np.ndarray,
    sorted_groups: np.ndarray,
    parts: int,
) -> list[tuple[int, int]]:
    """Cut the candidates (in `order`, grouped) into runs of whole groups, (start, end) into
    `order`: about `BLOCK_TOKENS` tokens each, and at least `parts` runs when there are as
    many groups (so two processes can share them)."""
    total = len(order)
    if not total:
        return []
    # Tokens per candidate (its text and a share of its references), from a sample.
    step = max(total // 256, 1)
    sample = order[::step].tolist()
    chars = sum(len(candidates[i]) for i in sample) + sum(
        sum(map(len, references[g])) for g in sorted_groups[::step].tolist()
    )
    per_candidate = max(chars / len(sample) / 6, 1.0)  # about six characters per token
    size = max(1, min(int(BLOCK_TOKENS / per_candidate), -(-total // max(parts, 1))))
    # Group starts in the sorted order; cut at the first group start at or after k * size.
    change = np.flatnonzero(np.concatenate(([True], sorted_groups[1:] != sorted_groups[:-1])))
    wanted = np.arange(size, total, size)
    cut_at = np.unique(change[np.minimum(np.searchsorted(change, wanted), len(change) - 1)])
    bounds = [0, *(int(c) for c in cut_at if 0 < c < total), total]
    return list(itertools.pairwise(bounds))


# The work a forked process reads (inherited, not pickled): set just before forking.
_SHARED: tuple | None = None


def _score_span(
    span: tuple[int, int], progress: Callable[[float], None] | None = None
) -> np.ndarray:
    """F for the candidates of blocks span[0]..span[1] - 1, read from `_SHARED`."""
    assert _SHARED is not None
    block, references, candidates, order, sorted_groups, cuts = _SHARED
    first, last = span
    parts = []
    with collector_paused():
        for done, (start, end) in enumerate(cuts[first:last]):
            if progress is not None:
                progress(done / max(last - first, 1))
            index = order[start:end]
            groups = sorted_groups[start:end]
            used, local = np.unique(groups, return_inverse=True)
            part = block.score(
                [references[g] for g in used.tolist()],
                [candidates[i] for i in index.tolist()],
                local.astype(np.int64),
            )
            parts.append(part)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)


def parallel_safe() -> bool:
    """True when forking is safe here: fork available and this process runs one thread.

    A fork copies only the calling thread; a lock another thread holds at that moment
    (logging, an import, the terminal driver) would stay locked forever in the child.
    """
    return (
        hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
        and threading.active_count() == 1
    )


def fmeasures(
    metric: str,
    tokenizer: str,
    stem: bool,
    references: Sequence[Sequence[str]],
    candidates: Sequence[str],
    groups: Sequence[int] | np.ndarray,
    workers: int = 1,
    progress: Callable[[float], None] | None = None,
) -> np.ndarray:
    """F of candidates[i] against the references references[groups[i]], for every i.

    The best F over the group's references, equal to
    `Scorer([metric], tokenizer, stem).score_multi(references[groups[i]], candidates[i])`.
    Each group's references are tokenised once. With `workers=2` (and enough pairs, and
    `parallel_safe()`), the blocks are split with one forked process; the result is the
    same array either way. `progress(fraction)` is called in this process between blocks.
    """
    block = _Block(metric, tokenizer, stem)
    groups = np.asarray(groups, dtype=np.int64).reshape(-1)
    if len(groups) != len(candidates):
        raise ValueError("one group index per candidate")
    if len(groups) and (int(groups.min()) < 0 or int(groups.max()) >= len(references)):
        raise ValueError("group index out of range")
    if not len(candidates):
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(groups, kind="stable")
    sorted_groups = groups[order]
    cuts = _blocks(references, candidates, order, sorted_groups, 2 if workers >= 2 else 1)
    global _SHARED
    _SHARED = (block, references, candidates, order, sorted_groups, cuts)
    try:
        if (
            workers >= 2
            and len(cuts) >= 2
            and len(candidates) >= PARALLEL_MIN_PAIRS
            and parallel_safe()
        ):
            values = _score_forked(cuts, progress)
        else:
            values = _score_span((0, len(cuts)), progress)
    finally:
        _SHARED = None
    result = np.empty(len(candidates), dtype=np.float64)
    result[order] = values
    return result


def _score_forked(
    cuts: list[tuple[int, int]], progress: Callable[[float], None] | None
) -> np.ndarray:
    """Half of the blocks here, half in one forked process (2 cores: no idle parent)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    middle = _balanced_middle(cuts)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        later = pool.submit(_score_span, (middle, len(cuts)))
        here = _score_span((0, middle), progress)
        there = later.result()
    return np.concatenate([here, there])


def _balanced_middle(cuts: list[tuple[int, int]]) -> int:
    """The block index splitting the candidates in two about equal halves."""
    total = cuts[-1][1]
    for index, (start, _) in enumerate(cuts):
        if start >= total / 2:
            return max(index, 1)
    return len(cuts) - 1
