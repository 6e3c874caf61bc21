"""Untrusted text never reaches the terminal as control sequences, and nothing invisible
makes two different strings look alike."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rouge_tui.safetext import editable, is_safe, one_line, visible


def test_escape_sequences_become_visible():
    assert visible("a\x1b]2;pwned\x07b") == "a\\x1b]2;pwned\\x07b"
    assert visible("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert visible("left\u202eright") == "left\\u202eright"
    assert visible("c1\x9bcsi") == "c1\\x9bcsi"
    assert visible("del\x7f") == "del\\x7f"


def test_newlines_kept_or_escaped():
    assert visible("a\nb\tc") == "a\nb\tc"
    assert one_line("a\nb\tc\r") == "a\\nb\\tc\\r"


def test_markup_is_left_alone_as_text():
    # markup safety is the renderer's job (Text objects); visible() must not eat brackets
    assert visible("x [/] y [bold red]z") == "x [/] y [bold red]z"


def test_one_line_limit():
    assert one_line("abcdef", 4) == "abc…"


@pytest.mark.parametrize("char", ["\u200b", "\u2060", "\U000e0041", "\u00ad", "\ufff9", "\u3164", "\u034f", "\u200d", "\ufe0f", "\ud800"])
def test_invisible_characters_are_shown(char: str) -> None:
    """Issue 12: two ids that differ only by an invisible character must not look alike."""
    assert one_line(f"inc{char}0042") != "inc0042"
    assert char not in one_line(f"inc{char}0042") and char not in visible(f"a{char}b")


def test_every_format_character_this_python_knows_is_escaped() -> None:
    missed = [hex(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf" and chr(c) in visible(chr(c))]
    assert missed == []


def test_a_flood_of_combining_marks_is_cut_to_two_in_one_line_fields() -> None:
    flood = "e" + "\u0301" * 50
    shown = one_line(flood)
    assert shown.startswith("e\u0301\u0301\\u0301") and "\u0301\u0301\u0301" not in shown
    assert visible("é\u0301") == "é\u0301"  # running text keeps what it has


@given(st.text())
def test_result_is_always_safe(text):
    shown = visible(text)
    assert is_safe(shown)
    assert not any(0 <= ord(c) < 32 and c not in "\n\t" for c in shown)
    assert not any(0x7F <= ord(c) <= 0x9F for c in shown)
    assert not any(unicodedata.category(c) in ("Cf", "Cs") for c in shown)
    assert "\x0a" not in one_line(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp", "Mn", "Me", "Lo"))))
def test_plain_text_unchanged(text):
    assert visible(text) == text


def test_editable_escapes_what_a_terminal_acts_on_and_nothing_people_type() -> None:
    """For the note editor: every control character but tab and line ends (Cc), the bidi
    embeddings, overrides and isolates, and lone surrogates become escapes; joiners,
    variation selectors, marks and every other character stay as typed."""
    bidi = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    for code in range(0x110000):
        char = chr(code)
        acts = (unicodedata.category(char) == "Cc" and char not in "\t\n\r") or char in bidi or 0xD800 <= code < 0xE000
        assert (editable(char) != char) is acts, hex(code)
        if acts:
            assert editable(char).startswith("\\") and editable(char).isascii()
