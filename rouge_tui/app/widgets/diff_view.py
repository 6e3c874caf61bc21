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

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, pairwise, repeat
from operator import itemgetter, le
from typing import ClassVar

from rich._wrap import divide_line  # the line breaks Text.wrap uses (tests pin the equality)
from rich.cells import cell_len
from rich.console import Console
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import Resize
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from rouge_tui.diff import (
    DEFAULT_LIMIT,
    FOLD_THRESHOLD,
    AlignedRow,
    ExampleDiff,
    RowKind,
    Run,
    Side,
    fold_words,
    reference_runs,
    reference_segments,
    side_runs,
    side_segments,
)
from rouge_tui.diff import Segment as Piece
from rouge_tui.safetext import is_safe, one_line, visible

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


# Lines of a pane for a width and a base style (the pane's colours): any sequence of strips,
# usually made lazily (see `Wrapped`, `Chain`), so a long diff draws only what is on screen.
Lines = Sequence[Strip]
Builder = Callable[[Console, int, Style], Lines]


def _marked_text(pieces: list[Piece], left_out: int, styles: dict[str, Style]) -> Text:
    """Rich text from pieces of the original text, each made visible, marks as styles.

    The same `Text` as appending each piece with its style, built in one go (thousands of
    pieces in a long output).
    """
    texts = [piece.text for piece in pieces]
    joined = "".join(texts)
    if is_safe(joined) and strip_control_codes(joined) == joined:
        # Both are per character: a text they leave alone, they leave alone in every piece.
        parts = texts
    else:
        parts = [strip_control_codes(visible(part)) for part in texts]  # as Text.append would
    spans: list[Span] = []
    at = 0
    for piece, part in zip(pieces, parts):
        if not part:
            continue
        style = styles.get(piece.mark) if piece.mark else None
        if style:
            spans.append(Span(at, at + len(part), style))
        at += len(part)
    text = Text(joined if parts is texts else "".join(parts), spans=spans)
    return _left_out_note(text, left_out)


def _left_out_note(text: Text, left_out: int) -> Text:
    if left_out:
        text.append(
            f"\n… {left_out:,} more characters not shown (the figures use all of them)",
            NOTE,
        )
    return text


_new_span = tuple.__new__


def _runs_text(
    text: str, runs: list[Run], left_out: int, styles: dict[str, Style]
) -> Text | None:
    """`_marked_text` of the same cut, from the marked runs' offsets (`rouge_tui.diff.
    marked_runs`): None unless the shown text needs nothing made visible, as is usual."""
    shown = text[: len(text) - left_out]
    if not is_safe(shown) or strip_control_codes(shown) != shown:
        return None
    found = [(start, end, styles.get(mark)) for start, end, mark in runs]
    spans = list(map(_new_span, repeat(Span), [span for span in found if span[2]]))
    return _left_out_note(Text(shown, spans=spans), left_out)


def side_text(side: Side, limit: int | None = DEFAULT_LIMIT) -> Text:
    """A side's output with the words that count highlighted (no arithmetic line)."""
    styles = {"match": MATCH}
    text = _runs_text(side.text, *side_runs(side, limit), styles)
    if text is None:
        text = _marked_text(*side_segments(side, limit), styles)
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

    def build(console: Console, width: int, base: Style) -> Lines:
        parts: list[Lines] = [
            Wrapped(console, body, width, base),
            [Strip.blank(max(width, 1), base)],
        ]
        for line in arithmetic_lines(side.arithmetic(), width):
            parts.append(wrap(console, Text(line, ARITHMETIC), width, base))
        return Chain(parts)

    return build


def reference_text(diff: ExampleDiff, limit: int | None = DEFAULT_LIMIT) -> Text:
    """The reference, each word marked by which build matched it, with a legend line."""
    view = diff.reference
    marked = _runs_text(view.text, *reference_runs(view, limit), REFERENCE_STYLES)
    if marked is None:
        marked = _marked_text(*reference_segments(view, limit), REFERENCE_STYLES)
    if view.note:
        text = Text()
        text.append(visible(view.note) + "\n", NOTE)
        text.append_text(marked)
    else:
        text = marked  # not copied span by span behind an empty text
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


