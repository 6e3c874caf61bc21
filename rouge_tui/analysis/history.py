"""The suite's history: every build in its order (by name, or a harness's dates), scored once (SPEC "History").

- `build_scores`: one build's per-example F over its own ids that have a usable reference,
  from its table of scores (`scores.Scorer`: kept under the bytes of its files, or scored),
  or its one-line error when it cannot be read;
- `trend`: every build's n, mean and band, and its paired delta against the build before;
  kept as one entry keyed by every build's bytes, so that a new build (or a last one
  rewritten) reads an entry and two tables (its own, and the one before it for its delta),
  not one table a build;
- `volatile`: the examples whose F moved by 0.05 or more in more than half of the last
  consecutive build pairs ending at the baseline (five at most, two at least);
- `history_band`: the baseline mean ± k · sd of the means of up to five builds ending with
  the baseline (None with fewer than three: the usual band then applies);
- `baseline_stats`: the baseline with the band its comparisons use (the report's and the
  history view's verdicts alike);
- `steps`: each build against the last build before it with figures: that build, the mean
  paired delta and the verdict (the history view's line and `report --history` alike).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from rouge_tui.analysis.compare import BuildStats, build_stats, run_mean, sd_band, verdict
from rouge_tui.analysis.scores import Scorer
from rouge_tui.analysis.settings import Settings
from rouge_tui.errors import SuiteError
from rouge_tui.rouge.engine import TooLong
from rouge_tui.store.cache import BlobCache, key, pack, unpack
from rouge_tui.suite.records import References
from rouge_tui.suite.suite import (
    Build,
    BuildEntry,
    Suite,
    build_digests,
    read_build,
    references_digest,
)

if TYPE_CHECKING:  # the comparison beside the history (`steps`): figures imports this through triage
    from rouge_tui.analysis.figures import Figures

__all__ = ["MOVE", "BuildScores", "ByExample", "HistoryRow", "Step", "baseline_stats", "build_scores",
           "changed_since_read", "earlier_entries", "entry_part", "history_band", "kept_trend", "key_part", "paired_delta",
           "read_part", "steps", "trend", "volatile"]

MOVE = 0.05  # an example "moved" between two builds when its F changed by this much or more
PAIRS = 5  # consecutive build pairs looked at for volatility
BAND_BUILDS = 5  # builds whose means make the band from history


@dataclass(frozen=True, eq=False)  # identity: arrays have no truth value to compare by
class ByExample:
    """Each of a build's ids with its F (the mean over its runs): the ids as one list (the
    build's own) and the values as one array, not a dict of a float an id (the volatile
    signal holds one for each of the builds it looks at; benchmarks/README.md, "The app's
    memory at 1M")."""

    ids: Sequence[str] = ()
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def at(self, ids: Sequence[str]) -> np.ndarray:
        """The F of each of ``ids``, NaN where this build has none."""
        if ids is self.ids or (len(ids) == len(self.ids) and ids == self.ids):
            return self.values
        out = np.full(len(ids), np.nan)
        if len(self.ids):
            where = dict(zip(self.ids, range(len(self.ids))))
            rows = np.fromiter((where.get(i, -1) for i in ids), np.intp, len(ids))
            out[rows >= 0] = self.values[rows[rows >= 0]]
        return out


@dataclass
class BuildScores:
    """One build of the history as scored: its figures and per-example F, or why it has none
    (what the volatile signal and a `HistoryRow`'s delta are worked out from)."""

    name: str
    runs: int
    stats: BuildStats | None
    f: ByExample
    problem: str | None = None
    # The sha256 of each run file, as read: what these figures were made from (a comparison's
    # key names them); empty when no file could be read.
    digests: tuple[str, ...] = ()


@dataclass(frozen=True)
class HistoryRow:
    """One build's line of the history (`trend`): its figures, or why it has none; ``delta``,
    the mean paired delta of its F against the last build before it with figures
    (`paired_delta`), None for a build without figures or with no such build before it."""

    name: str
    runs: int
    stats: BuildStats | None
    problem: str | None = None
    delta: float | None = None


