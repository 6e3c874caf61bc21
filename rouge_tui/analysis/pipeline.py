"""The one way from a suite on disk to a comparison, for the report and the app alike.

    files -> texts (`read_texts`) -> scores (a table a build, `Scorer`) -> figures (`compare`)

`open_analysis` runs it for one build pair under one set of settings. When the cache holds
figures for exactly these files' bytes and these settings, the analysis comes back at once
with those figures, and its texts are read in the background (`Analysis.texts`, one future):
the app draws its first frame from the figures while the texts arrive. Otherwise the texts
are read and scored here, and the future is already done.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from rouge_tui.analysis import compare, history, pairs, signals, triage, unseen
from rouge_tui.analysis.figures import Figures
from rouge_tui.analysis.paired import paired_test
from rouge_tui.analysis.scores import Scorer
from rouge_tui.analysis.settings import Settings
from rouge_tui.errors import SuiteError
from rouge_tui.files import DigestMemo
from rouge_tui.rouge import TOKENIZERS, engine
from rouge_tui.store.cache import BlobCache, KeptDigestMemo, key
from rouge_tui.suite.records import References
from rouge_tui.suite.suite import (
    Build,
    BuildEntry,
    NewestUnreadable,
    Suite,
    build_digests,
    read_build,
    read_references,
    readable_pair,
    references_digest,
)

__all__ = ["Analysis", "Caches", "Texts", "compute", "open_analysis", "read_texts"]

Progress = Callable[[str, float], None]  # what is being done, and how far (0..1)


@dataclass
class Caches:
    """The stores an analysis reads and fills: each build's table of scores (`Scorer`), whole
    comparisons' figures; `none` runs from scratch (--no-cache)."""

    scores: BlobCache | None
    figures: BlobCache | None
    pairs: BlobCache | None = None  # each build pair's signal counts (`triage.PairCounts`)
    digest_memos: BlobCache | None = None  # each suite's files' digests (`KeptDigestMemo`)

    @classmethod
    def default(cls) -> Caches:
        return cls(BlobCache("scores"), BlobCache("figures"), BlobCache("pairs"), BlobCache("digests"))

    @classmethod
    def none(cls) -> Caches:
        return cls(None, None, None)

    def digest_memo(self, suite: Suite) -> DigestMemo:
        """The digests of ``suite``'s files kept from before (`Suite.digest_memo`); without
        the cache, this process's alone."""
        if self.digest_memos is None:
            return DigestMemo()
        return KeptDigestMemo(self.digest_memos, os.path.abspath(suite.path))

    def warning(self) -> str | None:
        """Why the cache is not used (a folder of another user's, a planted link), once for
        all the stores; None when nothing was refused."""
        stores = (self.scores, self.figures, self.pairs, self.digest_memos)
        return next((s.problem for s in stores if s is not None and s.problem), None)


@dataclass
class Texts:
    """The texts one comparison is about: the references (with sources) and both builds."""

    references: References
    baseline: Build
    candidate: Build
    # What overlap cannot see in these texts (their paired ids follow from them), by
    # min_support: it does not depend on the metric or the tokenizer, so the app's m and t
    # find it here (`unseen.grounding_of`).
    found: dict[float, Future] = field(default_factory=dict, repr=False, compare=False)

    def outputs(self, example_id: str, run: int = 0) -> tuple[str, str]:
        """The baseline's and the candidate's output for ``example_id`` (run ``run``, or the
        last run a build has)."""
        base = self.baseline.runs[min(run, len(self.baseline.runs) - 1)]
        cand = self.candidate.runs[min(run, len(self.candidate.runs) - 1)]
        return base.outputs[example_id], cand.outputs[example_id]

    def key_part(self) -> list:
        """The bytes these texts were read from, as the figures' cache key names them: the
        references', then each build's (`history.read_part`)."""
        return [self.references.digest, history.read_part(self.baseline), history.read_part(self.candidate)]


