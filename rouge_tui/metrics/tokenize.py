"""Tokenizers: the chapter's `lower().split()` and an exact copy of rouge-score 0.1.2's.

Two entry points per tokenizer:

- `make_tokenizer(name, stem)` gives a fast `str -> list[str]` function for scoring.
- `tokenize_with_offsets(text, name, stem)` gives `Token`s carrying offsets into the
  original text, so highlights are drawn on the text as written. Its token texts equal the
  fast form's on every input.

rougeLsum splits sentences on newlines only (rouge-score with `split_summaries=False`):
`sentences` and `sentence_tokens` reproduce that split.
"""

from __future__ import annotations

import bisect
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import add, itemgetter, methodcaller
from typing import Any, Self

__all__ = [
    "TOKENIZERS",
    "StemmerUnavailable",
    "Token",
    "make_batch_tokenizer",
    "make_tokenizer",
    "sentence_spans",
    "sentence_tokens",
    "sentences",
    "stemmed_forms",
    "tokenize",
    "tokenize_with_offsets",
    "tokens_by_sentence",
]

TOKENIZERS: tuple[str, ...] = ("whitespace", "rouge-score")

# rouge-score: lowercase, every run of non-[a-z0-9] is a separator. Finding the runs of
# [a-z0-9] directly gives the same tokens as its substitute-then-split-then-filter steps.
_ALNUM_RUN = re.compile(r"[a-z0-9]+")
# The same runs, found in C-level byte steps (about 4x the regex): after lower(), every
# character that is not ASCII becomes "?" and every byte that is not [a-z0-9] a space, and
# split() cuts the rest. (lower() runs first, as in rouge-score: the Kelvin sign becomes k.)
_ALNUM_BYTES = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
# str.split() and re's \s agree on what whitespace is (both use Py_UNICODE_ISSPACE).
_NON_SPACE_RUN = re.compile(r"\S+")
# rouge-score's final filter, applied after stemming (re.match with ^...$, as it does).
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")

Tokenizer = Callable[[str], list[str]]


class StemmerUnavailable(RuntimeError):
    """Stemming was asked for but NLTK (which provides the Porter stemmer) is not installed."""

    def __init__(self) -> None:
        super().__init__('stemming needs NLTK: pip install "rouge-tui[stem]"')


class Token(tuple):
    """A token as matched (`text`, normalised and maybe stemmed) and where it was written.

    `original[start:end]` is the word as it appears in the original text. Immutable, and
    equal only to a `Token` with the same three fields (hash and equality as a frozen
    dataclass's). A tuple underneath, so a whole text's tokens are made by one C-level
    `map` (`_tokens`): a Python constructor per token was most of the cost of tokenising
    a 2,000-word output for the diff view.
    """

    __slots__ = ()

    def __new__(cls, text: str, start: int, end: int) -> Self:
        return tuple.__new__(cls, (text, start, end))

    text: str = property(itemgetter(0), doc="the token as matched")  # type: ignore[assignment]
    start: int = property(itemgetter(1), doc="offset of its first character")  # type: ignore[assignment]
    end: int = property(itemgetter(2), doc="offset after its last character")  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if type(other) is not Token:
            # A tuple would compare by fields if asked in turn: say no here.
            return False if isinstance(other, tuple) else NotImplemented
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        if type(other) is not Token:
            return True if isinstance(other, tuple) else NotImplemented
        return tuple.__ne__(self, other)

    # Not ordered, as the dataclass was not (a tuple would compare by fields).
    def __lt__(self, other: object) -> bool:
        return NotImplemented

    __le__ = __gt__ = __ge__ = __lt__
    __hash__ = tuple.__hash__  # the dataclass's hash((text, start, end))

    def __repr__(self) -> str:
        return f"Token(text={self[0]!r}, start={self[1]!r}, end={self[2]!r})"

    def __getnewargs__(self) -> tuple[str, int, int]:  # type: ignore[override]
        return (self[0], self[1], self[2])


_new_tuple = tuple.__new__


def _tokens(texts: Iterable[str], starts: Iterable[int], ends: Iterable[int]) -> list[Token]:
    """Tokens from parallel texts and offsets, without a Python call per token."""
    return list(map(_new_tuple, repeat(Token), zip(texts, starts, ends)))


# --- stemming ------------------------------------------------------------------------------

