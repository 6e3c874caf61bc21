"""The Textual app: holds the arguments, opens the first screen, quits on ``q``.

Screens own their bindings and layout (rouge_tui/app/screens/); the review state lives in
rouge_tui/app/session.py, which does not import Textual.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.screens.suites import SuiteListScreen


class RougeApp(App[None]):
    """rouge-tui: one suite's review, or a list of suites to pick from."""

    CSS_PATH = "rouge_tui.tcss"
    TITLE = "rouge-tui"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", id="quit"),
        Binding("question_mark", "help", "help", id="help"),
    ]

    def __init__(self, suites: Sequence[Path], options: argparse.Namespace | None = None) -> None:
        super().__init__()
        self.suites = [Path(path) for path in suites]
        self.options = options if options is not None else argparse.Namespace()

    def on_mount(self) -> None:
        from rouge_tui.state import load_user_defaults

        defaults, _ = load_user_defaults()  # a bad config file is reported when the suite loads
        if defaults.theme and defaults.theme in self.available_themes:
            self.theme = defaults.theme
        if len(self.suites) == 1:
            self.push_screen(ReviewScreen(self.suites[0], self.options, standalone=True))
        else:
            self.push_screen(SuiteListScreen(self.suites, self.options))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
