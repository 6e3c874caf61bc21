"""The exported review: the figures, the verdict and every one of the ten most-moved outputs
(and every other marked example) with its mark, note and a text rendering of its diff, for
whoever takes the incident next. Written as Markdown into the data dir, with the user's umask."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from rouge_tui import report
from rouge_tui.diff import Piece, example_diff, word_diff
from rouge_tui.review import Review
from rouge_tui.safetext import visible
from rouge_tui.store.paths import atomic_write, data_dir, safe_name, umask_mode

__all__ = ["export_review", "plain", "review_markdown"]

MARKERS = {"removed": ("[-", "-]"), "added": ("{+", "+}"), "counted": ("[", "]"),
           "both": ("[", "]"), "baseline": ("<", ">"), "candidate": ("{", "}")}


def plain(pieces: list[Piece]) -> str:
    """Pieces as plain text, each marked kind between its markers."""
    out = []
    for piece in pieces:
        opening, closing = MARKERS.get(piece.kind, ("", ""))
        out.append(f"{opening}{visible(piece.text)}{closing}")
    return "".join(out)


def fenced(text: str) -> str:
    """A Markdown code block no line of ``text`` can close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def review_markdown(review: Review, now: datetime) -> str:
    figures = review.analysis.figures
    data = report.to_json(figures, 10, review.marks_json())
    shown = review.shown()
    lines = [report.render_markdown(data).rstrip("\n"), "", f"_Exported {now:%Y-%m-%d %H:%M} UTC._", ""]
    ten = list(figures.ids[: figures.ten])
    others = sorted(set(shown) - set(ten))
    ranks = {example_id: rank for rank, example_id in enumerate(figures.ids)}
    lines += ["## Reviewed examples", ""]
    for example_id in ten + others:
        mark = shown.get(example_id)
        rank = ranks.get(example_id)
        head = f"### {rank + 1}. " if rank is not None else "### "
        word = "not reviewed"
        if mark is not None:
            word = mark.word + (f" (carried from {mark.carried_from[0]} → {mark.carried_from[1]})" if mark.carried_from else "")
            word += f" (stale: {mark.reason})" if mark.stale else ""
        lines += [f"{head}{report.md(example_id, 80)}: {report.md(word)}", ""]
        if mark is not None and mark.note:
            lines += [f"> {line}" if line else ">" for line in report.md(mark.note).split("\\n")] + [""]
        if rank is None or example_id not in review.texts.baseline.ids or example_id not in review.texts.candidate.ids:
            lines += ["_(not in this comparison)_", ""]
            continue
        lines += [
            f"baseline {figures.baseline_f[rank]:.4f} → candidate {figures.candidate_f[rank]:.4f}"
            f" (Δ {figures.delta[rank]:+.4f})", "",
            fenced(diff_text(review, example_id)), "",
        ]
    return "\n".join(lines) + "\n"


def diff_text(review: Review, example_id: str) -> str:
    """The example's diff as text: each side's counted words in [brackets] with its
    arithmetic, the reference's words marked by who matched them, and the word diff."""
    texts = review.texts
    baseline, candidate = texts.outputs(example_id)
    references = texts.references.texts[example_id]
    diff = example_diff(example_id, references, baseline, candidate, review.analysis.settings,
                        (texts.baseline.name, texts.candidate.name))
    merged = word_diff(baseline, candidate)[2]
    return "\n".join([
        f"baseline ({visible(texts.baseline.name)}): {diff.baseline.arithmetic()}",
        plain(diff.baseline.pieces()),
        "",
        f"candidate ({visible(texts.candidate.name)}): {diff.candidate.arithmetic()}",
        plain(diff.candidate.pieces()),
        "",
        "reference ([both] <baseline only> {candidate only}):",
        plain(diff.reference.pieces()),
        "",
        "baseline → candidate ([-removed-] {+added+}):",
        plain(merged),
    ])


def export_review(review: Review, now: datetime | None = None) -> list[Path]:
    """Write the review and return where it went."""
    now = now or datetime.now(timezone.utc)
    figures = review.analysis.figures
    name = safe_name(f"{figures.suite}-{figures.baseline.name}-{figures.candidate.name}", 60)
    path = data_dir() / "reviews" / f"{name}-{now:%Y%m%dT%H%M%S}.md"
    atomic_write(path, review_markdown(review, now).encode("utf-8", "surrogatepass"), umask_mode())
    return [path]
