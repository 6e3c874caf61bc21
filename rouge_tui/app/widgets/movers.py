"""The movers table: every paired example ranked by |delta|, drawn with Textual's Line API.

Only the visible lines are rendered (``render_line``), straight from the comparison's numpy
arrays, so 100,000 rows cost no more than 20: Textual's DataTable measures every cell first
(about 12 s for 100,000 rows). The first line is a fixed header; after row ten of the ranked,
unfiltered view a rule sets the ten most-moved outputs apart, and their ranks are bold in
every view.
"""

from __future__ import annotations

from collections.abc import Callable
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

from rouge_tui.compare import Comparison, signal_words
from rouge_tui.safetext import one_line

MarkLookup = Callable[[str], "object | None"]  # returns something with .word(short) and .stale
TEN = 10


@dataclass(frozen=True)
class Columns:
    """Cell widths for one table width; the id column takes what the others leave."""

    rank: int
    id: int
    score: int
    delta: int
    signals: int
    mark: int
    short_marks: bool

    @classmethod
    def fit(cls, width: int, rows: int) -> Columns:
        rank = max(len(str(rows)), 2)
        short = width < 90
        mark = 6 if short else 12
        signals = 12 if width < 100 else 20
        fixed = 2 + rank + 1 + 7 + 7 + 8 + 1 + signals + 1 + mark
        return cls(rank, max(width - fixed, 8), 7, 8, signals, mark, short)


