"""Help: every key of the view it was opened from, and the lists the registries hold."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from rouge_tui.analysis.figures import SORTS
from rouge_tui.analysis.signals import SIGNALS
from rouge_tui.app.screens import common
from rouge_tui.report import verdict_symbol, verdict_words
from rouge_tui.rouge import METRICS, TOKENIZERS

MOVING = ("↑ ↓ j k", "move; g / G first / last (as less and vim: they never mark), page up / page down, home / end")
# What the overview's short words mean: a newcomer found none of them explained.
OVERVIEW = (
    ("Δ", "the mean paired delta of F, candidate minus baseline, over the ids both builds have"),
    ("95%", "that delta's interval; band: where the baseline's band comes from, and its k"),
    ("P  R", ("the mean paired delta of precision and of recall (recall falling while precision "
              "holds: shorter outputs)")),
    ("ten", "the ten most-moved outputs' share of the total |Δ|: a few outputs moved, or all of them"),
    ("Δ -x ▁█ +x", "how many examples moved how far, from the largest fall to the largest rise"),
    ("history", ("each build's mean over all its own ids, oldest first; B and C: the pair compared; the bars "
                 "span at least the baseline's band, so a move inside it looks small")),
    ("copied", ("with sources: each build's mean coverage (cov) and density (dens) of spans "
                "copied from the source")),
)
FILTER = "filter: part of an id or of an output; a signal (trunc, dup, …); a mark (fine, regression, unsure, marked); \"in quotes\" for text only"


class HelpScreen(common.Answers, ModalScreen[None]):
    """``?``, ``q`` and ``escape`` close it (``q`` here does not quit the app; ``Q`` does)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "close", id="close"),
        common.QUIT_ANYWHERE,
        Binding("j", "scroll(1)", "down", show=False),  # as in the table and the diff
        Binding("k", "scroll(-1)", "up", show=False),
        Binding("g", "edge(False)", "top", show=False),
        Binding("G", "edge(True)", "bottom", show=False),
    ]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.source = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self.text(), id="help-text")

    def text(self) -> Text:
        text = Text()
        text.append("Keys here\n", style="bold underline")
        keys: dict[str, list[str]] = {}  # each action's keys, in the screen's order (q esc back)
        first: dict[str, Binding] = {}
        for binding in getattr(type(self.source), "BINDINGS", []):
            if (not hasattr(binding, "action") or binding.action in ("down", "up")
                    or binding.action.startswith("table_only")):
                continue  # (j and k are on the line about moving; the table's keys are its own)
            first.setdefault(binding.action, binding)
            keys.setdefault(binding.action, []).append(self.app.get_key_display(binding))
        seen = set(first)
        for binding in first.values():
            key = " ".join(keys[binding.action])
            text.append(f"  {key:<8}", style="bold")
            text.append(f" {FILTER if binding.action == 'filter' else binding.description}")
            # A key the screen turns off for now (r with one run, f against the reference);
            # the app's own keys (help, quit) are never off.
            name = binding.action.split("(")[0]
            if not name.startswith("app.") and self.source.check_action(name, ()) is not True:
                text.append(" (not now)", style="italic")
            text.append("\n")
        text.append(f"  {MOVING[0]:<8}", style="bold")
        text.append(f" {MOVING[1]}\n")

        def cycles(key: str, action: str) -> str:  # the key works here, or only in the review
            return f"({key} cycles)" if action in seen else f"({key} cycles them in the review table)"

        text.append(f"\nMetrics {cycles('m', 'metric')}\n", style="bold underline")
        for metric in METRICS.values():
            text.append(f"  {metric.name:<10}", style="bold")
            text.append(f" {metric.summary}\n")
        text.append(f"\nTokenizers {cycles('t', 'tokenizer')}\n", style="bold underline")
        for tokenizer in TOKENIZERS.values():
            text.append(f"  {tokenizer.name:<12}", style="bold")
            text.append(f" {tokenizer.summary}\n")
        text.append(f"\nSorts {cycles('s', 'sort')}\n", style="bold underline")
        for sort in SORTS.values():
            text.append(f"  {sort.words:<19}", style="bold")
            text.append(f" {sort.summary}\n")
        text.append("\nChange signals (the table's signals column)\n", style="bold underline")
        for signal in SIGNALS:
            text.append(f"  {signal.short:<6}", style="bold")
            text.append(f" {signal.name}: {signal.summary}\n")
        text.append("\nThe overview\n", style="bold underline")
        for name, meaning in OVERVIEW:
            text.append(f"  {name:<10}", style="bold")
            text.append(f" {meaning}\n")
        text.append("\nVerdicts: ", style="bold")
        text.append(", ".join(f"{verdict_symbol(v)} {verdict_words(v)}" for v in ("drift-down", "drift-up", "within-band")))
        text.append(" (the candidate's mean against the baseline's band)\n")
        text.append("\nMarks: ", style="bold")
        text.append("fine, regression, unsure; ↻ carried from another build pair, ? stale, + has a note\n")
        text.append("\nescape, q or ? closes this; Q quits", style="italic")
        return text

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_edge(self, end: bool) -> None:
        box = self.query_one("#help-box", VerticalScroll)
        if end:
            box.scroll_end(animate=False)
        else:
            box.scroll_home(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
