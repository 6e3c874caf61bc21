"""The main view of one suite: the overview on top, the movers table, a status line, the keys.

Opening and every re-scoring run in a thread worker that posts messages back, so the screen
answers keys while a big suite is read and scored. With cached figures the first frame comes
from them while the texts are still being read; what needs the texts (a diff, a mark, the
text filter, the export, another metric) waits for them and then goes ahead. What is shown,
what is asked for and what waits is the screen's `Session` (rouge_tui/session.py); the screen
draws it and runs its workers.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input

from rouge_tui.analysis import signals
from rouge_tui.analysis.figures import RANKING
from rouge_tui.app.messages import (
    AnalysisReady,
    FilterDone,
    ProgressMade,
    TextsFailed,
    TextsReady,
    TrendReady,
    WorkFailed,
)
from rouge_tui.app.screens import common
from rouge_tui.app.screens.review_diffs import DiffHandOff
from rouge_tui.app.screens.review_work import Workers, collector_paused
from rouge_tui.app.widgets.filterbar import FilterBar
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.movers import MarkCell, MoversTable
from rouge_tui.app.widgets.overview import Overview
from rouge_tui.app.widgets.status import StatusLine
from rouge_tui.review import Opened, Request, open_review
from rouge_tui.rouge import METRICS, TOKENIZERS
from rouge_tui.safetext import one_line
from rouge_tui.session import Asked, Session, Waiting

if TYPE_CHECKING:
    from collections.abc import Callable

    from rouge_tui.analysis.pipeline import Analysis

__all__ = ["Asked", "ReviewScreen"]

MARKS_CHECK = 2.0  # seconds between looks at the marks file (another session's marks)


class Held:
    """An attribute of the screen that is its session's (read and set through the screen)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, screen: ReviewScreen | None, owner: type | None = None):
        return self if screen is None else getattr(screen.session, self.name)

    def __set__(self, screen: ReviewScreen, value: object) -> None:
        setattr(screen.session, self.name, value)


