"""The review screen's hand-off to the diff view: enter and ``w`` open it on the comparison
shown (after the one asked for, when one is on its way), and the diff of the row the cursor
rests on is made ahead, so enter shows it at once."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from textual import work
from textual.timer import Timer

from rouge_tui.safetext import one_line
from rouge_tui.session import Session, Waiting

if TYPE_CHECKING:
    from rouge_tui.analysis.pipeline import Analysis
    from rouge_tui.app.screens.diff import Prepared

REST = 0.15  # seconds the cursor rests on a row before its diff is made ahead
OPENS_DIFF = ("walk", "first_diff", "diff")  # the waiting actions that open a diff


class DiffHandOff:
    """The review screen's diffs (a part of `ReviewScreen`, which has the table and the session)."""

    session: Session
    prepared: Prepared | None = None  # diffs made ahead (made with the first)
    _resting: Timer | None = None
    steps_ahead: int = 0  # the steps of the waiting action being run (`Waiting.steps`)

    def on_movers_table_moved(self) -> None:
        """Once the cursor rests on a row, its diff is made ahead (enter then shows it at once)."""
        if self._resting is not None:
            self._resting.stop()
        self._resting = self.set_timer(REST, self.rested)

    def rested(self) -> None:
        index = self.table.current
        review = self.session.review
        if self.session.texts_in() and index is not None and self.app.screen is self:
            self.make_ahead(review, review.analysis, index, self.diff_query(), self.size.width - 1)

    @work(thread=True, exclusive=True, group="ahead")
    def make_ahead(self, review, analysis: Analysis, index: int, query: str, width: int) -> None:
        from rouge_tui.app.screens.diff import Prepared

        if self.prepared is None:
            self.prepared = Prepared()
        with contextlib.suppress(Exception):  # a failure is said when that diff is opened
            self.prepared.ahead(review, analysis, index, query, width)

    def row_of_id(self, example_id: str) -> int | None:
        """The table row of ``example_id`` in the comparison shown (None: not in it, or not
        shown under the filter)."""
        if self.session.analysis is None:
            return None
        try:
            return self.table.row_of(self.session.analysis.figures.ids.index(example_id))
        except ValueError:
            return None

    def action_step_ahead(self, step: int) -> None:
        """n or p in the table: a step of the diff that waits to open (w n n at 3 a.m. on a
        big suite is the third output, not the first with two keys lost), else where they
        step. The steps go with the action, and with it if it is dropped."""
        waiting = self.session.waiting
        last = next((k for k in range(len(waiting) - 1, -1, -1) if waiting[k].name in OPENS_DIFF), None)
        if last is not None:
            waiting[last] = replace(waiting[last], steps=waiting[last].steps + step)
            return
        self.notify("n and p step from one diff to the next: enter opens the diff, w walks the ten",
                    markup=False, timeout=3)

    def push_diff(self, sequence: np.ndarray, position: int, walk: bool) -> None:
        from rouge_tui.app.screens.diff import DiffScreen, Prepared

        position = min(max(position + self.steps_ahead, 0), len(sequence) - 1)
        if self.prepared is None:
            self.prepared = Prepared()

        def back(example_id: str | None) -> None:
            # The example the diff showed, by id: the ranking may be another since (a metric
            # switched while the diff was open).
            row = None if example_id is None else self.row_of_id(example_id)
            if row is not None:
                self.table.cursor = row
            self.marks_changed()

        assert self.session.review is not None
        self.app.push_screen(DiffScreen(self.session.review, sequence, position, walk=walk, query=self.diff_query(),
                                        prepared=self.prepared), back)

    def action_open_diff(self) -> None:
        analysis = self.session.analysis
        if analysis is None:  # SPEC: enter right after start opens the most-moved output's diff
            self.park_once(Waiting("first_diff", "the most-moved output's diff opens"))
            return
        if self.table.current is None:
            self.say_no_row()
            return
        example_id = analysis.figures.ids[self.table.current]
        args = (analysis, self.table.view, self.table.cursor, self.session.pair_shown(), example_id)
        self.when_ready(Waiting("diff", "the diff opens", args, after_asked=True))

    def do_first_diff(self) -> None:
        """The diff asked for before the table showed: of the row under the cursor, the first
        (the most-moved, unless a sort came first) unless moves typed before it came first."""
        if self.table.current is not None:
            self.push_diff(self.table.view, self.table.cursor, walk=False)

    def park_once(self, action: Waiting) -> None:
        """``action``, asked for before the table showed, run once the texts are in (a key
        pressed twice meanwhile, once)."""
        if all(waiting.name != action.name for waiting in self.session.waiting):
            self.notify(self.session.park(action), markup=False, timeout=3)

    def do_diff(self, analysis: Analysis, view: np.ndarray, cursor: int, pair: tuple[str, str] | None,
                example_id: str) -> None:
        """The diff asked for on ``analysis``'s row ``cursor`` of ``view``, opened on the
        comparison shown now."""
        if self.session.analysis is analysis:
            self.push_diff(view, cursor, walk=False)
            return
        if self.session.pair_shown() != pair:  # another build pair: its own rows, from where the cursor is now
            if self.table.current is not None:
                self.push_diff(self.table.view, self.table.cursor, walk=False)
            return
        # The same pair computed again (another metric, a file changed): the same example,
        # in the ranking shown now.
        row = self.row_of_id(example_id)
        if row is None:
            self.notify(f"{one_line(example_id, 40)} is not in the comparison now shown", markup=False, timeout=4)
            return
        self.table.cursor = row
        self.push_diff(self.table.view, row, walk=False)

    def action_walk(self) -> None:
        if self.session.analysis is None:
            self.park_once(Waiting("walk", "the walk starts"))
            return
        self.when_ready(Waiting("walk", "the walk starts", after_asked=True))

    def do_walk(self) -> None:
        figures = self.session.analysis.figures  # the ten most-moved, then the flagged (SPEC "Triage")
        flagged = [row for row, _ in figures.flagged_after(figures.ten)]
        self.push_diff(np.asarray([*range(figures.ten), *flagged], dtype=np.int64), 0, walk=True)
