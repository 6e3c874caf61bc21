"""One review session's state and the order of its steps, without Textual.

The review screen draws; this says what it draws and when. A session holds the comparison
shown, its texts and review, the comparison asked for and not yet shown (m, t, a pair picked
in h), the actions that wait for the texts, the sort and the filter, what the overview says
besides the figures, and when the marks file last changed. Every step of the screen's
workers and messages is one method here, so the sequencing is tested without a terminal
(tests/test_session.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rouge_tui.analysis.figures import RANKING, SORTS
from rouge_tui.analysis.pipeline import Analysis, Progress, Texts, analyse, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.review import Request, Review, searched_text
from rouge_tui.safetext import one_line, shorten_names
from rouge_tui.suite.suite import Suite

__all__ = ["Asked", "Session", "Waiting", "pair_text"]


def pair_text(pair: tuple[str, str]) -> str:
    """A build pair for a message: ``baseline → candidate``, each name escaped and cut where
    it differs from the other (cut at their ends, two long harness names read alike)."""
    first, second = shorten_names(list(pair), 30)
    return f"{first} → {second}"


@dataclass(frozen=True)
class Asked:
    """A comparison asked for and not yet shown (m, t, a pair picked in h): its results, and
    its failure, carry its number, so an earlier one's are not taken for its own."""

    number: int
    settings: Settings
    pair: tuple[str, str] | None  # None: the pair shown
    what: str  # for a diff that waits for it
    step: tuple[str, str] | None  # (setting, value) of an m or t


@dataclass(frozen=True)
class Waiting:
    """An action of the screen (its method ``name``, with ``args``) that waits for the texts;
    ``then`` says what happens once they are in. ``after_asked``: it waits for the comparison
    asked for too (a diff opened now would show the numbers of the one it replaces)."""

    name: str
    then: str
    args: tuple[Any, ...] = ()
    after_asked: bool = False
    steps: int = 0  # n and p typed while it waited, for a diff it opens (gone with it)


