"""The Textual app: holds the arguments, opens the first screen, quits, exports, and ends on a
hang-up without waiting for a terminal that is gone."""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from textual.actions import ActionParseResult
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen

from rouge_tui.app.screens.common import ConfirmScreen, NoteScreen, describe
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.screens.suites import SuitesScreen
from rouge_tui.review import Review
from rouge_tui.safetext import one_line
from rouge_tui.store.paths import config_dir
from rouge_tui.suite.errors import SuiteError
from rouge_tui.suite.settings import read_user_defaults

# After SIGTERM the app exits as `q` does; if it has not within this many seconds, it goes.
TERM_GRACE = 3.0


def path_lines(path: str, width: int = 60) -> str:
    """A path over lines of at most ``width`` characters, broken only after a ``/`` (a
    notification breaks long lines anywhere, mid-name included)."""
    home = str(Path.home())
    if path.startswith(home + "/"):
        path = "~" + path[len(home):]
    lines, line = [], ""
    for part in one_line(path).split("/"):
        piece = part + "/"
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(lines).rstrip("/")


class RougeApp(App[None]):
    """rouge-tui: one suite's review, or a list of suites to pick from."""

    CSS_PATH = "rouge_tui.tcss"
    TITLE = "rouge-tui"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("Q", "quit", "quit", id="quit"),  # q is each screen's own (it closes a view)
        Binding("question_mark", "help", "help", id="help"),
    ]

    def __init__(self, suites: Sequence[Path], options: argparse.Namespace | None = None) -> None:
        super().__init__()
        self.suites = [Path(p) for p in suites]
        self.options = options or argparse.Namespace()
        self.reviews: list[Review] = []  # every review opened, for the unsaved-marks check
        self.exported: list[Path] = []  # said again on stderr when the app exits
        self.fatal: str | None = None  # why the app could not open its suite
        self.exports: list[threading.Thread] = []  # the reviews being written, joined at exit
        self.export_failures: list[str] = []  # said again on stderr when the app exits
        self.ending = False  # exit() was called: the keys still queued do nothing
        self.last_said: tuple[tuple[str, str, str] | None, float] = (None, 0.0)  # a toast, until when

    def notify(self, message: str, *, title: str = "", severity="information",
               timeout: float | None = None, markup: bool = True) -> None:
        """The toast just said, said again while it still shows, is not stacked under itself
        (`]` pressed eight times past the last change piled six over the diff text); any
        other comes, so the newest toast always says the latest (g b g: fine again)."""
        now = time.monotonic()
        key = (message, title, severity)
        if severity != "error" and self.last_said[0] == key and self.last_said[1] > now:
            return  # (an error again is said again: a retry that failed must say so)
        self.last_said = (key, now + (self.NOTIFICATION_TIMEOUT if timeout is None else timeout))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        self._end_on_hang_up_or_term()
        try:  # config.toml's theme, one of Textual's (the rest of the file is the settings')
            theme = read_user_defaults(config_dir() / "config.toml", themes=list(self.available_themes)).theme
        except SuiteError as exc:  # said by the command line once the screen is gone
            self.fatal = describe(exc)
            self.exit(return_code=2)
            return
        if theme is not None:
            self.theme = theme
        if len(self.suites) == 1:
            self.push_screen(ReviewScreen(self.suites[0], self.options, standalone=True))
        else:
            self.push_screen(SuitesScreen(self.suites, self.options))

    # ------------------------------------------------------------------ ending

    def _end_on_hang_up_or_term(self) -> None:
        """SIGHUP (the SSH session dropped): the terminal is gone, so nothing is drawn or
        restored; a note being typed is saved as it stands, what a failed save left unsaved
        is tried once more, then the process ends.
        The handler is Python's, not the event loop's: it runs even while the loop is stuck
        writing to the dead terminal (Textual's writer queue fills and blocks it).
        SIGTERM: the terminal is there, so the app saves as for SIGHUP and exits as ``q``
        does, within TERM_GRACE."""
        if threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGHUP, self._hang_up)
        signal.signal(signal.SIGTERM, self._terminate)

    def _save_unsaved(self) -> None:
        for screen in self.screen_stack:  # a note being typed is saved as it stands
            if isinstance(screen, NoteScreen):
                try:
                    screen.keep_typed()
                except (OSError, ValueError):
                    pass
        for review in self.reviews:
            try:
                review.store.flush()
            except (OSError, ValueError):
                pass

    def _hang_up(self, signum: int, frame: object) -> None:
        self._save_unsaved()
        os._exit(128 + signum)

    def _terminate(self, signum: int, frame: object) -> None:
        self._save_unsaved()
        timer = threading.Timer(TERM_GRACE, os._exit, (128 + signum,))
        timer.daemon = True
        timer.start()
        self.call_later(self.exit, None, 128 + signum)

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        self.ending = True
        super().exit(result, return_code, message)

    async def run_action(
        self, action: str | ActionParseResult, default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        """Every key's action, unless the app is ending: `q` and `c` in one burst would open
        the note screen while the app closes (and crash as it mounts)."""
        if self.ending:
            return False
        return await super().run_action(action, default_namespace, namespaces)

    async def action_quit(self) -> None:
        unsaved = sum(review.store.unsaved for review in self.reviews)
        # ctrl+q reaches here from a note editor too: what is typed there is not saved yet.
        typing = any(isinstance(screen, NoteScreen) and screen.typed for screen in self.screen_stack)
        if not unsaved and not typing:
            self.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(return_code=1 if unsaved else 0)

        lost = []
        if typing:
            lost.append("The note you are typing is not saved (ctrl+s saves it).")
        if unsaved:
            lost.append(f"{unsaved} mark or note change{'s' * (unsaved != 1)} could not be saved "
                        "(the save failed; mark again to retry).")
        self.push_screen(ConfirmScreen(" ".join(lost) + " Quit and lose what is not saved?"), answer)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # ------------------------------------------------------------------ the export

    def export(self, screen: Screen, review: Review) -> None:
        """Write the review (Markdown and HTML) in a thread and say where; ``e`` again says
        it again, and the app says it on stderr when it exits. A plain thread, not a worker:
        it always runs to its end, and the exit waits for it (`finish_exports`)."""
        from rouge_tui.export import export_review

        def tell(message: str, **options: object) -> None:
            # App.notify posts a message (thread-safe, never waits for the loop, which may
            # have stopped by now: then stderr says it, cli.cmd_open).
            self.notify(message, markup=False, **options)

        def work() -> None:
            try:
                paths = export_review(review)
            except Exception as exc:  # noqa: BLE001 - whatever went wrong, say it and go on
                self.export_failures.append(f"export failed: {describe(exc)}")
                tell(f"export failed: {describe(exc)}", severity="error")
                return
            self.exported = [p for p in self.exported if p not in paths] + list(paths)
            folder = path_lines(str(paths[0].parent) + "/")
            files = "\n".join(one_line(p.name) for p in paths)
            tell(f"review written to\n{folder}\n{files}", title="exported", timeout=15)

        screen.notify("writing the review…", markup=False, timeout=2)
        thread = threading.Thread(target=work, name="export")
        self.exports.append(thread)
        thread.start()

    def finish_exports(self, timeout: float = 60.0) -> None:
        """Wait for every review still being written (the exit says where each went)."""
        for thread in self.exports:
            thread.join(timeout)
