"""Review marks and notes: what a person decided about an example, kept in the data dir.

A mark belongs to the suite's content, not its path: it is recorded with the suite's name,
the reference fingerprint and the build pair, and with a hash of the two outputs it judged.
So a mark shows

- as made on this pair, when all of those match;
- stale, when the outputs changed since it was made (``Mark.outputs`` differs);
- stale with the reason "references changed", when it was made on this pair against
  earlier references (nothing the user wrote ever becomes invisible);
- carried, when it was made on another pair of the same content and the two outputs it
  judged are byte-identical to this pair's (the same change, seen again): shown with the
  pair it came from, never as a mark made here; a new mark here replaces it for this pair.

One file per suite name holds every pair's marks. Each save re-reads the file under a lock,
applies this session's change and writes it atomically, so two sessions lose nothing; a file
damaged from outside is set aside and rewritten from everything this session holds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from rouge_tui.store.paths import (
    Unreadable,
    atomic_write,
    data_dir,
    locked,
    now_iso,
    read_json,
    safe_name,
    set_aside,
)

__all__ = ["MARKS", "Mark", "MarkStore", "outputs_hash"]

MARKS = ("fine", "regression", "unsure")


def outputs_hash(baseline: str, candidate: str) -> str:
    """What a mark judged: the two outputs, hashed (length-prefixed, so no two pairs of
    texts share one)."""
    digest = hashlib.sha256()
    for text in (baseline, candidate):
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Mark:
    id: str
    mark: str
    note: str
    outputs: str  # outputs_hash of what was judged
    fingerprint: str
    baseline: str
    candidate: str
    place: str  # the suite folder it was made in (tells apart two unnamed suites)
    updated: str = ""

    @property
    def slot(self) -> tuple[str, str, str, str]:
        return (self.fingerprint, self.baseline, self.candidate, self.id)


def _marks_from(data: Any) -> list[Mark]:
    """The file's marks; a ValueError when it is not a marks file this version reads (the
    caller sets it aside)."""
    if not isinstance(data, dict) or not isinstance(data.get("marks"), list):
        raise ValueError("no list of marks")  # noqa: TRY004 - the file's content, not our caller's type
    marks = []
    for entry in data["marks"]:
        if not isinstance(entry, dict):
            raise ValueError("a mark is not an object")  # noqa: TRY004 - as above
        fields = {name: entry.get(name, "") for name in Mark.__dataclass_fields__}
        if not all(isinstance(value, str) for value in fields.values()):
            raise ValueError("a mark field is not text")
        if fields["mark"] not in MARKS:
            raise ValueError(f"unknown mark word {fields['mark'][:20]!r}")
        marks.append(Mark(**fields))
    return marks


class MarkStore:
    """The marks of one suite, seen from one build pair (`view`)."""

    def __init__(self, suite: str, fingerprint: str, place: str, named: bool) -> None:
        self.suite = suite
        self.fingerprint = fingerprint
        self.place = place
        self.named = named  # a suite.toml name: marks follow it wherever the suite lives
        self.path = data_dir() / "marks" / f"{safe_name(suite, 40)}.json"
        self.all: dict[tuple[str, str, str, str], Mark] = {}
        self.warning: str | None = None
        # Changes not on disk yet (a save failed): kept, and written by the next save.
        self.pending: dict[tuple[str, str, str, str], Mark | None] = {}

    # ------------------------------------------------------------------ reading

    def _read(self) -> dict[tuple[str, str, str, str], Mark] | None:
        """The marks on disk; None when the file exists but cannot be read (then it must not
        be written over), with ``warning`` saying so."""
        try:
            data = read_json(self.path)
            return {m.slot: m for m in _marks_from(data)} if data is not None else {}
        except Unreadable as exc:
            reason = exc.reason
        except ValueError as exc:
            reason = str(exc)
        self.warning = f"marks file {self.path} was unreadable ({reason}); {set_aside(self.path)}"
        return None

    def load(self) -> None:
        found = self._read()
        if found is not None:
            self.all = found
        self._apply(self.all)

    def _apply(self, marks: dict) -> None:
        for slot, mark in self.pending.items():
            if mark is None:
                marks.pop(slot, None)
            else:
                marks[slot] = mark

    # ------------------------------------------------------------------ one pair's view

    def own(self, baseline: str, candidate: str) -> dict[str, Mark]:
        """Marks made on this pair against these references."""
        return {
            m.id: m for m in self.all.values()
            if m.slot[:3] == (self.fingerprint, baseline, candidate)
        }

    def with_candidate(self, candidate: str) -> list[Mark]:
        """Marks made against these references on any pair whose candidate is ``candidate``
        (what the history view counts on that build's line)."""
        return [m for m in self.all.values() if m.fingerprint == self.fingerprint and m.candidate == candidate]

    def earlier(self, baseline: str, candidate: str) -> dict[str, Mark]:
        """Marks made on this pair against other references of the same suite (newest per
        id): shown stale, with the reason."""
        found: dict[str, Mark] = {}
        for m in sorted(self.all.values(), key=lambda m: m.updated):
            same_pair = (m.baseline, m.candidate) == (baseline, candidate)
            if same_pair and m.fingerprint != self.fingerprint and (self.named or m.place == self.place):
                found[m.id] = m
        return found

    def carried(self, baseline: str, candidate: str) -> dict[tuple[str, str], Mark]:
        """Marks made on other pairs of this content, by (id, outputs hash): one applies to
        this pair where its outputs hash is this pair's (the newest, if several)."""
        found: dict[tuple[str, str], Mark] = {}
        for m in sorted(self.all.values(), key=lambda m: m.updated):
            if m.fingerprint == self.fingerprint and (m.baseline, m.candidate) != (baseline, candidate):
                found[(m.id, m.outputs)] = m
        return found

    # ------------------------------------------------------------------ writing

    def set(self, baseline: str, candidate: str, example_id: str, mark: str | None,
            note: str | None, outputs: str) -> str | None:
        """Set this pair's mark of ``example_id`` (``None`` keeps the current word or note; a
        note alone hangs on "unsure", which claims nothing); returns a notice for the user.

        An OSError (full disk, read-only folder) propagates, and the change stays in
        ``pending`` and in ``all``: nothing typed is lost, and the next save writes it."""
        slot = (self.fingerprint, baseline, candidate, example_id)
        current = self.all.get(slot)
        word = mark if mark is not None else (current.mark if current else "unsure")
        if word not in MARKS:
            raise ValueError(f"unknown mark {word!r}")
        text = note if note is not None else (current.note if current else "")
        new = Mark(example_id, word, text, outputs, *slot[:3], self.place, now_iso())
        return self.put(slot, new)

    def put(self, slot: tuple[str, str, str, str], mark: Mark | None) -> str | None:
        """Record ``mark`` in ``slot`` (None clears it; a Mark from `all` restores it)."""
        before = self.all.get(slot)
        self.pending[slot] = mark
        self._apply(self.all)
        with locked(self.path):
            on_disk = self._read()
            damaged = on_disk is None
            notice = None
            if damaged:
                # Damaged from outside: everything this session holds is written back.
                on_disk = dict(self.all)
                notice = (  # what happened first: a toast shows the start of a long line
                    f"the marks file was damaged from outside since this session read it: wrote "
                    f"back the {len(on_disk)} marks this session holds; {self.warning}"
                )
            else:
                theirs = on_disk.get(slot)
                if theirs is not None and theirs != before and mark is not None:
                    notice = (
                        f"another session had marked this example {theirs.mark}; "
                        f"replaced with {mark.mark}"
                    )
                elif theirs is not None and theirs != before:
                    # Clearing what this session saw never deletes a mark it did not see.
                    del self.pending[slot]
                    notice = (
                        f"another session had marked this example {theirs.mark} since; "
                        "kept that mark"
                    )
                self._apply(on_disk)
            atomic_write(self.path, self._payload(on_disk))
            self.pending.clear()
            self.all = on_disk
        return notice

    def flush(self) -> None:
        """Write what a failed save left unsaved (an OSError if it fails again)."""
        if self.pending:
            slot, mark = next(iter(self.pending.items()))
            self.put(slot, mark)

    @property
    def unsaved(self) -> int:
        """Changes a failed save left in memory only."""
        return len(self.pending)

    def _payload(self, marks: dict) -> bytes:
        data = {
            "suite": self.suite,
            "version": 2,
            "marks": [asdict(marks[slot]) for slot in sorted(marks)],
        }
        # A lone surrogate (a build named by a file name that is not UTF-8) cannot be UTF-8:
        # backslashreplace writes it as its JSON escape, so the file reads back as written.
        return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8", "backslashreplace")