@dataclass
class Session:
    """The state of one suite's review, and the rules that move it."""

    request: Request
    caches: Any = None  # the request's stores (`Request.caches`), the opening's once it is open
    analysis: Analysis | None = None  # the comparison shown
    texts: Texts | None = None  # the texts of the comparison shown, once read
    review: Review | None = None  # the marks laid on the pair shown, once its texts are read
    asked: Asked | None = None  # the comparison asked for and not yet shown
    asks: int = 0  # comparisons asked for (m, t, a pair picked in h), the last one's number
    # The m or t step refused last (setting, value): the next press of that key steps on from
    # it (rougeLsum past its limit: m goes on to rouge1, not back to it).
    refused: tuple[str, str] | None = None
    waiting: list[Waiting] = field(default_factory=list)  # actions waiting for the texts, in order
    texts_failed: str | None = None  # why the shown comparison's texts could not be read
    progress: str = ""  # how far reading or scoring has got, for the status line
    sort: str = RANKING
    filter_text: str = ""
    matches: np.ndarray | None = None  # the ranked indices the filter keeps (None: no filter)
    matched_as: str = ""  # how the filter was read: "text", "signal trunc", "mark fine"
    matched_query: str = ""  # the filter whose matches are shown
    changed_on_disk: set[str] = field(default_factory=set)  # compared builds changed since read
    refs_notice: str | None = None  # the references changed since an earlier review
    # One of the newest pair cannot be read, and the pair shown first was picked in its place:
    # said while that pair is shown (its warning fades, and the pair's verdict could read as
    # the night's).
    unreadable: tuple[tuple[str, str] | None, str] | None = None
    trend: tuple[Analysis, list] | None = None  # the overview's history line's builds
    marks_seen: float | None = None  # the marks file's time when last read

    @classmethod
    def of(cls, request: Request) -> Session:
        return cls(request, request.caches())

    # ------------------------------------------------------------------ what is shown

    @property
    def suite(self) -> Suite | None:
        return None if self.analysis is None else self.analysis.suite

    def pair_shown(self) -> tuple[str, str] | None:
        figures = None if self.analysis is None else self.analysis.figures
        return None if figures is None else (figures.baseline.name, figures.candidate.name)

    def texts_in(self) -> bool:
        """Whether the review is of the comparison shown, its texts read: until then marks,
        notes, diffs and the text filter wait (after a pair is read again, the review holds
        the texts first read until the new ones are in)."""
        return self.review is not None and self.review.analysis is self.analysis

    def settings_asked(self) -> Settings:
        """The settings of the comparison on its way, else of the one shown."""
        assert self.analysis is not None
        return self.analysis.settings if self.asked is None else self.asked.settings

    def notice(self) -> str | None:
        """The overview's notice for the comparison shown."""
        said = [self.refs_notice]
        shown = self.pair_shown()
        suite = self.suite
        if self.unreadable is not None and self.unreadable[0] == shown:
            said.append(f"newest pair unreadable: {one_line(self.unreadable[1], 30)} (h)")
        elif suite is not None and shown is not None and len(suite.builds) >= 2 and (
                shown != tuple(b.name for b in suite.builds[-2:])):
            # Only the build names said that another pair than the newest (the one an alert
            # is about) was on screen.
            said.append("not the newest pair (h, end ⏎: the newest)")
        return "; ".join(filter(None, said)) or None

    def current_id(self, index: int | None) -> str | None:
        """The id of ranked example ``index`` of the comparison shown."""
        if self.analysis is None or index is None:
            return None
        return self.analysis.figures.ids[index]

    # ------------------------------------------------------------------ comparisons asked for

    def ask(self, settings: Settings, pair: tuple[str, str] | None, what: str,
            step: tuple[str, str] | None = None) -> Asked:
        """Compare again under ``settings`` (and the build ``pair``, None: the pair shown):
        what the session now waits for; any asked before it is superseded."""
        self.asks += 1
        self.asked = Asked(self.asks, settings, pair, what, step)
        self.refused = None
        return self.asked

    def step(self, setting: str, names: list[str]) -> Asked:
        """Ask for the next of ``names`` for ``setting`` (m, t): after the one asked for last
        (a second m typed before the first one's scores are in steps on from the first) or
        refused, else the one shown; the build pair asked for stays."""
        base = self.settings_asked()
        now = self.refused[1] if self.refused and self.refused[0] == setting else getattr(base, setting)
        value = names[(names.index(now) + 1) % len(names)]
        settings = base.switched(**{setting: value})
        what = f"scoring {settings.metric} ({settings.tokenizer})"
        return self.ask(settings, self.asked.pair if self.asked else None, what, (setting, value))

    def pick(self, pair: tuple[str, str]) -> Asked | str | None:
        """A pair picked in the history: the comparison it asks for, or what to say (it is shown)."""
        shown = self.pair_shown()
        if shown is None:
            return None
        if pair != (self.asked.pair if self.asked and self.asked.pair else shown):
            return self.ask(self.settings_asked(), pair, f"comparing {pair_text(pair)}")
        if pair == shown and self.asked is None and self.changed_on_disk & set(pair):
            return self.ask(self.settings_asked(), pair, f"reading {pair_text(pair)} again")
        if pair == shown:
            return f"{pair_text(pair)} is the comparison shown"
        return None

    def answers(self, asked: int | None) -> bool:
        """Whether a comparison made for the one asked for as number ``asked`` (None: the
        opening's) is to be shown: one superseded by a later ask is not the comparison asked
        for now."""
        if asked is None:
            return True
        if self.asked is None or asked != self.asked.number:
            return False
        self.asked = None
        return True

    def refuse(self, asked: int | None) -> list[Waiting] | None:
        """The comparison asked for as number ``asked`` will not come: what waited for it
        will not happen (those actions, returned), and the next m or t steps on from the
        refused one. None: not the one waited for."""
        if self.asked is None or asked != self.asked.number:
            return None
        waiting, self.refused, self.asked, self.waiting = self.waiting, self.asked.step, None, []
        return waiting

    # ------------------------------------------------------------------ the work itself

    def compare(self, settings: Settings, pair: tuple[str, str] | None,
                progress: Progress | None = None) -> tuple[Analysis, str, Texts | None]:
        """The comparison asked for: under other ``settings`` with the texts read
        (``pair`` None), else the build ``pair`` read (again); what to say; its texts when
        they are the ones read already."""
        assert self.analysis is not None
        suite = self.analysis.suite
        if pair is None and self.texts is not None:
            label = f"{settings.metric} ({settings.tokenizer}{', stem' if settings.stem else ''})"
            return analyse(suite, settings, self.texts, caches=self.caches, progress=progress), f"now {label}", self.texts
        base, cand = pair if pair else (None, None)
        shown = self.pair_shown()
        analysis = open_analysis(suite, settings, base, cand, caches=self.caches, progress=progress)
        now = (analysis.figures.baseline.name, analysis.figures.candidate.name)
        return analysis, f"{pair_text(now)} read again" if now == shown else f"now {pair_text(now)}", None

    def read_texts(self, analysis: Analysis, progress: Progress | None = None) -> tuple[Analysis, Texts, bool]:
        """The texts of ``analysis`` (figures on screen, or on their way), and the analysis
        they give: computed again (True) when the files changed since the figures were
        cached. A file that cannot be read now raises."""
        texts = analysis.texts.result()
        if analysis.fresh(texts):
            return analysis, texts, False
        return analyse(analysis.suite, analysis.settings, texts, caches=self.caches, progress=progress), texts, True

    def history(self, analysis: Analysis, texts: Texts) -> tuple[list, tuple[str, ...]]:
        """Every build scored (through the caches) for the overview's history line, the two
        compared as they were read; and the compared builds whose files changed since."""
        from rouge_tui.analysis.history import changed_since_read, trend

        read = (texts.baseline, texts.candidate)
        return trend(analysis.suite, texts.references, analysis.settings, self.caches, read=read), tuple(
            changed_since_read(analysis.suite, read))

    # ------------------------------------------------------------------ what came back

    def show(self, analysis: Analysis, notice: str | None = None, unreadable: str | None = None) -> None:
        """``analysis`` is now the comparison shown."""
        pair = (analysis.figures.baseline.name, analysis.figures.candidate.name)
        self.analysis = analysis
        self.progress = ""
        if self.review is not None and (self.review.baseline, self.review.candidate) != pair:
            self.review = None
        # The same pair: the review follows once this comparison's texts are in (`texts_in`).
        self.matches = None
        self.refs_notice = notice or self.refs_notice
        if unreadable is not None:
            self.unreadable = (self.pair_shown(), unreadable)

    def take_texts(self, analysis: Analysis, texts: Texts) -> Review | None:
        """The texts of ``analysis`` are read: the review of the pair shown made or moved on to
        them; returned when its mark store is new (made, or other references'), for the app
        to keep. Call only for the comparison shown."""
        self.texts_failed = None
        self.texts = texts
        self.progress = ""
        made = None
        if self.review is None:
            self.review = made = Review(analysis, texts)
        elif self.review.analysis is not analysis:  # the pair shown, scored or read again
            before = self.review.store
            self.review.follow(analysis, texts)
            if self.review.store is not before:  # the marks under the references read now
                made = self.review
        self.marks_seen = self.marks_time()
        return made

    def take_waiting(self) -> list[Waiting]:
        """The actions that waited, in order; none waits after this."""
        waiting, self.waiting = self.waiting, []
        return waiting

    def texts_unread(self, text: str, waiting: list[Waiting]) -> str:
        """The texts of the comparison shown could not be read (``text``: why); ``waiting``
        will not happen. What to say."""
        self.texts_failed = text
        self.progress = ""
        self.waiting = []
        undone = "; ".join(dict.fromkeys(action.then for action in waiting))
        return one_line(f"could not read the texts: {text}" + (f" (not done: {undone})" if undone else "")
                        + "; a key that needs them reads them again", 400)

    def take_trend(self, analysis: Analysis, builds: list, changed: tuple[str, ...]) -> str | None:
        """The history line's builds are scored; what to say of compared files that changed
        on disk since they were read (said once, not again for each m or t)."""
        self.trend = (analysis, builds)
        said, self.changed_on_disk = self.changed_on_disk, set(changed)
        if not self.changed_on_disk or self.changed_on_disk == said:
            return None
        names = " and ".join(one_line(name, 40) for name in changed)
        return (f"{names} changed on disk since {'they were' if len(changed) > 1 else 'it was'} read: the "
                "figures shown are of the files as read; enter on the pair in h reads them again")

    def known_trend(self) -> list | None:
        """The builds the overview's history line was made from, when they are of the
        comparison shown (the history view shows them at once, not scored again)."""
        return self.trend[1] if self.trend is not None and self.trend[0] is self.analysis else None

    # ------------------------------------------------------------------ actions that wait

    def park(self, action: Waiting) -> str:
        """``action`` waits (for the texts, or for the comparison asked for first); what to
        say meanwhile."""
        self.waiting.append(action)
        if action.after_asked:
            what = self.asked.what if self.asked is not None else "reading the texts"
            return f"{what}… {action.then} when it is done"
        pending = self.analysis is not None and self.analysis.figures.pending
        doing = "finding new sentences and figures" if pending else "reading the texts"
        return f"{doing}… {action.then} when {'done' if pending else 'they are in'}"

    def must_wait_for_asked(self, action: Waiting) -> bool:
        """Whether ``action``, which waits for the comparison asked for, must wait still: one
        is on its way, or an m or t still waits for the texts."""
        return action.after_asked and (self.asked is not None or bool(self.waiting))

    def read_again(self) -> Asked | None:
        """The comparison asked for that reads the texts of the one shown again, when their reading
        failed and nothing else is asked for (the file may be whole again)."""
        if self.texts_failed is None or self.analysis is None or self.asked is not None:
            return None
        self.texts_failed = None
        figures = self.analysis.figures
        return self.ask(self.analysis.settings, (figures.baseline.name, figures.candidate.name),
                        "reading the texts again")

    # ------------------------------------------------------------------ sort and filter

    def next_sort(self) -> None:
        sorts = self.analysis.figures.sorts() if self.analysis is not None else [RANKING]
        self.sort = sorts[(sorts.index(self.sort) + 1) % len(sorts)] if self.sort in sorts else RANKING

    def set_filter(self, text: str) -> bool:
        """The filter now holds ``text``; whether it needs matching (else it is cleared)."""
        self.filter_text = text
        if text.strip():
            return True
        self.matches, self.matched_as, self.matched_query = None, "", ""
        return False

    def take_matches(self, query: str, rows: np.ndarray, analysis: Analysis, what: str) -> bool | None:
        """The filter's rows are found: None when they are of another query or comparison,
        else whether the example under the cursor stays (the same query, applied again)."""
        if query != self.filter_text or analysis is not self.analysis:
            return None
        again = query == self.matched_query
        self.matches, self.matched_as, self.matched_query = rows, what, query
        return again

    def diff_query(self) -> str:
        """The filter's text, which a diff shows where it matches (a text filter only)."""
        return searched_text(self.filter_text) if self.matched_as == "text" else ""

    def view(self) -> np.ndarray:
        """The ranked indices shown, in the current sort, under the filter."""
        assert self.analysis is not None
        figures = self.analysis.figures
        view = figures.order(self.sort)
        if self.matches is not None:
            shown = np.zeros(figures.paired, dtype=bool)
            shown[self.matches] = True
            view = view[shown[view]]
        return view

    # ------------------------------------------------------------------ the status line

    def status_parts(self, rows: int) -> dict[str, list[str]]:
        """Each part of the status line in its forms, longest first, in the order shown;
        ``rows``: the table's rows."""
        if self.analysis is None:
            return {}
        f = self.analysis.figures
        parts = {
            "sort": [SORTS[self.sort].words, SORTS[self.sort].short, ""],
            "rows": [f"{rows} of {f.paired}", f"{rows}/{f.paired}"],
        }
        if self.filter_text:
            query = one_line(self.filter_text, 30)
            parts["filter"] = [f"{self.matched_as or 'filter'} {query!r}", f"{query!r}", f"{one_line(self.filter_text, 12)!r}"]
        if self.review is not None and self.review.shown():
            outside = self.review.outside()
            here = len(self.review.shown()) - outside
            parts["marks"] = [f"{here} marked, {outside} not in this comparison", f"{here} marked +{outside}"
                              ] if outside else [f"{here} marked"]
        elif self.texts_failed is not None:
            parts["marks"] = ["texts unreadable", "no texts"]
        elif self.texts is None:
            parts["marks"] = ["reading texts"]
        left = [(len(f.only_in_baseline), "base only", "base"), (len(f.only_in_candidate), "cand only", "cand"),
                (len(f.missing_reference), "no ref", "no ref")]
        if any(n for n, _, _ in left):
            parts["out"] = [
                "out: " + ", ".join(f"{n} {what}" for n, what, _ in left if n),
                "out: " + ", ".join(f"{n} {short}" for n, _, short in left if n),
                f"{sum(n for n, _, _ in left)} left out",
            ]
        return parts

    # ------------------------------------------------------------------ the marks file

    def marks_time(self) -> float | None:
        try:
            return self.review.store.path.stat().st_mtime if self.review else None
        except OSError:
            return None

    def poll_marks(self) -> tuple[bool, bool]:
        """Another session's marks, read if the marks file changed since last read: whether
        what is shown changed, and whether the file was lost (damaged or gone: the marks this
        session holds are to be written back now, not only with the next mark)."""
        if self.review is None:
            return False, False
        seen = self.marks_time()
        if seen == self.marks_seen:
            return False, False
        self.marks_seen = seen
        before = {k: (v.word, v.note) for k, v in self.review.shown().items()}
        self.review.reload()
        after = {k: (v.word, v.note) for k, v in self.review.shown().items()}
        return before != after, self.review.store.lost is not None
