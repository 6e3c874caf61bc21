"""The app, driven by keys through Textual's pilot at 80x24 (and wider where a test says so).

Expected figures come from rouge-score with the chapter's tokenizer (test_app_helpers.oracle),
not from the code under test.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from suite_helpers import COPY_MEANS, copy_suite, jsonl, make_suite
from test_app_helpers import (
    INCIDENT,
    SUPPORT,
    burst,
    diff_lines,
    incident_deltas,
    oracle_f,
    press,
    ranked_ids,
    read_jsonl,
    screen_text,
    settle,
    table_lines,
    type_text,
)
from textual.widgets import OptionList, Static

from rouge_tui.analysis.figures import SORTS
from rouge_tui.analysis.signals import SIGNALS
from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.common import ConfirmScreen, NoteScreen
from rouge_tui.app.screens.counterparts import CounterpartsScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView
from rouge_tui.app.widgets.movers import MoversTable
from rouge_tui.app.widgets.overview import shorten_names, trend_levels

pytestmark = pytest.mark.slow


def app_for(suite: Path = INCIDENT, **options: object) -> RougeApp:
    return RougeApp([suite], argparse.Namespace(**options))


async def filter_by(pilot, query: str) -> None:
    """Type a filter into the review table and wait for its rows."""
    await press(pilot, "slash")
    await type_text(pilot, query)
    await press(pilot, "enter")
    await settle(pilot)


async def switch_and_notice_the_change(pilot, screen: ReviewScreen) -> None:
    """m: the texts as read scored again; the history that follows finds a compared file
    changed on disk since it was read (what lets h, enter read the pair again)."""
    await press(pilot, "m")
    for _ in range(100):
        await pilot.pause(0.05)
        if screen.changed_on_disk and screen.asked is None:
            break


def review_screen(app: RougeApp) -> ReviewScreen:
    return next(s for s in app.screen_stack if isinstance(s, ReviewScreen))


def current_id(app: RougeApp) -> str:
    screen = review_screen(app)
    return screen.analysis.figures.ids[screen.table.current]


async def test_start_highlights_the_most_moved_example_and_enter_opens_its_diff() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert current_id(app) == ranked_ids()[0]
        lines = table_lines(app.screen.query_one(MoversTable))
        assert lines[1].startswith("▶") and ranked_ids()[0] in lines[1]
        await press(pilot, "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == ranked_ids()[0]
        text = screen_text(app)
        assert "row 1/" in text and "LCS" in text


async def test_the_table_shows_before_the_new_sentences_are_found_and_says_they_are_pending(monkeypatch) -> None:
    """A cold open of a big suite: the scores are in while what overlap cannot see is still
    being found. The table and the overview show then, the grounded signals' counts as "…"
    and the signals column headed "signals…"; enter waits and opens the diff of the example
    under the cursor once they are in, when the counts show."""
    import threading

    from rouge_tui.analysis import signals

    go = threading.Event()
    count_new = signals.Pairs.count_new
    monkeypatch.setattr(signals.Pairs, "count_new", lambda self: go.wait(30) and count_new(self))
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(400):
            await pilot.pause(0.02)
            screen = review_screen(app)
            if screen.analysis is not None:
                break
        assert screen.analysis is not None and screen.analysis.figures.pending == ("new-sentence", "new-figure")
        for _ in range(50):  # the overview takes its height for the lines on the next layout
            text = screen_text(app)
            if "+sent …" in text:
                break
            await pilot.pause(0.02)
        assert "+sent …" in text and "+fig …" in text and "signals…" in text
        assert current_id(app) == ranked_ids()[0]
        await pilot.press("down", "enter")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, DiffScreen)  # not before the texts and signals are in
        go.set()
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == ranked_ids()[1]
        await press(pilot, "escape")
        text = screen_text(app)
        assert review_screen(app).analysis.figures.pending == ()
        assert "+sent …" not in text and "signals…" not in text
        assert re.search(r"\+sent \d+", text) and "signals " in text


async def test_the_first_frame_of_a_diff_shows_it_and_the_next_is_made_for_its_width(monkeypatch) -> None:
    """Opening a diff lays it out for the screen's width at once, so the frame that first
    draws the view draws the diff (it used to draw an empty view, then the diff a frame
    later: 51 -> 35 ms at 80x24 in a real terminal); the next example's diff is made ahead
    for the width the view has (it used to be made for width -1, of no use)."""
    import rouge_tui.app.screens.diff as diff_screen

    drawn: list[int] = []
    render_line = DiffView.render_line

    def counting(self, y):
        drawn.append(len(self.rows))
        return render_line(self, y)

    made: list[tuple[int, int]] = []  # (index, width) of each diff made ahead
    ahead = diff_screen.Prepared.ahead

    def recording(self, review, analysis, index, query, width):
        made.append((index, width))
        return ahead(self, review, analysis, index, query, width)

    monkeypatch.setattr(DiffView, "render_line", counting)
    monkeypatch.setattr(diff_screen.Prepared, "ahead", recording)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert drawn and drawn[0] > 0 and drawn[0] == len(app.screen.view.rows)
        width = app.screen.view.size.width - 1
        assert width == 79 and (int(app.screen.sequence[1]), width) in made  # the next one
        assert {w for _, w in made} == {width}  # the overview's cursor row's too


async def test_a_diff_left_in_the_burst_that_opened_it_does_not_crash_the_app() -> None:
    """`enter` `escape` (and `n`, `p` between) typed in one burst: the diff made ahead after
    the first frame is not asked of a screen already gone."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(10):  # the crash came on some bursts, not all
            await burst(pilot, "enter", "escape")
            await burst(pilot, "enter", "n", "escape", "enter", "p", "escape")
        assert isinstance(app.screen, ReviewScreen) and app.is_running


async def test_j_k_and_the_arrows_move_home_and_end_jump() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        await press(pilot, "j", "j", "down")
        assert table.cursor == 3
        await press(pilot, "k", "up")
        assert table.cursor == 1
        await press(pilot, "end")
        assert table.cursor == len(incident_deltas()) - 1
        await press(pilot, "home")
        assert table.cursor == 0


async def test_the_diff_header_shows_the_comparison_now_shown_after_a_metric_switch() -> None:
    """Issue 11, 1: every figure on every screen comes from the comparison now shown."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        first = app.screen.summary().plain
        await press(pilot, "escape", "m")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert figures.settings.metric == "rougeLsum"
        await press(pilot, "enter")
        summary = app.screen.summary().plain
        assert summary != first
        assert f"Δ {figures.delta_mean:+.4f}" in summary and "rougeLsum|" in summary
        title = app.screen.title_text(98).plain
        index = app.screen.index
        assert f"Δ {float(figures.delta[index]):+.4f}" in title


async def test_a_diff_asked_for_while_a_switch_scores_opens_on_the_switched_comparison() -> None:
    """`m` `enter` in one burst (a newcomer's keys): the diff waits for the new metric's
    scores and shows them, not the numbers of the comparison being replaced; a second `m`
    typed before the first's scores are in steps on from the first (rougeL -> rougeLsum ->
    rouge1), and `w` waits as `enter` does."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        assert screen.analysis.settings.metric == "rougeL"
        await burst(pilot, "m", "enter")
        figures = screen.analysis.figures
        assert figures.settings.metric == "rougeLsum"
        assert isinstance(app.screen, DiffScreen) and app.screen.review.analysis is screen.analysis
        summary = app.screen.summary().plain
        assert f"Δ {figures.delta_mean:+.4f}" in summary and "rougeLsum|" in summary
        assert f"Δ {float(figures.delta[app.screen.index]):+.4f}" in app.screen.title_text(98).plain
        await press(pilot, "escape")
        await burst(pilot, "m", "m", "w")
        assert screen.analysis.settings.metric == "rouge2"
        assert isinstance(app.screen, DiffScreen) and app.screen.walk
        assert "rouge2|" in app.screen.summary().plain


async def test_the_diff_made_ahead_is_the_cursors_row_of_the_comparison_shown(monkeypatch) -> None:
    """The row the cursor rests on has its diff made ahead, and enter shows that one; after
    a metric switch, what is shown is made from the new comparison, not the one before."""
    import rouge_tui.app.screens.diff as diff_screen

    made: list[tuple[object, int]] = []
    make = diff_screen.make_model

    def counting(review, analysis, index, run, query):
        made.append((analysis, index))
        return make(review, analysis, index, run, query)

    monkeypatch.setattr(diff_screen, "make_model", counting)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "j", "j")
        await pilot.pause(0.5)
        await settle(pilot)
        screen = review_screen(app)
        index = screen.table.current
        assert (screen.analysis, index) in made
        before = len(made)
        await press(pilot, "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.index == index
        assert len(made) == before or made[before:] == [(screen.analysis, index + 1)]  # the next, ahead
        await press(pilot, "escape", "m")
        await settle(pilot)
        await press(pilot, "enter")
        figures = screen.analysis.figures
        assert figures.settings.metric == "rougeLsum" and (screen.analysis, screen.table.current) in made
        shown = "\n".join(diff_lines(app.screen.view))
        index = app.screen.index
        assert f"F {float(figures.candidate_f[index]):.2f}" in shown
        assert f"F {float(figures.baseline_f[index]):.2f}" in shown


async def test_after_a_switch_the_cursor_is_on_the_first_row_of_the_new_order() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        await press(pilot, "s", "home")  # regressions first
        deltas = incident_deltas()
        assert current_id(app) == min(deltas, key=lambda i: (deltas[i], ranked_ids().index(i)))
        await press(pilot, "end", "t")
        await settle(pilot)
        assert table.cursor == 0


async def test_the_comparison_read_again_under_a_filter_keeps_the_example_under_the_cursor(
    tmp_path: Path
) -> None:
    """The candidate's file changes; h, enter on the pair reads it again (it ranks another
    way now). The cursor stayed on its example over every row, but the filter, applied again
    to the comparison read again, put it on the top row: it stays there under the filter."""
    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abcd")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "abcd"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a dog", "c": "the cat sat on the dog mat",
                             "d": "the cat sat on the mat"})},
    )
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await filter_by(pilot, '"dog"')
        assert [screen.analysis.figures.ids[i] for i in screen.table.view] == ["a", "b", "c"]
        await press(pilot, "down")
        assert current_id(app) == "b"
        (suite / "builds" / "2.jsonl").write_text(outputs({"a": "the cat sat on the dog mat", "b": "the cat sat on a dog",
                                                           "c": "a dog", "d": "a bird"}))
        await switch_and_notice_the_change(pilot, screen)
        await press(pilot, "down")
        assert current_id(app) == "b" and screen.changed_on_disk == {"2"}
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "enter")  # the pair shown, read again
        await settle(pilot)
        assert not isinstance(app.screen, HistoryScreen) and screen.changed_on_disk == set()
        assert [screen.analysis.figures.ids[i] for i in screen.table.view] == ["c", "b", "a"]
        assert current_id(app) == "b"


async def test_a_mark_after_the_pair_is_read_again_is_made_on_the_outputs_shown(tmp_path: Path) -> None:
    """The candidate's file changes; h, enter reads the pair again: the table shows the new
    figures, but the review kept the texts first read, so a mark hashed the old outputs and
    showed stale in the next session (and diffs and the text filter read the old outputs)."""
    from rouge_tui.analysis.pipeline import Caches, open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.review import Review
    from rouge_tui.store.marks import outputs_hash
    from rouge_tui.suite.suite import open_suite

    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "ab")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "ab"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a mat"})},
    )
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        assert current_id(app) == "a"
        (suite / "builds" / "2.jsonl").write_text(outputs({"a": "a bird flew", "b": "the cat sat on a mat"}))
        await switch_and_notice_the_change(pilot, screen)
        assert screen.changed_on_disk == {"2"}
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "enter")  # the pair shown, read again
        await settle(pilot)
        assert screen.texts.candidate.runs[0].outputs["a"] == "a bird flew"
        assert screen.review.outputs_hash("a") == outputs_hash("the cat sat on the mat", "a bird flew")
        await press(pilot, "home", "b")
        await settle(pilot)
        assert current_id(app) == "a" and screen.review.get("a").word == "regression"
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    later = Review(analysis, analysis.texts.result()).get("a")
    assert (later.word, later.stale) == ("regression", False)


async def test_keys_pressed_before_the_texts_read_again_are_in_wait_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review found it: the new night's figures were cached (a cron report), so after h,
    enter they came at once and the texts after. A mark made in between hashed the old
    outputs (stale the next time), and the filter, applied again, read new ids in the old
    texts and the app died (KeyError). Now both wait for the texts read again."""
    import time

    from rouge_tui.analysis import pipeline
    from rouge_tui.analysis.pipeline import Caches, open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.review import Review
    from rouge_tui.suite.suite import open_suite

    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abcde")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "abcde"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a dog", "c": "the cat dog", "d": "the mat"})},
    )
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await filter_by(pilot, '"dog"')
        (suite / "builds" / "2.jsonl").write_text(outputs(
            {"a": "a bird flew", "b": "the cat sat on a dog", "c": "the cat dog", "d": "the mat", "e": "a dog e"}))
        await switch_and_notice_the_change(pilot, screen)
        assert screen.changed_on_disk == {"2"}
        open_analysis(open_suite(suite), screen.analysis.settings, caches=Caches.default())  # the cron's report
        real = pipeline.read_texts
        monkeypatch.setattr(pipeline, "read_texts", lambda *a, **k: (time.sleep(0.5), real(*a, **k))[1])
        before = screen.analysis
        await press(pilot, "h")
        await settle(pilot)
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.01)
            if screen.analysis is not before:
                break
        assert screen.analysis is not before and not screen.texts_in()  # the figures first
        row = screen.row_of_id("a")
        screen.table.cursor = row
        await pilot.press("b")  # in between: it waits for the texts
        await settle(pilot)
        assert app.return_code is None and screen.texts_in()
        assert sorted(screen.analysis.figures.ids[i] for i in screen.table.view) == ["b", "c", "e"]  # "dog" now
        assert screen.review.get("a").word == "regression"
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    later = Review(analysis, analysis.texts.result()).get("a")
    assert (later.word, later.stale) == ("regression", False)


async def test_every_changed_run_has_its_marker_on_every_line_it_spans() -> None:
    """Issue 11, 2: a changed run that wraps onto the next line is still marked there."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "d")
        view = app.screen.query_one(DiffView)
        lines = diff_lines(view)
        body = [line for line in lines[1:] if line.strip()]
        inside = None  # the kind of run a line starts inside of, if any
        for line in body:
            if inside:
                assert line[:1] in ("-", "+", "±"), line
            text = line[2:]
            for opening, closing, kind in (("[-", "-]", "removed"), ("{+", "+}", "added")):
                if text.rfind(opening) > text.rfind(closing):
                    inside = kind
                elif closing in text and inside == kind:
                    inside = None
        assert any("[-" in line for line in body) and any("{+" in line for line in body)


