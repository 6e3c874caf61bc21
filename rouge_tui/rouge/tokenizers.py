"""The tokenizer registry: the only list of tokenizers rouge-tui knows.

Each entry says what it is called (in flags and ``suite.toml``), how the signature names it,
whether it stems, how to cut a text into tokens that keep their offsets into the text as
written (for highlights), and how to hand texts to rouge-score-rs for bulk scoring. The CLI,
``suite.toml`` validation, the app's ``t`` cycle, the help screen and the report read
``TOKENIZERS``; a new tokenizer is one more entry here plus its tests.

The token texts of ``tokens`` must equal what rouge-score-rs counts for the same text
(``tests/test_tokenizers.py`` checks it), so that the highlighted words are the counted ones.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

from rouge_score_rs import tokenizers as rs_tokenizers

__all__ = ["DEFAULT", "TOKENIZERS", "Token", "Tokenizer", "get"]

DEFAULT = "whitespace"  # the chapter's; with no flag, suite.toml or config.toml naming one


class Token(NamedTuple):
    """A token as counted (``text``: normalised, maybe stemmed) and where it is written:
    ``original[start:end]``."""

    text: str
    start: int
    end: int


class Tokenizer:
    """One registry entry: ``name`` in flags and suite.toml, ``label`` in the signature."""

    name: str
    label: str
    stems: bool = False
    summary: str = ""
    # The zero-token guard may name it as the one to try for text outside another's alphabet.
    for_other_scripts: bool = True
    # The most tokens one written character makes (NFKC writes U+FDFA as 18 characters, 15 of
    # them letters):
    # bounds a line's tokens by its length, for the engine's rougeLsum guard.
    most_per_character: int = 1

    def native(self, stem: bool = False) -> rs_tokenizers.Tokenizer:
        """The rouge-score-rs tokenizer that counts this one's tokens in `spell`'s texts."""
        return rs_tokenizers.DefaultTokenizer(use_stemmer=stem)

    def tokens(self, text: str, stem: bool = False) -> list[Token]:
        raise NotImplementedError

    def spell(self, texts: Sequence[str]) -> list[str]:
        """The texts as rouge-score-rs's ``profile`` must see them to count this tokenizer's
        tokens; the texts themselves for a profile of its own."""
        return list(texts)

    def dropped_share(self, text: str) -> float:
        """The share of ``text``'s letters and digits that end up in no token (the
        zero-token guard, SPEC "Scoring"); every tokenizer but rouge-score's keeps them all."""
        return 0.0


# --------------------------------------------------------------------------- whitespace


# Every byte of a word's UTF-8 becomes two characters of [a-z0-9] (36 x 36 > 256: one
# spelling per byte value, so equal words are spelled alike and different words differently);
# an ASCII capital is spelled as its small letter (the lowering of ASCII text); whitespace
# becomes spaces, and a newline two newlines (rougeLsum's sentences stay the same, with empty
# ones between that rouge-score drops).
_DIGITS = b"0123456789abcdefghijklmnopqrstuvwxyz"
_ASCII_SPACE = b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def _spelling(b: int) -> bytes:
    """The two characters byte ``b`` is spelled as."""
    if b == 10:
        return b"\n\n"
    if b in _ASCII_SPACE:
        return b"  "
    high, low = divmod(b | 32 if 65 <= b <= 90 else b, 36)
    return bytes((_DIGITS[high], _DIGITS[low]))


# Each byte value's two characters, laid out so that indexing the table by a text's bytes
# writes its spelling in one pass.
_SPELLING = b"".join(map(_spelling, range(256)))
# Whitespace outside ASCII (no-break spaces, U+2028...) becomes a space before spelling; a
# regular expression, as str.translate with a table is slower. The characters str.isspace()
# knows past ASCII, written out: finding them would cost every start.
_WIDE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


