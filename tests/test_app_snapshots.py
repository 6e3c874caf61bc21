"""SVG snapshots of the app's main views at 80x24 and 120x40 (pytest-textual-snapshot).

Accept a change with ``pytest tests/test_app_snapshots.py --snapshot-update`` only after
reading ``snapshot_report.html``. Nothing time-dependent is on these screens: the sample
suites are fixed files, state and cache live in per-test folders, no notification is up.
"""

from __future__ import annotations

import argparse

import pytest
from test_app_helpers import INCIDENT, press, settle
from textual.pilot import Pilot

from rouge_tui.app.app import RougeApp

pytestmark = pytest.mark.slow  # about two seconds each (a whole app run per picture)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


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
def test_overview_and_movers(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=steps())


@pytest.mark.parametrize("size", SIZES)
def test_diff_against_the_reference(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=steps("enter"))


@pytest.mark.parametrize("size", SIZES)
def test_diff_baseline_vs_candidate(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=steps("enter", "d"))


@pytest.mark.parametrize("size", SIZES)
def test_walk_the_ten_at_three(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=steps("w", "n", "n"))


def test_marked_rows(snap_compare) -> None:
    assert snap_compare(app(), terminal_size=(100, 30), run_before=steps("g", "down", "b", "down"))


def test_help_screen(snap_compare) -> None:
    assert snap_compare(app(), terminal_size=(80, 24), run_before=steps("question_mark"))
