"""Where each sentence of the example came from: its best counterpart in the references and
the source (and in the other output), with the support, so a reader sees where a copied
sentence came from and that the closing one came from nowhere."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from rouge_tui.app.screens import common
from rouge_tui.safetext import one_line


def describe(side, title: str, other: str, min_support: float) -> Text:
    """One side's sentences (rouge_tui.analysis.grounding.Grounded), each with its counterparts;
    a support of ``min_support`` or more (the suite's) makes a counterpart."""
    text = Text()
    text.append(f"{title}\n", style="bold underline")
    if not side.sentences:
        text.append("  no sentence\n", style="italic")
    for number, sentence in enumerate(side.sentences, 1):
        text.append(f"{number:>3}. ", style="bold")
        if sentence.unsupported:
            text.append("[?] ", style="bold reverse yellow")
        text.append(one_line(sentence.span.text, 300) + "\n")
        for label, found in (("best in the references and source", sentence.counterpart), (f"in the {other}", sentence.in_other)):
            text.append(f"       {label}: ", style="italic")
            if found is None:
                text.append("no word in common\n", style="italic")
                continue
            where = f"{found.where}, " if found.where != other else ""
            text.append(f"{where}support {found.support:.2f}", style="bold" if found.support >= min_support else "")
            text.append(f"  “{one_line(found.sentence.text, 200)}”\n")
        if sentence.unsupported:
            word = "new: in none of them, nor in the " + other if sentence.new else "no counterpart in the reference or source"
            text.append(f"       {word} — read it\n", style="bold yellow")
    if side.new_figures:
        text.append("     figures found nowhere else: ", style="italic")
        text.append(one_line(", ".join(side.new_figures), 200) + "\n", style="bold red")
    if side.coverage is not None:
        text.append(f"     copied from the source: coverage {side.coverage:.2f}, density {side.density:.2f}\n", style="italic")
    return text


class CounterpartsScreen(common.Answers, ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,o,q", "close", "close", id="close"), common.QUIT_ANYWHERE]

    def __init__(self, example_id: str, grounding, names: tuple[str, str], min_support: float) -> None:
        super().__init__()
        self.min_support = min_support
        self.example_id = example_id
        self.grounding = grounding
        self.names = names

    def compose(self) -> ComposeResult:
        text = Text()
        text.append(f"Where each sentence of {one_line(self.example_id, 60)} has its counterpart", style="bold")
        text.append("  (escape closes)\n", style="italic")  # the footer below is the diff's
        text.append(f"support: the share of a sentence's words on an LCS with the best sentence there ({self.min_support:g} or more: a counterpart)\n\n", style="italic")
        text.append_text(describe(self.grounding.candidate, f"candidate · {one_line(self.names[1], 40)}", "baseline", self.min_support))
        if self.grounding.baseline is not None:
            text.append("\n")
            text.append_text(describe(self.grounding.baseline, f"baseline · {one_line(self.names[0], 40)}", "candidate", self.min_support))
        text.append("\nescape, o or q closes this; Q quits", style="italic")
        with VerticalScroll(id="help-box"):
            yield Static(text)

    def action_close(self) -> None:
        self.dismiss(None)
