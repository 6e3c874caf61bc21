"""The overview: the figures and the verdict of the comparison on screen, five lines at the top.

Suite and build names are untrusted: they go through ``safetext`` into Rich ``Text``, never
markup. The verdict carries a direction symbol (▼ ▲ ●) so it reads without colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from rouge_tui.analysis import signals
from rouge_tui.analysis.compare import BuildStats
from rouge_tui.analysis.figures import Figures, percent
from rouge_tui.report import verdict_symbol, verdict_words
from rouge_tui.safetext import one_line

__all__ = ["Overview", "histogram", "interval_text", "shorten_names", "signed", "sparkline", "trend_levels"]

SPARKS = "▁▂▃▄▅▆▇█"
SCORING = "scoring every build…"  # the history line until its builds are scored


def histogram(delta: np.ndarray, bins: int) -> tuple[float, list[int]]:
    """Counts of per-example deltas in ``bins`` equal bins over [-span, +span]; ``bins`` is
    odd so the middle bin is centred on zero, ``span`` the largest |delta| rounded up to a
    multiple of 0.05."""
    largest = float(np.max(np.abs(delta))) if len(delta) else 0.0
    span = max(math.ceil(round(largest / 0.05, 9)) * 0.05, 0.05)
    counts, _ = np.histogram(np.clip(delta, -span, span), bins=np.linspace(-span, span, bins + 1))
    return span, [int(c) for c in counts]


def sparkline(counts: Sequence[int]) -> str:
    """One character per bin: ``·`` for none, else ▁..█ by count."""
    top = max(counts, default=0)
    return "".join(
        "·" if not count else SPARKS[max(1, math.ceil(count / top * len(SPARKS))) - 1]
        for count in counts
    )


def trend_levels(means: Sequence[float], band_width: float, anchor: float | None = None) -> list[int]:
    """Each mean's bar level (0 to 7) on the history line. The scale spans the means, and
    at least ``band_width`` (the baseline's band), centred on them, so a move inside the band
    looks small and not like a cliff (min to max drew two means equal to four decimals as
    █▁); levels are rounded from ``anchor`` (the baseline's mean), so a mean within half a
    level of it, or equal to it, draws its bar."""
    if not means:
        return []
    low, high = min(means), max(means)
    span = max(high - low, band_width)
    top = len(SPARKS) - 1
    if span <= 0:
        return [top // 2] * len(means)
    start = (low + high) / 2 - span / 2
    place = lambda mean: (mean - start) / span * top
    shift = 0.0 if anchor is None else place(anchor) - round(place(anchor))
    return [min(top, max(0, round(place(mean) - shift))) for mean in means]


def signed(value: float, digits: int) -> str:
    """``value`` with its sign in ``digits`` decimals; one too small to show is not written
    as zeros (`-0.000` read as no change at all) but as ``-<0.001`` or ``+<0.001``: its sign
    and its size."""
    shown = f"{value:+.{digits}f}"
    if value and float(shown) == 0:
        return f"{shown[0]}<{10.0**-digits:.{digits}f}"
    return shown


def interval_text(low: float, high: float, digits: int) -> str:
    """An interval in ``digits`` decimals, each end as `signed` writes it."""
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def shorten_names(names: Sequence[str], width: int) -> list[str]:
    """Each name in at most ``width`` characters, cut from the middle; where that would hide
    where it differs from the name closest to it (two nights' 2026-11-26_aa3f5f and
    2026-11-27_9f03aa read 2026-11…_aa3f5f and 2026-11…_9f03aa), or make two look alike,
    cut around that place."""
    shown = [one_line(name) for name in names]
    head = (width - 1) // 2

    def middle(name: str) -> str:
        if len(name) <= width:
            return name
        return name[:head] + "…" + name[len(name) - (width - 1 - head):]

    def around(name: str, at: int) -> str:
        start = max(0, min(at - (width - 2) // 2, len(name) - width))
        piece = name[start : start + width]
        if start:
            piece = "…" + piece[2:]
        if start + width < len(name):
            piece = piece[:-1] + "…"
        return piece

    out = [middle(name) for name in shown]
    for i, name in enumerate(shown):
        others = [other for other in shown if other != name]
        if not others or len(name) <= width:
            continue
        at = max(_first_difference(name, other) for other in others)  # the closest name's
        # The middle cut keeps it when it falls in the head, or in the tail with three
        # characters before it to read it by.
        if head <= at < len(name) - (width - 1 - head) + 3:
            out[i] = around(name, at)
    for i, name in enumerate(shown):  # two cut alike all the same: each around where it differs
        alike = [other for j, other in enumerate(shown) if j != i and out[j] == out[i] and other != name]
        if alike and len(name) > width:
            out[i] = around(name, min(_first_difference(name, other) for other in alike))
    return out


class Overview(Widget):
    """Suite, signature, builds with mean and band, verdict and delta, histogram, signals."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "overview--title", "overview--label", "overview--dim", "overview--down",
        "overview--up", "overview--within", "overview--spark", "overview--warn",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures: Figures | None = None
        self.loading_text = "loading…"
        self.notice: str | None = None  # e.g. the references changed since an earlier review
        self.trend: list | None = None  # the history's BuildScores, once scored
        self.trend_waiting = SCORING  # what the history line says until then

    def show(self, figures: Figures | None, notice: str | None = None) -> None:
        """A comparison's figures; its history line says "scoring every build…" until
        `show_trend` (the history of the comparison before is not this one's)."""
        self.figures = figures
        self.notice = notice
        self.trend, self.trend_waiting = None, SCORING
        self.refresh()

    def show_trend(self, trend: list | None, waiting: str = SCORING) -> None:
        """The history line's builds; None while there are none, ``waiting`` saying why."""
        self.trend = trend
        self.trend_waiting = waiting
        self.refresh()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"overview--{name}", partial=True)

    def render(self) -> RenderableType:
        if self.figures is None:
            return Text(one_line(self.loading_text), style=self._style("dim"), no_wrap=True, overflow="ellipsis")
        return Group(*self.lines(self.figures, self.size.width))

    # The overview's panels, top to bottom: each gives its lines for the figures and the
    # width: a new panel is one method and one entry here (and its lines in the height
    # rouge_tui.tcss gives the overview, fixed so the table does not jump when figures come).
    PANELS = ("title_lines", "build_lines", "verdict_lines", "signal_lines", "trend_lines")

    def lines(self, f: Figures, width: int) -> list[Text]:
        return [line for panel in self.PANELS for line in getattr(self, panel)(f, width)]

    def title_lines(self, f: Figures, width: int) -> list[Text]:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(one_line(f.suite, 40), style=self._style("title"))
        title.append("  ")
        if self.notice:  # (what the suite's name leaves, the signature after it cut first)
            room = max(60, width - title.cell_len - 4)
            title.append(f"! {one_line(self.notice, room)}", style=self._style("warn"))
            title.append("  ")
        title.append(f.signature)
        title.append("  refs ", style=self._style("label"))
        title.append(f.reference_fingerprint[:12])
        return [title]

    def build_lines(self, f: Figures, width: int) -> list[Text]:
        # Role, name, mean, band, n and runs (only when a build has several: the name, which
        # tells the pair apart, needs the room more): the name gets what is left.
        runs = f.baseline.runs > 1 or f.candidate.runs > 1
        numbers = max(len(str(b.n)) + (len(str(b.runs)) + 7 if runs else 0) for b in (f.baseline, f.candidate))
        name_width = max(8, min(28, width - 2 - 50 - numbers))
        names = shorten_names([f.baseline.name, f.candidate.name], name_width)
        return [
            self.build_line("baseline ", f.baseline, names[0], name_width, runs),
            self.build_line("candidate", f.candidate, names[1], name_width, runs),
        ]

    def verdict_lines(self, f: Figures, width: int) -> list[Text]:
        label = self._style("label")
        style = {"drift-down": "down", "drift-up": "up"}.get(f.verdict, "within")
        verdict = Text(no_wrap=True, overflow="ellipsis")
        verdict.append(f"{verdict_symbol(f.verdict)} {verdict_words(f.verdict)}", style=self._style(style))
        low, high = f.delta_interval
        source = f.baseline.band_source
        # Each part in its full form and a short one, in the order shown. What moved (P, R,
        # the ten's share) matters more than the interval's digits and the band (its bounds
        # are on the baseline's line), so those go first; then parts left out end in "…".
        full = [
            ("Δ", f"{f.delta_mean:+.4f}"),
            ("95%", interval_text(low, high, 4)),
            ("band", f"{source} k={f.settings.k:g}"),
            ("P", signed(f.delta_precision, 3)),
            ("R", signed(f.delta_recall, 3)),
            ("ten", f"{percent(f.top_share)} of |Δ|"),
        ]
        short = [full[0], ("95%", interval_text(low, high, 3)), *full[3:5], ("ten", percent(f.top_share))]
        room = width - verdict.cell_len
        parts = full if sum(len(n) + len(v) + 3 for n, v in full) <= room else short
        for number, (name, value) in enumerate(parts):
            if len(name) + len(value) + 3 + (3 if number < len(parts) - 1 else 0) > room:
                verdict.append("  …", style=label)
                break
            verdict.append(f"  {name} ", style=label)
            verdict.append(value)
            room -= len(name) + len(value) + 3
        return [verdict]

    def signal_lines(self, f: Figures, width: int) -> list[Text]:
        """The histogram of deltas, then how often each change signal fired."""
        label, dim = self._style("label"), self._style("dim")
        span, counts = histogram(f.delta, 15 if width < 100 else 31)
        spark = Text(no_wrap=True, overflow="ellipsis")
        spark.append("Δ ", style=label)
        spark.append(f"{-span:+.2f} ", style=dim)
        spark.append(sparkline(counts), style=self._style("spark"))
        spark.append(f" {span:+.2f}  ", style=dim)
        counted = signals.counts(f.signals)
        fired = [f"{s.short} {'…' if s.name in f.pending else counted[s.name]}" for _, s in signals.shown_order()
                 if counted[s.name] or s.name in f.pending]
        shown = signals.fit(fired, width - spark.cell_len, "  ", "  …") if fired else "no change signal fired"
        spark.append(shown, style="" if fired else label)
        return [spark]

    def trend_lines(self, f: Figures, width: int) -> list[Text]:
        """Every build's mean as a sparkline (the last ones that fit), the compared pair in
        reverse video with B and C beside their means; ✗ for a build that cannot be read."""
        label = self._style("label")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("history ", style=label)
        if self.trend is None:
            line.append(self.trend_waiting, style=self._style("dim"))
            return [line]
        scored = [b for b in self.trend if b.stats is not None]
        pair = (f.baseline.name, f.candidate.name)
        room = max(8, width - 50)
        shown = self.trend[-room:]
        means = [b.stats.mean for b in scored]
        low, high = (min(means), max(means)) if means else (0.0, 1.0)
        baseline = next((b.stats for b in scored if b.name == pair[0]), None)
        band = f.baseline.band[1] - f.baseline.band[0]
        levels = dict(zip((b.name for b in scored), trend_levels(means, band, baseline.mean if baseline else None)))
        for build in shown:
            if build.stats is None:
                line.append("✗", style=self._style("warn"))
                continue
            picked = build.name in pair
            line.append(SPARKS[levels[build.name]], style=Style(reverse=True, bold=True) if picked else self._style("spark"))
        # The history's own means, as its bars draw them: over all of a build's outputs,
        # which differ from the build lines' paired means when the builds hold other ids.
        kept = {b.name: b.stats for b in scored}
        ends = [kept.get(name) for name in pair]
        line.append("".join(f"  {role} " + (f"{stats.mean:.4f}" if stats else "✗") for role, stats in zip("BC", ends)),
                    style=Style(bold=True))
        if any(stats is not None and stats.n != paired.n for stats, paired in zip(ends, (f.baseline, f.candidate))):
            line.append(" (all outputs)", style=label)
        line.append(f"  {len(self.trend)} builds", style=label)
        if len(shown) < len(self.trend):
            line.append(f", last {len(shown)} drawn", style=label)
        broken = len(self.trend) - len(scored)
        if broken:
            line.append(f", {broken} unreadable", style=self._style("warn"))
        if f.copied:  # with sources: how much of each build's outputs is copied from them
            (cb, db), (cc, dc) = f.copied["baseline"], f.copied["candidate"]
            line.append("  copied ", style=label)
            line.append(f"cov {cb:.2f}→{cc:.2f} dens {db:.1f}→{dc:.1f}")
        elif means:
            line.append(f"  range {low:.3f}–{high:.3f}", style=label)
        return [line]

    def build_line(self, role: str, stats: BuildStats, name: str, width: int, runs: bool) -> Text:
        label = self._style("label")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(role, style=label)
        line.append(" " + name.ljust(width))
        line.append("  mean ", style=label)
        line.append(f"{stats.mean:.4f}", style=Style(bold=True))
        line.append("  band ", style=label)
        line.append(f"[{stats.band[0]:.4f}, {stats.band[1]:.4f}]")
        line.append("  n ", style=label)
        line.append(str(stats.n))
        if runs:
            line.append("  runs ", style=label)
            line.append(str(stats.runs))
        return line
