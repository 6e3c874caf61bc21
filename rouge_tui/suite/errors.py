"""The one error the suite loader raises, and safe rendering of untrusted names in it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SuiteError", "show_id", "show_names", "type_name"]


def _printable(text: str) -> str:
    """Escape every non-printable character (controls, bidi overrides, newlines) like repr does."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def type_name(value: object, mapping: str = "object") -> str:
    """The JSON (or TOML) name of a parsed value's type, for messages; a mapping is called
    ``mapping`` ("object" in JSON, "table" in TOML)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return mapping
    return type(value).__name__


def show_id(value: object) -> str:
    """An id (or any untrusted name) quoted for a message: repr-escaped, so no control
    character, escape sequence or newline from the data can reach the terminal."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def show_names(names: list[str], limit: int = 20) -> str:
    """A short, safe, comma-separated list of names for a message."""
    shown = ", ".join(show_id(n) for n in names[:limit])
    if len(names) > limit:
        shown += f" and {len(names) - limit} more"
    return shown or "(none)"


class SuiteError(Exception):
    """A one-line, user-facing error about a suite's files.

    ``str(e)`` reads ``PATH:LINE: message`` (or ``PATH: message`` when no line applies), with
    the path as the user gave it joined with the file's place in the suite, e.g.
    ``my-suite/builds/x.jsonl:12: invalid JSON: Expecting value (column 1)``.
    """

    def __init__(
        self, message: str, path: Path | str | None = None, line: int | None = None
    ) -> None:
        self.message = message
        self.path: Path | None = Path(path) if path is not None else None
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        if self.path is None:
            where = ""
        elif self.line is None:
            where = f"{self.path}: "
        else:
            where = f"{self.path}:{self.line}: "
        return _printable(where + self.message)

    def __str__(self) -> str:
        return self._render()
