"""What the formats that show the texts (HTML, the exported review) show of each example:
its rank, mark and note, and its diff cut and annotated as the app shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rouge_tui.analysis.figures import Figures
    from rouge_tui.review import Review


def run_note(runs: int, shown: int = 0) -> str:
    """Which run of a build with replicate runs an export shows (the one the app's diff
    opens on, whose F moved most: the app's `r` steps through the others)."""
    return f", run {min(shown, runs - 1) + 1} of {runs}" if runs > 1 else ""


def run_scores(figures: Figures, rank: int) -> str:
    """Every run's F of both builds, and which run is shown (SPEC "Triage": replicate runs)."""
    if not figures.run_f:
        return ""
    each = "; ".join(f"{role} " + " ".join(f"{f:.4f}" for f in figures.run_f[role][:, rank])
                     for role in ("baseline", "candidate"))
    return f"F by run: {each} (shown: run {figures.run_moved(rank) + 1}, the one that moved most)"


def mark_words(review: Review, example_id: str) -> tuple[str, str]:
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
    from rouge_tui.diff import OTHER_TEXT, annotate, grounding_tags, prepare_example, word_diff

    figures, texts = review.analysis.figures, review.texts
    ranks = {example_id: rank for rank, example_id in enumerate(figures.ids)}
    out = []
    for example_id in ids:
        mark, note = mark_words(review, example_id)
        rank = ranks.get(example_id)
        entry: dict[str, Any] = {"id": example_id, "rank": rank + 1 if rank is not None else "—", "mark": mark, "note": note}
        if rank is not None:
            shown_run = figures.run_moved(rank)
            # As the app's diff shows it: grounded whole, aligned and shown cut.
            ready = prepare_example(texts, example_id, shown_run, review.analysis.settings,
                                    (texts.baseline.name, texts.candidate.name))
            diff, (baseline, candidate), found = ready.diff, ready.outputs, ready.grounding
            tags = {"baseline": grounding_tags(found.baseline, len(baseline)),
                    "candidate": grounding_tags(found.candidate, len(candidate))}
            entry.update(
                cut=ready.notes,
                runs=(len(texts.baseline.runs), len(texts.candidate.runs)), shown_run=shown_run,
                run_scores=run_scores(figures, rank),
                scores=(float(figures.baseline_f[rank]), float(figures.candidate_f[rank]), float(figures.delta[rank])),
                diff=diff,
                sides=(annotate(diff.baseline.pieces(), tags["baseline"]), annotate(diff.candidate.pieces(), tags["candidate"])),
                words=annotate(word_diff(baseline, candidate)[2], tags["candidate"], skip=OTHER_TEXT),
            )
        out.append(entry)
    return out

