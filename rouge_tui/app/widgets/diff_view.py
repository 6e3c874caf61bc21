"""The diff view: one example's outputs against the reference, or against each other.

Draws the pure model of `rouge_tui.diff` with Rich `Text` built piece by piece: every piece
of untrusted text goes through `safetext.visible()` and nothing is ever parsed as markup, so
`[bold red]`, escape sequences and bidi overrides show literally. Highlights are never colour
alone: words that count are bold + underlined, reference marks differ in bold/underline,
removed words are struck through behind a `-` gutter, added words bold behind a `+`.

Keys: `f` folds or unfolds long unchanged runs in the baseline-vs-candidate mode (the host
screen toggles `mode`; the widget scrolls with the usual scrolling keys when focused).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from rouge_tui.diff import (
    DEFAULT_LIMIT,
    FOLD_THRESHOLD,
    AlignedRow,
    ExampleDiff,
    RowKind,
    Side,
    fold_words,
    reference_segments,
    side_segments,
)
from rouge_tui.diff import Segment as Piece
from rouge_tui.safetext import one_line, visible

__all__ = ["MODES", "NARROW_WIDTH", "DiffView", "TextPane"]

MODES: tuple[str, ...] = ("reference", "outputs")
# Below this many columns the panes stack vertically.
NARROW_WIDTH = 100

# Styles that still read in 16 colours and without colour (the attributes differ).
MATCH = Style(bold=True, underline=True, color="green")
REFERENCE_STYLES: dict[str, Style] = {
    "both": Style(bold=True, underline=True, color="green"),
    "baseline": Style(underline=True, color="yellow"),
    "candidate": Style(bold=True, color="cyan"),
}
REMOVED = Style(strike=True, color="red")
ADDED = Style(bold=True, color="green")
UNCHANGED = Style(dim=True)
GUTTER_REMOVED = Style(bold=True, color="red")
GUTTER_ADDED = Style(bold=True, color="green")
NOTE = Style(italic=True)
ARITHMETIC = Style(bold=True)


# Lines of a pane for a width and a base style (the pane's colours).
Builder = Callable[[Console, int, Style], list[Strip]]


def _marked_text(pieces: list[Piece], left_out: int, styles: dict[str, Style]) -> Text:
    """Rich text from pieces of the original text, each made visible, marks as styles."""
    text = Text()
    for piece in pieces:
        text.append(visible(piece.text), styles.get(piece.mark) if piece.mark else None)
    if left_out:
        text.append(
            f"\n… {left_out:,} more characters not shown (the figures use all of them)",
            NOTE,
        )
    return text


def side_text(side: Side, limit: int | None = DEFAULT_LIMIT) -> Text:
    """A side's output with the words that count highlighted (no arithmetic line)."""
    text = _marked_text(*side_segments(side, limit), {"match": MATCH})
    if not side.text.strip():
        text.append("(empty output)", NOTE)
    return text


def arithmetic_lines(arithmetic: str, width: int) -> list[str]:
    """The arithmetic line, broken only between its ` · ` terms when it is too wide."""
    lines: list[str] = []
    for term in arithmetic.split(" · "):
        if lines and cell_len(lines[-1]) + 3 + cell_len(term) <= width:
            lines[-1] += " · " + term
        else:
            lines.append(term)
    return lines


def side_builder(side: Side, limit: int | None = DEFAULT_LIMIT) -> Builder:
    """Lines of a side's pane at any width: the output, a blank line, the arithmetic."""
    body = side_text(side, limit)

    def build(console: Console, width: int, base: Style) -> list[Strip]:
        strips = wrap(console, body, width, base)
        strips.append(Strip.blank(max(width, 1), base))
        for line in arithmetic_lines(side.arithmetic(), width):
            strips += wrap(console, Text(line, ARITHMETIC), width, base)
        return strips

    return build


def reference_text(diff: ExampleDiff, limit: int | None = DEFAULT_LIMIT) -> Text:
    """The reference, each word marked by which build matched it, with a legend line."""
    view = diff.reference
    text = Text()
    if view.note:
        text.append(visible(view.note) + "\n", NOTE)
    text.append_text(_marked_text(*reference_segments(view, limit), REFERENCE_STYLES))
    text.append("\n\n")
    text.append_text(legend())
    return text


