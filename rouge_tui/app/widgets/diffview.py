"""The diff view: one example against its reference, or its two outputs against each other.

It draws `rouge_tui.diff`'s pieces (every piece of suite text through ``safetext.visible``,
never markup), breaks them into lines at word boundaries for the width it has (`wrap`), and
shows the lines through the Line API, each drawn when it comes into view. Nothing is told by colour
alone:

- against the reference, the words that count are bold and underlined, and the reference
  shows who matched each word with a style and a legend;
- baseline vs candidate reads like prose: removed words in ``[-…-]``, added words in
  ``{+…+}``, and every line a change touches starts with ``-``, ``+`` or ``±``;
- a sentence with no counterpart in the reference or source starts with ``[?]``, a figure
  found in no other text stands in ``«»``.

Side by side from `WIDE` columns, stacked below (the outputs then merge into one text).
``]`` / ``[`` go to the next / previous change (against the reference: the next grounding
tag), ``tab`` to the next pane.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rouge_tui.app.widgets.wrap import Line, Styled, lay_out
from rouge_tui.diff import (
    BRACKETS,
    LEGEND,
    OTHER_TEXT,
    ExampleDiff,
    Piece,
    annotate,
    by_line,
    empty_output,
    fold,
    grounding_tags,
    word_diff,
)
from rouge_tui.safetext import one_line, visible

__all__ = ["STYLES", "WIDE", "DiffModel", "DiffView"]

WIDE = 100  # from this many columns, the two outputs stand side by side

STYLES: dict[str, Style] = {
    "same": Style(),
    "counted": Style(bold=True, underline=True, color="green"),
    "both": Style(bold=True, underline=True, color="green"),
    "baseline": Style(underline=True, color="yellow"),
    "candidate": Style(bold=True, italic=True, color="cyan"),
    "neither": Style(),
    "removed": Style(strike=True, color="red"),
    "added": Style(bold=True, color="green"),
    "fold": Style(italic=True, dim=True),
    "flag": Style(bold=True, reverse=True, color="yellow"),
    "newfig": Style(bold=True, color="red"),
    "title": Style(bold=True, underline=True),
    "note": Style(italic=True),
    "arithmetic": Style(bold=True),
}
MATCH = Style(reverse=True)  # the table's text filter, where it matches
CURRENT = Style(bold=True, reverse=True)
# A line on which one of these starts is a change target of `]` / `[`.
OPENING = {kind: STYLES[kind] + Style(bold=True, overline=False) for kind in BRACKETS}
TARGETS = {*OPENING.values(), STYLES["flag"], STYLES["newfig"]}

Row = list[tuple[str | None, Line, int]]  # cells: (gutter sign, line, width)


@dataclass
class Layout:
    """A model's rows for one width, and the rows `]` / `[` and `tab` go to."""

    rows: list[Row]
    changes: list[int]  # rows where a change starts
    panes: list[int]  # rows where a pane starts
    folds: int  # how many stretches the fold folded


