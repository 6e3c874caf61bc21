"""Make untrusted text safe to show: control characters become visible escapes.

Outputs, references, ids and build names come from files nobody here vetted. Before any of
them reaches a terminal (through Rich or Textual) every character that a terminal could act
on is replaced by a printable escape such as ``\\x1b`` or ``\\u202e``: the C0 and C1 control
ranges, DEL, bidirectional overrides and isolates, and other invisible format characters.
Newlines (and, where asked, tabs) are kept because the views lay text out by lines.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Bidi embeddings, overrides and isolates, marks, and the BOM / zero-width no-break space.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
# C0 except \n and \t, DEL, C1, bidi/format characters, line/paragraph separators.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + "\u2028\u2029]"
)
_UNSAFE_WITH_NEWLINES = re.compile(
    "[\x00-\x1f\x7f-\x9f" + _BIDI + "\u2028\u2029]"
)


def _escape(match: re.Match[str]) -> str:
    return _escape_char(match.group())


@lru_cache(maxsize=256)
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
    return f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """Return ``text`` with every terminal-active character shown as a visible escape.

    With ``keep_newlines`` newlines and tabs pass through (tabs are expanded by the caller's
    renderer); without it they are escaped too, for one-line fields such as ids.
    """
    pattern = _UNSAFE if keep_newlines else _UNSAFE_WITH_NEWLINES
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def one_line(text: str, limit: int | None = None) -> str:
    """A single-line, visible rendering of ``text`` (for ids, build names, table cells)."""
    shown = visible(text, keep_newlines=False)
    if limit is not None and len(shown) > limit:
        return shown[: max(limit - 1, 0)] + "…"
    return shown


def is_safe(text: str) -> bool:
    """True when ``text`` has no character a terminal could interpret (newlines allowed)."""
    return _UNSAFE.search(text) is None
