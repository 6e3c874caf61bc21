"""The review screen (rouge_tui/app/screens/review*.py): the table of examples, its filter,
sorts, metric switches, marks and the diffs it opens, driven by keys through Textual's pilot.

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    app_for,
    burst,
    carried_mark_suite,
    current_id,
    diff_lines,
    diff_opened,
    filter_by,
    footer_text,
    incident_deltas,
    lines_of,
    press,
    ranked_ids,
    review_screen,
    right_after_m,
    screen_text,
    settle,
    slow_open,
    slow_switch,
    table_lines,
    type_text,
    typed_before_the_table,
)
from suite_helpers import jsonl, make_suite

from rouge_tui.analysis.figures import SORTS
from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.movers import MoversTable

pytestmark = pytest.mark.slow


def outputs(texts: dict[str, str]) -> str:
    """A build file's lines: each id's output."""
    return jsonl(*({"id": i, "output": t} for i, t in texts.items()))


def cat_mat_suite(root: Path) -> Path:
    """Examples a and b against "the cat sat on the mat"; the second build moves a far, b a word."""
    return make_suite(
        root,
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "ab")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "ab"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a mat"})},
    )


async def switch_and_notice_the_change(pilot, screen: ReviewScreen) -> None:
    """m: the texts as read scored again; the history that follows finds a compared file
    changed on disk since it was read (what lets h, enter read the pair again)."""
    await press(pilot, "m")
    for _ in range(100):
        await pilot.pause(0.05)
        if screen.changed_on_disk and screen.asked is None:
            break


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


async def test_the_collector_is_off_while_a_suite_is_opened_or_scored_again_and_on_after(monkeypatch) -> None:
    """Python's cyclic garbage collector is off while the screen's workers compare (the open
    and an m), and as it was again once they are done."""
    import gc

    from rouge_tui.analysis import pipeline

    enabled: list[bool] = []  # the collector's state as each comparison is made
    compute = pipeline.compute

    def noted(*args, **kwargs):
        enabled.append(gc.isenabled())
        return compute(*args, **kwargs)

    monkeypatch.setattr(pipeline, "compute", noted)
    was = gc.isenabled()  # an in-process report before this test leaves it off (cli.main)
    try:
        for on in (True, False):  # as the screen found it, after: off stays off
            gc.enable() if on else gc.disable()
            enabled.clear()
            app = app_for(no_cache=True)
            async with app.run_test(size=(80, 24)) as pilot:
                await settle(pilot)
                assert enabled == [False] and gc.isenabled() == on
                await press(pilot, "m")
                await settle(pilot)
                assert enabled == [False, False] and gc.isenabled() == on
                assert review_screen(app).analysis.settings.metric != "rougeL"
    finally:
        gc.enable() if was else gc.disable()


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
        summary = app.screen.summary(78).plain
        assert f"Δ {figures.delta_mean:+.4f}" in summary and "rougeLsum|" in summary
        assert f"Δ {float(figures.delta[app.screen.index]):+.4f}" in app.screen.title_text(98).plain
        await press(pilot, "escape")
        await burst(pilot, "m", "m", "w")
        assert screen.analysis.settings.metric == "rouge2"
        assert isinstance(app.screen, DiffScreen) and app.screen.walk
        assert "rouge2|" in app.screen.summary(78).plain


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


async def test_after_a_sort_the_first_row_and_after_a_switch_the_same_example() -> None:
    """A sort starts at its first row. A newcomer comparing one example across metrics lost
    it to row 1 at each m and t (twice reported): a switch keeps the example under the
    cursor, at its rank in the new comparison."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        await press(pilot, "s", "home")  # regressions first
        deltas = incident_deltas()
        assert current_id(app) == min(deltas, key=lambda i: (deltas[i], ranked_ids().index(i)))
        await press(pilot, "down", "down", "down", "down")
        held = current_id(app)
        for key in ("t", "m"):
            await press(pilot, key)
            await settle(pilot)
            assert current_id(app) == held and table.cursor > 0, key
        await press(pilot, "s")
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
        assert current_id(app) == "b" and screen.changed_on_disk == {"2"}  # m kept it
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

    suite = cat_mat_suite(tmp_path / "s")
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
        before = screen.analysis
        await press(pilot, "h")
        await settle(pilot)
        real, go = pipeline.read_texts, threading.Event()  # the texts come once the keys are in
        monkeypatch.setattr(pipeline, "read_texts", lambda *a, **k: go.wait(30) and real(*a, **k))
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.01)
            if screen.analysis is not before:
                break
        assert screen.analysis is not before and not screen.texts_in()  # the figures first
        row = screen.row_of_id("a")
        screen.table.cursor = row
        await pilot.press("b")  # in between: it waits for the texts
        go.set()
        await settle(pilot)
        assert app.return_code is None and screen.texts_in()
        assert sorted(screen.analysis.figures.ids[i] for i in screen.table.view) == ["b", "c", "e"]  # "dog" now
        assert screen.review.get("a").word == "regression"
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    later = Review(analysis, analysis.texts.result()).get("a")
    assert (later.word, later.stale) == ("regression", False)