async def test_brackets_step_through_the_changes_and_f_folds() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await filter_by(pilot, "inc-0165")  # seven changed runs; the top one is a rewrite
        await press(pilot, "enter", "d")
        view = app.screen.query_one(DiffView)
        assert len(view.changes) >= 3
        await press(pilot, "right_square_bracket")
        first = view.current
        await press(pilot, "right_square_bracket")
        assert view.current is not None and view.current > first
        await press(pilot, "left_square_bracket")
        assert view.current == first
        shown = view.render_line(first - round(view.scroll_y)).text
        drawn = view.draw(first).text  # the row as drawn without the cursor
        assert drawn[0] in "-+±"  # a change starts on it, so its gutter says which
        assert shown.startswith("▶" + drawn[0]) and shown[2:] == drawn[2 : len(shown)]  # the mark kept


async def test_the_diff_title_says_which_change_of_how_many_the_brackets_went_to() -> None:
    """A newcomer stepping with ] could not tell where they were among the changes: the
    title now says "change k of n" (short: "chg k/n"), k counting the steps taken, n the
    last k before "no more changes that way"; a switch of mode clears it."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await filter_by(pilot, "inc-0165")  # seven changed runs; the top one is a rewrite
        await press(pilot, "enter", "d")
        assert "change" not in screen_text(app).splitlines()[1]

        def said() -> tuple[int, int]:
            title = screen_text(app).splitlines()[1]
            found = re.search(r"change (\d+) of (\d+)|chg (\d+)/(\d+)", title)
            assert found, title
            k, n = (int(g) for g in found.groups() if g is not None)
            return k, n

        seen = []
        for _ in range(100):
            await press(pilot, "right_square_bracket")
            if any(n.message == "no more changes that way" for n in app._notifications):
                break
            seen.append(said())
        total = len(seen)
        assert total >= 3 and seen == [(k, total) for k in range(1, total + 1)]
        assert said() == (total, total)  # a step past the last: still on it
        await press(pilot, "left_square_bracket")
        assert said() == (total - 1, total)

        def none_said() -> bool:
            title = screen_text(app).splitlines()[1]
            return "change" not in title and "chg" not in title

        await press(pilot, "tab")  # a pane's title is pointed at now
        assert none_said()
        await press(pilot, "right_square_bracket")
        assert said()[1] == total
        await press(pilot, "d")
        assert none_said()


async def test_the_filters_placeholder_is_read_whole_at_80_columns() -> None:
    """A newcomer read "enter keeps, escape    ": the placeholder was cut at 80 columns."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        line = next(row for row in screen_text(app).splitlines() if "filter:" in row)
        assert "keeps, esc clears" in line, line


async def test_fold_says_when_there_is_nothing_to_fold() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "d", "f")
        assert any("nothing to fold" in n.message for n in app._notifications)


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


async def test_a_choice_covered_by_a_key_of_the_same_burst_is_made_when_uncovered() -> None:
    """`enter` `?` in the history list: help opens over it before it answers; closing help
    then makes the comparison asked for (the answer is neither lost nor given to help)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        names = [b.name for b in screen.analysis.suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        await press(pilot, "k")  # the build before the candidate: compared with the one before it
        await burst(pilot, "enter", "question_mark")
        if isinstance(app.screen, HelpScreen):  # help came first: the answer waits for it
            await press(pilot, "escape")
        await settle(pilot)
        await pilot.pause(0.5)
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        pair = (screen.analysis.figures.baseline.name, screen.analysis.figures.candidate.name)
        assert pair == (names[-3], names[-2])


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


def change_under_the_reader(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> list[int]:
    """The first reading of the texts waits (a key comes first), then writes ``text`` to
    ``path`` and reads; the list returned grows by one a reading."""
    import time

    from rouge_tui.analysis import pipeline

    real, calls = pipeline.read_texts, []

    def changing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.3)
            path.write_text(text)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "read_texts", changing)
    return calls


async def figures_shown(pilot, app: RougeApp) -> None:
    while review_screen(app).analysis is None:
        await pilot.pause(0.02)


async def test_enter_before_the_texts_opens_that_example_when_the_files_changed_meanwhile(
    tmp_path: Path, monkeypatch
) -> None:
    """`enter` on the cached figures' first row while the texts are read; the candidate's
    file changes under the reader, so the comparison is computed again and ranks another
    example first. The diff opens the example that was under the cursor (it used to open the
    new ranking's row, another example)."""
    from rouge_tui import cli

    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abc")),
        {"1.jsonl": outputs({"a": "the cat sat on the mat", "b": "the cat sat on the mat", "c": "the cat sat on the mat"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a mat", "c": "the cat sat on the mat"})},
    )
    assert cli.main(["report", str(suite)]) == 1  # the figures cached: "a" moved most
    change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl",
                            outputs({"a": "the cat sat on the mat", "b": "the cat sat on a mat", "c": "a dog"}))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        assert screen.review is None and current_id(app) == "a"
        await press(pilot, "enter")
        await settle(pilot)
        assert screen.analysis.figures.ids[0] == "c"  # computed again: c moved most now
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == "a"


def cached_pair(tmp_path: Path) -> tuple[Path, str]:
    """Builds 1 and 2 of three examples, their figures cached by a report; and 2's text."""
    from rouge_tui import cli

    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    good = outputs({"a": "a dog", "b": "the cat sat on a mat", "c": "the cat sat on the mat"})
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abc")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "abc"}), "2.jsonl": good},
    )
    assert cli.main(["report", str(suite)]) == 1  # the figures cached
    return suite, good


async def test_texts_unreadable_after_cached_figures_say_why_and_the_next_key_reads_again(
    tmp_path: Path, monkeypatch
) -> None:
    """The figures come from the cache; the candidate's file gets a bad line before the texts
    are read. The figures stay, the waiting enter is said not done with the file and line,
    and once the file is whole again the next enter reads the texts and opens the diff (the
    keys used to wait for texts that never came)."""
    suite, good = cached_pair(tmp_path)
    calls = change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl", good + "{not json\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        await press(pilot, "enter")
        for _ in range(100):
            if any("2.jsonl" in n.message for n in app._notifications):
                break
            await pilot.pause(0.02)
        said = [n.message for n in app._notifications if n.message.startswith("could not read the texts")]
        assert said and "2.jsonl" in said[-1] and ":4" in said[-1] and "not done: the diff opens" in said[-1], said
        assert app.is_running and screen.analysis.figures.ids[0] == "a" and not isinstance(app.screen, DiffScreen)
        (suite / "builds" / "2.jsonl").write_text(good)
        await press(pilot, "enter")
        for _ in range(100):
            if isinstance(app.screen, DiffScreen):
                break
            await pilot.pause(0.02)
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == "a"
        assert len(calls) == 2


async def test_texts_unreadable_twice_keep_the_way_open_and_the_cursor_on_its_example(
    tmp_path: Path, monkeypatch
) -> None:
    """The file is still broken when a key reads the texts again: said, with what was not
    done, and the next key tries again; once mended, the comparison read again keeps the
    cursor on the example it was on, and the mark goes there."""
    suite, good = cached_pair(tmp_path)
    change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl", good + "{not json\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        await press(pilot, "down")
        on = current_id(app)
        await settle(pilot)
        failed = lambda: [n.message for n in app._notifications if n.message.startswith("could not read the texts")]
        assert len(failed()) == 1 and "history needs the texts" in screen_text(app)
        await press(pilot, "a")  # reads them again: still broken
        await settle(pilot)
        assert len(failed()) == 2 and "not done: the mark is set" in failed()[-1], failed()
        (suite / "builds" / "2.jsonl").write_text(good)
        await press(pilot, "a")
        await settle(pilot)
        assert screen.review is not None and screen.review.get(on).word == "fine"
        assert current_id(app) == on
        assert [n.message for n in app._notifications if "read again" in n.message] == ["1 → 2 read again"]


async def test_the_history_line_beside_a_comparison_keeps_its_builds_as_read_and_says_the_file_changed(
    tmp_path: Path
) -> None:
    """The candidate's file changes while the app is open; m scores the texts as read again.
    The history line's candidate mean is the comparison's (it read the file as it is now: a
    mean the overview did not show), and the change is said."""
    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abc")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "abc"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a mat", "c": "the cat sat on the mat"})},
    )
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        (suite / "builds" / "2.jsonl").write_text(outputs({i: "a dog" for i in "abc"}))
        await press(pilot, "m")
        for _ in range(100):
            await pilot.pause(0.05)
            if screen.trend is not None and screen.trend[0] is screen.analysis and screen.asked is None:
                break
        figures = screen.analysis.figures
        assert figures.settings.metric != "rougeL"
        means = {b.name: b.stats.mean for b in screen.trend[1]}
        assert means == {"1": figures.baseline.mean, "2": figures.candidate.mean} and figures.candidate.mean > 0
        await settle(pilot)
        said = [n.message for n in app._notifications if "changed on disk" in n.message]
        assert said and said[-1].startswith("2 changed on disk since it was read"), said
        await press(pilot, "t")  # the texts as read scored again: said once, not again
        await settle(pilot)
        assert len([n for n in app._notifications if "changed on disk" in n.message]) == len(said)
        # h says which builds are listed as read; enter on the pair shown reads it again.
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert screen_text(app).splitlines()[0].strip().startswith("2: as read, changed on disk since")
        await press(pilot, "enter")
        await settle(pilot)
        assert not isinstance(app.screen, HistoryScreen)
        assert screen.analysis.figures.candidate.mean == 0.0  # "a dog" everywhere now
        assert screen.changed_on_disk == set()


async def test_a_diff_open_when_a_metric_switch_lands_keeps_its_example_and_marks_it() -> None:
    """The diff keeps the comparison it was opened on: after the switch lands its header,
    body and marks are still its example's, and escape puts the cursor on that example in
    the new ranking."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        before = screen.analysis
        await press(pilot, "j", "j", "j", "j", "j", "enter")
        assert isinstance(app.screen, DiffScreen)
        shown = app.screen.example_id
        index = app.screen.index
        assert shown == before.figures.ids[index]
        screen.ask(before.settings.switched(metric="rougeLsum"), None, "scoring rougeLsum")  # the switch lands now
        await settle(pilot)
        assert screen.analysis is not before and screen.analysis.figures.ids[index] != shown
        assert app.screen.example_id == shown and shown in app.screen.title_text(98).plain
        await press(pilot, "a")
        assert screen.review.get(shown).word == "fine"
        assert all(screen.review.get(i) is None for i in screen.analysis.figures.ids if i != shown)
        await press(pilot, "escape")
        assert current_id(app) == shown


async def test_filter_by_signal_mark_and_text() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        figures = screen.analysis.figures
        await press(pilot, "slash")
        await type_text(pilot, "trunc")
        await settle(pilot)
        truncated = [i for i, f in zip(figures.ids, figures.signals) if int(f) >> 1 & 1]
        assert screen.table.row_count == len(truncated) > 0
        assert "signal truncated" in screen.query_one("#status").render().plain
        await press(pilot, "escape")
        assert screen.table.row_count == figures.paired
        await press(pilot, "a", "slash")
        await type_text(pilot, "fine")
        await settle(pilot)
        assert screen.table.row_count == 1
        await press(pilot, "escape", "slash")
        await type_text(pilot, "Follow-ups: canary")
        await settle(pilot)
        assert 0 < screen.table.row_count < figures.paired
        await press(pilot, "enter", "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.filter_text == "Follow-ups: canary"


async def test_every_key_of_a_burst_after_slash_goes_to_the_filter() -> None:
    """`/trunc` in one burst (tmux send-keys): no key after `/` reaches the table (`t`
    switched the tokenizer, `c` opened a note); a `/` typed in the box is text."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        tokenizer = screen.analysis.settings.tokenizer
        await burst(pilot, "slash", *"trunc")
        assert app.screen is screen and screen.filter_text == "trunc"
        assert screen.analysis.settings.tokenizer == tokenizer
        assert "signal truncated" in screen.query_one("#status").render().plain
        await burst(pilot, "slash", "x")
        assert screen.filter_text == "trunc/x" and app.screen is screen


async def test_j_and_k_scroll_the_help_as_they_move_in_the_table() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        box = app.screen.query_one("#help-box")
        assert box.scroll_y == 0 and box.max_scroll_y > 3  # more keys than 24 lines show
        await press(pilot, "j", "j", "j")
        assert box.scroll_y == 3
        await press(pilot, "k")
        assert box.scroll_y == 2


