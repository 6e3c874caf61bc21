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
from typing import Any

from rouge_tui import report
from rouge_tui.analysis import grounding
from rouge_tui.analysis.compare import TEN
from rouge_tui.diff import (
    BRACKETS,
    OTHER_TEXT,
    Piece,
    annotate,
    cut_texts,
    empty_output,
    example_diff,
    grounding_tags,
    word_diff,
)
from rouge_tui.review import Review
from rouge_tui.safetext import one_line, visible
from rouge_tui.store.paths import atomic_write, data_dir, safe_name, umask_mode

__all__ = ["examples", "export_review", "plain", "review_markdown"]

BRACKETED = {**BRACKETS, "counted": ("[", "]"),
           "both": ("[", "]"), "baseline": ("<", ">"), "candidate": ("{", "}")}


def plain(pieces: list[Piece]) -> str:
    """Pieces as plain text, each kind of its own between its brackets."""
    return "".join(
        f"{BRACKETED.get(p.kind, ('', ''))[0]}{visible(p.text)}{BRACKETED.get(p.kind, ('', ''))[1]}" for p in pieces
    )


def run_note(runs: int, shown: int = 0) -> str:
    """Which run of a build with replicate runs an export shows (the one the app's diff
    opens on, whose F moved most: the app's `r` steps through the others)."""
    return f", run {min(shown, runs - 1) + 1} of {runs}" if runs > 1 else ""


def run_scores(figures: Any, rank: int) -> str:
    """Every run's F of both builds, and which run is shown (SPEC "Triage": replicate runs)."""
    if not figures.run_f:
        return ""
    each = "; ".join(f"{role} " + " ".join(f"{f:.4f}" for f in figures.run_f[role][:, rank])
                     for role in ("baseline", "candidate"))
    return f"F by run: {each} (shown: run {figures.run_moved(rank) + 1}, the one that moved most)"


