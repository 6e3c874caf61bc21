"""The app (rouge_tui/app/app.py): opening, quitting, exports at exit, config, colours and
notifications, driven by keys through Textual's pilot at 80x24 (and wider where a test says so).

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_helpers import (
    app_for,
    burst,
    current_id,
    footer_text,
    press,
    ranked_ids,
    review_screen,
    screen_text,
    settle,
)
from textual.widgets import OptionList

from rouge_tui.app.screens.common import ConfirmScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView

pytestmark = pytest.mark.slow


async def test_every_key_of_the_view_is_in_its_footer_at_80_columns() -> None:
    """Issue 38, 7: at 80 columns the diff's footer had no c, e, o (and r with runs), the
    table's no c, s, m, t: what does not fit one line goes on to a second."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for keys, wanted in (((), ("c note", "s sort", "m metric", "t tokenizer", "e export", "h history")),
                             (("enter",), ("c note", "e export", "o counterparts", "] [ change", "d mode")),
                             (("escape", "h"), ("⏎ compare", "space pick"))):
            await press(pilot, *keys)
            await settle(pilot)
            footer = footer_text(app)
            assert footer.lstrip().startswith("? help"), footer
            for key in wanted:
                assert key in footer, (key, footer)
            for binding in type(app.screen).BINDINGS:  # every key the view shows, whole
                active = app.screen.active_bindings.get(binding.key)
                if binding.show and active is not None and active.enabled and active.binding.action == binding.action:
                    assert f" {app.get_key_display(binding)} " in footer, (binding.key, footer)


async def test_the_footer_says_the_keys_of_a_dialog_while_it_is_up() -> None:
    """A newcomer: with help open the footer still read "q quit … a b u mark" (b did nothing
    there); in the note editor "q quit" (q types a q); over o's list "n next p prev" (none
    did anything). The footer below a dialog now says the dialog's keys."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one("KeyBar")

        def footer() -> str:
            return "\n".join(screen_text(app).splitlines()[bar.region.y : bar.region.bottom])

        table = footer()
        assert "a b u mark" in table
        for keys, wanted, gone in ((("question_mark",), "esc close", "mark"), (("escape", "c"), "^s save  esc cancel", "quit"),
                                   (("escape",), "a b u mark", "cancel")):
            await press(pilot, *keys)
            await settle(pilot)
            assert wanted in footer() and gone not in footer(), (keys, footer())
        await press(pilot, "enter")
        await settle(pilot)
        bar = app.screen.query_one("KeyBar")
        assert "n next" in footer() or "] [ change" in footer()
        await press(pilot, "o")
        await settle(pilot)
        assert footer().strip() == "? help  esc close", footer()  # (? as in every view)
        await press(pilot, "escape")
        await settle(pilot)
        assert "o counterparts" in footer()


async def test_q_with_a_mark_that_could_not_be_saved_asks_first(tmp_path: Path, monkeypatch) -> None:
    """A full disk: the mark stays in the session, and q asks before it is lost."""
    from rouge_tui.store import marks

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)

        def full(*_args, **_kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(marks, "atomic_write", full)
        await press(pilot, "a")
        assert review_screen(app).review.store.unsaved == 1
        await press(pilot, "q")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await press(pilot, "n")
        assert app.is_running
        monkeypatch.undo()
        await press(pilot, "a")
        assert review_screen(app).review.store.unsaved == 0
        await press(pilot, "q")
    assert app.return_code == 0


@pytest.mark.parametrize("after", ["c", "enter", "h", "w"])
async def test_keys_after_q_in_one_burst_open_nothing(after: str) -> None:
    """`q` then a key that opens a screen, in one burst: the app ends cleanly (the screen
    pushed while the app was closing crashed it: `NoMatches: TextArea`, exit 1)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, "q", after)
    assert app.return_code == 0


