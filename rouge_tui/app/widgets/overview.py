"""The overview: the figures and the verdict of the comparison on screen, at the top.

Nothing in it is cut: a panel's parts that do not fit the width go on to a line of their
own (`flow`), and the overview is as tall as its lines, at least its panels' heights so the table
does not jump when the figures come.

Suite and build names are untrusted: they go through ``safetext`` into Rich ``Text``, never
markup. The verdict carries a direction symbol (▼ ▲ ●) so it reads without colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from rich.cells import chop_cells
from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from rouge_tui.analysis import signals
from rouge_tui.analysis.compare import VERDICTS, BuildStats, signal_alarm
from rouge_tui.analysis.figures import MOVED_BY, Figures, percent
from rouge_tui.analysis.triage import drift_words, quiet_words
from rouge_tui.app.fit import first_fit, flow
from rouge_tui.numbers import interval_text, signed
from rouge_tui.report.words import p_words
from rouge_tui.safetext import one_line

__all__ = ["PANELS", "Overview", "Panel", "histogram", "sparkline", "trend_levels"]

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


class Overview(Widget):
    """Suite, signature, builds with mean and band, verdict and delta, histogram, signals."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "overview--title", "overview--label", "overview--dim", "overview--down",
        "overview--up", "overview--within", "overview--spark", "overview--picked", "overview--warn",
    }

    @property
    def min_height(self) -> int:
        """The panels' least heights together: the overview's before the figures come."""
        return sum(panel.height for panel in PANELS)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures: Figures | None = None
        self.loading_text = "loading…"
        self.notice: str | None = None  # e.g. the references changed since an earlier review
        self.trend: list | None = None  # the history's rows (`HistoryRow`), once scored
        self.trend_waiting = SCORING  # what the history line says until then

    def show(self, figures: Figures | None, notice: str | None = None) -> None:
        """A comparison's figures; its history line says "scoring every build…" until
        `show_trend` (the history of the comparison before is not this one's)."""
        self.figures = figures
        self.notice = notice
        self.trend, self.trend_waiting = None, SCORING
        self.refresh(layout=True)

    def show_trend(self, trend: list | None, waiting: str = SCORING) -> None:
        """The history line's builds; None while there are none, ``waiting`` saying why."""
        self.trend = trend
        self.trend_waiting = waiting
        self.refresh(layout=True)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"overview--{name}", partial=True)

    def get_content_height(self, container, viewport, width: int) -> int:
        if self.figures is None:
            return self.min_height
        return max(self.min_height, len(self.lines(self.figures, width)))

    def render(self) -> RenderableType:
        if self.figures is None:
            return Text(one_line(self.loading_text), style=self._style("dim"), no_wrap=True, overflow="ellipsis")
        return Group(*self.lines(self.figures, self.size.width))

    def lines(self, f: Figures, width: int) -> list[Text]:
        return [line for panel in PANELS for line in panel.lines(self, f, width)]


class Panel:
    """One part of the overview, listed once in `PANELS` (top to bottom): the lines it draws
    for the figures at a width, at least ``height`` of them (the overview's least height is
    theirs: the table does not jump when the figures come), and what its short words mean
    (``help``: the help screen's "The overview"). A new panel is one class and its entry."""

    height: ClassVar[int] = 1
    help: ClassVar[tuple[tuple[str, str], ...]] = ()

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        raise NotImplementedError


class TitlePanel(Panel):
    """The suite, the signature and the references' fingerprint; the notice, if any."""

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        parts = [Text(one_line(f.suite, max(40, width)), style=overview._style("title"))]
        if overview.notice:
            parts.append(Text(f"! {one_line(overview.notice)}", style=overview._style("warn")))
        # The signature but for its seed: the paired test's, the same for every comparison
        # the app draws (the report's signature carries it, for comparing across runs).
        parts.append(Text(f.signature.rsplit("|seed:", 1)[0]))
        parts.append(Text.assemble(("refs ", overview._style("label")), f.reference_fingerprint[:12]))
        return flow(parts, width)


