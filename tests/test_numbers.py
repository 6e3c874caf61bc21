"""How a signed figure is written, in the app and every report alike (`rouge_tui.numbers`)."""

from __future__ import annotations

import json
import re

from rouge_tui import cli
from rouge_tui.numbers import interval_text, signed


def test_a_delta_too_small_to_show_says_its_sign_and_size_not_zeros() -> None:
    """A newcomer read "Δ -0.0000" and "recall -0.0000" in the report (no change at all?)
    where the app wrote "-<0.0001". Worked by hand: four decimals, then the rule."""
    assert signed(-0.0352) == "-0.0352"
    assert signed(0.00012) == "+0.0001"
    assert signed(-0.00003) == "-<0.0001"
    assert signed(0.00002) == "+<0.0001"
    assert signed(0.0) == signed(-0.0) == "+0.0000"  # nothing moved: zeros, and no minus
    assert signed(-0.0004, 3) == "-<0.001"
    assert interval_text(-0.00003, 0.2, 4) == "[-<0.0001, +0.2000]"


def test_the_text_report_writes_a_tiny_history_delta_as_the_app_does(capsys) -> None:
    """The sample's 2026-11-25 moved by 2e-05 from the build before: "+0.0000" in the report
    and the app's history, where the overview wrote such a move "+<0.0001". Now all do."""
    cli.main(["report", "--history", "--format", "json"])
    history = json.loads(capsys.readouterr().out)["history"]
    tiny = next(h for h in history if h["delta"] is not None and 0 < abs(h["delta"]) < 0.00005)
    cli.main(["report", "--history"])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith(tiny["name"]))
    assert ("+<0.0001" if tiny["delta"] > 0 else "-<0.0001") in row and "0.0000" not in row, row


def test_in_html_a_tiny_figure_is_text_not_a_tag(capsys) -> None:
    """A review: "+<0.0001" went into the HTML as it is (and "<0.1%" of the ten's share too):
    the "<" is escaped, as any text in the page."""
    cli.main(["report", "--history", "--format", "html"])
    page = capsys.readouterr().out
    assert "+&lt;0.0001" in page
    assert not re.search(r"<[0-9.%]", page)
