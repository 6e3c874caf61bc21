"""What the app shows and does when the state around it breaks: a full disk, damaged or
unreadable state files, another session's marks, references edited since, an output too long to align.

The store's own handling is tested in test_marks.py and test_log.py; here, the app's side:
it opens anyway, says what happened in words that are true, keeps what was typed."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from app_helpers import app_for, press, review_screen, settle, type_text

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.common import NoteScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.review import Review
from rouge_tui.store import paths
from rouge_tui.store.log import ReviewLog

pytestmark = pytest.mark.slow


def small_suite(root: Path, name: str | None = None, big: str | None = None) -> Path:
    (root / "builds").mkdir(parents=True)
    if name:
        (root / "suite.toml").write_text(f'name = "{name}"\n')
    refs = {"a": "the cat sat on the mat", "b": "a dog ran in the park", "c": "birds sing at dawn"}
    base = {"a": "the cat sat", "b": "a dog ran in the park today", "c": "birds sing"}
    cand = {"a": "a cat sat on a mat", "b": "the dog", "c": big or "birds sing at dawn daily"}
    for file, rows, key in (("references.jsonl", refs, "reference"), ("builds/1.jsonl", base, "output"), ("builds/2.jsonl", cand, "output")):
        (root / file).write_text("".join(json.dumps({"id": i, key: t}) + "\n" for i, t in rows.items()))
    return root


def said(app: RougeApp, severity: str | None = None) -> list[str]:
    return [n.message for n in app._notifications if severity is None or n.severity == severity]


async def another_session(pilot, screen, change: Callable[[Review], object], shown: Callable[[], object]) -> None:
    """``change`` made by another session (a Review of its own on the same suite), then the
    wait until this one shows it (``shown``), as the app polls the marks file."""
    change(Review(screen.review.analysis, screen.review.texts))
    for _ in range(60):
        await pilot.pause(0.1)
        if shown():
            return
    raise AssertionError("the other session's change was never shown here")


async def typed_while_another_saves(pilot, typed: str, word: str, note: str):
    """A note typed in the editor here while another session saves ``word`` and ``note`` on
    the same example, shown here before anything is saved: this session's screen and example."""
    await settle(pilot)
    screen = review_screen(pilot.app)
    example = screen.current_id()
    await press(pilot, "c")
    await type_text(pilot, typed)
    await another_session(pilot, screen, lambda other: other.set_mark(example, word, note),
                          lambda: getattr(screen.review.get(example), "note", ""))
    return screen, example


async def asked_to_clear(pilot):
    """The first row marked unsure here, and x pressed: the question up, this session's
    screen and example."""
    await settle(pilot)
    screen = review_screen(pilot.app)
    example = screen.current_id()
    await press(pilot, "u")
    await settle(pilot)
    await press(pilot, "x")
    return screen, example


async def test_a_failed_save_says_so_keeps_the_mark_and_note_and_a_retry_saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        example = screen.current_id()
        store = screen.review.store

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        with monkeypatch.context() as patch:
            patch.setattr(os, "fsync", full)
            await press(pilot, "b", "c")
            assert isinstance(app.screen, NoteScreen)
            await type_text(pilot, "the header is duplicated, see line 2")
            await press(pilot, "ctrl+s")
        errors = said(app, "error")
        assert any("could not save the mark" in e and "No space left on device" in e for e in errors)
        # the way to retry that it says is the one that works: enter in a note is a new line
        assert any("could not save the note" in e and "c, then ctrl+s, to retry" in e for e in errors)
        assert not store.path.exists()  # nothing half-written reached the disk
        shown = screen.review.get(example)
        assert (shown.word, shown.note) == ("regression", "the header is duplicated, see line 2")
        assert "regression+" in screen.table.render_line(1).text  # the row shows it, note and all
        await press(pilot, "c")
        assert app.screen.query_one("TextArea").text == "the header is duplicated, see line 2"
        await press(pilot, "ctrl+s")  # the retry
    entries = json.loads(store.path.read_text(encoding="utf-8"))["marks"]
    assert [(e["id"], e["mark"], e["note"]) for e in entries] == [(example, "regression", "the header is duplicated, see line 2")]


