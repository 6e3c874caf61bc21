"""Renderings of a comparison: `make` makes one `Report`, and every format in `FORMATS`
(text, JSON, the contract other tools read, Markdown, HTML and Parquet) renders from it.

One module a format: ``contract`` (the JSON object and its writing), ``text``, ``markdown``,
``page`` (HTML), ``table`` (Parquet); ``words``, what the human-readable ones say alike;
``examples``, each example's diff for the formats that show the texts.

Importing this package loads no analysis and no format's module (the command line reads
`FORMATS`' names for every command, ``score`` too): each is imported when a report is first
rendered in it.
Suite text (ids, build and suite names, outputs) is untrusted: in text it goes through
``safetext.one_line`` into Rich ``Text`` (never markup), JSON is ASCII-escaped, Markdown
escapes its own punctuation, HTML shows ``one_line`` (running texts ``visible``) as entities.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rouge_tui.analysis.figures import Figures
    from rouge_tui.analysis.pipeline import Texts
    from rouge_tui.review import Review
    from rouge_tui.store.log import ReferenceChange

__all__ = ["FORMATS", "Format", "Report", "make", "write"]


@dataclass(frozen=True)
class Report:
    """One comparison as every format shows it: ``data``, the JSON object (SPEC's contract:
    the other formats render from it), the ``figures`` it was made from, and ``review``, the
    marks laid on the texts, for the formats that show the texts (`Format.texts`)."""

    data: dict[str, Any]
    figures: Figures
    review: Review | None = None

    @cached_property
    def examples(self) -> list[dict[str, Any]]:
        """Each example the page and the exported review show, with its diff (`examples`):
        the top, the flagged, then every other example marked."""
        from rouge_tui.report.examples import examples

        assert self.review is not None, "the examples need the texts"
        ids = [row["id"] for row in self.data["top"] + self.data["flagged"]]
        ids += sorted(set(self.data["marks"]) - set(ids))
        return examples(self.review, ids)


def make(
    figures: Figures,
    top: int,
    *,
    marks: dict[str, dict[str, Any]] | None = None,
    warnings: list[str] | tuple[str, ...] = (),
    change: ReferenceChange | None = None,
    history: list[dict[str, Any]] | None = None,
    texts: Callable[[], Texts] | None = None,
    review: Review | None = None,
) -> Report:
    """The report of ``figures`` with its ``top`` most-moved outputs (the rows past those whose
    grounding the figures keep are grounded in ``texts()``, read only then), the ``marks`` as the
    JSON gives them, the ``warnings`` of the review beyond the figures' own, how the
    references moved since (``change``), each build's ``history`` row (with --history), and
    the ``review`` the formats that show texts need."""
    from rouge_tui.report.contract import to_json

    details = None
    if min(top, figures.paired) > len(figures.details):  # beyond the ranks the figures keep: from the texts
        from rouge_tui.analysis.unseen import details as grounded

        assert texts is not None, "rows past the figures' own need the texts"
        rows = range(min(top, figures.paired))  # each on the run its diff opens on
        details = grounded(texts(), [figures.ids[r] for r in rows], figures.settings.min_support,
                           [figures.run_moved(r) for r in rows])
    data = to_json(figures, top, marks, details, extra={"history": history} if history is not None else None)
    data["warnings"] += warnings
    data["references_changed"] = (
        {"previous": change.previous, "current": change.current, "since": change.since} if change else None
    )
    return Report(data, figures, review)


@dataclass(frozen=True)
class Format:
    """One way to write a report: ``render`` takes the report and the terminal's width when
    it goes to a terminal (None: a pipe, a file); ``texts``: it shows the texts, so the report
    needs its review; ``binary``: bytes that never go to a terminal."""

    name: str
    render: Callable[[Report, int | None], str | bytes]
    texts: bool = False
    binary: bool = False


def _text(made: Report, width: int | None) -> str:
    from rouge_tui.report.text import text_for

    return text_for(made.data, width)


def _json(made: Report, width: int | None) -> str:
    from rouge_tui.report.contract import render_json

    return render_json(made.data)


def _markdown(made: Report, width: int | None) -> str:
    from rouge_tui.report.markdown import render_markdown

    return render_markdown(made.data)


def _html(made: Report, width: int | None) -> str:
    from rouge_tui.report.page import html_page

    return html_page(made)


def _parquet(made: Report, width: int | None) -> bytes:
    from rouge_tui.report.table import parquet

    return parquet(made)


# The one list of formats: ``report --format`` offers these, in this order.
FORMATS: dict[str, Format] = {format.name: format for format in (
    Format("text", _text),
    Format("json", _json),
    Format("markdown", _markdown),
    Format("html", _html, texts=True),
    Format("parquet", _parquet, texts=True, binary=True),
)}


def write(out: Path, rendered: str | bytes) -> None:
    """A rendering to the file the user named (``--out``): replaced whole, never half; a file
    that was there keeps its permissions (a report made private stays private), a new one
    gets those the user's umask gives; text as UTF-8, a lone surrogate (a file name's byte
    that is not UTF-8) as the byte it stands for."""
    import os
    import stat

    from rouge_tui.store.paths import atomic_write, umask_mode

    try:
        mode = stat.S_IMODE(os.stat(out).st_mode)
    except OSError:  # none there yet (or unreadable: said when it is written)
        mode = umask_mode()
    atomic_write(out, rendered if isinstance(rendered, bytes) else rendered.encode("utf-8", "surrogatepass"), mode)