def key_part(name: str, runs: int, digests: Sequence[str], problem: str | None = None) -> list:
    """One build as a cache key names it: its name, its run count and each run file's
    digest, or why none could be read; one list per build, so that a run file moved from one
    build's folder to the other's is another key."""
    return [name, runs, list(digests)] if digests else [name, runs, [], f"unreadable: {problem}"]


def read_part(build: Build) -> list:
    """`key_part` of ``build`` as it was read: what is kept from it is kept under."""
    return key_part(build.name, len(build.runs), [run.digest for run in build.runs])


def entry_part(suite: Suite, entry: BuildEntry) -> list:
    """`key_part` of ``entry`` as its files are now: what a key looked up before they are
    read names."""
    if entry.problem is not None:
        return key_part(entry.name, len(entry.run_files), (), str(entry.problem))
    try:
        digests = build_digests(suite, entry)
    except SuiteError as exc:  # scored as unreadable (`build_scores`) on the same grounds
        return key_part(entry.name, len(entry.run_files), (), str(exc))
    # A run a digest: an importer's file may hold several (promptfoo's --repeat).
    return key_part(entry.name, len(digests), digests)


def build_scores(suite: Suite, entry: BuildEntry, references: References, settings: Settings,
                 scorer: Scorer, build: Build | None = None, digests: Sequence[str] = ()) -> BuildScores:
    """One build's figures over its own ids with a usable reference, from its table
    (``scorer``'s: kept, or scored against the builds scored before it); ``build``: the
    build as already read, scored instead of its files as they are now; ``digests``: its
    files' digests as just taken (none: taken here)."""
    if build is None and entry.problem is not None:
        return BuildScores(entry.name, len(entry.run_files), None, ByExample(), str(entry.problem))
    try:
        digests = ([run.digest for run in build.runs] if build is not None
                   else list(digests) or build_digests(suite, entry))
    except SuiteError as exc:
        return BuildScores(entry.name, len(entry.run_files), None, ByExample(), str(exc))
    table = scorer.stored(digests) if build is None else None  # a build read is looked up by `table`
    if table is None:
        try:
            build = build if build is not None else read_build(suite, entry)
        except SuiteError as exc:
            # Unreadable as the bytes digested above, unless they changed meanwhile (then as
            # bytes no key names).
            same = digests == _digests_now(suite, entry)
            return BuildScores(entry.name, len(entry.run_files), None, ByExample(), str(exc), tuple(digests) if same else ())
        digests = [run.digest for run in build.runs]  # as read (replaced meanwhile: these)
        try:
            table = scorer.table(build)
        except TooLong as exc:  # the engine refuses an example
            return BuildScores(entry.name, len(build.runs), None, ByExample(), str(exc), tuple(digests))
    runs = len(table.values)
    if not table.ids:
        return BuildScores(entry.name, runs, None, ByExample(), "no example with a usable reference", tuple(digests))
    f = table.values[:, :, 2]
    # A copy: with one run the mean is a view that would keep the whole table (P, R and F).
    return BuildScores(entry.name, runs, build_stats(entry.name, f, settings.k),
                       ByExample(table.ids, run_mean(f).copy()), digests=tuple(digests))


def _digests_now(suite: Suite, entry: BuildEntry) -> list[str] | None:
    """The digests of ``entry``'s runs as they are now (None: one cannot be read)."""
    try:
        return build_digests(suite, entry, fresh=True)
    except SuiteError:
        return None