def read_texts(suite: Suite, baseline: BuildEntry, candidate: BuildEntry, progress: Progress | None = None,
               ids: Sequence[str] = ()) -> Texts:
    """Read the references and the two builds (every problem a one-line SuiteError). ``ids``:
    the ids of figures shown already, whose strings the texts keep (not a second million)."""
    tell = progress or (lambda stage, fraction: None)
    tell("reading the references", 0.0)
    references = read_references(suite, _each_itself(ids) if ids else None)
    tell("reading build 1 of 2", 0.0)
    base = read_build(suite, baseline, like=[references.texts])
    tell("reading build 2 of 2", 0.0)
    cand = read_build(suite, candidate, like=[run.outputs for run in base.runs])
    return Texts(references, base, cand)


def _each_itself(ids: Sequence[str], block: int = 16_384) -> dict[str, str]:
    """Each of ``ids`` mapped to itself, made a block at a time: made in one call, a million
    ids would hold the GIL throughout, and with it the app's UI thread, which draws the first
    frame while the texts are read."""
    out: dict[str, str] = {}
    for start in range(0, len(ids), block):
        part = ids[start : start + block]
        out.update(zip(part, part))
    return out


def _earlier_part(suite: Suite, settings: Settings, baseline: str) -> list:
    """The earlier builds the volatile signal and the history band read, as the files are
    now (`history.entry_part`): what a key looked up before they are read names."""
    return [history.entry_part(suite, entry) for entry in history.earlier_entries(suite, settings, baseline)]


def _earlier_read(before: Sequence[history.BuildScores]) -> list:
    """The earlier builds as `compute` read them (`history.key_part`): what figures computed from
    them are stored under, so a build rewritten while it was read (and later put back) never
    lends its figures to the bytes the key was looked up with."""
    return [history.key_part(b.name, b.runs, b.digests, b.problem) for b in before]


# How the figures are worked out, beyond the signals' own versions: change it, bump it.
# 2: a build's coverage and density are over all its runs (were its first run's).
FIGURES = 2


def _figures_key(suite: Suite, settings: Settings, compared: list, earlier: list) -> str:
    """The figures' cache key: the settings, the engine, the signals' versions, the compared
    files' bytes (``compared``: `Texts.key_part`) and the earlier builds' (`_earlier_part`)."""
    return key("figures", FIGURES, repr(settings), engine.ENGINE, signals.versions(), suite.name,
               repr(suite.settings.fields), compared, earlier)


class Analysis:
    """One comparison: its figures now, its texts now or when first asked for (`texts`, a
    future: with cached figures they are read in the background then, and not at all by a
    report that needs none of them)."""

    def __init__(self, suite: Suite, settings: Settings, figures: Figures, texts: Future[Texts] | Callable[[], Texts],
                 key: str | None, reader: ThreadPoolExecutor | None = None, earlier: list | None = None) -> None:
        self.suite = suite
        self.settings = settings
        self.figures = figures
        self.key = key  # the figures' cache key (None: not cached)
        self._earlier = earlier or []  # the key's part from the earlier builds, read once
        self._texts = texts if isinstance(texts, Future) else None
        self._read = None if isinstance(texts, Future) else texts
        self._reader = reader
        self._lock = threading.Lock()

    @property
    def texts(self) -> Future[Texts]:
        with self._lock:
            if self._texts is None:
                pool = self._reader or ThreadPoolExecutor(1, thread_name_prefix="texts")
                self._texts = pool.submit(self._read)
                if self._reader is None:
                    pool.shutdown(wait=False)
            return self._texts

    def fresh(self, texts: Texts) -> bool:
        """Whether ``texts`` are the bytes the figures were computed from (a file may have
        changed between the figures read from the cache and the texts read after)."""
        return self.key is None or self.key == _figures_key(self.suite, self.settings, texts.key_part(), self._earlier)