def legend() -> Text:
    """The reference marks explained, each label in its own style."""
    text = Text("matched by: ")
    text.append("both", REFERENCE_STYLES["both"])
    text.append("  ")
    text.append("baseline only", REFERENCE_STYLES["baseline"])
    text.append("  ")
    text.append("candidate only", REFERENCE_STYLES["candidate"])
    text.append("  neither")
    return text


def _row_texts(row: AlignedRow, folded: bool, budget: int | None) -> tuple[str, str, int | None]:
    """The row's left and right text as shown (folded, cut to the budget) and budget left."""
    left, right = row.left, row.right
    if row.kind == "equal" and folded and row.left_words > FOLD_THRESHOLD:
        left = fold_words(left, row.left_words)
        right = fold_words(right, row.right_words)
    if budget is not None:
        cut = []
        for part in (left, right):
            if len(part) > budget:
                part = f"{part[:budget]} … {len(part) - budget:,} more characters"
                budget = 0
            else:
                budget -= len(part)
            cut.append(part)
        left, right = cut
    return left, right, budget


# A row as drawn: its kind (None for a note line) and its left and right text, already
# made visible.
Cells = tuple[RowKind | None, str, str]


def row_cells(
    rows: list[AlignedRow], folded: bool, limit: int | None = DEFAULT_LIMIT
) -> list[Cells]:
    """Each row's kind and its left and right text as shown; a note row when cut short."""
    cells: list[Cells] = []
    budget = limit
    for number, row in enumerate(rows):
        if budget is not None and budget <= 0:
            cells.append((None, f"… {len(rows) - number:,} more rows not shown", ""))
            break
        left, right, budget = _row_texts(row, folded, budget)
        cells.append((row.kind, visible(left), visible(right)))
    return cells


def wrap(console: Console, text: Text, width: int, base: Style) -> list[Strip]:
    """`text` wrapped at word boundaries to `width` cells, one strip per line, padded."""
    width = max(width, 1)
    strips = []
    for line in text.wrap(console, width, overflow="fold"):
        strip = Strip(list(line.render(console)), line.cell_len)
        strips.append(strip.apply_style(base).crop_extend(0, width, base))
    return strips or [Strip.blank(width, base)]


def _cell(console: Console, text: str, style: Style, width: int, base: Style) -> list[Strip]:
    """One cell's lines: a single padded segment when it fits (most runs are a few words)."""
    width = max(width, 1)
    length = cell_len(text)
    if length <= width and "\n" not in text and "\t" not in text:
        pad = Segment(" " * (width - length), base)
        return [Strip([Segment(text, base + style), pad] if text else [pad], width)]
    return wrap(console, Text(text, style), width, base)


def _gutters(mark: str, style: Style, base: Style, lines: int) -> list[Strip]:
    first = Strip([Segment(mark, base + style), Segment(" ", base)], 2)
    return [first] + [Strip.blank(2, base)] * (lines - 1)