async def test_the_filters_placeholder_is_read_whole_at_80_columns() -> None:
    """A newcomer read "enter keeps, escape    ": the placeholder was cut at 80 columns."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        line = next(row for row in screen_text(app).splitlines() if "filter:" in row)
        assert "keeps, esc clears" in line, line


def change_under_the_reader(
    monkeypatch: pytest.MonkeyPatch, path: Path, text: str
) -> tuple[list[int], threading.Event]:
    """The first reading of the texts waits until the event returned is set (a key comes
    first), then writes ``text`` to ``path`` and reads; the list returned grows by one a
    reading."""
    from rouge_tui.analysis import pipeline

    real, calls, go = pipeline.read_texts, [], threading.Event()

    def changing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            go.wait(30)
            path.write_text(text)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "read_texts", changing)
    return calls, go


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
    _, go = change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl",
                                    outputs({"a": "the cat sat on the mat", "b": "the cat sat on a mat", "c": "a dog"}))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        assert screen.review is None and current_id(app) == "a"
        await pilot.press("enter")
        go.set()
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
    calls, go = change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl", good + "{not json\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        await pilot.press("enter")
        go.set()
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
    _, go = change_under_the_reader(monkeypatch, suite / "builds" / "2.jsonl", good + "{not json\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await figures_shown(pilot, app)
        screen = review_screen(app)
        await pilot.press("down")
        on = current_id(app)
        go.set()
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
        # What the walk left out where a drifting signal fired, said at its end (a newcomer
        # walked 4 of 50 invented sentences and read no word of the rest): by the report's
        # every row, each with its signals.
        data = read_jsonl_report(INCIDENT, "--top", "100000")
        drifting = {d["signal"] for d in data["signal_drift"]}
        walked = set(ranked_ids()[:10]) | set(flagged)
        left = [row["id"] for row in data["top"] if drifting & set(row["signals"]) and row["id"] not in walked]
        assert left
        said = [n.message for n in app._notifications if n.message.startswith("end of the walk")]
        assert said == [(f"end of the walk: {len(left)} more outputs where a drifting signal fired (in the table, s sorts "
                        f"them first and /truncated or /duplicated or /new-sentence or /new-figure filters)")], said


def read_jsonl_report(suite: Path, *flags: str) -> dict:
    """`report --format json` of ``suite``, run apart from the app (its own process)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "json", "--no-cache",
                          *flags], capture_output=True, text=True, timeout=120, check=False).stdout
    return json.loads(out)


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


@pytest.mark.parametrize("web", [False, True])
async def test_in_a_browser_the_exported_files_are_offered_as_downloads(monkeypatch: pytest.MonkeyPatch,
                                                                        web: bool) -> None:
    """A newcomer's colleague pressed e in `serve`: the review was written to a folder on the
    server, out of their reach. In a browser each file written is handed to it as well."""
    from rouge_tui.app.app import RougeApp

    delivered = []
    monkeypatch.setattr(RougeApp, "is_web", property(lambda app: web))
    monkeypatch.setattr(RougeApp, "deliver_text", lambda app, path, **options: delivered.append((path, options)))
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "e")
        for _ in range(50):
            await pilot.pause(0.1)
            if app.exported and (delivered or not web):
                break
        await settle(pilot)
    assert [path for path, _ in delivered] == (app.exported if web else [])
    assert all(options["open_method"] == "download" for _, options in delivered)


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


async def test_a_workers_progress_leads_the_status_line() -> None:
    """What a worker posts while it reads or scores reaches the review screen, first on the
    status line (a handler named for another message would drop it without a word)."""
    from rouge_tui.app.messages import ProgressMade

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        screen.post_message(ProgressMade("scoring rouge1", 0.25))
        await pilot.pause()
        assert screen.query_one("#status").render().plain.startswith("scoring rouge1 25%")