def open_analysis(
    suite: Suite,
    settings: Settings,
    baseline: str | None = None,
    candidate: str | None = None,
    *,
    caches: Caches | None = None,
    progress: Progress | None = None,
    reader: ThreadPoolExecutor | None = None,
    early: Callable[[Analysis], None] | None = None,
) -> Analysis:
    """The comparison of two builds (by name; the suite's default pair when None).

    With cached figures for these bytes, the figures come back at once and the texts are
    read by ``reader`` (a thread) when first asked for; otherwise everything is read and
    scored before returning (and ``early``, if given, may have a comparison whose grounded
    signals are still being found first: `analyse`)."""
    caches = caches or Caches.none()
    base, cand = suite.pick(baseline, candidate)
    key = None
    if caches.figures is not None and base.problem is None and cand.problem is None:
        earlier = _earlier_part(suite, settings, base.name)
        try:
            runs = [build_digests(suite, b) for b in (base, cand)]  # a run a digest, as `Texts.key_part` counts
            compared = [references_digest(suite),
                        *(history.key_part(b.name, len(digests), digests) for b, digests in zip((base, cand), runs))]
            key = _figures_key(suite, settings, compared, earlier)
        except SuiteError:  # a file that cannot be read: said by reading it, below
            key = None
        suite.digest_memo.save()  # every file the key names, hashed: the next open need not
        if key is not None:
            found = caches.figures.get(key)
            if found is not None:
                try:
                    figures = Figures.from_bytes(found)
                except ValueError:
                    figures = None
                if figures is not None:
                    return Analysis(suite, settings, figures, lambda: read_texts(suite, base, cand, ids=figures.ids), key,
                                    reader, earlier)
    try:
        texts = read_texts(suite, base, cand, progress)
    except SuiteError as exc:
        mine = [entry for entry in (base, cand) if exc is entry.problem or exc.path in (entry.path, *entry.run_files)]
        if baseline is not None or candidate is not None or not mine:
            raise
        raise NewestUnreadable(exc, readable_pair(suite, mine[0]), mine[0].name) from None
    return analyse(suite, settings, texts, caches=caches, progress=progress, early=early)


def analyse(
    suite: Suite,
    settings: Settings,
    texts: Texts,
    *,
    caches: Caches | None = None,
    progress: Progress | None = None,
    early: Callable[[Analysis], None] | None = None,
) -> Analysis:
    """Score and compare texts already read (the app's metric and tokenizer switches), and
    keep the figures under the bytes they were computed from. ``early`` is given the comparison before its grounded signals are in, when they come last
    (`compute`): its figures are shown, not cached."""
    caches = caches or Caches.none()
    done: Future[Texts] = Future()
    done.set_result(texts)

    def shown_early(figures: Figures) -> None:
        assert early is not None
        early(Analysis(suite, settings, figures, done, None))

    figures, earlier = compute(suite, settings, texts, caches, progress, shown_early if early else None)
    key = None
    if caches.figures is not None:
        key = _figures_key(suite, settings, texts.key_part(), earlier)
        caches.figures.put(key, figures.to_bytes())
    return Analysis(suite, settings, figures, done, key, earlier=earlier)  # `fresh` needs both


# --------------------------------------------------------------------------- the work


# The references' first characters the zero-token guard reads: enough to tell (joined whole,
# they weighed on a big report's memory peak, held to its budget).
GUARD_CHARS = 4_000_000


def zero_token_warning(settings: Settings, references: Iterable[Sequence[str]]) -> str | None:
    """SPEC's zero-token guard: the tokenizer drops most of the references' letters and
    digits, so every score is near 0 and reads like drift."""
    entry = TOKENIZERS[settings.tokenizer]
    parts, size = [], 0
    for text in itertools.chain.from_iterable(references):
        if size > GUARD_CHARS:
            break
        parts.append(text)
        size += len(text) + 1
    text = "\n".join(parts)[:GUARD_CHARS]
    dropped = entry.dropped_share(text)
    if dropped <= 0.5:
        return None
    others = [e.name for e in TOKENIZERS.values() if e is not entry and e.for_other_scripts and e.dropped_share(text) <= 0.5]
    instead = " or ".join(others) or "another tokenizer"
    return (
        f"the {entry.name} tokenizer drops {dropped:.0%} of the references' letters and digits "
        f"(text outside its alphabet): scores near 0 read as drift; try --tokenizer {instead}"
    )


