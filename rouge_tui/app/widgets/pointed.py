"""A list whose highlighted row starts with ▶, as the review table's does: colour alone did
not say which row space or enter acts on (NO_COLOR, a monochrome terminal, a screen read as
text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

POINTER = "▶ "


class PointedList(OptionList):
    """Rows given as prompts (`show`); each is drawn after two columns that hold `POINTER` on
    the highlighted row."""

    BINDINGS: ClassVar[list[BindingType]] = [  # as in less and vim (and the review table)
        Binding("g", "first", "first", show=False),
        Binding("G", "last", "last", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompts: list[Text] = []

    def show(self, prompts: Sequence[Text], highlighted: int | None = None) -> None:
        """These rows, with the cursor on ``highlighted`` (else where it was, else the first)."""
        at = highlighted if highlighted is not None else self.highlighted
        self.prompts = list(prompts)
        self.clear_options()
        self.add_options([Option(self.pointed(number, False)) for number in range(len(self.prompts))])
        if self.prompts:
            self.highlighted = min(at or 0, len(self.prompts) - 1)

    def pointed(self, number: int, here: bool) -> Text:
        return Text.assemble(POINTER if here else " " * len(POINTER), self.prompts[number])

    def watch_highlighted(self, before: int | None, now: int | None) -> None:
        for number, here in ((before, False), (now, True)):
            if number is not None and number < min(self.option_count, len(self.prompts)):
                self.replace_option_prompt_at_index(number, self.pointed(number, here))
        super().watch_highlighted(now)
