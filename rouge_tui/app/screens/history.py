"""The suite's history: every build on one line (runs, n, mean, band, the delta and
verdict against the build before it, and the marks made on any pair with it as candidate);
pick any two to compare. The delta is the mean paired delta, as a comparison gives it; the row
of the pair compared now shows that comparison's own delta and verdict. A build that cannot be read is listed with its file:line error."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static

from rouge_tui.analysis import history
from rouge_tui.analysis.compare import VERDICTS, signal_alarm
from rouge_tui.analysis.history import HistoryRow, Step, trend
from rouge_tui.app.screens import common
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.pointed import POINTER, PointedList
from rouge_tui.numbers import signed
from rouge_tui.review import Review
from rouge_tui.safetext import one_line, shorten_names


class BuildList(PointedList):
    """The builds; enter selects (then the screen compares) and says so in the footer, where
    the list's own hidden enter hid the screen's. Not a priority binding of the screen: that
    ran before the keys queued ahead of it had moved the cursor (up enter compared the old
    row)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select", "compare", id="compare")]

    def action_cursor_up(self) -> None:
        """Up stops at the first build, as in the review table (OptionList's wraps to the last)."""
        if self.highlighted != 0:
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        """Down stops at the last build."""
        if self.highlighted != self.option_count - 1:
            super().action_cursor_down()


