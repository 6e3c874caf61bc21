"""Many texts tokenised and interned at once in numpy: each text as a string of token codes.

`token_codes(texts, tokenizer, stem)` gives, for every text, a `str` with one character per token
(in order), such that two tokens anywhere in the batch are equal exactly when their
characters are. It stands in for `tokenize` plus a per-token table lookup, which cost a
Python `str` and a dict probe per word (~150 ns); here the work is a few numpy passes over
the batch's bytes and tokens. rapidfuzz reads such strings faster than tuples of ints, and
`len`, `Counter` and n-gram slices work on them as on token lists.

How, on one batch:

1. Each text is lowered (`str.lower`, per text as the tokenizers do) and all are joined by
   spaces into one byte string: ASCII as it is (`whitespace`; a batch with other
   characters returns None and takes the per-text path) or, for `rouge-score`, through the
   same encode-and-translate steps as its one-text tokenizer (every non-[a-z0-9] is then a
   space).
2. Tokens are the runs of non-separator bytes: where a flag per byte changes.
3. Each token gets an exact key: its first 8 bytes read as one little-endian integer,
   masked to its length, with the length in the top byte (up to 7 bytes); 8 to 15 bytes
   combine the codes of their two halves; longer ones (rare) go through a dict of bytes.
4. Keys become dense codes through a hash table built in numpy from the distinct keys
   (`_dense`).
5. With stemming, each distinct word (not each token) goes through rouge-score's stemming
   step once, and the codes become the codes of the stems (tokens whose stem its filter
   drops are dropped).

`token_code_array` gives the codes as one array with each text's bounds (rougeLsum reads
its sentences so); `token_codes` skips the surrogate range and decodes the codes of all
tokens as one UTF-32 string cut at the texts' token boundaries.

tests/test_codes.py checks, against the tokenizers themselves, that codes are equal
exactly when tokens are.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence

import numpy as np

from rouge_tui.metrics.tokenize import _ALNUM_BYTES, stemmed_forms

__all__ = ["NOT_WHITESPACE_ASCII", "runs", "token_code_array", "token_codes"]

# Per byte, for bytes.translate: 1 where it is part of a token, 0 where it separates tokens.
# `str.split()` separates on `str.isspace` characters; in ASCII those are 9-13 and 28-32.
NOT_WHITESPACE_ASCII = bytes(0 if chr(c).isspace() else 1 for c in range(128)) + bytes([1] * 128)
# After rouge-score's translate step every separator is a space.
_NOT_SPACE = bytes(0 if c == 32 else 1 for c in range(256))

# The low n bytes of a little-endian 8-byte word, for n = 0..8.
_LOW_BYTES = np.array(
    [(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64
)
_TOP_BYTE = np.uint64(56)
_HALF = np.uint64(32)
# Fibonacci hashing: the top bits of key * 2**64 / golden ratio pick a slot.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Codes are characters: below U+110000, and past the surrogates (U+D800-U+DFFF), which
# rapidfuzz would read as any other code point but which no codec writes.
_SURROGATES = 0xD800
_SURROGATE_SPAN = 0x800
_MAX_CODES = 0x110000 - _SURROGATE_SPAN
# Bytes past the last token that an 8-byte read at a token's second half may touch.
_PAD = 16


def _dense(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..k-1 for uint64 keys, equal exactly where the keys are equal, and k.

    The distinct keys (a sort, which numpy does fast on uint64) are laid into a table of
    at least four times as many slots: each at its hashed slot or, when that is taken, the
    next free one after it (linear probing without wrap-around, placed in slot order, so
    the slots from a key's hash to its place are all taken). Every key is then found by
    probing from its hash: almost all at the first slot, all within a few rounds.
    """
    if not len(keys):
        return np.zeros(0, dtype=np.int64), 0
    ordered = np.sort(keys)
    distinct = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
    count = len(distinct)
    bits = max((4 * count).bit_length(), 4)
    shift = np.uint64(64 - bits)
    home = ((distinct * _GOLDEN) >> shift).astype(np.int64)
    by_home = np.argsort(home)
    step = np.arange(count, dtype=np.int64)
    place = np.maximum.accumulate(home[by_home] - step) + step
    table = np.zeros((1 << bits) + count, dtype=np.uint64)
    code = np.zeros(len(table), dtype=np.int64)
    table[place] = distinct[by_home]
    code[place] = by_home
    slot = keys * _GOLDEN
    slot >>= shift
    slot = slot.view(np.int64)  # below 2**bits: the same values
    probing = np.flatnonzero(table[slot] != keys)
    while len(probing):
        slot[probing] += 1
        probing = probing[table[slot[probing]] != keys[probing]]
    return code[slot], count


