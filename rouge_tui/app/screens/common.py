"""What the table screen and the diff screen share: marking, notes, clearing and the export."""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static, TextArea

from rouge_tui.review import Review
from rouge_tui.safetext import editable, one_line, typed_as_is, visible
from rouge_tui.session import pair_text  # the screens say a build pair as the session does
from rouge_tui.store.marks import MARKS
from rouge_tui.store.notes import merged_note, note_said

# First in every screen's bindings: the footer always shows `?` and keeps `q` near it. As in
# less and tig, `q` in a view over the table (a diff, the walk, the history) closes it, and
# only the table's (or the suites list's) quits: a `q` in a diff lost the pair, the metric,
# the filter and the sort. `Q` quits from any view; both ask first while something is unsaved.
HELP = Binding("question_mark", "app.help", "help", id="help")
QUIT_ANYWHERE = Binding("Q", "app.quit", "quit", id="quit-anywhere", show=False)
APP_BINDINGS: list[BindingType] = [HELP, Binding("q", "app.quit", "quit", id="quit"), QUIT_ANYWHERE]
# Enter typed before the app has the terminal (as it starts) is read in the terminal's line
# mode, which makes it a newline: ctrl+j. Where enter is the first key
# a person types (the table, the list of suites), ctrl+j is enter too (j j enter typed at
# once opened nothing, the j's moved).
EARLY_ENTER = "ctrl+j"
VIEW_BINDINGS: list[BindingType] = [
    HELP,
    Binding("q", "back", "back", id="back"),
    Binding("escape", "back", "back", show=False),
    QUIT_ANYWHERE,
]
# The footer shows the three as one "a b u mark"; the help screen each on its own. `a`
# (accept), not `g`: `g` and `G` move, as in less and vim, and no movement key marks.
MARKING = Binding.Group("mark")
MARK_BINDINGS: list[BindingType] = [
    Binding(mark.key, f"mark('{mark.word}')", mark.help, id=f"mark-{mark.word}", group=MARKING)
    for mark in MARKS.values()
]
# Each screen puts these where they rank among its own keys (the footer's order).
NOTE = Binding("c", "note", "note", id="note")
EXPORT = Binding("e", "export", "export", id="export")
CLEAR = Binding("x", "clear_mark", "clear", id="clear-mark")


def describe(exc: BaseException) -> str:
    """One line for a person: the message, without a Python class name where the message
    speaks for itself (a suite's error names its file and line)."""
    from rouge_tui.errors import SuiteError

    text = str(exc) or type(exc).__name__
    if not isinstance(exc, (SuiteError, ValueError, OSError)):
        text = f"{type(exc).__name__}: {text}"
    return one_line(text, 300)


def mark(screen: Screen, review: Review, example_id: str, word: str, after: Callable[[], None]) -> None:
    """Mark the example: shown at once, saved off the UI thread (`RougeApp.save_marks`)."""
    before = review.get(example_id)
    review.set_mark(example_id, word, save=False)
    after()
    if before is not None and before.carried_from is not None and before.note.strip():
        # (a pass on marks: the note went from the row with no word; it is the other pair's)
        screen.notify(f"{one_line(example_id, 40)}: {word}; the note stays with the mark on "
                      f"{pair_text(before.carried_from)} (that pair, picked in h, shows it; c writes one here)", markup=False, timeout=6)
    else:
        screen.notify(f"{one_line(example_id, 40)}: {word}", markup=False, timeout=2)
    screen.app.save_marks(review, screen, after, "could not save the mark (kept in this session; mark again to retry)")


def edit_note(screen: Screen, review: Review, example_id: str, after: Callable[[], None]) -> None:
    shown = review.get(example_id)
    opened = shown.note if shown else ""

    # The last keep: the text typed, what it became, and the other session's note it met. A
    # keep again (a hang-up, then ctrl+s) meets its own result, not theirs: merged against
    # it, the typed text went in twice.
    last: dict[str, str] = {}

    def keep(note: str) -> str:
        """The note typed, the example's in this session; what became of it, in words, where
        another session's note came in since the editor opened on ``opened`` (shown here, the
        store would take it as seen, and the save replace it: `merged_note` against what the
        editor opened on). Also what a hang-up keeps."""
        if last.get("typed") == note:
            return ""
        now = review.get(example_id)
        theirs = now.note if now is not None and now.carried_from is None else opened
        if last and theirs == last["result"]:  # unchanged since: ours
            theirs = last["theirs"]
        merged = merged_note(opened, note, theirs)
        review.set_mark(example_id, None, merged, save=False)
        last.update(typed=note, result=merged, theirs=theirs)
        return note_said(opened, note, theirs, merged) if merged != note else ""

    def save(note: str | None) -> None:
        if note is None:
            return
        if said := keep(note):
            screen.notify(said, severity="warning", markup=False, timeout=10)
        after()
        screen.app.save_marks(review, screen, after, "could not save the note (kept in this session; c, then ctrl+s, to retry)",
                              done=f"note saved for {one_line(example_id, 40)}")

    # A note whose save failed is still the session's: it comes back here.
    screen.app.push_screen(NoteScreen(example_id, shown.note if shown else "", keep), save)


