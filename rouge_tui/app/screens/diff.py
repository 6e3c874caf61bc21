"""The diff of one example, and the walk through the ten most-moved outputs.

The screen hosts ``DiffView`` (rouge_tui/app/widgets/diff_view.py) and steps through a
sequence of ranked examples: the table's rows (opened with enter) or the ten (``w``). An
ordinary example's diff is computed on the spot (tens of milliseconds for 2,000-word outputs),
so the screen's first frame already shows it; a huge one is computed in a worker so it never
freezes the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from rouge_tui.app.messages import DiffReady, WorkFailed
from rouge_tui.app.screens.common import (
    APP_BINDINGS,
    INLINE_CHARS,
    MARK_BINDINGS,
    WARM_AFTER,
    clear_example,
    describe_error,
    edit_note,
    export_review,
    mark_example,
    warm_diff,
)
from rouge_tui.app.session import Review
from rouge_tui.app.widgets.diff_view import DiffView
from rouge_tui.app.widgets.footer import KeysFooter
from rouge_tui.report import verdict_mark, verdict_words
from rouge_tui.safetext import one_line

if TYPE_CHECKING:
    from rouge_tui.diff import AlignedRow, ExampleDiff

MODES = ("reference", "outputs")
MODE_WORDS = {"reference": "against the reference", "outputs": "baseline vs candidate"}


class DiffScreen(Screen[int]):
    """One example's diff; ``n``/``p`` step through ``sequence`` (ranked indices)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *APP_BINDINGS,
        Binding("escape", "back", "back", id="back"),
        Binding("d", "mode", "mode", id="mode"),
        Binding("n", "step(1)", "next", id="next"),
        Binding("p", "step(-1)", "previous", id="previous"),
        *MARK_BINDINGS,
    ]

    mode: reactive[str] = reactive("reference", init=False)

    def __init__(self, review: Review, sequence: np.ndarray, position: int, *, walk: bool) -> None:
        super().__init__()
        self.review = review
        self._point(sequence, position, walk)
        self._warm_timer: Timer | None = None
        self.shown: int | None = None  # the ranked index whose diff is on screen
        self.pending: int | None = None  # the ranked index whose diff a worker is computing

    def compose(self) -> ComposeResult:
        yield Static(id="diff-summary")
        yield Static(id="diff-title")
        yield DiffView(id="diff")
        yield KeysFooter(compact=True)

    @property
    def index(self) -> int:
        """The ranked index of the example this screen is on."""
        return int(self.sequence[self.position])

    @property
    def example_id(self) -> str:
        return self.review.comparison.ids[self.index]

    def on_mount(self) -> None:
        self.query_one("#diff-summary", Static).update(self.summary())
        self.query_one(DiffView).focus()
        self.show_current()

    def reopen(self, sequence: np.ndarray, position: int, *, walk: bool) -> None:
        """Point this screen (kept between opens, not shown now) at ``sequence[position]``,
        as a new one would open: against the reference, long runs folded, nothing of the
        last example pending."""
        self.workers.cancel_group(self, "diff")
        self._stop_warm()
        self._point(sequence, position, walk)
        self.shown = self.pending = None
        self.set_reactive(DiffScreen.mode, "reference")  # the view follows in show_diff
        view = self.query_one(DiffView)
        view.set_reactive(DiffView.folded, True)
        view.loading = False
        view.focus()
        self.show_current()

    def _point(self, sequence: np.ndarray, position: int, walk: bool) -> None:
        self.sequence = sequence
        self.position = max(0, min(position, len(sequence) - 1))
        self.walk = walk

    def _stop_warm(self) -> None:
        """Forget the next step's pending warm-up (another example is shown now)."""
        if self._warm_timer is not None:
            self._warm_timer.stop()
            self._warm_timer = None

    def summary(self) -> Text:
        """One line of the overview, so the verdict stays in view on this screen."""
        review = self.review
        c = review.comparison
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(one_line(review.suite.name, 30), style="bold")
        text.append("  ")
        text.append(f"{verdict_mark(c.verdict)} {verdict_words(c.verdict)}", style="bold")
        text.append(f"  Δ {c.delta_mean:+.4f}  {review.analysis.signature}")
        return text

    # ------------------------------------------------------------------ the example

    def step_label(self) -> str:
        k, total = self.position + 1, len(self.sequence)
        return f"{k}/{total}" if self.walk else f"row {k}/{total}"

    def show_current(self) -> None:
        self.title = self.step_label()
        self.update_title()
        index = self.index
        texts = self.texts(index)
        if (
            texts is not None
            and sum(map(len, texts[0])) + len(texts[1]) + len(texts[2]) <= INLINE_CHARS
        ):
            self.workers.cancel_group(self, "diff")  # a huge example's result is not wanted now
            try:
                diff = self.model(index)
            except Exception as exc:  # noqa: BLE001 - say what failed, keep the app running
                self.on_work_failed(WorkFailed(f"could not build the diff: {describe_error(exc)}"))
                return
            # The outputs' alignment costs about as much as the diff and only the outputs
            # mode shows it: aligned when that mode first needs it.
            self.show_diff(index, diff, self.rows_later(texts[1], texts[2]))
            return
        self.pending = index
        self.compute(index)
        # A huge output can take seconds: say so, but only then (no flicker on quick steps).
        self.set_timer(0.3, self.show_busy)

    def show_busy(self) -> None:
        # Only while the worker is still at it: not once it has failed (that was told).
        if self.pending == self.index and self.shown != self.index:
            self.query_one(DiffView).loading = True

    def update_title(self) -> None:
        """Where we are (k/10), which example, the mode, its mark, then its figures."""
        c = self.review.comparison
        index = self.index
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(self.step_label(), style="bold reverse")
        text.append(" ")
        text.append(one_line(self.example_id, 40), style="bold")
        text.append(f" · {MODE_WORDS[self.mode]}")
        cell = self.review.mark_cell(self.example_id)
        if cell is not None:
            text.append(" · marked ")
            text.append(cell.mark, style="bold")
            if cell.stale:
                text.append(" (stale: the outputs changed since)")
            if cell.has_note:
                text.append(" + note")
        text.append(f" · rank {index + 1} Δ {float(c.delta[index]):+.4f}")
        text.append(f" ({float(c.baseline_f[index]):.4f} → {float(c.candidate_f[index]):.4f})")
        runs = max(len(self.review.baseline.runs), len(self.review.candidate.runs))
        if runs > 1:
            text.append(" · outputs of run 1, F the mean over runs")
        self.query_one("#diff-title", Static).update(text)

    def texts(self, index: int) -> tuple[tuple[str, ...], str, str] | None:
        """The references and the two outputs of ranked example ``index`` (None if unreadable:
        the worker then reports why)."""
        review = self.review
        example_id = review.comparison.ids[index]
        try:
            baseline, candidate = review.outputs(example_id)
            return tuple(review.references(example_id)), baseline, candidate
        except Exception:  # noqa: BLE001 - compute() says what failed
            return None

    def model(self, index: int) -> ExampleDiff:
        """The diff of ranked example ``index`` against its reference(s) (rouge_tui.diff),
        made once per review (`Review.diff_model`)."""
        return self.review.diff_model(self.review.comparison.ids[index])

    def rows(self, baseline: str, candidate: str) -> list[AlignedRow]:
        """The outputs aligned word by word (rouge_tui.diff.output_alignment)."""
        from rouge_tui.diff import output_alignment

        return output_alignment(baseline, candidate, self.review.settings.tokenizer)

    def rows_later(self, baseline: str, candidate: str) -> Callable[[], list[AlignedRow]]:
        """`rows` when first called; a failure is told and leaves no rows."""

        def rows() -> list[AlignedRow]:
            try:
                return self.rows(baseline, candidate)
            except Exception as exc:  # noqa: BLE001 - say what failed, keep the app running
                self.on_work_failed(
                    WorkFailed(f"could not align the outputs: {describe_error(exc)}")
                )
                return []

        return rows

    @work(thread=True, exclusive=True, group="diff")
    def compute(self, index: int) -> None:
        """The diff model of ranked example ``index``, in a thread (huge outputs stay responsive)."""
        review = self.review
        example_id = review.comparison.ids[index]
        try:
            baseline, candidate = review.outputs(example_id)
            diff = self.model(index)
            rows = self.rows(baseline, candidate)
        except Exception as exc:  # noqa: BLE001 - say what failed, keep the app running
            self.post_message(WorkFailed(f"could not build the diff: {describe_error(exc)}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(DiffReady(index, diff, rows))

    def on_diff_ready(self, message: DiffReady) -> None:
        if message.index == self.index:
            self.show_diff(message.index, message.diff, message.rows)  # type: ignore[arg-type]

    def show_diff(
        self,
        index: int,
        diff: ExampleDiff,
        rows: list[AlignedRow] | Callable[[], list[AlignedRow]],
    ) -> None:
        """Put ranked example ``index``'s diff on screen (rows, or a function making them)."""
        self.shown = index
        self.pending = None
        # The next step, made while this one is read: once this is drawn and read a moment
        # (a worker now would take turns with the drawing of this frame).
        self._stop_warm()
        if self.position + 1 < len(self.sequence):
            following = int(self.sequence[self.position + 1])
            self._warm_timer = self.set_timer(
                WARM_AFTER, lambda: warm_diff(self, self.review, following)
            )
        view = self.query_one(DiffView)
        view.loading = False
        view.show(
            diff,
            rows,
            self.mode,
            baseline_name=self.review.baseline.name,
            candidate_name=self.review.candidate.name,
        )
        self.lay_out()

    def lay_out(self) -> None:
        """Lay the screen out before its next frame is painted. The panes ask for a layout
        themselves, but by messages that reach the screen a frame later: that first frame
        showed the new text at the last example's pane heights and scroll range."""
        self.refresh(layout=True)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.pending = None
        self.query_one(DiffView).loading = False
        self.notify(message.text, severity="error", markup=False, timeout=10)

    # ------------------------------------------------------------------ actions

    def watch_mode(self, mode: str) -> None:
        self.query_one(DiffView).mode = mode
        self.update_title()
        self.lay_out()

    def action_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]

    def action_step(self, step: int) -> None:
        target = self.position + step
        if target >= len(self.sequence):
            self.notify("end of the ten" if self.walk else "last row", markup=False, timeout=3)
            return
        if target < 0:
            self.notify("start of the ten" if self.walk else "first row", markup=False, timeout=3)
            return
        self.position = target
        self.show_current()

    def action_back(self) -> None:
        self.dismiss(self.index)

    def marks_changed(self) -> None:
        self.update_title()

    def action_mark(self, mark: str) -> None:
        mark_example(self, self.review, self.example_id, mark, self.marks_changed)

    def action_clear_mark(self) -> None:
        clear_example(self, self.review, self.example_id, self.marks_changed)

    def action_note(self) -> None:
        edit_note(self, self.review, self.example_id, self.marks_changed)

    def action_export(self) -> None:
        export_review(self, self.review)
