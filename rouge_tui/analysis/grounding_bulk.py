"""The bulk path of grounding: `new_counts`, every paired example of a build at once, in numpy.

It must equal, for every example, the reference in `rouge_tui.analysis.grounding` (SPEC's
definitions restated): the new sentences and new numbers (SPEC's "new figures") of
`ground_side(candidate, references, source, baseline)` and its `least_support`.
tests/test_grounding_bulk.py checks it, through `new_counts` alone, on random and hand-worked
texts.

A chunk of examples is read at a time: its candidates, then its references, sources and
baselines, each set as the UTF-8 bytes of the texts casefolded, with every byte that is not
part of a word replaced by its character's class, so that sentence cuts, words and numbers
are found by comparing bytes. A word's key is its bytes (exact up to 16 bytes; longer words
are numbered through a dictionary). LCS lengths come from rapidfuzz (`_best_lcs`), each
sentence given as a string with one character per word (`_codes`). An example the bulk path
cannot decide (a word that finds no slot in the hash tables, two of its words whose hashes are
equal, more distinct words than code points) is left to the reference.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rouge_tui.analysis.grounding import (
    CJK_ENDS,
    CLOSERS,
    MIN_SUPPORT,
    WORD,
    check_min_support,
    ground_side,
    lcs_blocks,
    least_support,
    numbers,
)

__all__ = ["new_counts"]

# Classes of the bytes that are not part of a word; word bytes keep their values, all >= 48.
# A character beyond ASCII that is not a word character has its class on its first byte and
# _TAIL on the others. The first five are the ones that can cut a sentence; the number marks
# (. , : / - %) have classes of their own.
_SEP, _NL, _CJK_TERM, _DOT, _BANG, _SPACE, _CLOSE, _OTHER, _TAIL = range(1, 10)
_COMMA, _COLON, _SLASH, _DASH, _PERCENT = range(10, 15)
# Characters of output per chunk: the arrays stay in the cache, and small enough that the
# allocator hands the same memory back chunk after chunk (at 1 << 18 the hash tables' chunks
# took fresh pages each time: benchmarks/README.md, "All changed: signals and grounding").
_CHUNK_CHARS = 1 << 17
_CHUNK_EXAMPLES = 1 << 13  # and examples
_TABLE_BITS = 40  # a hash table has at most 2 ** this many slots (tests lower it)
_ROUNDS = 8  # hash tables tried before a word is left to the reference path (tests lower it)
_CLOSING_STEPS = 8  # bytes of closing marks after a stop stepped over one at a time (tests lower it)
_PAIRS = 1024  # sentence pairs per rapidfuzz call for small examples (fewer calls, less CPU)
_MAX_CODE = 0x10FFFF  # the last code point: a group of examples with more distinct words is left (tests lower it)
_K1, _K2, _K3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)
# A multiplier a round: a slot is the top bits of the hash times it.
_MULTIPLIERS = [np.uint64((0x9E3779B97F4A7C15 + k * 0xD6E8FEB86659FD92) % (1 << 64)) for k in range(16)]
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # k low bytes
_NUMBER_JOINS = (_DOT, _COMMA, _COLON, _SLASH, _DASH)


_PUNCTUATION = {"\x00": _SEP, ".": _DOT, "!": _BANG, "?": _BANG, ",": _COMMA, ":": _COLON,
          "/": _SLASH, "-": _DASH, "%": _PERCENT}


def _distinct(values: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of ``values`` (integers in [0, ``size``)), ascending: np.unique's
    answer, by marking. (np.unique asks numpy.ma whether the array is masked, and so loads
    numpy.ma, which nothing else on a report's path needs: SPEC budgets the sample's report
    as a whole process.)"""
    seen = np.zeros(size, bool)
    seen[values] = True
    return np.flatnonzero(seen)


def _class_of(char: str) -> int:
    """The class of a character (0 for a word character)."""
    if char in _PUNCTUATION:
        return _PUNCTUATION[char]
    if WORD.fullmatch(char):
        return 0
    if char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":  # str.splitlines' line boundaries
        return _NL
    if char.isspace():
        return _SPACE
    if char in CLOSERS:
        return _CLOSE
    if char in CJK_ENDS:
        return _CJK_TERM
    return _OTHER


