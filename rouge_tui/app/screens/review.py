"""The main view of one suite: the overview on top, the movers table, a status line, the keys.

Opening and every re-scoring run in a thread worker that posts messages back, so the screen
answers keys while a big suite is read and scored. With cached figures the first frame comes
from them while the texts are still being read; what needs the texts (a diff, a mark, the
text filter, the export, another metric) waits for them and then goes ahead.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from rouge_tui.analysis.figures import RANKING, SORTS
from rouge_tui.analysis.pipeline import Analysis, Texts, analyse, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.app.messages import (
    AnalysisReady,
    FilterDone,
    Progress,
    TextsFailed,
    TextsReady,
    TrendReady,
    WorkFailed,
)
from rouge_tui.app.screens import common
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.movers import MarkCell, MoversTable
from rouge_tui.app.widgets.overview import Overview
from rouge_tui.review import Opened, Request, Review, find_rows, open_review, searched_text
from rouge_tui.rouge import METRICS, TOKENIZERS
from rouge_tui.safetext import one_line
from rouge_tui.store.marks import MARKS
from rouge_tui.suite.suite import Suite

if TYPE_CHECKING:
    from rouge_tui.app.screens.diff import Prepared

# How the status line fits: each step shortens one part to its next form (the last form of
# the sort is none), least needed first, until the line fits; counts are never dropped.
STATUS_STEPS = ("out", "sort", "rows", "filter", "filter", "out", "sort")
PROGRESS_EVERY = 0.2  # seconds between two progress messages while scoring
MARKS_CHECK = 2.0  # seconds between looks at the marks file (another session's marks)
REST = 0.15  # seconds the cursor rests on a row before its diff is made ahead


@dataclass(frozen=True)
class Asked:
    """A comparison asked for and not yet shown (m, t, a pair picked in h): its results, and
    its failure, carry its number, so an earlier request's are not taken for its own."""

    number: int
    settings: Settings
    pair: tuple[str, str] | None  # None: the pair shown
    what: str  # for a diff that waits for it
    step: tuple[str, str] | None  # (setting, value) of an m or t


