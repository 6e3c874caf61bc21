"""The paired examples of two builds: which ids are paired (and which left out, and why), each
replicate run's input to the change signals (`signals.Pairs`), and the signal counts of the
build pairs before (the signal bands' input), kept between runs."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rouge_tui.analysis import history, signals, triage
from rouge_tui.analysis.settings import Settings
from rouge_tui.errors import SuiteError, quoted
from rouge_tui.store.cache import BlobCache
from rouge_tui.suite.records import References
from rouge_tui.suite.suite import Build, Suite, build_digests, read_build

__all__ = ["Pairing", "count_pair", "earlier_counts", "pair", "remember_counts", "run_pairs"]


@dataclass
class Pairing:
    """Which ids enter the paired figures, and which are left out and why."""

    ids: list[str]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    missing_reference: list[str]


def pair(references: References, baseline: Build, candidate: Build) -> Pairing:
    """Pair on id in the baseline's order. Ids without a usable reference (absent, or empty
    after stripping) go to missing_reference; of the others, ids in one build only go to
    only_in_baseline / only_in_candidate, but for those missing from some runs of the other
    (its ``partial``: left out, and said so apart)."""
    usable = references.usable
    if baseline.ids == candidate.ids and usable.issuperset(baseline.ids):
        return Pairing(list(baseline.ids), [], [], [])  # the usual pair: no set of its ids made
    base, cand = set(baseline.ids), set(candidate.ids)
    missing = {i for i in base | cand if i not in usable}
    base_only = base - cand - missing - set(candidate.partial)
    cand_only = cand - base - missing - set(baseline.partial)
    ids = [i for i in baseline.ids if i in cand and i in usable]
    return Pairing(ids, sorted(base_only), sorted(cand_only), sorted(missing))


def why_none_shared(references: References, baseline: Build, candidate: Build) -> str:
    """Why two builds pair no example: ids they share with no usable reference, or an id of
    each, for ids that differ in their form ("0" against "0|strict-match": an lm-eval run
    with one filter and one with two), where the message said only that they pair none."""
    outputs = candidate.runs[0].outputs
    shared = next((i for i in baseline.ids if i in outputs), None)
    if shared is not None:
        return f"the ids they share, such as {quoted(shared, 30)}, have no reference or only blank ones"
    first = [quoted(next(iter(ids), ""), 30) for ids in (baseline.ids, candidate.ids, references.texts)]
    return f"their first ids: {first[0]} and {first[1]}; the references' {first[2]}"


def paired(references: References, baseline: Build, candidate: Build, example_id: str) -> bool:
    """Whether ``example_id`` is one of `pair`'s ids (in every run of both builds, with a
    usable reference), looked up, with no set of every paired id made (a mark's row)."""
    return example_id in references.usable and all(
        example_id in run.outputs for build in (baseline, candidate) for run in build.runs)


def run_pairs(references: References, baseline: Build, candidate: Build, ids: Sequence[str],
              min_support: float) -> list[signals.Pairs]:
    """The rules' input for each replicate run (run r of each build, or its last run where it
    has fewer): a signal fires on an example when it fires in any run."""
    texts = list(map(references.texts.__getitem__, ids))
    sources = list(map(references.sources.get, ids))
    out = []
    for r in range(max(len(baseline.runs), len(candidate.runs))):
        base = baseline.runs[min(r, len(baseline.runs) - 1)].outputs
        cand = candidate.runs[min(r, len(candidate.runs) - 1)].outputs
        out.append(signals.Pairs(ids, list(map(base.__getitem__, ids)), list(map(cand.__getitem__, ids)), texts,
                                 sources, {}, min_support))
    return out


def count_pair(references: References, baseline: Build, candidate: Build, min_support: float) -> triage.PairCounts:
    """How many of a pair's paired examples each signal fires on, in any run (what the band of
    a later pair reads)."""
    ids = pair(references, baseline, candidate).ids
    flags = np.zeros(len(ids), np.uint32)
    for run in run_pairs(references, baseline, candidate, ids, min_support):
        flags |= signals.find(run)
    return triage.PairCounts(baseline.name, candidate.name, len(ids), signals.counts(flags))


def _key(suite: Suite, settings: Settings, references: References,
         builds: Sequence[tuple[str, Sequence[str]]]) -> str:
    return triage.pair_key(references.digest, settings.min_support, repr(suite.settings.fields), builds)


def remember_counts(suite: Suite, settings: Settings, references: References, builds: tuple[Build, Build],
                    store: BlobCache | None, counts: triage.PairCounts) -> None:
    """Keep this pair's counts in ``store`` (None: nowhere): tomorrow's comparison reads them
    as an earlier pair's."""
    if store is not None:
        key = _key(suite, settings, references, [(b.name, [run.digest for run in b.runs]) for b in builds])
        store.put(key, counts.to_bytes())


def earlier_counts(suite: Suite, settings: Settings, references: References, baseline: Build,
                   store: BlobCache | None) -> list[triage.PairCounts]:
    """The signal counts of the consecutive build pairs ending at the baseline (the volatile
    window), each from ``store`` or read and counted (and kept there); a build read once for
    both its pairs.
    None at all (and no work) when they could not make a band: too few earlier pairs, or no
    signal that may raise the alarm."""
    entries = history.earlier(suite, baseline.name, history.PAIRS + 1)
    if len(entries) < triage.MIN_PAIRS + 1 or settings.alarm == ():
        return []
    read: dict[str, Build] = {baseline.name: baseline}
    out = []
    for a, b in itertools.pairwise(entries):
        try:
            digests = [(e.name, [run.digest for run in read[e.name].runs] if e.name in read
                        else build_digests(suite, e)) for e in (a, b)]
            if store is not None and a.problem is None and b.problem is None:
                found = store.get(_key(suite, settings, references, digests))
                if found is not None:
                    try:
                        out.append(triage.PairCounts.from_bytes(found))
                        continue
                    except ValueError:
                        pass
            builds = tuple(read.get(e.name) or read.setdefault(e.name, read_build(suite, e)) for e in (a, b))
        except SuiteError as exc:
            out.append(triage.PairCounts(a.name, b.name, 0, {}, str(exc)))
            continue
        counts = count_pair(references, builds[0], builds[1], settings.min_support)
        remember_counts(suite, settings, references, builds, store, counts)
        out.append(counts)
        # Only the next pair's first build is wanted again (a big suite holds no five builds).
        read = {name: build for name, build in read.items() if name in (b.name, baseline.name)}
    return out
