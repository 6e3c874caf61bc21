"""What the table screen and the diff screen share: marking, notes and the export."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.binding import Binding
from textual.screen import Screen

from rouge_tui.app.session import Review
from rouge_tui.safetext import one_line

# First in every screen's bindings so the footer always has room for them.
APP_BINDINGS = [
    Binding("question_mark", "app.help", "help", id="help"),
    Binding("q", "app.quit", "quit", id="quit"),
]

MARK_BINDINGS = [
    Binding("g", "mark('fine')", "fine", id="mark-fine"),
    Binding("b", "mark('regression')", "regr", id="mark-regression"),
    Binding("u", "mark('unsure')", "unsure", id="mark-unsure"),
    Binding("c", "note", "note", id="note"),
    Binding("x", "clear_mark", "clear mark", id="clear-mark", show=False),
    Binding("e", "export", "export", id="export"),
]


# Examples whose texts (outputs and references) hold at most this many characters are diffed
# on the spot, before the next frame: two 2,000-word outputs and their reference are about
# 40,000 and take some 30 ms (rougeL). A worker would only add an empty frame and a second
# layout (the model is pure Python: a thread does not run beside the drawing, it takes turns).
INLINE_CHARS = 60_000
# How long the cursor rests on a row before its diff is made in the background.
WARM_AFTER = 0.25


class Throttle:
    """Lets a thing happen at most once every ``interval`` seconds (or when forced)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._last: float | None = None

    def ready(self, force: bool = False) -> bool:
        now = self.clock()
        if force or self._last is None or now - self._last >= self.interval:
            self._last = now
            return True
        return False


def warm_diff(screen: Screen, review: Review, index: int) -> None:
    """Make ranked example ``index``'s diff model in a thread (`Review.diff_model`), so that
    opening it only draws: the row the cursor rests on, the next step of a walk. Only for
    examples small enough to be diffed on the spot; a failure is left for the open to tell."""

    def warm() -> None:
        try:
            example_id = review.comparison.ids[index]
            baseline, candidate = review.outputs(example_id)
            size = sum(map(len, review.references(example_id))) + len(baseline) + len(candidate)
            if size <= INLINE_CHARS:
                review.diff_model(example_id)
        except Exception:  # noqa: BLE001, S110 - opening the diff says what failed
            pass

    screen.run_worker(warm, thread=True, exclusive=True, group="warm", name="warm diff")


def describe_error(exc: BaseException) -> str:
    """One line for a person: the message, or the exception's name when it has none."""
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, (ValueError, OSError)) and type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}"
    return one_line(text, 300)


def mark_example(
    screen: Screen, review: Review, example_id: str, mark: str, after: Callable[[], None]
) -> None:
    """Record ``mark`` for ``example_id`` and say so (ids are untrusted: no markup)."""
    try:
        notice = review.set_mark(example_id, mark)
    except OSError as exc:
        screen.notify(
            f"could not save the mark (kept in this session; mark again to retry): "
            f"{describe_error(exc)}",
            severity="error",
            markup=False,
        )
        after()  # the mark stays in memory: show it
        return
    after()
    screen.notify(f"{one_line(example_id, 40)}: {mark}", markup=False, timeout=2)
    if notice:
        screen.notify(one_line(notice, 200), severity="warning", markup=False)


def clear_example(
    screen: Screen, review: Review, example_id: str, after: Callable[[], None]
) -> None:
    if review.mark_of(example_id) is None:
        screen.notify("no mark to clear", markup=False, timeout=2)
        return
    try:
        review.clear_mark(example_id)
    except OSError as exc:
        screen.notify(
            f"could not save clearing the mark (kept in this session; retry): "
            f"{describe_error(exc)}",
            severity="error",
            markup=False,
        )
        after()
        return
    after()
    screen.notify(f"{one_line(example_id, 40)}: mark and note cleared", markup=False, timeout=2)


def edit_note(screen: Screen, review: Review, example_id: str, after: Callable[[], None]) -> None:
    """Open the note editor for ``example_id``; saving records the note (and keeps the mark)."""
    from rouge_tui.app.screens.note import NoteScreen

    current = review.mark_of(example_id)

    def save(note: str | None) -> None:
        if note is None:
            return
        try:
            notice = review.set_mark(example_id, None, note)
        except OSError as exc:
            screen.notify(
                f"could not save the note (kept in this session; c and enter to retry): "
                f"{describe_error(exc)}",
                severity="error",
                markup=False,
            )
            after()  # the note stays in memory and comes back in the editor
            return
        after()
        mark = review.mark_of(example_id)
        screen.notify(
            f"note saved for {one_line(example_id, 40)} ({mark.mark if mark else 'unmarked'})",
            markup=False,
            timeout=2,
        )
        if notice:
            screen.notify(one_line(notice, 200), severity="warning", markup=False)

    screen.app.push_screen(NoteScreen(example_id, current.note if current else ""), save)


def export_review(screen: Screen, review: Review) -> None:
    """Write the Markdown review in a worker thread and say where it went."""

    def work() -> None:
        try:
            path = review.export()
        except Exception as exc:  # noqa: BLE001 - whatever went wrong, say it and keep running
            screen.app.call_from_thread(
                screen.notify,
                f"export failed: {describe_error(exc)}",
                severity="error",
                markup=False,
            )
            return
        screen.app.call_from_thread(
            screen.notify,
            f"review written to {one_line(str(path))}",
            title="exported",
            markup=False,
            timeout=8,
        )

    screen.notify("exporting the review…", markup=False, timeout=2)
    screen.run_worker(work, thread=True, group="export", name="export")
