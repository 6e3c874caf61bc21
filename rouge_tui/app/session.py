"""The state of one review, kept apart from the widgets so it can be tested without a terminal.

A ``Review`` holds a loaded suite, the build pair and scoring settings on screen, the analysis
for them, and the review marks of that pair. Everything slow (loading, scoring, filtering,
rendering a diff for the export) is a plain function here that the screens run in workers.
Nothing in this module imports Textual.
"""

from __future__ import annotations

import argparse
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rouge_tui.app.prefetch import Prefetch, PrefetchedSnapshots
from rouge_tui.compare import Comparison
from rouge_tui.diff import ExampleDiff
from rouge_tui.report import (
    history_entry,
    marks_json,
    md,
    render_markdown,
    to_json,
    verdict_mark,
    verdict_words,
)
from rouge_tui.scoring import Analysis, Progress, ScoreSettings, analyse, resolve_settings
from rouge_tui.snapshot import Opened, SnapshotStore, attach_texts, open_analysis, open_options
from rouge_tui.state import (
    History,
    Mark,
    MarkStore,
    ReferenceChange,
    ScoreCache,
    atomic_write_text,
    data_dir,
    load_user_defaults,
    outputs_hash,
    safe_name,
)
from rouge_tui.suite import Build, Suite, load_suite

METRIC_CYCLE = ("rouge1", "rouge2", "rougeL", "rougeLsum")
TOKENIZER_CYCLE = ("whitespace", "rouge-score")
TEN = 10
# Diff models kept per review (a walk of the ten and some browsing around it), each of an
# example of at most so many characters (a huge one is made again when opened again).
DIFFS_KEPT = 24
DIFF_KEEP_CHARS = 200_000
# Mark words shortened for narrow tables: "at least its first four letters" (SPEC).
SHORT_MARKS = {"fine": "fine", "regression": "regr", "unsure": "unsu"}


def option(options: argparse.Namespace | None, name: str, default: object = None) -> object:
    """One command-line option, tolerating a namespace that lacks it (tests, other callers)."""
    return getattr(options, name, default) if options is not None else default


def next_in(cycle: Sequence[str], current: str) -> str:
    """The value after ``current`` in ``cycle``, wrapping round."""
    try:
        return cycle[(cycle.index(current) + 1) % len(cycle)]
    except ValueError:
        return cycle[0]


@dataclass(frozen=True)
class MarkCell:
    """What the table shows in a row's mark column."""

    mark: str
    stale: bool
    has_note: bool

    def word(self, short: bool = False) -> str:
        """``regression`` (or ``regr`` when short), ``*`` when stale, ``+`` when noted."""
        base = SHORT_MARKS.get(self.mark, self.mark[:4]) if short else self.mark
        return base + ("*" if self.stale else "") + ("+" if self.has_note else "")


