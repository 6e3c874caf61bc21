"""spread: grounding shared out between child processes gives, example by example, what the
reference path (`grounding.ground_side`, SPEC's definitions) gives, whoever did the work."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rouge_tui.analysis import grounding, grounding_bulk, spread

REFERENCE = "The outage began at 02:14 UTC. Checkout requests timed out for 41 minutes."
SOURCE = "Logs show the outage began at 02:14 UTC. The replica left the pool. Requests timed out for 41 minutes."

# (candidate, baseline, references, source): changed and unchanged, with and without a
# source, several references, an invented sentence, an invented figure, nothing at all.
EXAMPLES = [
    ("The outage began at 02:14 UTC. A disk failed in the primary.", "The outage began at 02:14 UTC.",
     (REFERENCE,), None),
    ("Checkout timed out for 45 minutes.", "Checkout timed out for 41 minutes.", (REFERENCE,), SOURCE),
    ("The replica left the pool.", "Something else entirely.", (REFERENCE,), SOURCE),
    ("Same text on both sides.", "Same text on both sides.", (REFERENCE,), None),
    ("", "The outage began.", (REFERENCE,), None),
    ("Requests timed out. Engineers blamed the moon for 3 days.", "Requests timed out.",
     ("Requests timed out.", "The moon had nothing to do with it."), None),
    ("Une panne a commencé à 02:14. Le disque était plein.", "Une panne a commencé.", ("Une panne a commencé à 02:14.",),
     None),
    ("The outage began at 02:14 UTC when the replica left the pool.", "The outage began.", (REFERENCE,), SOURCE),
    ("Nothing here is in any text at all, not one word of it.", "The outage began at 02:14 UTC.", (REFERENCE,), None),
    ("Checkout requests timed out for 41 minutes. The fix was 2.5 hours late.", "Checkout requests timed out.",
     (REFERENCE,), SOURCE),
]


def columns():
    candidates, baselines, references, sources = (list(column) for column in zip(*EXAMPLES))
    return candidates, baselines, references, sources


def by_the_reference(min_support: float = grounding.MIN_SUPPORT) -> list[tuple[int, int, float]]:
    """Each example's new sentences, new figures and least support, one example at a time;
    an output equal to its baseline has nothing new."""
    out = []
    for candidate, baseline, references, source in EXAMPLES:
        if candidate == baseline:
            out.append((0, 0, 1.0))
            continue
        side = grounding.ground_side(candidate, references, source, baseline, min_support=min_support)
        out.append((len(side.new_sentences), len(side.new_figures), grounding.least_support(side)))
    return out


def as_rows(found) -> list[tuple[int, int, float]]:
    sentences, figures, least = found
    assert all(isinstance(a, np.ndarray) and a.shape == (len(EXAMPLES),) for a in found)
    return list(zip(sentences.tolist(), figures.tolist(), least.tolist()))


def test_the_reference_cases_are_not_all_alike():
    rows = by_the_reference()
    assert any(s for s, _, _ in rows) and any(f for _, f, _ in rows) and any(s == f == 0 for s, f, _ in rows)


@pytest.mark.parametrize("cores", [2, 3, 7])
def test_children_give_what_the_reference_gives(monkeypatch, cores):
    monkeypatch.setattr(spread, "SLICE_CHARS", 40)  # every changed example is enough for a child
    here = []
    bulk = grounding_bulk.new_counts

    def counted_here(candidates, *args, **kwargs):
        here.append(len(candidates))
        return bulk(candidates, *args, **kwargs)

    # This process grounds one slice itself; the children (other processes) the others.
    monkeypatch.setattr(grounding_bulk, "new_counts", counted_here)
    started = []
    popen = subprocess.Popen

    def counted(*args, **kwargs):
        started.append(args)
        return popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", counted)
    assert as_rows(spread.new_counts(*columns(), grounding.MIN_SUPPORT, cores=cores)) == by_the_reference()
    changed = sum(c != b for c, b, _, _ in EXAMPLES)
    assert len(started) == cores - 1 and len(here) == 1 and 0 < here[0] < changed


def test_min_support_reaches_the_children(monkeypatch):
    monkeypatch.setattr(spread, "SLICE_CHARS", 40)
    assert as_rows(spread.new_counts(*columns(), 0.9, cores=2)) == by_the_reference(0.9)


@pytest.mark.parametrize("executable", ["/nonexistent/python", "/bin/false", "/bin/true"])
def test_a_child_that_cannot_start_fails_or_says_nothing_leaves_its_work_here(monkeypatch, executable):
    # No such program (OSError), a status of 1, and a status of 0 with nothing on stdout.
    monkeypatch.setattr(spread, "SLICE_CHARS", 40)
    monkeypatch.setattr(sys, "executable", executable)
    assert as_rows(spread.new_counts(*columns(), grounding.MIN_SUPPORT, cores=3)) == by_the_reference()


def test_too_little_text_starts_no_child(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("a child was started for a few examples")

    monkeypatch.setattr(subprocess, "Popen", refused)
    assert as_rows(spread.new_counts(*columns(), grounding.MIN_SUPPORT, cores=16)) == by_the_reference()