async def test_help_lists_only_the_keys_that_work_on_the_screen_it_was_opened_from() -> None:
    """The review's help names / and says m, t and s cycle; the history's and the diff's
    do not offer a filter, and say the cycles are the review table's."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        text = app.screen.text().plain
        assert "  /        filter: part of an id" in text and text.count("filter") == 1
        for key, what in (("m", "Metrics"), ("t", "Tokenizers"), ("s", "Sorts")):
            assert f"{what} ({key} cycles)\n" in text
        for opening in (["escape", "h"], ["escape", "escape", "enter"]):
            await press(pilot, *opening)
            await settle(pilot)
            assert isinstance(app.screen, (HistoryScreen, DiffScreen)), opening
            await press(pilot, "question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = app.screen.text().plain
            assert "filter" not in text, opening
            for key, what in (("m", "Metrics"), ("t", "Tokenizers"), ("s", "Sorts")):
                assert f"{what} ({key} cycles them in the review table)\n" in text, opening


def test_every_mark_word_is_one_key_and_one_colour_in_the_table() -> None:
    """The keys and the table's colours come from MARKS: one binding and one bold colour
    (the text's own under NO_COLOR) per word."""
    from rouge_tui.app.screens.common import MARK_BINDINGS
    from rouge_tui.store.marks import MARKS

    assert [(b.key, b.action, b.description) for b in MARK_BINDINGS] == [
        (m.key, f"mark('{m.word}')", m.help) for m in MARKS.values()]
    for mark in MARKS.values():
        assert f"movers--{mark.word}" in MoversTable.COMPONENT_CLASSES
        assert f".movers--{mark.word} {{ text-style: bold; color: {mark.colour}; }}" in MoversTable.DEFAULT_CSS
        assert f"MoversTable:nocolor > .movers--{mark.word} {{ color: $text; }}" in MoversTable.DEFAULT_CSS


async def test_help_names_every_mark_word_verdict_and_sort_the_registries_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new mark word is one entry in MARKS, a verdict's words one in VERDICTS, a sort one
    in SORTS: the help says them."""
    from dataclasses import replace

    from rouge_tui.analysis.compare import VERDICTS
    from rouge_tui.analysis.figures import Sort
    from rouge_tui.store.marks import MARKS, MarkWord

    monkeypatch.setitem(SORTS, "backwards", Sort("backwards", "back", "the ranking reversed", lambda f, rank: rank[::-1]))
    monkeypatch.setitem(MARKS, "perhaps", MarkWord("perhaps", "p", "mark perhaps", "perh", "ansi_blue", "#000080"))
    monkeypatch.setitem(VERDICTS, "drift-up", replace(VERDICTS["drift-up"], words="rose", symbol="↑"))
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        text = app.screen.text().plain
        assert "Marks: fine, regression, unsure, perhaps; ↻ carried" in text
        assert "Verdicts: ▼ drift-down, ↑ rose, ● within band (the candidate's" in text
        sorts = text[text.index("Sorts (s cycles)"):text.index("Change signals")]
        lines = sorts.splitlines()[1:-1]
        assert len(lines) == len(SORTS) and all(line.startswith(f"  {s.words} ") for line, s in zip(lines, SORTS.values()))
        assert "  backwards           the ranking reversed\n" in sorts


async def test_help_explains_every_short_word_the_overview_shows(tmp_path: Path) -> None:
    """A newcomer found `ten 33%`, `P`, `R` and `copied cov … dens …` in the overview and
    none of them in help. Every label word the overview draws (read off the screen, a
    suite with sources for the copied spans) now has a line under "The overview"."""
    import shutil

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    app = app_for(suite)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        overview = screen_text(app).splitlines()[4:7]  # (under the title and the signal drift line)
        assert review_screen(app).analysis.figures.copied, "the sample has sources"
        shown = {word for line in overview for word in line.split() if word.isalpha() and word.islower()}
        shown -= {"drift", "down", "up", "within", "band", "analytic", "builds", "all", "outputs"}
        assert {"ten", "history", "copied", "cov", "dens"} <= shown, shown
        await press(pilot, "question_mark")
        text = app.screen.text().plain
        part = text[text.index("The overview\n"):]
        explained = part[: part.index("\n\n")]
        signals = text[text.index("Change signals"):]
        for word in shown | {"P", "R", "95%"}:  # a signal's label in its own section
            section = signals if word in {s.short for s in SIGNALS} else explained
            assert word in re.findall(r"[^\s(),;:]+", section), word


async def test_help_says_which_of_the_diffs_keys_are_off_for_now() -> None:
    """r (one run) and f (against the reference) did nothing, listed like any other key."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "question_mark")
        text = app.screen.text().plain
        assert " run (not now)\n" in text and " fold (not now)\n" in text
        assert " next\n" in text  # n works here
        await press(pilot, "escape", "d", "question_mark")
        text = app.screen.text().plain
        assert " fold\n" in text and " run (not now)\n" in text


async def test_help_never_says_the_apps_own_keys_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the figures were still coming, the review's help said '? help (not now)' and
    'q quit (not now)': both work everywhere."""
    import time as clock

    from rouge_tui.app.screens import review as review_module

    slow = review_module.open_review

    def slower(*args, **kwargs):
        clock.sleep(3.0)
        return slow(*args, **kwargs)

    monkeypatch.setattr(review_module, "open_review", slower)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        assert review_screen(app).analysis is None
        await pilot.press("question_mark")  # (press would wait for the figures)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and review_screen(app).analysis is None
        text = app.screen.text().plain
        assert " help\n" in text and " quit\n" in text and "(not now)" in text  # the rest is off


async def test_a_failed_save_tried_again_says_so_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toast de-duplication dropped the second 'could not save the mark' of a retry the
    first invited: an error is said every time."""
    from rouge_tui.store.marks import MarkStore

    def full_disk(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(MarkStore, "save", full_disk)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "a")
        failed = [n for n in app._notifications if n.message.startswith("could not save the mark")]
        assert len(failed) == 2


async def test_help_closes_on_q_without_quitting() -> None:
    """Issue 11, 11."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text().plain
        for word in ("rougeLsum", "unicode", "trunc", "mark fine"):
            assert word in text
        # every order s cycles through, in the words the status line uses, says what it is
        for words in ("by |delta|", "regressions first", "improvements first", "new movers first", "by id"):
            assert f"  {words} " in text, words
        assert "not flagged vol" in text
        await press(pilot, "q")
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        await press(pilot, "question_mark", "escape")
        assert isinstance(app.screen, ReviewScreen)


async def test_the_status_line_and_footer_at_80_columns() -> None:
    """Issue 11, 7: the left-out counts are all there, and the footer shows ? and the keys
    that matter most. A newcomer at 80 columns found neither the history nor the export
    (the footer stopped at m): h and e are there now, before the filter; the note, sort,
    metric, tokenizer and clear are in ? (and in the footer of a wider terminal)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "1 base only, 1 cand only, 1 no ref" in text
        footer = footer_text(app)
        assert footer.lstrip().startswith("? help")
        shown = ("q quit", "⏎ diff", "w walk", "a b u mark", "h history", "e export", "/ filter")
        assert [footer.index(key) for key in shown] == sorted(footer.index(key) for key in shown), footer
        await press(pilot, "question_mark")
        assert all(f"  {key:<8} " in app.screen.text().plain for key in "csmtx")  # and in ?


def lines_of(app, selector: str) -> str:
    """The lines on screen of the widget ``selector`` picks, one after the other."""
    region = app.screen.query_one(selector).region
    return "\n".join(screen_text(app).splitlines()[region.y : region.bottom])


def footer_text(app) -> str:
    """The footer's lines on screen."""
    return lines_of(app, "KeyBar")


def above_footer(app) -> str:
    """Everything on screen but the footer (whose keys say "c note", say)."""
    return "\n".join(screen_text(app).splitlines()[: app.screen.query_one("KeyBar").region.y])


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


@pytest.mark.parametrize(("width", "filtered"), [(80, True), (60, False), (60, True)])
async def test_the_status_line_keeps_every_count_with_marks_and_a_filter(width: int, filtered: bool) -> None:
    """Issue 11, 7: with marks set (and a filter), every count stays on the status line at
    80 columns; at 60 the left-out examples are still counted, never cut off."""
    app = app_for()
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "down", "b", "s")
        if filtered:
            await press(pilot, "slash")
            await type_text(pilot, "trunc")
            await press(pilot, "enter")
        screen = review_screen(app)
        line = lines_of(app, "#status")
        rows, paired = screen.table.row_count, screen.analysis.figures.paired
        assert rows < paired if filtered else rows == paired
        assert f"{rows}" in line and f"{paired}" in line and "2 marked" in line, line
        if filtered:
            assert "trunc" in line, line
        if width >= 80:
            assert "1 base" in line and "1 cand" in line and "1 no ref" in line, line
        else:
            assert "3 left out" in line or ("1 base" in line and "1 no ref" in line), line
        assert "…" not in line, line


async def test_tab_reaches_the_reference_pane_below_the_fold() -> None:
    app = app_for()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        view = app.screen.query_one(DiffView)
        assert len(view.panes) == 3 and view.render_line(0).text.startswith("[?]")  # the legend
        assert not any(line.startswith(" reference") for line in screen_text(app).splitlines())
        await press(pilot, "tab", "tab")  # pointed at by a symbol, not by colour alone
        lines = screen_text(app).splitlines()
        assert any(line.startswith("▶reference") for line in lines), lines
        assert not any(line.startswith(("▶baseline", "▶candidate", " reference")) for line in lines)
        await press(pilot, "tab")  # past the last pane: back to the top
        assert round(view.scroll_y) == view.panes[0] and view.current == view.panes[0]
        assert view.render_line(view.panes[0] - round(view.scroll_y)).text.startswith("▶")


# The chapter's pair (reference/rouge-chapter.txt): Summary A, two sentences, both a
# paraphrase of the reference (no counterpart by overlap); Summary B, the reference's first
# two sentences and most of its third, copied, then a closing sentence nobody wrote.
CLOSING = "The incident was caused by insufficient test coverage in the deployment pipeline."


async def open_chapter_pair(pilot) -> DiffView:
    await settle(pilot)
    await press(pilot, *["down"] * ranked_ids().index("inc-0042"), "enter")
    assert pilot.app.screen.example_id == "inc-0042"
    return pilot.app.screen.query_one(DiffView)


async def test_brackets_step_onto_the_flag_of_bs_invented_closing_sentence() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_chapter_pair(pilot)
        lines = diff_lines(view)
        baseline_pane, candidate_pane, reference_pane = view.panes
        stops: list[int] = []
        for _ in range(10):
            await press(pilot, "right_square_bracket")
            assert view.current is not None, "] went nowhere"
            if stops and view.current == stops[-1]:
                break
            stops.append(view.current)
        # A's two sentences, then B's closing one: three [?], nothing else to step to.
        assert len(stops) == 3, [lines[s] for s in stops]
        assert all(baseline_pane < s < candidate_pane for s in stops[:2])
        assert all(lines[s].count("[?]") == 1 for s in stops)
        assert candidate_pane < stops[2] < reference_pane
        assert "[?] " + CLOSING[:20] in lines[stops[2]]
        assert view.render_line(stops[2] - round(view.scroll_y)).text.startswith("▶")
        assert any("no more changes that way" in n.message for n in app._notifications)
        await press(pilot, *["right_square_bracket"] * 6)  # said once while it shows, not six times
        assert sum("no more changes that way" in n.message for n in app._notifications) == 1
        await press(pilot, "a", "b", "a")  # a message said again after another is said again
        said = [n.message for n in app._notifications if n.message.endswith((": fine", ": regression"))]
        assert [m.rsplit(": ", 1)[1] for m in said] == ["fine", "regression", "fine"]


async def test_o_shows_that_bs_closing_sentence_has_no_counterpart() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_chapter_pair(pilot)
        await press(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        text = app.screen.query_one(Static).content.plain
        assert text.splitlines()[0].endswith("(escape closes)")  # the footer is the diff's
        candidate = text[: text.index("\nbaseline · ")]
        # B's sentences are numbered 1 to 4; the closing one is 4., flagged, and said new.
        closing = candidate[candidate.index("  4. ") :]
        assert closing.startswith(f"  4. [?] {CLOSING}\n")
        assert "new: in none of them, nor in the baseline — read it" in closing
        for number in (1, 2, 3):  # the copied ones have a counterpart and no flag
            own = candidate[candidate.index(f"  {number}. ") : candidate.index(f"  {number + 1}. ")]
            assert "[?]" not in own and "read it" not in own
        await press(pilot, "escape")
        assert isinstance(app.screen, DiffScreen)


async def test_o_holds_supports_to_the_suites_min_support(tmp_path: Path) -> None:
    """With [grounding] min_support = 0.8, a sentence 6 of whose 10 words lie on an LCS with
    the reference (support 0.60) has no counterpart: not bold, and the screen says 0.8."""
    reference = "one two three four five six seven eight nine ten."
    candidate = "one two three four five six zebra yak wolf fox."
    suite = make_suite(
        tmp_path / "s", jsonl({"id": "a", "reference": reference}),
        {"1-old.jsonl": jsonl({"id": "a", "output": "alpha beta gamma."}),
         "2-new.jsonl": jsonl({"id": "a", "output": candidate})},
        "[grounding]\nmin_support = 0.8\n",
    )  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        content = app.screen.query_one(Static).content
        text = content.plain
        assert "(0.8 or more: a counterpart)" in text
        at = text.index("support 0.60")
        bold = [span for span in content.spans if span.start <= at < span.end and "bold" in str(span.style)]
        assert not bold, bold
        assert f"  1. [?] {candidate}" in text


async def test_an_empty_output_says_so_in_its_pane(tmp_path: Path) -> None:
    """A blank pane over 'P 0/0' looked like a drawing fault."""
    suite = make_suite(
        tmp_path / "s", jsonl({"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": "a dog ran"}),
        {"1-old.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "a dog ran"}),
         "2-new.jsonl": jsonl({"id": "a", "output": ""}, {"id": "b", "output": " \t "})},
    )  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = {}
        for _ in range(2):
            await press(pilot, "enter")
            await settle(pilot)
            seen[app.screen.example_id] = "\n".join(diff_lines(app.screen.view))
            await press(pilot, "escape", "down")
        assert "(empty output)" in seen["a"] and "(only whitespace)" not in seen["a"]
        assert "(only whitespace)" in seen["b"]
        assert "(empty output)" not in seen["a"].split("reference")[0].split("candidate")[0]  # not the baseline's


async def test_the_new_sentence_filter_lists_the_chapters_pair() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "slash")
        await type_text(pilot, "new-sentence")
        await settle(pilot)
        assert "'new-sentence'" in screen.query_one("#status").render().plain  # 80 columns: shortened
        ids = {screen.analysis.figures.ids[r] for r in screen.matches.tolist()}
        assert "inc-0042" in ids and screen.table.row_count == len(ids) < screen.analysis.figures.paired
        assert any("inc-0042" in line and "+sent" in line for line in table_lines(screen.table))


