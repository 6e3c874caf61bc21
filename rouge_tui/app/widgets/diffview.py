"""The diff view: one example against its reference, or its two outputs against each other.

It draws `rouge_tui.diff`'s pieces as Rich ``Text`` built piece by piece (every piece of
suite text through ``safetext.visible``, never markup), wraps them at word boundaries for
the width it has, and shows the lines through the Line API. Nothing is told by colour alone:

- against the reference, the words that count are bold and underlined, and the reference
  marks who matched each word with a style and a legend;
- baseline vs candidate reads like prose: removed runs in ``[-…-]``, added runs in
  ``{+…+}``, and every line a change touches starts with ``-``, ``+`` or ``±``.

Side by side from `WIDE` columns, stacked below (the outputs then merge into one text).
``]`` / ``[`` go to the next / previous change, ``tab`` to the next pane.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rouge_tui.diff import LEGEND, ExampleDiff, Piece, annotate, fold, grounding_marks
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
    "match": Style(reverse=True),
    "flag": Style(bold=True, reverse=True, color="yellow"),
    "newfig": Style(bold=True, color="red"),
}
MARKERS = {"removed": ("[-", "-]"), "added": ("{+", "+}")}
# An opening marker's style says "a changed run starts here" to the change targets, as the
# grounding marks' styles do.
OPENING = {kind: STYLES[kind] + Style(bold=True, overline=False) for kind in MARKERS}
TARGETS = {*OPENING.values(), STYLES["flag"], STYLES["newfig"]}
CURRENT = Style(bold=True, reverse=True)
TITLE = Style(bold=True, underline=True)
NOTE = Style(italic=True)
ARITHMETIC = Style(bold=True)


@dataclass
class DiffModel:
    """Everything the view draws for one example (made by the diff screen)."""

    diff: ExampleDiff
    words: tuple[list[Piece], list[Piece], list[Piece]]  # baseline, candidate, merged
    names: tuple[str, str]  # the two builds, as shown
    notes: list[str] = field(default_factory=list)  # e.g. a text too long to align in full
    query: str = ""  # the table's text filter: shown reversed where it matches
    grounding: object = None  # rouge_tui.analysis.grounding.Grounding of the example, if made

    def marks(self, role: str) -> list:
        """Where the grounding marks go on the baseline's or the candidate's text."""
        side = getattr(self.grounding, role, None) if self.grounding is not None else None
        return grounding_marks(side) if side is not None else []


@dataclass
class Section:
    title: Text
    bodies: list[Text]  # one, or two side by side
    foot: list[Text] = field(default_factory=list)
    gutter: bool = False


def pieces_text(pieces: Sequence[Piece], query: str = "", markers: bool = True) -> Text:
    """The pieces as one Text: suite text made visible, styled by kind, with markers."""
    text = Text()
    for piece in pieces:
        shown = visible(piece.text).replace("\t", "    ")
        kind = piece.kind
        if markers and kind in MARKERS:
            opening, closing = MARKERS[kind]
            text.append(opening, OPENING[kind])
            text.append(shown, STYLES[kind])
            text.append(closing, STYLES[kind] + Style(bold=True))
        else:
            text.append(shown, STYLES.get(kind, Style()))
    if query:
        text.highlight_words([visible(query)], STYLES["match"], case_sensitive=False)
    return text


def legend() -> Text:
    text = Text("matched by: ")
    for kind, words in (("both", "both"), ("baseline", "baseline only"), ("candidate", "candidate only")):
        text.append(words, STYLES[kind])
        text.append("  ")
    text.append("neither")
    return text


def _gutter(line: Text) -> tuple[str, bool]:
    """The line's gutter mark (``-``, ``+``, ``±`` where a change touches it) and whether a
    change (a changed run, a grounding mark) starts on it."""
    kinds = {span.style for span in line.spans}
    removed, added = STYLES["removed"] in kinds, STYLES["added"] in kinds
    mark = "± " if removed and added else "- " if removed else "+ " if added else "  "
    return mark, bool(kinds & TARGETS)


def _strip(console: Console, line: Text, width: int, base: Style) -> Strip:
    """A wrapped line as a Strip ``width`` cells wide, the widget's style under every cell."""
    segments = [Segment(seg.text, base + seg.style if seg.style else base) for seg in line.render(console)]
    return Strip(segments).adjust_cell_length(width, base)