def test_the_exit_waits_for_slow_exports_a_bounded_time_in_all_and_says_so() -> None:
    """Weak spot of issue 39: `q` after `e` on a slow export waited up to 60 s for each export
    still being written, then dropped it without a word. The wait is bounded in all, and an
    export left unfinished is said (on stderr, by the command line)."""
    import threading
    import time

    app = app_for()
    slow = threading.Event()
    for _ in range(2):  # two slow exports, still being written
        thread = threading.Thread(target=slow.wait, args=(60,), daemon=True)
        thread.start()
        app.exports.append(thread)
    start = time.monotonic()
    app.finish_exports(0.6)
    took = time.monotonic() - start
    slow.set()
    assert 0.5 < took < 1.0  # 0.6 s in all, not 0.6 s for each
    assert app.export_failures == [
        "export not written: 2 reviews still being written after 0.6 s left unfinished (e in a new session writes it)"
    ]


async def test_a_broken_suite_exits_with_status_two(tmp_path: Path) -> None:
    suite = tmp_path / "broken"
    (suite / "builds").mkdir(parents=True)
    (suite / "references.jsonl").write_text('{"id": "a", "reference": "x"}\n{oops\n')
    (suite / "builds" / "1.jsonl").write_text('{"id": "a", "output": "x"}\n')
    (suite / "builds" / "2.jsonl").write_text('{"id": "a", "output": "y"}\n')
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert app.return_code == 2
    # Issue 11, 4: the line names the file and line, with no Python class name in it.
    assert "references.jsonl:2:" in app.fatal
    assert "SuiteError" not in app.fatal and "\n" not in app.fatal


async def test_config_toml_sets_the_theme_and_an_unknown_one_names_its_line() -> None:
    """SPEC: the config dir holds the user's theme. A name Textual does not have ends the app
    with exit status 2 and one line naming config.toml and the line."""
    from rouge_tui.store.paths import config_dir

    config_dir().mkdir(parents=True, exist_ok=True)
    config = config_dir() / "config.toml"
    config.write_text('k = 2\ntheme = "nord"\n')
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "nord" and isinstance(app.screen, ReviewScreen)
    config.write_text('k = 2\ntheme = "nordic"\n')
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert app.return_code == 2
    assert app.fatal.startswith(f"{config}:2: unknown theme 'nordic' (did you mean 'nord'?); expected one of ")
    assert "nord" in app.fatal and "\n" not in app.fatal


async def test_a_short_notification_covers_little_of_the_table_and_a_path_still_fits() -> None:
    """At 80x24 a mark's "inc-0021: fine" took a 66-column box over the table's right half
    (the mark column under it) for its timeout; it is now as wide as it says, and a long
    message (an export's paths) still gets most of the screen."""
    app = app_for()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        example = current_id(app)
        await press(pilot, "a")
        await pilot.pause(0.2)
        toasts = list(app.screen.query("Toast"))
        assert toasts and f"{example}: fine" in str(toasts[-1].render())
        assert toasts[-1].region.width <= len(f"{example}: fine") + 6
        path = "/home/someone/.local/share/rouge-tui/reviews/Incident_summaries-42420dc2c8-20261203.html"
        app.notify(f"review written to {path}", markup=False)
        await pilot.pause(0.2)
        wide = [t for t in app.screen.query("Toast") if "review written" in str(t.render())]
        assert wide and 60 <= wide[0].region.width <= 74


