"""The movers table: every paired example ranked by |delta|, drawn with Textual's Line API.

Only the visible lines are rendered (``render_line``), straight from the figures' arrays, so
100,000 rows cost no more than twenty (Textual's DataTable measures every cell first). The
first line is a fixed header; in the ranked, unfiltered view a rule sets the ten most-moved
outputs apart, and their ranks are bold in every view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rouge_tui.analysis import signals
from rouge_tui.analysis.compare import TEN
from rouge_tui.analysis.figures import Figures
from rouge_tui.app.fit import whole
from rouge_tui.numbers import signed
from rouge_tui.review import Shown
from rouge_tui.safetext import one_line
from rouge_tui.store.marks import MARKS

__all__ = ["MarkCell", "MoversTable"]


@dataclass(frozen=True)
class MarkCell:
    """What the mark column shows for one example."""

    word: str  # one of MARKS
    kind: str  # own | stale | carried
    note: bool = False

    @classmethod
    def of(cls, shown: Shown) -> MarkCell:
        """The cell of a mark as this comparison shows it."""
        kind = "carried" if shown.carried_from else "stale" if shown.stale else "own"
        return cls(shown.word, kind, bool(shown.note))

    def text(self, width: int) -> str:
        word = self.word if len(self.word) <= width - 2 else MARKS[self.word].short
        if self.kind == "carried":
            word += "↻"
        elif self.kind == "stale":
            word += "?"
        return (word + ("+" if self.note else ""))[:width]


@dataclass(frozen=True)
class Columns:
    """Cell widths for one table width: the id column takes what the others leave, or what
    its longest id needs where that is less (the signals get the rest)."""

    rank: int
    id: int
    signals: int
    mark: int

    @classmethod
    def fit(cls, width: int, rows: int, longest_id: int | None = None) -> Columns:
        """``longest_id``: the cells the longest id takes (None: not known); ids shorter
        than the room left leave the rest to the signals ("+sent trunc len-" whole, not
        "+sent trunc…" beside an id column of blanks)."""
        rank = max(len(str(rows)), 2)
        # 12: "regression↻+" whole from 70 columns; narrower, its first four letters (SPEC)
        mark = 7 if width < 70 else 12 if width < 90 else 13
        signal = 12 if width < 100 else 22  # 12: "+sent trunc…"
        fixed = 2 + rank + 1 + 7 + 7 + 8 + 1 + signal + 1 + mark
        id_width = max(width - fixed, 8)
        if longest_id is not None and longest_id + 1 < id_width:  # (+1: the space after it)
            shorter = max(longest_id + 1, 8)
            signal, id_width = signal + id_width - shorter, shorter
        return cls(rank, id_width, signal, mark)


# Past this many ids the id column is not fitted to them: the pass over them all would be
# made on the UI thread, before the first frame of a reopened big suite.
FITTED_IDS = 250_000


def longest_id(ids: Sequence[str]) -> int | None:
    """The cells the longest id takes in the table where every id is printable ASCII (a
    character a cell); None otherwise (a CJK character takes two, an escaped control
    character several), or past `FITTED_IDS` ids: the id column then takes all the room
    left, as it did."""
    if not ids or len(ids) > FITTED_IDS:
        return None
    joined = "".join(ids)  # one string: the ids checked in C, not one call an id
    if not joined.isascii() or not joined.isprintable():
        return None
    return max(map(len, ids))


# Where each of the table's moves puts the cursor (its validation keeps it on a row).
MOVES: dict[str, Callable[[MoversTable], int]] = {
    "up": lambda table: table.cursor - 1,
    "down": lambda table: table.cursor + 1,
    "page_up": lambda table: table.cursor - table.page,
    "page_down": lambda table: table.cursor + table.page,
    "first": lambda table: 0,
    "last": lambda table: table.row_count - 1,
}


class MoversTable(ScrollView, can_focus=True):
    """A virtual table over a `Figures`' ranked arrays, in the order of ``view``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "movers--header", "movers--cursor", "movers--rule", "movers--top", "movers--up",
        "movers--down", "movers--dim", "movers--stale", *(f"movers--{word}" for word in MARKS),
    }
    # Each mark word in its colour, bold; with NO_COLOR in the text's own (its word carries
    # the meaning): from the registry, so a new word needs no line in rouge_tui.tcss.
    DEFAULT_CSS = "\n".join(
        f"MoversTable > .movers--{mark.word} {{ text-style: bold; color: {mark.colour}; }}\n"
        f"MoversTable:nocolor > .movers--{mark.word} {{ color: $text; }}"
        for mark in MARKS.values()
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move('up')", "up", show=False),
        Binding("down,j", "move('down')", "down", show=False),
        Binding("pageup", "move('page_up')", "page up", show=False),
        Binding("pagedown", "move('page_down')", "page down", show=False),
        Binding("home,g", "move('first')", "first", show=False),  # g and G as in less and vim
        Binding("end,G", "move('last')", "last", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Chosen(Message):
        """The highlighted row was clicked again: open it."""

    class Moved(Message):
        """The cursor moved (or the rows under it changed)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures: Figures | None = None
        self.view: np.ndarray = np.zeros(0, dtype=np.int64)
        self.rule = False
        self.marks: Callable[[str], MarkCell | None] = lambda _id: None
        self.longest_id: int | None = None  # cells, over every id of the figures shown
        self.empty_text = "loading…"
        # Moves asked for before any figures are shown, made in turn when they are: typed
        # ahead, j j j enter opened row 1 (a newcomer's pass; enter waits for the table).
        self.ahead: list[str | Callable[[], None]] = []  # a move, or the screen's action (a mark)

    def show(self, figures: Figures, view: np.ndarray, *, rule: bool, cursor: int = 0) -> None:
        """Show ``view`` (indices into the ranked arrays), the cursor on row ``cursor``."""
        if figures is not self.figures:
            self.longest_id = longest_id(figures.ids)
        self.figures = figures
        self.view = view
        self.rule = rule and len(view) > TEN
        self.virtual_size = Size(self.size.width, self.line_count + 1)
        self.cursor = cursor
        ahead, self.ahead = self.ahead, []
        for move in ahead:
            if callable(move):
                move()
            else:
                self.action_move(move)
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self.view)

    @property
    def line_count(self) -> int:
        return self.row_count + (1 if self.rule else 0)

    def line_of_row(self, row: int) -> int:
        return row + 1 if self.rule and row >= TEN else row

    def row_of_line(self, line: int) -> int | None:
        if self.rule and line >= TEN:
            if line == TEN:
                return None
            line -= 1
        return line if 0 <= line < self.row_count else None

    def row_of(self, index: int) -> int | None:
        """The row showing ranked example ``index`` (None when filtered out)."""
        hits = np.flatnonzero(self.view == index)
        return int(hits[0]) if len(hits) else None

    @property
    def current(self) -> int | None:
        """The ranked index under the cursor (None for an empty table)."""
        return int(self.view[min(self.cursor, self.row_count - 1)]) if self.row_count else None

    # ------------------------------------------------------------------ the cursor

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, self.row_count - 1)) if self.row_count else 0

    def watch_cursor(self, cursor: int) -> None:
        self.scroll_to_row(cursor)
        self.refresh()
        self.post_message(self.Moved())

    @property
    def page(self) -> int:
        return max(self.scrollable_content_region.height - 2, 1)

    def scroll_to_row(self, row: int) -> None:
        line = self.line_of_row(row)
        body = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + body:
            self.scroll_to(y=line - body + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.line_count + 1)
        self.call_after_refresh(self.after_resize)

    def after_resize(self) -> None:
        """The cursor's row in sight; from the top where it fits there. Shrunk and grown back,
        the table stayed scrolled, row 1 (the most-moved) out of sight with room to spare."""
        if self.line_of_row(self.cursor) < max(self.scrollable_content_region.height - 1, 1):
            self.scroll_to(y=0, animate=False, immediate=True)
        else:
            self.scroll_to_row(self.cursor)

    def action_move(self, move: str) -> None:
        """The cursor moved by ``move`` (`MOVES`); before any figures are shown, kept for them."""
        if self.figures is None:
            self.ahead.append(move)
        else:
            self.cursor = MOVES[move](self)

    def on_click(self, event: events.Click) -> None:
        row = self.row_of_line(round(self.scroll_y) + event.y - 1) if event.y else None
        if row is None:
            return
        if row == self.cursor:
            self.post_message(self.Chosen())
        self.cursor = row

    # ------------------------------------------------------------------ drawing

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"movers--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._strip(self.header(width), width, base)
        if self.figures is None or not self.row_count:
            text = Text(" " + self.empty_text, style=self._style("dim")) if y == 1 else Text("")
            return self._strip(text, width, base)
        line = round(self.scroll_y) + y - 1
        if line >= self.line_count:
            return Strip.blank(width, base)
        row = self.row_of_line(line)
        if row is None:
            rule = Text("── the ten most-moved above " + "─" * width, style=self._style("rule"))
            return self._strip(rule, width, base)
        text = self.row_text(row, width)
        if row == self.cursor:
            text.pad_right(max(width - text.cell_len, 0))
            text.stylize(self._style("cursor"))
        return self._strip(text, width, base)

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        text.no_wrap = True
        text.overflow = "crop"
        segments = [
            Segment(s.text, base + s.style if s.style else base)
            for s in text.render(self.app.console, end="")
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def header(self, width: int) -> Text:
        # The rows' widths (a filter's fewer rows would narrow the rank and shift the header).
        cols = Columns.fit(width, self.figures.paired if self.figures is not None else self.row_count, self.longest_id)
        text = Text(style=self._style("header"))
        text.append("  " + "#".rjust(cols.rank) + " " + "id".ljust(cols.id))
        text.append("base".rjust(7) + "cand".rjust(7) + "delta".rjust(8) + " ")
        pending = self.figures is not None and self.figures.pending  # some still being found
        text.append(("signals…" if pending else "signals").ljust(cols.signals) + " " + "mark".ljust(cols.mark))
        text.pad_right(max(width - text.cell_len, 0))
        return text

    def row_text(self, row: int, width: int) -> Text:
        """One example's row: rank, id, baseline F, candidate F, delta, signals, mark."""
        f = self.figures
        assert f is not None
        cols = Columns.fit(width, f.paired, self.longest_id)
        index = int(self.view[row])
        delta = float(f.delta[index])
        text = Text()
        text.append("▶ " if row == self.cursor else "  ")
        text.append(str(index + 1).rjust(cols.rank), style=self._style("top") if index < TEN else "")
        text.append(" ")
        shown = Text(one_line(f.ids[index][: cols.id * 4]))
        shown.truncate(cols.id - 1, overflow="ellipsis", pad=True)
        text.append_text(shown)
        text.append(" ")
        text.append(f"{float(f.baseline_f[index]):.4f}".rjust(7))
        text.append(f"{float(f.candidate_f[index]):.4f}".rjust(7))
        style = self._style("down") if delta < 0 else self._style("up") if delta > 0 else ""
        text.append(signed(delta).rjust(8), style=style)
        text.append(" ")
        runs = None if f.runs_fired is None else f.runs_fired[:, index].tolist()
        said = whole(signals.labels(int(f.signals[index]), runs, f.runs), cols.signals)
        text.append(said.ljust(cols.signals), style=self._style("dim"))
        text.append(" ")
        cell = self.marks(f.ids[index])
        if cell is not None:
            style = self._style("stale") if cell.kind == "stale" else self._style(cell.word)
            text.append(cell.text(cols.mark), style=style)
        return text