NO_SOURCE_TAG = "no source"  # signals.NO_SOURCE_SHORT where the line has no room for it
SHORT_SCREEN = 24  # rows: a screen this short keeps the ten most-moved in view before words


class AlarmPanel(Panel):
    """What drifted besides ROUGE (SPEC "Triage")."""

    help = (
        ("▲ +fig 7", ("a signal drift (under the title; in words, \"▲ new figures: 7 outputs (earlier pairs "
                      "0-1)\", where there is room): a change signal fired on more outputs than its band allows; "
                      "(0-1): how many it fired on in each earlier build pair")),
        (NO_SOURCE_TAG, signals.NO_SOURCE_SHORT),
    )

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        """What drifted besides ROUGE, in words (SPEC "Triage"): each signal drift as
        ``▲ new figures: 87 outputs (earlier pairs 27-34)``, shorter forms where room is short;
        else that none is above its band, or why they have none yet."""
        line = Text(no_wrap=True, overflow="ellipsis")
        if f.pending:
            line.append("signals: finding new sentences and figures…", style=overview._style("dim"))
            return [line]
        drifts = [rate.to_json() for rate in f.drifting]
        if drifts:
            short = {s.name: s.short for s in signals.SIGNALS}
            words = {s.name: s.said for s in signals.SIGNALS}
            was = [drift_words(d).rsplit("pairs ", 1)[1].rstrip(")") for d in drifts]  # "27-34"
            forms = (  # each shorter than the one before; the last goes on to more lines if it must
                [drift_words(d) for d in drifts],
                # The signals in words where room allows ("+sent" read as jargon at 80 columns).
                [f"▲ {words[d['signal']]} {d['count']} (was {w})" for d, w in zip(drifts, was)],
                [f"▲ {short[d['signal']]} {d['count']} (was {w})" for d, w in zip(drifts, was)],
                [f"▲ {short[d['signal']]} {d['count']} ({w})" for d, w in zip(drifts, was)],
            )
            said = first_fit(forms, width - 2, "  ".join)
            return flow([Text(part, style=overview._style("down")) for part in said] + self._no_source(overview, f),
                        width - 2)
        reasons = {rate.reason for rate in f.rates if rate.reason}
        if reasons:
            line.append(f"signal bands: none ({min(reasons).removeprefix('no band: ')})", style=overview._style("label"))
        else:
            line.append(quiet_words([rate.to_json() for rate in f.rates]), style=overview._style("label"))
        said = self._no_source(overview, f)
        short = overview.app.size.height <= SHORT_SCREEN
        if said and short and line.cell_len + 2 + said[0].cell_len > width >= line.cell_len + 2 + len(NO_SOURCE_TAG):
            # Beside the bands' line rather than under it: at 80x24 a second line took the
            # tenth most-moved row off the screen (a newcomer's pass); ? says it whole.
            said = [Text(NO_SOURCE_TAG, style=overview._style("warn"))]
        return flow([part for part in (line, *said) if part], width) or [line]

    @staticmethod
    def _no_source(overview: Overview, f: Figures) -> list[Text]:
        """SPEC: without a source the overview says so once (not only in a notice that goes)."""
        if signals.NO_SOURCE not in f.warnings:
            return []
        return [Text(signals.NO_SOURCE_SHORT, style=overview._style("warn"))]


