"""The diff screen (rouge_tui/app/screens/diff.py): its title, header, runs and keys, driven
by keys through Textual's pilot.

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    SUPPORT,
    app_for,
    burst,
    carried_mark_suite,
    current_id,
    diff_lines,
    filter_by,
    open_first_diff,
    oracle_f,
    press,
    read_jsonl,
    review_screen,
    screen_text,
    settle,
    table_lines,
    type_text,
)
from suite_helpers import jsonl, make_suite, one_example

from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView
from rouge_tui.app.widgets.movers import MoversTable

pytestmark = pytest.mark.slow


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


async def test_the_diff_header_shows_the_comparison_now_shown_after_a_metric_switch() -> None:
    """Issue 11, 1: every figure on every screen comes from the comparison now shown."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        first = app.screen.summary(78).plain
        await press(pilot, "escape", "m")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert figures.settings.metric == "rougeLsum"
        await press(pilot, "enter")
        summary = app.screen.summary(78).plain
        assert summary != first
        assert f"Δ {figures.delta_mean:+.4f}" in summary and "rougeLsum|" in summary
        title = app.screen.title_text(98).plain
        index = app.screen.index
        assert f"Δ {float(figures.delta[index]):+.4f}" in title


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


async def test_the_change_counter_goes_when_its_change_leaves_the_screen(tmp_path: Path) -> None:
    """After `]` the title said "change k of n"; G (or a resize) took that change off the
    screen and the title still said it, and the next `]` went on from the change no longer
    seen. Once the pointed change is out of view it is no longer pointed at: the counter
    goes, and `]` goes on from the top of the screen, as less searches on from there."""
    sentences = [f"Step {k} of the runbook was followed by the on-call engineer." for k in range(40)]
    edited = [s.replace("followed", "skipped") for s in sentences]  # a change on every line
    suite = one_example(tmp_path / "s", " ".join(sentences), "\n".join(sentences), "\n".join(edited))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_first_diff(pilot, "d", "right_square_bracket")  # baseline against candidate

        def counted() -> tuple[int, int] | None:  # the title's "change k of n" (or "chg k/n")
            found = re.search(r"change (\d+) of (\d+)|chg (\d+)/(\d+)", screen_text(app).splitlines()[1])
            return tuple(int(g) for g in found.groups() if g is not None) if found else None

        assert counted() == (1, len(view.changes))
        assert len(view.rows) > view.scrollable_content_region.height  # G scrolls the change away
        await press(pilot, "G")
        assert counted() is None
        top = round(view.scroll_y)
        await press(pilot, "right_square_bracket")
        assert view.current is not None and view.current >= top  # on from the screen's top
        assert counted() == (view.changes.index(view.current) + 1, len(view.changes))
        await pilot.resize_terminal(100, 24)  # the rows are laid out again: nothing pointed at
        await settle(pilot)
        assert counted() is None


async def test_fold_says_when_there_is_nothing_to_fold() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "d", "f")
        assert any("nothing to fold" in n.message for n in app._notifications)


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


def above_footer(app) -> str:
    """Everything on screen but the footer (whose keys say "c note", say)."""
    return "\n".join(screen_text(app).splitlines()[: app.screen.query_one("KeyBar").region.y])


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


async def test_the_suites_name_gets_the_room_the_line_has(tmp_path: Path) -> None:
    """A newcomer on call at 120 columns: the diff's first line read "CNN/DailyMail, See et
    al. 201…" beside room to spare (the name was cut at 30 characters whatever the width).
    It gets what the verdict and the delta leave; at 80 columns it is cut, its verdict whole."""
    from suite_helpers import jsonl, make_suite

    name = "CNN/DailyMail, See et al. 2017 outputs of the pointer-generator model"
    suite = make_suite(tmp_path / "s", toml=f'name = "{name}"\n', builds={
        "1-old.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": "a dog"}),
        "2-new.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "a dog ran"})})
    for width, whole in ((120, True), (80, False)):
        app = app_for(suite)
        async with app.run_test(size=(width, 30)) as pilot:
            await open_first_diff(pilot)
            first = app.screen.summary(width - 2).plain
            assert (name in first) == whole, first
            assert "drift" in first or "within band" in first