_stemmer: Any = None
# word -> stem, or None when rouge-score's final filter would drop the stem.
_stem_cache: dict[str, str | None] = {}
_STEM_CACHE_LIMIT = 1 << 20


# Importing NLTK's stemmer runs NLTK's package, which imports all of NLTK: with it
# scipy.stats (0.9 s here) and scikit-learn when they are installed, each in a
# `try: ... except ImportError` of its own. The stemmer uses neither, so they are hidden
# while NLTK loads (unless something loaded them already); they import as usual after.
_NOT_FOR_THE_STEMMER = ("scipy", "sklearn")


def _import_porter(hide: Sequence[str]) -> Any:
    hidden = [name for name in hide if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        from nltk.stem import porter
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return porter


def _porter() -> Any:
    """NLTK's Porter stemmer in its default mode, as rouge-score builds it; imported lazily."""
    global _stemmer
    if _stemmer is None:
        try:
            porter = _import_porter(_NOT_FOR_THE_STEMMER)
        except ImportError:
            try:  # an NLTK that needs them after all
                porter = _import_porter(())
            except ImportError as exc:
                raise StemmerUnavailable() from exc
        _stemmer = porter.PorterStemmer()
    return _stemmer


def _stem(word: str) -> str | None:
    """rouge-score's per-token stemming step plus its validity filter, cached per word."""
    try:
        return _stem_cache[word]
    except KeyError:
        pass
    stem = _porter().stem(word)
    result = stem if _VALID_TOKEN.match(stem) else None
    if len(_stem_cache) >= _STEM_CACHE_LIMIT:
        _stem_cache.clear()
    _stem_cache[word] = result
    return result


# word -> token as rouge-score's stemming step leaves it: short words as they are, longer
# ones stemmed, "" when its validity filter drops the stem. Lets a whole text go through
# one C-level `map` when every word has been seen before.
_token_cache: dict[str, str] = {}
_STEM_LOCK = threading.Lock()


def stemmed_forms(words: list[str]) -> list[str]:
    """Each word as rouge-score's stemming step leaves it: as it is up to 3 characters,
    else stemmed, and "" where its validity filter would drop the stem."""
    cache = _token_cache
    tokens = list(map(cache.get, words))
    if None in tokens:
        with _STEM_LOCK:  # the app's workers may stem at once; one clears the cache
            if len(cache) >= _STEM_CACHE_LIMIT:
                cache.clear()
            for word in words:
                if word not in cache:
                    cache[word] = word if len(word) <= 3 else (_stem(word) or "")
            tokens = list(map(cache.__getitem__, words))
    return tokens  # type: ignore[return-value]


def _stem_tokens(words: list[str]) -> list[str]:
    """Stem words longer than 3 characters and drop invalid results, as rouge-score does."""
    tokens = stemmed_forms(words)
    if "" in tokens:
        return list(filter(None, tokens))
    return tokens


# --- fast tokenizers -----------------------------------------------------------------------


def _whitespace(text: str) -> list[str]:
    return text.lower().split()


def _alnum_words(lowered: str) -> list[str]:
    """rouge-score's tokens of an already lowered text (its runs of [a-z0-9])."""
    return lowered.encode("ascii", "replace").translate(_ALNUM_BYTES).decode("ascii").split()


def _rouge_score(text: str) -> list[str]:
    return _alnum_words(text.lower())


def _rouge_score_stemmed(text: str) -> list[str]:
    return _stem_tokens(_rouge_score(text))


def _check(name: str, stem: bool) -> None:
    if name not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {name!r}: expected one of {', '.join(TOKENIZERS)}")
    if stem and name != "rouge-score":
        raise ValueError(f"stemming applies to the rouge-score tokenizer only, not {name!r}")
    if stem:
        _porter()


def make_tokenizer(name: str = "whitespace", stem: bool = False) -> Tokenizer:
    """The fast `str -> list[str]` tokenizer for `name`, validated up front.

    Raises ValueError for an unknown name or stemming with `whitespace`, and
    StemmerUnavailable when stemming is asked for without NLTK.
    """
    _check(name, stem)
    if name == "whitespace":
        return _whitespace
    return _rouge_score_stemmed if stem else _rouge_score


def make_batch_tokenizer(
    name: str = "whitespace", stem: bool = False
) -> Callable[[Iterable[str]], Iterator[list[str]]]:
    """`make_tokenizer`'s tokenizer over many texts at once: the tokens of each, in order.

    Without stemming it chains C-level maps of the very steps the one-text tokenizers take
    (no Python call per text); tests/test_tokenize.py checks that both give the same.
    """
    one = make_tokenizer(name, stem)
    if one is _whitespace:
        return lambda texts: map(str.split, map(str.lower, texts))
    if one is _rouge_score:
        encode = methodcaller("encode", "ascii", "replace")
        translate = methodcaller("translate", _ALNUM_BYTES)
        return lambda texts: map(
            str.split, map(bytes.decode, map(translate, map(encode, map(str.lower, texts))))
        )
    return lambda texts: map(one, texts)


def tokenize(text: str, tokenizer: str = "whitespace", stem: bool = False) -> list[str]:
    """Tokens of `text` as the named tokenizer produces them (see `make_tokenizer`)."""
    return make_tokenizer(tokenizer, stem)(text)


# --- tokens with offsets -------------------------------------------------------------------


def _lowered_to_original(text: str, lowered: str) -> list[int] | None:
    """Map each index of `text.lower()` to the index of the original character.

    None when lowering kept the length, so indices are the same. Only a few characters
    lower to more than one (e.g. 'İ' -> 'i' + combining dot); lowering is per character
    in length, so summing per-character lengths gives the map.
    """
    if len(lowered) == len(text):
        return None
    back: list[int] = []
    for index, char in enumerate(text):
        width = len(char.lower())
        back.extend([index] * width)
    return back


_match_start = re.Match.start


def tokenize_with_offsets(
    text: str, tokenizer: str = "whitespace", stem: bool = False
) -> list[Token]:
    """Tokens of `text` with their character offsets in `text`.

    Token texts equal `tokenize(text, tokenizer, stem)`; offsets cover the characters the
    token came from (so `02:14 UTC,` gives `utc` at the offsets of `UTC`).
    """
    _check(tokenizer, stem)
    lowered = text.lower()
    pattern = _NON_SPACE_RUN if tokenizer == "whitespace" else _ALNUM_RUN
    # Texts and offsets by C-level steps (no Python step per token, and no match object
    # kept: each is a container the cyclic collector would count). The words are the
    # fast tokenizer's steps on the lowered text, which find the same runs as `pattern`.
    words = lowered.split() if tokenizer == "whitespace" else _alnum_words(lowered)
    starts = list(map(_match_start, pattern.finditer(lowered)))
    ends = list(map(add, starts, map(len, words)))
    back = _lowered_to_original(text, lowered)
    if back is not None:
        starts = list(map(back.__getitem__, starts))
        ends = [back[end - 1] + 1 for end in ends]
    if stem:
        kept = [t for t in zip(stemmed_forms(words), starts, ends) if t[0]]
        return list(map(_new_tuple, repeat(Token), kept))
    return _tokens(words, starts, ends)


# --- sentences (rougeLsum) -----------------------------------------------------------------


def sentences(text: str) -> list[str]:
    """rougeLsum's sentences: the text split on "\\n", empty pieces dropped."""
    return [line for line in text.split("\n") if line]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets in `text` of each item of `sentences(text)`, in order."""
    spans: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        if line:
            spans.append((start, end))
        start = end + 1
    return spans


def sentence_tokens(
    text: str, tokenizer: str = "whitespace", stem: bool = False
) -> list[list[Token]]:
    """Tokens with offsets (into the whole `text`) for each of `sentences(text)`.

    A sentence may have no tokens (a line of punctuation, say); it is kept, as rouge-score
    keeps it. Concatenated, the lists equal `tokenize_with_offsets(text, ...)`, because
    neither tokenizer lets a token span a newline.
    """
    return tokens_by_sentence(text, tokenize_with_offsets(text, tokenizer, stem))


def tokens_by_sentence(text: str, tokens: Iterable[Token]) -> list[list[Token]]:
    """`tokens` (`tokenize_with_offsets(text, ...)`) grouped as `sentence_tokens` groups them,
    for a caller that has tokenised `text` already."""
    spans = sentence_spans(text)
    result: list[list[Token]] = [[] for _ in spans]
    if not spans:
        return result
    starts = [start for start, _ in spans]
    for token in tokens:
        result[bisect.bisect_right(starts, token.start) - 1].append(token)
    return result
