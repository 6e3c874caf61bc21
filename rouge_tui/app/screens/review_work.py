"""The review screen's work off the UI thread: each worker runs a step of the screen's
`Session` (rouge_tui/session.py) in a thread and posts what came of it as a message
(app/messages.py), so the keys go on answering while a big suite is read and scored."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

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
from rouge_tui.review import find_rows
from rouge_tui.session import Asked, Session

if TYPE_CHECKING:
    from rouge_tui.analysis.pipeline import Analysis

PROGRESS_EVERY = 0.2  # seconds between two progress messages while scoring

_pauses = 0  # workers holding the collector paused (`collector_paused`)
_was_on = True  # whether the collector was on when the first of them paused it
_pauses_lock = threading.Lock()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a worker reads, scores and compares a
    suite, as it was again once the last such worker is done (the report's is off throughout,
    `cli.main`). Its full passes walk every list of the suite's ids and texts, and come more
    often the more the scoring makes: their cost grows with the square of the suite's size.
    Machinery kept for the 1M first frame (benchmarks/README.md, "The app's first frame, cold")."""
    global _pauses, _was_on
    with _pauses_lock:
        if not _pauses:
            _was_on = gc.isenabled()
        _pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if not _pauses and _was_on:  # as the first found it: off stays off
                gc.enable()


class Workers:
    """The review screen's workers (a part of `ReviewScreen`, which has the session)."""

    session: Session

    def _progress(self) -> Callable[[str, float], None]:
        worker = get_current_worker()
        last = [0.0]

        def tell(stage: str, fraction: float) -> None:
            if worker.is_cancelled:
                raise InterruptedError
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY or fraction == 0.0:
                last[0] = now
                self.post_message(ProgressMade(stage, fraction))

        return tell

    def _texts_of(self, analysis: Analysis) -> None:
        """The texts of ``analysis``, whose figures are on screen (or on their way): a file
        that cannot be read now (changed or removed since the figures were cached) leaves
        those figures shown and says why (`on_texts_failed`)."""
        if not analysis.texts.done():
            self.post_message(ProgressMade("reading the texts"))
        try:
            analysis, texts, again = self.session.read_texts(analysis, self._progress())
            if again:
                self.post_message(AnalysisReady(analysis, "the files changed since their figures were cached: computed again"))
        except InterruptedError:
            raise
        except Exception as exc:  # noqa: BLE001 - one line, and the figures stay
            self.post_message(TextsFailed(analysis, common.describe(exc)))
            return
        self.post_message(TextsReady(analysis, texts))

    def ask(self, settings, pair: tuple[str, str] | None, what: str, step: tuple[str, str] | None = None) -> None:
        """Compare again under ``settings`` (and the build ``pair``, None: the pair shown):
        what the screen now waits for; any asked before it is superseded."""
        self.compare(self.session.ask(settings, pair, what, step))

    def compare(self, asked: Asked) -> None:
        self.rescore(asked.settings, asked.pair, asked.number)

    @work(thread=True, exclusive=True, group="analysis")
    def rescore(self, settings, pair: tuple[str, str] | None, asked: int) -> None:
        """Score again under other settings (same texts) or another build pair."""
        try:
            with collector_paused():
                analysis, said, texts = self.session.compare(settings, pair, self._progress())
            self.post_message(AnalysisReady(analysis, said, asked=asked))
            if texts is not None:
                self.post_message(TextsReady(analysis, texts))
            else:
                self._texts_of(analysis)
        except InterruptedError:
            return
        except Exception as exc:  # noqa: BLE001
            self.post_message(WorkFailed(common.describe(exc), asked=asked))

    @work(thread=True, exclusive=True, group="trend")
    def load_trend(self, analysis: Analysis, texts) -> None:
        """Every build scored (through the caches) for the overview's history line, the two
        compared as they were read; a compared file changed since is said."""
        try:
            builds, changed = self.session.history(analysis, texts)
        except Exception as exc:  # noqa: BLE001 - the history line says it could not
            self.post_message(WorkFailed(f"could not score the history: {common.describe(exc)}"))
            return
        if get_current_worker().is_cancelled:
            return
        self.post_message(TrendReady(analysis, builds, changed))

    @work(thread=True, exclusive=True, group="filter")
    def apply_filter(self, query: str) -> None:
        review = self.session.review
        if review is None:
            return
        worker = get_current_worker()
        rows, what = find_rows(review, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(FilterDone(query, rows, review.analysis, what))