def wrap_rich(console: Console, text: Text, width: int, base: Style) -> list[Strip]:
    """`text` wrapped at word boundaries to `width` cells by Rich, one strip per line, padded.

    The definition `Wrapped` reproduces line by line; used as is for what `Wrapped` does not
    cut itself (tabs, lines Rich would truncate, overlapping spans).
    """
    width = max(width, 1)
    strips = []
    for line in text.wrap(console, width, overflow="fold"):
        strip = _own_style(console, text.style, line, Strip(list(line.render(console)), line.cell_len))
        strips.append(strip.apply_style(base).crop_extend(0, width, base))
    return strips or [Strip.blank(width, base)]


def _own_style(console: Console, style: str | Style, line: Text, strip: Strip) -> Strip:
    """`Text.render` leaves out the text's own style (Rich applies it one level up), so a
    removed run wrapped onto a second line lost its strike-through: put it back under the
    spans' styles."""
    if not style or not line.plain:
        return strip
    return strip.apply_style(console.get_style(style))


def wrap(console: Console, text: Text, width: int, base: Style) -> list[Strip]:
    """`text` wrapped at word boundaries to `width` cells, one strip per line, padded."""
    return list(Wrapped(console, text, width, base))


_TRAILING_SPACE = re.compile(r"\s+$")
_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)
# Rich's words (`rich._wrap.re_word`: spaces, a word, spaces), the word's end a group.
_WORD = re.compile(r"\s*\S+(\s*)")


def _ascii_breaks(paragraph: str, width: int) -> list[int] | None:
    """`divide_line(paragraph, width, fold=True)` for printable ASCII (a cell a character,
    spaces the only whitespace), a line at a time rather than a word at a time; None when a
    word is wider than the line (Rich folds it, character by character).

    Rich's words are spaces, a word, spaces; a word fits when the line up to its last
    character is at most `width`. So a line starting at `line` ends after the words that end
    by `line + width`: those before the last space up to there. The next line starts at the
    word after that space.
    """
    breaks: list[int] = []
    stop = len(paragraph.rstrip(" "))  # the end of the last word
    line = 0
    lowest = len(paragraph) - len(paragraph.lstrip(" "))  # the first word's first character
    find = paragraph.rfind
    while stop - line > width:
        limit = line + width
        space = find(" ", line, limit + 1)
        if space < lowest:  # no word ends on this line: the first is wider than the line
            return None
        line = space + 1
        while paragraph[line] == " ":  # more spaces after the last one that fits
            line += 1
        breaks.append(line)
        lowest = line
    return breaks


