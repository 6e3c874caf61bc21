"""analysis.figures: how the comparison's figures read."""

from __future__ import annotations

import pytest

from rouge_tui.analysis.figures import percent


@pytest.mark.parametrize(("share", "text"), [
    (0.0, "0%"), (0.0004, "<0.1%"), (0.004, "0.4%"), (0.0099, "1.0%"), (0.01, "1%"),
    (0.25, "25%"), (0.99, "99%"), (0.995, "99.5%"), (0.9995, ">99.9%"), (1.0, "100%"),
])
def test_a_share_reads_0_or_100_percent_only_when_it_is(share: float, text: str) -> None:
    """The ten of CNN/DM's 11,490 examples hold well under 1% of |delta|: "ten 0%" beside
    rows that moved by 0.6 read as nothing moved."""
    assert percent(share) == text