async def test_g_and_shift_g_move_as_in_less_and_never_mark() -> None:
    """Issue 38, 2: a less or vim user pressed `end` then `g` `g` to go back up and marked
    the example fine. `g` / `G` go to the first / last row (table, diff, history, help);
    `a` marks fine; no movement key changes review state."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        review, paired = screen.review, screen.analysis.figures.paired
        await press(pilot, "end", "g", "g")
        assert screen.table.cursor == 0
        await press(pilot, "G")
        assert screen.table.cursor == paired - 1
        await press(pilot, "g", "enter")
        view = app.screen.query_one(DiffView)
        await press(pilot, "G")
        assert round(view.scroll_y) == round(view.max_scroll_y) > 0
        await press(pilot, "g")
        assert round(view.scroll_y) == 0
        await press(pilot, "escape", "h", "G")
        builds = app.screen.query_one(OptionList)
        assert builds.highlighted == builds.option_count - 1
        await press(pilot, "g")
        assert builds.highlighted == 0
        await press(pilot, "escape", "question_mark", "G", "g", "escape")
        assert review.shown() == {} and review.store.unsaved == 0
        await press(pilot, "a")  # accept: the one key that marks fine
        assert {i: m.word for i, m in review.shown().items()} == {ranked_ids()[0]: "fine"}
        footer = "\n".join(screen_text(app).splitlines()[-2:])  # (it takes two lines at 80)
        assert "a b u mark" in footer, footer


async def test_q_closes_a_view_and_shift_q_quits_from_any() -> None:
    """Issue 38, 3: `q` in a diff or the history quit the whole app, losing the pair, the
    metric, the filter and the sort. As in less and tig: `q` (and escape) close the view
    (a diff, the walk, the history, help); in the table `q` quits; `Q` quits from any view."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "s")
        sort = screen.sort
        for opens in (("enter",), ("w",), ("h",), ("question_mark",), ("enter", "question_mark"), ("enter", "o")):
            await press(pilot, *opens)
            assert app.screen is not screen
            await press(pilot, *["q"] * len(opens))
            assert app.screen is screen and app.is_running, opens
        assert screen.sort == sort
        await press(pilot, "enter", "Q")
    assert not app.is_running and app.return_code == 0
    for view in (("h",), ("question_mark",), ("w",)):
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await press(pilot, *view, "Q")
        assert not app.is_running and app.return_code == 0, view
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "q")
    assert not app.is_running and app.return_code == 0


async def test_shift_q_in_a_diff_asks_first_while_a_mark_is_unsaved(monkeypatch) -> None:
    """Issue 38, 3: quitting from a view asks, as `q` in the table does, while a mark could
    not be saved; `q` there only closes the view."""
    from rouge_tui.store import marks

    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(marks, "atomic_write", full)
        await press(pilot, "enter", "b")
        assert review_screen(app).review.store.unsaved == 1
        await press(pilot, "q")
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        await press(pilot, "enter", "Q")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await press(pilot, "n")
        assert isinstance(app.screen, DiffScreen) and app.is_running


def relative_luminance(colour) -> float:
    """WCAG 2's relative luminance of an sRGB colour (its definition, restated)."""
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = colour
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast(style) -> float:
    """WCAG 2's contrast ratio of a segment's foreground on its background."""
    lighter, darker = sorted((relative_luminance(style.color.get_truecolor()),
                              relative_luminance(style.bgcolor.get_truecolor())), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def segments(app) -> list:
    """Every segment on screen, as the terminal gets it (after Textual's NO_COLOR filter)."""
    return [segment for strip in app.screen._compositor.render_strips() for segment in strip
            if segment.text.strip() and segment.style is not None]


async def test_no_color_keeps_marks_signs_removed_words_and_the_verdict_legible(monkeypatch) -> None:
    """Issue 38, 1: under NO_COLOR Textual draws every colour as its grey, and the `regr`
    mark, negative deltas, removed words and `▼ drift-down` read 1.6-2.5:1. SPEC: each at
    least 4.5:1 (WCAG's ratio, worked out here from the segments' own colours)."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "down", "b", "down", "a", "down", "u")
        app.clear_notifications()
        await pilot.pause()
        shown = segments(app)
        checked = {
            "regression": [s for s in shown if s.text.strip() == "regression"],
            "fine": [s for s in shown if s.text.strip() == "fine"],
            "unsure": [s for s in shown if s.text.strip() == "unsure"],
            "negative delta": [s for s in shown if re.fullmatch(r"\s*-0\.\d{4}", s.text)],
            "verdict": [s for s in shown if "▼ drift-down" in s.text],
        }
        await press(pilot, "g", "enter")
        checked["new figure"] = [s for s in segments(app) if s.text == "«N»"]
        await press(pilot, "G")  # the reference, at the end: who matched each word
        checked["baseline only"] = [s for s in segments(app) if s.text == "baseline only"]
        await press(pilot, "d")
        shown = segments(app)
        checked["removed"] = [s for s in shown if s.style.strike]
        checked["removed's brackets"] = [s for s in shown if s.text in ("[-", "-]")]
        for what, found in checked.items():
            assert found, what
            worst = min(found, key=lambda s: contrast(s.style))
            assert contrast(worst.style) >= 4.5, (what, worst.text, str(worst.style))