async def test_only_the_comparison_asked_for_last_moves_the_screen() -> None:
    """The comparison and the failure of an ask superseded by a later one (a worker
    cancelled too late to stop it) neither show nor end the wait for the later one: a diff
    waiting for it stays waiting, and opens on it."""
    from rouge_tui.app.messages import AnalysisReady, WorkFailed
    from rouge_tui.app.screens.review import Asked

    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        old = screen.analysis
        screen.asks = 1  # as if comparison 1 had been asked for and superseded
        screen.asked = None
        await burst(pilot, "m", "enter")  # ask 2 (rougeLsum), and a diff waiting for it
        assert screen.analysis.settings.metric == "rougeLsum" and isinstance(app.screen, DiffScreen)
        await press(pilot, "escape")
        screen.asked = Asked(3, old.settings, None, "scoring rougeL", ("metric", "rougeL"))
        screen.waiting = [(lambda: None, "the diff opens")]
        screen.post_message(AnalysisReady(old, "now rougeL", asked=2))  # ask 2's, late
        screen.post_message(WorkFailed("ask 2 failed", asked=2))
        await settle(pilot)
        assert screen.analysis.settings.metric == "rougeLsum"  # not moved back by ask 2
        assert screen.asked is not None and screen.asked.number == 3 and len(screen.waiting) == 1
        screen.post_message(WorkFailed("ask 3 failed", asked=3))
        await settle(pilot)
        assert screen.asked is None and screen.waiting == [] and screen.refused == ("metric", "rougeL")


async def test_enter_while_another_build_pair_scores_opens_that_pairs_top_row() -> None:
    """Enter typed while a pair picked in h is scored opened the example the cursor had
    been on, deep in the new pair's ranking (a newcomer's 'row 27/11490'); a new pair's
    diff opens where its table starts, its most-moved example. While the suite is still
    loading, enter and w wait for the table, and say so."""
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
        assert "reading the texts… the most-moved output's diff opens when they are in" in said
        assert "reading the texts… the walk starts when they are in" in said
        assert not isinstance(app.screen, DiffScreen)