def earlier_history(suite: Suite, settings: Settings, texts: Texts, caches: Caches,
                    scorer: Scorer) -> list[history.BuildScores]:
    """`earlier_entries`, each scored through the caches and ``scorer``."""
    entries = history.earlier_entries(suite, settings, texts.baseline.name)
    return [history.build_scores(suite, entry, texts.references, settings, scorer) for entry in entries]


def compute(
    suite: Suite,
    settings: Settings,
    texts: Texts,
    caches: Caches | None = None,
    progress: Progress | None = None,
    early: Callable[[Figures], None] | None = None,
) -> tuple[Figures, list]:
    """Pair, score (through the caches), compare, rank and find the change signals; with the
    figures, the earlier builds as they were read (`_earlier_read`). ``early`` (the app, which
    draws them) is given the figures with their `Figures.pending` signals not yet found: what
    overlap cannot see is looked for after it returns, unless these texts' is found already
    (then ``early`` is given them only when it is not in by the time everything else is)."""
    caches = caches or Caches.none()
    tell = progress or (lambda stage, fraction: None)
    pairing = pairs.pair(texts.references, texts.baseline, texts.candidate)
    if not pairing.ids:
        raise ValueError(f"builds {texts.baseline.name!r} and {texts.candidate.name!r} share no example with a "
                         f"usable reference ({pairs.why_none_shared(texts.references, texts.baseline, texts.candidate)})")
    runs = pairs.run_pairs(texts.references, texts.baseline, texts.candidate, pairing.ids, settings.min_support)
    # What overlap cannot see needs no score: the report finds it beside the scoring, which
    # leaves the GIL free; so are the earlier build pairs' signal counts the signal bands come
    # from. The app (``early``) finds it once ``early`` has shown the figures: beside, its
    # Python held the first frame back by its share of the GIL (benchmarks/README.md, "The
    # app's first frame, cold").
    later = early is not None and runs[0].min_support not in texts.found
    grounded = None if later else unseen.grounding_of(texts, runs)
    before_counts = unseen.beside(lambda: pairs.earlier_counts(suite, settings, texts.references, texts.baseline,
                                                             caches.pairs))
    before, base, cand = _score_pair(suite, settings, texts, caches, pairing.ids, tell)
    tell("finding change signals", 0.0)
    figures, flags, order = _compared(suite, settings, texts, caches, pairing, runs, before, base, cand)
    if early is not None and (grounded is None or not (grounded.done() and before_counts.done())):
        early(figures)
        tell("finding new sentences and figures", 0.0)
    if grounded is None:
        grounded = unseen.grounding_of(texts, runs)
    found, copied = grounded.result()  # the grounded signals read them
    return _with_grounding(suite, settings, texts, caches, figures, runs, flags, order, found, copied,
                          before_counts.result()), _earlier_read(before)


def _score_pair(suite: Suite, settings: Settings, texts: Texts, caches: Caches, ids: list[str],
               tell: Progress) -> tuple[list[history.BuildScores], np.ndarray, np.ndarray]:
    """The earlier builds' history entries, then the baseline's and the candidate's (runs,
    len(ids), 3) precision, recall and F. The builds before the baseline first, in name order
    as they were made: each is scored against the one before (`Scorer`); each build's table
    is kept, which the history reads."""
    scorer = Scorer(texts.references, settings, caches.scores, repr(suite.settings.fields))
    before = earlier_history(suite, settings, texts, caches, scorer)
    base, cand = (
        scorer.score(build, ids, lambda f, s=f"scoring build {number} of 2": tell(s, f))
        for number, build in enumerate((texts.baseline, texts.candidate), 1)
    )
    return before, base, cand