class ReviewScreen(Workers, DiffHandOff, common.Answers, Screen[None]):
    """Overview and movers table of one suite: where a review starts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *common.APP_BINDINGS,
        # Most important first: the footer shows as many as fit (at 80 columns, up to the
        # filter), the help all of them, in this order.
        Binding("enter", "open_diff", "diff", id="diff"),
        Binding(common.EARLY_ENTER, "open_diff", "diff", show=False),
        Binding("w", "walk", "walk", id="walk"),
        *common.MARK_BINDINGS,
        Binding("h", "history", "history", id="history"),
        common.EXPORT,
        # A priority binding runs as the app reads the key, before it hands the next key of
        # a burst (`/trunc` pasted or sent by tmux) to the widget focused then.
        Binding("slash", "filter", "filter", id="filter", priority=True),
        common.NOTE,
        Binding("s", "sort", "sort", id="sort"),
        Binding("m", "metric", "metric", id="metric"),
        Binding("t", "tokenizer", "tokenizer", id="tokenizer"),
        common.CLEAR,
        # Shown where it does something: back to the list of suites, or a filter cleared.
        Binding("escape", "back", "back", id="back"),
        Binding("n", "step_ahead(1)", "next", show=False),
        Binding("p", "step_ahead(-1)", "prev", show=False),
    ]

    # The session's state, read (and in tests set) as the screen's own attributes.
    analysis = Held()
    texts = Held()
    review = Held()
    suite = Held()
    asked = Held()
    asks = Held()
    refused = Held()
    waiting = Held()
    sort = Held()
    filter_text = Held()
    matches = Held()
    trend = Held()
    changed_on_disk = Held()

    def __init__(self, path: Path, options: argparse.Namespace | None = None, *, standalone: bool = True) -> None:
        super().__init__()
        self.path = path
        self.standalone = standalone
        self.session = Session.of(Request.of(path, options))
        self.warned: set[str] = set()  # the figures' warnings said so far, each once

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Overview(id="overview")
        yield MoversTable(id="movers")
        yield FilterBar()
        yield StatusLine()
        yield KeyBar()

    @property
    def table(self) -> MoversTable:
        return self.query_one(MoversTable)

    @property
    def overview(self) -> Overview:
        return self.query_one(Overview)

    def on_mount(self) -> None:
        self.overview.loading_text = f"opening {one_line(str(self.path))}…"
        self.table.marks = self.mark_cell
        self.table.focus()
        self.update_status()
        self.load()
        self.set_interval(MARKS_CHECK, self.check_marks)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return not self.standalone or self.query_one(FilterBar).shown or bool(self.session.filter_text)
        if action in ("help", "quit", "open_diff", "walk", "step_ahead", "mark", "note", "clear_mark"):
            # (all but the first two wait for the table: `before_table`, `park_once`)
            return True
        if action == "filter" and getattr(self.focused, "id", None) == "filter":
            return False  # a `/` typed in the filter box is text
        return self.session.analysis is not None

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="analysis")
    def load(self) -> None:
        """Open the suite and its comparison; then read the texts if the figures came first."""
        try:
            def early(shown: Analysis) -> None:  # the table before the grounded signals are in
                self.post_message(AnalysisReady(shown))

            # The marks come with the texts (`on_texts_ready`): the figures are shown first.
            with collector_paused():
                opened = open_review(self.session.request, marks=False, fall_back=True, progress=self._progress(),
                                     early=early)
            self.session.caches = opened.caches
            unreadable = opened.unreadable  # one of the newest pair, which the reader did not pick
            if unreadable is not None and unreadable.instead is not None:  # the newest pair that reads is shown
                self.post_message(WorkFailed(
                    f"{unreadable.reason}; showing {common.pair_text(unreadable.instead)}, the two newest builds "
                    "that can be read (h lists every build)", fatal=False, severity="warning"))
            self.post_message(AnalysisReady(opened.analysis, notice=self._logged(opened),
                                            unreadable=unreadable.build if unreadable else None))
            self._texts_of(opened.analysis)
        except InterruptedError:
            return
        except Exception as exc:  # noqa: BLE001 - every failure becomes one line, not a traceback
            self.post_message(WorkFailed(common.describe(exc), fatal=self.session.analysis is None))

    def _logged(self, opened: Opened) -> str | None:
        """Say what the review's opening warned of (the cache, the suite's log); what the
        overview should say if the frozen references moved since builds compared now were
        scored."""
        for warning in opened.warnings:
            self.post_message(WorkFailed(warning, fatal=False, severity="warning"))
        change = opened.change
        return f"refs changed since {change.since[:10]}" if change else None

    # ------------------------------------------------------------------ messages

    def on_progress_made(self, message: ProgressMade) -> None:
        percent = f" {message.fraction:.0%}" if message.fraction else "…"
        self.session.progress = f"{message.text}{percent}"
        if self.session.analysis is None:
            self.overview.loading_text = self.session.progress
            self.overview.refresh()
        self.update_status()

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        session = self.session
        if not session.answers(message.asked):
            return  # superseded by a later ask: not the comparison asked for now
        first, before = session.analysis is None, session.analysis
        current = self.table.current
        keep = before.figures.ids[current] if before is not None and current is not None else None
        shown = session.pair_shown() if before is not None else None
        session.show(message.analysis, message.notice, message.unreadable)
        self.overview.show(message.analysis.figures, session.notice())
        self.show_rows()
        # The pair read again, or scored by another metric or tokenizer: the example under the
        # cursor stays under it, at its new rank (a newcomer comparing one example across
        # metrics lost it to row 1 at each m). Another pair starts from its most-moved.
        if keep is not None and session.pair_shown() == shown and (row := self.row_of_id(keep)) is not None:
            self.table.cursor = row
        for warning in message.analysis.figures.warnings:
            # Each once: a newcomer's notice came back over the table on every m, t and pair.
            # (No source: the overview says so while it holds.)
            if warning != signals.NO_SOURCE and warning not in self.warned:
                self.warned.add(warning)
                self.notify(one_line(warning, 300), severity="warning", markup=False, timeout=10)
        if message.reason:
            self.notify(message.reason, markup=False, timeout=4)
        if session.filter_text.strip() and session.texts_in():
            self.apply_filter(session.filter_text)
        self.refresh_bindings()
        if first:
            self.table.focus()

    def on_texts_failed(self, message: TextsFailed) -> None:
        """What waits for the texts will not happen; the next key that needs them reads
        them again (`when_ready`)."""
        if message.analysis is self.session.analysis:
            self._texts_unread(message.text, self.session.waiting)

    def _texts_unread(self, text: str, waiting: list[Waiting]) -> None:
        said = self.session.texts_unread(text, waiting)
        self.notify(said, severity="error", markup=False, timeout=15)
        self.overview.show_trend(None, waiting="needs the texts")
        self.update_status()

    def on_texts_ready(self, message: TextsReady) -> None:
        session = self.session
        if message.analysis is not session.analysis:
            return  # another comparison came since
        made = session.take_texts(message.analysis, message.texts)
        if made is not None:
            self.app.keep_review(made)
            if made.warning:
                self.notify(one_line(made.warning, 300), severity="warning", markup=False, timeout=15)
        self.table.refresh()
        self.overview.show_trend(None)
        self.load_trend(message.analysis, message.texts)
        if session.filter_text.strip():
            self.apply_filter(session.filter_text)
        self.update_status()
        waiting = session.take_waiting()
        for action in waiting:
            if self.app.screen is self:
                self.when_ready(action)
            else:  # a screen opened since (the help, the history): not behind its back
                self.notify(f"{action.then}: not done, another screen was open", markup=False, timeout=4)
        if not waiting:
            self.on_movers_table_moved()

    def on_trend_ready(self, message: TrendReady) -> None:
        if message.analysis is not self.session.analysis:
            return
        self.overview.show_trend(message.trend)
        said = self.session.take_trend(message.analysis, message.trend, message.changed)
        if said:
            self.notify(said, severity="warning", markup=False, timeout=15)

    def on_work_failed(self, message: WorkFailed) -> None:
        session = self.session
        session.progress = ""
        waiting = session.refuse(message.asked)
        if waiting is not None and session.review is None and session.analysis is not None:
            self._texts_unread(message.text, waiting)  # the texts' reading again failed
            return
        if message.fatal and session.analysis is None:
            if self.standalone:  # said by the command line once the screen is gone, unwrapped
                self.app.fail(message.text)
                return
            self.overview.loading_text = f"could not open this suite: {one_line(message.text)}"
            self.overview.refresh()
            self.table.empty_text = "nothing to show (escape: back to the suites)"
            self.table.refresh()
        self.notify(one_line(message.text, 300), severity=message.severity, markup=False, timeout=15)
        self.update_status()

    def on_filter_done(self, message: FilterDone) -> None:
        keep = self.session.take_matches(message.query, message.rows, message.analysis, message.what)
        if keep is not None:
            self.show_rows(keep=keep)

    @on(MoversTable.Chosen)
    def chosen(self) -> None:
        self.action_open_diff()

    # ------------------------------------------------------------------ actions that wait

    def texts_in(self) -> bool:
        return self.session.texts_in()

    def pair_shown(self) -> tuple[str, str] | None:
        return self.session.pair_shown()

    def when_ready(self, action: Waiting) -> None:
        """Run ``action`` now if the texts are read (and, for one that waits for it, the
        comparison asked for is shown), else once they are."""
        session = self.session
        if not session.must_wait_for_asked(action):
            if session.texts_in():
                self.steps_ahead = action.steps
                try:
                    getattr(self, f"do_{action.name}")(*action.args)
                finally:
                    self.steps_ahead = 0
                return
            again = session.read_again()
            if again is not None:
                self.compare(again)
            action = replace(action, after_asked=False)
        self.notify(session.park(action), markup=False, timeout=3)

    def diff_query(self) -> str:
        return self.session.diff_query()

    def current_id(self) -> str | None:
        """The example under the cursor; None, and a notice why, on an empty table (a key that
        acts on an example did nothing there and said nothing: a newcomer's pass)."""
        example_id = self.session.current_id(self.table.current)
        if example_id is None and self.session.analysis is not None:
            self.say_no_row()
        return example_id

    def say_no_row(self) -> None:
        empty = "no example matches the filter (escape clears it)" if self.session.matches is not None else "no examples"
        self.notify(empty, markup=False, timeout=3)

    def before_table(self, action: Callable[[], None], then: str) -> bool:
        """Whether ``action`` waits for the table (nothing shown yet): made there in turn with
        the moves typed before it, on the row they reach (j j b marked nothing, silently)."""
        if self.session.analysis is not None:
            return False
        self.table.ahead.append(action)
        self.notify(f"reading the suite… {then} when the table shows", markup=False, timeout=3)
        return True

    def action_mark(self, word: str) -> None:
        if self.before_table(lambda: self.action_mark(word), f"the {word} mark is set"):
            return
        example_id = self.current_id()
        if example_id is not None:
            self.when_ready(Waiting("mark", "the mark is set", (example_id, word)))

    def do_mark(self, example_id: str, word: str) -> None:
        common.mark(self, self.session.review, example_id, word, self.marks_changed)

    def action_note(self) -> None:
        if self.before_table(self.action_note, "the note opens"):
            return
        example_id = self.current_id()
        if example_id is not None:
            self.when_ready(Waiting("note", "the note opens", (example_id,)))

    def do_note(self, example_id: str) -> None:
        common.edit_note(self, self.session.review, example_id, self.marks_changed)

    def action_clear_mark(self) -> None:
        if self.before_table(self.action_clear_mark, "the mark can be cleared"):
            return
        example_id = self.current_id()
        if example_id is not None:
            self.when_ready(Waiting("clear", "the mark can be cleared", (example_id,)))

    def do_clear(self, example_id: str) -> None:
        common.clear(self, self.session.review, example_id, self.marks_changed)

    def action_export(self) -> None:
        self.when_ready(Waiting("export", "the export is written", after_asked=True))

    def do_export(self) -> None:
        self.app.export(self, self.session.review)

    def action_sort(self) -> None:
        self.session.next_sort()
        self.show_rows()  # from its first row: the example under the cursor stayed, far down

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        if not self.session.set_filter(event.value):
            self.show_rows(keep=True)
            return
        self.when_ready(Waiting("filter", "the filter applies"))

    def do_filter(self) -> None:
        self.apply_filter(self.session.filter_text)

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    def action_back(self) -> None:
        box = self.query_one(FilterBar)
        if box.shown or self.session.filter_text:
            box.close()
            self.session.set_filter("")
            self.table.focus()
            self.show_rows(keep=True)
            self.refresh_bindings()  # esc back: shown no longer, for a suite opened alone
            return
        if not self.standalone:
            self.dismiss(None)

    def action_metric(self) -> None:
        self.when_ready(Waiting("step", "the metric switches", ("metric",)))

    def action_tokenizer(self) -> None:
        self.when_ready(Waiting("step", "the tokenizer switches", ("tokenizer",)))

    def do_step(self, setting: str) -> None:
        """The next metric or tokenizer (`Session.step`)."""
        asked = self.session.step(setting, list(METRICS if setting == "metric" else TOKENIZERS))
        self.notify(f"{asked.what}…", markup=False, timeout=2)
        self.compare(asked)

    def action_history(self) -> None:
        # After m or t, the history of the comparison asked for: it showed the one it replaces.
        self.when_ready(Waiting("history", "the history opens", after_asked=True))

    def do_history(self) -> None:
        from rouge_tui.app.screens.history import HistoryScreen

        session = self.session

        def chosen(pair: tuple[str, str] | None) -> None:
            picked = session.pick(pair) if pair else None
            if isinstance(picked, Asked):
                # Said at once, as m and t say theirs: the old pair's figures stay up while
                # the new one is read and scored (2.5 s at 100k, every output changed).
                self.notify(f"{picked.what.removesuffix('…')}…", markup=False, timeout=3)  # (one …)
                self.compare(picked)
            elif picked:
                self.notify(picked, markup=False, timeout=3)

        self.app.push_screen(HistoryScreen(session.review, session.caches, session.known_trend(),
                                           frozenset(session.changed_on_disk)), chosen)

    # ------------------------------------------------------------------ showing

    def show_rows(self, *, keep: bool = False) -> None:
        """The table in the current sort and filter. ``keep``: the example under the cursor
        stays under it, on its new row (the filter cleared or applied again); else, or once
        it is not shown, the cursor is on the first row (after a sort, a new pair or a new
        filter, the new order starts at the top; after m or t, `on_analysis_ready` puts it
        back on its example)."""
        session = self.session
        if session.analysis is None:
            return
        current = self.table.current if keep else None
        view = session.view()
        rows = np.flatnonzero(view == current) if current is not None else ()
        filtered = session.matches is not None
        self.table.empty_text = "no example matches the filter" if filtered else "no examples"
        self.table.show(session.analysis.figures, view, rule=session.sort == RANKING and not filtered,
                        cursor=int(rows[0]) if len(rows) else 0)
        self.update_status()

    def mark_cell(self, example_id: str) -> MarkCell | None:
        review = self.session.review
        shown = None if review is None else review.get(example_id)
        return None if shown is None else MarkCell.of(shown)

    def update_status(self) -> None:
        self.query_one(StatusLine).show(self.session.progress, self.session.status_parts(self.table.row_count))

    def on_resize(self) -> None:
        self.update_status()

    def marks_changed(self) -> None:
        self.table.refresh()
        self.update_status()
        self.session.marks_seen = self.session.marks_time()

    def check_marks(self) -> None:
        """Another session's marks show here within a few seconds of being saved."""
        changed, lost = self.session.poll_marks()
        if lost:
            # Set aside as damaged, or gone: the marks this session holds are written back
            # now, not only with the next mark (the notice says what happened).
            self.app.save_marks(self.session.review, self, self.marks_changed, "could not write the marks back")
        if changed:
            self.table.refresh()
            self.update_status()
            # And a diff open over the table: its title said "shown" and still showed none of
            # them, and a key then replaced the mark it did not show (a red-team pass).
            from rouge_tui.app.screens.diff import DiffScreen

            for screen in self.app.screen_stack:
                if isinstance(screen, DiffScreen):
                    screen.marks_changed()
            self.notify("marks changed by another session: shown", markup=False, timeout=4)
