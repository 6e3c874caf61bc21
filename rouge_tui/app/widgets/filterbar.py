"""The movers table's filter box: hidden until `/`, it holds an id, a text, a signal or a mark."""

from __future__ import annotations

from textual.widgets import Input

from rouge_tui.store.marks import MARKS

PLACEHOLDER = f"filter: id or text, a signal (trunc), a mark ({next(iter(MARKS))}) · ⏎ keeps, esc clears"


class FilterBar(Input):
    """An input shown on `/` (the ``-shown`` class), emptied and hidden on escape."""

    def __init__(self, *, id: str = "filter") -> None:
        super().__init__(placeholder=PLACEHOLDER, id=id)

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def open(self) -> None:
        self.add_class("-shown")
        self.screen.set_focus(self)  # now, not after the keys already read (as ``focus()`` does)

    def close(self) -> None:
        self.value = ""
        self.remove_class("-shown")