# ASCII letters lowered, digits kept, the rest by class; bytes beyond ASCII are kept for now
# (_classify sorts them out).
_BYTE_CLASSES = bytes([ord(c.lower()) if c.isalnum() else _class_of(c)
                       for c in map(chr, range(128))] + list(range(128, 256)))
_CHARACTER_CLASSES: dict[int, int] = {}  # code point -> _class_of, for the characters seen


def _classify(a: np.ndarray) -> bool:
    """Write the class of every character beyond ASCII that is not a word character over its
    UTF-8 bytes in ``a`` (casefold() never makes or unmakes a space, a line break, a digit or
    a mark of the sentence rule or the numbers: a test checks every code point). True when
    one is a decimal digit other than 0-9."""
    lead = np.flatnonzero(a >= 0xC0)
    first = a[lead].astype(np.int64)
    size = 2 + (first >= 0xE0) + (first >= 0xF0)
    code = first & (0x7F >> size)
    for k in (1, 2, 3):
        more = size > k
        code[more] = code[more] << 6 | (a[lead[more] + k] & 0x3F)
    seen = _distinct(code, int(code.max()) + 1 if len(code) else 0).tolist()
    for c in seen:
        if c not in _CHARACTER_CLASSES:
            _CHARACTER_CLASSES[c] = _class_of(chr(c))
    kind = np.array([_CHARACTER_CLASSES[c] for c in seen], np.uint8)[np.searchsorted(seen, code)]
    other = kind > 0
    lead, size = lead[other], size[other]
    a[lead] = kind[other]
    for k in (1, 2, 3):
        a[lead[size > k] + k] = _TAIL
    return any(chr(c).isdecimal() for c in seen)


@dataclass
class _Words:
    """What the bulk path reads of many texts: each word's key (``lo``, ``hi``); per sentence,
    its first word, its length and its example (in the texts' order); and each number as bytes,
    with its example."""

    lo: np.ndarray
    hi: np.ndarray
    start: np.ndarray
    length: np.ndarray
    example: np.ndarray
    numbers: list[bytes]
    number_example: np.ndarray


