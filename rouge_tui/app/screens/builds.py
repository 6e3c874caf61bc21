"""Choose the baseline and the candidate among any of a suite's builds.

Each build's mean and band are computed in a worker under the current scoring settings, over
its ids that have a usable reference (the cache makes the second look cheap).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from rouge_tui.app.screens.common import APP_BINDINGS, describe_error
from rouge_tui.app.session import Review
from rouge_tui.app.widgets.footer import KeysFooter
from rouge_tui.compare import BuildStats, build_stats
from rouge_tui.safetext import one_line
from rouge_tui.scoring import SuiteScorer, usable_reference

COLUMNS = ("role", "build", "runs", "n", "mean", "band")


class BuildsScreen(Screen[tuple[str, str] | None]):
    """A table of builds; ``b``/``c`` pick the baseline/candidate, enter compares them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *APP_BINDINGS,
        Binding("b", "choose('baseline')", "baseline", id="choose-baseline"),
        Binding("c", "choose('candidate')", "candidate", id="choose-candidate"),
        Binding("enter", "apply", "compare", id="apply", priority=True),
        Binding("escape", "cancel", "cancel", id="cancel"),
    ]

    def __init__(self, review: Review) -> None:
        super().__init__()
        self.review = review
        self.names = [build.name for build in review.suite.builds]
        self.baseline = review.baseline.name
        self.candidate = review.candidate.name

    def compose(self) -> ComposeResult:
        yield Static(id="builds-title")
        yield DataTable(id="builds", cursor_type="row", zebra_stripes=True)
        yield KeysFooter(compact=True)

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        table = self.table
        for column in COLUMNS:
            table.add_column(column, key=column)
        for build in self.review.suite.builds:
            table.add_row(
                Text(""),
                Text(one_line(build.name, 60)),
                Text(str(len(build.runs)), justify="right"),
                Text(str(len(build.ids)), justify="right"),
                Text("…"),
                Text(""),
                key=build.name,
            )
        table.move_cursor(row=self.names.index(self.candidate))
        self.update_roles()
        table.focus()
        self.score_builds()

    def update_roles(self) -> None:
        for name in self.names:
            role = (
                "baseline"
                if name == self.baseline
                else "candidate"
                if name == self.candidate
                else ""
            )
            self.table.update_cell(name, "role", Text(role, style="bold"), update_width=True)
        settings = self.review.settings
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Builds of ")
        title.append(one_line(self.review.suite.name, 40), style="bold")
        title.append(f"  ({settings.signature}, band k={settings.k:g})  baseline ")
        title.append(one_line(self.baseline, 30), style="bold")
        title.append(" → candidate ")
        title.append(one_line(self.candidate, 30), style="bold")
        self.query_one("#builds-title", Static).update(title)

    @work(thread=True, exclusive=True, group="builds")
    def score_builds(self) -> None:
        """Mean and band of every build, one at a time, newest first (the likely choices)."""
        review = self.review
        worker = get_current_worker()
        scorer = SuiteScorer(review.suite, review.settings, review.cache)
        for build in reversed(review.suite.builds):
            if worker.is_cancelled:
                return
            ids = [i for i in build.ids if usable_reference(review.suite, i)]
            try:
                stats = (
                    build_stats(build.name, scorer.build_scores(build, ids), review.settings.k)
                    if ids
                    else None
                )
            except Exception as exc:  # noqa: BLE001
                self.app.call_from_thread(
                    self.notify, describe_error(exc), severity="error", markup=False
                )
                return
            self.app.call_from_thread(self.show_stats, build.name, stats)

    def show_stats(self, name: str, stats: BuildStats | None) -> None:
        if stats is None:
            self.table.update_cell(name, "mean", Text("no ids"), update_width=True)
            return
        self.table.update_cell(
            name, "mean", Text(f"{stats.mean:.4f}", justify="right"), update_width=True
        )
        band = Text(f"[{stats.band[0]:.4f}, {stats.band[1]:.4f}] {stats.band_source}")
        self.table.update_cell(name, "band", band, update_width=True)

    def highlighted(self) -> str:
        return self.names[self.table.cursor_row]

    def action_choose(self, role: str) -> None:
        name = self.highlighted()
        if role == "baseline":
            self.baseline = name
        else:
            self.candidate = name
        self.update_roles()

    def action_apply(self) -> None:
        if self.baseline == self.candidate:
            self.notify(
                "baseline and candidate must be two different builds",
                severity="warning",
                markup=False,
            )
            return
        self.dismiss((self.baseline, self.candidate))

    def action_cancel(self) -> None:
        self.dismiss(None)