def _with_history(settings: Settings, ids: list[str], before: list[history.BuildScores],
                  base_stats: compare.BuildStats, base_mean: np.ndarray
                  ) -> tuple[compare.BuildStats, list[history.BuildScores], str | None]:
    """The baseline's stats with the band the settings ask for (history or its own), the
    history the volatile signal reads, and why the history band could not be had (None: it
    could)."""
    # Its F by id is read by the volatile signal alone, against earlier builds: none, none kept.
    f = history.ByExample(ids, base_mean[:, 2]) if before else history.ByExample()
    shown_baseline = history.BuildScores(base_stats.name, base_stats.runs, base_stats, f)
    base_stats, too_few = history.baseline_stats([*before, shown_baseline], settings)
    return base_stats, [*before, shown_baseline], too_few


def _warnings(suite: Suite, settings: Settings, texts: Texts, ids: list[str], base_stats: compare.BuildStats,
              partial: dict[str, list[str]]) -> list[str]:
    """What the figures warn of beyond the history band: a baseline later than its candidate,
    the zero-token guard, a band of zero width, ids missing from some runs, and no source."""
    warnings = []
    order = [entry.name for entry in suite.builds]
    base, cand = texts.baseline.name, texts.candidate.name
    if base in order and cand in order and order.index(base) > order.index(cand):
        # (a pair swapped by hand: its band and earlier pairs end at the baseline, later)
        warnings.append(f"the baseline {base!r} comes after the candidate {cand!r} in the suite's order: the "
                        "delta runs backwards in time, and the bands come from builds later than the candidate")
    guard = zero_token_warning(settings, map(texts.references.texts.__getitem__, ids))
    if guard:
        warnings.append(guard)
    if base_stats.band[0] == base_stats.band[1]:
        warnings.append(
            "the baseline's band has zero width (identical runs or outputs): any change is "
            "drift; [band] min_delta in suite.toml sets the smallest delta that counts"
        )
    for name, left in partial.items():
        warnings.append(f"build {name!r}: {len(left)} {'id' if len(left) == 1 else 'ids'} missing from some runs, left out")
    if texts.references.sources.keys().isdisjoint(ids):
        warnings.append(signals.NO_SOURCE)
    return warnings


def _compared(suite: Suite, settings: Settings, texts: Texts, caches: Caches, pairing: pairs.Pairing,
             runs: list[signals.Pairs], before: list[history.BuildScores], base: np.ndarray,
             cand: np.ndarray) -> tuple[Figures, list[np.ndarray], np.ndarray]:
    """The figures of the scored pair, all but the grounded signals (`Figures.pending`): means,
    bands, verdict, ranking, the other signals, warnings; with each run's signal flags and
    the ranking's order, which `_with_grounding` completes."""
    ids = pairing.ids
    base_stats = compare.build_stats(texts.baseline.name, base[:, :, 2], settings.k)
    cand_stats = compare.build_stats(texts.candidate.name, cand[:, :, 2], settings.k)
    base_mean, cand_mean = compare.run_mean(base), compare.run_mean(cand)  # per example, over runs
    delta = cand_mean[:, 2] - base_mean[:, 2]
    order = compare.rank(ids, delta)
    base_stats, earlier, too_few = _with_history(settings, ids, before, base_stats, base_mean)
    for run in runs:
        run.extra["history"] = earlier
    flags = [signals.find(run, grounded=False) for run in runs]  # while what overlap cannot see is found
    delta_mean = compare.fmean(delta)
    moved = np.abs(delta)
    total = compare.fsum(moved)
    top_share = math.fsum(moved[order[: compare.TEN]].tolist()) / total if total else 0.0
    partial = {b.name: b.partial for b in (texts.baseline, texts.candidate) if b.partial}
    warnings = [*([too_few] if too_few else []), *_warnings(suite, settings, texts, ids, base_stats, partial)]
    replicated = len(runs) > 1
    figures = Figures(
        suite=suite.name,
        settings=settings,
        reference_fingerprint=texts.references.fingerprint,
        baseline=base_stats,
        candidate=cand_stats,
        ids=[ids[i] for i in order.tolist()],
        baseline_f=np.ascontiguousarray(base_mean[order, 2]),
        candidate_f=np.ascontiguousarray(cand_mean[order, 2]),
        delta=np.ascontiguousarray(delta[order]),
        signals=np.bitwise_or.reduce(flags)[order],
        delta_mean=delta_mean,
        delta_interval=compare.delta_interval(delta),
        delta_interval_method="analytic",
        delta_test=paired_test(delta).to_json(),
        verdict=compare.verdict(base_stats, cand_stats.mean, delta_mean, settings.min_delta),
        delta_precision=compare.fmean(cand_mean[:, 0] - base_mean[:, 0]),
        delta_recall=compare.fmean(cand_mean[:, 1] - base_mean[:, 1]),
        top_share=top_share,
        only_in_baseline=pairing.only_in_baseline,
        only_in_candidate=pairing.only_in_candidate,
        missing_reference=pairing.missing_reference,
        partial=partial,
        warnings=warnings,
        pending=tuple(s.name for s in signals.SIGNALS if s.grounded),
        run_f=({"baseline": np.ascontiguousarray(base[:, order, 2]), "candidate": np.ascontiguousarray(cand[:, order, 2])}
               if replicated else {}),
    )
    top = range(min(unseen.DETAIL_ROWS, len(ids)))  # each on the run the app's diff opens on
    figures.details = unseen.details(texts, [figures.ids[r] for r in top], settings.min_support, [figures.run_moved(r) for r in top])
    return figures, flags, order


