"""Pilot tests of the app on the bundled sample suites: every key of SPEC's table, checked on
state (cursor, screen, title, marks file, export file, sort order, filter count, metric).

Expected values come from the sample files read with ``json`` and from rouge-score used as an
oracle (with the chapter's tokenizer plugged in), never from the code under test.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest
from test_app_helpers import (
    INCIDENT,
    SUPPORT,
    incident_deltas,
    incident_pairs,
    oracle_f,
    press,
    ranked_ids,
    read_jsonl,
    settle,
    share_score_cache,
    table_lines,
    type_text,
)

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.builds import BuildsScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.note import NoteScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.screens.suites import SuiteListScreen
from rouge_tui.app.widgets.diff_view import DiffView
from rouge_tui.app.widgets.movers import MoversTable

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def shared_cache(
    isolated_state: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    return share_score_cache(tmp_path_factory, monkeypatch)


def app_for(*suites: Path, **options: object) -> RougeApp:
    return RougeApp(suites=list(suites), options=argparse.Namespace(**options))


def marks_files(home: Path) -> list[Path]:
    return sorted((home / "xdg_data_home" / "rouge-tui" / "marks").glob("*.json"))


def exports(home: Path) -> list[Path]:
    return sorted((home / "xdg_data_home" / "rouge-tui" / "exports").glob("*.md"))


def marks_on_disk(home: Path) -> dict[str, dict]:
    files = marks_files(home)
    assert len(files) == 1, files
    return json.loads(files[0].read_text(encoding="utf-8"))["marks"]


def notifications(app: RougeApp) -> list[str]:
    return [n.message for n in app._notifications]


def current_id(screen: ReviewScreen) -> str:
    index = screen.table.current
    assert index is not None
    return screen.review.comparison.ids[index]


# ---------------------------------------------------------------------- start and the table


async def test_collector_held_for_start_up_resumes_once_the_app_is_mounted() -> None:
    import gc

    from rouge_tui import gcpause

    assert gc.isenabled()
    thresholds = gc.get_threshold()
    gcpause.pause_for_startup()  # as `rouge-tui SUITE` does before importing Textual
    try:
        assert not gc.isenabled()
        app = app_for(INCIDENT)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0  # start-up's objects out of later passes
            # Full passes (0.1 s each) come after 100 gen-1 passes, not Python's 10.
            assert gc.get_threshold() == (*thresholds[:2], max(thresholds[2], 100))
        assert gc.get_threshold() == thresholds  # the process's own, back at exit
    finally:
        gc.unfreeze()
        gc.enable()
    # Held by someone else, the collector stays held: the app only resumes its own pause.
    gc.disable()
    try:
        gcpause.end_startup()
        assert not gc.isenabled()
    finally:
        gc.enable()



async def test_start_highlights_the_most_moved_example() -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.table.cursor == 0
        assert current_id(screen) == ranked_ids()[0]
        assert screen.review.comparison.paired == len(incident_pairs())
        # The overview says the verdict in words with its direction mark.
        overview = "\n".join(
            line.plain for line in screen.overview.lines(screen.review.analysis, 78)
        )
        assert "▼ drift-down" in overview
        assert "Incident summaries" in overview
        # The table lists the ranked ids, the most-moved first, with a rule after ten.
        lines = table_lines(screen.table)
        assert "id" in lines[0] and "delta" in lines[0]
        assert lines[1].startswith("▶") and ranked_ids()[0] in lines[1]
        assert "the ten most-moved" in lines[11]
        assert ranked_ids()[10] in lines[12]


async def test_loading_shows_progress_a_few_times_a_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a suite scores, the status line says how far it has got; a block-by-block
    report (here 150 in about 0.75 s, two runs) reaches the screen a few times a second
    and whenever a run starts, never once per block."""
    import time

    from rouge_tui.app.screens import review as review_module

    real_open = review_module.open_review
    seen: list[str] = []
    calls: list[str] = []

    def slow_open(path, options, progress, **kwargs):
        for run in (1, 2):
            for block in range(75):
                progress("scoring", block / 75)
                calls.append(f"run {run}")
                time.sleep(0.005)
        return real_open(path, options, progress, **kwargs)

    monkeypatch.setattr(review_module, "open_review", slow_open)
    real_handler = ReviewScreen.on_work_progress

    def spy(self: ReviewScreen, message) -> None:
        real_handler(self, message)
        seen.append(str(self.query_one("#status").render()))

    monkeypatch.setattr(ReviewScreen, "on_work_progress", spy)
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(calls) == 150
        shown = [text for text in seen if text.startswith("scoring: run")]
        assert any(text.startswith("scoring: run 1 ") for text in shown), seen
        assert any(text.startswith("scoring: run 2 ") for text in shown), seen
        assert 2 <= len(shown) <= 12, shown
        # once loaded, the status shows the table's state, no progress left behind
        status = str(app.screen.query_one("#status").render())
        assert "scoring" not in status and "by |delta|" in status


