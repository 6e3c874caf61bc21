"""The app, driven by keys through Textual's pilot at 80x24 (and wider where a test says so).

Expected figures come from rouge-score with the chapter's tokenizer (test_app_helpers.oracle),
not from the code under test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from suite_helpers import COPY_MEANS, copy_suite, jsonl, make_suite
from test_app_helpers import (
    INCIDENT,
    SUPPORT,
    diff_lines,
    incident_deltas,
    press,
    ranked_ids,
    screen_text,
    settle,
    table_lines,
    type_text,
)
from textual.widgets import Static

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.common import ConfirmScreen, NoteScreen
from rouge_tui.app.screens.counterparts import CounterpartsScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView
from rouge_tui.app.widgets.movers import MoversTable
from rouge_tui.app.widgets.overview import shorten_names

pytestmark = pytest.mark.slow


def app_for(suite: Path = INCIDENT, **options: object) -> RougeApp:
    return RougeApp([suite], argparse.Namespace(**options))


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


async def test_the_diff_made_ahead_is_the_cursors_row_of_the_comparison_shown(monkeypatch) -> None:
    """The row the cursor rests on has its diff made ahead, and enter shows that one; after
    a metric switch, what is shown is made from the new comparison, not the one before."""
    import rouge_tui.app.screens.diff as diff_screen

    made: list[tuple[object, int]] = []
    make = diff_screen.make_model

    def counting(review, index, run, query):
        made.append((review.analysis, index))
        return make(review, index, run, query)

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


async def test_after_a_sort_or_a_switch_the_cursor_is_on_the_first_row_of_the_new_order() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        await press(pilot, "end")
        await press(pilot, "s")  # regressions first
        assert table.cursor == 0
        deltas = incident_deltas()
        assert current_id(app) == min(deltas, key=lambda i: (deltas[i], ranked_ids().index(i)))
        await press(pilot, "end", "t")
        await settle(pilot)
        assert table.cursor == 0


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
        await press(pilot, "enter", "d")
        view = app.screen.query_one(DiffView)
        assert len(view.changes) >= 3
        await press(pilot, "right_square_bracket")
        first = view.current
        await press(pilot, "right_square_bracket")
        assert view.current is not None and view.current > first
        await press(pilot, "left_square_bracket")
        assert view.current == first
        assert "▶" in view.render_line(first - round(view.scroll_y)).text


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
        await press(pilot, "g", "slash")
        await type_text(pilot, "fine")
        await settle(pilot)
        assert screen.table.row_count == 1
        await press(pilot, "escape", "slash")
        await type_text(pilot, "Follow-ups: canary")
        await settle(pilot)
        assert 0 < screen.table.row_count < figures.paired
        await press(pilot, "enter", "enter")
        assert isinstance(app.screen, DiffScreen) and app.screen.filter_text == "Follow-ups: canary"


async def test_help_closes_on_q_without_quitting() -> None:
    """Issue 11, 11."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text().plain
        for word in ("rougeLsum", "unicode-v1" if False else "unicode", "trunc", "mark fine"):
            assert word in text
        await press(pilot, "q")
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        await press(pilot, "question_mark", "escape")
        assert isinstance(app.screen, ReviewScreen)


async def test_the_status_line_and_footer_at_80_columns() -> None:
    """Issue 11, 7: the left-out counts are all there, and the footer shows ? and the keys
    that matter most."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "1 base only, 1 cand only, 1 no ref" in text
        footer = text.splitlines()[-1]
        assert footer.lstrip().startswith("? help")
        for key in ("q quit", "⏎ diff", "w walk", "g b u mark", "c note", "/ filter"):
            assert key in footer


async def test_tab_reaches_the_reference_pane_below_the_fold() -> None:
    app = app_for()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        view = app.screen.query_one(DiffView)
        assert len(view.panes) == 3 and view.render_line(0).text.startswith("[?]")  # the legend
        assert not any(line.startswith(" reference") for line in screen_text(app).splitlines())
        await press(pilot, "tab", "tab")
        assert any(line.startswith(" reference") for line in screen_text(app).splitlines())
        await press(pilot, "tab")  # past the last pane: back to the top
        assert round(view.scroll_y) == view.panes[0]


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


async def test_o_shows_that_bs_closing_sentence_has_no_counterpart() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_chapter_pair(pilot)
        await press(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        text = app.screen.query_one(Static).content.plain
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


async def test_the_new_sentence_filter_lists_the_chapters_pair() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        await press(pilot, "slash")
        await type_text(pilot, "new-sentence")
        await settle(pilot)
        assert "signal new-sentence" in screen.query_one("#status").render().plain
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
    from rouge_tui.app.screens.diff import SHOWN

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


async def test_walk_the_ten_steps_and_stops_at_the_end() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        assert app.screen.example_id == ranked_ids()[0]
        assert "1/10" in app.screen.title_text(78).plain
        for _ in range(9):
            await press(pilot, "n")
        assert app.screen.example_id == ranked_ids()[9]
        await press(pilot, "n")
        assert app.screen.example_id == ranked_ids()[9]
        assert any("end of the ten" in n.message for n in app._notifications)


def test_names_are_cut_from_the_middle_keeping_what_differs() -> None:
    """Issue 11, 5."""
    a, b = shorten_names(["2-pointer-gen", "3-pointer-gen-cov"], 10)
    assert a != b and len(a) <= 10 and len(b) <= 10 and b.endswith("cov")
    a, b = shorten_names(["run-2026-11-20-night", "run-2026-11-21-night"], 10)
    assert a != b and "0" in a and "1" in b
    assert shorten_names(["short"], 10) == ["short"]


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


async def test_replicate_runs_step_with_r_and_show_each_runs_f() -> None:
    """Issue 11, 16."""
    app = app_for(SUPPORT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = app.screen
        assert screen.runs == 3 and len(screen.run_scores) == 3
        assert "run 1 of 3" in screen.title_text(118).plain
        first = screen.query_one(DiffView).model.diff.candidate.text
        await press(pilot, "r")
        assert "run 2 of 3" in screen.title_text(118).plain
        texts = review_screen(app).texts
        assert screen.query_one(DiffView).model.diff.candidate.text == texts.candidate.runs[1].outputs[screen.example_id]
        assert first == texts.candidate.runs[0].outputs[screen.example_id]


async def test_marks_persist_and_come_back() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "g", "down", "b", "down", "u")
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        review = review_screen(app).review
        top = ranked_ids()
        assert [review.get(i).word for i in top[:3]] == ["fine", "regression", "unsure"]
        lines = table_lines(app.screen.query_one(MoversTable))
        assert "fine" in lines[1] and "regr" in lines[2] and "unsu" in lines[3]


async def test_q_with_a_mark_that_could_not_be_saved_asks_first(tmp_path: Path, monkeypatch) -> None:
    """A full disk: the mark stays in the session, and q asks before it is lost."""
    from rouge_tui.store import marks

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)

        def full(*_args, **_kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(marks, "atomic_write", full)
        await press(pilot, "g")
        assert review_screen(app).review.store.unsaved == 1
        await press(pilot, "q")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await press(pilot, "n")
        assert app.is_running
        monkeypatch.undo()
        await press(pilot, "g")
        assert review_screen(app).review.store.unsaved == 0
        await press(pilot, "q")
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
    assert text.count("not reviewed") == 9 and "regression" in text
    for example_id in ranked_ids()[:10]:
        assert example_id in text


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
        assert "incident-summaries-with-a-long-folder-name" in text
        assert "drift-down" in text and "within band" in text
        assert "broken" in text and "✗" in text