async def test_the_app_opens_and_says_so_with_a_corrupt_marks_file_and_log(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite", name="corrupt state")
    marks = paths.data_dir() / "marks" / f"{paths.safe_name('corrupt state', 40)}.json"
    marks.parent.mkdir(parents=True)
    marks.write_bytes(b"{half a file")
    log = ReviewLog("corrupt state")
    log.path.parent.mkdir(parents=True)
    log.path.write_bytes(b'{"entries": [')
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert review_screen(app).review is not None  # the review opened
        await press(pilot, "a")  # and marking works: a new file
    warnings = said(app, "warning")
    assert any("marks file" in w and "unreadable" in w and "kept it as" in w for w in warnings)
    assert any("review log" in w and "unreadable" in w for w in warnings)
    aside = [p for p in marks.parent.iterdir() if ".corrupt-" in p.name]
    assert [p.read_bytes() for p in aside] == [b"{half a file"]
    assert [e["mark"] for e in json.loads(marks.read_text())["marks"]] == ["fine"]


async def test_the_app_opens_with_a_file_where_the_data_directory_belongs(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite")
    blocker = paths.data_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"x")
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "a")
        assert screen.review.get(screen.current_id()).word == "fine"  # kept in the session
    assert any("could not record the review" in w for w in said(app, "warning"))
    assert any("could not save the mark" in e for e in said(app, "error"))
    assert blocker.read_bytes() == b"x"


async def test_another_sessions_mark_of_the_same_example_is_replaced_and_told(tmp_path: Path) -> None:
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        example = screen.current_id()
        # The other session marks it within the same second as we look (our view is the
        # one from before), then we mark it too.
        other = Review(screen.review.analysis, screen.review.texts)
        other.set_mark(example, "fine")
        await press(pilot, "b")
        assert any("another session had marked this example fine; replaced with regression" in w for w in said(app, "warning"))
        entries = json.loads(screen.review.store.path.read_text())["marks"]
        assert [e["mark"] for e in entries if e["id"] == example] == ["regression"]


async def test_a_note_on_an_example_another_session_marked_keeps_their_mark(tmp_path: Path) -> None:
    """Weak spot of issue 39: a note added on an example another session had marked
    "regression" since replaced the mark with "unsure". The mark stays, the note is added,
    the row shows the mark once saved, and the notice says so."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        example = screen.current_id()
        other = Review(screen.review.analysis, screen.review.texts)
        other.set_mark(example, "regression")  # our view is the one from before
        await press(pilot, "c")
        await type_text(pilot, "seen in the diff")
        await press(pilot, "ctrl+s")
        await settle(pilot)
        shown = screen.review.get(example)
        row = screen.table.render_line(1).text
    entries = json.loads(screen.review.store.path.read_text())["marks"]
    assert [(e["id"], e["mark"], e["note"]) for e in entries] == [(example, "regression", "seen in the diff")]
    assert (shown.word, shown.note) == ("regression", "seen in the diff") and "regr" in row
    assert any("another session had marked this example regression since; kept that mark, with your note" in w
               for w in said(app, "warning"))


async def test_the_overview_says_the_references_changed(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    references = suite / "references.jsonl"
    references.write_text(references.read_text().replace("the cat sat on the mat", "the cat sat on a mat"))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen.query_one("Overview").lines(review_screen(app).analysis.figures, 78)[0].plain
        assert "refs changed since" in first
        assert any(w.startswith("references changed since") for w in said(app, "warning"))


async def test_marks_made_against_earlier_references_still_show_stale(tmp_path: Path) -> None:
    """Issue 12, 7: nothing the user wrote becomes invisible when a reference is edited."""
    suite = small_suite(tmp_path / "suite")
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "b")
        example = review_screen(app).current_id()
    references = suite / "references.jsonl"
    references.write_text(references.read_text().replace("park", "garden"))
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = review_screen(app).review.get(example)
        assert shown.word == "regression" and shown.stale and "earlier references" in shown.reason
        assert any("regression?" in review_screen(app).table.render_line(y).text for y in range(1, 4))


async def test_a_marks_file_damaged_while_the_app_is_open_is_rewritten_from_the_session(tmp_path: Path) -> None:
    """Issue 12, 8: three marks acknowledged, the file truncated from outside, a fourth mark:
    the file holds all four, and the notice says the file was damaged from outside."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "a", "down", "b", "down", "u")
        screen.review.store.path.write_bytes(b'{"marks": [{"id": "a", "ma')
        await press(pilot, "up", "a")
        warnings = said(app, "warning")
    assert any("damaged from outside" in w for w in warnings), warnings
    assert not any("another session" in w for w in warnings)
    entries = json.loads(screen.review.store.path.read_text())["marks"]
    assert len(entries) == 3 and {e["mark"] for e in entries} == {"fine", "unsure"}


