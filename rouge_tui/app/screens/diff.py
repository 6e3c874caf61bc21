"""The diff of one example, and the walk through the ten most-moved outputs.

The screen steps through a sequence of ranked examples (the table's rows, opened with enter,
or the ten, with ``w``). Every figure on it is read from the comparison it was opened on
(kept when a metric switch lands meanwhile: what it shows and marks stays one example). A diff
of ordinary texts is made on the spot; a huge one (or one with a huge source: grounding reads
all of it) in a worker (the keys keep answering and ``Q`` quits at once), cut to `SHOWN`
characters a text with a note saying so.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from rouge_tui.analysis.compare import VERDICTS, signal_alarm
from rouge_tui.analysis.figures import Figures
from rouge_tui.app.fit import first_fit
from rouge_tui.app.messages import WorkFailed
from rouge_tui.app.screens import common
from rouge_tui.app.widgets.diffview import DiffModel, DiffView
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.movers import MarkCell
from rouge_tui.diff import FOLD_WORDS, prepare_example, run_scores
from rouge_tui.numbers import signed
from rouge_tui.review import Review
from rouge_tui.safetext import one_line, shorten_names

if TYPE_CHECKING:
    from rouge_tui.analysis.pipeline import Analysis

__all__ = ["DiffScreen", "Prepared", "make_model"]

MODES = {"reference": "against the reference", "outputs": "baseline vs candidate"}
SHORT_MODES = {"reference": "vs ref", "outputs": "base vs cand"}
INLINE = 60_000  # characters (references, outputs, source) diffed on the spot; more in a worker


def make_model(review: Review, analysis: Analysis, index: int, run: int, query: str) -> DiffModel:
    """What the diff view draws for ranked example ``index`` of ``analysis`` (the review's
    comparison when it was asked for) in ``run`` of each build."""
    figures = analysis.figures
    names = shorten_names([figures.baseline.name, figures.candidate.name], 40)
    made = prepare_example(review.texts, figures.ids[index], run, analysis.settings, (names[0], names[1]))
    return DiffModel(made.diff, made.outputs, (names[0], names[1]), made.notes, query, made.grounding)


def diff_size(texts, example_id: str, run: int = 0) -> int:
    """The characters a diff of the example reads: references, outputs and source (grounding
    reads the whole source); from `INLINE`, the diff is made in a worker."""
    source = texts.references.sources.get(example_id) or ""
    outputs = texts.outputs(example_id, run)
    return sum(map(len, texts.references.texts[example_id])) + sum(map(len, outputs)) + len(source)


class Prepared:
    """Diff models made ahead, while the reviewer reads: the table's cursor row once it
    rests, the next example of a walk. Enter then draws at once (benchmarks/bench_app.py
    --only diff). Only the comparison on screen's: another one empties it."""

    KEEP = 8

    def __init__(self) -> None:
        self._models: LRUCache[tuple[int, int, str], DiffModel] = LRUCache(self.KEEP)
        self._analysis: object = None
        self._lock = threading.Lock()

    def get(self, review: Review, analysis: Analysis, index: int, run: int, query: str) -> DiffModel:
        """The model, made now if it was not made ahead."""
        key = (index, run, query)
        with self._lock:
            if analysis is not self._analysis:
                self._models.clear()
                self._analysis = analysis
            model = self._models.get(key)
            if model is not None:
                return model
        model = make_model(review, analysis, index, run, query)
        with self._lock:
            if analysis is self._analysis:
                self._models.set(key, model)
        return model

    def ahead(self, review: Review, analysis: Analysis, index: int, query: str, width: int) -> None:
        """Make example ``index``'s model and its first drawing's rows (in a worker)."""
        # A huge one is made when asked for, in its own worker.
        if diff_size(review.texts, analysis.figures.ids[index]) <= INLINE:
            self.get(review, analysis, index, 0, query).layout("reference", True, width)


def walk_step(figures: Figures, k: int) -> str:
    """Where the walk is, and in which list: ``3/10`` of the ten most-moved, then
    ``flagged 2/6`` (SPEC "Triage": the examples where a drifting signal fired)."""
    if k <= figures.ten:
        return f"{k}/{figures.ten}"
    return f"flagged {k - figures.ten}/{len(figures.flagged_after(figures.ten))}"


