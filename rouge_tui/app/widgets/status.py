"""The review screen's status line: how far reading or scoring has got, then the sort, the
rows shown, the filter, the marks and the examples left out, fitted to the width."""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text
from textual.widgets import Static

from rouge_tui.app.fit import first_fit

# How the line fits: each step shortens one part to its next form (the last form of the sort
# is none), least needed first, until the line fits; counts are never dropped.
STATUS_STEPS = ("out", "sort", "rows", "filter", "filter", "out", "sort")


class StatusLine(Static):
    """One line under the table; `show` gives it what to say."""

    def __init__(self, *, id: str = "status") -> None:
        super().__init__(id=id)
        self.progress = ""
        self.parts: dict[str, list[str]] = {}

    def show(self, progress: str, parts: dict[str, list[str]]) -> None:
        """``progress`` first (it must not be cut off), then ``parts`` (each in its forms,
        longest first, in the order shown), shortened by STATUS_STEPS until the line fits."""
        self.progress, self.parts = progress, parts
        self.fit()

    def fit(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.progress:
            text.append(self.progress, style="bold")
            text.append("  ")
        text.append(first_fit(self.lines(), self.screen.size.width - self.styles.gutter.width - text.cell_len))
        self.update(text)

    def lines(self) -> Iterator[str]:
        """The parts in their longest forms, then after each of STATUS_STEPS."""
        parts = self.parts
        chosen = dict.fromkeys(parts, 0)

        def line() -> str:
            return " · ".join(filter(None, (parts[name][chosen[name]] for name in parts)))

        yield line()
        for step in STATUS_STEPS:
            if step in parts:
                chosen[step] = min(chosen[step] + 1, len(parts[step]) - 1)
            yield line()
