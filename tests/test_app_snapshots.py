"""SVG snapshots of the app's main views at 80x24 and 120x40, in true colour, in 16
colours and under NO_COLOR (pytest-textual-snapshot; syrupy for the 16-colour renderings).

Accept a change with ``pytest tests/test_app_snapshots.py --snapshot-update`` only after
reading ``snapshot_report.html`` (and looking at the 16-colour SVGs). Nothing time-dependent
is on these screens: the sample suites are fixed files, state and cache live in per-test
folders, notifications are cleared.
"""

from __future__ import annotations

import argparse
import io

import pytest
from app_helpers import INCIDENT, press, ranked_ids, settle
from rich.console import Console
from textual.pilot import Pilot

from rouge_tui.app.app import RougeApp

pytestmark = pytest.mark.slow  # about two seconds each (a whole app run per picture)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
VIEWS = {
    "overview_and_movers": (),
    "diff_against_the_reference": ("enter",),
    "diff_baseline_vs_candidate": ("enter", "d"),
    "walk_the_ten_at_three": ("w", "n", "n"),
    "marked_rows": ("a", "down", "b", "down", "u", "down"),
    "help_screen": ("question_mark",),
    # The chapter's pair: B's invented closing sentence and A's paraphrase flagged [?].
    "chapter_pair_against_the_reference": (*["down"] * ranked_ids().index("inc-0042"), "enter"),
}


def steps(*keys: str):
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await press(pilot, *keys)
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


def app() -> RougeApp:
    return RougeApp(suites=[INCIDENT], options=argparse.Namespace())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", list(VIEWS))
def test_true_colour(snap_compare, view: str, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=steps(*VIEWS[view]))


@pytest.mark.parametrize("view", ["marked_rows", "diff_against_the_reference", "diff_baseline_vs_candidate"])
def test_no_color(snap_compare, monkeypatch: pytest.MonkeyPatch, view: str) -> None:
    """What NO_COLOR gets at 80x24: Textual draws every colour as its grey, and the marks,
    deltas, removed words and the verdict are drawn in the text's own colour there."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(), terminal_size=(80, 24), run_before=steps(*VIEWS[view]))


@pytest.mark.parametrize("view", list(VIEWS))
async def test_sixteen_colours(snapshot, view: str) -> None:
    """What a 16-colour terminal gets (TEXTUAL_COLOR_SYSTEM=standard): the screen rendered
    through Rich's downgrade to the 16 ANSI colours."""
    application = app()
    async with application.run_test(size=(80, 24)) as pilot:
        await steps(*VIEWS[view])(pilot)
        console = Console(
            width=80, height=24, file=io.StringIO(), force_terminal=True, color_system="standard",
            record=True, legacy_windows=False, safe_box=False,
        )
        console.print(application.screen._compositor.render_update(full=True))
        svg = console.export_svg(title=f"rouge-tui, 16 colours: {view}")
    assert svg == snapshot
