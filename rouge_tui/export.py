"""The exported review: the figures, the verdict and every one of the ten most-moved outputs
(and every other marked example) with its mark, note and a rendering of its diff, for whoever
takes the incident next. Markdown and a self-contained HTML page, in the data dir, with the
user's umask (a colleague on the same box can read them)."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from rouge_tui import report
from rouge_tui.analysis.compare import TEN
from rouge_tui.diff import BRACKETS, Piece, by_line, empty_output
from rouge_tui.numbers import signed
from rouge_tui.report.examples import run_note
from rouge_tui.report.markdown import md
from rouge_tui.review import Review
from rouge_tui.safetext import one_line, visible
from rouge_tui.store.paths import atomic_write, data_dir, safe_name, umask_mode

__all__ = ["export_review", "plain", "review_markdown"]

BRACKETED = {**BRACKETS, "counted": ("[", "]"),
           "both": ("[", "]"), "baseline": ("<", ">"), "candidate": ("{", "}")}


def plain(pieces: list[Piece]) -> str:
    """Pieces as plain text, each kind of its own between its brackets (a changed run's on
    each of its lines: `by_line`)."""
    return "".join(
        f"{BRACKETED.get(p.kind, ('', ''))[0]}{visible(p.text)}{BRACKETED.get(p.kind, ('', ''))[1]}"
        for p in by_line(pieces)
    )


def fenced(text: str) -> str:
    """A Markdown code block no line of ``text`` can close early."""
    longest = max((len(ticks) for ticks in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def review_markdown(made: report.Report, now: datetime) -> str:
    """The report's Markdown, then each example it shows with its mark, note and diff."""
    lines = [report.FORMATS["markdown"].render(made, None).rstrip("\n"), "", f"_Exported {now:%Y-%m-%d %H:%M} UTC._", "",
             "## Reviewed examples", ""]
    for entry in made.examples:
        lines += [f"### {entry['rank']}. {md(entry['id'], 80)}: {md(entry['mark'])}", ""]
        if entry["note"]:
            lines += [f"> {md(line, 500)}" for line in entry["note"].splitlines()] + [""]
        if "diff" not in entry:
            lines += ["_(not in this comparison)_", ""]
            continue
        base, cand, delta = entry["scores"]
        diff = entry["diff"]
        runs = [run_note(n, entry["shown_run"]) for n in entry["runs"]]
        # An empty side says so, as the page and the app do (a blank line read as nothing missing).
        sides = [empty_output(side.text) or plain(pieces) for side, pieces in zip((diff.baseline, diff.candidate),
                                                                                entry["sides"])]
        block = "\n".join([
            f"baseline ({one_line(diff.baseline.build)}{runs[0]}): {diff.baseline.arithmetic()}",
            sides[0], "",
            f"candidate ({one_line(diff.candidate.build)}{runs[1]}): {diff.candidate.arithmetic()}",
            sides[1], "",
            "reference ([both] <baseline only> {candidate only}); [?] no counterpart in the reference or source — read it; «N» a figure in no other text:",
            plain(diff.reference.pieces()), "",
            "baseline → candidate ([-removed-] {+added+}):",
            plain(entry["words"]),
        ])
        over = " (F: the mean over each build's runs)" if max(entry["runs"]) > 1 else ""
        lines += [f"baseline {base:.4f} → candidate {cand:.4f} (Δ {signed(delta)}){over}", ""]
        lines += [entry["run_scores"], ""] if entry["run_scores"] else []
        lines += [f"_Cut: {note}._" for note in entry["cut"]] + [""] * bool(entry["cut"])
        lines += [fenced(block), ""]
    return "\n".join(lines) + "\n"


def export_review(review: Review, now: datetime | None = None) -> list[Path]:
    """Write the review as Markdown and HTML; returns where."""
    now = now or datetime.now(UTC)
    figures = review.analysis.figures
    # The ten, the flagged (SPEC "Triage"), then every other example marked.
    made = report.make(figures, TEN, marks=review.marks_json(), review=review)
    # Two suites of one name (copies in two folders) export under prefixes of their own; the
    # pair reviewed is in the name (a newcomer's two pairs' exports differed by the time alone).
    where = hashlib.sha256(os.fsencode(review.analysis.suite.path.resolve())).hexdigest()[:8]
    pair = f"{safe_name(figures.baseline.name, 24)}-to-{safe_name(figures.candidate.name, 24)}"
    folder, stem = data_dir() / "reviews", f"{safe_name(figures.suite, 30)}-{where}-{pair}-{now:%Y%m%d-%H%M%S}"
    text = review_markdown(made, now).encode("utf-8", "surrogatepass")
    page = report.FORMATS["html"].render(made, None)
    assert isinstance(page, str)
    html = page.encode("utf-8", "surrogatepass")
    mode = umask_mode()
    # A name of its own: a dot in the suite's name is not a suffix, and a second export in
    # the same second gets -2, even one running at the same moment: the Markdown file is
    # created only where no file is, which claims the name for the page too.
    for name in (stem if n == 1 else f"{stem}-{n}" for n in itertools.count(1)):
        markdown, page = folder / f"{name}.md", folder / f"{name}.html"
        if page.exists():
            continue
        try:
            atomic_write(markdown, text, mode, new=True)
        except FileExistsError:
            continue
        break
    atomic_write(page, html, mode)
    return [markdown, page]