class DiffScreen(common.Answers, Screen[str]):
    """One example's diff; ``n`` / ``p`` step through ``sequence`` (ranked indices)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *common.VIEW_BINDINGS,
        Binding("n", "step(1)", "next", id="next"),
        Binding("p", "step(-1)", "prev", id="previous"),
        Binding("right_square_bracket", "change(1)", "next change", id="next-change",
                group=Binding.Group("change")),
        Binding("left_square_bracket", "change(-1)", "previous change", id="previous-change",
                group=Binding.Group("change")),
        Binding("d", "mode", "mode", id="mode"),
        *common.MARK_BINDINGS,
        common.NOTE,
        Binding("o", "counterparts", "counterparts", id="counterparts"),
        Binding("tab", "pane", "pane", id="pane"),
        Binding("f", "fold", "fold", id="fold"),
        Binding("r", "run", "run", id="run"),
        common.EXPORT,
        common.CLEAR,
        # The review table's own keys, said to be there rather than doing nothing here.
        *(Binding(key, f"table_only('{what}')", what, show=False)
          for key, what in (("m", "m switches the metric"), ("t", "t switches the tokenizer"), ("s", "s sorts"),
                            ("slash", "/ filters"), ("w", "w walks the ten"), ("h", "h shows the history"))),
    ]

    def __init__(self, review: Review, sequence: np.ndarray, position: int, *, walk: bool, query: str = "",
                 prepared: Prepared | None = None) -> None:
        super().__init__()
        self.review = review
        # The comparison this diff belongs to, kept: a metric switched while it is open (the
        # overview's new ranking) changes neither what it shows nor the example a mark goes to.
        self.analysis = review.analysis
        self.prepared = prepared or Prepared()
        self.sequence = sequence
        self.position = max(0, min(position, len(sequence) - 1))
        self.walk = walk
        self.filter_text = query
        self.run = self.analysis.figures.run_moved(self.index)  # the run whose F moved most
        self.mode = "reference"
        self.shown: int | None = None  # the ranked index whose diff is on screen
        self.run_scores: tuple[list[float], list[float]] = ([], [])  # each build's F, run by run

    def compose(self) -> ComposeResult:
        yield Static(id="diff-summary")
        yield Static(id="diff-title")
        yield Static(id="diff-mark")
        yield DiffView(id="diff")
        yield KeyBar()

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def index(self) -> int:
        return int(self.sequence[self.position])

    @property
    def example_id(self) -> str:
        return self.analysis.figures.ids[self.index]

    @property
    def runs(self) -> int:
        texts = self.review.texts
        return max(len(texts.baseline.runs), len(texts.candidate.runs))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "run":
            return self.runs > 1 or None
        if action == "fold":
            return self.mode == "outputs" or None
        return True

    def on_mount(self) -> None:
        self.view.focus()
        self.show_current()

    # ------------------------------------------------------------------ headers

    def summary(self, width: int) -> Text:
        """The suite, its verdict and mean delta: the name gets what the verdict and the delta
        leave of ``width`` (cut at 30 it read "See et al. 201…" at 120 columns), 30 at least."""
        figures = self.analysis.figures
        verdict = f"  {VERDICTS[figures.verdict].said}{signal_alarm(figures.verdict, bool(figures.drifting))}"
        delta = f"  Δ {signed(figures.delta_mean)}"
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(one_line(figures.suite, max(30, width - cell_len(verdict) - len(delta))), style="bold")
        text.append(verdict, style="bold")
        text.append(f"{delta}  {figures.signature}")
        return text

    def title_text(self, width: int) -> Text:
        """Where we are and what this example is, in priority order: step, id, rank, delta,
        both scores, mark, mode, run; words shortened before figures are dropped."""
        figures = self.analysis.figures
        index = self.index
        k, total = self.position + 1, len(self.sequence)
        step = walk_step(figures, k) if self.walk else f"row {k}/{total}"
        shown = self.review.get(self.example_id)
        base_f, cand_f = float(figures.baseline_f[index]), float(figures.candidate_f[index])
        mark = short_mark = ""
        if shown is not None:
            mark = shown.word + (" carried" if shown.carried_from else " stale" if shown.stale else "") + (" +note" if shown.note else "")
            short_mark = MarkCell.of(shown).text(6)  # as the table shows it
        parts = [  # each field's forms, longest first, in priority order
            (f"rank {index + 1}", f"#{index + 1}"),
            (f"Δ {signed(float(figures.delta[index]))}", f"Δ{signed(float(figures.delta[index]), 3)}"),
            (f"{base_f:.4f} → {cand_f:.4f}", f"{base_f:.2f}→{cand_f:.2f}"),
            (f"marked {mark}" if mark else "", short_mark),
            (MODES[self.mode], SHORT_MODES[self.mode]),
        ]
        if (at := self.view.change_at()) is not None:  # where ] and [ went: the k-th change of n
            parts.insert(0, (f"change {at[0]} of {at[1]}", f"chg {at[0]}/{at[1]}"))
        if self.runs > 1:
            scores = ", ".join(f"{role} " + " ".join(f"{f:.2f}" for f in found)
                               for role, found in zip(("base", "cand"), self.run_scores) if found)
            now = "→".join(f"{found[min(self.run, len(found) - 1)]:.2f}" for found in self.run_scores if found)
            run = f"run {self.run + 1}/{self.runs}"  # which run, kept before any field is dropped
            moved = " moved most" if self.run == figures.run_moved(index) else ""
            parts.append((f"run {self.run + 1} of {self.runs}{moved} (F {scores})", f"{run}{moved} F {now}",
                          f"{run} F {now}", run))
        name_room = max(10, min(40, width - 40))  # terminal cells: a CJK character takes two
        example = one_line(self.example_id, 3 * name_room)  # (a 1 MB id: not all escaped)
        if cell_len(example) > name_room:
            example = set_cell_size(example, name_room - 1).rstrip() + "…"
        # Every field in its longest form, then one form shorter at a time, from the last field
        # to the first (a mark does not shorten the figures before it), then the last ones
        # dropped, but for the run's number, which r changes (it goes last, with the rank).
        form = [0] * len(parts)
        tries = [[p[0] for p in parts]]
        for shorter in range(1, max(map(len, parts))):
            for field in range(len(parts) - 1, -1, -1):
                if shorter < len(parts[field]):
                    form[field] = shorter
                    tries.append([p[f] for p, f in zip(parts, form)])
        short = tries[-1]
        run = short[-1:] if self.runs > 1 else []
        rest = short[: len(short) - len(run)]
        tries += [rest[:keep] + run for keep in range(len(rest) - 1, 0, -1)]
        heads = (f" {step} ", f" {k}/{total} ")  # the step in words, else only k/total
        lines = [(head, " · ".join(f for f in fields if f)) for head in heads for fields in tries]
        head, line = first_fit(lines, width, lambda pair: f"{pair[0]} {example} · {pair[1]}")
        return self._title(head, example, line)

    def _title(self, head: str, example: str, rest: str) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(head, style="bold reverse")
        text.append(" ")
        text.append(example, style="bold")
        text.append(" · " + rest)
        return text

    def mark_line(self, width: int) -> Text | None:
        """A carried mark's origin and a mark's note, on a line of their own (None: no line):
        what the user wrote is on screen with the mark it belongs to; cut to ``width`` cells,
        it says so and how to read the rest."""
        shown = self.review.get(self.example_id)
        if shown is None or not (shown.note or shown.carried_from):
            return None
        text = Text(no_wrap=True)
        if shown.carried_from:
            text.append(f"{shown.word} carried from ", style="bold")  # the same two outputs there
            text.append(common.pair_text(shown.carried_from) + (" · " if shown.note else ""))
        if shown.note:
            text.append("note ", style="bold")
            text.append(one_line(shown.note, width + 1))  # one more than fits: the cut below says so
        if text.cell_len > width:
            more = " c: the whole note" if shown.note else ""
            text.truncate(max(width - len(more), 1), overflow="ellipsis")
            text.append(more, style="dim")
        return text

    def update_headers(self) -> None:
        width = max(self.size.width - 2, 20)
        self.query_one("#diff-summary", Static).update(self.summary(width))
        self.query_one("#diff-title", Static).update(self.title_text(width))
        line = self.mark_line(width)
        holder = self.query_one("#diff-mark", Static)
        holder.display = line is not None
        if line is not None:
            holder.update(line)

    def on_resize(self) -> None:
        self.update_headers()

    def on_diff_view_unpointed(self) -> None:
        self.update_headers()  # the title's "change k of n" goes

    # ------------------------------------------------------------------ the example

    def show_current(self) -> None:
        self.title = f"{self.position + 1}/{len(self.sequence)}"
        self.run_scores = ([], [])
        if diff_size(self.review.texts, self.example_id, self.run) <= INLINE:
            try:
                self.show_model(self.index, self.prepared.get(self.review, self.analysis, self.index, self.run, self.filter_text))
            except Exception as exc:  # noqa: BLE001 - say what failed, keep the app running
                self.notify(f"could not build the diff: {common.describe(exc)}", severity="error", markup=False)
            return
        self.view.loading = True
        self.update_headers()
        self.compute(self.index, self.run)

    @work(thread=True, exclusive=True, group="diff")
    def compute(self, index: int, run: int) -> None:
        try:
            model = self.prepared.get(self.review, self.analysis, index, run, self.filter_text)
        except Exception as exc:  # noqa: BLE001
            self.post_message(WorkFailed(f"could not build the diff: {common.describe(exc)}"))
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_model, index, model)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.view.loading = False
        self.notify(message.text, severity="error", markup=False, timeout=10)

    def show_model(self, index: int, model: DiffModel) -> None:
        if index != self.index:
            return
        self.shown = index
        self.view.loading = False
        if self.runs > 1:
            self.run_scores = self.per_run()
        self.view.set_reactive(DiffView.mode, self.mode)  # show() draws it once, in this mode
        self.view.show(model)
        self.update_headers()
        # The next diff is made after this frame (until then the GIL is the frame's).
        self.call_after_refresh(self.ahead_next, self.view.layout_width)

    def ahead_next(self, width: int) -> None:
        if self in self.app.screen_stack and self.position + 1 < len(self.sequence):  # not after escape
            self.make_ahead(int(self.sequence[self.position + 1]), width)

    @work(thread=True, exclusive=True, group="ahead")
    def make_ahead(self, index: int, width: int) -> None:
        with contextlib.suppress(Exception):  # a failure is said when that diff is opened
            self.prepared.ahead(self.review, self.analysis, index, self.filter_text, width)

    def per_run(self) -> tuple[list[float], list[float]]:
        """This example's F in every run of the baseline and of the candidate."""
        return run_scores(self.review.texts, self.example_id, self.analysis.settings)

    # ------------------------------------------------------------------ actions

    def action_mode(self) -> None:
        self.mode = "outputs" if self.mode == "reference" else "reference"
        self.view.mode = self.mode
        self.update_headers()
        self.refresh_bindings()

    def action_fold(self) -> None:
        if self.view.folded and not self.view.folds:
            self.notify(f"nothing to fold: no unchanged stretch is longer than {FOLD_WORDS} words", markup=False, timeout=3)
            return
        self.view.folded = not self.view.folded
        self.update_headers()  # the rows moved: no change is pointed at
        self.notify("long unchanged stretches folded" if self.view.folded else "unfolded", markup=False, timeout=2)

    def action_change(self, step: int) -> None:
        if not self.view.next_change(step):
            self.notify("no more changes that way" if self.view.changes else "no changes to step through", markup=False, timeout=2)
        self.update_headers()  # the title says which change of how many

    def action_pane(self) -> None:
        self.view.next_pane()
        self.update_headers()  # a pane's title is pointed at, not a change

    def action_counterparts(self) -> None:
        from rouge_tui.app.screens.counterparts import CounterpartsScreen

        model = self.view.model
        if model is None or model.grounding is None:
            return
        self.app.push_screen(CounterpartsScreen(
            self.example_id, model.grounding, model.names, self.analysis.settings.min_support))

    def action_run(self) -> None:
        self.run = (self.run + 1) % self.runs
        self.show_current()

    def action_step(self, step: int) -> None:
        target = self.position + step
        if not 0 <= target < len(self.sequence):
            where = ("end" if step > 0 else "start") + (" of the walk" if self.walk else " of the rows")
            self.notify(where + (self.past_the_walk() if self.walk and step > 0 else ""), markup=False, timeout=6)
            return
        self.position = target
        self.run = self.analysis.figures.run_moved(self.index)
        self.show_current()

    def past_the_walk(self) -> str:
        """How many outputs where a drifting signal fired the walk left out (it takes ten of
        them; a newcomer walked 4 of CNN/DM's 50 invented sentences and found no word of the
        others), and where they are."""
        from rouge_tui.analysis import signals, triage

        figures = self.analysis.figures
        drifting = [signal.name for signal in signals.SIGNALS if signal.name in {r.signal for r in figures.drifting}]
        left = len(np.setdiff1d(np.flatnonzero(triage.fired(figures.signals, drifting)), self.sequence))
        if not left:
            return ""
        names = " or ".join(f"/{name}" for name in drifting)
        return f": {left} more output{'s' * (left != 1)} where a drifting signal fired (in the table, s sorts them first and {names} filters)"

    def action_back(self) -> None:
        self.dismiss(self.example_id)

    def marks_changed(self) -> None:
        self.update_headers()

    def action_mark(self, word: str) -> None:
        common.mark(self, self.review, self.example_id, word, self.marks_changed)

    def action_table_only(self, what: str) -> None:
        self.notify(f"{what} in the review table: q or escape goes back to it", markup=False, timeout=3)

    def action_note(self) -> None:
        common.edit_note(self, self.review, self.example_id, self.marks_changed)

    def action_clear_mark(self) -> None:
        common.clear(self, self.review, self.example_id, self.marks_changed)

    def action_export(self) -> None:
        self.app.export(self, self.review)