def clear(screen: Screen, review: Review, example_id: str, after: Callable[[], None]) -> None:
    """``x``: clear this pair's mark and note, after a yes (nothing typed is lost to one key)."""
    shown = review.get(example_id)
    if shown is None or shown.carried_from is not None:
        carried = "" if shown is None else f" (the {shown.word} mark shown is carried from another pair; marking replaces it here)"
        screen.notify(f"no mark made on this pair to clear{carried}", markup=False, timeout=5)
        return
    what = f"the {shown.word} mark" + (" and its note" if shown.note else "")

    def answer(yes: bool | None) -> None:
        if not yes:
            screen.notify("kept", markup=False, timeout=2)
            return
        now = review.get(example_id)
        if now != shown:  # another session's, shown while the question was up: not what was asked
            if now is None or now.carried_from is not None:
                said = "cleared it while you were asked: nothing left here to clear"
            else:
                said = (f"changed this mark while you were asked (now {now.word}{' with a note' if now.note else ''}): "
                        "kept; x again clears it")
            screen.notify(f"{one_line(example_id, 40)}: another session {said}", severity="warning", markup=False,
                          timeout=8)
            return
        if review.clear(example_id, save=False) is None:
            screen.notify(f"{one_line(example_id, 40)}: nothing was cleared (no mark made on this pair is held)",
                          severity="warning", markup=False, timeout=5)
            return
        after()
        now = review.get(example_id)
        carried = "" if now is None or now.carried_from is None else (
            f"; the {now.word} mark carried from {pair_text(now.carried_from)} shows again")
        screen.notify(f"{one_line(example_id, 40)}: {what} cleared{carried}", markup=False, timeout=5 if carried else 3)
        screen.app.save_marks(review, screen, after, "could not save clearing the mark")

    screen.app.push_screen(ConfirmScreen(f"Clear {what} on {one_line(example_id, 60)}?"), answer)


class Answers:
    """Mixed into every screen that closes itself. Textual's ``dismiss`` pops whatever screen
    is on top, so the keys of one burst still queued for a screen that had answered (``x``
    then ``j k``: one no, then two more) closed the screens under it, down to the app's last
    (a crash), and a note editor with what was typed in it. A screen answers once; one that a
    key of the same burst covered (``enter ?`` in the history list: help over it) answers when
    it is uncovered."""

    _answer: tuple[object] | None = None  # the answer, once given

    def dismiss(self, result=None):
        if self._answer is not None:
            return AwaitComplete.nothing()
        self._answer = (result,)
        return self._give()

    def _give(self):
        if self.app.screen is not self:  # covered, or gone already
            return AwaitComplete.nothing()
        return super().dismiss(self._answer[0])

    def on_screen_resume(self) -> None:
        if self._answer is not None:
            self._give()


# j k g G in a box of text (`BoxedText`), as in the table and the diff: a screen's BINDINGS
# take them (Textual reads bindings from widget classes, not from a mixin).
BOX_KEYS: list[BindingType] = [
    Binding("j", "scroll(1)", "down", show=False),
    Binding("k", "scroll(-1)", "up", show=False),
    Binding("g", "edge(False)", "top", show=False),
    Binding("G", "edge(True)", "bottom", show=False),
]


