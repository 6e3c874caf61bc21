"""The review: a person's marks laid on the comparison in front of them.

`Review` joins an analysis (figures and texts) with the suite's mark store and says how each
mark shows on this comparison: made here (stale when the outputs changed since), carried from
another build pair whose two outputs were the same, or made against earlier references. It
also records new marks and notes. The report, the export and the app all go through it; it
imports no Textual.

`open_review` is the one way in: the command line builds a `Request` once, and the report,
the app and the list of suites each turn it into an `Opened` review through it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rouge_tui.analysis.pipeline import (
    Analysis,
    Caches,
    Progress,
    Texts,
    analyse,
    open_analysis,
)
from rouge_tui.errors import SuiteError, quoted_list
from rouge_tui.store.log import ReferenceChange, ReviewLog
from rouge_tui.store.marks import MARKS, Mark, MarkStore, outputs_hash
from rouge_tui.suite.suite import NewestUnreadable, Suite, SuiteRef

__all__ = ["Opened", "Request", "Review", "Shown", "SuiteRef", "list_suite", "open_review", "user_theme"]


@dataclass(frozen=True)
class Request:
    """What a person asked to review: a suite, the flags given (None: not given, so the
    suite's setting or the default) and whether the cache is used."""

    path: Path
    format: str | None = None  # how the path is read (None: native, else by its files' shape)
    name: str | None = None  # which suite, where an importer finds several at the path
    baseline: str | None = None
    candidate: str | None = None
    metric: str | None = None
    tokenizer: str | None = None
    stem: bool | None = None
    k: float | None = None
    cache: bool = True

    @classmethod
    def of(cls, where: Path | str | SuiteRef, flags: object = None) -> Request:
        """The request the command line's ``flags`` (an argparse namespace; a missing
        attribute: not given) make for the suite at ``where``: a path (read as ``--layout`` /
        ``--suite-name`` say) or a suite the list found (its own format and name)."""
        given = {name: getattr(flags, name, None) for name in ("baseline", "candidate", "metric", "tokenizer", "stem", "k")}
        if isinstance(where, SuiteRef):
            path, format, name = where.path, where.format, where.name
        else:
            path, format, name = Path(where), getattr(flags, "layout", None), getattr(flags, "suite_name", None)
        return cls(path, format, name, **given, cache=not getattr(flags, "no_cache", False))

    def caches(self) -> Caches:
        """The stores this request reads and fills (none with --no-cache)."""
        return Caches.default() if self.cache else Caches.none()


@dataclass
class Opened:
    """A request turned into a review: the comparison, the caches it went through, the warnings
    that come with it (the marks', the cache's, the log's), how the frozen references moved
    since the builds were last reviewed, and, where the newest pair could not be read and the
    newest that can be is shown instead, why."""

    request: Request
    analysis: Analysis
    caches: Caches
    warnings: list[str] = field(default_factory=list)
    change: ReferenceChange | None = None
    unreadable: NewestUnreadable | None = None
    _review: Review | None = field(default=None, repr=False)
    _marks: dict[str, dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def exit_code(self) -> int:
        """``report``'s exit status: 1 for a ROUGE drift or a signal drift, else 0."""
        return 1 if self.analysis.figures.alarm else 0

    def texts(self) -> Texts:
        """The compared texts, read now if the figures came from the cache; figures computed
        again if a file changed since they were cached."""
        texts = self.analysis.texts.result()
        if not self.analysis.fresh(texts):
            self.analysis = analyse(self.analysis.suite, self.analysis.settings, texts, caches=self.caches)
            self._review = None
        return texts

    def review(self) -> Review:
        """The marks laid on this comparison (reads the texts)."""
        texts = self.texts()
        if self._review is None or self._review.analysis is not self.analysis:
            self._review = Review(self.analysis, texts)
        return self._review

    def marks(self) -> dict[str, dict[str, Any]]:
        """The marks as the report's JSON gives them, judged once; the texts are read only
        when there are marks to judge against them. Why the marks could not be read goes to
        `warnings`."""
        if self._marks is None:
            store = store_for(self.analysis, self.analysis.figures.reference_fingerprint)
            store.load()
            self._marks = {}
            if store.all:  # marks need the texts: is each still about the same outputs?
                review = self.review()
                self._marks, store = review.marks_json(), review.store
            if store.warning:
                self.warnings.insert(0, store.warning)
        return self._marks

    def history(self) -> list[dict[str, Any]]:
        """Every build's n, mean and band, in name order, and its paired delta and verdict
        against the build before it with figures (``report --history``): for the pair
        compared, the comparison's own, as the history view shows them."""
        from rouge_tui.analysis.history import kept_trend, steps, trend

        settings, figures = self.analysis.settings, self.analysis.figures
        rows = kept_trend(self.analysis.suite, settings, self.caches)
        if rows is None:
            texts = self.texts()
            rows = trend(self.analysis.suite, texts.references, settings, self.caches,
                         read=(texts.baseline, texts.candidate))
        out = []
        for h, step in zip(rows, steps(rows, settings, figures)):
            out.append({"name": h.name, "runs": h.runs, "n": h.stats.n if h.stats else None,
                        "mean": h.stats.mean if h.stats else None,
                        "band": list(h.stats.band) if h.stats else None,
                        "band_source": h.stats.band_source if h.stats else None,
                        "against": step and step.against, "delta": step and step.delta,
                        "verdict": step and step.verdict, "against_band": step and list(step.band.band),
                        "against_band_source": step and step.band.band_source,
                        **({"error": h.problem} if h.problem else {})})
        return out


def list_suite(request: Request) -> Suite:
    """The request's suite listed: its settings, references found and builds named, none
    read (the list of suites shows a suite's name and builds even when they cannot be
    compared)."""
    from rouge_tui.suite.suite import open_suite

    return open_suite(request.path, request.format, request.name)


def user_theme(themes: Sequence[str]) -> str | None:
    """The theme the user's config.toml names (None: none), one of ``themes``; a bad
    config.toml is a SuiteError naming the file and line."""
    from rouge_tui.store.paths import config_dir
    from rouge_tui.suite.toml import read_user_defaults

    theme = read_user_defaults(config_dir() / "config.toml", themes=list(themes)).theme
    if isinstance(theme, SuiteError):
        raise theme
    return theme


def open_review(
    request: Request,
    *,
    marks: bool = True,
    log: bool = True,
    fall_back: bool = False,
    progress: Progress | None = None,
    early: Callable[[Analysis], None] | None = None,
) -> Opened:
    """The one way from a request to its review: the suite opened, its settings settled with
    the flags, the two builds compared through the caches; with ``marks``, the marks judged
    now (else when first asked for: the app shows the figures before the texts are in); with
    ``log``, the review recorded in the suite's log. ``fall_back``: when the newest pair (not
    named by the request) cannot be read, the two newest that can be are shown instead.
    ``progress`` and ``early`` are `open_analysis`'s."""
    from rouge_tui.analysis.settings import for_suite

    suite = list_suite(request)
    settings = for_suite(suite.settings, request)
    caches = request.caches()
    suite.digest_memo = caches.digest_memo(suite)
    unreadable = None
    try:
        analysis = open_analysis(suite, settings, request.baseline, request.candidate,
                                 caches=caches, progress=progress, early=early)
    except NewestUnreadable as exc:
        if not fall_back or exc.instead is None:
            raise
        analysis = open_analysis(suite, settings, *exc.instead, caches=caches, progress=progress, early=early)
        unreadable = exc
    opened = Opened(request, analysis, caches, unreadable=unreadable)
    if marks:
        opened.marks()
    if found := suite.strays:
        opened.warnings.append(f"not read: {quoted_list(found, 3)} ({'is' if len(found) == 1 else 'are'} no build or run: "
                               "a build is a .jsonl, .jsonl.gz, .csv or .parquet file, or a folder of them)")
    if caches.warning():
        opened.warnings.append(caches.warning())
    if log:
        record = ReviewLog.of(suite)
        opened.change = record.record_review(opened.analysis.figures)
        opened.warnings += [w for w in (record.warning, opened.change.message() if opened.change else None) if w]
    return opened


@dataclass(frozen=True)
class Shown:
    """A mark as this comparison shows it."""

    mark: Mark
    stale: bool
    reason: str = ""  # why it is stale, in words
    carried_from: tuple[str, str] | None = None  # the (baseline, candidate) it was made on

    @property
    def word(self) -> str:
        return self.mark.word

    @property
    def note(self) -> str:
        return self.mark.note

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"mark": self.mark.word, "note": self.mark.note, "stale": self.stale}
        if self.reason:
            entry["stale_reason"] = self.reason
        if self.carried_from:
            entry["carried_from"] = {"baseline": self.carried_from[0], "candidate": self.carried_from[1]}
        return entry


def store_for(analysis: Analysis, fingerprint: str) -> MarkStore:
    suite = analysis.suite
    return MarkStore(
        suite.name, fingerprint, str(suite.path.resolve()), named=suite.named
    )


class Review:
    """The marks of one build pair, over one analysis and its texts."""

    def __init__(self, analysis: Analysis, texts: Texts) -> None:
        self.analysis = analysis
        self.texts = texts
        self.baseline = texts.baseline.name
        self.candidate = texts.candidate.name
        self.store = store_for(analysis, texts.references.fingerprint)
        self.store.load()
        self._shown: dict[str, Shown] | None = None
        self._shown_of: object = None  # the store's marks `_shown` was made from

    @property
    def warning(self) -> str | None:
        return self.store.warning

    def outputs_hash(self, example_id: str) -> str | None:
        """The hash of this pair's two outputs of ``example_id`` (None: not in both builds)."""
        try:
            return outputs_hash(*self.texts.outputs(example_id))
        except KeyError:
            return None

    def shown(self) -> dict[str, Shown]:
        """Every mark this comparison shows, by id: made here, else carried, else earlier."""
        held = self.store.all  # replaced, never changed, by each save: what the view was made of
        if self._shown is not None and self._shown_of is held:
            return self._shown
        pair = (self.baseline, self.candidate)
        shown: dict[str, Shown] = {}
        for example_id, mark in self.store.earlier(*pair).items():
            shown[example_id] = Shown(
                mark, True, f"made against earlier references ({mark.fingerprint[:12]})"
            )
        for (example_id, judged), mark in self.store.carried(*pair).items():
            if self.outputs_hash(example_id) == judged:
                shown[example_id] = Shown(mark, False, carried_from=(mark.baseline, mark.candidate))
        for example_id, mark in self.store.own(*pair).items():
            now = self.outputs_hash(example_id)
            if now is None:
                shown[example_id] = Shown(mark, True, "not in both builds any more")
            elif now != mark.outputs:
                shown[example_id] = Shown(mark, True, "the outputs changed since")
            else:
                shown[example_id] = Shown(mark, False)
        self._shown, self._shown_of = shown, held
        return shown

    def outside(self) -> int:
        """How many of the marks shown are of examples that are no row of this comparison (not
        in both builds any more, or left out for want of a reference): the report and the
        export list them, the table cannot. Each is looked up in the texts (a set of every
        row's id would be held with the review)."""
        from rouge_tui.analysis.pairs import paired

        texts = self.texts
        return sum(not paired(texts.references, texts.baseline, texts.candidate, example_id)
                   for example_id in self.shown())

    def get(self, example_id: str) -> Shown | None:
        return self.shown().get(example_id)

    def marks_json(self) -> dict[str, dict[str, Any]]:
        return {key: entry.to_json() for key, entry in sorted(self.shown().items())}

    # ------------------------------------------------------------------ changes

    def _slot(self, example_id: str) -> tuple[str, str, str, str]:
        return (self.store.fingerprint, self.baseline, self.candidate, example_id)

    def set_mark(self, example_id: str, word: str | None, note: str | None = None, *, save: bool = True) -> str | None:
        """Mark this pair's ``example_id`` (a note alone keeps the word, or hangs on the word
        shown, else "unsure"); returns a notice. A failed save raises OSError and keeps the
        change; ``save`` False records it only (the app saves off its UI thread)."""
        current = self.get(example_id)
        if note is None and current is not None and current.carried_from is None:
            note = current.note
        try:
            return self.store.set_mark(
                self.baseline, self.candidate, example_id, word, note,
                self.outputs_hash(example_id) or "", fallback=current.word if current else "unsure", save=save,
            )
        finally:
            self._shown = None

    def clear(self, example_id: str, *, save: bool = True) -> Mark | None:
        """Remove the mark of ``example_id`` this pair shows, made on it (the app asks first):
        against these references, or against earlier ones where none is (x on such a mark
        said it was cleared and cleared nothing); returns it. A carried mark is another
        pair's."""
        shown = self.get(example_id)
        slot = shown.mark.slot if shown is not None and shown.carried_from is None else self._slot(example_id)
        before = self.store.all.get(slot)
        if before is None:
            return None
        try:
            self.store.record(slot, None)
            if save:
                self.store.save()
        finally:
            self._shown = None
        return before

    def follow(self, analysis: Analysis, texts: Texts) -> None:
        """This pair compared again: scored under other settings, or its texts read again (a
        file changed on disk), when marks are judged and made against these outputs now.
        What could not be saved stays pending; with other references, the marks are looked
        up under theirs (the pending ones keep theirs)."""
        self.analysis = analysis
        if texts is self.texts:  # scored again: the marks shown are the same
            return
        self.texts, self._shown = texts, None
        if texts.references.fingerprint != self.store.fingerprint:
            store = store_for(analysis, texts.references.fingerprint)
            store.pending, store.seen, store.note_only = self.store.pending, self.store.seen, self.store.note_only
            store.failed = self.store.failed
            self.store.pending = {}  # handed over: the new store saves them, and only it
            self.store = store
            store.load()

    def reload(self) -> None:
        """Read the marks again (another session may have written some)."""
        self.store.load()
        self._shown = None


def searched_text(query: str) -> str:
    """The text a text filter looks for: the query without its spaces around, and without
    the quotes that make it text."""
    wanted = query.strip()
    return wanted[1:-1] if len(wanted) >= 2 and wanted[0] == wanted[-1] == '"' else wanted


def find_rows(review: Review, query: str, cancelled=lambda: False) -> tuple[object, str]:
    """The ranked indices the table's filter keeps, and how the query was read.

    A query that is a change signal's name or label (``trunc``) keeps the examples with that
    signal; a mark's word or short form (`MARKS`: ``fine``, ``regr``; ``marked`` for any) the
    examples so marked; anything else, or anything in quotes, is text: part of an id or of
    either output, ignoring case."""
    import numpy as np

    from rouge_tui.analysis import signals

    figures = review.analysis.figures
    wanted = query.strip()
    quoted = searched_text(query) != wanted
    key = wanted.casefold()
    if not quoted:
        for bit, signal in enumerate(signals.SIGNALS):
            if key in (signal.name, signal.short):
                rows = np.flatnonzero(figures.signals >> bit & 1)
                return rows, f"signal {signal.name}"
        shown = review.shown()
        words = {name: mark.word for mark in MARKS.values() for name in (mark.word, mark.short)}
        if key in words or key == "marked":
            word = words.get(key, key)
            ids = {i for i, s in shown.items() if word == "marked" or s.word == word}
            what = "any mark" if word == "marked" else f"mark {word}"  # (not "mark marked")
            return np.asarray([r for r, i in enumerate(figures.ids) if i in ids], dtype=np.int64), what
    needle = searched_text(query).casefold()
    base, cand = review.texts.baseline.runs[0].outputs, review.texts.candidate.runs[0].outputs
    rows = []
    for row, example_id in enumerate(figures.ids):
        if row % 4096 == 0 and cancelled():
            break
        if needle in example_id.casefold() or needle in base[example_id].casefold() or needle in cand[example_id].casefold():
            rows.append(row)
    return np.asarray(rows, dtype=np.int64), "text"