class BuildPanel(Panel):
    """The two builds compared, each with its mean, band and n."""

    height = 2

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        # Role, name, mean, band, n and runs (only when a build has several: the name, which
        # tells the pair apart, needs the room more). The names padded alike, so the figures
        # stand in one column; a name too long for the line goes on a line of its own, the
        # figures under it, and is never cut (a newcomer could not tell the year of
        # "…-11-24_1a2b3c").
        runs = f.baseline.runs > 1 or f.candidate.runs > 1
        builds = (("baseline ", f.baseline), ("candidate", f.candidate))
        names = [Text(one_line(stats.name)) for _, stats in builds]
        parts = [self.figures(overview, stats, runs) for _, stats in builds]
        room = width - 10 - max(part.cell_len for part in parts)  # "candidate " is 10 cells
        longest = max(name.cell_len for name in names)
        if longest <= room:
            pad = min(room, max(longest, 8, min(28, room - 2)))
            return [self.role(overview, role) + name + " " * (pad - name.cell_len) + part
                    for (role, _), name, part in zip(builds, names, parts)]
        lines = []
        for (role, _), name, part in zip(builds, names, parts):
            pieces = chop_cells(name.plain, max(1, width - 10)) or [""]  # wider than the line: folded
            lines.append(self.role(overview, role) + pieces[0])
            lines += [Text(" " * 10, no_wrap=True, overflow="ellipsis") + piece for piece in pieces[1:]]
            # (the left part's overflow is the line's: "…" where even the figures are too wide)
            lines.append(Text(" " * 8, no_wrap=True, overflow="ellipsis") + part)
        return lines

    @staticmethod
    def role(overview: Overview, role: str) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(role, style=overview._style("label"))  # a span: the line's own style stays plain
        line.append(" ")
        return line

    @staticmethod
    def figures(overview: Overview, stats: BuildStats, runs: bool) -> Text:
        label = overview._style("label")
        line = Text(no_wrap=True, overflow="ellipsis")
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


class VerdictPanel(Panel):
    """The verdict and what moved."""

    help = (
        ("Δ", "the mean paired delta of F, candidate minus baseline, over the ids both builds have"),
        ("95%  p", ("that delta's paired bootstrap interval and sign-flip p-value (seeded: the same "
                    "every run); band: where the baseline's band comes from, and its k")),
        ("P  R", ("the mean paired delta of precision and of recall (recall falling while precision "
                  "holds: shorter outputs)")),
        ("ten", "the ten most-moved outputs' share of the total |Δ|: a few outputs moved, or all of them"),
    )

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        """The verdict, then what moved: the delta with the paired test's interval and p, the
        band's source, P and R, the ten's share; on as many lines as the width needs."""
        label = overview._style("label")
        low, high = f.delta_test["interval"] if f.delta_test else f.delta_interval  # the bootstrap's
        p = p_words(f.delta_test["p_value"]) if f.delta_test else "?"
        parts = [
            ("Δ", f"{signed(f.delta_mean)}"),
            ("95%", interval_text(low, high, 4)),
            ("p", p),
            ("P", signed(f.delta_precision, 3)),
            ("R", signed(f.delta_recall, 3)),
            ("ten", f"{percent(f.top_share)} of |Δ|"),
            ("band", f"{f.baseline.band_source} k={f.settings.k:g}"),
        ]
        verdict = Text(VERDICTS[f.verdict].said, style=overview._style(VERDICTS[f.verdict].tone))
        verdict.append(signal_alarm(f.verdict, bool(f.drifting)), style=overview._style("down"))
        return flow([verdict, *(Text.assemble((f"{name} ", label), value) for name, value in parts)], width)


class SignalPanel(Panel):
    """How the examples moved, and how often each change signal fired."""

    help = (
        ("Δ -x ▁█ +x", "how many examples moved how far, from the largest fall to the largest rise"),
    )

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        """The histogram of deltas, then how often each change signal fired."""
        label, dim = overview._style("label"), overview._style("dim")
        span, counts = histogram(f.delta, 15 if width < 100 else 31)
        spark = Text()
        spark.append("Δ ", style=label)
        spark.append(f"{-span:+.2f} ", style=dim)
        spark.append(sparkline(counts), style=overview._style("spark"))
        spark.append(f" {span:+.2f}", style=dim)
        # How many got better and how many worse, the first thing a reader counts.
        moved = Text.assemble(("▲ ", label), str(f.improved), (" up  ", label), ("▼ ", label),
                              str(f.regressed), (f" down (|Δ|>{MOVED_BY:g})", label))
        counted = signals.counts(f.signals)
        fired = [Text(f"{s.short} {'…' if s.name in f.pending else counted[s.name]}") for _, s in signals.shown_order()
                 if counted[s.name] or s.name in f.pending]
        return flow([spark, moved, *(fired or [Text("no change signal fired", style=label)])], width)


