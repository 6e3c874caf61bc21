"""A small modal to write the note attached to an example's mark."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from rouge_tui.safetext import one_line

NOTE_LIMIT = 2000


class NoteScreen(ModalScreen[str | None]):
    """Edit one note: enter saves (an empty note removes it), escape leaves it as it was."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel", id="cancel")]

    def __init__(self, example_id: str, note: str) -> None:
        super().__init__()
        self.example_id = example_id
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Static(Text(f"Note for {one_line(self.example_id, 60)}"), id="note-title")
            yield Input(
                value=self.note,
                max_length=NOTE_LIMIT,
                placeholder="what you decided, and why",
                id="note-input",
            )
            yield Static(Text("enter saves · escape cancels"), id="note-help")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
