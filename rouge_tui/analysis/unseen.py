"""What overlap cannot see in one comparison's texts: found beside the scoring, once for the
texts (`grounding_of`), and each listed row's evidence (`details`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

import numpy as np

from rouge_tui.analysis import compare, signals

if TYPE_CHECKING:
    from rouge_tui.analysis.pipeline import Texts

__all__ = ["DETAIL_ROWS", "beside", "details", "grounding_of"]

_FOUND = threading.Lock()  # one grounding per texts and key, whichever thread asks first


def grounding_of(texts: Texts, runs: list[signals.Pairs]) -> Future:
    """`_ground` of ``runs`` (`pairs.run_pairs` of ``texts``), begun beside the caller once for these texts."""
    with _FOUND:
        if runs[0].min_support not in texts.found:
            made = (len(texts.baseline.runs), len(texts.candidate.runs))
            texts.found[runs[0].min_support] = beside(lambda: _ground(runs, made))
        return texts.found[runs[0].min_support]


def _ground(runs: list[signals.Pairs], made: tuple[int, int]) -> tuple[list[tuple[np.ndarray, ...]], dict[str, list[float]]]:
    """Each run's candidates' new sentences, new figures and least support, and each build's
    mean coverage and density over all its runs (``made``: how many each build has; `runs`
    repeats a build's last where it has fewer) when the suite has sources."""
    from rouge_tui.analysis import grounding  # not for cached figures (`Pairs.count_new`)

    counts = [run.count_new() for run in runs]
    sources = runs[0].sources
    if all(source is None for source in sources):
        return counts, {}
    base, cand = made
    # Every run has the same examples with a source, so a build's mean is its runs' means' mean.
    means = grounding.copy_means([*(r.baseline for r in runs[:base]), *(r.candidate for r in runs[:cand])], sources)
    found = {}
    for role, own in (("baseline", means[:base]), ("candidate", means[base:])):
        kept = [m for m in own if m is not None]
        found[role] = [sum(m[k] for m in kept) / len(kept) for k in (0, 1)] if kept else []
    return counts, found


def beside(work: Callable[[], object]) -> Future:
    """``work`` in a daemon thread, which nothing joins: a comparison given up while it scores
    (the app's cancel or quit, Ctrl-C, an error) does not wait for it."""
    done: Future = Future()

    def body() -> None:
        try:
            done.set_result(work())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever asks for the result
            done.set_exception(exc)

    threading.Thread(target=body, name="grounding", daemon=True).start()
    return done


DETAIL_ROWS = compare.TEN  # ranks whose grounding the figures keep: report's default --top


def details(texts: Texts, ids: Sequence[str], min_support: float, runs: Sequence[int] | None = None) -> list[dict]:
    """What overlap cannot see in each of ``ids``' candidate output, as the report lists it
    (``runs``: the replicate run of each, else the first)."""
    from rouge_tui.analysis import grounding  # not for cached figures (`Pairs.count_new`)

    out = []
    for example_id, run in zip(ids, runs or [0] * len(ids)):
        baseline, candidate = texts.outputs(example_id, run)
        source = texts.references.sources.get(example_id)
        found = grounding.ground_side(
            candidate, texts.references.texts[example_id], source, baseline, min_support=min_support
        )
        row = {"unsupported": found.unsupported, "new_sentences": found.new_sentences, "new_figures": found.new_figures}
        if source is not None:
            row.update(coverage=found.coverage, density=found.density)
        out.append(row)
    return out
