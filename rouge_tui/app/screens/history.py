"""The suite's builds: pick any two to compare; a broken build is listed with its error."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rouge_tui.app.screens import common
from rouge_tui.app.widgets.keybar import KeyBar
from rouge_tui.app.widgets.overview import shorten_names
from rouge_tui.safetext import one_line
from rouge_tui.suite import Suite


class HistoryScreen(Screen[tuple[str, str] | None]):
    """``space`` picks a build (the first picked is the baseline, the second the candidate);
    ``enter`` compares the two picked, or the build under the cursor with the one before it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *common.APP_BINDINGS,
        Binding("enter", "compare", "compare", id="compare"),
        Binding("space", "pick", "pick", id="pick"),
        Binding("escape", "back", "back", id="back"),
        Binding("j", "down", "down", show=False),
        Binding("k", "up", "up", show=False),
    ]

    def __init__(self, suite: Suite, pair: tuple[str, str]) -> None:
        super().__init__()
        self.suite = suite
        self.pair = pair
        self.picked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(id="history-title")
        yield OptionList(id="builds")
        yield KeyBar()

    def on_mount(self) -> None:
        self.fill()
        names = [b.name for b in self.suite.builds]
        builds = self.query_one(OptionList)
        builds.highlighted = names.index(self.pair[1]) if self.pair[1] in names else 0
        builds.focus()

    def fill(self) -> None:
        width = max(self.size.width - 30, 20)
        names = shorten_names([b.name for b in self.suite.builds], width)
        builds = self.query_one(OptionList)
        highlighted = builds.highlighted
        builds.clear_options()
        for entry, name in zip(self.suite.builds, names):
            role = "B" if entry.name == self.pair[0] else "C" if entry.name == self.pair[1] else " "
            pick = f"{self.picked.index(entry.name) + 1}" if entry.name in self.picked else " "
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(f"{role}{pick} ", style="bold")
            line.append(name.ljust(width))
            line.append(f"  {len(entry.run_files)} run{'s' * (len(entry.run_files) != 1)}")
            if entry.problem is not None:
                line.append(f"  ✗ {one_line(str(entry.problem), 200)}", style="bold red")
            builds.add_option(Option(line, id=entry.name))
        if highlighted is not None:
            builds.highlighted = highlighted
        picked = " → ".join(one_line(p, 30) for p in self.picked) or "none"
        self.query_one("#history-title", Static).update(
            Text(f"{one_line(self.suite.name, 40)}: {len(self.suite.builds)} builds · B baseline, C candidate now · picked: {picked}", no_wrap=True, overflow="ellipsis")
        )

    def _current(self) -> str | None:
        builds = self.query_one(OptionList)
        if builds.highlighted is None:
            return None
        return self.suite.builds[builds.highlighted].name

    def action_pick(self) -> None:
        name = self._current()
        if name is None:
            return
        if name in self.picked:
            self.picked.remove(name)
        else:
            self.picked = [*self.picked[-1:], name]
        self.fill()

    def action_compare(self) -> None:
        if len(self.picked) == 2:
            self.dismiss((self.picked[0], self.picked[1]))
            return
        name = self._current()
        names = [b.name for b in self.suite.builds]
        if name is None or names.index(name) == 0:
            self.notify("pick two builds with space, or stand on a build that has one before it", markup=False, timeout=4)
            return
        self.dismiss((names[names.index(name) - 1], name))

    def action_back(self) -> None:
        self.dismiss(None)

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()