def fenced(text: str) -> str:
    """A Markdown code block no line of ``text`` can close early."""
    longest = max((len(ticks) for ticks in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _mark(review: Review, example_id: str) -> tuple[str, str]:
    shown = review.get(example_id)
    if shown is None:
        return "not reviewed", ""
    word = shown.word
    if shown.carried_from:
        word += f" (carried from {shown.carried_from[0]} → {shown.carried_from[1]})"
    if shown.stale:
        word += f" (stale: {shown.reason})"
    return word, shown.note


def examples(review: Review, ids: list[str]) -> list[dict[str, Any]]:
    """What the renderings show of each example: rank, mark, note, and its diff's pieces."""
    figures, texts = review.analysis.figures, review.texts
    ranks = {example_id: rank for rank, example_id in enumerate(figures.ids)}
    out = []
    for example_id in ids:
        mark, note = _mark(review, example_id)
        rank = ranks.get(example_id)
        entry: dict[str, Any] = {"id": example_id, "rank": rank + 1 if rank is not None else "—", "mark": mark, "note": note}
        if rank is not None:
            shown_run = figures.run_moved(rank)
            whole = texts.outputs(example_id, shown_run)
            references = texts.references.texts[example_id]
            settings = review.analysis.settings
            # Grounded whole, as the table's counts are; aligned and shown cut, as in the app.
            found = grounding.ground(whole[1], references, texts.references.sources.get(example_id),
                                     whole[0], settings.min_support)
            cut, notes = cut_texts([("baseline", whole[0]), ("candidate", whole[1]),
                                    *((f"reference {i + 1}", r) for i, r in enumerate(references))])
            baseline, candidate, references = cut[0], cut[1], cut[2:]
            diff = example_diff(example_id, references, baseline, candidate,
                                settings, (texts.baseline.name, texts.candidate.name))
            tags = {"baseline": grounding_tags(found.baseline, len(baseline)),
                    "candidate": grounding_tags(found.candidate, len(candidate))}
            entry.update(
                cut=notes,
                runs=(len(texts.baseline.runs), len(texts.candidate.runs)), shown_run=shown_run,
                run_scores=run_scores(figures, rank),
                scores=(float(figures.baseline_f[rank]), float(figures.candidate_f[rank]), float(figures.delta[rank])),
                diff=diff,
                sides=(annotate(diff.baseline.pieces(), tags["baseline"]), annotate(diff.candidate.pieces(), tags["candidate"])),
                words=annotate(word_diff(baseline, candidate)[2], tags["candidate"], skip=OTHER_TEXT),
            )
        out.append(entry)
    return out


def review_markdown(review: Review, shown: list[dict[str, Any]], now: datetime) -> str:
    data = report.to_json(review.analysis.figures, TEN, review.marks_json())
    lines = [report.render_markdown(data).rstrip("\n"), "", f"_Exported {now:%Y-%m-%d %H:%M} UTC._", "", "## Reviewed examples", ""]
    for entry in shown:
        lines += [f"### {entry['rank']}. {report.md(entry['id'], 80)}: {report.md(entry['mark'])}", ""]
        if entry["note"]:
            lines += [f"> {report.md(line, 500)}" for line in entry["note"].splitlines()] + [""]
        if "diff" not in entry:
            lines += ["_(not in this comparison)_", ""]
            continue
        base, cand, delta = entry["scores"]
        diff = entry["diff"]
        runs = [run_note(n, entry["shown_run"]) for n in entry["runs"]]
        block = "\n".join([
            f"baseline ({one_line(diff.baseline.build)}{runs[0]}): {diff.baseline.arithmetic()}",
            plain(entry["sides"][0]), "",
            f"candidate ({one_line(diff.candidate.build)}{runs[1]}): {diff.candidate.arithmetic()}",
            plain(entry["sides"][1]), "",
            "reference ([both] <baseline only> {candidate only}); [?] no counterpart in the reference or source — read it; «N» a figure in no other text:",
            plain(diff.reference.pieces()), "",
            "baseline → candidate ([-removed-] {+added+}):",
            plain(entry["words"]),
        ])
        over = " (F: the mean over each build's runs)" if max(entry["runs"]) > 1 else ""
        lines += [f"baseline {base:.4f} → candidate {cand:.4f} (Δ {delta:+.4f}){over}", ""]
        lines += [entry["run_scores"], ""] if entry["run_scores"] else []
        lines += [f"_Cut: {note}._" for note in entry["cut"]] + [""] * bool(entry["cut"])
        lines += [fenced(block), ""]
    return "\n".join(lines) + "\n"


def html_examples(shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The examples in the form report.render_html takes."""
    out = []
    for entry in shown:
        if "diff" not in entry:
            continue
        diff = entry["diff"]
        out.append({
            "rank": entry["rank"], "id": entry["id"], "mark": entry["mark"], "note": entry["note"], "cut": entry["cut"],
            "run_scores": entry["run_scores"],
            "sides": [(f"{role} · {side.build}{run_note(runs, entry['shown_run'])}", f'<span class="fold">{empty}</span>' if (empty := empty_output(side.text))
                       else report.html_pieces(pieces), side.arithmetic())
                      for role, side, pieces, runs in (("baseline", diff.baseline, entry["sides"][0], entry["runs"][0]),
                                                        ("candidate", diff.candidate, entry["sides"][1], entry["runs"][1]))],
            "reference": report.html_pieces(diff.reference.pieces()),
            "words": report.html_pieces(entry["words"]),
        })
    return out


def export_review(review: Review, now: datetime | None = None) -> list[Path]:
    """Write the review as Markdown and HTML; returns where."""
    now = now or datetime.now(UTC)
    figures = review.analysis.figures
    # The ten, the flagged (SPEC "Triage"), then every other example marked.
    ids = [*figures.ids[: figures.ten], *(figures.ids[row] for row, _ in figures.flagged_after(figures.ten))]
    ids += sorted(set(review.shown()) - set(ids))
    shown = examples(review, ids)
    # Two suites of one name (copies in two folders) export under prefixes of their own.
    where = hashlib.sha256(os.fsencode(review.analysis.suite.path.resolve())).hexdigest()[:8]
    folder, stem = data_dir() / "reviews", f"{safe_name(figures.suite, 30)}-{where}-{now:%Y%m%d-%H%M%S}"
    text = review_markdown(review, shown, now).encode("utf-8", "surrogatepass")
    data = report.to_json(figures, TEN, review.marks_json())
    html = report.render_html(data, html_examples(shown)).encode("utf-8", "surrogatepass")
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
