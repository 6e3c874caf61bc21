"""Where each sentence of the example came from: its best counterpart in the references and
the source (and in the other output), with the support, so a reader sees where a copied
sentence came from and that the closing one came from nowhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

from rouge_tui.app.screens import common
from rouge_tui.safetext import one_line


def grounded_text(grounded, title: str, other: str, min_support: float,
                  hang: Callable[[Text, int], Text]) -> Text:
    """One side's sentences (rouge_tui.analysis.grounding.Grounded), each with its counterparts;
    a support of ``min_support`` or more (the suite's) makes a counterpart. ``hang``: a line
    (without its newline) as the screen shows it, wrapped under its ``indent``-th cell."""
    text = Text()
    text.append(f"{title}\n", style="bold underline")
    if not grounded.sentences:
        text.append("  no sentence\n", style="italic")

    def line(*parts: tuple[str, str], indent: int) -> None:
        """A line of ``(text, style)`` parts, wrapped under its ``indent``-th cell."""
        whole = Text()
        for part, style in parts:
            whole.append(part, style=style)
        text.append_text(hang(whole, indent))
        text.append("\n")

    # Without a source (no coverage of it) the counterparts are the references' alone.
    sourced = grounded.coverage is not None
    grounds = "the references and source" if sourced else "the references"
    for number, sentence in enumerate(grounded.sentences, 1):
        flag = [("[?] ", "bold reverse yellow")] if sentence.unsupported else []
        line((f"{number:>3}. ", "bold"), *flag, (one_line(sentence.span.text, 300), ""), indent=5)
        for label, found in ((f"best in {grounds}", sentence.counterpart), (f"in the {other}", sentence.in_other)):
            said = (f"       {label}: ", "italic")
            if found is None:
                line(said, ("no word in common", "italic"), indent=7)
                continue
            where = f"{found.where}, " if found.where != other else ""
            line(said, (f"{where}support {found.support:.2f}", "bold" if found.support >= min_support else ""),
                 (f"  “{one_line(found.sentence.text, 200)}”", ""), indent=7)
        if sentence.unsupported:
            nowhere = "no counterpart in the reference or source" if sourced else "no counterpart in the references"
            word = "new: in none of them, nor in the " + other if sentence.new else nowhere
            line((f"       {word} — read it", "bold yellow"), indent=7)
    if grounded.new_figures:
        # Each once: an output that writes 2008 twice read "2008, 2008".
        figures = ", ".join(dict.fromkeys(grounded.new_figures))
        line(("     figures found nowhere else: ", "italic"), (one_line(figures, 200), "bold red"),
             indent=5)
    if grounded.coverage is not None:
        line((f"     copied from the source: coverage {grounded.coverage:.2f}, density {grounded.density:.2f}", "italic"),
             indent=5)
    return text


class CounterpartsScreen(common.BoxedText, common.Answers, ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [common.HELP, Binding("escape,o,q", "close", "close", id="close"),
                                             common.QUIT_ANYWHERE, *common.BOX_KEYS]

    def __init__(self, example_id: str, grounding, names: tuple[str, str], min_support: float) -> None:
        super().__init__()
        self.min_support = min_support
        self.example_id = example_id
        self.grounding = grounding
        self.names = names

    def text(self, width: int | None = None) -> Text:
        """What the view says; with ``width``, each line wrapped under its own indent."""

        def hang(line: Text, indent: int) -> Text:
            if width is None or width - indent < 20:
                return line
            lines = line.wrap(self.app.console, width - indent)
            for wrapped in lines:
                wrapped.rstrip()
            return Text("\n" + " " * indent).join(lines)

        text = Text()
        text.append(f"Where each sentence of {one_line(self.example_id, 60)} has its counterpart", style="bold")
        text.append("  (escape closes)\n", style="italic")  # the footer below is the diff's
        text.append(f"support: the share of a sentence's words on an LCS with the best sentence there ({self.min_support:g} or more: a counterpart)\n\n", style="italic")
        text.append_text(grounded_text(self.grounding.candidate, f"candidate · {one_line(self.names[1], 40)}", "baseline",
                                       self.min_support, hang))
        if self.grounding.baseline is not None:
            text.append("\n")
            text.append_text(grounded_text(self.grounding.baseline, f"baseline · {one_line(self.names[0], 40)}", "candidate",
                                           self.min_support, hang))
        text.append("\nescape, o or q closes this; Q quits", style="italic")
        return text

    def action_close(self) -> None:
        self.dismiss(None)