class Whitespace(Tokenizer):
    """The chapter's definition: ``text.lower().split()``."""

    name = "whitespace"
    label = "whitespace"
    summary = "the chapter's text.lower().split(): punctuation stays on its word"
    for_other_scripts = False  # keeps every letter, but a text without spaces is one word

    _WORD = re.compile(r"\S+")  # \s and str.split() share one idea of whitespace

    def tokens(self, text: str, stem: bool = False) -> list[Token]:
        # Each word lowered by itself equals its piece of text.lower(): lowering looks
        # across no whitespace (the final-sigma rule stops there).
        return [Token(m.group().lower(), m.start(), m.end()) for m in self._WORD.finditer(text)]

    # Bulk scoring: rouge-score-rs counts words of [a-z0-9], so each word is spelled in those
    # letters (`_SPELLING`). Must equal scoring the tokens of `tokens`
    # (tests/test_engine.py); faster than handing rouge-score-rs token lists one pair at a
    # time (benchmarks/README.md, "Figures behind the code").
    def spell(self, texts: Sequence[str]) -> list[str]:
        import numpy as np

        joined = "".join(texts)
        if joined.isascii():
            data, parts = joined.encode("ascii"), texts
        else:
            parts = [_WIDE_SPACE.sub(" ", t.lower()).encode("utf-8", "surrogatepass") for t in texts]
            data = b"".join(parts)
        ends = [2 * end for end in accumulate(map(len, parts))]
        pairs = np.frombuffer(_SPELLING, dtype=np.uint16)  # byte value -> its two characters
        spelled = np.take(pairs, np.frombuffer(data, dtype=np.uint8)).tobytes().decode("ascii")
        return list(map(spelled.__getitem__, map(slice, [0, *ends], ends)))


# --------------------------------------------------------------------------- rouge-score


class RougeScore(Tokenizer):
    """rouge-score 0.1.2's tokenizer: lowercase, words of [a-z0-9], optional Porter stemming
    of tokens over three characters; rouge-score-rs reproduces it, stemmer included."""

    name = "rouge-score"
    label = "rouge-score"
    stems = True
    summary = "rouge-score's: lowercased words of a-z and 0-9 (drops other scripts); --stem"

    _TOKEN = re.compile(r"[a-z0-9]+")

    def _tokens(self, text: str) -> list[Token]:
        lowered = text.lower()
        if len(lowered) == len(text):  # no character lowered into two: offsets carry over
            return [Token(m.group(), m.start(), m.end()) for m in self._TOKEN.finditer(lowered)]
        # Only U+0130 lowers into two characters ("i" and a combining dot, which ends the
        # token); lowering one character at a time gives the same tokens, with their owners.
        pieces = [c.lower() for c in text]
        owner = [i for i, piece in enumerate(pieces) for _ in piece]
        lowered = "".join(pieces)
        return [
            Token(m.group(), owner[m.start()], owner[m.end() - 1] + 1)
            for m in self._TOKEN.finditer(lowered)
        ]

    def tokens(self, text: str, stem: bool = False) -> list[Token]:
        found = self._tokens(text)
        if not stem:
            return found
        stemmer = self.native(stem=True)
        stems = stemmer.tokenize(text)
        if len(stems) == len(found):
            return [Token(s, t.start, t.end) for s, t in zip(stems, found)]
        kept = []  # a stem rouge-score's final check drops: its word is no token
        for token in found:
            stem_of = stemmer.tokenize(token.text)
            if stem_of:
                kept.append(Token(stem_of[0], token.start, token.end))
        return kept

    _NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())
    _ASCII_TEXT = re.compile(r"[\x00-\x7f]+")
    _ALNUM = re.compile(r"[^\W_]")

    def dropped_share(self, text: str) -> float:
        # Only letters and digits outside ASCII are dropped (but for U+0130 and the Kelvin
        # sign, which lower into ASCII ones): count those apart from the rest.
        ascii_alnum = len(text.encode("ascii", "ignore").translate(None, self._NOT_ALNUM))
        wide = self._ASCII_TEXT.sub("", text)
        wide_alnum = len(self._ALNUM.findall(wide))
        if not wide_alnum:
            return 0.0
        dropped = wide_alnum - wide.count("\u0130") - wide.count("\u212a")
        return dropped / (ascii_alnum + wide_alnum)


# --------------------------------------------------------------------------- Unicode