def test_throttle_lets_one_through_per_interval_or_when_forced() -> None:
    from rouge_tui.app.screens.common import Throttle

    now = [100.0]
    throttle = Throttle(0.2, clock=lambda: now[0])
    assert throttle.ready()
    now[0] += 0.1
    assert not throttle.ready()
    assert throttle.ready(force=True)
    now[0] += 0.19
    assert not throttle.ready()
    now[0] += 0.01
    assert throttle.ready()


async def test_enter_right_after_start_opens_the_most_moved_diff() -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert screen.example_id == ranked_ids()[0]
        assert screen.shown == 0
        await press(pilot, "escape")
        assert isinstance(app.screen, ReviewScreen)


async def test_cursor_keys_move_through_every_row() -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        n = len(incident_pairs())
        await press(pilot, "down", "down")
        assert table.cursor == 2
        await press(pilot, "up")
        assert table.cursor == 1
        await press(pilot, "end")
        assert table.cursor == n - 1
        assert table.current == n - 1  # the last example of the ranking
        assert any(f"{n} " in line and "▶" in line for line in table_lines(table))
        await press(pilot, "home")
        assert table.cursor == 0
        await press(pilot, "pagedown")
        page = table.cursor
        assert 5 <= page < 24
        await press(pilot, "pagedown")
        assert table.cursor == 2 * page
        await press(pilot, "pageup")
        assert table.cursor == page
        await press(pilot, "up")
        assert table.cursor == page - 1
        await press(pilot, "home", "up")
        assert table.cursor == 0


async def test_sort_cycles_through_the_four_orders() -> None:
    deltas = incident_deltas()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen

        def shown_ids() -> list[str]:
            ids = screen.review.comparison.ids
            return [ids[i] for i in screen.table.view]

        assert shown_ids() == ranked_ids()
        await press(pilot, "s")
        assert screen.sort == "regressions"
        assert shown_ids() == sorted(deltas, key=lambda i: (deltas[i], ranked_ids().index(i)))
        await press(pilot, "s")
        assert screen.sort == "improvements"
        assert shown_ids()[0] == max(deltas, key=lambda i: (deltas[i], -ranked_ids().index(i)))
        await press(pilot, "s")
        assert screen.sort == "id"
        assert shown_ids() == sorted(deltas)
        await press(pilot, "s")
        assert screen.sort == "|delta|"
        assert shown_ids() == ranked_ids()


@pytest.mark.slow
async def test_filter_by_id_or_output_text_and_escape_clears() -> None:
    pairs = incident_pairs()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await press(pilot, "slash")
        await type_text(pilot, "TLS")
        expected = [i for i, (_, b, c) in pairs.items() if "tls" in f"{i}\n{b}\n{c}".lower()]
        assert 0 < len(expected) < len(pairs)
        assert screen.table.row_count == len(expected)
        shown = {screen.review.comparison.ids[i] for i in screen.table.view}
        assert shown == set(expected)
        # enter keeps the filter and goes back to the table; the keys work on the filtered rows
        await press(pilot, "enter")
        assert screen.table.has_focus
        await press(pilot, "end")
        assert screen.table.cursor == len(expected) - 1
        # an id fragment
        await press(pilot, "slash", "ctrl+u")
        await type_text(pilot, "inc-004")
        assert {screen.review.comparison.ids[i] for i in screen.table.view} == {
            i for i, (_, b, c) in pairs.items() if "inc-004" in f"{i}\n{b}\n{c}".lower()
        }
        await press(pilot, "escape")
        assert screen.table.row_count == len(pairs)
        assert screen.filter_query == ""