class ReviewScreen(common.Answers, Screen[None]):
    """Overview and movers table of one suite: where a review starts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *common.APP_BINDINGS,
        # Most important first: the footer shows as many as fit (at 80 columns, up to the
        # filter), the help all of them, in this order.
        Binding("enter", "open_diff", "diff", id="diff"),
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
        Binding("escape", "back", "back", id="back", show=False),
    ]

    def __init__(self, path: Path, options: argparse.Namespace | None = None, *, standalone: bool = True) -> None:
        super().__init__()
        self.path = path
        self.options = options
        self.standalone = standalone
        self.suite: Suite | None = None
        self.analysis: Analysis | None = None
        self.texts: Texts | None = None
        self.review: Review | None = None
        self.sort = RANKING
        self.filter_text = ""
        self.matches: np.ndarray | None = None
        self.matched_as = ""
        self.matched_query = ""  # the filter whose matches are shown (applied again: the cursor stays)
        self.progress = ""
        self.waiting: list[tuple[Callable[[], None], str]] = []  # actions waiting for the texts, in order
        self.texts_failed: str | None = None  # why the shown comparison's texts could not be read
        self.changed_on_disk: set[str] = set()  # compared builds whose files changed since read
        self.refs_notice: str | None = None  # the references changed since an earlier review
        # One of the newest pair cannot be read, and the pair shown first was picked in its
        # place: said while that pair is shown (its warning fades, and the pair's verdict
        # could read as the night's).
        self.unreadable: tuple[tuple[str, str] | None, str] | None = None
        self.asked: Asked | None = None  # the comparison asked for and not yet shown
        self.requests = 0  # requests made (m, t, a pair picked in h), the last one's number
        # The m or t step refused last (setting, value): the next press of that key steps on
        # from it (rougeLsum past its limit: m goes on to rouge1, not back to it).
        self.refused: tuple[str, str] | None = None
        self.request = Request.of(path, options)
        self.caches = self.request.caches()
        self.export_path: Path | None = None
        self._marks_seen: float | None = None
        self.prepared: Prepared | None = None  # diffs made ahead (made with the first)
        self._resting: Timer | None = None
        self.trend: tuple[Analysis, list] | None = None  # the overview's history line's builds

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Overview(id="overview")
        yield MoversTable(id="movers")
        yield Input(placeholder=f"filter: id or text, a signal (trunc), a mark ({next(iter(MARKS))}) · ⏎ keeps, esc clears",
                    id="filter")
        yield Static(id="status")
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
        if action in ("back", "help", "quit"):
            return True
        if action == "filter" and getattr(self.focused, "id", None) == "filter":
            return False  # a `/` typed in the filter box is text
        return self.analysis is not None

    # ------------------------------------------------------------------ workers

    def _progress(self) -> Callable[[str, float], None]:
        worker = get_current_worker()
        last = [0.0]

        def tell(stage: str, fraction: float) -> None:
            if worker.is_cancelled:
                raise InterruptedError
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY or fraction == 0.0:
                last[0] = now
                self.post_message(Progress(stage, fraction))

        return tell

    @work(thread=True, exclusive=True, group="analysis")
    def load(self) -> None:
        """Open the suite and its comparison; then read the texts if the figures came first."""
        try:
            def early(shown: Analysis) -> None:  # the table before the grounded signals are in
                self.post_message(AnalysisReady(shown))

            # The marks come with the texts (`on_texts_ready`): the figures are shown first.
            opened = open_review(self.request, marks=False, fall_back=True, progress=self._progress(), early=early)
            self.caches = opened.caches
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
            self.post_message(WorkFailed(common.describe(exc), fatal=self.analysis is None))

    def _logged(self, opened: Opened) -> str | None:
        """Say what the review's opening warned of (the cache, the suite's log); what the
        overview should say if the frozen references moved since builds compared now were
        scored."""
        for warning in opened.warnings:
            self.post_message(WorkFailed(warning, fatal=False, severity="warning"))
        change = opened.change
        return f"refs changed since {change.since[:10]}" if change else None

    def _texts_of(self, analysis: Analysis) -> None:
        """The texts of ``analysis``, whose figures are on screen (or on their way): a file
        that cannot be read now (changed or removed since the figures were cached) leaves
        those figures shown and says why (`on_texts_failed`)."""
        if not analysis.texts.done():
            self.post_message(Progress("reading the texts"))
        try:
            texts = analysis.texts.result()
            if not analysis.fresh(texts):
                analysis = analyse(analysis.suite, analysis.settings, texts, caches=self.caches, progress=self._progress())
                self.post_message(AnalysisReady(analysis, "the files changed since their figures were cached: computed again"))
        except InterruptedError:
            raise
        except Exception as exc:  # noqa: BLE001 - one line, and the figures stay
            self.post_message(TextsFailed(analysis, common.describe(exc)))
            return
        self.post_message(TextsReady(analysis, texts))

    def ask(self, settings: Settings, pair: tuple[str, str] | None, what: str, step: tuple[str, str] | None = None) -> None:
        """Compare again under ``settings`` (and the build ``pair``, None: the pair shown):
        the request the screen now waits for; any before it is superseded."""
        self.requests += 1
        self.asked = Asked(self.requests, settings, pair, what, step)
        self.refused = None
        self.rescore(settings, pair, self.requests)

    @work(thread=True, exclusive=True, group="analysis")
    def rescore(self, settings: Settings, pair: tuple[str, str] | None, request: int) -> None:
        """Score again under other settings (same texts) or another build pair."""
        assert self.analysis is not None
        suite = self.analysis.suite
        label = f"{settings.metric} ({settings.tokenizer}{', stem' if settings.stem else ''})"
        try:
            if pair is None and self.texts is not None:
                analysis = analyse(suite, settings, self.texts, caches=self.caches, progress=self._progress())
                self.post_message(AnalysisReady(analysis, f"now {label}", request=request))
                self.post_message(TextsReady(analysis, self.texts))
            else:
                base, cand = pair if pair else (None, None)
                shown = self.pair_shown()
                analysis = open_analysis(suite, settings, base, cand, caches=self.caches, progress=self._progress())
                now = (analysis.figures.baseline.name, analysis.figures.candidate.name)
                said = f"{common.pair_text(now)} read again" if now == shown else f"now {common.pair_text(now)}"
                self.post_message(AnalysisReady(analysis, said, request=request))
                self._texts_of(analysis)
        except InterruptedError:
            return
        except Exception as exc:  # noqa: BLE001
            self.post_message(WorkFailed(common.describe(exc), request=request))

    @work(thread=True, exclusive=True, group="trend")
    def load_trend(self, analysis: Analysis, texts: Texts) -> None:
        """Every build scored (through the caches) for the overview's history line, the two
        compared as they were read; a compared file changed since is said."""
        from rouge_tui.analysis.history import changed_since_read, trend

        read = (texts.baseline, texts.candidate)
        try:
            builds = trend(analysis.suite, texts.references, analysis.settings, self.caches, read=read)
            changed = changed_since_read(analysis.suite, read)
        except Exception as exc:  # noqa: BLE001 - the history line says it could not
            self.post_message(WorkFailed(f"could not score the history: {common.describe(exc)}"))
            return
        if get_current_worker().is_cancelled:
            return
        self.post_message(TrendReady(analysis, builds, changed))

    @work(thread=True, exclusive=True, group="filter")
    def apply_filter(self, query: str) -> None:
        review = self.review
        if review is None:
            return
        worker = get_current_worker()
        rows, what = find_rows(review, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(FilterDone(query, rows, review.analysis, what))

    # ------------------------------------------------------------------ messages

    def on_progress(self, message: Progress) -> None:
        percent = f" {message.fraction:.0%}" if message.fraction else "…"
        self.progress = f"{message.text}{percent}"
        if self.analysis is None:
            self.overview.loading_text = self.progress
            self.overview.refresh()
        self.update_status()

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        if message.request is not None:
            if self.asked is None or message.request != self.asked.number:
                return  # a request superseded by a later one: not the comparison asked for now
            self.asked = None
        first, before = self.analysis is None, self.analysis
        # The same comparison again (its texts read again, or computed again from changed
        # files): the cursor stays on its example, and what it warns of was said already.
        again = before is not None and before.settings == message.analysis.settings and self.pair_shown() == (
            message.analysis.figures.baseline.name, message.analysis.figures.candidate.name)
        keep = before.figures.ids[self.table.current] if again and self.table.current is not None else None
        self.analysis = message.analysis
        self.suite = message.analysis.suite
        self.progress = ""
        if self.review is not None and (self.review.baseline, self.review.candidate) != (
            message.analysis.figures.baseline.name, message.analysis.figures.candidate.name
        ):
            self.review = None
        # The same pair: the review follows once this comparison's texts are in (`texts_in`).
        self.matches = None
        self.refs_notice = message.notice or self.refs_notice
        if message.unreadable is not None:
            self.unreadable = (self.pair_shown(), message.unreadable)
        self.overview.show(message.analysis.figures, self.notice())
        self.show_rows()
        if keep is not None and (row := self.row_of_id(keep)) is not None:
            self.table.cursor = row
        for warning in message.analysis.figures.warnings:
            if not again or warning not in before.figures.warnings:
                self.notify(one_line(warning, 300), severity="warning", markup=False, timeout=10)
        if message.reason:
            self.notify(message.reason, markup=False, timeout=4)
        if self.filter_text.strip() and self.texts_in():
            self.apply_filter(self.filter_text)
        self.refresh_bindings()
        if first:
            self.table.focus()

    def on_texts_failed(self, message: TextsFailed) -> None:
        """What waits for the texts will not happen; the next key that needs them reads
        them again (`with_texts`)."""
        if message.analysis is self.analysis:
            self._texts_unread(message.text, self.waiting)

    def _texts_unread(self, text: str, waiting: list[tuple[Callable[[], None], str]]) -> None:
        """The texts of the comparison shown could not be read (``text``: why); ``waiting``
        will not happen."""
        self.texts_failed = text
        self.progress = ""
        self.waiting = []
        undone = "; ".join(dict.fromkeys(then for _, then in waiting))
        self.notify(one_line(f"could not read the texts: {text}" + (f" (not done: {undone})" if undone else "")
                             + "; a key that needs them reads them again", 400),
                    severity="error", markup=False, timeout=15)
        self.overview.show_trend(None, waiting="needs the texts")
        self.update_status()

    def on_texts_ready(self, message: TextsReady) -> None:
        if message.analysis is not self.analysis:
            return  # another comparison came since
        self.texts_failed = None
        self.texts = message.texts
        if self.review is None:
            self.review = Review(message.analysis, message.texts)
            self.app.reviews.append(self.review)
            if self.review.warning:
                self.notify(one_line(self.review.warning, 300), severity="warning", markup=False, timeout=15)
        elif self.review.analysis is not message.analysis:  # the pair shown, scored or read again
            self.review.follow(message.analysis, message.texts)
        self._marks_seen = self._marks_time()
        self.progress = ""
        self.table.refresh()
        self.overview.show_trend(None)
        self.load_trend(message.analysis, message.texts)
        if self.filter_text.strip():
            self.apply_filter(self.filter_text)
        self.update_status()
        waiting, self.waiting = self.waiting, []
        for action, then in waiting:
            if self.app.screen is self:
                action()
            else:  # a screen opened since (the help, the history): not behind its back
                self.notify(f"{then}: not done, another screen was open", markup=False, timeout=4)
        if not waiting:
            self.on_movers_table_moved()

    def on_trend_ready(self, message: TrendReady) -> None:
        if message.analysis is not self.analysis:
            return
        self.trend = (message.analysis, message.trend)
        self.overview.show_trend(message.trend)
        said, self.changed_on_disk = self.changed_on_disk, set(message.changed)
        if self.changed_on_disk and self.changed_on_disk != said:  # (m and t score the texts as read: once)
            names = " and ".join(one_line(name, 40) for name in message.changed)
            self.notify(
                f"{names} changed on disk since {'they were' if len(message.changed) > 1 else 'it was'} read: the "
                "figures shown are of the files as read; enter on the pair in h reads them again",
                severity="warning", markup=False, timeout=15)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.progress = ""
        if self.asked is not None and message.request == self.asked.number:
            # What was asked for will not come, nor will what waits for it happen.
            waiting, self.refused, self.asked, self.waiting = self.waiting, self.asked.step, None, []
            if self.review is None and self.analysis is not None:  # the texts' reading again failed
                self._texts_unread(message.text, waiting)
                return
        if message.fatal and self.analysis is None:
            if self.standalone:  # said by the command line once the screen is gone, unwrapped
                self.app.fatal = message.text
                self.app.exit(return_code=2)
                return
            self.overview.loading_text = f"could not open this suite: {one_line(message.text)}"
            self.overview.refresh()
            self.table.empty_text = "nothing to show (escape: back to the suites)"
            self.table.refresh()
        self.notify(one_line(message.text, 300), severity=message.severity, markup=False, timeout=15)
        self.update_status()

    def on_filter_done(self, message: FilterDone) -> None:
        if message.query != self.filter_text or message.analysis is not self.analysis:
            return
        again = message.query == self.matched_query  # to the comparison read again, or to its texts
        self.matches = message.rows  # type: ignore[assignment]
        self.matched_as, self.matched_query = message.what, message.query
        self.show_rows(keep=again)

    @on(MoversTable.Chosen)
    def chosen(self) -> None:
        self.action_open_diff()

    # ------------------------------------------------------------------ showing

    def show_rows(self, *, keep: bool = False) -> None:
        """The table in the current sort and filter. ``keep``: the example under the cursor
        stays under it, on its new row (the filter cleared or applied again); else, or once
        it is not shown, the cursor is on the first row (after a sort, a switch, a new pair or
        a new filter, the new order starts at the top)."""
        if self.analysis is None:
            return
        current = self.table.current if keep else None
        figures = self.analysis.figures
        view = figures.order(self.sort)
        if self.matches is not None:
            shown = np.zeros(figures.paired, dtype=bool)
            shown[self.matches] = True
            view = view[shown[view]]
        rows = np.flatnonzero(view == current) if current is not None else ()
        self.table.empty_text = "no example matches the filter" if self.matches is not None else "no examples"
        self.table.show(figures, view, rule=self.sort == RANKING and self.matches is None,
                        cursor=int(rows[0]) if len(rows) else 0)
        self.update_status()

    def mark_cell(self, example_id: str) -> MarkCell | None:
        if self.review is None:
            return None
        shown = self.review.get(example_id)
        if shown is None:
            return None
        return MarkCell.of(shown)

    def status_parts(self) -> dict[str, list[str]]:
        """Each part of the status line in its forms, longest first, in the order shown."""
        if self.analysis is None:
            return {}
        f = self.analysis.figures
        parts = {
            "sort": [SORTS[self.sort].words, SORTS[self.sort].short, ""],
            "rows": [f"{self.table.row_count} of {f.paired}", f"{self.table.row_count}/{f.paired}"],
        }
        if self.filter_text:
            query = one_line(self.filter_text, 30)
            parts["filter"] = [f"{self.matched_as or 'filter'} {query!r}", f"{query!r}", f"{one_line(self.filter_text, 12)!r}"]
        if self.review is not None and self.review.shown():
            outside = self.review.outside()
            here = len(self.review.shown()) - outside
            parts["marks"] = [f"{here} marked, {outside} not in this comparison", f"{here} marked +{outside}"
                              ] if outside else [f"{here} marked"]
        elif self.texts_failed is not None:
            parts["marks"] = ["texts unreadable", "no texts"]
        elif self.texts is None:
            parts["marks"] = ["reading texts"]
        left = [(len(f.only_in_baseline), "base only", "base"), (len(f.only_in_candidate), "cand only", "cand"),
                (len(f.missing_reference), "no ref", "no ref")]
        if any(n for n, _, _ in left):
            parts["out"] = [
                "out: " + ", ".join(f"{n} {what}" for n, what, _ in left if n),
                "out: " + ", ".join(f"{n} {short}" for n, _, short in left if n),
                f"{sum(n for n, _, _ in left)} left out",
            ]
        return parts

    def update_status(self) -> None:
        """Progress first (it must not be cut off), then sort, rows, filter, marks and the
        examples left out, shortened by STATUS_STEPS until the line fits."""
        status = self.query_one("#status", Static)
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.progress:
            text.append(self.progress, style="bold")
            text.append("  ")
        parts = self.status_parts()
        chosen = dict.fromkeys(parts, 0)

        def line() -> str:
            return " · ".join(filter(None, (parts[name][chosen[name]] for name in parts)))

        room = self.size.width - status.styles.gutter.width - text.cell_len
        for step in STATUS_STEPS:
            if cell_len(line()) <= room:
                break
            if step in parts:
                chosen[step] = min(chosen[step] + 1, len(parts[step]) - 1)
        text.append(line())
        status.update(text)

    def on_resize(self) -> None:
        self.update_status()

    def current_id(self) -> str | None:
        index = self.table.current
        if self.analysis is None or index is None:
            return None
        return self.analysis.figures.ids[index]

    def marks_changed(self) -> None:
        self.table.refresh()
        self.update_status()
        self._marks_seen = self._marks_time()

    def _marks_time(self) -> float | None:
        try:
            return self.review.store.path.stat().st_mtime if self.review else None
        except OSError:
            return None

    def check_marks(self) -> None:
        """Another session's marks show here within a few seconds of being saved."""
        if self.review is None:
            return
        seen = self._marks_time()
        if seen != self._marks_seen:
            self._marks_seen = seen
            before = {k: (v.word, v.note) for k, v in self.review.shown().items()}
            self.review.reload()
            if self.review.store.lost is not None:
                # Set aside as damaged, or gone: the marks this session holds are written back
                # now, not only with the next mark (the notice says what happened).
                self.app.save_marks(self.review, self, self.marks_changed, "could not write the marks back")
            after = {k: (v.word, v.note) for k, v in self.review.shown().items()}
            if before != after:
                self.table.refresh()
                self.update_status()
                self.notify("marks changed by another session: shown", markup=False, timeout=4)

    def texts_in(self) -> bool:
        """Whether the review is of the comparison shown, its texts read: until then marks,
        notes, diffs and the text filter wait (after a pair is read again, the review holds
        the texts first read until the new ones are in)."""
        return self.review is not None and self.review.analysis is self.analysis

    def with_texts(self, action: Callable[[], None], then: str) -> None:
        """Run ``action`` now if the texts are read, else once they are."""
        if self.texts_in():
            action()
            return
        if self.texts_failed is not None and self.analysis is not None and self.asked is None:
            self.texts_failed = None  # read them again: the file may be whole again
            figures = self.analysis.figures
            self.ask(self.analysis.settings, (figures.baseline.name, figures.candidate.name), "reading the texts again")
        self.waiting.append((action, then))
        pending = self.analysis is not None and self.analysis.figures.pending
        doing = "finding new sentences and figures" if pending else "reading the texts"
        self.notify(f"{doing}… {then} when {'done' if pending else 'they are in'}", markup=False, timeout=3)

    def with_asked(self, action: Callable[[], None], then: str) -> None:
        """`with_texts`, but after the comparison asked for, when one is on its way (or an
        m or t still waits for the texts): a diff opened now would show the numbers of the
        one it replaces."""
        if self.asked is None and not self.waiting:
            self.with_texts(action, then)
            return
        self.waiting.append((lambda: self.with_asked(action, then), then))
        what = self.asked.what if self.asked is not None else "reading the texts"
        self.notify(f"{what}… {then} when it is done", markup=False, timeout=3)

    # ------------------------------------------------------------------ actions

    def diff_query(self) -> str:
        """The filter's text, which a diff shows where it matches (a text filter only)."""
        return searched_text(self.filter_text) if self.matched_as == "text" else ""

    def on_movers_table_moved(self) -> None:
        """Once the cursor rests on a row, its diff is made ahead (enter then shows it at once)."""
        if self._resting is not None:
            self._resting.stop()
        self._resting = self.set_timer(REST, self.rested)

    def rested(self) -> None:
        index = self.table.current
        if self.texts_in() and index is not None and self.app.screen is self:
            self.make_ahead(self.review, self.review.analysis, index, self.diff_query(), self.size.width - 1)

    @work(thread=True, exclusive=True, group="ahead")
    def make_ahead(self, review: Review, analysis: Analysis, index: int, query: str, width: int) -> None:
        from rouge_tui.app.screens.diff import Prepared

        if self.prepared is None:
            self.prepared = Prepared()
        with contextlib.suppress(Exception):  # a failure is said when that diff is opened
            self.prepared.ahead(review, analysis, index, query, width)

    def row_of_id(self, example_id: str) -> int | None:
        """The table row of ``example_id`` in the comparison shown (None: not in it, or not
        shown under the filter)."""
        if self.analysis is None:
            return None
        try:
            return self.table.row_of(self.analysis.figures.ids.index(example_id))
        except ValueError:
            return None

    def push_diff(self, sequence: np.ndarray, position: int, walk: bool) -> None:
        from rouge_tui.app.screens.diff import DiffScreen, Prepared

        if self.prepared is None:
            self.prepared = Prepared()

        def back(example_id: str | None) -> None:
            # The example the diff showed, by id: the ranking may be another since (a metric
            # switched while the diff was open).
            row = None if example_id is None else self.row_of_id(example_id)
            if row is not None:
                self.table.cursor = row
            self.marks_changed()

        assert self.review is not None
        self.app.push_screen(DiffScreen(self.review, sequence, position, walk=walk, query=self.diff_query(), prepared=self.prepared), back)

    def notice(self) -> str | None:
        """The overview's notice for the comparison shown."""
        unreadable = self.unreadable
        said = [self.refs_notice]
        shown = self.pair_shown()
        if unreadable is not None and unreadable[0] == shown:
            said.append(f"newest pair unreadable: {one_line(unreadable[1], 30)} (h)")
        elif self.suite is not None and shown is not None and len(self.suite.builds) >= 2 and (
                shown != tuple(b.name for b in self.suite.builds[-2:])):
            # Only the build names said that another pair than the newest (the one an alert
            # is about) was on screen.
            said.append("not the newest pair (h, end ⏎: the newest)")
        return "; ".join(filter(None, said)) or None

    def pair_shown(self) -> tuple[str, str] | None:
        figures = None if self.analysis is None else self.analysis.figures
        return None if figures is None else (figures.baseline.name, figures.candidate.name)

    def action_open_diff(self) -> None:
        if self.analysis is None:
            self.notify("the suite is still loading: enter opens a diff once the table shows", markup=False, timeout=3)
            return
        if self.table.current is None:
            return
        analysis, view, cursor, pair = self.analysis, self.table.view, self.table.cursor, self.pair_shown()
        example_id = analysis.figures.ids[self.table.current]

        def open_it() -> None:
            if self.analysis is analysis:
                self.push_diff(view, cursor, walk=False)
                return
            if self.pair_shown() != pair:  # another build pair: its own rows, from where the cursor is now
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

        self.with_asked(open_it, "the diff opens")

    def action_walk(self) -> None:
        if self.analysis is None:
            self.notify("the suite is still loading: w walks the ten once the table shows", markup=False, timeout=3)
            return

        def walk() -> None:
            assert self.analysis is not None
            figures = self.analysis.figures  # the ten most-moved, then the flagged (SPEC "Triage")
            flagged = [row for row, _ in figures.flagged_after(figures.ten)]
            self.push_diff(np.asarray([*range(figures.ten), *flagged], dtype=np.int64), 0, walk=True)

        self.with_asked(walk, "the walk starts")

    def action_mark(self, word: str) -> None:
        example_id = self.current_id()
        if example_id is not None:
            self.with_texts(lambda: common.mark(self, self.review, example_id, word, self.marks_changed), "the mark is set")

    def action_note(self) -> None:
        example_id = self.current_id()
        if example_id is not None:
            self.with_texts(lambda: common.edit_note(self, self.review, example_id, self.marks_changed), "the note opens")

    def action_clear_mark(self) -> None:
        example_id = self.current_id()
        if example_id is not None:
            self.with_texts(lambda: common.clear(self, self.review, example_id, self.marks_changed), "the mark can be cleared")

    def action_export(self) -> None:
        self.with_texts(lambda: self.app.export(self, self.review), "the export is written")

    def action_sort(self) -> None:
        sorts = self.analysis.figures.sorts() if self.analysis is not None else [RANKING]
        self.sort = sorts[(sorts.index(self.sort) + 1) % len(sorts)] if self.sort in sorts else RANKING
        self.show_rows()  # from its first row: the example under the cursor stayed, far down

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.add_class("-shown")
        self.set_focus(box)  # now, not after the keys already read (as ``box.focus()`` does)

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        if not event.value.strip():
            self.matches, self.matched_as, self.matched_query = None, "", ""
            self.show_rows(keep=True)
            return
        self.with_texts(lambda: self.apply_filter(self.filter_text), "the filter applies")

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    def action_back(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_class("-shown") or self.filter_text:
            box.value = ""
            box.remove_class("-shown")
            self.filter_text, self.matches, self.matched_as, self.matched_query = "", None, "", ""
            self.table.focus()
            self.show_rows(keep=True)
            return
        if not self.standalone:
            self.dismiss(None)

    def settings_asked(self) -> Settings:
        """The settings of the comparison on its way, else of the one shown."""
        assert self.analysis is not None
        return self.analysis.settings if self.asked is None else self.asked.settings

    def action_metric(self) -> None:
        self._cycle("metric", list(METRICS), "the metric switches")

    def action_tokenizer(self) -> None:
        self._cycle("tokenizer", list(TOKENIZERS), "the tokenizer switches")

    def _cycle(self, setting: str, names: list[str], then: str) -> None:
        """The next of ``names`` for ``setting`` (m, t), once the texts are read: after the
        one asked for last (a second m typed before the first one's scores are in steps on
        from the first) or refused, else the one shown; the build pair asked for stays."""
        def step() -> None:
            base = self.settings_asked()
            now = self.refused[1] if self.refused and self.refused[0] == setting else getattr(base, setting)
            value = names[(names.index(now) + 1) % len(names)]
            settings = base.switched(**{setting: value})
            what = f"scoring {settings.metric} ({settings.tokenizer})"
            self.notify(f"{what}…", markup=False, timeout=2)
            self.ask(settings, self.asked.pair if self.asked else None, what, (setting, value))

        self.with_texts(step, then)

    def action_history(self) -> None:
        self.with_texts(self._history, "the history opens")

    def _history(self) -> None:
        from rouge_tui.app.screens.history import HistoryScreen

        assert self.review is not None and self.analysis is not None

        def chosen(pair: tuple[str, str] | None) -> None:
            shown = self.pair_shown()
            if pair and shown and pair != (self.asked.pair if self.asked and self.asked.pair else shown):
                self.ask(self.settings_asked(), pair, f"comparing {common.pair_text(pair)}")
            elif pair and pair == shown and self.asked is None and self.changed_on_disk & set(pair):
                self.ask(self.settings_asked(), pair, f"reading {common.pair_text(pair)} again")
            elif pair and pair == shown:
                self.notify(f"{common.pair_text(pair)} is the comparison shown", markup=False, timeout=3)

        # The builds the overview's history line was made from, when they are this comparison's:
        # the view shows them at once, not scored again (30 builds of 10,000, tmux at 80x24:
        # the figures on screen by 0.46 s before, by 0.22 s now, capture-pane 0.11 s apart).
        known = self.trend[1] if self.trend is not None and self.trend[0] is self.analysis else None
        self.app.push_screen(HistoryScreen(self.review, self.caches, known, frozenset(self.changed_on_disk)), chosen)