def side_by_side(cells: list[Cells], console: Console, width: int, base: Style) -> list[Strip]:
    """Rows as two columns: `- ` and removed words left, `+ ` and added words right."""
    column = max((width - 5) // 2, 1)
    right_column = max(width - 5 - column, 1)
    blank = Strip.blank(2, base)
    middle = Strip.blank(1, base)
    strips: list[Strip] = []
    for kind, left, right in cells:
        if kind is None:
            strips += wrap(console, Text(left, NOTE), width, base)
            continue
        equal = kind == "equal"
        lefts = _cell(console, left, UNCHANGED if equal else REMOVED, column, base)
        rights = _cell(console, right, UNCHANGED if equal else ADDED, right_column, base)
        height = max(len(lefts), len(rights))
        lefts += [Strip.blank(column, base)] * (height - len(lefts))
        rights += [Strip.blank(right_column, base)] * (height - len(rights))
        left_gutter = (
            [blank] * height if equal or not left else _gutters("-", GUTTER_REMOVED, base, height)
        )
        right_gutter = (
            [blank] * height if equal or not right else _gutters("+", GUTTER_ADDED, base, height)
        )
        for parts in zip(left_gutter, lefts, [middle] * height, right_gutter, rights):
            strips.append(Strip.join(parts))
    return strips


def stacked(cells: list[Cells], console: Console, width: int, base: Style) -> list[Strip]:
    """Rows one under the other for narrow terminals: `- ` removed, then `+ ` added."""
    column = max(width - 2, 1)
    blank = Strip.blank(2, base)
    strips: list[Strip] = []
    for kind, left, right in cells:
        if kind is None:
            strips += wrap(console, Text(left, NOTE), width, base)
            continue
        if kind == "equal":
            parts = [(None, left, UNCHANGED)]
        else:
            parts = [(GUTTER_REMOVED, left, REMOVED), (GUTTER_ADDED, right, ADDED)]
        for gutter_style, text, style in parts:
            if not text:
                continue
            lines = _cell(console, text, style, column, base)
            if gutter_style is None:
                gutter = [blank] * len(lines)
            else:
                mark = "-" if gutter_style is GUTTER_REMOVED else "+"
                gutter = _gutters(mark, gutter_style, base, len(lines))
            strips += [Strip.join(pair) for pair in zip(gutter, lines)]
    return strips


class TextPane(Widget):
    """Wrapped rich text drawn through the Line API: lines are built once per width, and
    only the visible ones are painted, so long diffs stay quick."""

    DEFAULT_CSS = """
    TextPane {
        height: auto;
    }
    """

    def __init__(
        self, content: Text | None = None, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._build: Builder = self._text_builder(content or Text(""))
        # Lines per (width, style): layout asks for a width or two (with and without a
        # scrollbar) before painting, so keep a few.
        self._cache: dict[tuple[int, Style], list[Strip]] = {}

    @staticmethod
    def _text_builder(text: Text) -> Builder:
        return lambda console, width, base: wrap(console, text, width, base)

    def update(self, content: Text | Builder) -> None:
        """Show a `Text` (wrapped to the width) or lines from a builder(console, width, style)."""
        self._build = self._text_builder(content) if isinstance(content, Text) else content
        self._cache.clear()
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Strip]:
        """The content's lines at `width` cells (cached for the last width and style)."""
        key = (width, self.rich_style)
        lines = self._cache.get(key)
        if lines is None:
            if len(self._cache) >= 4:
                self._cache.clear()
            lines = self._cache[key] = self._build(self.app.console, width, key[1])
        return lines

    @property
    def plain(self) -> str:
        """The text of every line at the current width (for tests and copying)."""
        return "\n".join(strip.text.rstrip() for strip in self.lines(self.size.width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self.lines(width)
        if y < len(lines):
            return lines[y]
        return Strip.blank(width, self.rich_style)


def _title(label: str, name: str | None) -> Text:
    return Text(f"{label} · {one_line(name, 60)}" if name else label)


class DiffView(VerticalScroll, can_focus=True):
    """One example's diff: against the reference (`mode == "reference"`) or the outputs
    against each other (`mode == "outputs"`). Call `show()` with the model; the host screen
    sets `mode` (key `d` there) and may call `toggle_fold()` (key `f` here)."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        scrollbar-gutter: stable;
    }
    DiffView > #diff-against, DiffView > #diff-outputs, DiffView #diff-sides {
        height: auto;
    }
    DiffView #diff-sides {
        layout: horizontal;
    }
    DiffView.-narrow #diff-sides {
        layout: vertical;
    }
    DiffView .diff-pane {
        width: 1fr;
        height: auto;
        padding: 0 1;
        border: round $primary 50%;
        border-title-color: $text;
    }
    DiffView #diff-candidate {
        border: round $secondary 50%;
    }
    DiffView.-mode-outputs #diff-against, DiffView.-mode-reference #diff-outputs {
        display: none;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_fold", "fold", id="diff.fold"),
    ]

    mode: reactive[str] = reactive("reference", init=False)
    folded: reactive[bool] = reactive(True, init=False)

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.diff: ExampleDiff | None = None
        self.rows: list[AlignedRow] = []
        self.baseline_name: str | None = None
        self.candidate_name: str | None = None
        self._narrow: bool | None = None
        self.add_class("-mode-reference")

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-against"):
            with Vertical(id="diff-sides"):
                yield TextPane(
                    Text("No example selected."), id="diff-baseline", classes="diff-pane"
                )
                yield TextPane(id="diff-candidate", classes="diff-pane")
            yield TextPane(id="diff-reference", classes="diff-pane")
        with Vertical(id="diff-outputs"):
            yield TextPane(id="diff-rows", classes="diff-pane")

    # --- public --------------------------------------------------------------------------

    def show(
        self,
        diff: ExampleDiff,
        rows: list[AlignedRow],
        mode: str | None = None,
        *,
        baseline_name: str | None = None,
        candidate_name: str | None = None,
    ) -> None:
        """Show `diff` and `rows` (from `rouge_tui.diff`); `mode` switches the view too."""
        self.diff, self.rows = diff, rows
        self.baseline_name, self.candidate_name = baseline_name, candidate_name
        if mode is not None and mode != self.mode:
            self.mode = mode  # the watcher redraws
        else:
            self._redraw()
        self.scroll_home(animate=False)

    def toggle_fold(self) -> None:
        """Fold or unfold long unchanged runs in the outputs mode."""
        self.folded = not self.folded

    def toggle_mode(self) -> None:
        """Switch between against the reference and baseline vs candidate."""
        self.mode = "outputs" if self.mode == "reference" else "reference"

    @property
    def narrow(self) -> bool:
        """True when the panes are stacked (below `NARROW_WIDTH` columns)."""
        return bool(self._narrow)

    # --- reactive plumbing ---------------------------------------------------------------

    def validate_mode(self, mode: str) -> str:
        if mode not in MODES:
            raise ValueError(f"unknown diff mode {mode!r}: expected one of {', '.join(MODES)}")
        return mode

    def watch_mode(self, mode: str) -> None:
        for each in MODES:
            self.set_class(each == mode, f"-mode-{each}")
        self.refresh_bindings()
        self._redraw()
        self.scroll_home(animate=False)

    def watch_folded(self, folded: bool) -> None:
        self._draw_rows()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Folding only means something in the outputs mode: hide `f` elsewhere."""
        if action == "toggle_fold":
            return self.mode == "outputs"
        return True

    def action_toggle_fold(self) -> None:
        self.toggle_fold()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < NARROW_WIDTH
        if narrow != self._narrow:
            self._narrow = narrow
            self.set_class(narrow, "-narrow")
            self._draw_rows()

    # --- drawing -------------------------------------------------------------------------

    def _redraw(self) -> None:
        if self.diff is None or not self.is_mounted:
            return
        diff = self.diff
        baseline = self.query_one("#diff-baseline", TextPane)
        candidate = self.query_one("#diff-candidate", TextPane)
        reference = self.query_one("#diff-reference", TextPane)
        baseline.border_title = _title("baseline", self.baseline_name)
        candidate.border_title = _title("candidate", self.candidate_name)
        ref = diff.reference
        heading = "reference" if ref.count == 1 else f"reference {ref.index + 1} of {ref.count}"
        reference.border_title = Text(f"{heading} · {one_line(diff.id, 60)}")
        if self.mode == "reference":
            baseline.update(side_builder(diff.baseline))
            candidate.update(side_builder(diff.candidate))
            reference.update(reference_text(diff))
        self._draw_rows()

    def _draw_rows(self) -> None:
        if self.diff is None or not self.is_mounted or self.mode != "outputs":
            return
        pane = self.query_one("#diff-rows", TextPane)
        names = [_title("baseline", self.baseline_name), _title("candidate", self.candidate_name)]
        pane.border_title = Text.assemble(names[0], " → ", names[1])
        fold = "f: unfold" if self.folded else "f: fold"
        pane.border_subtitle = Text(f"- removed  + added  {fold}")
        if not self.rows:
            pane.update(Text("Both outputs are empty.", NOTE))
            return
        cells = row_cells(self.rows, self.folded)
        layout = stacked if self.narrow else side_by_side
        pane.update(lambda console, width, base: layout(cells, console, width, base))