def trend(suite: Suite, references: References, settings: Settings, caches,
          progress: Callable[[str, float], None] | None = None, read: Sequence[Build] = ()) -> list[HistoryRow]:
    """Every build of the suite, in history order; those in ``read`` (a comparison's two) as
    they were read, so that the history beside a comparison shows that comparison's
    builds even where a file has changed since.

    The rows are kept as one entry under every build's bytes (`key_part`), the references'
    and the settings, and so are the rows of the builds before the last: a new build (or a
    last one rewritten, as a nightly job run again does) reads the entry kept for the builds
    before it, its own table and the one before it (for its delta), not one table a build.
    Rows are kept under the bytes they were made from, and a build rewritten while they are
    made keeps nothing."""
    known = {build.name: build for build in read}
    tell = progress or (lambda stage, fraction: None)
    fields = repr(suite.settings.fields)
    tell(f"reading the history: {len(suite.builds)} builds", 0.0)
    parts = [read_part(build) if (build := known.get(entry.name)) is not None else entry_part(suite, entry)
             for entry in suite.builds]
    suite.digest_memo.save()  # every build hashed: the next history need not
    store = caches.scores
    kept = (_kept_rows(store, settings, references.digest, fields, parts)
            or _kept_rows(store, settings, references.digest, fields, parts[:-1]) or [])
    scorer = Scorer(references, settings, store, fields)
    made = _made_rows(suite, references, settings, scorer, known, tell, parts, kept)
    if made is None:  # a build rewritten meanwhile: every row from its table, nothing kept
        rows, _ = _made_rows(suite, references, settings, scorer, known, tell, parts, [])
        return rows
    rows, made_from = made
    if len(kept) < len(rows) or made_from != parts:
        _keep_rows(store, settings, references.digest, fields, made_from, rows)
    if len(kept) < len(rows) - 1:  # a row depends on the builds up to its own alone
        _keep_rows(store, settings, references.digest, fields, made_from[:-1], rows[:-1])
    return rows


def kept_trend(suite: Suite, settings: Settings, caches) -> list[HistoryRow] | None:
    """`trend` as kept for every build's bytes as they are now (known by their stamps), no
    text read: a reopened `report --history` read every text for rows it then found kept.
    None when a row is not kept (or there is no cache): `trend` makes it."""
    if caches.scores is None:
        return None
    try:
        references = references_digest(suite)
    except SuiteError:
        return None
    parts = [entry_part(suite, entry) for entry in suite.builds]
    suite.digest_memo.save()
    rows = _kept_rows(caches.scores, settings, references, repr(suite.settings.fields), parts)
    return rows if rows is not None and all(row is not None for row in rows) else None  # type: ignore[return-value]


def _made_rows(suite: Suite, references: References, settings: Settings, scorer: Scorer, known: dict[str, Build],
               tell: Callable[[str, float], None], parts: list, kept: Sequence[HistoryRow | None]
               ) -> tuple[list[HistoryRow], list] | None:
    """Every build's row, ``kept`` where it holds one (null there: made again), the others
    from their tables; with the `key_part` of the bytes each was made from. None when a build
    ``kept`` names changed under it (not a row of its bytes as kept, or made from others)."""
    total = len(suite.builds)
    rows: list[HistoryRow] = []
    made: list = []
    last: tuple[int, BuildScores | None] | None = None  # the last build with figures (None: a kept row)
    for number, entry in enumerate(suite.builds):
        row = kept[number] if number < len(kept) else None
        if row is not None:
            rows.append(row)
            made.append(parts[number])
            last = (number, None)
            continue
        tell(f"scoring the history: build {number + 1} of {total}", number / total)
        scores = build_scores(suite, entry, references, settings, scorer, known.get(entry.name), parts[number][2])
        if scores.stats is not None and number < len(kept):  # kept as unreadable, yet read now
            return None
        delta = None
        if scores.stats is not None and last is not None:
            at, before = last
            if before is None:  # a kept row: its F from its table, of the bytes it was kept under
                before = build_scores(suite, suite.builds[at], references, settings, scorer,
                                      known.get(suite.builds[at].name), parts[at][2])
                if list(before.digests) != parts[at][2]:
                    return None
            delta = paired_delta(before, scores)
        if scores.stats is not None:
            last = (number, scores)
        rows.append(HistoryRow(scores.name, scores.runs, scores.stats, scores.problem, delta))
        made.append(key_part(entry.name, scores.runs, scores.digests, scores.problem))
    return rows, made


def _rows_key(settings: Settings, references: str, fields: str, parts: list) -> str:
    return key("history", settings.scoring, references, fields, settings.k, parts)