class Review:
    """One suite under review: builds, settings, analysis and marks, without any widget."""

    def __init__(
        self,
        suite: Suite,
        analysis: Analysis,
        cache: ScoreCache | None,
        stem_preference: bool,
        warnings: Sequence[str] = (),
        reference_change: ReferenceChange | None = None,
        opened: Opened | None = None,
    ) -> None:
        # Until the texts are loaded (see `texts_ready`), `suite` is a shell from a snapshot:
        # names, settings and the fingerprint, no outputs or references.
        self.suite = suite
        self._opened = opened if opened is not None and not opened.texts else None
        # the frozen references moved since an earlier review of this suite (from History)
        self.reference_change = reference_change
        self.cache = cache
        self.stem_preference = stem_preference
        self.warnings = list(warnings)
        self.analysis = analysis
        self.store = self._open_store()
        self._stale: dict[str, bool] = {}
        self._refresh_stale()
        # Diff models already made (see `diff_model`), oldest first; made in worker threads.
        self._diffs: OrderedDict[tuple[object, ...], ExampleDiff] = OrderedDict()
        self._making: dict[tuple[object, ...], threading.Event] = {}
        self._diffs_lock = threading.Lock()

    # ------------------------------------------------------------------ figures

    @property
    def comparison(self) -> Comparison:
        return self.analysis.comparison

    @property
    def settings(self) -> ScoreSettings:
        return self.analysis.settings

    @property
    def baseline(self) -> Build:
        return self.analysis.baseline

    @property
    def candidate(self) -> Build:
        return self.analysis.candidate

    @property
    def texts_ready(self) -> bool:
        """Whether outputs and references are loaded (diffs, filters, marks need them)."""
        return self._opened is None

    def load_texts(self, progress: Progress | None = None) -> tuple[Analysis, bool]:
        """The analysis with the suite's texts (slow: run it in a worker; `adopt_texts` shows
        it). True when the files changed since the snapshot and the figures were recomputed."""
        if self._opened is None:
            return self.analysis, False
        return attach_texts(self._opened, self.cache, progress)

    def adopt_texts(self, analysis: Analysis) -> None:
        """Take the loaded texts (and the figures, if they had to be recomputed)."""
        fingerprint = self.suite.fingerprint
        with self._diffs_lock:
            self._diffs.clear()  # made from other texts
        self._opened = None
        self.suite = analysis.suite
        self.analysis = analysis
        if analysis.suite.fingerprint != fingerprint:
            self.store = self._open_store()
        self._refresh_stale()

    @property
    def ten(self) -> int:
        """How many examples the walk covers: ten, or all of them when fewer are paired."""
        return min(TEN, self.comparison.paired)

    def outputs(self, example_id: str) -> tuple[str, str]:
        """The baseline and candidate outputs shown for ``example_id`` (each build's first run)."""
        return self.baseline.output(example_id), self.candidate.output(example_id)

    def references(self, example_id: str) -> tuple[str, ...]:
        return self.suite.references.get(example_id, ())

    def diff_model(self, example_id: str) -> ExampleDiff:
        """The diff of ``example_id`` against its reference(s) under the current settings and
        build pair (`rouge_tui.diff.example_diff`), made once: the screens warm the row the
        cursor rests on and the next step of a walk, so opening it only draws. Thread-safe."""
        from rouge_tui.diff import example_diff

        # One read of the analysis and the suite: a worker may run while another is adopted.
        analysis, suite = self.analysis, self.suite
        s = analysis.settings
        pair = (analysis.baseline.name, analysis.candidate.name)
        key = (example_id, *pair, s.metric, s.tokenizer, s.stem)
        while True:
            with self._diffs_lock:
                found = self._diffs.get(key)
                if found is not None:
                    return found
                making = self._making.get(key)
                if making is None:  # nobody is making it: this thread does
                    making = self._making[key] = threading.Event()
                    break
            making.wait()  # another thread is making it (the warm-up): take theirs
        try:
            baseline = analysis.baseline.output(example_id)
            candidate = analysis.candidate.output(example_id)
            references = tuple(suite.references.get(example_id, ()))
            made = example_diff(
                example_id, references, baseline, candidate, s.metric, s.tokenizer, s.stem
            )
            if sum(map(len, references)) + len(baseline) + len(candidate) <= DIFF_KEEP_CHARS:
                with self._diffs_lock:
                    self._diffs[key] = made
                    while len(self._diffs) > DIFFS_KEPT:
                        self._diffs.popitem(last=False)
            return made
        finally:
            with self._diffs_lock:
                del self._making[key]
            making.set()

    # ------------------------------------------------------------------ rescoring

    def settings_for(
        self,
        base: ScoreSettings | None = None,
        *,
        metric: str | None = None,
        tokenizer: str | None = None,
    ) -> ScoreSettings:
        """``base`` (default: the current settings) with another metric or tokenizer.

        Stemming only exists with the rouge-score tokenizer: switching to ``whitespace`` turns it
        off and switching back restores what the suite or the flags asked for.
        """
        settings = base or self.settings
        if metric is not None:
            settings = replace(settings, metric=metric)
        if tokenizer is not None:
            stem = self.stem_preference if tokenizer == "rouge-score" else False
            settings = replace(settings, tokenizer=tokenizer, stem=stem)
        return settings

    def rescore(
        self,
        settings: ScoreSettings,
        baseline: Build | None = None,
        candidate: Build | None = None,
        progress: Progress | None = None,
    ) -> Analysis:
        """A new analysis (slow: run it in a worker); ``adopt`` puts it on screen."""
        return analyse(
            self.suite,
            baseline or self.baseline,
            candidate or self.candidate,
            settings,
            self.cache,
            progress,
        )

    def adopt(self, analysis: Analysis) -> None:
        """Show ``analysis``; a different build pair brings that pair's marks."""
        pair_changed = (analysis.baseline.name, analysis.candidate.name) != (
            self.baseline.name,
            self.candidate.name,
        )
        self.analysis = analysis
        if pair_changed:
            self.store = self._open_store()
        self._refresh_stale()

    # ------------------------------------------------------------------ marks

    def _open_store(self) -> MarkStore:
        store = MarkStore(
            self.suite.name, self.suite.fingerprint, self.baseline.name, self.candidate.name
        )
        store.load()
        if store.warning:
            self.warnings.append(store.warning)
        return store

    def _refresh_stale(self) -> None:
        self._stale = {}
        if not self.texts_ready:
            return  # unknown until the outputs are loaded; refreshed by `adopt_texts`
        for example_id, mark in self.store.marks.items():
            try:
                current = outputs_hash(*self.outputs(example_id))
            except KeyError:
                continue
            self._stale[example_id] = current != mark.outputs

    def mark_of(self, example_id: str) -> Mark | None:
        return self.store.marks.get(example_id)

    def mark_cell(self, example_id: str) -> MarkCell | None:
        mark = self.store.marks.get(example_id)
        if mark is None:
            return None
        return MarkCell(mark.mark, self._stale.get(example_id, False), bool(mark.note))

    def is_stale(self, example_id: str) -> bool:
        return self._stale.get(example_id, False)

    def set_mark(
        self, example_id: str, mark: str | None = None, note: str | None = None
    ) -> str | None:
        """Record a mark and/or note for the outputs now on screen; returns a notice, if any."""
        notice = self.store.set(example_id, mark, note, outputs_hash(*self.outputs(example_id)))
        self._refresh_stale()
        return notice

    def clear_mark(self, example_id: str) -> None:
        self.store.clear(example_id)
        self._refresh_stale()

    # ------------------------------------------------------------------ table order

    def view(self, sort: str, matches: np.ndarray | None = None) -> np.ndarray:
        """Row order for the table: indices into the ranked arrays, sorted, then filtered."""
        order = self.comparison.order(sort)
        if matches is not None:
            order = order[matches[order]]
        return order

    # ------------------------------------------------------------------ export

    def export_path(self, now: datetime) -> Path:
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        name = f"review-{safe_name(self.suite.name, 30)}-{safe_name(self.candidate.name, 30)}-{stamp}.md"
        return data_dir() / "exports" / name

    def export(self, now: datetime | None = None) -> Path:
        """Write the Markdown review to the data directory (atomically); returns its path."""
        now = now or datetime.now(UTC)
        path = self.export_path(now)
        atomic_write_text(path, self.review_markdown(now))
        return path

    def review_markdown(self, now: datetime) -> str:
        """Figures, verdict and signature (the report's Markdown), then every marked example
        with its mark, note and a plain-text rendering of its diff."""
        from rouge_tui.diff import example_diff, markdown_block, output_alignment, render_plain

        comparison = self.comparison
        marks = self.store.marks
        current = {}
        for example_id in marks:
            try:
                current[example_id] = outputs_hash(*self.outputs(example_id))
            except KeyError:
                continue
        data = to_json(self.analysis, TEN, marks_json(marks, current))
        rank_of = {example_id: rank for rank, example_id in enumerate(comparison.ids, 1)}
        lines = [
            render_markdown(data).rstrip("\n"),
            "",
            (
                f"Exported by rouge-tui on {now.strftime('%Y-%m-%d %H:%M UTC')}; "
                f"baseline {md(self.baseline.name)}, candidate {md(self.candidate.name)}."
            ),
            "",
            f"## Reviewed examples ({len(marks)})",
        ]
        if not marks:
            lines += ["", "No example has been marked yet."]
        reviewed = sorted(marks, key=lambda i: (rank_of.get(i, len(rank_of) + 1), i))
        for example_id in reviewed:
            mark = marks[example_id]
            rank = rank_of.get(example_id)
            lines += ["", f"### {f'{rank}. ' if rank else ''}{md(example_id)}: {mark.mark}", ""]
            if rank is None:
                lines.append("Not among the paired examples of this build pair any more.")
                continue
            index = rank - 1
            lines.append(
                f"Baseline F {comparison.baseline_f[index]:.4f}, candidate F "
                f"{comparison.candidate_f[index]:.4f}, delta {comparison.delta[index]:+.4f}."
            )
            if current.get(example_id) != mark.outputs:
                lines.append("**Stale**: the outputs changed since this mark was set.")
            lines.append(f"Note: {md(mark.note)}" if mark.note else "Note: (none)")
            baseline, candidate = self.outputs(example_id)
            settings = self.settings
            diff = example_diff(
                example_id,
                self.references(example_id),
                baseline,
                candidate,
                settings.metric,
                settings.tokenizer,
                settings.stem,
            )
            rows = output_alignment(baseline, candidate, settings.tokenizer)
            lines += ["", markdown_block(render_plain(diff, rows)).rstrip("\n")]
        return "\n".join(lines) + "\n"


