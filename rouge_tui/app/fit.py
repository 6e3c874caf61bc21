"""Fitting parts to a width, the one way every line of the app does it: the status line,
the diff's title, the overview's lines, the signal labels and the key bar.

Widths are terminal cells (Rich's ``cell_len``: a CJK character takes two), never
characters. The parts are data: plain strings or Rich ``Text``, never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import OverflowMethod

__all__ = ["first_fit", "flow", "whole"]

T = TypeVar("T")


def first_fit(candidates: Iterable[T], width: int, shown: Callable[[T], str] = str) -> T:
    """The first of ``candidates`` (longest first) whose ``shown`` line is at most ``width``
    cells wide; the last one when none is (the shortest there is)."""
    last: T | None = None
    for last in candidates:
        if cell_len(shown(last)) <= width:
            return last
    if last is None:
        raise ValueError("no candidates to fit")
    return last


def whole(items: Sequence[str], width: int, sep: str = " ", more: str = "…") -> str:
    """``items`` joined by ``sep``; in at most ``width`` cells, the whole items that fit and
    then ``more``, which says some were left out (never an item cut in the middle)."""
    cut = (sep.join(items[:keep]) + more for keep in range(len(items) - 1, 0, -1))
    return first_fit([sep.join(items), *cut, more.strip(), ""], width)


def flow(parts: Sequence[Text], width: int, sep: str = "  ", overflow: OverflowMethod = "ellipsis") -> list[Text]:
    """``parts`` on as few lines of ``width`` cells as they fill whole, in order, ``sep``
    between two on one line; a part wider than a line alone on its own (cut there with
    ``overflow``: "…" says so)."""
    lines: list[Text] = []
    for part in parts:
        if lines and lines[-1].cell_len + cell_len(sep) + part.cell_len <= width:
            lines[-1].append(sep)
            lines[-1].append_text(part)
        else:
            line = Text(no_wrap=True, overflow=overflow)
            line.append_text(part)
            lines.append(line)
    return lines
