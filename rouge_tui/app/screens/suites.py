"""A folder of suites: each with its builds and latest verdict; enter opens one."""

from __future__ import annotations

import argparse
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static

from rouge_tui.app.screens import common
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.pointed import POINTER, PointedList
from rouge_tui.review import SuiteRef
from rouge_tui.safetext import one_line, shorten_names


class SuiteList(PointedList):
    """The suites; enter selects (then the screen opens it) and says so in the footer (as
    the history's `BuildList`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select", "open", id="open")]


class SuitesScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *common.APP_BINDINGS,
        Binding("enter", "open", "open", id="open"),  # (the list's own, when it has focus)
        Binding(common.EARLY_ENTER, "open", "open", show=False),
        Binding("j", "down", "down", show=False),
        Binding("k", "up", "up", show=False),
    ]

    def __init__(self, paths: list[SuiteRef], options: argparse.Namespace | None) -> None:
        super().__init__()
        self.paths = paths
        self.options = options
        self.summaries: dict[int, str] = {}
        self.names: dict[int, str] = {}  # each suite's name (suite.toml's), once read

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{len(self.paths)} suites · enter opens one", no_wrap=True), id="suites-title")
        yield SuiteList(id="suites")
        yield KeyBar()

    def on_mount(self) -> None:
        self.fill()
        self.query_one(OptionList).focus()
        self.summarise()

    def fill(self) -> None:
        # One line a suite where it fits, the folder beside the name: six copies of one suite
        # read alike otherwise. Where it does not, the builds and the verdict go on to a line
        # of their own: cut at 80 columns, "● within band, signal alarm" read "● with…".
        width = max(20, self.size.width - 2 - len(POINTER) - 1)  # padding, pointer, scrollbar
        names = [one_line(self.names.get(number, path.label), 40) for number, path in enumerate(self.paths)]
        summaries = [self.summaries.get(number, "…") for number in range(len(self.paths))]
        # The folders get what the longest name and summary of one line leave (the longest
        # name's and another suite's summary cut a folder that fit), at least 12 characters,
        # each cut around where it differs from the others.
        room = width - max((cell_len(name) + (0 if summary.startswith("✗") else cell_len(summary))
                            for name, summary in zip(names, summaries)), default=0) - 6
        folders = shorten_names([path.path.name for path in self.paths], max(12, min(60, room)))
        lines = []
        for number, path in enumerate(self.paths):
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(names[number], style="bold")
            if self.names.get(number, path.label) != path.path.name:  # and the folder, what a person finds on disk
                line.append(f" in {folders[number]}", style="dim")
            if line.cell_len + 2 + cell_len(summaries[number]) > width and not summaries[number].startswith("✗"):
                line.truncate(width, overflow="ellipsis")
                below = Text("   " + summaries[number], no_wrap=True, overflow="ellipsis")
                below.truncate(width, overflow="ellipsis")
                line = Text("\n").join([line, below])
            else:
                line.append("  " + summaries[number])
                line.truncate(width, overflow="ellipsis")
            lines.append(line)
        self.query_one(SuiteList).show(lines)

    def on_resize(self) -> None:
        self.fill()

    @work(thread=True, exclusive=True, group="summaries")
    def summarise(self) -> None:
        """Each suite's builds and newest verdict, one at a time; a broken suite says why
        and the next one goes on."""
        from rouge_tui.analysis.compare import VERDICTS, signal_alarm
        from rouge_tui.numbers import signed
        from rouge_tui.review import Request, list_suite, open_review

        for number, path in enumerate(self.paths):
            try:
                request = Request.of(path, self.options)
                suite = list_suite(request)  # its name and builds, said even when they cannot be compared
                self.names[number] = suite.name
                summary = f"{len(suite.builds)} builds"
                opened = open_review(request, marks=False, log=False, fall_back=True)
                figures = opened.analysis.figures
                if opened.unreadable is not None:  # as the review opens it: the newest pair that reads
                    summary += f" · ! newest {one_line(opened.unreadable.build, 40)} unreadable"
                alarm = signal_alarm(figures.verdict, bool(figures.drifting))
                summary += f" · {VERDICTS[figures.verdict].said}{alarm} Δ {signed(figures.delta_mean)}"
            except Exception as exc:  # noqa: BLE001 - one suite's problem is shown, not raised
                summary = f"✗ {common.describe(exc)}"
            self.summaries[number] = summary
            self.app.call_from_thread(self.fill)

    def action_open(self) -> None:
        from rouge_tui.app.screens.review import ReviewScreen

        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None:
            self.app.push_screen(ReviewScreen(self.paths[highlighted], self.options, standalone=False))

    def on_option_list_option_selected(self) -> None:
        self.action_open()

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()