class _Profile(Tokenizer):
    """A rouge-score-rs profile of its own (NFKC, full case folding, NFKC): tokens are its
    tokens; offsets are found by matching them, in order, against the text normalised one
    written character at a time (a character with the combining marks after it, as
    decomposed text writes "é"). Where that still differs from the whole text's
    normalisation, a token it cannot place gets an empty offset where it must be, never
    another word's (a search never skips a letter or digit), and the search goes on past it."""

    def native(self, stem: bool = False) -> rs_tokenizers.Tokenizer:
        return self.profile()

    def tokens(self, text: str, stem: bool = False) -> list[Token]:
        counted = self.profile().tokenize(text)
        if text.isascii():  # ASCII: NFKC is the identity, casefold lower, each character its own
            normal = text.lower()
            starts, ends = range(len(text)), range(1, len(text) + 1)
        else:
            pieces, starts, ends = [], [], []
            at = 0
            for end in [*_character_ends(text), len(text)]:
                piece = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text[at:end]).casefold())
                pieces.append(piece)
                starts.extend([at] * len(piece))
                ends.extend([end] * len(piece))
                at = end
            normal = "".join(pieces)
        out, cursor = [], 0
        for token in counted:
            found = normal.find(token, cursor)
            if found < 0 or any(c.isalnum() for c in normal[cursor:found]):
                start = starts[cursor] if cursor < len(starts) else len(text)
                out.append(Token(token, start, start))
                # Past where it must be, so that the tokens after it are placed again.
                at = next((k for k in range(cursor, len(normal)) if normal[k].isalnum()), len(normal))
                cursor = min(at + len(token), len(normal))
                continue
            cursor = found + len(token)
            out.append(Token(token, starts[found], ends[cursor - 1]))
        return out


def _character_ends(text: str) -> list[int]:
    """Where each written character of ``text`` ends but the last: a character is one that
    starts (no combining mark) with the marks after it, and anything NFKC composes into it
    (Hangul jamo into a syllable, a half-width voicing mark into its kana, the two halves of
    some Indic vowels)."""
    ends, start = [], 0
    nfkc = functools.partial(unicodedata.normalize, "NFKC")
    for i in range(1, len(text)):
        c = text[i]
        if unicodedata.combining(c):
            continue
        if c > "\u02ff" and len(nfkc(text[start : i + 1])) < len(nfkc(text[start:i])) + len(nfkc(c)):
            continue  # composes with the character before
        ends.append(i)
        start = i
    return ends


class Unicode(_Profile):
    profile = rs_tokenizers.UnicodeTokenizer
    name = "unicode"
    label = "unicode-v1"
    summary = "rouge-score-rs's unicode-v1: Unicode words with a letter or number, any script"
    most_per_character = 4  # U+337F, "㍿" (tests/test_engine.py reads every code point)


class Character(_Profile):
    profile = rs_tokenizers.CharacterTokenizer
    name = "character"
    label = "character-v1"
    summary = "rouge-score-rs's character-v1: one token per letter or digit (Chinese, Japanese)"
    most_per_character = 15  # U+FDFA


TOKENIZERS: dict[str, Tokenizer] = {
    entry.name: entry for entry in (Whitespace(), RougeScore(), Unicode(), Character())
}


STEMMERS = ", ".join(name for name, entry in TOKENIZERS.items() if entry.stems)  # for messages


def cannot_stem(tokenizer: str, asked: str = "--stem") -> str | None:
    """Why stemming, ``asked`` for (a flag, a suite.toml line), does not apply with
    ``tokenizer``; None where it does. The one statement of the rule."""
    if TOKENIZERS[tokenizer].stems:
        return None
    return f"{asked} needs a tokenizer that stems ({STEMMERS}), not '{tokenizer}'"


def get(name: str) -> Tokenizer:
    """The entry called ``name``; a ValueError listing the names there are."""
    try:
        return TOKENIZERS[name]
    except KeyError:
        raise ValueError(
            f"unknown tokenizer {name!r}; expected one of {', '.join(TOKENIZERS)}"
        ) from None