@dataclass
class DiffModel:
    """Everything the view draws for one example (made by the diff screen)."""

    diff: ExampleDiff
    outputs: tuple[str, str]  # baseline's and candidate's, as aligned
    names: tuple[str, str]  # the two builds, as shown
    notes: list[str] = field(default_factory=list)  # e.g. a text too long to align in full
    query: str = ""  # the table's text filter: shown reversed where it matches
    grounding: object = None  # rouge_tui.analysis.grounding.Grounding of the example, if made
    _sections: dict = field(default_factory=dict, repr=False, compare=False)
    _layouts: LRUCache = field(default_factory=lambda: LRUCache(4), repr=False, compare=False)
    # Laid out in a worker (made ahead) and on screen: LRUCache.get relinks, so one at a time.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @cached_property
    def words(self) -> tuple[list[Piece], list[Piece], list[Piece]]:
        """The word diff (baseline, candidate, merged), made when first shown."""
        return word_diff(*self.outputs)

    def tags(self, role: str) -> list:
        """Where the grounding tags go on the baseline's or the candidate's text."""
        side = getattr(self.grounding, role, None) if self.grounding is not None else None
        shown = len(self.outputs[role == "candidate"])  # grounded in full, maybe shown cut
        return grounding_tags(side, shown) if side is not None else []

    def sections(self, mode: str, folded: bool, wide: bool) -> tuple[list[Section], int]:
        """The sections drawn in ``mode`` (side by side when ``wide``), and how many
        stretches the fold folds; made once each (the width-free half of drawing)."""
        key = (mode, folded, wide)
        if key not in self._sections:
            self._sections[key] = self._make_sections(mode, folded, wide)
        return self._sections[key]

    def layout(self, mode: str, folded: bool, width: int) -> Layout:
        """The rows for ``width`` columns; made once per width (the last few kept)."""
        key = (mode, folded, width)
        with self._lock:
            layout = self._layouts.get(key)
        if layout is None:
            layout = self._lay_out(mode, folded, width)
            with self._lock:
                self._layouts.set(key, layout)
        return layout

    def _lay_out(self, mode: str, folded: bool, width: int) -> Layout:
        rows: list[Row] = []
        changes: list[int] = []
        panes: list[int] = []

        def whole(found: list[Styled]) -> None:
            rows.extend([(None, line, width)] for line in lay_out(found, width))

        def side_by_side(parts: list[list[Styled]], column: int) -> None:
            """Each part laid out in its own column, the columns side by side."""
            laid = [lay_out(part, column) for part in parts]
            for row in range(max(map(len, laid))):
                rows.append([(None, lines[row] if row < len(lines) else [], column) for lines in laid])

        for note in self.notes:
            whole([("! " + one_line(note), STYLES["note"])])
        if self.tags("baseline") or self.tags("candidate"):
            whole(legend_line())
        sections, folds = self.sections(mode, folded, width >= WIDE)
        for section in sections:
            panes.append(len(rows))
            columns = len(section.bodies)
            inner = (width - 3 * (columns - 1)) // columns - (2 if section.gutter else 0)
            column = inner + (2 if section.gutter else 0)
            if section.titles:
                side_by_side(section.titles, column)
            else:
                whole(section.title)
            bodies = [lay_out(body, inner) for body in section.bodies]
            for row in range(max(map(len, bodies))):
                cells: Row = []
                starts = False
                for body in bodies:
                    line = body[row] if row < len(body) else []
                    sign, opens = _gutter(line) if section.gutter else (None, False)
                    starts = starts or opens
                    cells.append((sign, line, inner))
                if starts:
                    changes.append(len(rows))
                rows.append(cells)
            if section.feet:
                side_by_side(section.feet, column)
            for foot in section.foot:
                whole(foot)
            rows.append([])
        return Layout(rows, changes, panes, folds)

    def _make_sections(self, mode: str, folded: bool, wide: bool) -> tuple[list[Section], int]:
        diff = self.diff
        base_name, cand_name = (one_line(name, 40) for name in self.names)
        if mode == "reference":
            sides = []
            for role, name, side in (("baseline", base_name, diff.baseline), ("candidate", cand_name, diff.candidate)):
                body = styled(annotate(side.pieces(), self.tags(role)), self.query)
                if empty := empty_output(side.text):
                    body = [(empty, STYLES["fold"])]
                sides.append(([(f" {role} · {name} ", STYLES["title"])], body, [(side.arithmetic(), STYLES["arithmetic"])]))
            ref = diff.reference
            label = " reference" + (f" {ref.index + 1} of {ref.count}" if ref.count > 1 else "") + " "
            foot = [[(visible(ref.note), STYLES["note"])]] if ref.note else []
            reference = Section([(label, STYLES["title"])], [styled(ref.pieces(), self.query)], [*foot, matched_by()])
            # With grounding tags, the outputs get a gutter: `]` / `[` step through the tags
            # and the cursor shows there.
            tagged = bool(self.tags("baseline") or self.tags("candidate"))
            if wide:
                both = Section([], [sides[0][1], sides[1][1]], [], tagged, [sides[0][0], sides[1][0]], [sides[0][2], sides[1][2]])
                return [both, reference], 0
            return [Section(t, [b], [a], tagged) for t, b, a in sides] + [reference], 0
        base, cand, merged = self.words
        base = annotate(base, self.tags("baseline"))
        cand = annotate(cand, self.tags("candidate"))
        merged = annotate(merged, self.tags("candidate"), skip=OTHER_TEXT)
        folds = sum(1 for p in fold(merged) if p.kind == "fold")
        if folded:
            base, cand, merged = fold(base), fold(cand), fold(merged)
        title = [(f" {base_name} → {cand_name} ", STYLES["title"])]
        if wide:
            return [Section(title, [styled(base, self.query), styled(cand, self.query)], gutter=True)], folds
        return [Section(title, [styled(merged, self.query)], gutter=True)], folds


@dataclass
class Section:
    title: list[Styled]
    bodies: list[list[Styled]]  # one, or two side by side
    foot: list[list[Styled]] = field(default_factory=list)
    gutter: bool = False
    # Side by side: each body's own title and foot, over and under its column.
    titles: list[list[Styled]] = field(default_factory=list)
    feet: list[list[Styled]] = field(default_factory=list)