def find_matches(
    comparison: Comparison,
    baseline: Build,
    candidate: Build,
    query: str,
    cancelled: Callable[[], bool] = lambda: False,
) -> np.ndarray | None:
    """Which ranked examples contain ``query`` (case-insensitive) in the id or either output.

    ``None`` for an empty query (no filter). Stops early when ``cancelled()`` says a newer
    query replaced this one (the caller then drops the result).
    """
    needle = query.strip().casefold()
    if not needle:
        return None
    base = baseline.runs[0].outputs
    cand = candidate.runs[0].outputs
    found = np.zeros(comparison.paired, dtype=bool)
    for index, example_id in enumerate(comparison.ids):
        if index % 4096 == 0 and cancelled():
            break
        found[index] = (
            needle in example_id.casefold()
            or needle in cand[example_id].casefold()
            or needle in base[example_id].casefold()
        )
    return found


def open_review(
    path: Path,
    options: argparse.Namespace | None = None,
    progress: Progress | None = None,
    *,
    defer_texts: bool = False,
    prefetch: Prefetch | None = None,
) -> Review:
    """Open a suite and analyse the build pair the options ask for (slow: run in a worker).

    A snapshot of an earlier analysis of the same files and settings is shown without parsing
    the suite; with ``defer_texts`` its texts are then left for `Review.load_texts`, so the
    figures and the ranking can be on screen first. ``no_cache`` skips snapshots too. A
    ``prefetch`` started for this suite is waited for and its snapshot used when its key
    matches (see `prefetch`).
    """
    kwargs, warning = open_options(options)
    stem_flag = kwargs["stem"]
    no_cache = kwargs.pop("no_cache")
    cache = None if no_cache else ScoreCache()
    snapshots = None if no_cache else SnapshotStore()
    if prefetch is not None:
        snapshots = PrefetchedSnapshots(prefetch, snapshots, progress)  # type: ignore[assignment]
    opened = open_analysis(
        path,
        **kwargs,
        cache=cache,
        snapshots=snapshots,
        progress=progress,
        texts=not defer_texts,
    )
    analysis = opened.analysis
    suite, baseline, candidate = analysis.suite, analysis.baseline, analysis.candidate
    stem_preference = bool(stem_flag) if stem_flag is not None else bool(suite.settings.stem)
    # As the report does: say when the references moved under these builds, then record it.
    history = History(suite.name)
    change = history.reference_change(suite.fingerprint, (baseline.name, candidate.name))
    history.record(history_entry(to_json(analysis, 0)))
    warnings = [w for w in (warning, change.message() if change else None, history.warning) if w]
    return Review(suite, analysis, cache, stem_preference, warnings, change, opened)


