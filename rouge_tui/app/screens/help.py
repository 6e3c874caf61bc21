"""Help: every key of the view it was opened from, and the lists the registries hold."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen

from rouge_tui.analysis.compare import VERDICTS
from rouge_tui.analysis.figures import SORTS
from rouge_tui.analysis.signals import SIGNALS
from rouge_tui.app.screens import common
from rouge_tui.app.widgets.overview import PANELS
from rouge_tui.rouge import METRICS, TOKENIZERS
from rouge_tui.store.marks import MARKS

MOVING = ("↑ ↓ j k", "move; g / G first / last (as less and vim: they never mark), page up / page down, home / end")
# SPEC "Triage", in a reader's words (README "Signal bands and the flagged" says the same).
TRIAGE = (
    ("why", "ROUGE can stay flat while a build invents sentences and figures: the signals raise the alarm too"),
    ("band", ("from a signal's counts on the earlier build pairs (up to five, ending at the baseline): at "
              "most the highest earlier share of this pair's outputs, plus three square roots of that, plus "
              "three. A steady count stays inside, a jump goes past it, one that never fired drifts at its "
              "fourth output; with fewer than two earlier pairs there is no band, and the overview says so")),
    ("flagged", ("outputs where a drifting signal fired, past the ten: new figures first, then new sentences "
                 "(the least supported first), then the rest. The walk (w) goes on to them after the ten; "
                 "s can sort them first")),
    ("alarm", "[alarm] signals in suite.toml: the signals that may raise it ([] for none)"),
)
FILTER = (f"filter: part of an id or of an output; a signal (trunc, dup, …); a mark ({', '.join(MARKS)}, marked); "
          '"in quotes" for text only')


class HelpScreen(common.BoxedText, common.Answers, ModalScreen[None]):
    """``?``, ``q`` and ``escape`` close it (``q`` here does not quit the app; ``Q`` does)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "close", id="close"),
        common.QUIT_ANYWHERE,
        *common.BOX_KEYS,
    ]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.source = screen

    def on_mount(self) -> None:
        # Which keys are "not now" changes under the help (the suite still loading when it
        # opened): laid out again when the screen below says its keys changed.
        self.source.bindings_updated_signal.subscribe(self, lambda _screen: self.on_resize())

    def text(self, width: int | None = None) -> Text:
        """Every entry on a line of its own; with ``width``, an entry too long for it goes
        on under its description's first word (a hanging indent), never at column 0."""
        text = Text()

        def entry(name: str, column: int, description: str | Text) -> None:
            head = f"  {name:<{column}} "
            text.append(head[:-1], style="bold")
            text.append(" ")
            words = Text(description) if isinstance(description, str) else description
            indent = cell_len(head)
            if width is None or width - indent < 20:
                text.append_text(words)
            else:
                lines = words.wrap(self.app.console, width - indent)
                for number, line in enumerate(lines):
                    line.rstrip()
                    text.append(" " * indent if number else "")
                    text.append_text(line)
                    if number < len(lines) - 1:
                        text.append("\n")
            text.append("\n")

        text.append("Keys here\n", style="bold underline")
        keys: dict[str, list[str]] = {}  # each action's keys, in the screen's order (q esc back)
        first: dict[str, Binding] = {}
        for binding in getattr(type(self.source), "BINDINGS", []):
            if (not hasattr(binding, "action") or binding.action in ("down", "up")
                    or binding.action.startswith(("table_only", "step_ahead")) or binding.key == common.EARLY_ENTER):
                continue  # (j and k are on the line about moving; the table's keys, the diff's, their own)
            first.setdefault(binding.action, binding)
            keys.setdefault(binding.action, []).append(self.app.get_key_display(binding))
        seen = set(first)
        for binding in first.values():
            description = Text(FILTER if binding.action == "filter" else binding.description)
            # A key the screen turns off for now (r with one run, f against the reference);
            # the app's own keys (help, quit) are never off.
            name = binding.action.split("(")[0]
            if not name.startswith("app.") and self.source.check_action(name, ()) is not True:
                description.append(" (not now)", style="italic")
            entry(" ".join(keys[binding.action]), 8, description)
        entry(MOVING[0], 8, MOVING[1])

        def cycles(key: str, action: str) -> str:  # the key works here, or only in the review
            return f"({key} cycles)" if action in seen else f"({key} cycles them in the review table)"

        text.append(f"\nMetrics {cycles('m', 'metric')}\n", style="bold underline")
        for metric in METRICS.values():
            entry(metric.name, 10, metric.summary)
        text.append(f"\nTokenizers {cycles('t', 'tokenizer')}\n", style="bold underline")
        for tokenizer in TOKENIZERS.values():
            entry(tokenizer.name, 12, tokenizer.summary)
        text.append(f"\nSorts {cycles('s', 'sort')}\n", style="bold underline")
        widest = max(cell_len(sort.words) for sort in SORTS.values())  # "beyond its own noise" overran 19
        for sort in SORTS.values():
            entry(sort.words, widest, sort.summary)
        text.append("\nChange signals (the table's signals column)\n", style="bold underline")
        for signal in SIGNALS:
            entry(signal.short, 6, f"{signal.name}: {signal.summary}")
        text.append("\nThe overview\n", style="bold underline")
        for panel in PANELS:  # what each panel's short words mean (a newcomer found none explained)
            for name, meaning in panel.help:
                entry(name, 10, meaning)
        text.append("\nSignal bands and the flagged\n", style="bold underline")
        for name, meaning in TRIAGE:
            entry(name, 10, meaning)
        text.append("\nVerdicts: ", style="bold")
        text.append(", ".join(v.said for v in VERDICTS.values()))
        text.append(" (the candidate's mean against the baseline's band); within band, signal alarm: a change "
                    "signal drifts above its band, and the report exits 1 as for a drift\n")
        text.append("\nMarks: ", style="bold")
        text.append(f"{', '.join(MARKS)}; ↻ carried from another build pair, ? stale, + has a note\n")
        text.append("\nescape, q or ? closes this; Q quits", style="italic")
        return text

    def action_close(self) -> None:
        self.dismiss(None)