def runs(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the runs of true flags, for flags that are false at
    both ends (a separator before the first text and after the last)."""
    edges = np.flatnonzero(flags[1:] != flags[:-1]) + 1
    return edges[0::2], edges[1::2]


def _bytes_of(lowered: list[str], tokenizer: str) -> tuple[bytes, bytes] | None:
    """The joined batch (a space before each text, padding after) and its token flags."""
    joined = " ".join(["", *lowered, " " * _PAD])
    if tokenizer == "whitespace":
        if not joined.isascii():
            return None
        raw = joined.encode("ascii")
        return raw, raw.translate(NOT_WHITESPACE_ASCII)
    # rouge-score's own steps (`tokenize._rouge_score`): every byte left not [a-z0-9] is
    # then a space.
    raw = joined.encode("ascii", "replace").translate(_ALNUM_BYTES)
    if len(raw) != len(joined):  # one byte per character, or the offsets would not hold
        return None
    return raw, raw.translate(_NOT_SPACE)


def token_code_array(
    texts: Sequence[str], tokenizer: str, stem: bool = False
) -> tuple[np.ndarray, np.ndarray] | None:
    """The codes of every token of the batch in order (small non-negative int64s, equal
    exactly where the tokens are) and where each text's tokens start (one more entry at
    the end).

    `tokenizer` is "whitespace" or "rouge-score"; `stem` (rouge-score only) stems as its
    tokenizer does, dropping the tokens whose stem its filter drops. None when this batch
    cannot be done here (a `whitespace` batch with characters outside ASCII, or more
    distinct tokens than there are code points): the caller tokenises it text by text.
    """
    if tokenizer not in ("whitespace", "rouge-score"):
        raise ValueError(f"no batch codes for tokenizer {tokenizer!r}")
    if stem and tokenizer != "rouge-score":
        raise ValueError(f"stemming applies to the rouge-score tokenizer only, not {tokenizer!r}")
    lowered = list(map(str.lower, texts))
    made = _bytes_of(lowered, tokenizer)
    if made is None:
        return None
    raw, solid = made
    starts, ends = runs(np.frombuffer(solid, dtype=np.uint8))
    codes, total = _codes(raw, starts, ends)
    if stem:
        codes, total, starts = _stemmed(codes, total, raw, starts, ends)
    if total > _MAX_CODES:
        return None
    # The space before text i is at the sum of (length + 1) of the texts before it; its
    # tokens are those starting between that space and the next text's.
    spaces = np.zeros(len(lowered) + 1, dtype=np.int64)
    widths = np.fromiter(map(len, lowered), dtype=np.int64, count=len(lowered)) + 1
    np.cumsum(widths, out=spaces[1:])
    return codes, np.searchsorted(starts, spaces)


def token_codes(texts: Sequence[str], tokenizer: str, stem: bool = False) -> list[str] | None:
    """One string per text, a character per token, equal characters for equal tokens
    (`token_code_array`'s codes, past the surrogates); None where it gives None."""
    made = token_code_array(texts, tokenizer, stem)
    if made is None:
        return None
    codes, cut = made
    codes = codes + (codes >= _SURROGATES) * _SURROGATE_SPAN
    text = codes.astype("<u4").tobytes().decode("utf-32-le")
    return [text[a:b] for a, b in itertools.pairwise(cut.tolist())]


def _codes(raw: bytes, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes of the tokens raw[starts[i]:ends[i]], and how many distinct there are."""
    size = ends - starts
    # Every byte position as the start of a little-endian 8-byte word (unaligned reads).
    words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    first = words[starts]
    codes = np.empty(len(starts), dtype=np.int64)
    total = 0

    short = np.flatnonzero(size < 8)
    if len(short):
        n = size[short]
        keys = (first[short] & _LOW_BYTES[n]) | (n.astype(np.uint64) << _TOP_BYTE)
        codes[short], total = _dense(keys)

    middle = np.flatnonzero((size >= 8) & (size < 16))
    if len(middle):
        head, _ = _dense(first[middle])
        n = size[middle] - 8
        second = words[starts[middle] + 8]
        tail, _ = _dense((second & _LOW_BYTES[n]) | (n.astype(np.uint64) << _TOP_BYTE))
        pair = (head.astype(np.uint64) << _HALF) | tail.astype(np.uint64)
        found, count = _dense(pair)
        codes[middle] = found + total
        total += count

    long_ = np.flatnonzero(size >= 16)
    if len(long_):
        seen: dict[bytes, int] = {}
        found_long = [
            seen.setdefault(raw[start:end], len(seen))
            for start, end in zip(starts[long_].tolist(), ends[long_].tolist())
        ]
        codes[long_] = np.asarray(found_long, dtype=np.int64) + total
        total += len(seen)
    return codes, total


# Stemmed forms across batches: each word's bytes -> its form's id (-1: dropped), each
# form -> its id. Ids are the codes of stemmed batches; cleared between batches past a size.
# The app's workers may score at once: one batch at a time hands out ids.
_WORD_FORMS: dict[bytes, int] = {}
_FORM_IDS: dict[str, int] = {}
_FORMS_LIMIT = 1 << 19
_FORMS_LOCK = threading.Lock()


def _stemmed(
    codes: np.ndarray, total: int, raw: bytes, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray]:
    """The tokens as rouge-score's stemming step leaves them: (their codes, a bound on
    them, their starts), without the tokens it drops. A word is stemmed the first time
    any batch has it (`stemmed_forms`); each batch then looks its distinct words up once."""
    where = np.empty(total, dtype=np.int64)
    where[codes] = np.arange(len(codes), dtype=np.int64)  # a place of each distinct word
    words = list(map(raw.__getitem__, map(slice, starts[where].tolist(), ends[where].tolist())))
    with _FORMS_LOCK:
        if len(_FORM_IDS) > _FORMS_LIMIT:
            _WORD_FORMS.clear()
            _FORM_IDS.clear()
        ids = list(map(_WORD_FORMS.get, words))
        if None in ids:
            new = [word for word, found in zip(words, ids) if found is None]
            forms = stemmed_forms([word.decode("ascii") for word in new])
            for word, form in zip(new, forms):
                _WORD_FORMS[word] = _FORM_IDS.setdefault(form, len(_FORM_IDS)) if form else -1
            ids = list(map(_WORD_FORMS.__getitem__, words))
        bound = len(_FORM_IDS)
    stemmed = np.asarray(ids, dtype=np.int64)[codes]
    kept = np.flatnonzero(stemmed >= 0)
    return stemmed[kept], bound, starts[kept]