def _read(texts: Sequence[str], examples: np.ndarray, long_words: dict[bytes, int]) -> _Words:
    """The sentences, words and numbers of ``texts``; text k belongs to example
    ``examples[k]``; words longer than 16 bytes are numbered in ``long_words``. Must equal
    [words(s.text) for s in sentences(text)] and numbers(text) for each text."""
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:  # \x00 separates; \x01 is the same to every rule
        texts = [t.replace("\x00", "\x01") for t in texts]
        joined = "\x00".join(texts)
    ascii = joined.isascii()
    if not ascii:  # casefold() is slow beyond ASCII: only the texts that need it
        joined = "\x00".join(t if t.isascii() else t.casefold() for t in texts)
    raw = joined.encode("utf-8", "surrogatepass").translate(_BYTE_CLASSES)
    a = np.zeros(len(raw) + 17, np.uint8)  # a byte before, 16 after for the key windows
    a[0] = _OTHER
    a[1:-16] = np.frombuffer(raw, np.uint8)
    other_digits = not ascii and _classify(a)
    is_word = a >= 48
    edges = np.flatnonzero(is_word[1:] != is_word[:-1]) + 1
    starts, ends = edges[0::2], edges[1::2]
    # Cuts: separators, line breaks, CJK stops, and the ends of the runs of . ! ? and closing
    # marks that whitespace follows. (Only the words on each side of a cut matter here, so a
    # cut may sit anywhere between the stop and the next word.)
    special = np.flatnonzero((a - np.uint8(_SEP)) < 5)
    kind = a[special]
    seps = special[kind == _SEP]
    after = special[kind >= _DOT] + 1
    for _ in range(_CLOSING_STEPS):  # past the closing marks, a byte at a time where they are few
        closing = (a[after] == _CLOSE) | (a[after] == _TAIL)
        if not closing.any():
            break
        after[closing] += 1
    else:  # a long run of them: past every run at once
        opened = np.flatnonzero((a != _CLOSE) & (a != _TAIL))
        after = opened[np.searchsorted(opened, after)]
    after = after[(a[after] == _SPACE) | (a[after] == _NL) | (a[after] == _SEP)]
    cut = np.zeros(len(starts) + 1, bool)  # before which words a sentence begins
    cut[[0, -1]] = True
    for cuts in (seps, special[(kind == _NL) | (kind == _CJK_TERM)], after):
        cut[np.searchsorted(starts, cuts)] = True
    bounds = np.flatnonzero(cut)
    first, length = bounds[:-1], np.diff(bounds)
    example = examples[np.searchsorted(seps, starts[first])]
    # Keys: the word's bytes, read eight at a time through an unaligned view.
    size = ends - starts
    window = np.ndarray((len(a) - 7,), dtype="<u8", buffer=a, strides=(1,))
    lo = window[starts] & _LOW[np.minimum(size, 8)]
    hi = np.zeros_like(lo)
    longer = np.flatnonzero(size > 8)
    hi[longer] = window[starts[longer] + 8] & _LOW[np.minimum(size[longer] - 8, 8)]
    longest = np.flatnonzero(size > 16)
    if len(longest):  # numbered; 0xFF is never in UTF-8, so no such hi is another word's
        lo[longest] = [long_words.setdefault(raw[s - 1:e - 1], len(long_words))
                       for s, e in zip(starts[longest].tolist(), ends[longest].tolist())]
        hi[longest] = ~np.uint64(0)
    # Numbers: chains of digit runs joined by single marks, and a % right after.
    if other_digits:
        found = [(k, number.text.encode().translate(_BYTE_CLASSES))
                 for k, t in enumerate(texts) for number in numbers(t)]
        number_text = np.array([k for k, _ in found], np.int64)
        found_numbers = [f for _, f in found]
    else:
        digit = (a - np.uint8(48)) < 10
        edges = np.flatnonzero(digit[1:] != digit[:-1]) + 1
        start, end = edges[0::2], edges[1::2]
        if len(start):
            chained = (start[1:] == end[:-1] + 1) & np.isin(a[end[:-1]], _NUMBER_JOINS)
            start, end = start[np.r_[True, ~chained]], end[np.r_[~chained, True]]
            end += a[end] == _PERCENT
        number_text = np.searchsorted(seps, start)
        found_numbers = [raw[i - 1:j - 1] for i, j in zip(start.tolist(), end.tolist())]
    return _Words(lo, hi, first, length, example, found_numbers, examples[number_text])


def _best_lcs(pattern: _Words, target: _Words, examples: int) -> tuple[np.ndarray, np.ndarray]:
    """For each sentence of ``pattern``, its longest LCS with a sentence of ``target`` of the same
    example (both read in examples ascending); and the examples left to the reference path (see
    `_codes`)."""
    best = np.zeros(len(pattern.length), np.int64)
    if not len(best):
        return best, np.zeros(0, np.int64)
    own_bounds = np.searchsorted(pattern.example, np.arange(examples + 1)).tolist()
    other_bounds = np.searchsorted(target.example, np.arange(examples + 1)).tolist()
    # Several small examples to one call (each call has its own cost): the pairs across two
    # examples are worked out too, and share no word (`_codes` numbers the words of a group).
    pairs = int(np.dot(np.diff(own_bounds), np.diff(other_bounds)))
    together = max(1, int((_PAIRS * examples / max(pairs, 1)) ** 0.5))
    codes, left = _codes(pattern, target, examples, together)
    # Every sentence as a string of its words' codes: one decode, then a split at the 1s put
    # after each sentence.
    length = np.concatenate((pattern.length, target.length))
    spaced = np.ones(len(codes) + len(length), np.uint32)
    spaced[np.arange(len(codes)) + np.repeat(np.arange(len(length)), length)] = codes
    strings = spaced.tobytes().decode("utf-32-le", "surrogatepass").split("\x01")
    own, others = strings[:len(pattern.length)], strings[len(pattern.length):-1]
    for e in range(0, examples, together):
        f = min(e + together, examples)
        p, q = slice(own_bounds[e], own_bounds[f]), slice(other_bounds[e], other_bounds[f])
        if p.start < p.stop and q.start < q.stop:
            for start, lcs in lcs_blocks(own[p], others[q]):
                best[p.start + start:p.start + start + len(lcs)] = lcs.max(axis=1)
    return best, left


