"""analysis.figures: how the comparison's figures read."""

from __future__ import annotations

from pathlib import Path

import pytest

from rouge_tui.analysis.figures import SORTS, Sort, percent
from rouge_tui.analysis.pipeline import open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.suite.suite import open_suite

INCIDENTS = Path(__file__).resolve().parent.parent / "sample_suites" / "incident-summaries"


@pytest.mark.parametrize(("share", "text"), [
    (0.0, "0%"), (0.0004, "<0.1%"), (0.004, "0.4%"), (0.0099, "1.0%"), (0.01, "1%"),
    (0.25, "25%"), (0.99, "99%"), (0.995, "99.5%"), (0.9995, ">99.9%"), (1.0, "100%"),
])
def test_a_share_reads_0_or_100_percent_only_when_it_is(share: float, text: str) -> None:
    """The ten of CNN/DM's 11,490 examples hold well under 1% of |delta|: "ten 0%" beside
    rows that moved by 0.6 read as nothing moved."""
    assert percent(share) == text


def test_each_sort_orders_as_it_says_and_a_new_one_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Figures.order` and `sorts` go by SORTS alone: a new order is one entry there. The
    orders checked against Python's sort of (key, rank), ties in ranking order."""
    figures = open_analysis(open_suite(INCIDENTS), Settings(), caches=None).figures
    rows = range(figures.paired)
    delta = figures.delta.tolist()
    for name in figures.sorts():
        assert sorted(figures.order(name).tolist()) == list(rows), name
    assert figures.order("|delta|").tolist() == list(rows)
    assert figures.order("regressions").tolist() == sorted(rows, key=lambda r: (delta[r], r))
    assert figures.order("improvements").tolist() == sorted(rows, key=lambda r: (-delta[r], r))
    assert figures.order("id").tolist() == sorted(rows, key=lambda r: figures.ids[r])
    monkeypatch.setitem(SORTS, "backwards", Sort("backwards", "back", "the ranking reversed", lambda f, rank: rank[::-1]))
    assert figures.sorts()[-1] == "backwards"
    assert figures.order("backwards").tolist() == list(reversed(rows))
    with pytest.raises(ValueError, match="unknown sort"):
        figures.order("sideways")
