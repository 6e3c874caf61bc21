"""The ``?`` screen: every key of every view, including those the footer has no room for."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Everywhere",
        [
            ("q", "quit (exit status 0)"),
            ("?", "this help"),
            ("escape", "back to the previous view (clears the filter first)"),
        ],
    ),
    (
        "Movers table",
        [
            ("enter", "open the diff of the highlighted example"),
            ("up / down", "move one row"),
            ("pageup / pagedown", "move one page"),
            ("home / end", "first / last example"),
            ("w", "walk the ten most-moved outputs (n / p: next / previous)"),
            ("s", "sort: |delta|, regressions first, improvements first, id"),
            ("/", "filter by id or output text (escape clears)"),
            ("m", "next metric: rouge1, rouge2, rougeL, rougeLsum (re-scores)"),
            ("t", "tokenizer: whitespace / rouge-score (re-scores)"),
            ("B", "builds: choose the baseline and the candidate"),
        ],
    ),
    (
        "Review (table and diff)",
        [
            ("g / b / u", "mark the example: fine / regression / unsure"),
            ("c", "write a note on the example"),
            ("x", "clear the example's mark and note"),
            ("e", "export the review (Markdown, in the data folder)"),
        ],
    ),
    (
        "Diff",
        [
            ("d", "mode: against the reference / baseline vs candidate"),
            ("n / p", "next / previous example (in the walk: of the ten)"),
            ("f", "fold or unfold unchanged runs (baseline vs candidate)"),
        ],
    ),
    (
        "Builds",
        [
            ("b / c", "make the highlighted build the baseline / the candidate"),
            ("enter", "compare the chosen pair"),
        ],
    ),
    (
        "Suites",
        [("enter", "open the highlighted suite")],
    ),
]

LEGEND = (
    "Mark column: fine, regression, unsure (regr, unsu when narrow); "
    "* the outputs changed since the mark was set (stale); + it has a note.\n"
    "Signals: empty output, trunc(ated), dup(licated line), len+ / len- (length shift).\n"
    "Verdict: ▼ drift-down / ▲ drift-up when the candidate mean leaves the baseline band, "
    "● within band. ROUGE detects change; read the outputs to judge it."
)


def help_table() -> Table:
    """Keys grouped by view: a section title, then one row per key."""
    table = Table(box=None, show_header=False, pad_edge=False, expand=True)
    table.add_column("key", style="bold", no_wrap=True, min_width=18)
    table.add_column("action", ratio=1)
    for number, (section, rows) in enumerate(KEYS):
        if number:
            table.add_row("", "")
        table.add_row(Text(section, style="bold underline"), "", end_section=False)
        for key, action in rows:
            table.add_row(Text(key), Text(action))
    return table


class HelpScreen(ModalScreen[None]):
    """All keys, grouped by view."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "quit", id="quit"),
        Binding("escape", "close", "close", id="close"),
        Binding("question_mark", "close", "close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text("rouge-tui keys", style="bold"), id="help-title")
            yield Static(help_table())
            yield Static(Text(LEGEND), id="help-legend")

    def action_close(self) -> None:
        self.dismiss(None)