class BoxedText:
    """A screen of text in a scrolling box (``#help-box``) that is laid out for the box's
    width, again on each resize: a line too long for it goes on under its own indent, not at
    column 0. `text` gives it for a width (None: before the first layout, lines whole);
    `BOX_KEYS` move in it."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self.text(), id="boxed-text")

    def on_resize(self) -> None:
        box = self.query_one("#help-box", VerticalScroll)  # type: ignore[attr-defined]
        self.query_one("#boxed-text", Static).update(self.text(box.scrollable_content_region.width))  # type: ignore[attr-defined]

    def text(self, width: int | None = None) -> Text:
        raise NotImplementedError

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_relative(y=lines, animate=False)  # type: ignore[attr-defined]

    def action_edge(self, end: bool) -> None:
        box = self.query_one("#help-box", VerticalScroll)  # type: ignore[attr-defined]
        if end:
            box.scroll_end(animate=False)
        else:
            box.scroll_home(animate=False)


def edited(note: str, shown: str, typed: str) -> str:
    """``note``, shown in the editor as ``shown`` (`editable`), with the edit that made
    ``typed`` of it: the stretch between what the two share at each end, widened to whole
    characters of the note."""
    ends = [0]  # where each of the note's characters ends in ``shown``
    for character in note:
        ends.append(ends[-1] + len(editable(character)))
    if ends[-1] != len(shown):  # (not this note's showing: the text as typed)
        return typed
    head = 0
    while head < min(len(shown), len(typed)) and shown[head] == typed[head]:
        head += 1
    # Back to where a character of the note begins: the end is measured from there, else a
    # shared start that stopped inside an escape took from the end what the edit left.
    head = ends[bisect.bisect_right(ends, head) - 1]
    tail = 0
    while tail < min(len(shown), len(typed)) - head and shown[-1 - tail] == typed[-1 - tail]:
        tail += 1
    first = bisect.bisect_right(ends, head) - 1  # the note's characters wholly before the edit
    last = bisect.bisect_left(ends, len(shown) - tail)  # ... and from where they are wholly after it
    return note[:first] + typed[ends[first]:len(typed) - (len(shown) - ends[last])] + note[last:]


class NoteArea(TextArea):
    """The note's text box: what a person types goes in, a ZWJ, ZWNJ or no-break space too
    (Textual's takes only what ``isprintable`` says: "می‌خواهم" typed became "میخواهم", an
    emoji family two faces, and the app said "note saved")."""

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if character is None or len(character) != 1 or event.is_printable or unicodedata.category(character) == "Cc":
            return  # (a control character typed is a key: ctrl+s)
        event.stop()
        event.prevent_default()  # (the text box's own handler, which would drop it, is not run)
        # A bidi control (it reorders the line it is in) or a line separator as its visible
        # escape, as the editor shows one pasted: dropped, the note was saved without it.
        self.replace(character if typed_as_is(character) else visible(character), *self.selection)


class NoteScreen(Answers, ModalScreen[str | None]):
    """A note for one example: ctrl+s saves, escape leaves it as it was (after a yes when
    something was typed: nothing the user wrote is lost to one key)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "save", id="save"),
        Binding("escape", "cancel", "cancel", id="cancel"),
    ]

    def __init__(self, example_id: str, note: str, keep: Callable[[str], object] | None = None) -> None:
        super().__init__()
        self.example_id = example_id
        self.note = note
        # What the editor shows: a control character (an escape sequence in a marks file
        # written by hand or by another tool) as its visible escape, never to the terminal;
        # what people type (emoji joiners, Persian's ZWNJ) as it is.
        self.shown = editable(note)
        self.keep = keep  # records a note at once, for `keep_typed` (the caller saves it)

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Static(f"note for {one_line(self.example_id, 60)}", id="note-title", markup=False)
            yield NoteArea(self.shown, id="note-text", soft_wrap=True)
            yield Static("ctrl+s save · escape cancel (asks first if you typed)", id="note-help", markup=False)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)  # what is typed adds to the note
        area.focus()

    @property
    def typed(self) -> bool:
        """Whether the note differs from the one it opened with (quitting asks first then);
        not before the editor is there."""
        areas = self.query(TextArea)
        return bool(areas) and areas.first().text != self.shown

    def keep_typed(self) -> None:
        """Keep what is typed as the note, at once and without the event loop, for the
        caller to save: the terminal went away (a dropped SSH session is no decision to
        throw the note away)."""
        if self.keep is not None and self.typed:
            self.keep(self.text())

    def text(self) -> str:
        """The note as it stands: the one it opened with, the stretch typed over laid on it.
        An escape shown outside that stretch stays the character it stands for (an edit
        before a BEL made "\\x07" four characters of text)."""
        typed = self.query_one(TextArea).text if self.typed else self.shown
        return edited(self.note, self.shown, typed)

    def action_save(self) -> None:
        self.dismiss(self.text())

    def action_cancel(self) -> None:
        if not self.typed:
            self.dismiss(None)
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Throw away what you typed in this note?"), answer)


class ConfirmScreen(Answers, ModalScreen[bool]):
    """A yes/no question: ``y`` says yes, anything else no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes", id="yes"),
        Binding("n,escape", "answer(False)", "no", id="no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.question, markup=False)
            yield Static("y yes · n or escape no", id="confirm-help", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_key(self, event) -> None:
        if event.key not in ("y", "n", "escape"):
            event.stop()
            self.dismiss(False)
