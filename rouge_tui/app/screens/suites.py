"""The list of suites in a folder: name, number of builds and the newest pair's verdict.

Verdicts are computed in a worker, one suite at a time, so the list shows at once.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from rouge_tui.app.messages import SuiteSummarised
from rouge_tui.app.screens.common import APP_BINDINGS
from rouge_tui.app.session import SuiteSummary, option, summarise_suite
from rouge_tui.app.widgets.footer import KeysFooter
from rouge_tui.safetext import one_line

COLUMNS = ("suite", "builds", "newest pair", "Δ", "folder")


class SuiteListScreen(Screen[None]):
    """Pick a suite to review."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *APP_BINDINGS,
        Binding("enter", "open", "open", id="open", priority=True),
    ]

    def __init__(self, suites: list[Path], options: argparse.Namespace | None = None) -> None:
        super().__init__()
        self.suites = suites
        self.options = options

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{len(self.suites)} suites"), id="suites-title")
        yield DataTable(id="suites", cursor_type="row", zebra_stripes=True)
        yield KeysFooter(compact=True)

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        table = self.table
        for column in COLUMNS:
            table.add_column(column, key=column)
        for index, path in enumerate(self.suites):
            table.add_row(
                Text(one_line(path.name, 40)),
                Text("…"),
                Text("…"),
                Text(""),
                Text(one_line(str(path), 60)),
                key=str(index),
            )
        table.focus()
        self.summarise()

    @work(thread=True, exclusive=True, group="suites")
    def summarise(self) -> None:
        worker = get_current_worker()
        for index, path in enumerate(self.suites):
            if worker.is_cancelled:
                return
            self.post_message(
                SuiteSummarised(
                    index, summarise_suite(path, bool(option(self.options, "no_cache")))
                )
            )

    def on_suite_summarised(self, message: SuiteSummarised) -> None:
        summary: SuiteSummary = message.summary
        key = str(message.index)
        table = self.table
        table.update_cell(key, "suite", Text(one_line(summary.name, 40)), update_width=True)
        table.update_cell(key, "builds", Text(str(summary.builds), justify="right"))
        style = "bold" if summary.verdict in ("drift-down", "drift-up") else ""
        table.update_cell(
            key, "newest pair", Text(summary.verdict_text(), style=style), update_width=True
        )
        if summary.delta is not None:
            table.update_cell(
                key, "Δ", Text(f"{summary.delta:+.4f}", justify="right"), update_width=True
            )
        if summary.error:
            # The folder column shows the error, with the path inside the suite only.
            error = summary.error.replace(f"{summary.path}{os.sep}", "")
            table.update_cell(key, "folder", Text(one_line(error, 160)), update_width=True)

    def action_open(self) -> None:
        from rouge_tui.app.screens.review import ReviewScreen

        if not self.suites:
            return
        path = self.suites[self.table.cursor_row]
        self.app.push_screen(ReviewScreen(path, self.options, standalone=False))