@pytest.mark.parametrize("sources", [True, False])
async def test_the_overview_shows_each_builds_copied_share_with_sources(tmp_path: Path, sources: bool) -> None:
    """SPEC: with a source, the overview shows each build's mean coverage and density (the
    values worked out by hand in suite_helpers); without one, nothing about copying."""
    app = app_for(copy_suite(tmp_path / "s", sources))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        history = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("history "))
        (cb, db), (cc, dc) = COPY_MEANS["baseline"], COPY_MEANS["candidate"]
        if sources:  # 0.90 -> 0.70 and 2.3 -> 2.1
            assert f"copied cov {cb:.2f}→{cc:.2f} dens {db:.1f}→{dc:.1f}" in history
        else:
            assert "copied" not in screen_text(app) and "cov " not in history


async def test_the_diff_grounds_with_the_whole_source_as_the_table_does(tmp_path: Path) -> None:
    """Issue 13: the diff's marks come from the same computation as the table's counts. A
    candidate sentence (and its figure 12:05) copied from the source's last line, past the
    first SHOWN characters: by SPEC it has a counterpart (support 1), so neither the table nor
    the diff flags it. A candidate longer than SHOWN: its new sentence past the cut counts in
    the table, and no mark is drawn for text the view does not show."""
    from rouge_tui.diff import SHOWN

    filler = " ".join(f"Filler line {i} says nothing of note." for i in range(SHOWN // 30))
    assert len(filler) > SHOWN
    copied = "The pool drained at 12:05 after the reindex."
    said = "Checkout failed for an hour."
    suite = make_suite(
        tmp_path / "s",
        jsonl({"id": "copied", "reference": said, "source": f"{filler}\n{copied}"},
              {"id": "long", "reference": said, "source": said},
              {"id": "same", "reference": said, "source": said}),
        {"1.jsonl": jsonl({"id": "copied", "output": said}, {"id": "long", "output": said},
                          {"id": "same", "output": said}),
         "2.jsonl": jsonl({"id": "copied", "output": f"{said} {copied}"},
                          {"id": "long", "output": f"{said} " * (SHOWN // len(said)) + "Zebras juggle quietly."},
                          {"id": "same", "output": said})},
    )  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids = review_screen(app).analysis.figures.ids
        table = table_lines(review_screen(app).table)
        rows = {i: next(line for line in table if f" {i} " in line) for i in ("copied", "long")}
        assert "+sent" not in rows["copied"] and "+fig" not in rows["copied"]
        assert "+sent" in rows["long"]
        await press(pilot, *["down"] * ids.index("copied"), "enter")
        assert app.screen.example_id == "copied"
        lines = diff_lines(app.screen.view)
        assert any("12:05" in line for line in lines)
        assert not any("[?] The pool" in line or "«" in line for line in lines[1:]), lines
        await press(pilot, "escape", "home", *["down"] * ids.index("long"), "enter")
        assert app.screen.example_id == "long"
        lines = diff_lines(app.screen.view)
        assert any("the candidate is" in line and "too long" in line for line in lines)
        assert not any("[?]" in line for line in lines[1:]), [line for line in lines if "[?]" in line]


async def test_walk_the_ten_then_the_flagged_and_stop_at_the_end() -> None:
    """SPEC "Triage": the walk covers the ten most-moved, then the flagged (the sample's
    candidate drifts on new figures among others), the header saying which list."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        flagged = [row["id"] for row in read_jsonl_report(INCIDENT)["flagged"]]
        assert flagged and not set(flagged) & set(ranked_ids()[:10])
        await press(pilot, "w")
        assert app.screen.example_id == ranked_ids()[0]
        assert "1/10" in app.screen.title_text(78).plain
        for _ in range(9):
            await press(pilot, "n")
        assert app.screen.example_id == ranked_ids()[9]
        await press(pilot, "n")
        assert app.screen.example_id == flagged[0]
        assert f"flagged 1/{len(flagged)}" in app.screen.title_text(78).plain
        for _ in range(len(flagged)):
            await press(pilot, "n")
        assert app.screen.example_id == flagged[-1]
        assert any("end of the walk" in n.message for n in app._notifications)


def read_jsonl_report(suite: Path) -> dict:
    """`report --format json` of ``suite``, run apart from the app (its own process)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "json", "--no-cache"],
                         capture_output=True, text=True, timeout=120, check=False).stdout
    return json.loads(out)


async def test_the_history_line_never_shows_the_comparison_befores_means() -> None:
    """A metric switch showed the new figures under the old metric's history line (B and C
    means of rougeL beside a rouge1 comparison) until the texts came: the line now says it
    is scoring from the moment the new figures are shown."""
    from rouge_tui.analysis.pipeline import analyse
    from rouge_tui.app.messages import AnalysisReady

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        line = next(line for line in screen_text(app).splitlines() if line.startswith(" history "))
        assert "8 builds" in line
        settings = screen.analysis.settings.switched(metric="rouge1")
        other = analyse(screen.suite, settings, screen.texts)
        screen.on_analysis_ready(AnalysisReady(other, "now rouge1"))
        await pilot.pause()
        line = next(line for line in screen_text(app).splitlines() if line.startswith(" history "))
        assert "scoring every build…" in line and "B " not in line, line


async def test_signal_labels_cut_visibly_in_the_table_and_the_overview() -> None:
    """Issue 11, 7: a row with `len- +sent +fig` lost `+fig` to the column's width with
    nothing to say so, and the overview's signal line ended `+…`; now the signals to read
    come first and whole labels are followed by `…` when some are left out."""
    from rouge_tui.analysis import signals

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        table = app.screen.query_one(MoversTable)
        # Three signals on one row; +sent, the one to read, first; no room for a third label.
        index = next(i for i, f in enumerate(figures.signals) if signals.names(int(f)) == ["truncated", "shorter", "new-sentence"])
        row = table.row_text(table.row_of(index), table.size.width).plain
        assert "+sent trunc…" in row, row


def overview_lines(app) -> list[str]:
    """The overview's lines on screen."""
    from rouge_tui.app.widgets.overview import Overview

    region = app.screen.query_one(Overview).region
    return screen_text(app).splitlines()[region.y : region.bottom]


async def test_a_new_overview_panel_is_one_class_with_its_height_and_help(monkeypatch: pytest.MonkeyPatch) -> None:
    """A panel declares its least height and its help line, and is listed once: the
    overview draws it and is that much taller before the figures come, the help explains it."""
    from rich.text import Text

    from rouge_tui.app.screens import help as help_module
    from rouge_tui.app.widgets import overview as overview_module

    class Weather(overview_module.Panel):
        height = 3
        help = (("sky", "what the weather was while the builds ran"),)

        def lines(self, overview, f, width):
            return [Text(f"sky clear over {f.paired} examples")]

    panels = (*overview_module.PANELS, Weather())
    for module in (overview_module, help_module):
        monkeypatch.setattr(module, "PANELS", panels)
    app = app_for()
    async with app.run_test(size=(80, 40)) as pilot:
        # title, signal drift, two builds, verdict, signals, history: 7 lines; and the sky's 3
        assert app.screen.query_one(overview_module.Overview).min_height == 7 + 3
        await settle(pilot)
        paired = review_screen(app).analysis.figures.paired
        assert f"sky clear over {paired} examples" in "\n".join(overview_lines(app))
        await press(pilot, "question_mark")
        assert "  sky        what the weather was while the builds ran\n" in app.screen.text().plain


async def test_nothing_in_the_overview_is_cut_at_80x24(tmp_path: Path) -> None:
    """Issue 38, 7 and 8: the signal counts stopped at `trunc 26 …` (dup, len-, vol never
    seen), `copied cov 0.79…`, and a long suite name cut the signature and the references'
    hash; what does not fit now goes on to a line of its own. And the first count a reader
    makes: how many examples improved and regressed by more than 0.01."""
    from rouge_tui.analysis import signals

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        lines = overview_lines(app)
        text = "\n".join(lines)
        assert not any(line.rstrip().endswith("…") for line in lines), text
        counted = signals.counts(figures.signals)
        fired = [s for s in SIGNALS if counted[s.name]]
        assert len(fired) >= 8  # the sample fires nearly all of them
        for s in fired:
            assert re.search(rf"(?<!\S){re.escape(s.short)} {counted[s.name]}(?!\S)", text), (s.short, text)
        deltas = incident_deltas().values()
        up, down = sum(d > 0.01 for d in deltas), sum(d < -0.01 for d in deltas)
        assert f"▲ {up} up  ▼ {down} down (|Δ|>0.01)" in text, text
        assert re.search(r"copied cov \d\.\d\d→\d\.\d\d dens \d\.\d→\d\.\d", text), text
        # The table still shows the ten (the signal drift line took the rule's row).
        assert re.search(rf"^ +10 {re.escape(figures.ids[9])} ", "\n".join(table_lines(review_screen(app).table)), re.MULTILINE)
    name = "Incident summaries of the payments platform, EU"
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "x y"}),
                       {"1.jsonl": jsonl({"id": "a", "output": "x"}), "2.jsonl": jsonl({"id": "a", "output": "y"})},
                       toml=f'name = "{name}"\n')  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        text = "\n".join(overview_lines(app))
        shown = figures.signature.rsplit("|seed:", 1)[0]  # (the seed is the report's, for every run)
        assert shown in text and f"refs {figures.reference_fingerprint[:12]}" in text, text
        assert not any(line.rstrip().endswith("…") for line in overview_lines(app)), text


def test_names_are_cut_from_the_middle_keeping_what_differs() -> None:
    """Issue 11, 5."""
    a, b = shorten_names(["2-pointer-gen", "3-pointer-gen-cov"], 10)
    assert a != b and len(a) <= 10 and len(b) <= 10 and b.endswith("cov")
    a, b = shorten_names(["run-2026-11-20-night", "run-2026-11-21-night"], 10)
    assert a != b and "0" in a and "1" in b
    assert shorten_names(["short"], 10) == ["short"]
    # Two nights: the middle cut read 2026-11…_aa3f5f and 2026-11…_9f03aa (which nights?).
    assert shorten_names(["2026-11-26_aa3f5f", "2026-11-27_9f03aa"], 15) == ["…-11-26_aa3f5f", "…-11-27_9f03aa"]
    assert shorten_names(["2026-11-26_aa3f5f", "2025-01-02_aa3f5f"], 15) == ["2026-11…_aa3f5f", "2025-01…_aa3f5f"]
    # A third name that differs early does not hide how the other two differ.
    for names, width in ((["2026-10-30_bbbbbb", "2026-11-26_aa3f5f", "2026-11-27_aa3f5f"], 15),
                         (["base", "run-2026-11-26-night", "run-2026-11-27-night"], 10)):
        cut = shorten_names(names, width)
        assert len(set(cut)) == 3 and all(len(c) <= width for c in cut), cut
        assert "26" in cut[1] and "27" in cut[2], cut