def _codes(pattern: _Words, target: _Words, examples: int, together: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each word's code, the pattern's words then the target's: within a group of ``together``
    examples, the pattern's distinct words (a word of two examples is two words) are numbered
    2, 3, ... and a target word takes the number of the pattern word of its example it equals,
    0 if none (1 ends a sentence). So a group's sentences become strings with a character per
    word, one byte each for most groups (fewer than 254 distinct words), which rapidfuzz's
    LCSseq compares faster than wider strings; and a sentence shares no word with another
    example's. And the examples left to the reference path: a pattern word that found no slot
    of its own in `_ROUNDS` tables, two different words of an example whose hashes are equal,
    or a group with more distinct words than there are code points.

    Equal words are found through hash tables, not a sort: in each round, every pattern word
    still without a slot is written at its hash's slot (one of those that land there is
    kept), and every word still looking reads its slot: the word kept there is its equal
    when their hashes are, none when the slot is empty (its equal would have landed there);
    a slot kept by another word sends it on to the next round's slots."""
    npw = len(pattern.lo)
    lo = np.concatenate((pattern.lo, target.lo))
    hi = np.concatenate((pattern.hi, target.hi))
    ex = np.concatenate((np.repeat(pattern.example, pattern.length), np.repeat(target.example, target.length)))
    x = (lo * _K1) ^ (hi * _K2) ^ (ex.astype(np.uint64) * _K3)  # a hash of (example, word)
    bits = min(max(npw, 1).bit_length() + 1, _TABLE_BITS)  # at most half the slots taken
    shift = np.uint64(64 - bits)
    equal = np.full(len(x), -1, np.intp)  # the pattern word each word equals (-1: none)
    looking = np.arange(len(x))
    for multiplier in _MULTIPLIERS[:_ROUNDS]:
        if not len(looking):
            break
        slot = x[looking] * multiplier >> shift
        table = np.full(1 << bits, -1, np.intp)
        writes = looking < npw
        table[slot[writes]] = looking[writes]
        held = table[slot]
        done = (held < 0) | (x[held] == x[looking])
        equal[looking] = np.where(done, held, -1)
        looking = looking[~done]
    # Hashes only found the equals; the keys say whether they are.
    found = np.flatnonzero((equal >= 0) & (equal != np.arange(len(equal))))  # a word is itself
    kept = equal[found]
    clash = found[(lo[kept] != lo[found]) | (hi[kept] != hi[found]) | (ex[kept] != ex[found])]
    # Number each group's distinct pattern words (those that are their own equal) 2, 3, ...
    own = equal[:npw] == np.arange(npw)
    count = np.cumsum(own)
    group = ex[:npw] // together
    before = np.concatenate(([0], count))[np.searchsorted(ex[:npw], np.arange(0, examples, together))]
    number = count - before[group] + 1
    unresolved = looking[looking < npw]
    past = np.isin(np.arange(examples) // together, group[own & (number > _MAX_CODE)])  # codes shared
    # A clash leaves both examples: the word looked up and the one it was taken for, whose
    # sentences would otherwise match the other example's texts.
    left = _distinct(np.concatenate((ex[clash], ex[equal[clash]], ex[unresolved], np.flatnonzero(past))), examples)
    number = np.append(np.minimum(number, _MAX_CODE).astype(np.uint32), np.uint32(0))  # [-1]: none
    return number[equal], left


def new_counts(
    candidates: Sequence[str],
    baselines: Sequence[str],
    references: Sequence[Sequence[str] | str],
    sources: Sequence[str | None] | None = None,
    min_support: float = MIN_SUPPORT,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many new sentences and new figures each candidate has against its references, source
    and baseline, and the least support of its new sentences (1.0 with none: the triage reads
    the least supported first). Must equal, for every example i, the lengths of
    ``new_sentences`` and ``new_figures`` of ``ground_side(candidates[i], references[i],
    sources[i], baselines[i])`` and `least_support` of it."""
    check_min_support(min_support)
    n = len(candidates)
    sources = [None] * n if sources is None else sources
    references = [(r,) if isinstance(r, str) else r for r in references]
    new_sentences = np.zeros(n, np.int64)
    new_numbers = np.zeros(n, np.int64)
    least = np.ones(n, np.float64)
    # An output equal to its baseline has nothing new: every sentence and number is there.
    changed = np.flatnonzero(np.fromiter(map(operator.ne, candidates, baselines), bool, n))
    # A chunk of examples at a time, lengths within a factor of two together (a chunk's examples
    # share rapidfuzz calls as their mean size allows), each such group in the examples' order
    # (their texts read in the order they were made, not all over memory).
    size = (np.fromiter(map(len, candidates), np.int64, n)
            + np.fromiter(map(len, baselines), np.int64, n))[changed]
    by = np.argsort(np.frexp(size)[1], kind="stable")
    order = changed[by]
    total = np.cumsum(size[by])
    bounds = _distinct(np.concatenate((
        [0, len(order)],
        np.arange(0, len(order), _CHUNK_EXAMPLES),
        np.searchsorted(total, np.arange(_CHUNK_CHARS, total[-1] if len(total) else 0,
                                         _CHUNK_CHARS)),
    )), len(order) + 1).tolist()
    for start, end in itertools.pairwise(bounds):
        ids = order[start:end].tolist()
        sentence_counts, number_counts, chunk_least, left = _chunk_counts(
            ids, candidates, baselines, references, sources, min_support)
        new_sentences[ids] = sentence_counts
        new_numbers[ids] = number_counts
        least[ids] = chunk_least
        for e in left.tolist():
            i = ids[e]
            side = ground_side(candidates[i], references[i], sources[i], baselines[i], min_support=min_support)
            new_sentences[i] = len(side.new_sentences)
            least[i] = least_support(side)
    return new_sentences, new_numbers, least




def _grounds(ids, baselines, references, sources) -> tuple[list[str], np.ndarray]:
    """Each example's references, source and baseline, in turn, and the example of each text
    (a place for each worked out over the columns, not an example at a time)."""
    k = len(ids)
    refs = list(map(references.__getitem__, ids))
    many = np.fromiter(map(len, refs), np.intp, k)
    source = [sources[i] for i in ids]
    has = np.fromiter(map(operator.is_not, source, itertools.repeat(None)), bool, k)
    per = many + has + 1
    end = np.cumsum(per)
    texts = np.empty(int(end[-1]) if k else 0, object)
    texts[end - 1] = list(map(baselines.__getitem__, ids))
    texts[end[has] - 2] = list(itertools.compress(source, has.tolist()))
    texts[np.repeat(end - per - np.cumsum(many) + many, many) + np.arange(many.sum())] = list(
        itertools.chain.from_iterable(refs))
    return texts.tolist(), np.repeat(np.arange(k), per)


def _chunk_counts(ids, candidates, baselines, references, sources, min_support):
    """New sentences and new numbers per example of one chunk, and the examples whose new
    sentences are left to ``ground_side``."""
    k = len(ids)
    long_words: dict[bytes, int] = {}
    output = _read([candidates[i] for i in ids], np.arange(k), long_words)
    others = _read(*_grounds(ids, baselines, references, sources), long_words)
    best, left = _best_lcs(output, others, k)
    known = set(zip(others.number_example.tolist(), others.numbers))
    new = [e for e, f in zip(output.number_example.tolist(), output.numbers) if (e, f) not in known]
    support = best / output.length
    fresh = support < min_support
    least = np.ones(k, np.float64)
    np.minimum.at(least, output.example[fresh], support[fresh])
    return (np.bincount(output.example[fresh], minlength=k),
            np.bincount(np.array(new, np.int64), minlength=k), least, left)
