"""Untrusted text never reaches the terminal as control sequences."""

from __future__ import annotations

from hypothesis import given, strategies as st

from rouge_tui.safetext import is_safe, one_line, visible


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


@given(st.text())
def test_result_is_always_safe(text):
    shown = visible(text)
    assert is_safe(shown)
    assert not any(0 <= ord(c) < 32 and c not in "\n\t" for c in shown)
    assert not any(0x7F <= ord(c) <= 0x9F for c in shown)
    assert "\x0a" not in one_line(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp"))))
def test_plain_text_unchanged(text):
    assert visible(text) == text