class Wrapped(Sequence[Strip]):
    """`wrap_rich(console, text, width, base)`, but each strip made only when it is read.

    The line breaks of the whole text are found up front (Rich's own `divide_line`, on the
    plain text: cheap), so the length is known for layout; a line's strip (its spans cut to
    the line, rendered by Rich, styled and padded) is built the first time it is drawn.
    A 2,000-word output is a hundred lines of which a screenful is ever drawn at once.
    """

    def __init__(self, console: Console, text: Text, width: int, base: Style) -> None:
        self._console, self._text, self._base = console, text, base
        self._width = width = max(width, 1)
        spans = text.spans
        # Spans are tuples (start, end, style): read by C-level maps, a long text has
        # thousands.
        self._span_starts = starts = list(map(_first, spans))
        self._span_ends = ends = list(map(_second, spans))
        # Each line: (start, end) in text.plain, or a strip Rich made (see below).
        self._lines: list[tuple[int, int] | Strip] = []
        ordered = all(map(le, ends[:-1], starts[1:])) and all(map(le, starts, ends))
        if not ordered:  # overlapping spans: not cut here (the app never makes them)
            self._lines.extend(wrap_rich(console, text, width, base))
        else:
            self._divide(text.plain, width)
        self._strips: list[Strip | None] = [
            line if isinstance(line, Strip) else None for line in self._lines
        ]
        # Lines made without Rich's Text.render where that gives the same (`_segments`).
        self._direct = (
            not text.style
            and bool(base)
            and all(map(isinstance, map(_third, spans), repeat(Style)))
        )

    def _divide(self, plain: str, width: int) -> None:
        """The lines of Text.wrap(overflow="fold") as offsets: split on newlines, break each
        paragraph where Rich does, drop trailing spaces past the width as `rstrip_end` does.
        A paragraph with a tab, or a line still wider than `width` (which Rich would
        truncate), is left to Rich."""
        lines = self._lines
        at = 0
        for paragraph in plain.split("\n"):
            start, at = at, at + len(paragraph) + 1
            found: list[tuple[int, int]] = []
            if "\t" not in paragraph:
                # Printable ASCII: one cell per character, and breaks found without Rich.
                narrow = paragraph.isascii() and paragraph.isprintable()
                breaks = _ascii_breaks(paragraph, width) if narrow else None
                if breaks is None:
                    narrow = False
                    breaks = divide_line(paragraph, width, fold=True)
                for a, b in pairwise([0, *breaks, len(paragraph)]):
                    if b - a > width:
                        space = _TRAILING_SPACE.search(paragraph, a, b)
                        if space is not None:
                            b -= min(space.end() - space.start(), b - a - width)
                    if (b - a if narrow else cell_len(paragraph[a:b])) > width:
                        break
                    found.append((start + a, start + b))
                else:
                    lines.extend(found)
                    continue
            piece = self._text[start : start + len(paragraph)]
            lines.extend(wrap_rich(self._console, piece, width, self._base))

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, index: int) -> Strip:  # type: ignore[override]
        strip = self._strips[index]
        if strip is None:
            start, end = self._lines[index]  # type: ignore[misc]
            strip = self._strips[index] = self._render(start, end)
        return strip

    def _render(self, start: int, end: int) -> Strip:
        if self._direct:
            return self._segments(start, end)
        text = self._text
        spans: list[Span] = []
        k = bisect_right(self._span_ends, start)  # the first span ending after `start`
        starts, all_spans = self._span_starts, text.spans
        while k < len(starts) and starts[k] < end:
            span = all_spans[k]
            left, right = max(span.start, start) - start, min(span.end, end) - start
            if right > left:
                spans.append(Span(left, right, span.style))
            k += 1
        line = Text(
            text.plain[start:end],
            style=text.style,
            justify=text.justify,
            overflow=text.overflow,
            spans=spans,
        )
        strip = _own_style(self._console, text.style, line, Strip(list(line.render(self._console)), line.cell_len))
        return strip.apply_style(self._base).crop_extend(0, self._width, self._base)

    def _segments(self, start: int, end: int) -> Strip:
        """What `_render` makes, made directly: the pieces between span edges, each in the
        base style plus its span's, then the padding; one strip instead of a `Text`, Rich's
        render and three strips. Only for a text with no style of its own, spans of `Style`
        objects and a base style that is not empty (see `__init__`), where both agree."""
        plain, base = self._text.plain, self._base
        segments: list[Segment] = []
        add = segments.append
        at = start
        k = bisect_right(self._span_ends, start)  # the first span ending after `start`
        starts, all_spans = self._span_starts, self._text.spans
        while k < len(starts) and starts[k] < end:
            span_start, span_end, style = all_spans[k]
            left = max(start, span_start)
            right = min(end, span_end)
            if right > left:
                if left > at:
                    add(Segment(plain[at:left], base))
                add(Segment(plain[left:right], base + style))
                at = right
            k += 1
        if at < end or not segments:
            add(Segment(plain[at:end], base))
        cells = cell_len(plain[start:end])
        width = self._width
        if cells < width:
            add(Segment(" " * (width - cells), base))
            cells = width
        return Strip(segments, cells)


