"""The Textual app: holds the arguments, opens the first screen, quits on ``q``.

Screens own their bindings and layout (rouge_tui/app/screens/); the review state lives in
rouge_tui/app/session.py, which does not import Textual.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from rouge_tui.app.prefetch import Prefetch
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.screens.suites import SuiteListScreen
from rouge_tui.gcpause import end_startup, hold_full_passes
from rouge_tui.snapshot import open_options


class RougeApp(App[None]):
    """rouge-tui: one suite's review, or a list of suites to pick from."""

    CSS_PATH = "rouge_tui.tcss"
    TITLE = "rouge-tui"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", id="quit"),
        Binding("question_mark", "help", "help", id="help"),
    ]

    def __init__(
        self,
        suites: Sequence[Path],
        options: argparse.Namespace | None = None,
        prefetch: Prefetch | None = None,
    ) -> None:
        super().__init__()
        self.suites = [Path(path) for path in suites]
        self.options = options if options is not None else argparse.Namespace()
        # A big suite's first analysis runs in a forked process while Textual starts (forking
        # is only safe before its threads run): see rouge_tui/app/prefetch.py. `rouge-tui`
        # starts it before importing Textual and passes it in; else it starts here.
        self.prefetch = prefetch
        if prefetch is None and len(self.suites) == 1:
            self.prefetch = Prefetch.start(self.suites[0], open_options(self.options)[0])
        self._prefetched = self.prefetch  # stopped on exit, even after a screen took it
        self._collector_thresholds = gc.get_threshold()

    def take_prefetch(self) -> Prefetch | None:
        """The prefetched first analysis, once: later loads score in-process."""
        prefetch, self.prefetch = self.prefetch, None
        return prefetch

    # An SSH connection that drops sends SIGHUP; a shutdown or `kill` sends SIGTERM.
    EXIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)

    def on_mount(self) -> None:
        from rouge_tui.state import load_user_defaults

        end_startup()
        self._collector_thresholds = hold_full_passes()  # restored on unmount
        self._handle_exit_signals()

        defaults, _ = load_user_defaults()  # a bad config file is reported when the suite loads
        if defaults.theme and defaults.theme in self.available_themes:
            self.theme = defaults.theme
        if len(self.suites) == 1:
            self.push_screen(ReviewScreen(self.suites[0], self.options, standalone=True))
        else:
            self.push_screen(SuiteListScreen(self.suites, self.options))

    def _handle_exit_signals(self) -> None:
        """End the app on SIGHUP or SIGTERM the way ``q`` does, so the terminal is restored
        (Textual 8 leaves both to Python's default, which dies in the alternate screen).
        Marks and notes are on disk already: each is saved when it is made. The exit status
        is 128 + the signal's number, as a shell reports a process ended by it."""
        loop = asyncio.get_running_loop()
        for signum in self.EXIT_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self.exit, None, 128 + signum)

    def on_unmount(self) -> None:
        gc.set_threshold(*self._collector_thresholds)
        if self._prefetched is not None:
            self._prefetched.cancel()
        loop = asyncio.get_running_loop()
        for signum in self.EXIT_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
