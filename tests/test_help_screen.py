"""The help screen (rouge_tui/app/screens/help.py): what it lists, how it wraps and closes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    app_for,
    press,
    review_screen,
    screen_text,
    settle,
    slow_open,
)

from rouge_tui.analysis.figures import SORTS
from rouge_tui.analysis.signals import SIGNALS
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.screens.review import ReviewScreen

pytestmark = pytest.mark.slow


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
        # (a newcomer found ", signal alarm" after the verdict explained nowhere)
        assert ("within band, signal alarm: a change signal drifts above its band, and the report exits 1 as for a "
                "drift") in " ".join(text.split())
        sorts = text[text.index("Sorts (s cycles)"):text.index("Change signals")]
        lines = sorts.splitlines()[1:-1]
        assert len(lines) == len(SORTS) and all(line.startswith(f"  {s.words} ") for line, s in zip(lines, SORTS.values()))
        assert "  backwards            the ranking reversed\n" in sorts
        # Every description starts in one column: "beyond its own noise" overran it by one.
        starts = {line.index(sort.summary[:12], len(sort.words) + 2) for line, sort in zip(lines, SORTS.values())}
        assert len(starts) == 1, lines


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
    import threading

    from rouge_tui.app.screens import review as review_module

    slow, go = review_module.open_review, threading.Event()  # the figures wait for the asserts

    def slower(*args, **kwargs):
        go.wait(30)
        return slow(*args, **kwargs)

    monkeypatch.setattr(review_module, "open_review", slower)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await pilot.pause(0.2)
            assert review_screen(app).analysis is None
            await pilot.press("question_mark")  # (press would wait for the figures)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen) and review_screen(app).analysis is None
            text = app.screen.text().plain
            assert " help\n" in text and " quit\n" in text and "(not now)" in text  # the rest is off
        finally:
            go.set()


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


async def test_help_opened_while_the_suite_loads_says_which_keys_work_once_it_has(monkeypatch) -> None:
    """A newcomer's ? while a 100k suite loaded listed every key "(not now)", and it kept
    saying so once the table showed. The help follows the keys of the screen below."""
    slow_open(monkeypatch)
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        said = lambda: app.screen.query_one("#boxed-text").content.plain
        assert "metric (not now)" in said()
        for _ in range(50):
            await pilot.pause(0.1)
            if "metric (not now)" not in said():
                break
        assert "metric (not now)" not in said() and "metric" in said()
