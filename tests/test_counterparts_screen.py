"""The counterparts view (rouge_tui/app/screens/counterparts.py), opened with o."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import (
    CLOSING,
    app_for,
    open_chapter_pair,
    press,
    settle,
)
from suite_helpers import jsonl, make_suite
from textual.widgets import Static

from rouge_tui.app.screens.counterparts import CounterpartsScreen
from rouge_tui.app.screens.diff import DiffScreen

pytestmark = pytest.mark.slow


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