class MoversTable(ScrollView, can_focus=True):
    """A virtual table over a ``Comparison``'s ranked arrays, in the order of ``view``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "movers--header",
        "movers--cursor",
        "movers--rule",
        "movers--top",
        "movers--up",
        "movers--down",
        "movers--dim",
        "movers--mark",
        "movers--stale",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "up", show=False),
        Binding("down", "cursor_down", "down", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown", "page_down", "page down", show=False),
        Binding("home", "first", "first", show=False),
        Binding("end", "last", "last", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Highlighted(Message):
        """The cursor moved to another example (``index`` into the ranked arrays, or -1)."""

        def __init__(self, table: MoversTable, index: int) -> None:
            super().__init__()
            self.table = table
            self.index = index

    class Chosen(Message):
        """The highlighted row was clicked again: open it."""

        def __init__(self, table: MoversTable, index: int) -> None:
            super().__init__()
            self.table = table
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.comparison: Comparison | None = None
        self.view: np.ndarray = np.zeros(0, dtype=np.int64)
        self.rule = False
        self.mark_lookup: MarkLookup = lambda _id: None
        self.empty_text = "no examples"

    # ------------------------------------------------------------------ data

    def set_rows(
        self,
        comparison: Comparison,
        view: np.ndarray,
        *,
        rule: bool,
        mark_lookup: MarkLookup | None = None,
        keep: int | None = None,
    ) -> None:
        """Show ``view`` (indices into the ranked arrays); keep the example ``keep`` under the cursor."""
        self.comparison = comparison
        self.view = view
        self.rule = rule and len(view) > TEN
        if mark_lookup is not None:
            self.mark_lookup = mark_lookup
        self.virtual_size = Size(self.size.width, self.line_count + 1)
        row = self.row_of(keep) if keep is not None else None
        self.cursor = row if row is not None else 0
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self.view)

    @property
    def line_count(self) -> int:
        """Content lines: one per row, plus the rule after the ten."""
        return self.row_count + (1 if self.rule else 0)

    def line_of_row(self, row: int) -> int:
        return row + 1 if self.rule and row >= TEN else row

    def row_of_line(self, line: int) -> int | None:
        if self.rule:
            if line == TEN:
                return None
            if line > TEN:
                line -= 1
        return line if 0 <= line < self.row_count else None

    def row_of(self, index: int) -> int | None:
        """The row showing ranked example ``index``, or None when it is filtered out."""
        hits = np.flatnonzero(self.view == index)
        return int(hits[0]) if len(hits) else None

    @property
    def current(self) -> int | None:
        """The ranked index of the example under the cursor (None when the table is empty)."""
        if not self.row_count:
            return None
        return int(self.view[min(self.cursor, self.row_count - 1)])

    def refresh_rows(self) -> None:
        """Redraw after marks changed (same rows)."""
        self.refresh()

    # ------------------------------------------------------------------ cursor

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, self.row_count - 1)) if self.row_count else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_to_row(new)
        self.refresh()
        self.post_message(self.Highlighted(self, self.current if self.current is not None else -1))

    @property
    def page(self) -> int:
        return max(self.scrollable_content_region.height - 2, 1)

    def scroll_to_row(self, row: int) -> None:
        """Scroll just enough that ``row`` is visible below the header."""
        line = self.line_of_row(row)
        body = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + body:
            self.scroll_to(y=line - body + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.line_count + 1)
        self.call_after_refresh(self.scroll_to_row, self.cursor)

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= self.page

    def action_page_down(self) -> None:
        self.cursor += self.page

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = self.row_count - 1

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            return
        row = self.row_of_line(round(self.scroll_y) + event.y - 1)
        if row is None:
            return
        if row == self.cursor and self.current is not None:
            self.post_message(self.Chosen(self, self.current))
        self.cursor = row

    # ------------------------------------------------------------------ drawing

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"movers--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._strip(self.header(width), width, base)
        if self.comparison is None or not self.row_count:
            text = Text(" " + self.empty_text, style=self._style("dim")) if y == 1 else Text("")
            return self._strip(text, width, base)
        line = round(self.scroll_y) + y - 1
        if line >= self.line_count:
            return Strip.blank(width, base)
        row = self.row_of_line(line)
        if row is None:
            rule = Text(
                "─" * 2 + " the ten most-moved above " + "─" * width, style=self._style("rule")
            )
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
            Segment(s.text, base + s.style if s.style else base, s.control)
            for s in text.render(self.app.console, end="")
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def header(self, width: int) -> Text:
        cols = Columns.fit(width, self.row_count)
        text = Text(style=self._style("header"))
        text.append("  ")
        text.append("#".rjust(cols.rank))
        text.append(" ")
        text.append("id".ljust(cols.id))
        text.append("base".rjust(cols.score))
        text.append("cand".rjust(cols.score))
        text.append("delta".rjust(cols.delta))
        text.append(" ")
        text.append("signals".ljust(cols.signals))
        text.append(" ")
        text.append("mark".ljust(cols.mark))
        text.pad_right(max(width - text.cell_len, 0))
        return text

    def row_text(self, row: int, width: int) -> Text:
        """One example's row: rank, id, baseline F, candidate F, delta, signals, mark."""
        c = self.comparison
        assert c is not None
        cols = Columns.fit(width, len(c.ids))
        index = int(self.view[row])
        example_id = c.ids[index]
        delta = float(c.delta[index])
        text = Text()
        text.append("▶ " if row == self.cursor else "  ")
        rank = str(index + 1).rjust(cols.rank)
        text.append(rank, style=self._style("top") if index < TEN else Style())
        text.append(" ")
        shown = Text(one_line(example_id[: cols.id * 4]))
        shown.truncate(cols.id - 1, overflow="ellipsis", pad=True)
        text.append_text(shown)
        text.append(" ")
        text.append(f"{float(c.baseline_f[index]):.4f}".rjust(cols.score))
        text.append(f"{float(c.candidate_f[index]):.4f}".rjust(cols.score))
        delta_style = (
            self._style("down") if delta < 0 else self._style("up") if delta > 0 else Style()
        )
        text.append(f"{delta:+.4f}".rjust(cols.delta), style=delta_style)
        text.append(" ")
        text.append(
            signal_words(int(c.signals[index]))[: cols.signals].ljust(cols.signals),
            style=self._style("dim"),
        )
        text.append(" ")
        cell = self.mark_lookup(example_id)
        if cell is not None:
            style = self._style("stale") if getattr(cell, "stale", False) else self._style("mark")
            text.append(cell.word(cols.short_marks)[: cols.mark], style=style)  # type: ignore[attr-defined]
        return text