def _keep_rows(store: BlobCache | None, settings: Settings, references: str, fields: str, parts: list,
               rows: Sequence[HistoryRow]) -> None:
    """Keep ``rows`` (made from the bytes ``parts`` name) as one entry; a row without figures
    is kept as null (it is made again: its reason names the suite's path)."""
    if store is None or not parts:
        return
    kept = [None if r.stats is None else [r.runs, r.stats.n, r.stats.mean, list(r.stats.band), r.stats.band_source,
                                          list(r.stats.run_means), r.delta] for r in rows]
    store.put(_rows_key(settings, references, fields, parts), pack({"rows": kept}, np.zeros(0)))


def _kept_rows(store: BlobCache | None, settings: Settings, references: str, fields: str,
               parts: list) -> list[HistoryRow | None] | None:
    """The rows kept for the builds ``parts`` name (None: a row to make again), or None when
    there is no entry or it does not check out (corrupt or foreign: never trusted)."""
    if store is None or not parts:
        return None
    found = store.get(_rows_key(settings, references, fields, parts))
    if found is None:
        return None
    try:
        return _checked_rows(found, parts, settings.k)
    except (ValueError, TypeError):
        return None


def _checked_rows(data: bytes, parts: list, k: float) -> list[HistoryRow | None]:
    """What `_keep_rows` wrote for ``parts``, each figure checked (a ValueError or a TypeError
    for anything else): a mean and each run's in [0, 1], a band around the mean (with
    replicate runs, the mean ± ``k`` · the sample sd of the run means, as `build_stats` makes
    it), a delta in [-1, 1] exactly where an earlier build has figures."""
    head, values = unpack(data)
    kept = head.get("rows")
    if not isinstance(kept, list) or len(kept) != len(parts) or values.size:
        raise ValueError("a kept history of other builds")
    rows: list[HistoryRow | None] = []
    earlier = False
    for part, row in zip(parts, kept):
        if row is None:
            rows.append(None)
            continue
        runs, n, mean, band, source, run_means, delta = row
        low, high = band
        numbers = [mean, low, high, *run_means] + ([] if delta is None else [delta])
        if (type(runs) is not int or runs != part[1] or len(part[2]) != runs or type(n) is not int or n < 1
                or not all(type(x) is float and math.isfinite(x) for x in numbers)
                or not 0 <= mean <= 1 or not low <= mean <= high or len(run_means) != runs
                or not all(0 <= x <= 1 for x in run_means)
                or source != ("replicates" if runs >= 2 else "analytic")
                or (runs == 1 and mean != run_means[0])  # one run: its mean is the build's (`build_stats`)
                or (runs >= 2 and (low, high) != sd_band(mean, run_means, k))
                or (delta is None) == earlier or (delta is not None and not -1 <= delta <= 1)):
            raise ValueError("a kept history row does not check out")
        earlier = True
        stats = BuildStats(part[0], runs, n, mean, (low, high), source, tuple(run_means))
        rows.append(HistoryRow(part[0], runs, stats, None, delta))
    return rows


def changed_since_read(suite: Suite, read: Sequence[Build]) -> list[str]:
    """The names of the builds in ``read`` whose files are no longer the bytes read."""
    def same(build: Build) -> bool:
        try:
            return build_digests(suite, suite.build(build.name), fresh=True) == [run.digest for run in build.runs]
        except SuiteError:  # gone, or unreadable: not the bytes read
            return False

    return [build.name for build in read if not same(build)]


def earlier(suite: Suite, baseline: str, builds: int = PAIRS + 1) -> list[BuildEntry]:
    """The last ``builds`` builds ending with the baseline, in history order."""
    names = [entry.name for entry in suite.builds]
    end = names.index(baseline) + 1
    return suite.builds[max(0, end - builds) : end]


def earlier_entries(suite: Suite, settings: Settings, baseline: str) -> list[BuildEntry]:
    """The builds before the baseline that volatility and the history band look at (enough
    for both windows, whatever the band's source: the volatile signal must not depend on
    it), in name order; [] when there are too few to matter."""
    needed = max(PAIRS + 1, BAND_BUILDS)
    entries = earlier(suite, baseline, needed)[:-1]
    if len(entries) < 2 and settings.band_source != "history":
        return []  # one earlier build makes one pair with the baseline: never volatile
    return entries


