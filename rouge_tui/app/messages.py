"""What the app's workers post back to its screens (``post_message`` is thread-safe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from rouge_tui.analysis.pipeline import Analysis, Texts


@dataclass
class ProgressMade(Message):
    """Reading or scoring has got this far (``fraction`` 0..1, None when unknown). A flood
    of them collapses into the latest in the queue."""

    text: str
    fraction: float | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ProgressMade)


@dataclass
class AnalysisReady(Message):
    """A comparison to show (the first, or one for other settings or builds)."""

    analysis: Analysis
    reason: str = ""
    notice: str | None = None  # for the overview's first line (the references changed)
    unreadable: str | None = None  # one of the newest two builds, left out as it cannot be read
    asked: int | None = None  # the number of the comparison asked for (m, t, h) it answers


@dataclass
class TextsReady(Message):
    """The texts of the comparison shown (``analysis``) are read."""

    analysis: Analysis
    texts: Texts


@dataclass
class TextsFailed(Message):
    """The texts of the comparison shown (``analysis``) could not be read; ``text`` says why
    in one line."""

    analysis: Analysis
    text: str


@dataclass
class WorkFailed(Message):
    """A worker could not do its job; ``text`` is one line for a person."""

    text: str
    fatal: bool = False
    severity: str = "error"  # or "warning": said, and the work goes on
    asked: int | None = None  # the number of the comparison asked for (m, t, h) that will not come


@dataclass
class FilterDone(Message):
    """The rows (ranked indices) matching ``query`` in ``analysis``'s ranking."""

    query: str
    rows: object  # np.ndarray of ranked indices
    analysis: Analysis
    what: str  # how the query was read: "text", "signal trunc", "mark fine"


@dataclass
class TrendReady(Message):
    """Every build of the suite scored, for the settings of ``analysis``."""

    analysis: Analysis
    trend: list  # rouge_tui.analysis.history.HistoryRow, in history order
    changed: tuple[str, ...] = ()  # compared builds whose files changed since they were read


@dataclass
class MarksSaved(Message):
    """A save of the marks (`RougeApp.save_marks`) is over: ``error`` says why it failed
    (the changes stay in the session), ``notice`` what the user should know (another
    session's mark, a file damaged from outside); ``then`` runs if ``screen`` still shows."""

    screen: object | None  # the screen the change was made on
    then: object | None  # Callable[[], None]
    done: str | None = None  # said once saved
    notice: str | None = None
    error: str | None = None


@dataclass
class ReviewWritten(Message):
    """An export (`RougeApp.export`) wrote these files: in a browser (`serve`), they are
    handed to it as downloads, the server's folder being out of the user's reach."""

    paths: list
