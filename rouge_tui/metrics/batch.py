"""Scoring many (candidate, references) pairs at once, with rouge-score's numbers exactly.

`fmeasures(metric, tokenizer, stem, references, candidates, groups)` gives the F of every
candidate against its group of references (the best over the group, as `Scorer.score_multi`),
equal as floats to scoring each pair with `Scorer`. It is what a suite run uses: a reference
group is tokenised once however many builds and runs are scored against it.

How: each block of texts is tokenised and interned at once in numpy into token codes
(`codes.token_codes`; text by text, in C-level loops into tuples of small int ids, when a
block cannot be). rougeL's LCS lengths come from rapidfuzz's bit-parallel pass in C++
(`lcs.lcs_length_ids`, exact on such codes); rouge1/rouge2 count clipped n-gram matches on
them; rougeLsum traces rouge-score's own LCS back for every sentence pair of a block at
once (`lsum`).

Work is done in blocks of reference groups, so the codes of only one block are alive at a
time; with `workers=2` the blocks are split between this process and a
forked one (see `fmeasures`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import struct
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter

import numpy as np

from rouge_tui.forking import Forked, ForkFailed, parallel_safe
from rouge_tui.gcpause import collector_paused
from rouge_tui.metrics.codes import token_code_array, token_codes
from rouge_tui.metrics.lcs import lcs_length_ids
from rouge_tui.metrics.lsum import coded_layout, layout, lsum_fmeasures
from rouge_tui.metrics.rouge import METRICS, _ngrams, _overlap
from rouge_tui.metrics.tokenize import TOKENIZERS, make_batch_tokenizer

__all__ = ["SideJob", "beside", "fmeasures", "parallel_safe"]

# Tokens per block: bounds the token strings and id tuples alive at once.
BLOCK_TOKENS = 1 << 17
# Below this many pairs a second process costs more (~0.1 s to fork and gather) than it saves.
PARALLEL_MIN_PAIRS = 4000


# --- counts to F ------------------------------------------------------------------------------


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


def _interned(
    token_lists: Iterable[list[str]], table: defaultdict[str, int]
) -> list[tuple[int, ...]]:
    """Each token list as a tuple of ids, `table` giving every new token the next id.

    `operator.itemgetter` looks a whole list up in one C-level call, about half the cost of
    a `map` over the table per token; it returns the item itself for one token (and cannot
    be made for none), so those lists go through `map`.
    """
    lookup = table.__getitem__
    return [
        itemgetter(*tokens)(table) if len(tokens) > 1 else tuple(map(lookup, tokens))
        for tokens in token_lists
    ]


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
        self.tokenize_all = make_batch_tokenizer(tokenizer, stem)

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
        # Every text as a sequence of token codes, equal exactly where the tokens are:
        # a string of one character per token made in numpy for the whole block, or a
        # tuple of int ids when the block needs the per-text tokenizer (`whitespace` on
        # text outside ASCII). Then each pair's sequences side by side.
        refs: Sequence[Sequence[int] | str]
        cans: Sequence[Sequence[int] | str]
        codes = token_codes([*ref_texts, *candidates], self.tokenizer, self.stem)
        if codes is not None:
            refs, cans = codes[: len(ref_texts)], codes[len(ref_texts) :]
        else:
            table: defaultdict[str, int] = defaultdict(itertools.count().__next__)
            refs = _interned(self.tokenize_all(ref_texts), table)
            cans = _interned(self.tokenize_all(candidates), table)
        pairs = len(pair_ref)
        ref_of = list(map(refs.__getitem__, pair_ref.tolist()))
        can_of = list(map(cans.__getitem__, pair_can.tolist()))
        m = np.fromiter(map(len, ref_of), dtype=np.int64, count=pairs)
        n = np.fromiter(map(len, can_of), dtype=np.int64, count=pairs)
        if self.metric == "rougeL":
            matches = np.fromiter(map(lcs_length_ids, ref_of, can_of), dtype=np.int64, count=pairs)
            return _f_from_counts(matches, m, n)
        gram = 1 if self.metric == "rouge1" else 2
        ref_counts = [_ngrams(tokens, gram) for tokens in refs]
        can_counts = [_ngrams(tokens, gram) for tokens in cans]
        matches = np.fromiter(
            map(
                _overlap,
                map(ref_counts.__getitem__, pair_ref.tolist()),
                map(can_counts.__getitem__, pair_can.tolist()),
            ),
            dtype=np.int64,
            count=pairs,
        )
        return _f_from_counts(matches, m - gram + 1, n - gram + 1)

    def _lsum(
        self,
        ref_texts: list[str],
        candidates: Sequence[str],
        pair_ref: np.ndarray,
        pair_can: np.ndarray,
    ) -> np.ndarray:
        """rougeLsum of every pair at once (`lsum.lsum_fmeasures`), from each text's lines
        (rouge-score splits sentences on newlines) tokenised and interned once: in numpy
        as one batch of lines (`token_code_array`), else line by line."""
        texts = [*ref_texts, *candidates]
        lines = [text.split("\n") for text in texts]
        per_text = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        made = token_code_array(
            list(itertools.chain.from_iterable(lines)), self.tokenizer, self.stem
        )
        if made is not None:
            sentences = coded_layout(*made, per_text)
        else:
            table: defaultdict[str, int] = defaultdict(itertools.count().__next__)
            tokenize_all = self.tokenize_all
            sentences = layout(
                [_interned(filter(None, tokenize_all(text_lines)), table) for text_lines in lines]
            )
        return lsum_fmeasures(sentences, pair_ref, pair_can + len(ref_texts))


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


# The work a forked process reads (inherited, not pickled): set just before forking. Per
# thread, so two app workers scoring at once never see each other's (a fork is made only
# from a process's one thread, whose data the child keeps).
_LOCAL = threading.local()


class SideJob:
    """Work to do beside a big scoring batch, e.g. the change signals of the same outputs.

    Under `beside`, the forked process that shares the scoring runs it first, then takes
    scoring blocks as usual (this process takes more meanwhile). It needs no fork of its
    own: each fork makes both processes copy the memory pages they then touch, and the
    texts are the pages both touch. `result()` gives its value, computed here when no
    forked process did (no fork, a failed one, or nothing to score).
    """

    def __init__(self, fn: Callable[..., object], *args: object) -> None:
        self.fn = fn
        self.args = args
        self.done = False
        self.value: object = None

    def result(self) -> object:
        if not self.done:
            self.value = self.fn(*self.args)
            self.done = True
        return self.value


@contextlib.contextmanager
def beside(job: SideJob | None) -> Iterator[SideJob | None]:
    """Within this block, a forked scoring process of this thread also runs ``job``."""
    previous = getattr(_LOCAL, "beside", None)
    _LOCAL.beside = job
    try:
        yield job
    finally:
        _LOCAL.beside = previous


def _score_span(
    span: tuple[int, int], progress: Callable[[float], None] | None = None
) -> np.ndarray:
    """F for the candidates of blocks span[0]..span[1] - 1, read from `_LOCAL.work`."""
    block, references, candidates, order, sorted_groups, cuts = _LOCAL.work
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
    # With a second process, at least a few blocks each, so that neither waits long at the end.
    cuts = _blocks(references, candidates, order, sorted_groups, 8 if workers >= 2 else 1)
    _LOCAL.work = (block, references, candidates, order, sorted_groups, cuts)
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
        _LOCAL.work = None
    result = np.empty(len(candidates), dtype=np.float64)
    result[order] = values
    return result


def _score_forked(
    cuts: list[tuple[int, int]], progress: Callable[[float], None] | None
) -> np.ndarray:
    """The blocks shared with one forked process, each taking the next run of blocks when
    it is free.

    The run numbers wait in a pipe, filled and closed for writing before the fork (at most
    what any pipe holds without blocking: past that many blocks, runs of several): a read
    of one number is atomic, so each run goes to exactly one process, and neither waits
    while the other has work left (a forked process can run slower: its writes copy the
    pages it shares). Runs the other process did not send back (it failed) are scored
    here: the same array either way.
    """
    per_run = -(-len(cuts) * _CLAIM.size // _PIPE_SAFE)  # blocks per run
    spans = [(start, min(start + per_run, len(cuts))) for start in range(0, len(cuts), per_run)]
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, b"".join(_CLAIM.pack(i) for i in range(len(spans))))
    finally:
        os.close(write_fd)
    there = None
    side = getattr(_LOCAL, "beside", None)
    if side is not None and side.done:
        side = None
    try:
        there = Forked.start(_score_claimed_beside, read_fd, spans, side)
        parts = _score_claimed(read_fd, progress, spans)
    except BaseException:
        if there is not None:
            there.cancel()  # nobody will read its answer: stop it now
        raise
    finally:
        os.close(read_fd)
    if there is not None:
        with contextlib.suppress(ForkFailed):
            theirs, value = there.result()
            parts.update(theirs)
            if side is not None:
                side.value, side.done = value, True
    return np.concatenate(
        [parts[i] if i in parts else _score_span(span) for i, span in enumerate(spans)]
    )


# One claimed run number; the pipe holds them all before the fork (within what any pipe
# takes without blocking).
_CLAIM = struct.Struct("<I")
_PIPE_SAFE = 4096


def _score_claimed_beside(
    fd: int, spans: list[tuple[int, int]], side: SideJob | None
) -> tuple[dict[int, np.ndarray], object]:
    """The forked process's part: the side job, if any, then runs of blocks."""
    value = side.fn(*side.args) if side is not None else None
    return _score_claimed(fd, None, spans), value


def _score_claimed(
    fd: int, progress: Callable[[float], None] | None, spans: list[tuple[int, int]]
) -> dict[int, np.ndarray]:
    """Score runs of blocks taken one at a time from the pipe until it is empty."""
    parts: dict[int, np.ndarray] = {}
    while True:
        item = os.read(fd, _CLAIM.size)
        if len(item) < _CLAIM.size:
            return parts
        index = _CLAIM.unpack(item)[0]
        if progress is not None:
            progress(index / len(spans))
        parts[index] = _score_span(spans[index])
