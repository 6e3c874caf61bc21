"""Tests for rouge_tui.errors: the one-line error and the helpers that put untrusted
names in messages."""

from __future__ import annotations

from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, quoted_list, type_name


def test_a_suite_error_is_one_escaped_line() -> None:
    error = SuiteError("bad \x1b[2J thing\nsecond line", "/tmp/a\nb.jsonl", 3)
    assert str(error) == "/tmp/a\\nb.jsonl:3: bad \\x1b[2J thing\\nsecond line"
    assert (error.message, error.path, error.line) == (
        "bad \x1b[2J thing\nsecond line",
        Path("/tmp/a\nb.jsonl"),
        3,
    )
    assert str(SuiteError("no path")) == "no path"
    assert str(SuiteError("m", "p")) == "p: m"
    assert str(SuiteError("bidi \u202e and zero width \u200b", "x")) == (
        "x: bidi \\u202e and zero width \\u200b"
    )


def test_a_path_that_is_not_utf8_is_shown_escaped() -> None:
    path = Path(b"/tmp/caf\xe9.jsonl".decode("utf-8", "surrogateescape"))
    assert str(SuiteError("m", path, 1)) == "/tmp/caf\\udce9.jsonl:1: m"


def test_quoted_escapes_and_cuts() -> None:
    assert quoted("a\x1b[31m") == "'a\\x1b[31m'"
    assert quoted("x" * 50) == "'" + "x" * 39 + "…'"
    assert quoted("abcdef", 4) == "'abc…'"


def test_quoted_list_shows_a_few() -> None:
    assert quoted_list([]) == "(none)"
    assert quoted_list(["a", "b"]) == "'a', 'b'"
    assert quoted_list([str(i) for i in range(7)], 3) == "'0', '1', '2' and 4 more"


def test_type_names_are_json_names() -> None:
    names = [type_name(v) for v in (None, True, 1, 1.5, "s", [], {})]
    assert names == ["null", "boolean", "number", "number", "string", "array", "object"]
    assert type_name({}, "table") == "table"
