"""Make untrusted text safe to show: what a terminal could act on, or could hide, becomes a
visible escape such as ``\\x1b`` or ``\\u200b``.

Outputs, references, sources, ids, build names and paths come from files nobody here vetted.
Before any of them reaches a terminal, a message, a report or a page, every character that
could move the cursor, recolour the screen, reorder the line or make two different strings
look alike is replaced by a printable escape:

- the C0 and C1 control ranges and DEL (ESC starts every terminal control sequence);
- every format character (Unicode category Cf: bidi overrides and isolates, zero-width
  spaces and joiners, the soft hyphen, word joiners, tag characters, interlinear
  annotation marks), line and paragraph separators, and the characters that draw nothing
  though they are not format characters (Hangul fillers, the combining grapheme joiner,
  variation selectors);
- in one-line fields (ids, names, table cells), combining marks beyond two on one
  character, so a flood of them cannot stack up and push a table's columns out of line.

Newlines (and, where asked, tabs) are kept in running text because the views lay text out by
lines. `one_line` is the single escaping every message and every one-line field goes
through.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["editable", "is_safe", "one_line", "shorten_names", "visible"]

# Invisible though not in category Cf: Hangul fillers, the combining grapheme joiner,
# variation selectors (incl. the supplementary ones), Mongolian free variation selectors,
# the object replacement character's cousins that draw as nothing.
_BLANKS = "\u115f\u1160\u3164\uffa0\u034f\u180b-\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"


# Unicode category Cf (format characters) as of Unicode 14 (Python 3.11's unicodedata);
# tests/test_safetext.py checks every Cf character the running Python knows is covered.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
# Lone surrogates cannot be written to a terminal at all.
_HIDDEN = "\x7f-\x9f\u2028\u2029\ud800-\udfff" + _FORMAT + _BLANKS
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f" + _HIDDEN + "]")
_UNSAFE_LINE = re.compile("[\x00-\x1f" + _HIDDEN + "]")
# A third combining mark (or more) on one character, in one-line fields.
_PILED = re.compile(r"(?<=[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{2})[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


@lru_cache(maxsize=512)
def _escape_char(char: str) -> str:
    code = ord(char)
    if char == "\t":
        return "\\t"
    if char == "\n":
        return "\\n"
    if char == "\r":
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escape(match: re.Match[str]) -> str:
    return _escape_char(match.group())


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every character a terminal could act on, or that draws nothing, shown
    as a visible escape. With ``keep_newlines`` newlines and tabs pass through."""
    pattern = _UNSAFE if keep_newlines else _UNSAFE_LINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


# What a terminal acts on or that reorders a line: C0 but tab and line ends, DEL, C1, the bidi
# embeddings, overrides and isolates, lone surrogates. Not the joiners, variation selectors
# and marks that people type (the ZWJ of an emoji, the ZWNJ of Persian, the VS16 of ⚠️).
_ACTS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def typed_as_is(character: str) -> bool:
    """Whether a character typed in an editor goes in as it is though Python's ``isprintable``
    says no (an emoji's ZWJ, Persian's ZWNJ, a soft hyphen, a no-break or ideographic space,
    a private-use glyph): nothing a terminal acts on, and no line break of its own (U+2028)."""
    return (len(character) == 1 and not _ACTS.match(character)
            and unicodedata.category(character) not in ("Cc", "Zl", "Zp", "Cs"))


def editable(text: str) -> str:
    """``text`` for an editor a person types in (a note): only what a terminal would act on
    escaped, so what they typed comes back as they typed it."""
    return _ACTS.sub(_escape, text) if _ACTS.search(text) else text


def one_line(text: str, limit: int | None = None) -> str:
    """A single-line, visible rendering of ``text`` for ids, names, paths, table cells and
    messages; at most ``limit`` characters (cut with an ellipsis)."""
    shown = visible(text, keep_newlines=False)
    if _PILED.search(shown):
        shown = _PILED.sub(_escape, shown)
    if limit is not None and len(shown) > limit:
        return shown[: max(limit - 1, 0)] + "…"
    return shown


def is_safe(text: str) -> bool:
    """True when ``text`` holds nothing `visible` would escape (newlines and tabs allowed)."""
    return _UNSAFE.search(text) is None


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def shorten_names(names: Sequence[str], width: int) -> list[str]:
    """Each name in at most ``width`` characters, cut from the middle; where that would hide
    where it differs from the name closest to it (two nights' 2026-11-26_aa3f5f and
    2026-11-27_9f03aa read 2026-11…_aa3f5f and 2026-11…_9f03aa), or make two look alike,
    cut around that place."""
    shown = [one_line(name) for name in names]
    head = (width - 1) // 2

    def middle(name: str) -> str:
        if len(name) <= width:
            return name
        return name[:head] + "…" + name[len(name) - (width - 1 - head):]

    def around(name: str, at: int) -> str:
        start = max(0, min(at - (width - 2) // 2, len(name) - width))
        piece = name[start : start + width]
        if start:
            piece = "…" + piece[2:]
        if start + width < len(name):
            piece = piece[:-1] + "…"
        return piece

    out = [middle(name) for name in shown]
    for i, name in enumerate(shown):
        others = [other for other in shown if other != name]
        if not others or len(name) <= width:
            continue
        at = max(_first_difference(name, other) for other in others)  # the closest name's
        # The middle cut keeps it when it falls in the head, or in the tail with three
        # characters before it to read it by.
        if head <= at < len(name) - (width - 1 - head) + 3:
            out[i] = around(name, at)
    for i, name in enumerate(shown):  # two cut alike all the same: each around where it differs
        alike = [other for j, other in enumerate(shown) if j != i and out[j] == out[i] and other != name]
        if alike and len(name) > width:
            out[i] = around(name, min(_first_difference(name, other) for other in alike))
    return out