@pytest.mark.parametrize("who", ["report", "the app's own check"])
async def test_a_marks_file_set_aside_while_the_app_is_open_is_written_back_at_once(tmp_path: Path, who: str) -> None:
    """Issue 39, 13: a damaged marks file set aside (by a report, or by the app's periodic
    look at it) was followed by a look that found no file and emptied the session's marks;
    the next mark was saved alone. The marks stay shown, and are written back at once."""
    from rouge_tui import cli

    suite = small_suite(tmp_path / "suite")
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        first, second = screen.analysis.figures.ids[:2]
        await press(pilot, "b", "down", "u")
        path = screen.review.store.path
        damaged = path.read_bytes()[:30]
        path.write_bytes(damaged)  # from outside, while the app is open
        if who == "report":
            assert cli.main(["report", str(suite), "--format", "json"]) in (0, 1)
            assert not path.exists()  # the report set it aside
        for _ in range(2):  # the periodic look, twice (the second once found no file)
            screen.check_marks()
            await settle(pilot)
        shown = {i: s.word for i, s in screen.review.shown().items()}
        warnings = said(app, "warning")
    assert shown == {first: "regression", second: "unsure"}
    entries = json.loads(path.read_text(encoding="utf-8"))["marks"]
    assert {e["id"]: e["mark"] for e in entries} == {first: "regression", second: "unsure"}
    assert any("damaged from outside" in w and "wrote back the 2 marks" in w for w in warnings), warnings
    assert "marks changed by another session: shown" not in said(app)
    (kept,) = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert kept.read_bytes() == damaged


