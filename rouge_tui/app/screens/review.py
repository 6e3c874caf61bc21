"""The main view of one suite: the overview on top, the movers table below, a status line.

Loading and every re-scoring run in thread workers that post messages back, so the first
frame appears at once and the screen keeps answering keys while a big suite scores.

When an earlier analysis of the same files is in the cache (a snapshot), the overview and the
movers table are shown from it first and the suite's texts are loaded afterwards in the same
worker; whatever needs texts (a diff, the filter, a mark, the export, another metric or build
pair) says "loading texts…" and goes ahead once they are in.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, ScreenStackError
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from rouge_tui.app.messages import AnalysisDone, FilterDone, ReviewLoaded, WorkFailed, WorkProgress
from rouge_tui.app.screens.common import (
    APP_BINDINGS,
    MARK_BINDINGS,
    WARM_AFTER,
    Throttle,
    clear_example,
    describe_error,
    edit_note,
    export_review,
    mark_example,
    warm_diff,
)
from rouge_tui.app.session import (
    METRIC_CYCLE,
    TOKENIZER_CYCLE,
    Review,
    describe_sort,
    find_matches,
    next_in,
    open_review,
)
from rouge_tui.app.widgets.footer import KeysFooter
from rouge_tui.app.widgets.movers import MoversTable
from rouge_tui.app.widgets.overview import Overview
from rouge_tui.compare import SORTS
from rouge_tui.safetext import one_line
from rouge_tui.scoring import Analysis, ScoreSettings

if TYPE_CHECKING:
    from rouge_tui.app.screens.diff import DiffScreen

# How long the texts wait for the snapshot's first frame to be painted before loading anyway
# (loading holds the GIL for a second or two and would slow that frame down).
FIRST_FRAME_WAIT = 1.0
# Seconds between two progress messages while scoring (see `ReviewScreen._progress`).
PROGRESS_EVERY = 0.2


class Cancelled(Exception):
    """A newer request replaced the one a worker was doing."""


class TextsLoaded(Message):
    """The texts of a review opened from a snapshot are in (``rescored``: the files had
    changed since the snapshot, so ``analysis`` holds figures computed again from them)."""

    def __init__(self, analysis: Analysis, rescored: bool) -> None:
        super().__init__()
        self.analysis = analysis
        self.rescored = rescored


class TextsFailed(Message):
    """The texts of a review opened from a snapshot could not be loaded."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ReviewScreen(Screen[None]):
    """Overview and movers table of one suite; the base of the review."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *APP_BINDINGS,
        Binding("enter", "open_diff", "diff", id="diff"),
        Binding("w", "walk", "walk", id="walk"),
        *MARK_BINDINGS,
        Binding("s", "sort", "sort", id="sort"),
        Binding("slash", "filter", "filter", id="filter"),
        Binding("m", "metric", "metric", id="metric"),
        Binding("t", "tokenizer", "tok", id="tokenizer"),
        Binding("B", "builds", "builds", id="builds"),
        Binding("escape", "back", "back", id="back", show=False),
    ]

    def __init__(
        self, path: Path, options: argparse.Namespace | None = None, *, standalone: bool = True
    ) -> None:
        super().__init__()
        self.path = path
        self.options = options
        self.standalone = standalone
        self.review: Review | None = None
        self.sort = SORTS[0]
        self.filter_query = ""
        self.matches: np.ndarray | None = None
        self.pending: ScoreSettings | None = None
        self.progress_text = ""
        self.error: str | None = None
        # An action that needs the texts, asked for before they were loaded: runs once they are.
        self.waiting: Callable[[], None] | None = None
        self.texts_error: str | None = None
        self._first_frame = threading.Event()
        self._warm_timer: Timer | None = None
        # The diff screen, kept (installed) between opens of this review's diffs, so an
        # open does not mount, style and lay out a new one each time.
        self._diff_screen: DiffScreen | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Overview(id="overview")
        yield MoversTable(id="movers")
        yield Input(
            placeholder="filter: part of an id or of an output (enter keeps, escape clears)",
            id="filter",
        )
        yield Static(id="status")
        yield KeysFooter(compact=True)

    @property
    def table(self) -> MoversTable:
        return self.query_one(MoversTable)

    @property
    def overview(self) -> Overview:
        return self.query_one(Overview)

    def on_mount(self) -> None:
        self.overview.loading_text = f"loading {one_line(str(self.path))}…"
        self.table.empty_text = "loading…"
        self.table.focus()
        self.update_status()
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("back",):
            return True
        return self.review is not None

    # ------------------------------------------------------------------ workers

    def _progress(self, label: str, runs: int | None = None):
        """A progress callback for ``analyse`` that posts replaceable messages and stops the
        work when a newer request cancelled this worker. ``analyse`` reports each run from
        0 to 1, so a fall in the fraction means the next run has started.

        Scoring reports every block (dozens a second); each message redraws the screen, and
        on a two-core machine those redraws took CPU from the scoring itself. So a message
        goes out at most every `PROGRESS_EVERY` seconds, and always when a run starts."""
        worker = get_current_worker()
        state = {"run": 1, "last": 0.0}
        throttle = Throttle(PROGRESS_EVERY)

        def progress(stage: str, fraction: float) -> None:
            if worker.is_cancelled:
                raise Cancelled()
            started = fraction < state["last"]
            if started:
                state["run"] += 1
            state["last"] = fraction
            if not throttle.ready(force=started):
                return
            where = f"run {state['run']}/{runs}" if runs else f"run {state['run']}"
            self.post_message(WorkProgress(f"{label}: {where}", fraction))

        return progress

    @work(thread=True, exclusive=True, group="score")
    def load(self) -> None:
        """Load the suite and analyse the default pair (or the one the flags name); from a
        snapshot, show it first and load the texts after the first frame."""
        self.post_message(WorkProgress(f"loading {one_line(str(self.path))}"))
        progress = self._progress("scoring")
        take = getattr(self.app, "take_prefetch", None)
        prefetch = take() if take is not None else None
        try:
            review = open_review(
                self.path, self.options, progress, defer_texts=True, prefetch=prefetch
            )
        except Cancelled:
            return
        except Exception as exc:  # noqa: BLE001 - every failure becomes a message, not a traceback
            self.post_message(WorkFailed(describe_error(exc), fatal=True))
            return
        finally:
            if prefetch is not None:
                prefetch.stop_unread()  # ends it if the open stopped before reading it
        self.post_message(ReviewLoaded(review))
        if review.texts_ready:
            return
        self._first_frame.wait(FIRST_FRAME_WAIT)
        worker = get_current_worker()
        if worker.is_cancelled:
            return
        self.post_message(WorkProgress("loading texts"))
        try:
            analysis, rescored = review.load_texts(progress)
        except Cancelled:
            return
        except Exception as exc:  # noqa: BLE001
            self.post_message(TextsFailed(describe_error(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(TextsLoaded(analysis, rescored))

    @work(thread=True, exclusive=True, group="score")
    def rescore(
        self,
        settings: ScoreSettings,
        baseline_name: str | None = None,
        candidate_name: str | None = None,
    ) -> None:
        """Score again under other settings or another build pair, then show it."""
        review = self.review
        assert review is not None
        label = (
            f"scoring {settings.metric} ({settings.tokenizer}{', stem' if settings.stem else ''})"
        )
        self.post_message(WorkProgress(label, 0.0))
        try:
            baseline = review.suite.build(baseline_name) if baseline_name else None
            candidate = review.suite.build(candidate_name) if candidate_name else None
            runs = len((baseline or review.baseline).runs) + len(
                (candidate or review.candidate).runs
            )
            analysis = review.rescore(settings, baseline, candidate, self._progress(label, runs))
        except Cancelled:
            return
        except Exception as exc:  # noqa: BLE001
            self.post_message(WorkFailed(describe_error(exc)))
            return
        # The filter's matches follow the new ranking; find them here, off the UI thread.
        query = self.filter_query
        matches = find_matches(analysis.comparison, analysis.baseline, analysis.candidate, query)
        if not get_current_worker().is_cancelled:
            self.post_message(AnalysisDone(analysis, label, query, matches))

    @work(thread=True, exclusive=True, group="filter")
    def run_filter(self, query: str) -> None:
        review = self.review
        if review is None or not review.texts_ready:
            return  # run again for the query of the moment when the texts are in
        worker = get_current_worker()
        analysis = review.analysis  # one consistent ranking and pair, whatever happens meanwhile
        comparison = analysis.comparison
        matches = find_matches(
            comparison, analysis.baseline, analysis.candidate, query, lambda: worker.is_cancelled
        )
        if not worker.is_cancelled:
            self.post_message(FilterDone(query, matches, comparison))

    # ------------------------------------------------------------------ messages

    def on_work_progress(self, message: WorkProgress) -> None:
        percent = f" {message.fraction:.0%}" if message.fraction is not None else "…"
        self.progress_text = f"{message.text}{percent}"
        if self.review is None:
            self.overview.loading_text = self.progress_text
            self.overview.refresh()
        self.update_status()

    @on(MoversTable.Highlighted)
    def rest_on_row(self, message: MoversTable.Highlighted) -> None:
        self.schedule_warm(message.index)

    def schedule_warm(self, index: int | None) -> None:
        """Make the diff of the row the cursor rests on once it has rested there a moment."""
        if self._warm_timer is not None:
            self._warm_timer.stop()
            self._warm_timer = None
        review = self.review
        if index is None or index < 0 or review is None or not review.texts_ready:
            return
        self._warm_timer = self.set_timer(WARM_AFTER, lambda: warm_diff(self, review, index))

    def on_review_loaded(self, message: ReviewLoaded) -> None:
        self.review = message.review
        self.progress_text = ""
        for warning in self.review.warnings:
            self.notify(one_line(warning, 300), severity="warning", markup=False)
        self.overview.reference_change = self.review.reference_change
        self.show_analysis(keep=None)
        self.refresh_bindings()
        self.call_after_refresh(self._first_frame.set)
        self.schedule_warm(self.table.current)

    def on_texts_loaded(self, message: TextsLoaded) -> None:
        review = self.review
        assert review is not None
        self.progress_text = ""
        current = self.current_id()
        review.adopt_texts(message.analysis)
        waiting, self.waiting = self.waiting, None
        if message.rescored:
            # The rows a waiting action meant may have moved: drop it rather than guess.
            keep = (
                review.comparison.ids.index(current) if current in review.comparison.ids else None
            )
            self.show_analysis(keep=keep)
            self.notify(
                "the suite changed on disk since its last review: figures computed again",
                severity="warning",
                markup=False,
            )
            waiting = None
        else:
            self.marks_changed()  # stale marks can be told now
        if self.filter_query.strip():
            self.run_filter(self.filter_query)
        if waiting is not None:
            waiting()  # it opens a diff: nothing to make ahead here
        else:
            self.schedule_warm(self.table.current)

    def on_texts_failed(self, message: TextsFailed) -> None:
        self.progress_text = ""
        self.waiting = None
        self.texts_error = message.text
        self.notify(f"could not load the texts: {message.text}", severity="error", markup=False)
        self.update_status()

    def with_texts(self, action: Callable[[], None], then: str) -> None:
        """Run ``action`` now if the texts are loaded, else once they are (the latest wins)."""
        review = self.review
        if review is None:
            return
        if review.texts_ready:
            action()
            return
        if self.texts_error is not None:
            self.notify(
                f"not without the texts: {self.texts_error}", severity="error", markup=False
            )
            return
        self.waiting = action
        self.notify(f"loading texts… {then} when they are in", markup=False, timeout=3)

    def on_analysis_done(self, message: AnalysisDone) -> None:
        review = self.review
        assert review is not None
        current = self.current_id()
        review.adopt(message.analysis)
        self.pending = None
        self.progress_text = ""
        if message.query == self.filter_query:
            self.matches = message.matches
        else:  # the filter changed while scoring: find it again for the new ranking
            self.matches = None
            self.run_filter(self.filter_query)
        keep = review.comparison.ids.index(current) if current in review.comparison.ids else None
        self.show_analysis(keep=keep)
        c = review.comparison
        self.notify(f"now {c.metric} ({c.tokenizer}): {c.verdict}", markup=False, timeout=3)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.progress_text = ""
        self.pending = None
        if message.fatal and self.review is None:
            self.error = message.text
            if self.standalone:
                self.app.exit(return_code=2, message=Text(f"rouge-tui: error: {message.text}"))
                return
            self.overview.loading_text = f"could not open this suite: {message.text}"
            self.overview.refresh()
            self.table.empty_text = "nothing to show (escape: back to the suites)"
            self.table.refresh()
        self.notify(message.text, severity="error", markup=False, timeout=10)
        self.update_status()

    def on_filter_done(self, message: FilterDone) -> None:
        if message.query != self.filter_query or self.review is None:
            return
        if message.comparison is not self.review.comparison:
            return  # computed for a ranking that a re-scoring has replaced since
        self.matches = message.matches
        self.apply_view(keep=self.table.current)

    @on(MoversTable.Chosen)
    def on_row_chosen(self) -> None:
        self.action_open_diff()

    # ------------------------------------------------------------------ showing

    def show_analysis(self, keep: int | None) -> None:
        review = self.review
        assert review is not None
        self.overview.analysis = review.analysis
        self.table.empty_text = "no example matches the filter"
        self.apply_view(keep=keep)

    def apply_view(self, keep: int | None) -> None:
        review = self.review
        if review is None:
            return
        view = review.view(self.sort, self.matches)
        rule = self.sort == SORTS[0] and self.matches is None
        self.table.set_rows(
            review.comparison, view, rule=rule, mark_lookup=review.mark_cell, keep=keep
        )
        self.update_status()

    def update_status(self) -> None:
        """Progress first (it must not be cut off), then sort, rows, filter, marks, left out."""
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.progress_text:
            text.append(self.progress_text, style="bold")
            text.append("  ")
        review = self.review
        if review is not None:
            c = review.comparison
            text.append(f"{describe_sort(self.sort)} · {self.table.row_count} of {c.paired}")
            if self.filter_query:
                text.append(" · filter ")
                text.append(repr(one_line(self.filter_query, 40)))
            marked = len(review.store.marks)
            if marked:
                text.append(f" · {marked} marked")
            left_out = [
                (len(c.only_in_baseline), "only in baseline"),
                (len(c.only_in_candidate), "only in candidate"),
                (len(c.missing_reference), "no reference"),
            ]
            shown = [f"{n} {what}" for n, what in left_out if n]
            if shown:
                text.append(" · left out: " + ", ".join(shown))
        self.query_one("#status", Static).update(text)

    def current_id(self) -> str | None:
        index = self.table.current
        if self.review is None or index is None:
            return None
        return self.review.comparison.ids[index]

    def marks_changed(self) -> None:
        self.table.refresh_rows()
        self.update_status()

    # ------------------------------------------------------------------ actions

    def action_open_diff(self) -> None:
        review = self.review
        if review is None or self.table.current is None:
            return
        view, cursor = self.table.view, self.table.cursor  # the row asked for, even if moved since

        def open_diff() -> None:
            self.schedule_warm(None)  # made now by the diff screen, not twice
            self.push_diff(review, view, cursor, walk=False)

        self.with_texts(open_diff, "the diff opens")

    def action_walk(self) -> None:
        review = self.review
        if review is None:
            return
        ten = np.arange(review.ten, dtype=np.int64)

        def walk() -> None:
            self.schedule_warm(None)
            self.push_diff(review, ten, 0, walk=True)

        self.with_texts(walk, "the walk starts")

    def push_diff(self, review: Review, sequence: np.ndarray, position: int, *, walk: bool) -> None:
        """Show the diff screen at ``sequence[position]``: the one this review's diffs were
        shown on before, pointed there (`DiffScreen.reopen`), or a new one."""
        from rouge_tui.app.screens.diff import DiffScreen

        screen = self._diff_screen
        if screen is not None and screen.review is review and screen.is_mounted:
            screen.reopen(sequence, position, walk=walk)
        else:
            self.drop_diff_screen()
            screen = self._diff_screen = DiffScreen(review, sequence, position, walk=walk)
            self.app.install_screen(screen, f"diff-{id(screen)}")
        self.app.push_screen(screen, self.back_from_diff)

    def drop_diff_screen(self) -> None:
        """Let the kept diff screen go (another review, or this screen is leaving)."""
        screen, self._diff_screen = self._diff_screen, None
        if screen is None or not self.app.is_screen_installed(screen):
            return
        try:
            self.app.uninstall_screen(screen)
        except ScreenStackError:
            return  # still shown: the app is exiting, and its exit removes every screen
        screen.remove()

    def on_unmount(self) -> None:
        self.drop_diff_screen()

    def back_from_diff(self, index: int | None) -> None:
        if index is not None:
            row = self.table.row_of(index)
            if row is not None:
                self.table.cursor = row
        self.marks_changed()

    def action_sort(self) -> None:
        self.sort = next_in(SORTS, self.sort)
        self.apply_view(keep=self.table.current)

    def action_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        filter_input.add_class("-shown")
        filter_input.focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_query = event.value
        if not event.value.strip():
            self.matches = None
            self.apply_view(keep=self.table.current)
            return
        self.run_filter(event.value)

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    def action_back(self) -> None:
        filter_input = self.query_one("#filter", Input)
        if filter_input.has_class("-shown") or self.filter_query:
            filter_input.value = ""
            filter_input.remove_class("-shown")
            self.filter_query = ""
            self.matches = None
            self.table.focus()
            self.apply_view(keep=self.table.current)
            return
        if not self.standalone:
            self.dismiss(None)

    def _switch(self, settings: ScoreSettings) -> None:
        self.pending = settings
        self.rescore(settings)

    def action_metric(self) -> None:
        def switch() -> None:
            assert self.review is not None
            base = self.pending or self.review.settings
            metric = next_in(METRIC_CYCLE, base.metric)
            self._switch(self.review.settings_for(base, metric=metric))

        self.with_texts(switch, "the metric switches")

    def action_tokenizer(self) -> None:
        def switch() -> None:
            assert self.review is not None
            base = self.pending or self.review.settings
            tokenizer = next_in(TOKENIZER_CYCLE, base.tokenizer)
            self._switch(self.review.settings_for(base, tokenizer=tokenizer))

        self.with_texts(switch, "the tokenizer switches")

    def action_mark(self, mark: str) -> None:
        review, example_id = self.review, self.current_id()
        if review is not None and example_id is not None:
            self.with_texts(
                lambda: mark_example(self, review, example_id, mark, self.marks_changed),
                "the mark is set",
            )

    def action_clear_mark(self) -> None:
        example_id = self.current_id()
        if self.review is not None and example_id is not None:
            clear_example(self, self.review, example_id, self.marks_changed)

    def action_note(self) -> None:
        review, example_id = self.review, self.current_id()
        if review is not None and example_id is not None:
            self.with_texts(
                lambda: edit_note(self, review, example_id, self.marks_changed), "the note opens"
            )

    def action_export(self) -> None:
        review = self.review
        if review is not None:
            self.with_texts(lambda: export_review(self, review), "the export is written")

    def action_builds(self) -> None:

        if self.review is None:
            return
        self.with_texts(self._choose_builds, "the builds open")

    def _choose_builds(self) -> None:
        from rouge_tui.app.screens.builds import BuildsScreen

        assert self.review is not None

        def chosen(pair: tuple[str, str] | None) -> None:
            review = self.review
            if pair is None or review is None:
                return
            if pair == (review.baseline.name, review.candidate.name):
                return
            self.rescore(self.pending or review.settings, *pair)

        self.app.push_screen(BuildsScreen(self.review), chosen)
