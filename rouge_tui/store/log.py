"""The review log: what each report of a suite saw (reference fingerprint, build pair, means),
kept in the data dir so that a later report can say the frozen references moved.

A suite's log is found by its identity: its ``suite.toml`` name when it has one, else its
folder's name and place, so two unnamed suites in folders that share a name never share a
log (and never warn about each other's references). Each entry also names the folder it was
made in: a named suite's copy in another folder (its references edited, say) is compared
with its own reviews there, so neither copy warns on every run about the other; a suite seen
in a folder for the first time (moved, cloned again) is compared with the newest reviews of
its name anywhere, and a change then names the folder of the review it differs from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rouge_tui.safetext import one_line
from rouge_tui.store.paths import (
    Unreadable,
    atomic_write,
    data_dir,
    locked,
    now_iso,
    read_state,
    safe_name,
    set_aside,
)

__all__ = ["ReferenceChange", "ReviewLog"]

LIMIT = 500  # entries kept per suite and folder
FOLDERS = 20  # folders kept per suite, the ones reviewed last (CI clones into a new one each run)


@dataclass(frozen=True)
class ReferenceChange:
    """The frozen references moved: a delta against moved references means little."""

    previous: str
    current: str
    since: str  # when the previous fingerprint was last seen
    elsewhere: str | None = None  # the folder of that review, when it was not this suite's

    def message(self) -> str:
        folder = one_line(self.elsewhere or "")
        folder = folder if len(folder) <= 60 else "…" + folder[-59:]  # a path's end tells folders apart
        where = f" (a review of this suite's name in {folder})" if self.elsewhere else ""
        return (
            f"references changed since {self.since}{where}: fingerprint {self.previous[:12]} -> "
            f"{self.current[:12]}; deltas against earlier reviews are not comparable"
        )


def _newest(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest `LIMIT` entries of each of the `FOLDERS` folders reviewed last, in order (a
    busy copy of a suite elsewhere must not push out the reviews a folder is compared with,
    and a job that clones into a fresh folder each run must not grow the log without end)."""
    kept: list[dict[str, Any]] = []
    counts: dict[object, int] = {}
    for entry in reversed(entries):
        place = entry.get("place")
        if place not in counts and len(counts) >= FOLDERS:
            continue
        if counts.get(place, 0) < LIMIT:
            counts[place] = counts.get(place, 0) + 1
            kept.append(entry)
    return kept[::-1]


class ReviewLog:
    @classmethod
    def of(cls, suite) -> ReviewLog:
        """The log of a suite (rouge_tui.suite.Suite): its name when that is its identity
        (suite.toml's, or the task a harness wrote: `Suite.named`), else its folder's name
        and place."""
        place = str(suite.path.resolve())
        return cls(suite.name if suite.named else f"{suite.name} at {place}", place)

    def __init__(self, identity: str, place: str | None = None) -> None:
        self.path = data_dir() / "log" / f"{safe_name(identity, 40)}.json"
        self.place = place  # the suite's folder, recorded with each review
        self.warning: str | None = None

    def entries(self) -> list[dict[str, Any]]:
        try:
            data = read_state(self.path)
        except Unreadable as exc:
            self.warning = f"review log {self.path} was unreadable ({exc.reason}); {set_aside(self.path)}"
            return []
        entries = data.get("entries") if isinstance(data, dict) else None
        if data is not None and not isinstance(entries, list):
            self.warning = f"review log {self.path} was unreadable (no entries); {set_aside(self.path)}"
            return []
        return [e for e in entries or [] if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)]

    def reference_change(self, fingerprint: str, builds: tuple[str, ...] = ()) -> ReferenceChange | None:
        """How the references moved, if they did: the newest recorded review used other
        references, or one of ``builds`` was ever scored against other references."""
        entries = self.entries()
        # Entries from before places were recorded count as this folder's.
        here = [entry for entry in entries if self.place is not None and entry.get("place", self.place) == self.place]
        entries = here or entries
        for entry in reversed(entries):
            if entry["fingerprint"] == fingerprint:
                continue
            if entry is entries[-1] or entry.get("baseline") in builds or entry.get("candidate") in builds:
                place = entry.get("place")  # first seen in this folder: say where the review was
                elsewhere = str(place) if not here and place is not None and place != self.place else None
                return ReferenceChange(entry["fingerprint"], fingerprint, str(entry.get("time", "an earlier review")),
                                       elsewhere)
        return None

    def record_review(self, figures) -> ReferenceChange | None:
        """Record a review of ``figures`` (rouge_tui.analysis.figures.Figures); how the frozen
        references moved since the builds compared were scored, if they did."""
        pair = (figures.baseline.name, figures.candidate.name)
        change = self.reference_change(figures.reference_fingerprint, pair)
        self.record({
            "fingerprint": figures.reference_fingerprint, "signature": figures.signature,
            "baseline": pair[0], "candidate": pair[1], "baseline_mean": figures.baseline.mean,
            "candidate_mean": figures.candidate.mean, "verdict": figures.verdict,
            **({"place": self.place} if self.place is not None else {}),
        })
        return change

    def record(self, entry: dict[str, Any]) -> None:
        """Append one review's figures (atomic, under a lock); a failure costs only the record."""
        try:
            with locked(self.path):
                entries = self.entries()
                if entries and all(entries[-1].get(k) == v for k, v in entry.items()):
                    return  # the same review again
                entries.append({"time": now_iso(), **entry})
                payload = {"entries": _newest(entries)}
                # backslashreplace: a lone surrogate is written as its JSON escape (see marks)
                atomic_write(self.path, (json.dumps(payload, ensure_ascii=False, indent=1) + "\n").encode("utf-8", "backslashreplace"))
        except OSError as exc:
            self.warning = f"could not record the review in {self.path.parent}: {exc.strerror or exc}"
