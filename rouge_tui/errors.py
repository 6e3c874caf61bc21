"""The one error rouge-tui's readers raise (suites, imported logs, its own state files), and
the helpers that put untrusted names in it. Neither the suite reader nor the store owns it:
both raise it, and the CLI prints it the same way whoever raised it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rouge_tui.safetext import one_line

__all__ = ["SuiteError", "quoted", "quoted_list", "type_name"]


def quoted(text: str, limit: int = 40) -> str:
    """An id, a name or a piece of a file, escaped, cut to ``limit`` characters and quoted."""
    return f"'{one_line(text, limit)}'"


def quoted_list(names: Sequence[str], shown: int = 10, limit: int = 40) -> str:
    """At most ``shown`` names, each `quoted`, then how many more there are."""
    text = ", ".join(quoted(name, limit) for name in names[:shown])
    if len(names) > shown:
        text += f" and {len(names) - shown} more"
    return text or "(none)"


_JSON_TYPES = {type(None): "null", bool: "boolean", int: "number", float: "number",
               str: "string", list: "array", dict: "object"}  # fmt: skip


def type_name(value: object, mapping: str = "object") -> str:
    """A parsed value's JSON type name for messages (``mapping`` is "table" for TOML)."""
    name = _JSON_TYPES.get(type(value), type(value).__name__)
    return mapping if name == "object" else name


class SuiteError(Exception):
    """One line for a person: ``PATH:LINE: message`` or ``PATH: message``; ``LINE`` may be
    a member's name (``log.eval:samples/3_epoch_1.json: ...``) for a file inside an archive.

    ``str(e)`` always goes through `one_line`, so no path, id or excerpt from a file can put
    a control character, an escape sequence or a line break in front of the reader.
    """

    def __init__(
        self, message: str, path: Path | str | None = None, line: int | str | None = None
    ) -> None:
        self.message = message
        self.path: Path | None = Path(path) if path is not None else None
        self.line = line
        super().__init__(message)

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:" if self.line is None else f"{self.path}:{self.line}:"
        return one_line(f"{where} {self.message}" if where else self.message)