class Chain(Sequence[Strip]):
    """Sequences of strips read as one, each made only when a line of it is first read."""

    def __init__(self, parts: list[Lines]) -> None:
        self._parts = parts
        self._ends = list(accumulate(len(part) for part in parts))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index: int) -> Strip:  # type: ignore[override]
        if index < 0:
            index += len(self)
        k = bisect_right(self._ends, index)
        if k >= len(self._parts):
            raise IndexError(index)
        return self._parts[k][index - (self._ends[k - 1] if k else 0)]


class Block(Sequence[Strip]):
    """`height` strips made by `make()` the first time one of them is read."""

    __slots__ = ("_height", "_make", "_strips")

    def __init__(self, height: int, make: Callable[[], list[Strip]]) -> None:
        self._height, self._make = height, make
        self._strips: list[Strip] | None = None

    def __len__(self) -> int:
        return self._height

    def __getitem__(self, index: int) -> Strip:  # type: ignore[override]
        if self._strips is None:
            self._strips = self._make()
        return self._strips[index]


def _fits(text: str, width: int) -> bool:
    """True when `text` is drawn as one padded segment (most runs are a few words)."""
    return cell_len(text) <= width and "\n" not in text and "\t" not in text


def _cell(console: Console, text: str, style: Style, width: int, base: Style) -> list[Strip]:
    """One cell's lines: a single padded segment when it fits (most runs are a few words)."""
    width = max(width, 1)
    if _fits(text, width):
        pad = Segment(" " * (width - cell_len(text)), base)
        return [Strip([Segment(text, base + style), pad] if text else [pad], width)]
    return wrap(console, Text(text, style), width, base)


def _cell_height(console: Console, text: str, width: int) -> int:
    """How many lines `_cell` makes of `text`, without making them."""
    width = max(width, 1)
    if _fits(text, width):
        return 1
    return len(Wrapped(console, Text(text), width, Style()))


def _gutters(mark: str, style: Style, base: Style, lines: int) -> list[Strip]:
    first = Strip([Segment(mark, base + style), Segment(" ", base)], 2)
    return [first] + [Strip.blank(2, base)] * (lines - 1)


def _side_by_side_row(
    cell: Cells, console: Console, columns: tuple[int, int], base: Style
) -> list[Strip]:
    """One row's strips: `- ` and removed words left, `+ ` and added words right."""
    kind, left, right = cell
    column, right_column = columns
    blank = Strip.blank(2, base)
    middle = Strip.blank(1, base)
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
    return [
        Strip.join(parts)
        for parts in zip(left_gutter, lefts, [middle] * height, right_gutter, rights)
    ]