async def test_metric_key_rescores_in_a_worker() -> None:
    pairs = incident_pairs()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.review.comparison.metric == "rougeL"
        await press(pilot, "m")
        await settle(pilot)
        c = screen.review.comparison
        assert c.metric == "rougeLsum"
        for index in (0, 5, 100):
            ref, base, cand = pairs[c.ids[index]]
            assert c.candidate_f[index] == oracle_f(ref, cand, "rougeLsum")
            assert c.baseline_f[index] == oracle_f(ref, base, "rougeLsum")
        await press(pilot, "m")
        await settle(pilot)
        c = screen.review.comparison
        assert c.metric == "rouge1"
        ref, base, cand = pairs[c.ids[3]]
        assert c.candidate_f[3] == oracle_f(ref, cand, "rouge1")
        # The table follows: its header row still there, the cursor on a row of the new ranking.
        assert screen.table.comparison is c


async def test_tokenizer_key_toggles_whitespace_and_rouge_score() -> None:
    pairs = incident_pairs()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await press(pilot, "t")
        await settle(pilot)
        c = screen.review.comparison
        assert (c.tokenizer, c.stem) == ("rouge-score", False)
        assert "tok:rouge-score" in screen.review.analysis.signature
        for index in (0, 7):
            ref, _base, cand = pairs[c.ids[index]]
            assert c.candidate_f[index] == oracle_f(ref, cand, "rougeL", "rouge-score")
        await press(pilot, "t")
        await settle(pilot)
        assert screen.review.comparison.tokenizer == "whitespace"


async def test_marks_persist_and_come_back(isolated_state: Path) -> None:
    top = ranked_ids()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await press(pilot, "g")
        await press(pilot, "down", "b")
        await press(pilot, "down", "u")
        on_disk = marks_on_disk(isolated_state)
        assert {k: v["mark"] for k, v in on_disk.items()} == {
            top[0]: "fine",
            top[1]: "regression",
            top[2]: "unsure",
        }
        lines = table_lines(screen.table)
        assert lines[1].rstrip().endswith("fine")
        assert lines[2].rstrip().endswith("regr")  # 80 columns: the short word
        assert lines[3].rstrip().endswith("unsu")
        # x clears (mark and note)
        await press(pilot, "x")
        assert top[2] not in marks_on_disk(isolated_state)
    # A new session on the same suite shows the marks again.
    app = app_for(INCIDENT)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        lines = table_lines(app.screen.table)
        assert lines[1].rstrip().endswith("fine")
        assert lines[2].rstrip().endswith("regression")  # wide: the whole word
        assert app.screen.review.mark_of(top[0]).mark == "fine"


@pytest.mark.slow
async def test_note_is_written_in_a_modal_and_stored(isolated_state: Path) -> None:
    top = ranked_ids()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "b", "c")
        assert isinstance(app.screen, NoteScreen)
        await type_text(pilot, "truncated [bold]q")
        await press(pilot, "enter")
        assert isinstance(app.screen, ReviewScreen)
        entry = marks_on_disk(isolated_state)[top[0]]
        assert entry == {**entry, "mark": "regression", "note": "truncated [bold]q"}
        lines = table_lines(app.screen.table)
        assert lines[1].rstrip().endswith("regr+")
        # escape in the note leaves it as it was
        await press(pilot, "c")
        await type_text(pilot, "zzz")
        await press(pilot, "escape")
        assert marks_on_disk(isolated_state)[top[0]]["note"] == "truncated [bold]q"


