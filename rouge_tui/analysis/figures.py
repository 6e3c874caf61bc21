"""`Figures`: every number of one comparison, without the texts behind it.

This is what the report prints, what the app's overview and movers table draw, and what the
cache keeps: the app's first frame on a suite seen before comes from cached figures while
the texts are still being read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from rouge_tui.analysis.compare import TEN, BuildStats
from rouge_tui.analysis.settings import Settings
from rouge_tui.analysis.triage import FLAGGED, PairCounts, Rate, flagged_first

__all__ = ["MOVED_BY", "RANKING", "SORTS", "Figures", "Sort", "percent"]

# An example counts as improved or regressed when its F moved by more than this either way:
# a smaller move is a word or two, not a change a reader would count.
MOVED_BY = 0.01

@dataclass(frozen=True)
class Sort:
    """One of the movers table's orders: how the status line names it (``words``, ``short``
    where room is short), what the help says it is, how it orders the rows of a `Figures`
    (``rank``: the rows in ranking order, for ties) and when it means something (``applies``:
    `s` skips it otherwise)."""

    words: str
    short: str
    summary: str
    order: Callable[[Figures, np.ndarray], np.ndarray]
    applies: Callable[[Figures], bool] = lambda figures: True


def _not_volatile_first(f: Figures, rank: np.ndarray) -> np.ndarray:
    from rouge_tui.analysis import signals

    return np.lexsort((rank, signals.fired(f.signals, "volatile")))


def _beyond_noise(f: Figures, rank: np.ndarray) -> np.ndarray:
    magnitude = np.abs(f.delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        beyond = np.where(magnitude > 0, magnitude / f.noise(), 0.0)
    return np.lexsort((rank, -beyond))


# The movers table's orders, the only list of them: `s` cycles those that apply, in this
# order, the help lists them, `Figures.order` sorts by them; the first is the ranking.
SORTS = {
    "|delta|": Sort("by |delta|", "by |Δ|", "the largest moves first, down or up: the ranking",
                    lambda f, rank: rank),
    "regressions": Sort("regressions first", "regr first", "the largest drops first, then the rest",
                        lambda f, rank: np.lexsort((rank, f.delta))),
    "improvements": Sort("improvements first", "impr first", "the largest gains first, then the rest",
                         lambda f, rank: np.lexsort((rank, -f.delta))),
    "new movers": Sort("new movers first", "new first",
                       "the examples not flagged vol (volatile) first, each part by |delta|", _not_volatile_first),
    "flagged": Sort("flagged first", "flagged", "the flagged first, in the walk's order (most telling "
                    "first), then the other examples where a drifting signal fired (a new figure, then "
                    "a new sentence, then another), each part by |delta|",
                    lambda f, rank: flagged_first(f.signals, [rate.signal for rate in f.drifting],
                                                  [row for row, _ in f.flagged_after(f.ten)]),
                    applies=lambda f: bool(f.drifting)),
    "noise": Sort("beyond its own noise", "vs noise", "|delta| over the example's run-to-run spread "
                  "(replicate runs), largest first", _beyond_noise, applies=lambda f: bool(f.run_f)),
    "id": Sort("by id", "by id", "by example id",
               lambda f, rank: np.asarray(sorted(range(f.paired), key=f.ids.__getitem__), dtype=np.int64)),
}
RANKING = next(iter(SORTS))  # the first order, the table's at the start


@dataclass
class Figures:
    """A baseline/candidate comparison over the paired examples. The per-example arrays are
    aligned with ``ids`` and in ranking order: largest |delta| first, ties by id."""

    suite: str
    settings: Settings
    reference_fingerprint: str
    baseline: BuildStats
    candidate: BuildStats
    ids: list[str]
    baseline_f: np.ndarray
    candidate_f: np.ndarray
    delta: np.ndarray
    signals: np.ndarray  # uint32 flags, bit i for analysis.signals.SIGNALS[i]
    delta_mean: float
    delta_interval: tuple[float, float]
    delta_interval_method: str
    verdict: str
    delta_precision: float
    delta_recall: float
    top_share: float
    only_in_baseline: list[str] = field(default_factory=list)
    only_in_candidate: list[str] = field(default_factory=list)
    missing_reference: list[str] = field(default_factory=list)
    partial: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # What overlap cannot see, for the first DETAIL_ROWS ranks (report's "top" rows):
    # unsupported, new_sentences, new_figures (and coverage, density with a source).
    details: list[dict] = field(default_factory=list)
    # With sources: each build's mean coverage and density of copied spans, by role.
    copied: dict[str, list[float]] = field(default_factory=dict)
    # The change signals still being found (the app's first frame on a cold suite, drawn
    # before what overlap cannot see is in): their bits are not set yet, nor ``copied``.
    # Figures with any are shown, never cached nor reported.
    pending: tuple[str, ...] = ()
    # SPEC "Triage": every banded signal's rate on this pair and its band (`triage.Rate`), and
    # the flagged, rows where a drifting signal fired in their reading order (from the top, as
    # far as the ten and the flagged after them go: `flagged_after`).
    rates: list[Rate] = field(default_factory=list)
    flagged: list[int] = field(default_factory=list)
    flagged_details: list[dict] = field(default_factory=list)  # as ``details``, for each of ``flagged``
    # The paired test beside the verdict (`paired.PairedTest.to_json`: SPEC's ``delta_test``).
    delta_test: dict = field(default_factory=dict)
    # With replicate runs: each run's F by role (runs x examples, ranking order), and how many
    # runs each signal fired in (signals x examples); else empty and None.
    run_f: dict[str, np.ndarray] = field(default_factory=dict)
    runs_fired: np.ndarray | None = None

    def flagged_after(self, skip: int) -> list[tuple[int, dict]]:
        """The flagged past the first ``skip`` ranks (the ten the app walks first, or the rows
        a report's --top lists), at most `triage.FLAGGED`, each with its details."""
        found = [(row, detail) for row, detail in zip(self.flagged, self.flagged_details) if row >= skip]
        return found[:FLAGGED]

    @property
    def drifting(self) -> list[Rate]:
        """The signal drifts: the signals whose rate lies above their band and may raise the alarm."""
        return [rate for rate in self.rates if rate.drift]

    @property
    def alarm(self) -> bool:
        """What `report`'s exit status says: a ROUGE drift or a signal drift."""
        return self.verdict != "within-band" or bool(self.drifting)

    @property
    def runs(self) -> int:
        """Replicate runs compared (the most either build has)."""
        return max((len(f) for f in self.run_f.values()), default=1)

    def run_moved(self, row: int) -> int:
        """The run whose F moved most on ``row`` (run r of each build, or its last): the one a
        diff opens on."""
        if not self.run_f:
            return 0
        moves = [abs(self.run_f["candidate"][min(r, len(self.run_f["candidate"]) - 1), row]
                     - self.run_f["baseline"][min(r, len(self.run_f["baseline"]) - 1), row]) for r in range(self.runs)]
        return int(np.argmax(moves))

    def noise(self) -> np.ndarray:
        """Each row's run-to-run spread: the root mean square of the two builds' sample sds
        over their runs (0 where neither build has two runs)."""
        spread = [np.std(f, axis=0, ddof=1) if len(f) > 1 else np.zeros(self.paired) for f in self.run_f.values()]
        if not spread:
            return np.zeros(self.paired)
        return np.sqrt(np.mean(np.square(spread), axis=0))

    @property
    def paired(self) -> int:
        return len(self.ids)

    @property
    def signature(self) -> str:
        return self.settings.signature

    @property
    def ten(self) -> int:
        """How many of "the ten most-moved outputs" there are (fewer on a tiny suite)."""
        return min(TEN, self.paired)

    @property
    def improved(self) -> int:
        """How many examples' F rose by more than MOVED_BY."""
        return int(np.count_nonzero(self.delta > MOVED_BY))

    @property
    def regressed(self) -> int:
        """How many examples' F fell by more than MOVED_BY."""
        return int(np.count_nonzero(self.delta < -MOVED_BY))

    def verdict_reason(self) -> str:
        """Why the verdict is what it is, in one sentence (where the candidate mean lies;
        and when min_delta kept a move past the band within, that too)."""
        low, high = self.baseline.band
        mean = self.candidate.mean
        where = "below" if mean < low else "above" if mean > high else "inside"
        reason = f"candidate mean {mean:.4f} is {where} the baseline band [{low:.4f}, {high:.4f}]"
        if where != "inside" and self.verdict == "within-band":
            reason += f", but |delta| {abs(self.delta_mean):.2g} is within min_delta {self.settings.min_delta:g}"
        return reason

    def sorts(self) -> list[str]:
        """The orders that mean something here (`s` cycles them): "flagged first" while a
        signal drifts, "beyond its own noise" with replicate runs."""
        return [name for name, sort in SORTS.items() if sort.applies(self)]

    def order(self, sort: str = RANKING) -> np.ndarray:
        """Row indices (into the ranked arrays) for one of the table's orders."""
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")
        return SORTS[sort].order(self, np.arange(self.paired, dtype=np.int64))

    # ------------------------------------------------------------------ bytes, for the cache

    _ARRAYS = (("baseline_f", "<f8"), ("candidate_f", "<f8"), ("delta", "<f8"), ("signals", "<u4"))

    def to_bytes(self) -> bytes:
        if self.pending:
            raise ValueError(f"figures still finding {', '.join(self.pending)} are not cached")
        head = {
            name: value
            for name, value in self.__dict__.items()
            if name not in dict(self._ARRAYS)
            and name not in ("settings", "baseline", "candidate", "pending", "rates", "run_f", "runs_fired")
        }
        head["settings"] = {k: v for k, v in asdict(self.settings).items() if k != "stem_asked"}  # not the figures'
        head["baseline"] = asdict(self.baseline)
        head["candidate"] = asdict(self.candidate)
        head["rates"] = [asdict(rate) for rate in self.rates]
        runs = [*self.run_f.values(), *([] if self.runs_fired is None else [self.runs_fired])]
        head["runs"] = [len(self.run_f.get("baseline", ())), len(self.run_f.get("candidate", ())),
                        0 if self.runs_fired is None else len(self.runs_fired)]
        text = json.dumps(head, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
        arrays = b"".join(
            np.ascontiguousarray(getattr(self, name), dtype=kind).tobytes()
            for name, kind in self._ARRAYS
        )
        arrays += b"".join(np.ascontiguousarray(a, dtype="<f8" if a.dtype.kind == "f" else "u1").tobytes() for a in runs)
        return len(text).to_bytes(8, "little") + text + arrays

    @classmethod
    def from_bytes(cls, data: bytes) -> Figures:
        """The figures `to_bytes` wrote; a ValueError for anything that does not check out."""
        try:
            size = int.from_bytes(data[:8], "little")
            head = json.loads(data[8 : 8 + size].decode("utf-8", "surrogatepass"))
            n = len(head["ids"])
            if not all(isinstance(i, str) for i in head["ids"]):
                raise ValueError("ids")
            offset, arrays = 8 + size, {}
            for name, kind in cls._ARRAYS:
                arrays[name] = np.frombuffer(data, kind, n, offset).astype(kind[1:])
                offset += np.dtype(kind).itemsize * n
            base_runs, cand_runs, fired = head.pop("runs")
            run_f = {}
            for role, rows in (("baseline", base_runs), ("candidate", cand_runs)):
                if rows:
                    run_f[role] = np.frombuffer(data, "<f8", rows * n, offset).astype("f8").reshape(rows, n)
                    offset += 8 * rows * n
            head["run_f"] = run_f
            head["runs_fired"] = np.frombuffer(data, "u1", fired * n, offset).reshape(fired, n).copy() if fired else None
            offset += fired * n
            head["rates"] = [
                Rate(**{**rate, "band": None if rate["band"] is None else tuple(rate["band"]),
                        "history": tuple(PairCounts(**h) for h in rate["history"])})
                for rate in head["rates"]
            ]
            if offset != len(data):
                raise ValueError("length")
            for name in ("baseline_f", "candidate_f"):
                if not np.all((arrays[name] >= 0) & (arrays[name] <= 1)):
                    raise ValueError(name)
            settings = head["settings"]
            if settings.get("alarm") is not None:
                settings["alarm"] = tuple(settings["alarm"])
            head["settings"] = Settings(**settings)
            for role in ("baseline", "candidate"):
                stats = head[role]
                stats["band"] = tuple(stats["band"])
                stats["run_means"] = tuple(stats["run_means"])
                head[role] = BuildStats(**stats)
            head["delta_interval"] = tuple(head["delta_interval"])
            figures = cls(**head, **arrays)
        except (KeyError, TypeError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise ValueError(f"cached figures do not check out: {exc}") from None
        figures._check()
        return figures

    def _check(self) -> None:
        """A cached entry must be what `compute` would have made of its own numbers: a
        ValueError when a verdict, a delta or a signal does not follow from the rest."""
        from rouge_tui.analysis.compare import VERDICTS, verdict
        from rouge_tui.analysis.signals import SIGNALS

        problems = []
        if self.verdict not in VERDICTS:
            problems.append("verdict")
        elif self.verdict != verdict(self.baseline, self.candidate.mean, self.delta_mean, self.settings.min_delta):
            problems.append("verdict against its band")
        if not np.array_equal(self.delta, self.candidate_f - self.baseline_f):
            problems.append("per-example deltas")
        if np.any(self.signals >> np.uint32(len(SIGNALS))):
            problems.append("signals")
        numbers = [self.delta_mean, *self.delta_interval, self.delta_precision, self.delta_recall, self.top_share,
                   *self.baseline.band, *self.candidate.band, self.baseline.mean, self.candidate.mean]
        if not all(isinstance(x, float) and math.isfinite(x) for x in numbers):
            problems.append("figures")
        if len(set(self.ids)) != len(self.ids):
            problems.append("ids")
        if self.pending:
            problems.append("pending signals")
        if any(not 0 <= row < self.paired for row in self.flagged) or (self.flagged and not self.drifting):
            problems.append("flagged")
        if problems:
            raise ValueError(f"cached figures do not check out: {', '.join(problems)}")


def percent(share: float) -> str:
    """A share in [0, 1] as a percentage that reads 0% or 100% only when it is: the ten of
    11,490 examples may hold 0.4% of the total |delta|, which "0%" would hide."""
    if 0 < share < 0.001:
        return "<0.1%"
    if 0.999 < share < 1:
        return ">99.9%"
    if 0 < share < 0.01 or 0.99 < share < 1:
        return f"{share:.1%}"
    return f"{share:.0%}"