def styled(pieces: Sequence[Piece], query: str = "") -> list[Styled]:
    """The pieces as styled stretches: suite text made visible, changed words between markers, the
    filter's text reversed where it matches."""
    out: list[Styled] = []
    for piece in pieces:
        shown = visible(piece.text).replace("\t", "    ")
        style = STYLES.get(piece.kind, STYLES["same"])
        if piece.kind not in BRACKETS:
            if shown:
                out.append((shown, style))
            continue
        # Markers on each line of the run (`by_line`), but only its first opening one is where
        # `]` stops: a run of three lines is one change, not three.
        opening, closing = BRACKETS[piece.kind]
        begins = OPENING[piece.kind]
        for part in by_line([Piece(piece.kind, shown)]):
            if part.kind not in BRACKETS:
                out.append((part.text, STYLES["same"]))
                continue
            out += [(opening, begins), (part.text, style), (closing, style + Style(bold=True))]
            begins = style + Style(bold=True)
    return _matched(out, visible(query).casefold()) if query else out


def _matched(found: list[Styled], needle: str) -> list[Styled]:
    """``found`` with every case-insensitive match of ``needle`` in reverse video."""
    plain = "".join(text for text, _ in found).casefold()
    spans, at = [], plain.find(needle)
    while needle and at >= 0:
        spans.append((at, at + len(needle)))
        at = plain.find(needle, at + len(needle))
    if not spans or len(plain) != sum(len(text) for text, _ in found):
        return found  # (casefolding changed a length: leave the text as it is)
    out: list[Styled] = []
    start = 0
    for text, style in found:
        end = start + len(text)
        cuts = sorted({start, end, *(p for s, e in spans for p in (s, e) if start < p < end)})
        for a, b in pairwise(cuts):
            inside = any(s <= a and b <= e for s, e in spans)
            out.append((text[a - start : b - start], style + MATCH if inside else style))
        start = end
    return out


def legend_line() -> list[Styled]:
    """The legend of the grounding tags, each in its own style."""
    opening, rest = LEGEND.split("[?]", 1)
    middle, end = rest.split("«N»")
    return [(opening + "[?]", STYLES["flag"]), (middle, STYLES["note"]), ("«N»", STYLES["newfig"]), (end, STYLES["note"])]


def matched_by() -> list[Styled]:
    found: list[Styled] = [("matched by: ", STYLES["same"])]
    for kind, words in (("both", "both"), ("baseline", "baseline only"), ("candidate", "candidate only")):
        found += [(words, STYLES[kind]), ("  ", STYLES["same"])]
    return [*found, ("neither", STYLES["same"])]


def _gutter(line: Line) -> tuple[str, bool]:
    """The line's gutter sign (``-``, ``+``, ``±`` where a change touches it) and whether a
    change (changed words, a grounding tag) starts on it."""
    styles = {style for _, style in line}
    removed, added = STYLES["removed"] in styles, STYLES["added"] in styles
    sign = "± " if removed and added else "- " if removed else "+ " if added else "  "
    return sign, bool(styles & TARGETS)