@pytest.mark.slow
async def test_export_writes_markdown_with_figures_marks_notes_and_diffs(
    isolated_state: Path,
) -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        # inc-0042 is the chapter's worked example: find it with the filter, mark it, note it.
        await press(pilot, "slash")
        await type_text(pilot, "inc-0042")
        await press(pilot, "enter")
        assert current_id(screen) == "inc-0042"
        await press(pilot, "g", "c")
        await type_text(pilot, "B follows the reference")
        await press(pilot, "enter", "e")
        await settle(pilot)
        files = exports(isolated_state)
        assert len(files) == 1
        assert any(str(files[0]) in message for message in notifications(app))
        text = files[0].read_text(encoding="utf-8")
    assert "drift-down" in text
    assert "rougeL|tok:whitespace|stem:no|v:0.1.0" in text
    rank = ranked_ids().index("inc-0042") + 1
    assert re.search(rf"### {rank}\. inc\\?-0042: fine", text)
    assert "B follows the reference" in text
    # The chapter's arithmetic (SPEC): A has LCS 16 of 47 words against 55, B 46 of 58.
    assert "LCS 16 · P 16/47" in text and "R 16/55" in text
    assert "LCS 46 · P 46/58" in text and "R 46/55" in text
    assert "```" in text


@pytest.mark.slow
async def test_walk_the_ten_steps_and_stops_at_the_end() -> None:
    top = ranked_ids()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert screen.title == "1/10"
        assert screen.example_id == top[0]
        for k in range(2, 11):
            await press(pilot, "n")
            assert screen.title == f"{k}/10"
            assert screen.example_id == top[k - 1]
            assert screen.shown == k - 1
        await press(pilot, "n")
        assert screen.title == "10/10"
        assert "end of the ten" in notifications(app)
        await press(pilot, "p", "p")
        assert screen.title == "8/10"
        assert screen.example_id == top[7]
        # marking from the diff screen
        await press(pilot, "u")
        assert screen.review.mark_of(top[7]).mark == "unsure"
        await press(pilot, "escape")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.table.cursor == 7  # back on the example last shown
        assert table_lines(review.table)[8].rstrip().endswith("unsu")


async def test_walk_with_fewer_than_ten_paired_counts_them(tmp_path: Path) -> None:
    suite = tmp_path / "tiny"
    (suite / "builds").mkdir(parents=True)
    refs = [{"id": f"t{i}", "reference": f"the quick brown fox {i} jumps"} for i in range(3)]
    (suite / "references.jsonl").write_text("\n".join(json.dumps(r) for r in refs) + "\n")
    for name, word in (("a", "fox"), ("b", "cat")):
        rows = [{"id": f"t{i}", "output": f"the quick {word} {i}"} for i in range(3)]
        (suite / "builds" / f"{name}.jsonl").write_text(
            "\n".join(json.dumps(r) for r in rows) + "\n"
        )
    app = app_for(suite)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        assert app.screen.title == "1/3"
        await press(pilot, "n", "n", "n")
        assert app.screen.title == "3/3"
        assert "end of the ten" in notifications(app)


async def test_diff_mode_key_toggles_the_diff_view() -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        view = app.screen.query_one(DiffView)
        assert view.mode == "reference"
        await press(pilot, "d")
        assert view.mode == "outputs"
        assert app.screen.mode == "outputs"
        await press(pilot, "d")
        assert view.mode == "reference"


async def test_enter_opens_the_highlighted_row_and_n_steps_the_table_order() -> None:
    top = ranked_ids()
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "down", "down", "down", "enter")
        screen = app.screen
        assert screen.example_id == top[3]
        assert screen.title == f"row 4/{len(top)}"
        await press(pilot, "n")
        assert screen.example_id == top[4]


