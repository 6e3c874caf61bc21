"""The questions and the note editor (rouge_tui/app/screens/common.py)."""

from __future__ import annotations

import pytest
from app_helpers import (
    app_for,
    burst,
    current_id,
    press,
    review_screen,
    screen_text,
    settle,
    type_text,
)

from rouge_tui.app.screens.common import ConfirmScreen, NoteScreen
from rouge_tui.app.screens.review import ReviewScreen

pytestmark = pytest.mark.slow


async def test_x_asks_first_and_n_keeps_the_mark_and_note() -> None:
    """Issue 11, 3: nothing the user wrote is lost to one key."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "b", "c")
        assert isinstance(app.screen, NoteScreen)
        await type_text(pilot, "truncated by the new prompt")
        await press(pilot, "ctrl+s")
        review = review_screen(app).review
        example = current_id(app)
        await press(pilot, "x")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "n")
        assert review.get(example).word == "regression"
        assert review.get(example).note == "truncated by the new prompt"
        await press(pilot, "x", "y")
        assert review.get(example) is None


async def test_a_question_is_never_hidden_behind_notifications() -> None:
    """Issue 38, 7: six stacked toasts hid "Quit and lose what is not saved?" at 80x24 until
    they faded."""
    app = app_for()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "b")
        for i in range(6):
            app.notify(f"review written to /home/someone/.local/share/rouge-tui/reviews/suite-{i}.md", timeout=60)
        await pilot.pause(0.3)
        await press(pilot, "x")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ConfirmScreen)
        text = screen_text(app)
        assert f"Clear the regression mark on {current_id(app)}?" in text and "y yes · n or escape no" in text, text
        await press(pilot, "n")
        await pilot.pause(0.3)
        assert "suite-5.md" in screen_text(app)  # and the toasts come back after the answer


async def test_escape_in_the_note_editor_asks_before_throwing_away_what_was_typed() -> None:
    """Issue 11, 3: nothing the user wrote is lost to one key."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        review = review_screen(app).review
        example = current_id(app)
        await press(pilot, "c", "escape")  # nothing typed: escape just closes
        assert isinstance(app.screen, ReviewScreen) and review.get(example) is None
        await press(pilot, "c")
        await type_text(pilot, "half a thought")
        await press(pilot, "escape")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Throw away" in screen_text(app) and "y yes" in screen_text(app)
        await press(pilot, "n")
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.query_one("#note-text").text == "half a thought"
        await press(pilot, "escape", "escape")  # escape answers no, too
        assert isinstance(app.screen, NoteScreen)
        await press(pilot, "escape", "y")
        assert isinstance(app.screen, ReviewScreen) and review.get(example) is None


