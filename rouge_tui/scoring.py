"""From a suite on disk to a comparison: settings, pairing, scoring (cached) and compare.

Data flows one way: files -> suite -> scores -> comparison. Both the headless report and
the app call ``analyse``; neither reads files or scores by itself.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Sequence

from rouge_tui import __version__
from rouge_tui.digests import length_prefixed
from rouge_tui.gcpause import collector_paused
from rouge_tui.metrics import METRICS, TOKENIZERS
from rouge_tui.state import ScoreCache, UserDefaults
from rouge_tui.suite import Build, Suite

if TYPE_CHECKING:  # numpy and the comparison load on first use: `score` needs neither
    import numpy as np

    from rouge_tui.compare import Comparison

DEFAULT_METRIC = "rougeL"
DEFAULT_TOKENIZER = "whitespace"
DEFAULT_K = 2.0

Progress = Callable[[str, float], None]


class UsageError(ValueError):
    """A request that cannot be honoured (bad setting combination); exit status 2."""


@dataclass(frozen=True)
class ScoreSettings:
    metric: str = DEFAULT_METRIC
    tokenizer: str = DEFAULT_TOKENIZER
    stem: bool = False
    k: float = DEFAULT_K

    @property
    def signature(self) -> str:
        """Metric, tokenizer, stemming and tool version in one comparable string."""
        return f"{self.metric}|tok:{self.tokenizer}|stem:{'yes' if self.stem else 'no'}|v:{__version__}"

    def with_metric(self, metric: str) -> "ScoreSettings":
        return replace(self, metric=metric)


def resolve_settings(
    suite: Suite,
    *,
    metric: str | None = None,
    tokenizer: str | None = None,
    stem: bool | None = None,
    k: float | None = None,
    defaults: UserDefaults | None = None,
) -> ScoreSettings:
    """Flags win over suite.toml, which wins over the user's config, which wins over defaults.

    Stemming only exists for the rouge-score tokenizer: asking for it with ``whitespace`` is
    an error; a suite's ``stem = true`` simply does not apply when the tokenizer is switched.
    """
    defaults = defaults or UserDefaults()
    conf = suite.settings
    metric = metric or conf.metric or defaults.metric or DEFAULT_METRIC
    tokenizer = tokenizer or conf.tokenizer or defaults.tokenizer or DEFAULT_TOKENIZER
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    if tokenizer not in TOKENIZERS:
        raise UsageError(f"unknown tokenizer {tokenizer!r}; expected one of {', '.join(TOKENIZERS)}")
    if stem and tokenizer != "rouge-score":
        raise UsageError("--stem needs --tokenizer rouge-score (stemming is part of rouge-score's tokenizer)")
    if stem is None:
        stem = bool(conf.stem) and tokenizer == "rouge-score"
    if k is None:
        k = conf.k if conf.k is not None else (defaults.k if defaults.k is not None else DEFAULT_K)
    if not (k > 0) or k != k or k == float("inf"):
        raise UsageError(f"band k must be a positive number, got {k!r}")
    return ScoreSettings(metric=metric, tokenizer=tokenizer, stem=bool(stem), k=float(k))


@dataclass(frozen=True)
class Pairing:
    """Which ids enter the paired figures, and which are left out and why."""

    ids: list[str]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    missing_reference: list[str]


def usable_reference(suite: Suite, example_id: str) -> bool:
    refs = suite.references.get(example_id)
    return bool(refs) and any(ref.strip() for ref in refs)


def usable_ids(suite: Suite) -> frozenset[str]:
    """The ids with a usable reference (see `usable_reference`), all at once: the loader
    has listed the ids whose references are all blank."""
    return frozenset(suite.references).difference(suite.empty_reference_ids)


def pair(suite: Suite, baseline: Build, candidate: Build) -> Pairing:
    """Pair two builds on id, in the baseline's order; set aside what cannot be paired."""
    base_ids, cand_ids = baseline.ids, candidate.ids
    usable = usable_ids(suite)
    if base_ids == cand_ids and usable.issuperset(base_ids):
        return Pairing(list(base_ids), [], [], [])  # the usual case, without the sets
    base_set, cand_set = set(base_ids), set(cand_ids)
    missing = sorted((base_set | cand_set) - usable)
    missing_set = set(missing)
    ids = [i for i in base_ids if i in cand_set and i not in missing_set]
    only_b = sorted(i for i in base_set - cand_set if i not in missing_set)
    only_c = sorted(i for i in cand_set - base_set if i not in missing_set)
    return Pairing(ids, only_b, only_c, missing)


def texts_of(outputs: dict[str, str], ids: list[str]) -> list[str]:
    """``[outputs[i] for i in ids]``; when the ids are the outputs' own keys in file order
    (the usual case), a copy of the values without looking each one up."""
    if len(ids) == len(outputs) and ids == list(outputs):
        return list(outputs.values())
    return list(map(outputs.__getitem__, ids))