async def test_an_output_over_the_limit_opens_cut_short_with_a_note_and_q_quits_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: a huge output's diff is made in a worker, cut to what can be aligned with a
    note saying so, and q does not wait for it. The limit is lowered so that a small text
    crosses it (test_e2e_tmux.py quits during a 43 MB one)."""
    from rouge_tui import diff

    monkeypatch.setattr(diff, "SHOWN", 1_000)
    big = "the birds sing at dawn and " * 100  # 2,700 characters
    app = app_for(small_suite(tmp_path / "suite", big=big))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        row = figures.ids.index("c")
        review_screen(app).table.cursor = review_screen(app).table.row_of(row)
        await press(pilot, "enter")
        assert isinstance(app.screen, DiffScreen)
        for _ in range(200):
            await pilot.pause(0.05)
            if app.screen.shown is not None:
                break
        notes = app.screen.query_one("DiffView").model.notes
        assert any("too long to align in full" in note for note in notes)
        started = time.monotonic()
        await pilot.press("Q")  # (q closes the diff; Q quits from it)
        await pilot.pause()
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("how", ["panic", "a widget's error"])
async def test_an_unexpected_error_ending_the_app_saves_the_note_being_typed(tmp_path: Path, how: str) -> None:
    """Textual ends the app on an error it did not expect: its input thread's through panic(),
    a handler's through its own exception path. The red-team pass lost a typed note so, the
    app ending with status 0. What is typed is now kept first, as on a hang-up, and the
    status says the app failed."""
    app = app_for(small_suite(tmp_path / "suite"))

    def fail() -> None:
        raise RuntimeError("an error nobody expected")

    with pytest.raises(RuntimeError) if how != "panic" else contextlib.nullcontext():
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            screen = review_screen(app)
            example = screen.current_id()
            store = screen.review.store
            await press(pilot, "c")
            assert isinstance(app.screen, NoteScreen)
            await type_text(pilot, "typed before the crash")
            if how == "panic":
                app.panic("an error nobody expected")
            else:
                app.call_later(fail)
                await pilot.pause(0.2)
    assert app.return_code == 1
    saved = json.loads(store.path.read_text(encoding="utf-8"))["marks"]
    assert [(m["id"], m["note"]) for m in saved] == [(example, "typed before the crash")]


async def test_a_note_saved_elsewhere_while_one_is_typed_here_is_kept(tmp_path: Path) -> None:
    """A red-team pass: two sessions typed a note on one example; the second to save erased
    the first's note, its screen saying only "note saved" (the first's note had been shown
    while the editor was open, so the save took it as seen). Both texts are kept, and said."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen, example = await typed_while_another_saves(pilot, "ALICE: the header is duplicated", "fine",
                                                          "BOB: fine by me")
        assert screen.review.get(example).note == "BOB: fine by me"
        await press(pilot, "ctrl+s")
        await settle(pilot)
    entries = json.loads(screen.review.store.path.read_text())["marks"]
    assert [(e["id"], e["mark"], e["note"]) for e in entries] == [
        (example, "fine", "ALICE: the header is duplicated\n\n(kept from another session) BOB: fine by me")]
    assert any("another session changed this note too: both texts are kept in it" in w for w in said(app))


async def test_yes_to_clear_a_mark_another_session_changed_meanwhile_keeps_theirs(tmp_path: Path) -> None:
    """A red-team pass: x asked "Clear the unsure mark ...?"; meanwhile another session marked
    the example regression, shown behind the question; y deleted that mark, and the screen
    said the unsure mark was cleared. What the question named is gone: theirs is kept, said."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen, example = await asked_to_clear(pilot)
        await another_session(pilot, screen, lambda other: other.set_mark(example, "regression", "theirs"),
                              lambda: screen.review.get(example).word == "regression")  # behind the question
        await press(pilot, "y")
        await settle(pilot)
    entries = json.loads(screen.review.store.path.read_text())["marks"]
    assert [(e["id"], e["mark"], e["note"]) for e in entries] == [(example, "regression", "theirs")]
    assert any("another session changed this mark while you were asked (now regression with a note): kept" in w
               for w in said(app))


async def test_a_hang_up_while_a_note_is_typed_keeps_a_note_saved_elsewhere_meanwhile(tmp_path: Path) -> None:
    """A red-team pass: A typed a note, B saved one on the same example (shown in A), A's
    terminal went away: A's typed text replaced B's note, which was then in no file. What a
    hang-up keeps goes through the editor's merge, as ctrl+s does."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen, example = await typed_while_another_saves(pilot, "A typed this", "unsure", "B saved this")
        app._save_unsaved()  # what the hang-up does, before the process ends
        app._save_unsaved()  # and again (SIGTERM, then SIGHUP): kept once (a review)
        entries = json.loads(screen.review.store.path.read_text())["marks"]
        assert [(e["id"], e["note"]) for e in entries] == [
            (example, "A typed this\n\n(kept from another session) B saved this")]
        # SIGTERM keeps the note and the app ends within its grace: typed more and saved
        # meanwhile, the note met its own kept result, and went in twice (a review)
        await type_text(pilot, " and more")
        await press(pilot, "ctrl+s")
        await settle(pilot)
        entries = json.loads(screen.review.store.path.read_text())["marks"]
    assert [(e["id"], e["note"]) for e in entries] == [
        (example, "A typed this and more\n\n(kept from another session) B saved this")]


