"""The movers table (rouge_tui/app/widgets/movers.py): its rows, cursor, marks and labels.

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import pytest
from app_helpers import (
    app_for,
    incident_deltas,
    press,
    review_screen,
    settle,
)

from rouge_tui.app.widgets.movers import MoversTable

pytestmark = pytest.mark.slow


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
        # Three signals on one row; +sent, the one to read, first. At 80 columns the sample's
        # short ids leave the signals the room for all three; at 60, not for the third.
        index = next(i for i, f in enumerate(figures.signals) if signals.names(int(f)) == ["truncated", "shorter", "new-sentence"])
        row = table.row_text(table.row_of(index), table.size.width).plain
        assert "+sent trunc len- " in row and "…" not in row, row
        row = table.row_text(table.row_of(index), 60).plain
        assert "+sent trunc…" in row, row


def test_short_ids_leave_their_columns_to_the_signals() -> None:
    """A newcomer saw "+sent trunc…" beside an id column 26 cells wide for ids of 8. Worked by
    hand at 80 columns and 237 rows: rank 3, mark 12, signals 12, the fixed cells 54, so the
    id column had 26; ids of 8 (and their space) take 9 and the signals get the other 17.
    Longer or unknown ids keep the column as it was; the id column never goes under 8."""
    from rouge_tui.app.widgets.movers import FITTED_IDS, Columns, longest_id

    assert Columns.fit(80, 237) == Columns(rank=3, id=26, signals=12, mark=12)
    assert Columns.fit(80, 237, 8) == Columns(rank=3, id=9, signals=29, mark=12)
    assert Columns.fit(80, 237, 40) == Columns(rank=3, id=26, signals=12, mark=12)
    assert Columns.fit(80, 237, 3) == Columns(rank=3, id=8, signals=30, mark=12)
    assert Columns.fit(120, 237, 8) == Columns(rank=3, id=9, signals=22 + 55 - 9, mark=13)  # fixed 65, id 55
    assert longest_id(["a", "inc-0001"]) == 8
    assert longest_id(["a", "日本"]) is None and longest_id(["a\x01"]) is None and longest_id([]) is None
    assert longest_id(["ab"] * FITTED_IDS) == 2 and longest_id(["ab"] * (FITTED_IDS + 1)) is None


async def test_the_header_stays_over_its_figures_when_a_filter_leaves_few_rows() -> None:
    """The reviewer of the signals' room found the header one column off its figures once a
    filter left fewer than 100 of the sample's 237 rows: the header's rank column was sized
    to the rows shown, the rows' to every paired one, and the id column no longer made up the
    difference. Both are sized to the paired rows."""
    import numpy as np

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        figures = review_screen(app).analysis.figures
        for view in (np.arange(figures.paired), np.arange(3)):  # every row, then a filter's three
            table.show(figures, view, rule=False)
            header, row = table.header(80).plain, table.row_text(0, 80).plain
            base = f"{float(figures.baseline_f[0]):.4f}"
            assert header.index("base") + len("base") == row.index(base) + len(base), (header, row)
            assert header.index("delta") + len("delta") == row.index(f"{float(figures.delta[0]):+.4f}") + 7


async def test_shrunk_and_grown_back_the_table_shows_its_first_rows_again() -> None:
    """A newcomer on call: g j, the window shrunk to 60x20 and grown back to 80x24 (and to
    120x40), and the table began at row 2: the most-moved row out of sight, with room to
    spare under the last. Where the cursor's row fits from the top, the table starts there;
    a cursor further down stays in sight."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MoversTable)
        await press(pilot, "g", "j")
        for size in ((60, 20), (80, 24), (60, 20), (120, 40)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
        assert table.cursor == 1 and round(table.scroll_y) == 0
        await press(pilot, "end")
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        body = table.scrollable_content_region.height - 1
        assert round(table.scroll_y) <= table.line_of_row(table.cursor) < round(table.scroll_y) + body