class DiffView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    DiffView { scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "up", show=False),
        Binding("down,j", "scroll_down", "down", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown,space", "page_down", "page down", show=False),
        Binding("home,g", "scroll_home", "top", show=False),  # g and G as in less and vim
        Binding("end,G", "scroll_end", "bottom", show=False),
    ]

    DRAWN = 1000  # rows kept drawn: many screens of them, not every row of a huge diff

    class Unpointed(Message):
        """The row `]` / `[` or `tab` pointed at is pointed at no more: scrolled out of view
        or laid out again. The title's "change k of n" goes with it."""

    mode: reactive[str] = reactive("reference", init=False)
    folded: reactive[bool] = reactive(True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: DiffModel | None = None
        self.rows: list[Row] = []
        self._drawn: LRUCache[int, Strip] = LRUCache(self.DRAWN)
        self.changes: list[int] = []  # rows where a change starts (`]`, `[`)
        self.panes: list[int] = []  # rows where a pane starts (`tab`)
        self.folds = 0  # how many stretches the fold folded
        self.current: int | None = None  # the row `]` / `[` last went to, or the title `tab` did
        self.pane = 0  # the pane `tab` last went to
        self._width = 0

    # Jumps, not Textual's animated scrolls: g, G and a page in a long diff redrew some 20
    # frames over 0.7 s (a newcomer's pass), which over SSH is slow, and a lot sent.
    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def show(self, model: DiffModel) -> None:
        self.model = model
        self.rebuild()
        self.scroll_to(y=0, animate=False, immediate=True)

    def watch_mode(self) -> None:
        self.rebuild()
        self.scroll_to(y=0, animate=False, immediate=True)

    def watch_folded(self) -> None:
        self.rebuild()

    def on_resize(self) -> None:
        if self.size.width != self._width:
            self.rebuild()

    # ------------------------------------------------------------------ building the rows

    @property
    def layout_width(self) -> int:
        """The width the rows are laid out for: the scrollbar's column is always kept."""
        return self._width - 1

    def rebuild(self) -> None:
        """Take the model's rows for the width there is. Rows are drawn when they come into
        view (`render_line`): a 2,000-word diff has hundreds, a screen shows 30."""
        # Before its first layout the view has no size yet; it spans the screen (#diff), so it
        # takes the screen's width and the first frame shows the diff, not the frame after
        # (on_resize corrects any other width).
        self._width = self.size.width or self.app.size.width
        width = self.layout_width
        self._unpoint()
        self.pane = 0
        self._drawn.clear()
        if self.model is None or width <= 4:
            self.rows, self.changes, self.panes = [], [], []
        else:
            layout = self.model.layout(self.mode, self.folded, width)
            self.rows, self.changes, self.panes, self.folds = layout.rows, layout.changes, layout.panes, layout.folds
        self.virtual_size = Size(max(width, 0), len(self.rows))
        self.refresh()

    def draw(self, index: int) -> Strip:
        """Row ``index`` as a strip, made once per build of the rows (the last `DRAWN` kept)."""
        strip = self._drawn.get(index)
        if strip is None:
            base, width = self.rich_style, self.layout_width
            # NO_COLOR: every colour becomes its grey (removed words' red read 1.7:1 on the
            # background); the text's own colour there, the brackets, signs and attributes
            # (strike, underline, bold, reverse) say what each word is.
            plain = self.app.no_color
            segments: list[Segment] = []
            for number, (sign, line, room) in enumerate(self.rows[index]):
                if number:
                    segments.append(Segment(" │ ", base))
                if sign is not None:
                    segments.append(Segment(sign, base + Style(bold=True)))
                cell = Strip([Segment(text, base + (style.without_color if plain else style)) for text, style in line])
                segments += cell.adjust_cell_length(room, base)
            strip = Strip(segments).adjust_cell_length(width, base)
            self._drawn.set(index, strip)
        return strip

    @property
    def strips(self) -> list[Strip]:
        """Every row drawn (the tests read the whole diff as text)."""
        return [self.draw(index) for index in range(len(self.rows))]

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, self.rich_style)
        strip = self.draw(index)
        if index == self.current:
            cursor = Strip([Segment("▶", self.rich_style + CURRENT)])
            if index in self.panes:  # the pane `tab` went to: on its title's leading space
                strip = Strip.join([cursor, strip.crop(1)])
            else:  # where `]` / `[` went: its gutter says so, its sign kept
                strip = Strip.join([cursor, strip.crop(0, 1), strip.crop(2)])
        return strip.crop(0, width)

    # ------------------------------------------------------------------ moving

    def _unpoint(self) -> None:
        if self.current is not None:
            self.current = None
            self.post_message(self.Unpointed())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Out of view, a pointed row would be where `]` goes on from and what the title
        # counts, unseen (G, a page down): `]` goes on from the screen's top instead.
        top = round(new_value)
        if self.current is not None and not top <= self.current < top + self.scrollable_content_region.height:
            self._unpoint()

    def _go(self, targets: list[int], step: int, point: bool) -> bool:
        """Go to the next (``step`` 1) or previous (-1) target after the current one (or
        the top of the screen): scrolled into view with a row of context above, and pointed
        at in the gutter when ``point``. False when there is none that way."""
        at = self.current if self.current is not None else round(self.scroll_y) - (step > 0)
        ahead = [t for t in targets if (t > at if step > 0 else t < at)]
        if not ahead:
            return False
        line = ahead[0] if step > 0 else ahead[-1]
        self.current = line if point else None
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if not top + 1 <= line < top + height - 1:
            self.scroll_to(y=max(line - 1, 0), animate=False, immediate=True)
        self.refresh()
        return True

    def change_at(self) -> tuple[int, int] | None:
        """Which change `]` / `[` went to, as (k, n): the k-th of n; None when on none."""
        if self.current is None or self.current not in self.changes:
            return None
        return self.changes.index(self.current) + 1, len(self.changes)

    def next_change(self, step: int) -> bool:
        if self.changes:
            return self._go(self.changes, step, point=True)
        return self._go(self.panes, step, point=False)

    def next_pane(self) -> None:
        """Scroll the next pane's title to the top (after the last, back to the first) and
        point at it: a pane near the end cannot come to the top, and colour alone would not
        say which pane is meant. `]` / `[` go on from there."""
        if not self.panes:
            self.current = None
            return
        self.pane = (self.pane + 1) % len(self.panes)
        self.current = self.panes[self.pane]
        self.scroll_to(y=self.panes[self.pane], animate=False, immediate=True)
        self.refresh()