async def test_a_mark_in_the_diff_title_does_not_shorten_the_figures_before_it() -> None:
    """At 80 columns a marked example's title read '#1 · Δ+0.768 · 0.23→1.00 · fine' where
    the unmarked one read 'rank 1 · Δ +0.7684 · 0.2316 → 1.0000': fields are shortened from
    the last one now."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        index = app.screen.index
        figures = review_screen(app).analysis.figures
        figures_part = (f"rank {index + 1} · Δ {float(figures.delta[index]):+.4f} · "
                        f"{float(figures.baseline_f[index]):.4f} → {float(figures.candidate_f[index]):.4f}")
        assert figures_part in app.screen.title_text(78).plain
        await press(pilot, "a")
        title = app.screen.title_text(78).plain
        assert figures_part in title and "fine" in title, title


async def test_the_diff_title_keeps_rank_and_delta_with_a_stale_mark_at_60_columns() -> None:
    """Issue 11, 6: shortened words before dropped figures."""
    app = app_for()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await press(pilot, "b", "enter")
        title = app.screen.title_text(58).plain
        index = app.screen.index
        figures = review_screen(app).analysis.figures
        assert "#1" in title or "rank 1" in title
        assert f"{float(figures.delta[index]):+.3f}" in title
        assert "regr" in title


async def test_the_history_title_goes_on_to_a_second_line_not_off_the_edge(tmp_path: Path) -> None:
    """Issue 38, 7: at 80 columns the history's title lost its end (`· space`), the key
    that picks a build."""
    name = "Incident summaries of the payments platform, EU"
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "x y z"}),
                       {f"{n}.jsonl": jsonl({"id": "a", "output": "x y z"[: 2 * n + 1]}) for n in range(3)},
                       toml=f'name = "{name}"\n')  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        title = " ".join(line.strip() for line in screen_text(app).splitlines()[:2])
        assert f"{name}: 3 builds · B baseline, C candidate · space picks · Δ vs the build before" in title, title
        assert "…" not in title


async def test_enter_is_in_the_footer_of_the_history_and_of_the_list_of_suites(tmp_path: Path) -> None:
    """The lists' own enter binding hid the screen's from the footer: the key that compares
    (or opens) was only in the help."""
    import shutil

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        footer = footer_text(app)
        assert "⏎ compare" in footer and footer.index("⏎ compare") < footer.index("space pick")
        # keys queued together: enter compares the row the keys before it moved to (a
        # priority binding of the screen took the row before they moved)
        names = [b.name for b in review_screen(app).suite.builds]
        await burst(pilot, "up", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-3], names[-2])
    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident")
    shutil.copytree(SUPPORT, folder / "support")
    app = RougeApp(sorted(folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "⏎ open" in screen_text(app).splitlines()[-1]
        await burst(pilot, "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.suite.name == "Support answers"


async def test_history_lists_a_broken_build_and_picks_any_pair(tmp_path: Path) -> None:
    """Issue 11, 4: a bad line in a build not compared blocks nothing; the builds picker
    lists it with its file:line error."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "the cat sat", "b": "a dog ran"}) + "{broken\n")
    (suite / "builds" / "3.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    app = app_for(suite, baseline="1", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")
        await press(pilot, "h")
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "2.jsonl:3" in text
        await press(pilot, "home", "space", "down", "down", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")
        await press(pilot, "h", "home", "down", "enter")
        await settle(pilot)
        assert any("2.jsonl:3" in n.message for n in app._notifications), [n.message for n in app._notifications]


@pytest.mark.parametrize(("suite", "lines"), [
    (INCIDENT, [" baseline  2026-11-26_aa3f5f ", " candidate 2026-11-27_9f03aa "]),  # one run each
    (SUPPORT, ["  runs 3", "  runs 3"]),  # replicate runs: said on both lines
])
async def test_the_build_lines_at_80_columns_give_the_names_room(suite: Path, lines: list[str]) -> None:
    """A newcomer read "baseline  …-11-26_aa3f5f" and could not tell the year: "runs 1" on
    both lines took the room. The runs are shown when a build has several."""
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = screen_text(app).splitlines()[2:4]  # (under the title and the signal drift line)
        for line, part in zip(shown, lines):
            assert part in line, shown
        assert ("runs" in shown[0]) == (suite == SUPPORT), shown


async def test_a_broken_newest_build_opens_on_the_newest_pair_that_reads(tmp_path: Path) -> None:
    """A newcomer's suite: the night's build has a bad line and the one before is empty; the
    app refused to open at all (a bad build is the likely reason for the alert). Now it
    shows the two newest builds that read, says why, and h lists the broken ones."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    (suite / "builds" / "3.jsonl").write_text("")
    (suite / "builds" / "4.jsonl").write_text(rows("output", {"a": "the cat sat"}) + "{broken\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.return_code is None and isinstance(app.screen, ReviewScreen)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "2")
        said = [n.message for n in app._notifications if n.severity == "warning"]
        assert any("3.jsonl: empty file (no records)" in m and "showing 1 → 2" in m for m in said), said
        # The warning fades; the overview keeps saying it, so 1 → 2 never reads as the
        # night's verdict (a newcomer read "within band" and went back to bed). Through m too.
        app.clear_notifications()
        await settle(pilot)
        assert "! newest pair unreadable: 3 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "m")
        await settle(pilot)
        assert review_screen(app).analysis.settings.metric != "rougeL"
        assert "newest pair unreadable: 3 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "h")
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "4.jsonl:2" in text and "3.jsonl" in text


def pointed_rows(app) -> list[str]:
    return [row for row in screen_text(app).splitlines() if row.startswith(" ▶ ")]


async def test_the_history_and_suites_lists_point_at_the_cursors_row(tmp_path: Path) -> None:
    """A newcomer could not tell which build space would pick: only colour marked the row
    (nothing under NO_COLOR or in a plain capture). The row starts with ▶, as the review
    table's does, alone, and follows the cursor."""
    import shutil

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        names = [b.name for b in app.screen.suite.builds]
        assert [row.split()[2] for row in pointed_rows(app)] == [names[-1]]  # "▶ C name"
        await press(pilot, "k", "k", "space")
        await settle(pilot)
        assert [row.split()[2] for row in pointed_rows(app)] == [names[-3]]  # "▶ 1 name": picked
    for name in ("one", "two", "three"):
        shutil.copytree(INCIDENT, tmp_path / name)
    app = RougeApp([tmp_path / n for n in ("one", "two", "three")], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert len(pointed_rows(app)) == 1 and "in one" in pointed_rows(app)[0]
        await press(pilot, "j", "j")
        await settle(pilot)
        assert len(pointed_rows(app)) == 1 and "in three" in pointed_rows(app)[0]


async def test_the_unreadable_notice_names_the_build_and_belongs_to_the_pair_shown(tmp_path: Path) -> None:
    """A review of the notice: it stayed on after another pair was compared in h (even a
    mended one), said "an older pair" when the broken build was the baseline (1 → 3 shown),
    and cut the references' notice beside it. It names the build, shows only on the pair
    opened in its place, and both notices show whole."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    refs = suite / "references.jsonl"
    refs.write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    for name, outputs in (("1", {"a": "the cat", "b": "a dog"}), ("3", {"a": "cat sat", "b": "dog"})):
        (suite / "builds" / f"{name}.jsonl").write_text(rows("output", outputs))
    (suite / "builds" / "2.jsonl").write_text("{broken\n")
    app = app_for(suite)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")  # the newest build is in it
        assert "! newest pair unreadable: 2 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "h")
        await settle(pilot)
        assert "✗" in screen_text(app) and "end ⏎" not in screen_text(app).splitlines()[0]  # no way to 2 → 3
    refs.write_text(rows("reference", {"a": "the cat sat down", "b": "a dog ran"}))  # refs changed since
    app = app_for(suite)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        title = screen_text(app).splitlines()[0]
        assert "refs changed since" in title and "newest pair unreadable: 2 (h)" in title, title
        (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "the cat sat", "b": "a dog"}))
        await press(pilot, "h")
        await settle(pilot)
        assert screen_text(app).splitlines()[0].startswith(" end ⏎ compares the newest two ·")
        await press(pilot, "end", "enter")  # 2 → 3, mended: the newest pair, read
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("2", "3")
        title = screen_text(app).splitlines()[0]
        assert "unreadable" not in title and "refs changed since" in title, title


async def test_the_history_cursor_stops_at_the_first_and_the_last_build() -> None:
    """Up on the first build went to the last (the list wrapped round): up and k now stop
    at the first build, down and j at the last, as in the review table."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        builds = app.screen.query_one(OptionList)
        last = len(app.screen.suite.builds) - 1
        assert builds.highlighted == last  # the candidate, the last build of the sample
        await press(pilot, "down", "j")
        assert builds.highlighted == last
        await press(pilot, "home", "up", "k")
        assert builds.highlighted == 0
        await press(pilot, "down")
        assert builds.highlighted == 1


async def test_after_comparing_older_builds_the_history_says_the_way_back_and_it_works() -> None:
    """A newcomer compared two older builds in h and found no way back to the pair the alert
    was about (escape stays on the pair compared). The history's title now says it while
    another pair is shown, and end then enter compares the newest two again."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = [b.name for b in review_screen(app).suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        assert "end ⏎" not in screen_text(app).splitlines()[0]  # the newest pair is shown
        await press(pilot, "home", "down", "space", "down", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[1], names[2])
        await press(pilot, "h")
        await settle(pilot)
        assert screen_text(app).splitlines()[0].startswith(" end ⏎ compares the newest two ·")
        await press(pilot, "end", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-2], names[-1])


async def test_history_reads_again_a_build_mended_since_it_was_listed_unreadable(tmp_path: Path) -> None:
    """Build 2 has a bad line when the overview scores the history; it is mended; h reads it
    again, and it can be compared (it used to stay listed unreadable and refused)."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    good = rows("output", {"a": "the cat sat", "b": "a dog ran"})
    (suite / "builds" / "2.jsonl").write_text(good + "{broken\n")
    (suite / "builds" / "3.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    app = app_for(suite, baseline="1", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        assert screen.trend is not None and screen.trend[1][1].stats is None  # listed unreadable
        (suite / "builds" / "2.jsonl").write_text(good)
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert app.screen.builds[1].stats is not None and app.screen.builds[1].stats.mean == 1.0
        assert "2.jsonl:3" not in screen_text(app)
        await press(pilot, "home", "down", "enter")  # 2 against 1
        await settle(pilot)
        figures = screen.analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "2")


async def test_a_cold_open_with_earlier_builds_computes_once_and_says_nothing_changed(tmp_path: Path) -> None:
    """Four builds, an empty cache: the comparison is computed once; the app used to check
    it against its texts without the earlier builds, compute it all again and say "the
    files changed since their figures were cached"."""
    rows = lambda n: "".join(json.dumps({"id": i, "output": f"{t} {n}"}) + "\n" for i, t in (("a", "the cat"), ("b", "a dog")))
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    (suite / "references.jsonl").write_text('{"id": "a", "reference": "the cat sat"}\n{"id": "b", "reference": "a dog ran"}\n')
    for n in range(1, 5):
        (suite / "builds" / f"{n}.jsonl").write_text(rows(n))
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = review_screen(app).analysis
        assert (shown.figures.baseline.name, shown.figures.candidate.name) == ("3", "4")
        assert shown.fresh(review_screen(app).texts)
        assert not any("changed since" in n.message for n in app._notifications), [n.message for n in app._notifications]


def history_suite(root: Path, toml: str | None = None) -> Path:
    """Three builds of three examples whose references are all "a b c d"; build 1 has two
    identical runs (a zero-width band). rougeL F: "a b c d" 1, "a b c" 6/7, "a b" 2/3,
    "a" 2/5, "x" 0."""
    rows = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    first = rows({"a": "a b c d", "b": "a b", "c": "a"})
    return make_suite(root, jsonl(*({"id": i, "reference": "a b c d"} for i in "abc")), {
        "1": {"run-1.jsonl": first, "run-2.jsonl": first},
        "2.jsonl": rows({"a": "a b c", "b": "a b", "c": "a"}),
        "3.jsonl": rows({"a": "a b", "b": "a b", "c": "x"}),
    }, toml)  # fmt: skip


def history_lines(app: RougeApp) -> dict[str, str]:
    """Each build's line in the history view, by build name."""
    builds = app.screen.query_one(OptionList)
    names = [b.name for b in app.screen.suite.builds]
    return {name: builds.get_option_at_index(i).prompt.plain for i, name in enumerate(names)}


async def test_history_counts_the_marks_made_on_any_pair_with_that_candidate(tmp_path: Path) -> None:
    """Two marks made on (1, 3), one on (2, 3) in the app: build 3's line counts three."""
    from rouge_tui.analysis.pipeline import Caches, open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.review import Review
    from rouge_tui.suite.suite import open_suite

    suite = history_suite(tmp_path / "s")
    analysis = open_analysis(open_suite(suite), Settings(), "1", "3", caches=Caches.default())
    earlier = Review(analysis, analysis.texts.result())
    earlier.set_mark("a", "fine", "")
    earlier.set_mark("c", "regression", "")
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "h")
        await settle(pilot)
        lines = history_lines(app)
        assert lines["3"].split()[-1] == "3" and lines["3"].split()[-2] in "▼▲●"  # the marks column
        assert lines["2"].split()[-1] in "▼▲●" and lines["1"].split()[-1].endswith("]")  # none


async def test_history_verdicts_follow_the_comparisons_rule_min_delta(tmp_path: Path) -> None:
    """1 to 2 moves the mean by (6/7 - 1) / 3 = -0.048: outside build 1's zero-width band,
    within min_delta 0.05. The comparison says within band; so does build 2's line."""
    app = app_for(history_suite(tmp_path / "s", "[band]\nmin_delta = 0.05\n"), baseline="1", candidate="2")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert review_screen(app).analysis.figures.verdict == "within-band"
        await press(pilot, "h")
        await settle(pilot)
        line = history_lines(app)["2"]
        assert "-0.0476 ●" in line and "▼" not in line


async def test_the_history_line_shows_the_historys_means_beside_its_bars(tmp_path: Path) -> None:
    """Build 2 holds an example build 3 lacks: the build line gives 2's paired mean (a, b,
    c: (6/7 + 2/3 + 2/5) / 3 = 0.6413), the history line, whose bars draw every output, its
    history mean ((6/7 + 2/3 + 2/5 + 1) / 4 = 0.7310) and says so; 3's is (2/3 + 2/3) / 3."""
    rows = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "a b c d"} for i in "abcd")), {
        "2.jsonl": rows({"a": "a b c", "b": "a b", "c": "a", "d": "a b c d"}),
        "3.jsonl": rows({"a": "a b", "b": "a b", "c": "x"}),
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        lines = [line.plain for line in app.screen.query_one("Overview").lines(review_screen(app).analysis.figures, 98)]
        assert any("mean 0.6413" in line and "n 3" in line for line in lines), lines
        history = next(line for line in lines if line.startswith("history "))
        assert "B 0.7310  C 0.4444 (all outputs)" in history, history


async def test_h_opens_with_the_builds_the_overview_scored_and_scores_only_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overview's history line was made from every build for this comparison: h shows
    those builds at once (no second scoring); with none for this comparison, it scores them,
    and the lines are the same. Build 3 against 2 by hand: F (2/3 + 2/3 + 0) / 3 = 0.4444,
    the paired delta (0.4444 - (6/7 + 2/3 + 2/5) / 3) = -0.1968."""
    from rouge_tui.app.screens import history as history_view

    calls = []
    real = history_view.trend
    monkeypatch.setattr(history_view, "trend", lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    app = app_for(history_suite(tmp_path / "s"), baseline="2", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert review_screen(app).trend is not None
        await press(pilot, "h")
        known = history_lines(app)
        assert calls == [] and isinstance(app.screen, HistoryScreen)
        assert " 0.4444 [" in known["3"] and "-0.1968" in known["3"]
        await press(pilot, "escape")
        review_screen(app).trend = None  # as before the overview's line is made
        await press(pilot, "h")
        await settle(pilot)
        assert calls == [1] and history_lines(app) == known


async def test_history_verdicts_follow_the_comparisons_rule_band_from_history(tmp_path: Path) -> None:
    """With [band] source = "history", build 3's band is its mean 4/9 ± 2 · sd(31/45,
    202/315, 4/9: the means of builds 1-3) = [0.18, 0.71]; build 4's mean 2/15 lies below it
    (drift-down), though inside build 3's own analytic band [0, 0.89]."""
    suite = history_suite(tmp_path / "s", '[band]\nsource = "history"\n')
    (suite / "builds" / "4.jsonl").write_text(jsonl(*({"id": i, "output": t} for i, t in zip("abc", ("a", "x", "x")))))
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.band_source, figures.verdict) == ("history", "drift-down")
        await press(pilot, "h")
        await settle(pilot)
        assert "-0.3111 ▼" in history_lines(app)["4"]


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (60, 20, "from 80")])
async def test_history_fits_80_columns_one_line_a_build_under_its_column_header(size) -> None:
    """At 60 columns (and after a resize from 80 to 60) the band column goes: each line was
    wrapped in two."""
    app = app_for()
    async with app.run_test(size=(80, 24) if len(size) == 3 else size) as pilot:
        await settle(pilot)
        await press(pilot, "a", "h")
        await settle(pilot)
        if len(size) == 3:
            await pilot.resize_terminal(*size[:2])
            await settle(pilot)
        rows = screen_text(app).splitlines()
        names = [b.name for b in app.screen.suite.builds]
        top = app.screen.query_one("#history-columns").region.y  # under the title's line or two
        header, rows = rows[top], rows[top - 1 : app.screen.query_one("KeyBar").region.y]
        band = ["band"] if size[0] == 80 else []
        assert header.split() == ["build", "runs", "n", "mean", *band, "paired", "Δ", "marks"]
        assert rows[2 : 2 + len(names)] == [row for row in rows[2:] if row.strip()]  # nothing wrapped
        for name, row in zip(names, rows[2:]):
            assert name in row or "…" in row
            assert row.index(f"{app.screen.builds[names.index(name)].stats.mean:.4f}") == header.index("mean")
            assert max(map(len, rows)) <= size[0]
        candidate = rows[2 + len(names) - 1]
        assert candidate.startswith(" ▶ C") and candidate.rstrip().endswith(" 1")  # the cursor's row
        assert len(candidate.rstrip()) == len(header.rstrip())  # the count under "marks"
        assert candidate.index("-0.0352 ▼") == header.index("paired Δ")