def run_digest(outputs: dict[str, str]) -> str:
    """A content hash of one run (ids and outputs in file order), for the score cache of
    runs not read from a file (those are keyed on the file's bytes, `suite.Run.digest`).
    Every id and output enters length-prefixed, so two different runs never hash the same
    bytes."""
    return length_prefixed(itertools.chain.from_iterable(outputs.items()), b"rouge-tui run v3\n")


class SuiteScorer:
    """Scores a suite's builds under one setting, each run once, through the cache.

    Runs that miss the cache are scored together in one batch (`metrics.batch.fmeasures`),
    so each reference is tokenised once for all of them. `workers`: None picks 2 processes
    for big batches when the machine has two cores and forking is safe (one thread running,
    see `metrics.batch.parallel_safe`); 1 always scores in this process.
    """

    def __init__(
        self,
        suite: Suite,
        settings: ScoreSettings,
        cache: ScoreCache | None = None,
        workers: int | None = None,
    ):
        self.suite = suite
        self.settings = settings
        self.cache = cache
        self.workers = workers
        self._scorer = None
        self._references: dict[str, list] = {}
        self._groups: dict[str, int] | None = None
        self._usable: frozenset[str] | None = None
        self.scored_pairs = 0
        self.cache_hits = 0

    @property
    def scorer(self):
        """The metrics `Scorer` for this setting (pair-by-pair use; made on first use)."""
        if self._scorer is None:
            from rouge_tui.metrics import Scorer

            s = self.settings
            self._scorer = Scorer([s.metric], s.tokenizer, s.stem)
        return self._scorer

    def usable(self, example_id: str) -> bool:
        """Same as `usable_reference`, from a set made once per suite."""
        return example_id in self._usable_ids()

    def _usable_ids(self) -> frozenset[str]:
        if self._usable is None:
            self._usable = usable_ids(self.suite)
        return self._usable

    def _reference(self, example_id: str) -> list:
        """The example's references, tokenised once and reused for every build and run."""
        prepared = self._references.get(example_id)
        if prepared is None:
            prepare = self.scorer.prepare
            prepared = [prepare(ref) for ref in self.suite.references[example_id]]
            self._references[example_id] = prepared
        return prepared

    def fmeasure(self, example_id: str, output: str) -> float:
        """F of one output: the best over the example's references (first on ties)."""
        scores = self.scorer.score_multi_prepared(self._reference(example_id), self.scorer.prepare(output))
        return scores[self.settings.metric].fmeasure

    def _key(self, outputs: dict[str, str], digest: str | None) -> str:
        """The cache key of one run: its file's digest (`suite.Run.digest`, cheap) when it
        has one, else a digest of its outputs."""
        return ScoreCache.key(
            self.settings.metric,
            self.settings.tokenizer,
            "stem" if self.settings.stem else "nostem",
            self.suite.fingerprint,
            f"file {digest}" if digest is not None else f"outputs {run_digest(outputs)}",
        )

    def runs_scores(
        self, runs: Sequence[dict[str, str]], progress: Progress | None = None
    ) -> list[dict[str, float]]:
        """`run_scores` of several runs; the ones the cache lacks are scored in one batch."""
        arrays = self._runs_arrays([(outputs, None) for outputs in runs], progress)
        return [dict(zip(ids, scores.tolist())) for ids, scores in arrays]

    def _runs_arrays(
        self, runs: Sequence[tuple[dict[str, str], str | None]], progress: Progress | None = None
    ) -> list[tuple[list[str], np.ndarray]]:
        """Per run (its outputs and file digest, if any): its ids with a usable reference
        (in file order) and their F, as an array."""
        results: list[tuple[list[str], np.ndarray] | None] = [None] * len(runs)
        pending: list[tuple[int, list[str], str | None]] = []
        usable = self._usable_ids()
        for index, (outputs, digest) in enumerate(runs):
            ids = list(filter(usable.__contains__, outputs))
            key = None
            if self.cache is not None:
                key = self._key(outputs, digest)
                cached = self.cache.get(key, len(ids))
                if cached is not None:
                    self.cache_hits += 1
                    results[index] = (ids, cached)
                    continue
            pending.append((index, ids, key))
        if pending:
            batch = [(runs[index][0], ids) for index, ids, _ in pending]
            values = self._score_batch(batch, progress)
            for (index, ids, key), scores in zip(pending, values):
                self.scored_pairs += len(ids)
                if self.cache is not None and key is not None:
                    self.cache.put(key, scores)
                results[index] = (ids, scores)
        return results  # type: ignore[return-value]

    def _score_batch(
        self, runs: list[tuple[dict[str, str], list[str]]], progress: Progress | None
    ) -> list[np.ndarray]:
        import numpy as np

        from rouge_tui.metrics.batch import fmeasures

        if self._groups is None:
            self._groups = dict(zip(self.suite.references, itertools.count()))
        groups = self._groups
        candidates: list[str] = []
        indices: list[np.ndarray] = []
        for index, (outputs, ids) in enumerate(runs):
            candidates.extend(texts_of(outputs, ids))
            if index and ids == runs[index - 1][1]:  # runs of one suite mostly share their ids
                indices.append(indices[-1])
            else:
                indices.append(np.fromiter(map(groups.__getitem__, ids), np.int64, len(ids)))
        report = None
        if progress is not None:
            report = lambda done: progress("scoring", done)
        s = self.settings
        values = fmeasures(
            s.metric,
            s.tokenizer,
            s.stem,
            list(self.suite.references.values()),
            candidates,
            np.concatenate(indices),
            workers=self._workers(),
            progress=report,
        )
        cuts = np.cumsum([len(ids) for _, ids in runs])[:-1]
        return np.split(values, cuts)

    def _workers(self) -> int:
        if self.workers is not None:
            return self.workers
        return 2 if (os.cpu_count() or 1) >= 2 else 1

    def run_scores(self, outputs: dict[str, str], progress: Progress | None = None) -> dict[str, float]:
        """F for every id of one run that has a usable reference, keyed by id."""
        return self.runs_scores([outputs], progress)[0]

    def build_scores(self, build: Build, ids: list[str], progress: Progress | None = None) -> np.ndarray:
        """A (runs x len(ids)) matrix of F for the paired ids."""
        return self.builds_scores([(build, ids)], progress)[0]

    def builds_scores(
        self, builds: Sequence[tuple[Build, list[str]]], progress: Progress | None = None
    ) -> list[np.ndarray]:
        """`build_scores` of several builds, every run that misses the cache in one batch."""
        import numpy as np

        runs = [(run.outputs, run.digest) for build, _ in builds for run in build.runs]
        scores = iter(self._runs_arrays(runs, progress))
        matrices = []
        for build, ids in builds:
            matrix = np.empty((len(build.runs), len(ids)), dtype=np.float64)
            for r in range(len(build.runs)):
                run_ids, values = next(scores)
                if run_ids == ids:  # the usual case: every id paired, in the same order
                    matrix[r] = values
                else:
                    matrix[r] = list(map(dict(zip(run_ids, values.tolist())).__getitem__, ids))
            matrices.append(matrix)
        return matrices