async def test_builds_screen_picks_any_pair() -> None:
    app = app_for(SUPPORT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = app.screen
        c = review.review.comparison
        # three replicate runs per build: the band comes from them, and the candidate stays in it
        assert (c.baseline.runs, c.candidate.runs) == (3, 3)
        assert c.baseline.band_source == "replicates"
        assert c.verdict == "within-band"
        names = sorted(p.name for p in (SUPPORT / "builds").iterdir())
        assert (c.baseline.name, c.candidate.name) == (names[0], names[1])
        await press(pilot, "B")
        builds = app.screen
        assert isinstance(builds, BuildsScreen)
        await settle(pilot)
        assert builds.highlighted() == names[1]
        await press(pilot, "b", "up", "c")
        assert (builds.baseline, builds.candidate) == (names[1], names[0])
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is review
        c = review.review.comparison
        assert (c.baseline.name, c.candidate.name) == (names[1], names[0])
        # the same build twice is refused
        await press(pilot, "B", "b", "enter")
        assert isinstance(app.screen, BuildsScreen)
        await press(pilot, "escape")
        assert app.screen is review


async def test_help_lists_every_key_and_escape_closes() -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        from rouge_tui.app.screens.help import KEYS

        listed = " ".join(key for _, rows in KEYS for key, _ in rows)
        for key in (
            "enter",
            "escape",
            "q",
            "w",
            "n",
            "p",
            "d",
            "s",
            "/",
            "m",
            "t",
            "g",
            "b",
            "u",
            "c",
            "e",
            "?",
            "end",
            "pagedown",
            "B",
            "x",
            "f",
        ):
            assert key in listed.split() or key in listed, key
        await press(pilot, "escape")
        assert isinstance(app.screen, ReviewScreen)


@pytest.mark.parametrize("where", ["table", "diff", "help"])
async def test_q_quits_from_any_view_with_status_zero(where: str) -> None:
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if where == "diff":
            await press(pilot, "w")
        elif where == "help":
            await press(pilot, "question_mark")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_suite_list_shows_verdicts_and_opens_one() -> None:
    app = app_for(INCIDENT, SUPPORT)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteListScreen)
        table = screen.table
        rows = [
            [str(getattr(cell, "plain", cell)) for cell in table.get_row_at(r)] for r in range(2)
        ]
        assert rows[0][0] == "Incident summaries" and rows[0][1] == "2"
        assert rows[0][2] == "▼ drift-down"
        assert rows[1][0] == "Support answers" and rows[1][2] == "● within band"
        await press(pilot, "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.review.suite.name == "Support answers"
        await press(pilot, "escape")
        assert app.screen is screen


async def test_a_broken_suite_exits_with_status_two(tmp_path: Path) -> None:
    suite = tmp_path / "broken"
    (suite / "builds").mkdir(parents=True)
    (suite / "references.jsonl").write_text('{"id": "a", "reference": "x"}\n{oops\n')
    (suite / "builds" / "b1.jsonl").write_text('{"id": "a", "output": "x"}\n')
    app = app_for(suite)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert app.return_code == 2


async def test_stale_mark_shows_when_the_outputs_changed(tmp_path: Path) -> None:
    suite = tmp_path / "incident"
    shutil.copytree(INCIDENT, suite)
    top = ranked_ids()
    app = app_for(suite)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "b")
    # The candidate's output of the marked example changes (same ranking is not needed).
    candidate = max((suite / "builds").glob("*.jsonl"))
    rows = read_jsonl(candidate)
    for row in rows:
        if row["id"] == top[0]:
            row["output"] += " And one more sentence."
    candidate.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    app = app_for(suite)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.review.is_stale(top[0])
        row = screen.table.row_of(screen.review.comparison.ids.index(top[0]))
        assert "regression*" in table_lines(screen.table)[1 + row]


async def test_no_cache_option_scores_without_writing_the_cache(
    isolated_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(isolated_state / "xdg_cache_home"))
    app = app_for(INCIDENT, no_cache=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.screen.review.cache is None
    cache = isolated_state / "xdg_cache_home"
    assert not any(cache.rglob("*.bin"))
    app = app_for(INCIDENT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert any(cache.rglob("*.bin"))


async def test_a_broken_suite_in_the_list_says_why_and_escape_goes_back(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "builds").mkdir(parents=True)
    (broken / "references.jsonl").write_text('{"id": "a", "reference": "x"}\n{oops\n')
    (broken / "builds" / "b1.jsonl").write_text('{"id": "a", "output": "x"}\n')
    app = app_for(broken, SUPPORT)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        listing = app.screen
        assert str(listing.table.get_row_at(0)[2]) == "error"
        assert "references.jsonl:2" in str(listing.table.get_row_at(0)[4])
        await press(pilot, "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.review is None
        assert "references.jsonl:2" in (screen.error or "")
        assert app.return_code is None  # still running: the other suites are one escape away
        await press(pilot, "escape")
        assert app.screen is listing
