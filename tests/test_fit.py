"""Fitting parts to a width (rouge_tui/app/fit.py): widths in terminal cells, whole parts,
and what was left out said with "…"."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from rouge_tui.app.fit import first_fit, flow, whole


def test_first_fit_takes_the_first_that_fits_else_the_last() -> None:
    forms = ["rank 12 · Δ +0.1234", "#12 · Δ+0.123", "#12"]
    assert first_fit(forms, 40) == "rank 12 · Δ +0.1234"
    assert first_fit(forms, 19) == "rank 12 · Δ +0.1234"  # 19 cells: fits exactly
    assert first_fit(forms, 18) == "#12 · Δ+0.123"
    assert first_fit(forms, 3) == "#12"
    assert first_fit(forms, 2) == "#12"  # none fits: the shortest there is
    with pytest.raises(ValueError):
        first_fit([], 10)


def test_first_fit_counts_cells_not_characters() -> None:
    # Four CJK characters are four characters but eight cells: they do not fit in five.
    assert first_fit(["漢字漢字", "ab"], 5) == "ab"
    assert first_fit(["漢字漢字", "ab"], 8) == "漢字漢字"
    # What is measured can be another form of the candidate (the overview's lists of parts).
    assert first_fit([["aaaa", "bbbb"], ["aa", "bb"]], 6, "  ".join) == ["aa", "bb"]


def test_whole_keeps_whole_labels_and_says_where_it_cut() -> None:
    """The movers table's signal cell (the cell cut `len- +sent +fig` to `len- +sent ` and
    lost `+fig`): whole labels, then `…` when some do not fit."""
    labels = ["+sent", "+fig", "len-"]
    assert whole(labels, 15) == "+sent +fig len-"
    assert whole(labels, 14) == "+sent +fig…"
    assert whole(labels, 12) == "+sent +fig…"
    assert whole(labels, 11) == "+sent +fig…"
    assert whole(labels, 10) == "+sent…"
    assert whole(labels, 7) == "+sent…"
    assert whole(labels, 5) == "…"
    assert whole(labels, 0) == ""
    assert whole(["+sent", "trunc", "len-"], 12) == "+sent trunc…"
    assert whole(["trunc", "len-"], 12) == "trunc len-"
    assert whole([], 3) == ""
    assert whole(["漢字", "ab"], 4) == "…"  # "漢字…" is five cells
    assert whole(["漢字", "ab"], 5) == "漢字…"


@given(st.lists(st.text(alphabet="ab漢 ", min_size=1, max_size=6), max_size=6), st.integers(0, 30))
def test_whole_is_the_longest_run_of_whole_items_that_fits(items: list[str], width: int) -> None:
    from rich.cells import cell_len

    got = whole(items, width)
    # Restated: all of them if they fit; else the most leading items with "…" after them
    # that fit; else "…" alone; else nothing.
    if cell_len(" ".join(items)) <= width:
        assert got == " ".join(items)
        return
    cuts = [" ".join(items[:keep]) + "…" for keep in range(1, len(items))]
    fitting = [cut for cut in cuts if cell_len(cut) <= width]
    assert got == (fitting[-1] if fitting else "…" if width >= 1 else "")


def test_flow_puts_whole_parts_on_as_few_lines_as_they_fill() -> None:
    parts = [Text("aaa"), Text("bb", style="bold"), Text("cccc"), Text("x" * 10)]
    lines = flow(parts, 9)
    assert [line.plain for line in lines] == ["aaa  bb", "cccc", "xxxxxxxxxx"]  # "aaa  bb  cccc" is 13
    assert lines[0].spans[0].style == "bold" and lines[0].spans[0].start == 5  # styles kept with the part
    assert all(line.no_wrap and line.overflow == "ellipsis" for line in lines)  # a part too wide says so
    assert [line.plain for line in flow(parts, 13)] == ["aaa  bb  cccc", "xxxxxxxxxx"]
    keys = flow([Text(" ? help "), Text(" q quit ")], 16, sep="", overflow="crop")  # the key bar
    assert [line.plain for line in keys] == [" ? help  q quit "] and keys[0].overflow == "crop"
    assert [line.plain for line in flow([Text("漢字漢字"), Text("a")], 10)] == ["漢字漢字", "a"]  # 8 + 2 + 1 cells
    assert flow([], 10) == []