@dataclass
class Analysis:
    """Everything a report or the app shows about one build pair under one setting."""

    suite: Suite
    baseline: Build
    candidate: Build
    settings: ScoreSettings
    comparison: Comparison

    @property
    def signature(self) -> str:
        return self.settings.signature


def analyse(
    suite: Suite,
    baseline: Build,
    candidate: Build,
    settings: ScoreSettings,
    cache: ScoreCache | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
) -> Analysis:
    """Pair, score and compare two builds of a suite.

    `workers`: None lets big batches use a second process when that is safe (never from a
    thread other than the only one running, e.g. the app's worker thread); 1 keeps all the
    work in this process. The result is the same either way.
    """
    with collector_paused():  # nothing made here is cyclic garbage; see gcpause
        return _analyse(suite, baseline, candidate, settings, cache, progress, workers)


def _analyse(
    suite: Suite,
    baseline: Build,
    candidate: Build,
    settings: ScoreSettings,
    cache: ScoreCache | None,
    progress: Progress | None,
    workers: int | None,
) -> Analysis:
    from rouge_tui.compare import all_change_signals, compare
    from rouge_tui.metrics.batch import SideJob, beside

    pairing = pair(suite, baseline, candidate)
    if not pairing.ids:
        raise UsageError(
            f"{suite.path}: builds {baseline.name!r} and {candidate.name!r} share no example "
            "with a usable reference"
        )
    base_outputs = baseline.runs[0].outputs
    cand_outputs = candidate.runs[0].outputs
    base_texts = texts_of(base_outputs, pairing.ids)
    cand_texts = texts_of(cand_outputs, pairing.ids)
    # The change signals: found by the forked scoring process when there is one (a big
    # suite), else here once the scores are in.
    signals_job = SideJob(all_change_signals, base_texts, cand_texts)
    scorer = SuiteScorer(suite, settings, cache, workers)
    with beside(signals_job):
        base_scores, cand_scores = scorer.builds_scores(
            [(baseline, pairing.ids), (candidate, pairing.ids)], progress
        )
    signals = signals_job.result()
    partial = {b.name: list(b.partial_ids) for b in (baseline, candidate) if b.partial_ids}
    comparison = compare(
        metric=settings.metric,
        tokenizer=settings.tokenizer,
        stem=settings.stem,
        k=settings.k,
        baseline_name=baseline.name,
        candidate_name=candidate.name,
        ids=pairing.ids,
        baseline_scores=base_scores,
        candidate_scores=cand_scores,
        baseline_outputs=base_texts,
        candidate_outputs=cand_texts,
        only_in_baseline=pairing.only_in_baseline,
        only_in_candidate=pairing.only_in_candidate,
        missing_reference=pairing.missing_reference,
        partial=partial,
        signals=signals,
    )
    return Analysis(suite, baseline, candidate, settings, comparison)
