"""The counterparts view (rouge_tui/app/screens/counterparts.py), opened with o."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import (
    CLOSING,
    app_for,
    open_chapter_pair,
    open_first_diff,
    press,
    screen_text,
    settle,
)
from suite_helpers import one_example
from textual.widgets import Static

from rouge_tui.app.screens.counterparts import CounterpartsScreen
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.help import HelpScreen

pytestmark = pytest.mark.slow


async def test_o_shows_that_bs_closing_sentence_has_no_counterpart() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_chapter_pair(pilot)
        await press(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        text = app.screen.text().plain  # its lines whole, as before they are wrapped to the screen
        assert text.splitlines()[0].endswith("(escape closes)")  # the footer is the diff's
        candidate = text[: text.index("\nbaseline · ")]
        # B's sentences are numbered 1 to 4; the closing one is 4., flagged, and said new.
        closing = candidate[candidate.index("  4. ") :]
        assert closing.startswith(f"  4. [?] {CLOSING}\n")
        assert "new: in none of them, nor in the baseline — read it" in closing
        for number in (1, 2, 3):  # the copied ones have a counterpart and no flag
            own = candidate[candidate.index(f"  {number}. ") : candidate.index(f"  {number + 1}. ")]
            assert "[?]" not in own and "read it" not in own
        # README: footers show `?` always; in the `o` list it was missing, and did nothing
        assert "? help" in screen_text(app).splitlines()[-1]
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, CounterpartsScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, DiffScreen)


async def test_o_holds_supports_to_the_suites_min_support(tmp_path: Path) -> None:
    """With [grounding] min_support = 0.8, a sentence 6 of whose 10 words lie on an LCS with
    the reference (support 0.60) has no counterpart: not bold, and the screen says 0.8."""
    reference = "one two three four five six seven eight nine ten."
    candidate = "one two three four five six zebra yak wolf fox."
    suite = one_example(tmp_path / "s", reference, "alpha beta gamma.", candidate, "[grounding]\nmin_support = 0.8\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_first_diff(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        content = app.screen.text()
        text = content.plain
        assert "(0.8 or more: a counterpart)" in text
        at = text.index("support 0.60")
        bold = [span for span in content.spans if span.start <= at < span.end and "bold" in str(span.style)]
        assert not bold, bold
        assert f"  1. [?] {candidate}" in text


async def test_o_names_each_new_figure_once_and_no_source_where_there_is_none(tmp_path: Path) -> None:
    """A newcomer read "figures found nowhere else: 2008, 2008" (the output wrote it twice),
    and "best in the references and source" on a suite with no source."""
    reference = "The merger closed in 2010 after a long review."
    kept = "The board resigned over lunch."  # in the baseline too: unsupported, not new
    candidate = f"The merger closed in 2008. Regulators approved it in 2008 and 1999. {kept}"
    suite = one_example(tmp_path / "s", reference, f"{reference} {kept}", candidate)
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_first_diff(pilot, "o")
        assert isinstance(app.screen, CounterpartsScreen)
        text = app.screen.text().plain
    candidate_part = text[: text.index("\nbaseline · ")]
    assert "figures found nowhere else: 2008, 1999\n" in candidate_part
    assert "best in the references:" in text and "references and source" not in text
    assert "reference or source" not in text and "no counterpart in the references — read it" in text


async def test_a_sentence_too_long_for_the_line_goes_on_under_itself() -> None:
    """A newcomer found o's list hard to scan at 80 columns: a long sentence, and a long
    counterpart, went on at the left edge, among the numbers. Each now goes on under its own
    start (the numbers and labels a column of their own), and no line is wider than the view."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_chapter_pair(pilot)
        await press(pilot, "o")
        await settle(pilot)
        shown = app.screen.query_one("#boxed-text", Static)
        lines = shown.content.plain.splitlines()
        width = shown.content_region.width
        listed = [line for line in lines if line.startswith("  ")]  # the sentences and what is said of them
        assert listed and max(len(line) for line in listed) <= width, (width, listed)
        at = next(k for k, line in enumerate(lines) if line.startswith("  4. [?] "))
        closing = [lines[at][len("  4. "):]]  # (no space is left at the end of a line)
        for line in lines[at + 1:]:
            if not line.startswith(" " * 5) or line.startswith(" " * 7 + "best"):
                break
            assert line.startswith(" " * 5) and not line.startswith(" " * 6), line  # under the flag
            closing.append(line[5:])
        assert len(closing) > 1 and " ".join(closing) == f"[?] {CLOSING}", closing
        counterparts = [line for line in lines if line.startswith("       best in the references")]
        assert counterparts and all(len(line) <= width for line in counterparts)


async def test_j_k_g_and_G_move_in_the_list_as_in_help_and_the_diff() -> None:
    """README: j k g G move in a list or scroll a diff or the help; in o's list they did
    nothing (down, page down and end did)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_chapter_pair(pilot)
        await press(pilot, "o")
        await settle(pilot)
        box = app.screen.query_one("#help-box")
        assert box.max_scroll_y > 3 and box.scroll_y == 0
        await press(pilot, "j", "j", "j")
        assert box.scroll_y == 3
        await press(pilot, "k")
        assert box.scroll_y == 2
        await press(pilot, "G")
        assert box.scroll_y == box.max_scroll_y
        await press(pilot, "g")
        assert box.scroll_y == 0 and isinstance(app.screen, CounterpartsScreen)