async def test_the_history_title_gives_a_long_suite_name_whole_when_it_fits(tmp_path: Path) -> None:
    """The name was cut to 30 characters even at 120 columns."""
    import shutil

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    name = "Incident summaries of the payments platform"  # 43 characters
    toml = suite / "suite.toml"
    toml.write_text(toml.read_text().replace('name = "Incident summaries"', f'name = "{name}"'))
    for size in ((120, 30), (80, 24)):  # at 80, the rest of the title on a second line
        app = app_for(suite)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "h")
            await settle(pilot)
            title = lines_of(app, "#history-title")
            assert f" {name}: 8 builds" in title, title
            assert title.lstrip().startswith(name[:25])


async def test_replicate_runs_step_with_r_and_show_each_runs_f() -> None:
    """Issue 11, 16."""
    app = app_for(SUPPORT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = app.screen
        assert screen.runs == 3 and [len(f) for f in screen.run_scores] == [3, 3]
        assert "run 1 of 3" in screen.title_text(158).plain
        first = screen.query_one(DiffView).model.diff.candidate.text
        await press(pilot, "r")
        assert "run 2 of 3" in screen.title_text(158).plain
        texts = review_screen(app).texts
        assert screen.query_one(DiffView).model.diff.candidate.text == texts.candidate.runs[1].outputs[screen.example_id]
        assert first == texts.candidate.runs[0].outputs[screen.example_id]


async def test_the_title_gives_each_runs_f_of_the_build_that_has_several() -> None:
    """The baseline with three runs, the candidate with one: the title lists the baseline's
    three F (rouge-score's, by hand from the files) and the candidate's one; it gave the
    candidate's F three times."""
    base, cand = "2026-11-24_54c7f3", "2026-11-25_afab85"
    example = "inc-0028"
    refs = {r["id"]: r["reference"] for r in read_jsonl(INCIDENT / "references.jsonl")}
    runs = sorted((INCIDENT / "builds" / base).glob("*.jsonl"))
    base_f = [oracle_f(refs[example], next(r["output"] for r in read_jsonl(run) if r["id"] == example)) for run in runs]
    cand_f = oracle_f(refs[example], next(r["output"] for r in read_jsonl(INCIDENT / "builds" / f"{cand}.jsonl") if r["id"] == example))
    assert len(base_f) == 3 and len({round(f, 2) for f in base_f}) == 2  # the runs differ
    app = app_for(baseline=base, candidate=cand)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "slash", *example, "enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == example
        scores = " ".join(f"{f:.2f}" for f in base_f)
        # It opens on the run whose F moved most (SPEC "Triage"), the first of equals, and r
        # goes on round from there.
        moved = max(range(3), key=lambda r: (abs(cand_f - base_f[r]), -r))
        for step in range(3):
            run = (moved + step) % 3 + 1
            most = " moved most" if step == 0 else ""
            assert f"run {run} of 3{most} (F base {scores}, cand {cand_f:.2f})" in app.screen.title_text(158).plain
            # at 80 columns, the run's own two F
            assert app.screen.title_text(78).plain.endswith(f"run {run}/3 F {base_f[run - 1]:.2f}→{cand_f:.2f}")
            await press(pilot, "r")
        assert screen is review_screen(app)


async def test_a_marked_examples_title_still_says_which_run_at_80_columns() -> None:
    """With a mark, the run field (the last) was dropped: r stepped runs with nothing on
    screen saying which one was shown."""
    app = app_for(baseline="2026-11-24_54c7f3", candidate="2026-11-25_afab85")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "a")
        await settle(pilot)
        for run in (1, 2, 3):
            title = app.screen.title_text(78).plain
            assert f"run {run}/3" in title and "fine" in title, title
            for width in (68, 58, 48):  # narrower: other fields go first, the run's number stays
                assert f"run {run}/3" in app.screen.title_text(width).plain, width
            await press(pilot, "r")


async def test_marks_persist_and_come_back() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "down", "b", "down", "u")
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        review = review_screen(app).review
        top = ranked_ids()
        assert [review.get(i).word for i in top[:3]] == ["fine", "regression", "unsure"]
        lines = table_lines(app.screen.query_one(MoversTable))
        # whole words at 80 columns (issue 38, 7: it read `unsu`)
        assert lines[1].rstrip().endswith(" fine") and lines[2].rstrip().endswith(" regression")
        assert lines[3].rstrip().endswith(" unsure")


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


async def test_another_sessions_mark_shows_within_seconds() -> None:
    """Issue 11, 17: the other session's mark is shown as soon as it is saved."""
    from rouge_tui.review import Review

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        other = Review(screen.analysis, screen.texts)
        other.set_mark(ranked_ids()[4], "regression")
        for _ in range(40):
            await pilot.pause(0.1)
            if screen.review.get(ranked_ids()[4]) is not None:
                break
        assert screen.review.get(ranked_ids()[4]).word == "regression"


async def test_export_follows_the_umask_and_lists_every_one_of_the_ten(tmp_path: Path) -> None:
    import os
    import stat

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "b", "e")
        await settle(pilot)
        paths = app.exported
    assert [p.suffix for p in paths] == [".md", ".html"]
    mask = os.umask(0)
    os.umask(mask)
    for path in paths:
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    text = paths[0].read_text(encoding="utf-8")
    flagged = [row["id"] for row in read_jsonl_report(INCIDENT)["flagged"]]  # after the ten
    assert text.count("not reviewed") == 9 + len(flagged) and "regression" in text
    for example_id in ranked_ids()[:10] + flagged:
        assert f"{example_id}: " in text


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


