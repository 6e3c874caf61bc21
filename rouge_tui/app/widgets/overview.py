"""The overview: the figures and the verdict of one build pair, in five lines at the top.

Every piece of untrusted text (suite and build names) goes through ``safetext`` into Rich
``Text`` objects; nothing here is ever parsed as markup. The verdict carries a direction mark
(▼ ▲ ●) so it reads without colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from rouge_tui.compare import SIGNAL_NAMES, SIGNAL_SHORT, VERDICT_DOWN, VERDICT_UP, BuildStats
from rouge_tui.report import verdict_mark, verdict_words
from rouge_tui.safetext import one_line
from rouge_tui.scoring import Analysis
from rouge_tui.state import ReferenceChange

SPARKS = "▁▂▃▄▅▆▇█"
EMPTY_BIN = "·"


def histogram(delta: np.ndarray, bins: int) -> tuple[float, list[int]]:
    """Counts of per-example deltas in ``bins`` equal bins over [-span, +span].

    ``bins`` is odd so the middle bin is centred on zero (unchanged examples); ``span`` is the
    largest |delta| rounded up to a multiple of 0.05, so the axis ends are round numbers.
    """
    if bins % 2 == 0:
        raise ValueError("bins must be odd so that zero sits in the middle bin")
    largest = float(np.max(np.abs(delta))) if len(delta) else 0.0
    span = max(math.ceil(round(largest / 0.05, 9)) * 0.05, 0.05)
    edges = np.linspace(-span, span, bins + 1)
    counts, _ = np.histogram(np.clip(delta, -span, span), bins=edges)
    return span, [int(c) for c in counts]


def sparkline(counts: Sequence[int]) -> str:
    """One character per bin: empty bins ``·``, others ``▁``..``█`` linear in the count."""
    top = max(counts, default=0)
    out = []
    for count in counts:
        if count == 0:
            out.append(EMPTY_BIN)
        else:
            level = max(1, math.ceil(count / top * len(SPARKS)))
            out.append(SPARKS[level - 1])
    return "".join(out)


def short_fingerprint(fingerprint: str) -> str:
    return fingerprint[:12]


class Overview(Widget):
    """Suite, signature, builds with mean and band, verdict and delta, histogram and signals."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "overview--title",
        "overview--label",
        "overview--dim",
        "overview--down",
        "overview--up",
        "overview--within",
        "overview--spark",
    }

    analysis: reactive[Analysis | None] = reactive(None, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.loading_text = ""
        # set when the frozen references moved since an earlier review (History)
        self.reference_change: ReferenceChange | None = None

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"overview--{name}", partial=True)

    def render(self) -> RenderableType:
        analysis = self.analysis
        if analysis is None:
            return Text(self.loading_text or "loading…", style=self._style("dim"), no_wrap=True)
        return Group(*self.lines(analysis, self.size.width))

    def verdict_style(self, verdict: str) -> Style:
        if verdict == VERDICT_DOWN:
            return self._style("down")
        if verdict == VERDICT_UP:
            return self._style("up")
        return self._style("within")

    def lines(self, analysis: Analysis, width: int) -> list[Text]:
        """The overview's lines for a content area ``width`` cells wide."""
        suite, c = analysis.suite, analysis.comparison
        label, dim = self._style("label"), self._style("dim")

        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(one_line(suite.name, 40), style=self._style("title"))
        title.append("  ")
        if self.reference_change is not None:
            # before the signature, so even 80 columns show it
            since = self.reference_change.since[:10]
            title.append(f"! refs changed since {since}", style=self._style("up"))
            title.append("  ")
        title.append(analysis.signature)
        title.append("  refs ", style=label)
        title.append(short_fingerprint(suite.fingerprint))

        name_width = max(10, min(28, width - 58 - len(str(c.paired))))
        rows = [
            self.build_line("baseline ", c.baseline, name_width),
            self.build_line("candidate", c.candidate, name_width),
        ]

        verdict = Text(no_wrap=True, overflow="ellipsis")
        verdict.append(
            f"{verdict_mark(c.verdict)} {verdict_words(c.verdict)}",
            style=self.verdict_style(c.verdict),
        )
        verdict.append("  Δ ", style=label)
        verdict.append(f"{c.delta_mean:+.4f}")
        low, high = c.delta_interval
        verdict.append("  95% ", style=label)
        verdict.append(f"[{low:+.4f}, {high:+.4f}]")
        verdict.append("  band ", style=label)
        verdict.append(f"{c.baseline.band_source} k={c.k:g}")

        bins = 15 if width < 100 else 31
        span, counts = histogram(c.delta, bins)
        spark = Text(no_wrap=True, overflow="ellipsis")
        spark.append("Δ ", style=label)
        spark.append(f"{-span:+.2f} ", style=dim)
        spark.append(sparkline(counts), style=self._style("spark"))
        spark.append(f" {span:+.2f}", style=dim)
        signal_counts = c.signal_counts()
        signals = " ".join(
            f"{SIGNAL_SHORT[flag]} {signal_counts[name]}" for flag, name in SIGNAL_NAMES.items()
        )
        # The label goes first when the line is too long: the signal names speak for themselves.
        room = width - 2 - spark.cell_len - 2 - len(signals)
        spark.append("  signals: " if room >= 9 else "  ", style=label)
        spark.append(signals)
        return [title, *rows, verdict, spark]

    def build_line(self, role: str, stats: BuildStats, name_width: int) -> Text:
        label = self._style("label")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(role, style=label)
        line.append(" ")
        name = Text(one_line(stats.name, name_width * 2))
        name.truncate(name_width, overflow="ellipsis", pad=True)
        line.append_text(name)
        line.append("  mean ", style=label)
        line.append(f"{stats.mean:.4f}", style=Style(bold=True))
        line.append("  band ", style=label)
        line.append(f"[{stats.band[0]:.4f}, {stats.band[1]:.4f}]")
        line.append("  n ", style=label)
        line.append(str(stats.n))
        line.append("  runs ", style=label)
        line.append(str(stats.runs))
        return line
