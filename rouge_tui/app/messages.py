"""Messages that workers post back to the screens (``post_message`` is thread-safe).

Progress messages replace each other in the queue, so a flood of updates from a fast worker
collapses into the latest one instead of backing up the screen (as Toolong's ``messages.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from textual.message import Message

if TYPE_CHECKING:
    from rouge_tui.app.session import Review, SuiteSummary
    from rouge_tui.scoring import Analysis


class WorkProgress(Message):
    """Loading or scoring has got this far (``fraction`` in 0..1, or None when unknown)."""

    def __init__(self, text: str, fraction: float | None = None) -> None:
        super().__init__()
        self.text = text
        self.fraction = fraction

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WorkProgress)


class ReviewLoaded(Message):
    """A suite is loaded and its default pair analysed."""

    def __init__(self, review: Review) -> None:
        super().__init__()
        self.review = review


class AnalysisDone(Message):
    """A re-scoring (metric, tokenizer or build pair) finished."""

    def __init__(
        self, analysis: Analysis, reason: str, query: str = "", matches: np.ndarray | None = None
    ) -> None:
        super().__init__()
        self.analysis = analysis
        self.reason = reason
        self.query = query  # the filter when scoring finished, and its rows in the new ranking
        self.matches = matches


class WorkFailed(Message):
    """A worker could not do its job; ``text`` is a one-line, user-facing explanation."""

    def __init__(self, text: str, fatal: bool = False) -> None:
        super().__init__()
        self.text = text
        self.fatal = fatal


class FilterDone(Message):
    """The rows matching a filter query (``None``: no filter)."""

    def __init__(self, query: str, matches: np.ndarray | None, comparison: object) -> None:
        super().__init__()
        self.query = query
        self.matches = matches
        self.comparison = comparison  # the ranking the matches index into


class SuiteSummarised(Message):
    """One suite of the list has its build count and newest verdict."""

    def __init__(self, index: int, summary: SuiteSummary) -> None:
        super().__init__()
        self.index = index
        self.summary = summary


class DiffReady(Message):
    """The diff of ranked example ``index`` is computed (``diff`` and ``rows`` from rouge_tui.diff)."""

    def __init__(self, index: int, diff: object, rows: list) -> None:
        super().__init__()
        self.index = index
        self.diff = diff
        self.rows = rows