def _with_grounding(suite: Suite, settings: Settings, texts: Texts, caches: Caches, figures: Figures,
                   runs: list[signals.Pairs], flags: list[np.ndarray], order: np.ndarray,
                   found: list[tuple[np.ndarray, ...]], copied: dict[str, list[float]],
                   before_counts: list[triage.PairCounts]) -> Figures:
    """``figures`` completed with what overlap cannot see (``found``, ``copied``: `_ground`):
    the grounded signals, the signal rates against their bands (``before_counts``: the earlier
    pairs'), the flagged and their details; this pair's counts kept for tomorrow's bands."""
    replicated = len(runs) > 1
    for run, flag, new in zip(runs, flags, found):
        run.grounded = new
        flag |= signals.find(run, grounded=True)
    every = np.bitwise_or.reduce(flags)
    counts = triage.PairCounts(texts.baseline.name, texts.candidate.name, figures.paired, signals.counts(every))
    pairs.remember_counts(suite, settings, texts.references, (texts.baseline, texts.candidate), caches.pairs, counts)
    alarm = signals.ALARM if settings.alarm is None else settings.alarm
    rates = triage.rates(counts.counts, figures.paired, before_counts, alarm)
    drifting = [rate.signal for rate in rates if rate.drift]
    new_figures = np.max([new[1] for new in found], axis=0)[order]
    least = np.min([new[2] for new in found], axis=0)[order]
    ranked = every[order]
    # The reading order from the top, as far as the ten and the flagged after them go: the
    # report leaves out the rows its --top lists, the app and the export the ten.
    flagged = triage.reading_order(ranked, drifting, new_figures, least, skip=0, limit=compare.TEN + triage.FLAGGED)
    # Each flagged row's evidence from the run where it says most (replicate runs: a figure
    # invented in run 2 only is not in run 1's text).
    said = [max(range(len(found)), key=lambda k, r=row: (found[k][1][order[r]], found[k][0][order[r]], -k))
            if replicated and (new_figures[row] or least[row] < 1) else figures.run_moved(row) for row in flagged]
    # An earlier pair that could not be read narrows the bands, or leaves none: said, with why.
    unread = [f"the signal bands leave out {c.baseline} -> {c.candidate}: {c.problem}"
              for c in before_counts if c.problem is not None]
    return replace(
        figures, signals=ranked, copied=copied, pending=(), rates=rates, flagged=flagged,
        warnings=[*figures.warnings, *unread],
        flagged_details=unseen.details(texts, [figures.ids[row] for row in flagged], settings.min_support, said),
        runs_fired=(np.sum([(f[order, None] >> np.arange(len(signals.SIGNALS), dtype=np.uint32)) & 1 for f in flags],
                           axis=0, dtype=np.uint8).T.copy() if replicated else None),
    )