async def test_a_diff_open_shows_a_mark_another_session_saves_meanwhile(tmp_path: Path) -> None:
    """A red-team pass: with a diff open, another session marked its example regression; the
    toast said "marks changed by another session: shown", the diff's title showed no mark,
    and `a` then replaced the regression mark unseen. The title shows it."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        example = app.screen.example_id
        assert "marked" not in app.screen.title_text(98).plain
        await another_session(pilot, screen, lambda other: other.set_mark(example, "regression", ""),
                              lambda: any("marks changed by another session" in n.message for n in app._notifications))
        await settle(pilot)
        title = app.screen.query_one("#diff-title").content.plain
    assert "regr" in title, title


async def test_yes_to_clear_a_mark_another_session_cleared_meanwhile_says_so(tmp_path: Path) -> None:
    """A review: after another session cleared the mark the question named, y said "(now
    gone): kept; x again clears it", of a mark that was gone."""
    app = app_for(small_suite(tmp_path / "suite"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen, example = await asked_to_clear(pilot)
        await another_session(pilot, screen, lambda other: other.clear(example),
                              lambda: screen.review.get(example) is None)
        await press(pilot, "y")
        await settle(pilot)
    assert any("another session cleared it while you were asked: nothing left here to clear" in w for w in said(app))
    assert not any("x again clears it" in w for w in said(app))


@pytest.mark.parametrize("where, key", [("editor", "^q"), ("table", "q")])
async def test_ctrl_c_names_a_key_that_quits_from_where_it_is_pressed(where: str, key: str) -> None:
    """A newcomer pressed ctrl+c in the note editor: "Do you want to quit? Press Q to quit
    the app", and Q went into the note as text. Where a text box has the keys, the key named
    is one that is no letter."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if where == "editor":
            await press(pilot, "c")
            await type_text(pilot, "abc")
        said = []
        app.notify = lambda message, **options: said.append(message)  # (Textual drops a repeat)
        if where == "editor":  # (the text box takes ctrl+c to copy where it can: the app's hint where it cannot)
            app.action_help_quit()
        else:
            await press(pilot, "ctrl+c")
        assert said == [f"{key} quits rouge-tui (ctrl+c does not)"], said


async def test_a_typed_joiner_goes_into_the_note_as_typed() -> None:
    """A pass on marks: "می\\u200cخواهم 👩\\u200d👧 soft\\u00adhy" typed in the note editor was
    saved without its ZWNJ, ZWJ and soft hyphen (Textual's text box takes only what Python
    calls printable), the Persian spelling and the emoji changed, and the app said "note
    saved"; pasted, they stayed. Typed, they stay too; a control character typed is not
    text (BEL)."""
    from textual import events

    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        example = screen.current_id()
        await press(pilot, "c")
        typed = "می\u200cخواهم 👩\u200d👧 soft\u00adhy bidi\u202eABC a\u3000b\xa0c\u202fd\ue000e\u2028f\x07"
        for character in typed:
            key = character if character.isalnum() else f"u{ord(character):04x}"
            app.post_message(events.Key(key, character))
            await pilot.pause()
        await press(pilot, "ctrl+s")
        await settle(pilot)
        # A bidi control or a line separator typed goes in as its visible escape, as one pasted
        # does (they were dropped); no-break and ideographic spaces and private use as typed.
        want = typed.removesuffix("\x07").replace("\u202e", "\\u202e").replace("\u2028", "\\u2028")
        assert screen.review.get(example).note.endswith(want), repr(screen.review.get(example).note)