def side_by_side(cells: list[Cells], console: Console, width: int, base: Style) -> Lines:
    """Rows as two columns: `- ` and removed words left, `+ ` and added words right.

    Each row's height is found up front; its strips are made when it is first drawn.
    """
    column = max((width - 5) // 2, 1)
    right_column = max(width - 5 - column, 1)
    parts: list[Lines] = []
    for cell in cells:
        kind, left, right = cell
        if kind is None:
            parts.append(wrap(console, Text(left, NOTE), width, base))
            continue
        height = max(
            _cell_height(console, left, column), _cell_height(console, right, right_column)
        )
        parts.append(
            Block(
                height,
                lambda cell=cell: _side_by_side_row(cell, console, (column, right_column), base),
            )
        )
    return Chain(parts)


def _stacked_parts(kind: RowKind, left: str, right: str) -> list[tuple[Style | None, str, Style]]:
    if kind == "equal":
        parts = [(None, left, UNCHANGED)]
    else:
        parts = [(GUTTER_REMOVED, left, REMOVED), (GUTTER_ADDED, right, ADDED)]
    return [part for part in parts if part[1]]


def _stacked_row(cell: Cells, console: Console, column: int, base: Style) -> list[Strip]:
    """One row's strips, one part under the other: `- ` removed, then `+ ` added."""
    kind, left, right = cell
    blank = Strip.blank(2, base)
    strips: list[Strip] = []
    for gutter_style, text, style in _stacked_parts(kind, left, right):  # type: ignore[arg-type]
        lines = _cell(console, text, style, column, base)
        if gutter_style is None:
            gutter = [blank] * len(lines)
        else:
            mark = "-" if gutter_style is GUTTER_REMOVED else "+"
            gutter = _gutters(mark, gutter_style, base, len(lines))
        strips += [Strip.join(pair) for pair in zip(gutter, lines)]
    return strips


def stacked(cells: list[Cells], console: Console, width: int, base: Style) -> Lines:
    """Rows one under the other for narrow terminals: `- ` removed, then `+ ` added.

    Each row's height is found up front; its strips are made when it is first drawn.
    """
    column = max(width - 2, 1)
    parts: list[Lines] = []
    for cell in cells:
        kind, left, right = cell
        if kind is None:
            parts.append(wrap(console, Text(left, NOTE), width, base))
            continue
        height = sum(
            _cell_height(console, text, column) for _, text, _ in _stacked_parts(kind, left, right)
        )
        if height:
            parts.append(Block(height, lambda cell=cell: _stacked_row(cell, console, column, base)))
    return Chain(parts)


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
        self._cache: dict[tuple[int, Style], Lines] = {}
        self._line_style: Style | None = None  # rich_style while render_lines runs

    @staticmethod
    def _text_builder(text: Text) -> Builder:
        return lambda console, width, base: Wrapped(console, text, width, base)

    def update(self, content: Text | Builder) -> None:
        """Show a `Text` (wrapped to the width) or lines from a builder(console, width, style)."""
        self._build = self._text_builder(content) if isinstance(content, Text) else content
        self._cache.clear()
        self.refresh(layout=True)

    def lines(self, width: int, style: Style | None = None) -> Lines:
        """The content's lines at `width` cells (cached for the last width and style); each
        line's strip is made when it is first read. `style`: the pane's `rich_style`, when
        the caller has it."""
        key = (width, self.rich_style if style is None else style)
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

    def render_lines(self, crop: Region) -> list[Strip]:
        # The pane's style once for all the lines drawn now, not once a line (it walks the
        # ancestors' styles each time).
        self._line_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style if self._line_style is None else self._line_style
        lines = self.lines(width, style)
        if y < len(lines):
            return lines[y]
        return Strip.blank(width, style)


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
        self._rows: list[AlignedRow] | Callable[[], list[AlignedRow]] = []
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
        rows: list[AlignedRow] | Callable[[], list[AlignedRow]],
        mode: str | None = None,
        *,
        baseline_name: str | None = None,
        candidate_name: str | None = None,
    ) -> None:
        """Show `diff` and `rows` (from `rouge_tui.diff`); `mode` switches the view too.

        `rows` may be a function returning them: it is called when the outputs mode first
        needs them (the alignment costs about as much as the diff, and the reference mode,
        where a diff opens, does not show it).
        """
        self.diff, self._rows = diff, rows
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
    def rows(self) -> list[AlignedRow]:
        """The outputs' alignment shown in the outputs mode (made now if it was deferred)."""
        if callable(self._rows):
            self._rows = self._rows()
        return self._rows

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
        try:
            baseline = self.query_one("#diff-baseline", TextPane)
            candidate = self.query_one("#diff-candidate", TextPane)
            reference = self.query_one("#diff-reference", TextPane)
        except NoMatches:  # the panes are still being mounted: draw once they are
            self.call_after_refresh(self._redraw)
            return
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
        try:
            pane = self.query_one("#diff-rows", TextPane)
        except NoMatches:  # still being mounted: drawn once it is
            self.call_after_refresh(self._draw_rows)
            return
        names = [_title("baseline", self.baseline_name), _title("candidate", self.candidate_name)]
        pane.border_title = Text.assemble(names[0], " → ", names[1])
        fold = "f: unfold" if self.folded else "f: fold"
        pane.border_subtitle = Text(f"- removed  + added  {fold}")
        rows = self.rows
        if not rows:
            pane.update(Text("Both outputs are empty.", NOTE))
            return
        cells = row_cells(rows, self.folded)
        layout = stacked if self.narrow else side_by_side
        pane.update(lambda console, width, base: layout(cells, console, width, base))