@pytest.mark.parametrize("keys, row", [(("enter", "enter"), 0), (("j", "j", "j", "enter"), 3)])
async def test_enter_right_after_start_opens_the_most_moved_outputs_diff(monkeypatch: pytest.MonkeyPatch,
                                                                         keys: tuple[str, ...], row: int) -> None:
    """SPEC: enter right after start opens the diff of the most-moved output. A newcomer's
    enter (and j j) typed while a 100k suite loaded was lost: the keys did nothing until the
    table showed. Enter pressed before the figures are in (the open made slow here) waits
    for them, once however often it is pressed. And moves typed before it (a newcomer's j j
    j enter opened row 1, 3 tries in 3, where row 4 was meant) are made first, in turn."""
    slow_open(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await typed_before_the_table(pilot, *keys)
        screen = review_screen(app)
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == screen.analysis.figures.ids[row]
        await press(pilot, "escape")
        assert not isinstance(app.screen, DiffScreen) and screen.table.cursor == row  # one diff, not two


@pytest.mark.parametrize("keys, position", [(("w", "n", "n"), 2), (("w", "n", "n", "n", "p"), 2), (("w", "p"), 0)])
async def test_n_and_p_typed_while_the_walk_waits_step_it_when_it_opens(
    monkeypatch: pytest.MonkeyPatch, keys: tuple[str, ...], position: int
) -> None:
    """w n n typed while a big suite loads: the walk opened on the first output and the two
    n were lost (the table has no n). They step the walk it opens, as they would have in it;
    p before the first stays on the first."""
    slow_open(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await typed_before_the_table(pilot, *keys)
        assert isinstance(app.screen, DiffScreen) and app.screen.walk and app.screen.position == position
        figures = review_screen(app).analysis.figures
        assert app.screen.example_id == figures.ids[position]  # the walk begins with the ten, in rank order


@pytest.mark.parametrize("keys, rows", [(("j", "j", "b"), {2: "regression"}), (("b", "j"), {0: "regression"}),
                                        (("j", "u", "j", "a"), {1: "unsure", 2: "fine"})])
async def test_a_mark_typed_before_the_table_shows_marks_the_row_the_moves_reach(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, keys: tuple[str, ...], rows: dict[int, str]
) -> None:
    """A newcomer on call typed j j b while a big suite loaded: the cursor went to row 3 and
    nothing was marked, with no word (the status line still said 2 marked). A mark typed
    before the table shows is made on the row the moves typed before it reach, in turn."""
    suite = carried_mark_suite(tmp_path)
    slow_open(monkeypatch)
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await typed_before_the_table(pilot, *keys, diff=False)
        screen = review_screen(app)
        last = max(rows)
        for _ in range(50):
            if screen.review is not None and screen.review.get(screen.analysis.figures.ids[last]) is not None:
                break
            await pilot.pause(0.1)
        ids = screen.analysis.figures.ids
        marked = {i: screen.review.get(i).word for i in ids if screen.review.get(i) is not None
                  and screen.review.get(i).carried_from is None}
        assert marked == {ids[row]: word for row, word in rows.items()}, marked
        assert any("when the table shows" in n.message for n in app._notifications)


async def test_enter_typed_before_the_app_had_the_terminal_opens_the_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer typed j j enter at once after the command: the j's moved and no diff
    opened, every time before half a second. Typed while the terminal is still in its line
    mode, enter is read as a newline, ctrl+j, which nothing took; it is enter here."""
    slow_open(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await typed_before_the_table(pilot, "j", "j", "ctrl+j")
        assert isinstance(app.screen, DiffScreen) and app.screen.example_id == review_screen(app).analysis.figures.ids[2]


async def test_steps_typed_for_a_walk_that_never_opened_are_gone_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two reviews of the change above: w n n, then ? while the suite loaded; the walk was
    not made (another screen was open), and the two steps stayed: enter on row 1 later
    opened row 3's diff, where a mark would have gone to the wrong example. The steps are
    the waiting walk's, and go with it."""
    from rouge_tui.app.screens.help import HelpScreen

    slow_open(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w", "n", "n", "question_mark")
        await settle(pilot)
        for _ in range(50):
            if review_screen(app).session.texts_in() and not review_screen(app).session.waiting:
                break
            await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        screen = review_screen(app)
        assert screen.table.cursor == 0
        await press(pilot, "enter")
        await diff_opened(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.position == 0
        assert app.screen.example_id == screen.analysis.figures.ids[0]


async def test_n_in_the_table_says_where_it_steps() -> None:
    """n and p do nothing in the table but say so: the keys step between diffs."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        assert not isinstance(app.screen, DiffScreen)
        assert any("n and p step from one diff to the next" in n.message for n in app._notifications)


async def test_moves_typed_ahead_are_made_when_the_table_shows_before_later_keys(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of the first type-ahead: moves typed before the table waited for the texts,
    read after it, so g typed once the table showed came before them (j j, then g, ended on
    row 2). They are made when the table shows, before any key typed after."""
    import time

    from rouge_tui.session import Session

    real_read = Session.read_texts

    def slow_read(self, *args, **options):
        time.sleep(1.0)
        return real_read(self, *args, **options)

    slow_open(monkeypatch)
    monkeypatch.setattr(Session, "read_texts", slow_read)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = review_screen(app)
        await pilot.press("j", "j")
        for _ in range(100):
            if screen.analysis is not None:
                break
            await pilot.pause(0.05)
        assert screen.table.cursor == 2 and not screen.session.texts_in()
        await pilot.press("g")
        assert screen.table.cursor == 0


async def test_a_word_on_a_carried_mark_says_where_its_note_stays(tmp_path: Path) -> None:
    """A pass on marks: a on a carried regression with a note showed fine and no note, with
    no word of it: the note is the other pair's, and it stays there; the notice says so."""
    suite = carried_mark_suite(tmp_path)
    app = app_for(suite)  # 3-base -> 4-cand; t1 carries a regression with a note from 1-base -> 2-cand
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        screen.table.cursor = screen.table.row_of(screen.analysis.figures.ids.index("t1"))
        await press(pilot, "a")
        assert (screen.review.get("t1").word, screen.review.get("t1").note) == ("fine", "")
        assert any(n.message == "t1: fine; the note stays with the mark on 1-base → 2-cand (that pair, picked in h, shows it; c writes one here)"
                   for n in app._notifications)


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


async def test_a_warning_is_a_notice_once_and_no_source_is_the_overviews() -> None:
    """A newcomer: the no-source notice came back over four or five of the ten rows on every
    load, m, t and pair. The overview says it while it holds; any other warning is a notice
    once a screen."""
    from app_helpers import SUPPORT

    from rouge_tui.analysis.signals import NO_SOURCE
    from rouge_tui.app.messages import AnalysisReady

    app = app_for(SUPPORT)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert NO_SOURCE in review_screen(app).analysis.figures.warnings
        await press(pilot, "m")
        await settle(pilot)
        assert not [n for n in app._notifications if "no example has a source" in n.message]
        # (at 24 rows, "no source" beside the bands' line; the help says it whole)
        assert "(fewer than 2 earlier build pairs counted)  no source" in screen_text(app)
        screen = review_screen(app)
        screen.warned.clear()
        figures = screen.analysis.figures
        figures.warnings.append("a warning of its own")
        for _ in range(2):
            screen.post_message(AnalysisReady(screen.analysis))
            await settle(pilot)
        assert len([n for n in app._notifications if n.message == "a warning of its own"]) == 1


async def test_marks_made_after_the_references_changed_are_asked_about_before_quitting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app keeps the mark stores of the reviews it opened; a review read again under
    other references moves its marks to another store, which the app was not given: a mark
    made then that could not be saved was lost at q without a word (a reviewer of the code
    found it)."""
    from rouge_tui.app.screens.common import ConfirmScreen
    from rouge_tui.store.marks import MarkStore

    suite = cat_mat_suite(tmp_path / "s")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        first = screen.review.store
        (suite / "references.jsonl").write_text(jsonl(*({"id": i, "reference": "the cat sat on a mat"} for i in "ab")))
        (suite / "builds" / "2.jsonl").write_text(outputs({"a": "a bird flew", "b": "the cat sat on a mat"}))
        await switch_and_notice_the_change(pilot, screen)
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        now = screen.review.store
        assert now is not first and now in app.stores and first not in app.stores

        def failing(self, wait=0):
            self.failed = "lock held"
            raise OSError(11, "lock held")

        monkeypatch.setattr(MarkStore, "save", failing)
        await press(pilot, "home", "b")
        await settle(pilot)
        await press(pilot, "q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen) and app.is_running


async def test_e_right_after_m_exports_the_metric_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer pressed m then e: the export was written from the comparison being
    replaced (its signature rougeLsum's) while the screen went on to show rouge1's, and the
    file's name does not say the metric. e now waits for the comparison asked for, as h, a
    diff and the walk do. (The switch made slow: 1 s.)"""
    slow_switch(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await right_after_m(pilot, "e", lambda: app.exported)
        assert review_screen(app).analysis.settings.metric == "rougeLsum"
        text = app.exported[0].read_text(encoding="utf-8")
    signature = re.search(r"Signature: `([^`]*)`", text)
    assert signature and signature.group(1).startswith("rougeLsum|"), signature


async def test_at_80_columns_the_alarm_is_said_in_words_and_beside_the_verdict(tmp_path: Path) -> None:
    """A newcomer at 80x24: the overview said "▲ +sent 87 (was 36-42)  ▲ +fig 62 (was 8-14)"
    where SPEC's form is words, and "● within band" in green with nothing after it, in the
    overview and over the diff. The signals are named in words, on one line at 80 columns,
    whole (SPEC's form) where there is room; the verdict says the alarm after ROUGE's own."""
    from test_triage import INVENTED, chapter_suite

    suite = chapter_suite(tmp_path / "s")
    for size, said in (((80, 24), f"▲ new sentences {INVENTED} (was 0)  ▲ new figures {INVENTED} (was 0)"),
                       ((120, 30), (f"▲ new sentences: {INVENTED} outputs (earlier pairs 0)  "
                                   f"▲ new figures: {INVENTED} outputs (earlier pairs 0)"))):
        app = app_for(suite)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            lines = screen_text(app).splitlines()
            assert any(line.strip() == said for line in lines), lines
            assert any(line.lstrip().startswith("● within band, signal alarm  Δ ") for line in lines), lines
            await press(pilot, "enter")
            await settle(pilot)
            assert "● within band, signal alarm  Δ " in screen_text(app).splitlines()[0]


async def test_a_key_for_an_example_on_an_empty_filtered_table_says_why_it_did_nothing() -> None:
    """A newcomer's pass: with a filter that matches nothing, enter, a, c and x did nothing
    and said nothing."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await filter_by(pilot, '"no output says this zzqx"')
        screen = review_screen(app)
        assert screen.table.current is None
        told: list[str] = []
        screen.notify = lambda message, **kwargs: told.append(message)  # (the app shows one of a repeated notice)
        for key in ("enter", "a", "c", "x"):
            told.clear()
            await press(pilot, key)
            assert told == ["no example matches the filter (escape clears it)"], (key, told)
        assert app.screen is screen