@dataclass(frozen=True)
class SuiteSummary:
    """One line of the suite list: name, build count and the newest pair's verdict."""

    path: Path
    name: str
    builds: int
    verdict: str | None  # None when fewer than two builds
    delta: float | None
    error: str | None = None

    def verdict_text(self) -> str:
        if self.error is not None:
            return "error"
        if self.verdict is None:
            return "needs two builds"
        return f"{verdict_mark(self.verdict)} {verdict_words(self.verdict)}"


def summarise_suite(path: Path, no_cache: bool = False) -> SuiteSummary:
    """Load a suite and score its newest pair with default settings (the cache makes it cheap)."""
    from rouge_tui.scoring import UsageError
    from rouge_tui.suite import SuiteError

    try:  # a snapshot answers without parsing the suite; anything odd takes the path below
        defaults, _ = load_user_defaults()
        cache = None if no_cache else ScoreCache()
        snapshots = None if no_cache else SnapshotStore()
        opened = open_analysis(
            path, defaults=defaults, cache=cache, snapshots=snapshots, texts=False
        )
    except (SuiteError, UsageError, ValueError, RuntimeError, OSError):
        pass
    else:
        suite, comparison = opened.analysis.suite, opened.analysis.comparison
        return SuiteSummary(
            path, suite.name, len(suite.builds), comparison.verdict, comparison.delta_mean
        )
    try:
        suite = load_suite(path)
    except (SuiteError, OSError) as exc:
        return SuiteSummary(path, path.name, 0, None, None, str(exc))
    if len(suite.builds) < 2:
        return SuiteSummary(path, suite.name, len(suite.builds), None, None)
    try:
        baseline, candidate = suite.pick(None, None)
        defaults, _ = load_user_defaults()
        settings = resolve_settings(suite, defaults=defaults)
        analysis = analyse(suite, baseline, candidate, settings, None if no_cache else ScoreCache())
    except (SuiteError, UsageError, ValueError, RuntimeError) as exc:
        return SuiteSummary(path, suite.name, len(suite.builds), None, None, str(exc))
    comparison = analysis.comparison
    return SuiteSummary(
        path, suite.name, len(suite.builds), comparison.verdict, comparison.delta_mean
    )


def describe_sort(sort: str) -> str:
    return {
        "|delta|": "by |delta|",
        "regressions": "regressions first",
        "improvements": "improvements first",
        "id": "by id",
    }.get(sort, sort)