async def test_stray_keys_after_a_question_is_answered_close_nothing_under_it() -> None:
    """A yes/no question answers once: `x` then `j k` in one burst said no to clearing and
    then closed the screens under it, down to a crash (ScreenStackError); `c`, typing,
    `escape`, then `a b` threw the typed note away without a yes."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        review = review_screen(app).review
        example = current_id(app)
        await press(pilot, "a", "x")
        assert isinstance(app.screen, ConfirmScreen)
        await burst(pilot, "j", "k", "l")
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        assert review.get(example).word == "fine"
        await press(pilot, "c")
        await type_text(pilot, "important note")
        await press(pilot, "escape")
        assert isinstance(app.screen, ConfirmScreen)
        await burst(pilot, "a", "b")
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.query_one("#note-text").text.startswith("important note")
        await burst(pilot, "ctrl+s", "ctrl+s", "ctrl+s")
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        assert review.get(example).note.startswith("important note")


async def test_ctrl_q_in_the_note_editor_asks_before_the_typed_note_is_lost() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "c")
        await type_text(pilot, "half a thought")
        await press(pilot, "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        assert "not saved" in screen_text(app)
        await press(pilot, "n")
        assert isinstance(app.screen, NoteScreen) and app.is_running
        assert app.screen.query_one("#note-text").text == "half a thought"
        await press(pilot, "ctrl+q", "y")
    assert app.return_code == 0


async def test_the_note_editor_shows_control_characters_escaped_and_adds_at_the_end() -> None:
    """A note with an escape sequence, a bell and a bidi override (a marks file written by
    hand or another tool) opens with each as its visible escape, never sent to the terminal;
    what people type (an emoji's VS16 and ZWJ, Persian's ZWNJ) as it is; saved untouched it
    stays as it was; typing adds after the note, not before it, and keeps the rest."""
    hostile = "NOTE \x1b[2J\x1b]0;TITLE\x07 \u202eRTL\u202c\nsecond line\tend"
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        review = review_screen(app).review
        example = current_id(app)
        review.set_mark(example, "fine", hostile)
        await press(pilot, "c")
        area = app.screen.query_one("#note-text")
        assert area.text == "NOTE \\x1b[2J\\x1b]0;TITLE\\x07 \\u202eRTL\\u202c\nsecond line\tend"
        assert area.cursor_location == (1, len("second line\tend"))
        assert not app.screen.typed
        await press(pilot, "ctrl+s")
        assert review.get(example).note == hostile
        await press(pilot, "c")
        await type_text(pilot, " more")
        assert app.screen.query_one("#note-text").text.endswith("second line\tend more")
        await press(pilot, "ctrl+s")
        assert review.get(example).note == hostile + " more"
        typed_by_people = "⚠\ufe0f regression 👩\u200d💻 می\u200cخواهم"
        review.set_mark(example, "regression", typed_by_people)
        await press(pilot, "c")
        assert app.screen.query_one("#note-text").text == typed_by_people
        await type_text(pilot, " ok")
        await press(pilot, "ctrl+s")
        assert review.get(example).note == typed_by_people + " ok"


def test_an_edit_anywhere_in_a_note_keeps_the_control_characters_it_did_not_touch() -> None:
    """A pass on marks: a note holding a BEL, shown in the editor as its escape, was edited
    at its start ("NB: "), and saved with the escape as four characters of text: only an
    addition at the end kept it. An edit anywhere keeps what it did not touch."""
    from rouge_tui.app.screens.common import edited
    from rouge_tui.safetext import editable

    note = "bell\x07here\nline2"
    shown = editable(note)
    assert shown == "bell\\x07here\nline2"  # (what the editor shows)
    assert edited(note, shown, "NB: " + shown) == "NB: bell\x07here\nline2"
    assert edited(note, shown, shown + " more") == "bell\x07here\nline2 more"
    assert edited(note, shown, shown.replace("here", "there")) == "bell\x07there\nline2"
    assert edited(note, shown, shown.replace("line2", "")) == "bell\x07here\n"
    assert edited(note, shown, shown) == note
    assert edited(note, shown, "") == ""
    # The escape itself edited: what was typed, as typed.
    assert edited(note, shown, shown.replace("\\x07", "\\x0")) == "bell\\x0here\nline2"
    assert edited("plain", "plain", "a plain note") == "a plain note"
    # A review: the shared start stopped inside the next escape, and took the end with it.
    assert edited("\x07\x08", "\\x07\\x08", "\\x08") == "\x08"
    assert edited("\x07", "\\x07", "\\\\x07") == "\\\x07"


def test_every_small_edit_keeps_what_it_did_not_touch() -> None:
    """Exact enumeration: every note of up to three characters of letters, spaces and control
    characters, every stretch of whole characters replaced by every text of up to two
    characters of a backslash escape's: what is saved shows as what was typed, and each
    control character outside the stretch is kept (a review found 894 such edits that
    turned one into text)."""
    import itertools

    from rouge_tui.app.screens.common import edited
    from rouge_tui.safetext import editable

    controls = "\x07\x08\u202e"
    for size in range(4):
        for note in map("".join, itertools.product(["a", " ", *controls], repeat=size)):
            shown = editable(note)
            ends = list(itertools.accumulate((len(editable(c)) for c in note), initial=0))
            for a, b in itertools.combinations_with_replacement(range(len(note) + 1), 2):
                for k in range(3):
                    for typed_in in map("".join, itertools.product(["a", "\\", "x", "0", "7"], repeat=k)):
                        typed = shown[: ends[a]] + typed_in + shown[ends[b]:]
                        got = edited(note, shown, typed)
                        assert editable(got) == typed, (note, typed, got)
                        kept = sum(note[:a].count(c) + note[b:].count(c) for c in controls)
                        assert sum(got.count(c) for c in controls) >= kept, (note, a, b, typed_in, got)