class HistoryScreen(common.Answers, Screen[tuple[str, str] | None]):
    """``space`` picks a build, two at most; ``enter`` compares the two picked (the earlier in
    the history is the baseline, whatever the order they were picked in: a comparison never
    runs backwards by a slip), or the build under the cursor with the one before it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *common.VIEW_BINDINGS,
        Binding("enter", "compare", "compare", id="compare"),  # (the list's own, when it has focus)
        Binding("space", "pick", "pick", id="pick"),
        Binding("j", "down", "down", show=False),
        Binding("k", "up", "up", show=False),
    ]

    def __init__(self, review: Review, caches, builds: list[HistoryRow] | None = None,
                 changed: frozenset[str] = frozenset()) -> None:
        """``builds``: the suite's history already scored for this comparison, if it is;
        ``changed``: the compared builds whose files changed since they were read (listed as
        read, as the comparison shows them)."""
        super().__init__()
        self.review = review
        self.suite = review.analysis.suite
        self.caches = caches
        figures = review.analysis.figures
        self.pair = (figures.baseline.name, figures.candidate.name)
        self.picked: list[str] = []
        self.builds: list[HistoryRow] | None = builds
        self.changed = changed

    def compose(self) -> ComposeResult:
        yield Static(id="history-title")
        yield Static(id="history-about")
        yield Static(id="history-columns")
        yield BuildList(id="builds")
        yield KeyBar()

    def on_mount(self) -> None:
        names = [b.name for b in self.suite.builds]
        self.fill(names.index(self.pair[1]) if self.pair[1] in names else 0)
        self.query_one(OptionList).focus()
        if self.builds is None or any(b.stats is None for b in self.builds):
            self.score()  # (again where a build could not be read: it may have been mended since)

    @work(thread=True, exclusive=True, group="history")
    def score(self) -> None:
        analysis = self.review.analysis
        texts = self.review.texts
        scored = trend(self.suite, texts.references, analysis.settings, self.caches,
                       lambda stage, f: self.app.call_from_thread(self.say, stage), read=(texts.baseline, texts.candidate))
        self.app.call_from_thread(self.scored, scored)

    def say(self, stage: str) -> None:
        self.query_one("#history-title", Static).update(Text(one_line(stage), no_wrap=True))

    def scored(self, builds: list[HistoryRow]) -> None:
        self.builds = builds
        self.fill()

    def line(self, number: int, name: str, width: int, step: Step | None, alarm: bool = False) -> Text:
        entry = self.suite.builds[number]
        role = "B" if entry.name == self.pair[0] else "C" if entry.name == self.pair[1] else " "
        pick = str(self.pair_picked().index(entry.name) + 1) if entry.name in self.picked else " "
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{role}{pick} ", style="bold")
        line.append(name.ljust(width))
        scored = self.builds[number] if self.builds else None
        if scored is None:
            line.append(f" {len(entry.run_files):>4}  …")
            return line
        if scored.stats is None:  # its error cut to the line (space or enter says it whole),
            problem = (scored.problem or "").removeprefix(f"{self.suite.path}/")  # from builds/
            line.append(f" ✗ {one_line(problem, 300)}", style="bold red")
            line.truncate(max(self.size.width - 2 - len(POINTER), 20), overflow="ellipsis")
            return line
        stats = scored.stats
        band = f" [{stats.band[0]:.4f}, {stats.band[1]:.4f}]".ljust(18) if self.with_band else ""
        line.append(f" {stats.runs:>4} {stats.n:>7} {stats.mean:.4f}{band}")
        if step is not None:  # against the last build before this one with figures
            # Ten cells, as the header's: "+<0.0001" (a move too small for four decimals) is
            # one longer than a delta, and goes without the space before its symbol.
            delta = signed(step.delta)
            line.append(f" {delta}{' ' if len(delta) < 8 else ''}{VERDICTS[step.verdict].symbol}")
            if alarm:  # the compared pair's signal alarm (SPEC "Triage"), in the marks' space before
                line.append("!", style="bold red")
        else:
            line.append(" " * 10)
        marks = len(self.review.store.with_candidate(entry.name))
        if marks:
            line.append(f"{'' if alarm else ' '}{marks:>5}", style="bold")
        return line

    def on_resize(self) -> None:
        self.fill()

    def fill(self, highlighted: int | None = None) -> None:
        # The build column gets what the pointer, the figures (57 columns) and a scrollbar
        # leave: 17 at 80; under 78 columns the band goes (the base of the verdict is the
        # comparison's anyway), so that a line is never wrapped in two.
        width = max(12, min(40, self.size.width - (63 if self.with_band else 45)))
        names = shorten_names([b.name for b in self.suite.builds], width)
        analysis = self.review.analysis  # the pair on screen: its own figures (`history.steps`)
        steps = history.steps(self.builds, analysis.settings, analysis.figures) if self.builds else [None] * len(names)
        figures = analysis.figures
        alarm = bool(signal_alarm(figures.verdict, bool(figures.drifting)))  # (the compared pair's row says it)
        lines = []
        for number, (name, step) in enumerate(zip(names, steps)):
            compared = step is not None and (step.against, self.suite.builds[number].name) == self.pair
            lines.append(self.line(number, name, width, step, alarm and compared))
        self.query_one(BuildList).show(lines, highlighted)
        # What was picked first: at 80 columns the end of this line is cut.
        picked = " → ".join(one_line(p, 30) for p in self.pair_picked())
        about = f"{one_line(self.suite.name, max(60, self.size.width - 4))}: {len(self.suite.builds)} builds · B baseline, C candidate"
        compares = " (enter compares them)" if len(self.picked) == 2 else ""
        header = f"picked {picked}{compares} · {about}" if picked else f"{about} · space picks"
        if self.newest_readable() not in (None, self.pair):  # the pair an alert is about is not shown
            header = f"not the newest pair · {'' if picked else 'end ⏎ compares the newest two · '}{header}"
        if self.changed:  # said first: the rows of those builds and the Δ beside them are of the files as read
            names = " and ".join(one_line(name, 30) for name in sorted(self.changed))
            header = f"{names}: as read, changed on disk since (enter on the pair reads it again) · {header}"
        header += " · Δ vs the build before"  # (the column says "paired Δ")
        # What does not fit the width goes on to a second line, never cut off.
        self.query_one("#history-title", Static).update(Text(header))
        # Which figures these are: the overview's n, mean and band are over the ids the pair
        # shares, these over each build's own (a newcomer took the two for one thing).
        settings = self.review.analysis.settings
        scoring = f"{settings.metric} ({settings.tokenizer}{', stem' if settings.stem else ''})"
        said = " (! a signal alarm)" if alarm else ""
        about = (f"{scoring} · n, mean, band: each build's own outputs · Δ: paired ids, then ● ▼ ▲ its verdict{said} · "
                 "marks: on pairs to it")
        self.query_one("#history-about", Static).update(Text(about))  # (on to a second line, never cut)
        # Δ and verdict against the build before (the mean paired delta: over the ids both
        # have, so not the difference of the two means); marks made on any pair with it as
        # candidate.
        band = f" {'band':<17}" if self.with_band else ""
        columns = f"{' ' * len(POINTER)}   {'build'.ljust(width)} {'runs':>4} {'n':>7} {'mean':<6}{band} {'paired Δ':<9} {'marks':>5}"
        self.query_one("#history-columns", Static).update(Text(columns, no_wrap=True, overflow="ellipsis"))

    def newest_readable(self) -> tuple[str, str] | None:
        """The newest two builds, when both can be read (as far as is known yet)."""
        newest = self.suite.builds[-2:]
        scored = self.builds[-2:] if self.builds else []
        if len(newest) < 2 or any(b.problem is not None for b in newest) or any(b.stats is None for b in scored):
            return None
        return newest[0].name, newest[1].name

    @property
    def with_band(self) -> bool:
        """The band column: not under 78 columns."""
        return self.size.width >= 78

    def pair_picked(self) -> list[str]:
        """The picked builds in the history's order: baseline first."""
        names = [b.name for b in self.suite.builds]
        return sorted(self.picked, key=names.index)

    def _current(self) -> str | None:
        builds = self.query_one(OptionList)
        if builds.highlighted is None:
            return None
        return self.suite.builds[builds.highlighted].name

    def cannot_compare(self, *names: str) -> bool:
        """Say so when one of ``names`` cannot be read or scored: it cannot be compared."""
        for name in names:
            scored = next((b for b in self.builds or () if b.name == name), None)
            if scored is not None and scored.stats is None:
                self.notify(f"{one_line(name, 40)} cannot be compared: {one_line(scored.problem or '', 400)}",
                            severity="error", markup=False, timeout=10)
                return True
        return False

    def action_pick(self) -> None:
        name = self._current()
        if name is None or (name not in self.picked and self.cannot_compare(name)):
            return
        if name in self.picked:
            self.picked.remove(name)
        else:
            self.picked = [*self.picked[-1:], name]  # the two picked last
        self.fill()

    def action_compare(self) -> None:
        if len(self.picked) == 2:
            baseline, candidate = self.pair_picked()
            self.dismiss((baseline, candidate))
            return
        name = self._current()
        names = [b.name for b in self.suite.builds]
        if name is None or names.index(name) == 0:
            self.notify("pick two builds with space, or stand on a build with one before it", markup=False, timeout=4)
            return
        if not self.cannot_compare(names[names.index(name) - 1], name):
            self.dismiss((names[names.index(name) - 1], name))

    def on_option_list_option_selected(self) -> None:
        self.action_compare()  # enter on the list

    def action_back(self) -> None:
        self.dismiss(None)

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()