class TrendPanel(Panel):
    """The history: every build's mean, the compared pair picked out."""

    help = (
        ("history", ("each build's mean over all its own ids, oldest first; B and C: the pair compared; the bars "
                     "span at least the baseline's band, so a move inside it looks small")),
        ("copied", ("with sources: each build's mean coverage (cov) and density (dens) of spans "
                    "copied from the source")),
    )

    def lines(self, overview: Overview, f: Figures, width: int) -> list[Text]:
        """Every build's mean as a sparkline (the last ones that fit), the compared pair's bars
        underlined with B and C beside their means; ✗ for a build that cannot be read."""
        label = overview._style("label")
        line = Text()
        line.append("history ", style=label)
        if overview.trend is None:
            line.append(overview.trend_waiting, style=overview._style("dim"))
            return flow([line], width)
        scored = [b for b in overview.trend if b.stats is not None]
        pair = (f.baseline.name, f.candidate.name)
        room = max(8, width - 50)
        shown = overview.trend[-room:]
        means = [b.stats.mean for b in scored]
        low, high = (min(means), max(means)) if means else (0.0, 1.0)
        baseline = next((b.stats for b in scored if b.name == pair[0]), None)
        band = f.baseline.band[1] - f.baseline.band[0]
        levels = dict(zip((b.name for b in scored), trend_levels(means, band, baseline.mean if baseline else None)))
        for build in shown:
            if build.stats is None:
                line.append("✗", style=overview._style("warn"))
                continue
            # The pair underlined, in the text's colour: in reverse video a bar's cell reads
            # upside down (a full bar an empty cell, the lowest a near-full block).
            picked = build.name in pair
            line.append(SPARKS[levels[build.name]], style=overview._style("picked") if picked else overview._style("spark"))
        # The history's own means, as its bars draw them: over all of a build's outputs,
        # which differ from the build lines' paired means when the builds hold other ids.
        kept = {b.name: b.stats for b in scored}
        ends = [kept.get(name) for name in pair]
        line.append("".join(f"  {role} " + (f"{stats.mean:.4f}" if stats else "✗") for role, stats in zip("BC", ends)),
                    style=Style(bold=True))
        if any(stats is not None and stats.n != paired.n for stats, paired in zip(ends, (f.baseline, f.candidate))):
            line.append(" (all outputs)", style=label)
        count = Text(f"{len(overview.trend)} builds", style=label)
        if len(shown) < len(overview.trend):
            count.append(f", last {len(shown)} drawn", style=label)
        broken = len(overview.trend) - len(scored)
        if broken:
            count.append(f", {broken} unreadable", style=overview._style("warn"))
        parts = [line, count]
        if f.copied:  # with sources: how much of each build's outputs is copied from them
            (cb, db), (cc, dc) = f.copied["baseline"], f.copied["candidate"]
            parts.append(Text.assemble(("copied ", label), f"cov {cb:.2f}→{cc:.2f} dens {db:.1f}→{dc:.1f}"))
        elif means:
            parts.append(Text(f"range {low:.3f}–{high:.3f}", style=label))
        return flow(parts, width)


PANELS: tuple[Panel, ...] = (TitlePanel(), AlarmPanel(), BuildPanel(), VerdictPanel(), SignalPanel(), TrendPanel())