async def test_a_folder_of_suites_lists_each_with_its_verdict(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident-summaries-with-a-long-folder-name")
    shutil.copytree(SUPPORT, folder / "support-answers")
    (folder / "broken" / "builds").mkdir(parents=True)
    (folder / "broken" / "references.jsonl").write_text("{oops\n")
    app = RougeApp(sorted(p for p in folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Incident summaries in incid" in text  # the folder, cut to leave room for the verdict
        assert "drift-down" in text and "within band" in text
        assert "broken" in text and "✗" in text
    # Each suite by its suite.toml name (SPEC "Interfaces": name, builds, latest verdict),
    # the folder it is in beside it.
    app = RougeApp(sorted(p for p in folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(160, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        line = next(line for line in lines if "Incident summaries" in line)
        assert "Incident summaries in incident-summaries-with-a-long-folder-name  8 builds · ▼ drift-down" in line
        assert any(line.lstrip(" ▶").startswith("Support answers") for line in lines)


async def test_the_list_of_suites_gives_the_verdict_the_opened_suite_shows_config_and_flags_too(
    tmp_path: Path, isolated_state: Path
) -> None:
    """config.toml and the flags settle the list's verdicts as they settle the opened
    suite's (the list used the built-in defaults: rougeL where config.toml said rouge1)."""
    import re
    import shutil

    from rouge_tui.store.paths import config_dir

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident")
    shutil.copytree(SUPPORT, folder / "support")
    toml = folder / "incident" / "suite.toml"  # no metric of its own: config.toml's applies
    toml.write_text("".join(line for line in toml.read_text().splitlines(True) if not line.startswith("metric")))

    async def listed_then_opened(options: argparse.Namespace) -> tuple[str, float]:
        app = RougeApp(sorted(folder.iterdir()), options)
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            line = next(line for line in screen_text(app).splitlines() if "incident" in line and "Δ" in line)
            listed = re.search(r"Δ ([+-][0-9.]+)", line).group(1)
            await press(pilot, "home", "enter")
            await settle(pilot)
            return listed, review_screen(app).analysis.figures.delta_mean

    default_listed, default_opened = await listed_then_opened(argparse.Namespace())
    assert default_listed == f"{default_opened:+.4f}"
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text('metric = "rouge1"\n')
    listed, opened = await listed_then_opened(argparse.Namespace())
    assert listed == f"{opened:+.4f}" and listed != default_listed
    flagged, opened = await listed_then_opened(argparse.Namespace(metric="rouge2"))
    assert flagged == f"{opened:+.4f}" and flagged not in (listed, default_listed)
    # --baseline and --candidate too (the support suite has no such builds: it says why)
    pair = argparse.Namespace(baseline="2026-11-25_afab85", candidate="2026-11-26_aa3f5f")
    picked, opened = await listed_then_opened(pair)
    assert picked == f"{opened:+.4f}" and picked not in (listed, default_listed)


async def test_the_list_of_suites_keeps_to_no_cache(tmp_path: Path) -> None:
    """--no-cache reads and writes no cache, in the list of suites too (it scored every suite
    through the cache whatever the flag said); without the flag, the list fills it."""
    import shutil

    from rouge_tui.store.paths import cache_dir

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident")
    shutil.copytree(SUPPORT, folder / "support")

    async def cached_after_listing(options: argparse.Namespace) -> list[Path]:
        app = RougeApp(sorted(folder.iterdir()), options)
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            assert sum("Δ" in line for line in screen_text(app).splitlines()) == 2  # both compared
        return [path for path in cache_dir().rglob("*") if path.is_file()] if cache_dir().exists() else []

    assert await cached_after_listing(argparse.Namespace(no_cache=True)) == []
    assert await cached_after_listing(argparse.Namespace()) != []


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


def carried_mark_suite(tmp_path: Path) -> Path:
    """Builds 1-base, 2-cand and the same two again as 3-base, 4-cand; t1 marked regression
    with a note on (1-base, 2-cand), so it shows carried on the default pair (3-base, 4-cand)."""
    from test_review import BASELINE, CANDIDATE, write_suite
    from test_review import review as pair_review

    suite = write_suite(tmp_path / "s", **{"1-base": BASELINE, "2-cand": CANDIDATE, "3-base": BASELINE, "4-cand": CANDIDATE})
    pair_review(suite, "1-base", "2-cand").set_mark("t1", "regression", "cut at 02:14")
    return suite


async def test_a_carried_mark_shows_where_it_came_from_and_its_note_in_the_diff(tmp_path: Path) -> None:
    """Issue 14, 4: a mark carried from another pair says so in the diff, with that pair's
    names, and its note is on screen (nothing the user wrote is hidden behind a key)."""
    suite = carried_mark_suite(tmp_path)
    app = app_for(suite)  # the last two builds: 3-base and 4-cand
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        ids = screen.analysis.figures.ids
        screen.table.cursor = screen.table.row_of(ids.index("t1"))
        await press(pilot, "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "regression carried from 1-base → 2-cand" in text
        assert "note cut at 02:14" in text
        # another example, unmarked: no mark line at all
        await press(pilot, "escape")
        screen.table.cursor = screen.table.row_of(ids.index("o2"))
        await press(pilot, "enter")
        await settle(pilot)
        assert "carried from" not in above_footer(app) and "note " not in above_footer(app)
        await press(pilot, "c")
        await settle(pilot)
        await type_text(pilot, "a fuller answer")
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert "note a fuller answer" in screen_text(app)


async def test_the_history_views_deltas_are_paired_and_the_compared_rows_is_the_overviews() -> None:
    """A number on screen belongs to the comparison on screen: the compared pair's row shows
    the overview's delta, and every other row the mean paired delta of its two builds (the
    whole-build means differ from it: -0.0362 against -0.0352 on the compared pair)."""
    import math

    from test_app_helpers import oracle_f, read_jsonl

    refs = {r["id"]: r["reference"] for r in read_jsonl(INCIDENT / "references.jsonl")}
    first, second = (
        {r["id"]: r["output"] for r in read_jsonl(INCIDENT / "builds" / name)}
        for name in ("2026-11-21_92175c.jsonl", "2026-11-22_c66672.jsonl")
    )
    shared = [i for i in first if i in second and refs.get(i, "").strip()]
    by_hand = math.fsum(oracle_f(refs[i], second[i]) - oracle_f(refs[i], first[i]) for i in shared) / len(shared)
    overview = math.fsum(incident_deltas().values()) / len(incident_deltas())
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        text = screen_text(app)
    row = next(line for line in text.splitlines() if "2026-11-22" in line)
    assert f"{by_hand:+.4f}" in row, row
    row = next(line for line in text.splitlines() if "2026-11-27" in line)
    assert f"{overview:+.4f}" in row and "▼" in row, row


@pytest.mark.parametrize("typed", ['"root cause"', "root cause"])
async def test_a_text_filter_quoted_or_not_is_shown_reversed_in_the_diff(typed: str) -> None:
    """README: matches are shown reversed in the diff; the quotes that make a query text
    are not part of what is looked for (a quoted filter showed nothing)."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, typed)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        view = app.screen.query_one(DiffView)
        assert view.model.query == "root cause"
        candidate = view.model.outputs[1]
        assert "root cause" in candidate.casefold()


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_what_moved_is_on_the_overviews_verdict_line_at_80_columns(size: tuple[int, int]) -> None:
    """Issue 14, 5: precision's and recall's paired deltas and the ten's share, in the
    overview; at 80 columns the interval's digits and the band's source give way to them,
    and whatever cannot fit is left out with a visible "…", never silently."""
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        f = review_screen(app).analysis.figures
        lines = screen_text(app).splitlines()
        at = next(n for n, line in enumerate(lines) if "drift-down" in line)
    # The verdict's parts go on to the next line where the width is short, never cut (issue 38).
    line = lines[at] + " " + lines[at + 1]
    assert f"Δ {f.delta_mean:+.4f}" in line and f"P {f.delta_precision:+.3f}" in line
    assert f"R {f.delta_recall:+.3f}" in line and f"ten {f.top_share:.0%}" in line
    assert not lines[at].rstrip().endswith("…")


async def test_the_diff_titles_short_mark_uses_the_tables_symbols(tmp_path: Path) -> None:
    """A short diff title wrote one "*" for a note and for a carried mark alike; it now
    writes the mark as the table does: ↻ carried, ? stale, + a note."""
    suite = carried_mark_suite(tmp_path)
    app = app_for(suite)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        screen.table.cursor = screen.table.row_of(screen.analysis.figures.ids.index("t1"))
        row = next(line for line in table_lines(screen.table) if " t1 " in line)
        await press(pilot, "enter")
        await settle(pilot)
        title = app.screen.title_text(58).plain
    assert "regr↻+" in row and "regr↻+" in title, (row, title)


async def test_the_history_views_header_shows_what_was_picked_at_80_columns() -> None:
    """The picked builds were the end of a line cut at 80 columns: they come first now, in the
    history's order (the newer was picked first: it is still the candidate)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "up", "space", "up", "space")
        await settle(pilot)
        head = screen_text(app).splitlines()[0]
    assert "picked 2026-11-25_afab85 → 2026-11-26_aa3f5f (enter compares them)" in head, head


async def test_the_history_title_counts_a_wide_suite_name_in_cells(tmp_path: Path) -> None:
    """Five CJK characters are ten cells: the title then has no room for 'Δ vs the build
    before', which was added (counted as five) and cut."""
    import shutil

    from rich.cells import cell_len

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    toml = suite / "suite.toml"
    toml.write_text(toml.read_text().replace('name = "Incident summaries"', 'name = "事故の要約"'))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        title = lines_of(app, "#history-title")  # what does not fit goes on to a second line
        assert "· space picks · Δ vs the build before" in " ".join(line.strip() for line in title.splitlines()), title
        assert all(cell_len(line) <= 80 for line in title.splitlines())


async def test_the_history_views_title_says_space_picks_at_80_columns() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        assert "· space picks" in screen_text(app).splitlines()[0]


async def test_two_builds_picked_newest_first_compare_the_older_as_the_baseline() -> None:
    """A newcomer picked the candidate, then the build before it, and got the regression as
    drift-up; the history's order now says which is the baseline. A third pick replaces the
    first of the two picked."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = [b.name for b in review_screen(app).suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "end", "space", "up", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-2], names[-1])
        assert figures.verdict == "drift-down"
        await press(pilot, "h")
        await settle(pilot)
        # picked: the last, the first, then the third: the first and the third are compared
        await press(pilot, "end", "space", "home", "space", "down", "down", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[0], names[2])


async def test_clearing_the_filter_keeps_the_example_under_the_cursor() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "trunc")
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "down", "down")
        chosen = current_id(app)
        await press(pilot, "escape")
        await settle(pilot)
        assert review_screen(app).filter_text == "" and review_screen(app).table.row_count > 30
        assert current_id(app) == chosen


async def test_side_by_side_each_column_has_its_title_and_arithmetic_over_it() -> None:
    """At 120 columns both pane titles sat together at the left and both LCS lines stacked
    under the left column, so a reader could not tell which column was which."""
    app = app_for()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "inc-0042")
        await press(pilot, "enter", "enter")
        await settle(pilot)
        lines = screen_text(app).splitlines()
    title = next(line for line in lines if " baseline · " in line)
    left, right = title.split("│")
    assert "baseline ·" in left and "candidate ·" in right
    sums = next(line for line in lines if line.startswith("LCS 16"))
    left, right = sums.split("│")
    assert "F 0.31" in left and "LCS 46" in right and "F 0.81" in right


async def test_a_metric_its_engine_refuses_is_said_and_m_steps_past_it(tmp_path, monkeypatch) -> None:
    """rougeLsum past its table (`engine.MOST_LSUM_CELLS`) on one example: `m` says which
    example and why, the comparison shown stays, nothing waits for it, and the next `m`
    goes on to rouge1 instead of asking for rougeLsum again."""
    from rouge_tui.rouge import engine

    monkeypatch.setattr(engine, "MOST_LSUM_CELLS", 50 * 50)
    long_line = " ".join(f"w{i % 5}" for i in range(60))
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "the cat sat"}, {"id": "long", "reference": long_line}),
                       {"1-old.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "long", "output": long_line}),
                        "2-new.jsonl": jsonl({"id": "a", "output": "a cat sat"}, {"id": "long", "output": long_line + " w9"})})
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        shown = screen.analysis
        await burst(pilot, "m", "enter")
        assert screen.analysis is shown and shown.settings.metric == "rougeL"
        said = [n.message for n in app._notifications if "rougeLsum cannot score" in n.message]
        assert said and "example 'long'" in said[0] and "rougeL can" in said[0]
        assert not isinstance(app.screen, DiffScreen)  # the diff that waited is not opened on rougeL
        await press(pilot, "m")
        await settle(pilot)
        assert screen.analysis.settings.metric == "rouge1"
        assert app.return_code is None
        # Refused again (rouge1 -> rouge2 -> rougeL -> rougeLsum): t then steps the tokenizer
        # of the comparison shown, rougeL's, not the refused rougeLsum's.
        await press(pilot, "m", "m")
        assert screen.analysis.settings.metric == "rougeL"
        await press(pilot, "m")
        assert screen.analysis.settings.metric == "rougeL" and screen.refused == ("metric", "rougeLsum")
        await press(pilot, "t")
        assert (screen.analysis.settings.metric, screen.analysis.settings.tokenizer) == ("rougeL", "rouge-score")


async def test_only_the_request_asked_for_last_moves_the_screen() -> None:
    """The comparison and the failure of a request superseded by a later one (a worker
    cancelled too late to stop it) neither show nor end the wait for the later one: a diff
    waiting for it stays waiting, and opens on it."""
    from rouge_tui.app.messages import AnalysisReady, WorkFailed
    from rouge_tui.app.screens.review import Asked

    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        old = screen.analysis
        screen.requests = 1  # as if request 1 had been made and superseded
        screen.asked = None
        await burst(pilot, "m", "enter")  # request 2 (rougeLsum), and a diff waiting for it
        assert screen.analysis.settings.metric == "rougeLsum" and isinstance(app.screen, DiffScreen)
        await press(pilot, "escape")
        screen.asked = Asked(3, old.settings, None, "scoring rougeL", ("metric", "rougeL"))
        screen.waiting = [(lambda: None, "the diff opens")]
        screen.post_message(AnalysisReady(old, "now rougeL", request=2))  # request 2's, late
        screen.post_message(WorkFailed("request 2 failed", request=2))
        await settle(pilot)
        assert screen.analysis.settings.metric == "rougeLsum"  # not moved back by request 2
        assert screen.asked is not None and screen.asked.number == 3 and len(screen.waiting) == 1
        screen.post_message(WorkFailed("request 3 failed", request=3))
        await settle(pilot)
        assert screen.asked is None and screen.waiting == [] and screen.refused == ("metric", "rougeL")


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


async def test_a_note_cut_in_the_diff_header_says_so() -> None:
    """A note longer than the line ends with an ellipsis and how to read it all, so a cut
    note never reads as the whole note (a newcomer's 'must NOT ship this' lost its NOT
    half at 60 columns); a note that fits is shown whole."""
    note = ("The candidate drops the webhook retry detail entirely and invents a 70% figure; "
            "the on-call must NOT ship this build, page the model owner")
    for width in (60, 80, 120):
        app = app_for()
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            review_screen(app).review.set_mark(current_id(app), "regression", note)
            await press(pilot, "enter")
            line = next(line for line in screen_text(app).splitlines() if " note The candidate" in line)
            assert line.rstrip().endswith("… c: the whole note"), (width, line)
            assert len(line.rstrip()) <= width
    app = app_for()
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        review_screen(app).review.set_mark(current_id(app), "fine", "short and whole")
        await press(pilot, "enter")
        assert any(line.rstrip().endswith("note short and whole") for line in screen_text(app).splitlines())


async def test_the_diff_title_counts_a_wide_id_in_cells(tmp_path: Path) -> None:
    """An id of 25 CJK characters is 50 cells: cut to the title's room in cells, so the
    rank, Δ and scores after it stay on screen at 80 columns (counted as 25, it pushed them
    off)."""
    from rich.cells import cell_len

    wide = "漢字テスト" * 5
    suite = make_suite(tmp_path / "s", jsonl({"id": wide, "reference": "the cat sat on the mat"}, {"id": "b", "reference": "a dog ran"}),
                       {"1-old.jsonl": jsonl({"id": wide, "output": "the cat sat on the mat"}, {"id": "b", "output": "a dog ran"}),
                        "2-new.jsonl": jsonl({"id": wide, "output": "a cat"}, {"id": "b", "output": "a dog ran"})})
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == wide
        title = app.screen.title_text(78).plain
        assert cell_len(title) <= 78 and "漢字テ…" in title
        assert "#1 · Δ-0.750 · 1.00→0.25" in title, title


async def test_the_tables_keys_pressed_in_a_diff_say_where_they_work() -> None:
    """m, t, s, /, w and h did nothing at all in a diff (a newcomer tried each): now each
    says it works in the review table, and changes nothing; the help lists none of them
    as a key of the diff, and says what ▼ ▲ ● mean."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        shown = screen.analysis
        await press(pilot, "enter")
        diff = app.screen
        for key, said in (("m", "m switches the metric"), ("t", "t switches the tokenizer"), ("s", "s sorts"),
                          ("slash", "/ filters"), ("w", "w walks the ten"), ("h", "h shows the history")):
            await press(pilot, key)
            assert app.screen is diff and screen.analysis is shown
            assert any(n.message == f"{said} in the review table: q or escape goes back to it" for n in app._notifications), key
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.text().plain
        assert "switches the metric" not in help_text and "walks the ten" not in help_text
        assert "▼ drift-down, ▲ drift-up, ● within band" in help_text


async def test_a_build_that_cannot_be_read_stays_on_its_line_and_cannot_be_picked(tmp_path: Path) -> None:
    """A build directory with no run files: its error wrapped out of the history's table
    to column 0 at 80 columns, and picking it only failed later. Its line is now cut to
    the screen, and space or enter on it says the whole error and picks nothing."""
    import shutil

    from rich.cells import cell_len

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    (suite / "builds" / "2026-11-25z_empty").mkdir()
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = review_screen(app).analysis
        await press(pilot, "h")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        broken = [i for i, line in enumerate(lines) if "2026-11-25z_empty" in line]
        assert len(broken) == 1 and lines[broken[0]].rstrip().endswith("…")
        assert "2026-11-26" in lines[broken[0] + 1] and all(cell_len(line.rstrip()) <= 80 for line in lines)
        history = app.screen
        names = [b.name for b in history.suite.builds]
        history.query_one(OptionList).highlighted = names.index("2026-11-25z_empty")
        for key in ("space", "enter"):
            await press(pilot, key)
            assert app.screen is history and history.picked == []
            said = [n.message for n in app._notifications if n.message.startswith("2026-11-25z_empty cannot be compared:")]
            assert said and said[-1].endswith("build directory holds no run files (*.jsonl, *.jsonl.gz, *.csv or *.parquet)")
        await press(pilot, "escape")
        assert review_screen(app).analysis is shown


async def test_enter_while_another_build_pair_scores_opens_that_pairs_top_row() -> None:
    """Enter typed while a pair picked in h is scored opened the example the cursor had
    been on, deep in the new pair's ranking (a newcomer's 'row 27/11490'); a new pair's
    diff opens where its table starts, its most-moved example. While the suite is still
    loading, enter and w say so instead of nothing."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "j", "j", "j")
        names = [b.name for b in screen.analysis.suite.builds]
        screen.ask(screen.analysis.settings, (names[3], names[5]), "comparing")
        await burst(pilot, "enter")
        figures = screen.analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[3], names[5])
        assert isinstance(app.screen, DiffScreen) and app.screen.index == 0
        assert app.screen.example_id == figures.ids[0]
        await press(pilot, "escape")
        screen.analysis = None  # as before the first figures
        screen.action_open_diff()
        screen.action_walk()
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "the suite is still loading: enter opens a diff once the table shows" in said
        assert "the suite is still loading: w walks the ten once the table shows" in said
        assert not isinstance(app.screen, DiffScreen)


async def test_clearing_a_mark_says_when_a_carried_one_shows_again(tmp_path: Path) -> None:
    """x on a mark made on this pair, where another pair's mark carries: the row reads the
    carried mark again, and the message says so (it said only 'cleared'); x on the carried
    mark says it is carried and what replaces it."""
    suite = carried_mark_suite(tmp_path)
    app = app_for(suite)  # 3-base -> 4-cand; t1 carries a regression from 1-base -> 2-cand
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        screen.table.cursor = screen.table.row_of(screen.analysis.figures.ids.index("t1"))
        await press(pilot, "x")
        assert any("the regression mark shown is carried from another pair" in n.message for n in app._notifications)
        await press(pilot, "a", "x", "y")
        said = [n.message for n in app._notifications if n.message.startswith("t1: the fine mark cleared")]
        assert said == ["t1: the fine mark cleared; the regression mark carried from 1-base → 2-cand shows again"]
        assert screen.review.get("t1").carried_from == ("1-base", "2-cand")


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


async def test_a_diff_with_replicate_runs_opens_on_the_run_that_moved_most(tmp_path: Path) -> None:
    """SPEC "Triage", replicate runs: the whole move of "noisy" is in run 2; the diff opened on
    run 1, identical on both sides, beside its Δ."""
    from test_triage import replicate_suite

    app = app_for(replicate_suite(tmp_path / "s"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert current_id(app) == "noisy"
        row = next(line for line in table_lines(app.screen.query_one(MoversTable)) if "noisy" in line)
        assert "+fig1/2" in row  # its invented figure is in one of the two runs
        await press(pilot, "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.run == 1
        assert "run 2/2 moved most" in app.screen.title_text(98).plain
        await press(pilot, "r")
        assert app.screen.run == 0 and "moved most" not in app.screen.title_text(98).plain


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


async def test_a_sort_shows_its_first_rows_with_the_cursor_on_the_first() -> None:
    """Issue 38, 4: `s` kept the cursor's example, so after "regressions first" the screen
    showed the end of the list. After a sort, the cursor is on its first row, in view."""
    deltas = incident_deltas()
    low, high = min(deltas.values()), max(deltas.values())
    assert sorted(deltas.values()).count(low) == sorted(deltas.values()).count(high) == 1
    firsts = {  # each order's first example, from the oracle's deltas
        "regressions first": next(i for i, d in deltas.items() if d == low),
        "improvements first": next(i for i, d in deltas.items() if d == high),
        "by id": min(deltas),
    }
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        for words, first in firsts.items():
            await press(pilot, "G")
            while SORTS[screen.sort].words != words:
                await press(pilot, "s")
            assert screen.table.cursor == 0 and round(screen.table.scroll_y) == 0, words
            top = table_lines(screen.table)[1]
            assert top.startswith("▶") and f" {first} " in top, (words, top)


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


def test_history_bars_scale_to_the_band_and_equal_means_draw_equal_bars() -> None:
    """Issue 38, 5: scaled min to max, two means equal to four decimals drew a cliff (█▁).
    Worked by hand (8 levels, 0-7): the scale spans at least the band's width, centred on
    the means, rounded from the baseline's mean."""
    assert trend_levels([0.36171, 0.36168], 0.04, 0.36171) == [4, 4]  # 3.5026 and 3.4974: both from 4
    assert trend_levels([0.5, 0.5, 0.5], 0.0, 0.5) == [3, 3, 3]  # no span at all: the middle
    assert trend_levels([0.30, 0.34], 0.04, 0.30) == [0, 7]  # a move of the band's whole width
    assert trend_levels([0.30, 0.31], 0.04, 0.30) == [3, 5]  # a quarter of it: 2.625 -> 3, 4.375 + 0.375 -> 5
    assert trend_levels([0.1, 0.52, 0.9], 0.04, 0.52) == [0, 4, 7]  # beyond the band: min to max; 3.675 -> 4
    assert trend_levels([], 0.04) == []


async def test_the_history_line_draws_two_nearly_equal_means_as_equal_bars(tmp_path: Path) -> None:
    """Issue 38, 5: the history line of two builds whose means differ by 0.005, well inside
    the band (about ±0.2 here), drew `█▁`; it draws two equal bars."""
    words = [f"w{n}" for n in range(10)]
    reference = " ".join(words)
    kept = [3, 5, 7, 9, 4, 6, 8, 10, 2, 5]  # how many of the reference's words each output keeps
    rows = lambda counts: jsonl(*({"id": str(i), "output": " ".join(words[:c])} for i, c in enumerate(counts)))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": str(i), "reference": reference} for i in range(10))), {
        "1.jsonl": rows(kept),
        "2.jsonl": rows([*kept[:9], 6]),  # one output keeps one word more
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        history = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("history "))
        bars = history.split("history ", 1)[1].split()[0]
        assert len(bars) == 2 and bars[0] == bars[1], history


async def test_a_tiny_delta_interval_is_not_shown_as_zeros_at_80_columns(tmp_path: Path) -> None:
    """Issue 38, 10: `95% [-0.000, -0.000]` at 80 columns read as no change at all. One of
    2,000 outputs loses a word (F 1 -> 6/7): the mean delta is -1/14,000 with a standard
    error of about 0.00007, so both ends are under 0.0005 from zero, one on each side."""
    ids = [f"e{n:04}" for n in range(2000)]
    rows = lambda first: jsonl(*({"id": i, "output": first if i == ids[0] else "a b c d"} for i in ids))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "a b c d"} for i in ids)), {
        "1.jsonl": rows("a b c d"), "2.jsonl": rows("a b c"),
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        low, high = figures.delta_interval
        assert -0.0005 < low < 0 < high < 0.0005  # the premise, from the figures
        line = next(line for line in screen_text(app).splitlines() if "95% " in line)
        # The paired bootstrap's ends, by hand: a resample draws the one moved output K times,
        # K ~ Poisson(1) near enough; P(K >= 3) = 8% and P(K >= 4) = 1.9%, so the 2.5th
        # percentile is 3 draws, -3/14,000; P(K = 0) = 37%, so the 97.5th is exactly zero.
        low, high = figures.delta_test["interval"]
        assert (round(low * 14_000), high) == (-3, 0.0), (low, high)
        assert "95% [-0.0002, +0.0000]" in line, line
        # Recall falls by 1/4 in one output of 2,000 (-0.000125); precision stays 3/3: zero.
        assert "R -<0.001" in line and "P +0.000" in line, line


async def test_help_entries_wrap_under_their_description_not_at_column_0() -> None:
    """Issue 38, 10: the help's long entries (the filter, the overview's words) went on at
    column 0, under the keys. Read on screen at 80x24, page by page: every line of the
    keys and lists is a heading, blank, or indented."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        box = app.screen.query_one("#help-box")
        seen: list[str] = []
        for top in range(0, round(box.max_scroll_y) + 1, 5):
            box.scroll_to(y=top, animate=False, immediate=True)
            await pilot.pause()
            for line in screen_text(app).splitlines()[2:-3]:  # inside the box's borders
                inside = line.split("│")[1] if line.count("│") >= 2 else ""
                if inside[1:].strip() and inside[1:] not in seen:
                    seen.append(inside[1:])  # (less the box's padding)
        body = seen[: next(i for i, line in enumerate(seen) if line.startswith("Verdicts:"))]
        headings = ("Keys here", "Metrics", "Tokenizers", "Sorts", "Change signals", "The overview",
                    "Signal bands and the flagged")
        at_zero = [line for line in body if not line.startswith(" ") and not line.startswith(headings)]
        assert at_zero == [], at_zero
        filter_line = next(i for i, line in enumerate(body) if line.startswith("  /        filter:"))
        assert body[filter_line + 1].startswith(" " * 11) and body[filter_line + 1][11] != " "


async def test_an_older_pair_says_so_in_the_overview_until_the_newest_is_back() -> None:
    """Issue 38, 10: with an older pair compared from the history, only the build names
    said it was not the newest pair (the one an alert is about). The overview's first line
    says so, until `h` `end` `enter` brings the newest pair back."""
    names = sorted(p.name.removesuffix(".jsonl") for p in (INCIDENT / "builds").iterdir())
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "not the newest pair" not in screen_text(app).splitlines()[0]
        await press(pilot, "h", "k", "k", "enter")
        await settle(pilot)
        assert review_screen(app).pair_shown() == (names[-4], names[-3])
        assert "! not the newest pair (h, end ⏎: the newest)" in screen_text(app).splitlines()[0]
        await press(pilot, "h", "end", "enter")
        await settle(pilot)
        assert review_screen(app).pair_shown() == (names[-2], names[-1])
        assert "not the newest pair" not in screen_text(app).splitlines()[0]


async def test_the_history_says_its_metric_and_that_its_figures_are_over_all_outputs() -> None:
    """Issue 38, 10: the history view said neither which metric it showed nor that its n,
    mean and band are over all of a build's outputs, while the overview's are over the ids
    the pair shares (Δ here is paired too)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        about = next(line for line in screen_text(app).splitlines() if "each build's own outputs" in line)
        assert "rougeL (whitespace)" in about and "paired" in about, about
        await press(pilot, "q", "m")
        await settle(pilot)
        metric = review_screen(app).analysis.settings.metric
        assert metric != "rougeL"
        await press(pilot, "h")
        await settle(pilot)
        assert f"{metric} (whitespace)" in next(line for line in screen_text(app).splitlines() if "build's own" in line)


async def test_the_suites_list_tells_six_copies_apart_one_line_each(tmp_path: Path) -> None:
    """Issue 38, 10: six suites of one name were listed alike, each folder wrapped onto a
    second line. Each is one line at 80 columns, with its verdict and the part of its
    folder's name that tells it apart."""
    import shutil

    folders = [f"incident-summaries-copy-{n}-from-the-nightly-box" for n in range(6)]
    for folder in folders:
        shutil.copytree(INCIDENT, tmp_path / folder)
    app = RougeApp([tmp_path / f for f in folders], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(100):  # the summaries come one suite at a time
            if "…" not in screen_text(app).splitlines()[6]:
                break
            await pilot.pause(0.1)
        rows = screen_text(app).splitlines()[1:-1]
        assert [row for row in rows if row.strip()] == rows[:6], rows  # six lines, nothing wrapped
        for n, row in enumerate(rows[:6]):
            assert "Incident summaries" in row and f"copy-{n}" in row and "▼ drift-down Δ -0.0352" in row, row


async def test_a_harness_folder_with_two_tasks_lists_both_and_opens_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An lm-eval-like output folder with two tasks is two suites in the list, each by its
    task's name, with its builds and verdict; enter opens the one under the cursor."""
    from toy_format import install, write_toy

    from rouge_tui.suite.suite import list_suites

    install(monkeypatch)
    folder = write_toy(write_toy(tmp_path / "harness", task="qa"), task="summ")
    app = RougeApp(list_suites(folder), argparse.Namespace())
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert any(line.lstrip(" ▶").startswith("qa in harness  3 builds · ") for line in lines), lines
        assert any(line.lstrip(" ▶").startswith("summ in harness  3 builds · ") for line in lines), lines
        await press(pilot, "end", "enter")
        await settle(pilot)
        analysis = review_screen(app).analysis
        assert analysis.suite.name == "summ"
        assert (analysis.figures.baseline.name, analysis.figures.candidate.name) == ("alpha@2026-01-02", "mid@2026-01-03")