class DiffView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    DiffView { scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "up", show=False),
        Binding("down,j", "scroll_down", "down", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown,space", "page_down", "page down", show=False),
        Binding("home", "scroll_home", "top", show=False),
        Binding("end", "scroll_end", "bottom", show=False),
    ]

    mode: reactive[str] = reactive("reference", init=False)
    folded: reactive[bool] = reactive(True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: DiffModel | None = None
        self.strips: list[Strip] = []
        self.changes: list[int] = []  # lines where a change starts (`]`, `[`)
        self.panes: list[int] = []  # lines where a pane starts (`tab`)
        self.folds = 0  # how many stretches the fold folded
        self.current: int | None = None  # the line of the change `]` / `[` last went to
        self.pane = 0  # the pane `tab` last went to
        self._width = 0

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

    # ------------------------------------------------------------------ building the lines

    def sections(self, model: DiffModel, wide: bool) -> list[Section]:
        diff = model.diff
        base_name, cand_name = (one_line(name, 40) for name in model.names)
        if self.mode == "reference":
            sides = []
            for role, name, side in (("baseline", base_name, diff.baseline), ("candidate", cand_name, diff.candidate)):
                pieces = annotate(side.pieces(), model.marks(role))
                sides.append((Text(f" {role} · {name} ", TITLE), pieces_text(pieces, model.query), Text(side.arithmetic(), ARITHMETIC)))
            ref = diff.reference
            label = " reference" + (f" {ref.index + 1} of {ref.count}" if ref.count > 1 else "") + " "
            reference = Section(Text(label, TITLE), [pieces_text(ref.pieces(), model.query)],
                                [Text(visible(ref.note), NOTE)] * bool(ref.note) + [legend()])
            if wide:
                top = Section(Text.assemble(sides[0][0], "  ", sides[1][0]), [sides[0][1], sides[1][1]], [sides[0][2], sides[1][2]])
                return [top, reference]
            return [Section(t, [b], [a]) for t, b, a in sides] + [reference]
        base, cand, merged = model.words
        base = annotate(base, model.marks("baseline"))
        cand = annotate(cand, model.marks("candidate"))
        merged = annotate(merged, model.marks("candidate"), skip=frozenset({"removed"}))
        if self.folded:
            base, cand, merged = fold(base), fold(cand), fold(merged)
        title = Text(f" {base_name} → {cand_name} ", TITLE)
        if wide:
            return [Section(title, [pieces_text(base, model.query), pieces_text(cand, model.query)], gutter=True)]
        return [Section(title, [pieces_text(merged, model.query)], gutter=True)]

    def rebuild(self) -> None:
        model = self.model
        width = self.size.width - 1  # the scrollbar's column is always kept (gutter: stable)
        self._width = self.size.width
        self.current = None
        self.pane = 0
        if model is None or width <= 4:
            self.strips, self.changes, self.panes = [], [], []
            self.refresh()
            return
        console = self.app.console
        base = self.rich_style
        wide = width >= WIDE
        strips: list[Strip] = []
        self.changes, self.panes = [], []
        self.folds = sum(1 for p in fold(model.words[2]) if p.kind == "fold")
        for note in model.notes:
            strips += self._wrap(console, Text("! " + one_line(note), NOTE), width, base)
        if model.marks("baseline") or model.marks("candidate"):
            legend = Text()
            legend.append("[?]", STYLES["flag"])
            legend.append(LEGEND.removeprefix("[?]").split("«41»")[0], NOTE)
            legend.append("«41»", STYLES["newfig"])
            legend.append(LEGEND.split("«41»")[1], NOTE)
            strips += self._wrap(console, legend, width, base)
        for section in self.sections(model, wide):
            self.panes.append(len(strips))
            strips += self._wrap(console, section.title, width, base)
            columns = len(section.bodies)
            column = (width - 3 * (columns - 1)) // columns
            wrapped = [self._lines(console, body, column - (2 if section.gutter else 0)) for body in section.bodies]
            inner = column - (2 if section.gutter else 0)
            for row in range(max(map(len, wrapped))):
                parts: list[Strip] = []
                starts = False
                for number, lines in enumerate(wrapped):
                    if number:
                        parts.append(Strip([Segment(" │ ", base)]))
                    line = lines[row] if row < len(lines) else Text()
                    if section.gutter:
                        mark, opens = _gutter(line)
                        starts = starts or opens
                        parts.append(Strip([Segment(mark, base + Style(bold=True))]))
                    parts.append(_strip(console, line, inner, base))
                if starts:
                    self.changes.append(len(strips))
                strips.append(Strip.join(parts).adjust_cell_length(width, base))
            for foot in section.foot:
                strips += self._wrap(console, foot, width, base)
            strips.append(Strip.blank(width, base))
        self.strips = strips
        self.virtual_size = Size(width, len(strips))
        self.refresh()

    @staticmethod
    def _lines(console: Console, text: Text, width: int) -> list[Text]:
        return list(text.wrap(console, max(width, 1), overflow="fold")) or [Text()]

    def _wrap(self, console: Console, text: Text, width: int, base: Style) -> list[Strip]:
        return [_strip(console, line, width, base) for line in self._lines(console, text, width)]

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self.strips):
            return Strip.blank(width, self.rich_style)
        strip = self.strips[index]
        if index == self.current:  # where `]` / `[` went: its gutter says so
            strip = Strip.join([Strip([Segment("▶ ", self.rich_style + CURRENT)]), strip.crop(2)])
        return strip.crop(0, width)

    # ------------------------------------------------------------------ moving

    def _go(self, targets: list[int], step: int, mark: bool) -> bool:
        """Go to the next (``step`` 1) or previous (-1) target after the current one (or
        the top of the screen): scrolled into view with a line of context above, and marked
        in the gutter when ``mark``. False when there is none that way."""
        at = self.current if self.current is not None else round(self.scroll_y) - (step > 0)
        ahead = [t for t in targets if (t > at if step > 0 else t < at)]
        if not ahead:
            return False
        line = ahead[0] if step > 0 else ahead[-1]
        self.current = line if mark else None
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if not top + 1 <= line < top + height - 1:
            self.scroll_to(y=max(line - 1, 0), animate=False, immediate=True)
        self.refresh()
        return True

    def next_change(self, step: int) -> bool:
        if self.changes:
            return self._go(self.changes, step, mark=True)
        return self._go(self.panes, step, mark=False)

    def next_pane(self) -> None:
        """Scroll the next pane's title to the top (after the last, back to the first)."""
        self.current = None
        if not self.panes:
            return
        self.pane = (self.pane + 1) % len(self.panes)
        self.scroll_to(y=self.panes[self.pane], animate=False, immediate=True)
        self.refresh()