def volatile(ids: Sequence[str], history: Sequence[BuildScores]) -> np.ndarray:
    """For each of ``ids``: whether its F moved by MOVE or more in more than half of the
    consecutive pairs of ``history`` (builds in history order ending with the baseline) in
    which it was scored; fewer than two such pairs and it is not volatile."""
    pairs = [(a, b) for a, b in pairwise(history) if a.stats is not None and b.stats is not None][-PAIRS:]
    if len(pairs) < 2:
        return np.zeros(len(ids), dtype=bool)
    f = {id(build): build.f.at(ids) for pair in pairs for build in pair}  # NaN: no F; each build once
    seen = np.zeros(len(ids), dtype=np.int64)
    moved = np.zeros(len(ids), dtype=np.int64)
    for a, b in pairs:
        old, new = f[id(a)], f[id(b)]
        both = ~(np.isnan(old) | np.isnan(new))
        seen += both
        moved += both & (np.abs(new - old) >= MOVE)
    return (seen >= 2) & (moved > seen / 2)


def paired_delta(before: BuildScores, after: BuildScores) -> float:
    """The mean of ``after``'s F minus ``before``'s over the ids both have (0.0: none)."""
    old = before.f.at(after.f.ids)
    both = ~np.isnan(old)
    shared = int(both.sum())
    return math.fsum((after.f.values[both] - old[both]).tolist()) / shared if shared else 0.0


def baseline_stats(history: Sequence[BuildScores | HistoryRow], settings: Settings) -> tuple[BuildStats, str | None]:
    """The last build of ``history`` (builds in history order ending with the baseline) with the
    band a comparison against it uses: its own, or with [band] source = "history" the band
    from history; with too few builds for that, its own band and a warning saying so."""
    baseline = history[-1].stats
    if settings.band_source != "history":
        return baseline, None
    window = history[-BAND_BUILDS:]
    band = history_band(window, baseline, settings.k)
    if band is None:
        return baseline, (
            f"[band] source = \"history\" needs three builds with scores up to the baseline; "
            f"there were {sum(h.stats is not None for h in window)}: the {baseline.band_source} band is used"
        )
    return replace(baseline, band=band, band_source="history"), None


@dataclass(frozen=True)
class Step:
    """A build against the last build before it with figures (``against``): the mean paired
    delta of their F and the verdict, by the rule and band a comparison of the two uses
    (``band``: that build's own, or with [band] source = "history" the band from history)."""

    against: str
    delta: float
    verdict: str
    band: BuildStats


def steps(rows: Sequence[HistoryRow], settings: Settings, compared: Figures | None = None) -> list[Step | None]:
    """Each row's `Step` (None for a build without figures, or with none before it); the
    pair ``compared`` (the comparison shown beside the history) with the comparison's own
    delta, verdict and band, over the ids the pair shares: one number for one pair."""
    out: list[Step | None] = []
    last = None  # the last row so far with figures
    for number, row in enumerate(rows):
        if row.stats is not None and row.delta is not None and last is not None:
            pair = (rows[last].name, row.name)
            if compared is not None and pair == (compared.baseline.name, compared.candidate.name):
                out.append(Step(pair[0], compared.delta_mean, compared.verdict, compared.baseline))
            else:
                before, _ = baseline_stats(rows[: last + 1], settings)
                said = verdict(before, row.stats.mean, row.delta, settings.min_delta)  # over the ids both have
                out.append(Step(pair[0], row.delta, said, before))
        else:
            out.append(None)
        if row.stats is not None:
            last = number
    return out


def history_band(history: Sequence[BuildScores | HistoryRow], baseline: BuildStats, k: float) -> tuple[float, float] | None:
    """The baseline mean ± k · sample sd of the means of up to BAND_BUILDS builds ending
    with the baseline; None with fewer than three (the usual band then applies)."""
    means = [h.stats.mean for h in history if h.stats is not None][-BAND_BUILDS:]
    if len(means) < 3:
        return None
    return sd_band(baseline.mean, means, k)
