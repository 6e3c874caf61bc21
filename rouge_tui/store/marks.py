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
damaged from outside, or gone, is set aside and rewritten from everything this session holds;
what a session ending on a hang-up could not save (the lock held elsewhere) is kept in a file
beside it, which the next save of any session takes in.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from rouge_tui.errors import quoted, type_name
from rouge_tui.store.notes import merged_note, note_said
from rouge_tui.store.paths import (
    LOCK_WAIT,
    Unreadable,
    atomic_write,
    data_dir,
    locked,
    now_iso,
    read_state,
    safe_name,
    set_aside,
)

__all__ = ["MARKS", "Mark", "MarkStore", "MarkWord", "outputs_hash"]


@dataclass(frozen=True)
class MarkWord:
    """One word a person can mark an example with: the only list of them (`MARKS`) gives
    the marks file and every report its word (SPEC's), the app its key, help line, short
    form and colours, the table's filter what it finds."""

    word: str  # as SPEC writes it: the marks file's and every report's
    key: str  # the app's key that marks with it
    help: str  # the key's line in the help screen
    short: str  # where a column is narrow, and a filter word
    colour: str  # on a terminal (a Textual colour), drawn bold
    html: str  # in an HTML report


MARKS = {mark.word: mark for mark in (
    MarkWord("fine", "a", "mark fine (accept)", "fine", "ansi_bright_green", "#0a6d24"),
    MarkWord("regression", "b", "mark regression", "regr", "ansi_bright_red", "#b00020"),
    MarkWord("unsure", "u", "mark unsure", "unsu", "ansi_bright_yellow", "#8a6100"),
)}


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
    """What a person decided about one example of one pair, as the marks file keeps it."""

    id: str
    word: str  # one of MARKS; the marks file's field "mark" (SPEC's)
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


# A field whose name in the marks file is not its name here: the file's names are SPEC's, and
# files written before the field was renamed must still read.
_FILE_NAMES = {"word": "mark"}


def _marks_from(data: Any) -> tuple[list[Mark], list[Any], str | None]:
    """The file's marks, the entries this version cannot read (kept as they are: a mark word
    of a newer version, a hand edit gone wrong) and why the first of them cannot be read; a
    ValueError when it is no marks file (the caller sets it aside)."""
    if not isinstance(data, dict) or not isinstance(data.get("marks"), list):
        raise ValueError("no list of marks")  # noqa: TRY004 - the file's content, not our caller's type
    marks: list[Mark] = []
    foreign: list[Any] = []
    why = None
    for entry in data["marks"]:
        problem = _entry_problem(entry)
        if problem is None:
            marks.append(Mark(**{name: entry.get(_FILE_NAMES.get(name, name), "") for name in Mark.__dataclass_fields__}))
            continue
        foreign.append(entry)
        why = why or problem
    return marks, foreign, why


def _slot_of(entry: Any) -> tuple[Any, ...] | None:
    """The slot a marks file's entry is for, read or not (None: no object)."""
    if not isinstance(entry, dict):
        return None
    return (entry.get("fingerprint", ""), entry.get("baseline", ""), entry.get("candidate", ""), entry.get("id", ""))


def _began_from(data: Any) -> dict[tuple[Any, ...] | None, str]:
    """A kept file's notes as their session began from them (`MarkStore.keep_unsaved`), by slot."""
    out = {}
    for entry in data.get("marks", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("began_from"), str) and _entry_problem(entry) is None:
            out[_slot_of(entry)] = entry["began_from"]
    return out


def _entry_problem(entry: Any) -> str | None:
    """Why a marks file's entry is no mark this version reads (None: it is one), naming its
    example where it has one: the row shows no mark, and the warning says whose."""
    if not isinstance(entry, dict):
        return "an entry is not an object"
    whose = f"the mark of {quoted(entry['id'])}: " if isinstance(entry.get("id"), str) else ""
    for name in Mark.__dataclass_fields__:
        value = entry.get(_FILE_NAMES.get(name, name), "")
        if not isinstance(value, str):
            return f"{whose}its {_FILE_NAMES.get(name, name)!r} is not text ({type_name(value)})"
    if entry.get("mark", "") not in MARKS:
        return f"{whose}unknown mark word {quoted(entry.get('mark', ''), 20)}"
    return None


class MarkStore:
    """The marks of one suite, seen from one build pair (`view`).

    A change is recorded in memory at once (`record`) and written by `save`, which the app
    runs off its UI thread: ``all`` and ``pending`` are only ever replaced, never changed in
    place, so a reader on another thread sees the old dict or the new one, never half."""

    def __init__(self, suite: str, fingerprint: str, place: str, named: bool) -> None:
        self.suite = suite
        self.fingerprint = fingerprint
        self.place = place
        self.named = named  # a suite.toml name: marks follow it wherever the suite lives
        self.path = data_dir() / "marks" / f"{safe_name(suite, 40)}.json"
        self.all: dict[tuple[str, str, str, str], Mark] = {}
        self.warning: str | None = None
        # Entries of the file this version cannot read, as read last: written back as they
        # are, so that one bad entry hides no other mark and loses nothing.
        self.foreign: list[Any] = []
        # Changes not on disk yet (being saved, or a save failed): kept, and written by the
        # next save; with what this session saw in each slot before its change (`seen`),
        # and the slots whose change is a note alone (another session's word is kept).
        self.pending: dict[tuple[str, str, str, str], Mark | None] = {}
        self.seen: dict[tuple[str, str, str, str], Mark | None] = {}
        self.note_only: frozenset[tuple[str, str, str, str]] = frozenset()
        self.failed: str | None = None  # why the last save failed
        # The file was damaged or removed from outside while this session held marks: the
        # session's marks are the only whole copy, and the next save writes them all back.
        self.lost: str | None = None
        self._guard = threading.RLock()  # the in-memory state, swapped as one

    # ------------------------------------------------------------------ reading

    def _read(self) -> dict[tuple[str, str, str, str], Mark] | None:
        return self._read_kept()[0]

    def _read_kept(self) -> tuple[dict[tuple[str, str, str, str], Mark] | None, list[Path]]:
        """The marks on disk, with those a session kept beside the file when it could not
        save (`keep_unsaved`): for one slot the newer word and both notes (`merged_note`
        against the file's), and the files those came from;
        None when the file exists but cannot be read (then it must not be written over), with
        ``warning`` saying so."""
        try:
            data = read_state(self.path)
            marks, foreign, why = _marks_from(data) if data is not None else ([], [], None)
            found = {m.slot: m for m in marks}
        except Unreadable as exc:
            reason = exc.reason
        except ValueError as exc:
            reason = str(exc)
        else:
            taken = []
            filed = {slot: mark.note for slot, mark in found.items()}  # what the kept ones began from
            for kept in sorted(self.path.parent.glob(f"{self.path.name}.unsaved-*")):
                try:
                    kept_data = read_state(kept)
                    marks, kept_foreign, kept_why = _marks_from(kept_data)
                except (Unreadable, ValueError):
                    continue  # left as it is, for a person to read
                # Its entries this version cannot read go into the file with the rest (the
                # kept file is removed once taken in), but not beside a mark of the same
                # example: two entries for one, a newer version would take the last. Such
                # a file is left as it is, for a person to read.
                if any(_slot_of(entry) in found for entry in kept_foreign):
                    continue
                foreign = [*foreign, *({k: v for k, v in entry.items() if k != "began_from"}
                                       if isinstance(entry, dict) else entry for entry in kept_foreign)]
                why = why or kept_why
                began = _began_from(kept_data)
                taken.append(kept)
                for mark in marks:
                    held = found.get(mark.slot)
                    if held is None:
                        found[mark.slot] = mark
                        continue
                    # The newer word; the notes merged: two sessions' kept at one hang-up
                    # (the lock held by a stopped one) each held a note the other lost.
                    newer = mark if held.updated <= mark.updated else held
                    # Against the note its session began from, where it says (a note another
                    # session saved just before the hang-up was taken for that, and lost).
                    note = merged_note(began.get(mark.slot, filed.get(mark.slot, "")), mark.note, held.note)
                    found[mark.slot] = replace(newer, note=note)
            self.foreign = foreign
            if foreign:
                entries = "entry" if len(foreign) == 1 else "entries"
                self.warning = (f"marks file {self.path}: {len(foreign)} {entries} this version cannot read "
                                f"({why}{', and more' if len(foreign) > 1 else ''}), kept in the file as "
                                f"{'it is' if len(foreign) == 1 else 'they are'}; every other mark is shown")
            return found, taken
        self.warning = f"marks file {self.path} was unreadable ({reason}); {set_aside(self.path)}"
        return None, []

    def load(self) -> None:
        """Read the file again. One set aside as damaged, or gone (a report that read it set it
        aside, or someone removed it), while this session holds marks leaves them shown, and
        the next save writes them back: the marks are the user's, the file is only a copy."""
        found = self._read()
        with self._guard:
            if found is None or (not found and self.all and not self.path.exists()):
                if set(self.all) - set(self.pending):  # marks it read there: only this session has them now
                    self.lost = self.warning if found is None else f"{self.path} was gone (set aside or removed)"
                return
            # While the file is lost, what others write to a new one joins what is held.
            self.all = self._applied({**self.all, **found} if self.lost is not None else found)

    def _applied(self, marks: dict) -> dict:
        """``marks`` with the changes not saved yet laid over them (a new dict)."""
        marks = dict(marks)
        for slot, mark in self.pending.items():
            if mark is None:
                marks.pop(slot, None)
            else:
                marks[slot] = mark
        return marks

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

    def set_mark(self, baseline: str, candidate: str, example_id: str, word: str | None,
                 note: str | None, outputs: str, *, fallback: str = "unsure", save: bool = True) -> str | None:
        """Mark this pair's ``example_id`` with ``word`` and ``note`` (``None`` keeps the
        current word or note; a note alone keeps the word, else takes ``fallback``: "unsure",
        which claims nothing, or the word of the mark the user saw, carried from another
        pair); returns a notice for the user. ``save`` False records the change only (the app saves it off its UI
        thread).

        An OSError (full disk, read-only folder, the lock held too long) propagates, and the
        change stays in ``pending`` and in ``all``: nothing typed is lost, and the next save
        writes it."""
        slot = (self.fingerprint, baseline, candidate, example_id)
        current = self.all.get(slot)
        note_only = word is None
        if word is None:
            word = current.word if current else fallback
        if word not in MARKS:
            raise ValueError(f"unknown mark {word!r}")
        text = note if note is not None else (current.note if current else "")
        new = Mark(example_id, word, text, outputs, *slot[:3], self.place, now_iso())
        self.record(slot, new, note_only=note_only)
        return self.save() if save else None

    def record(self, slot: tuple[str, str, str, str], mark: Mark | None, note_only: bool = False) -> None:
        """This session's change, in memory (shown at once; `save` writes it): ``mark`` in
        ``slot``, or None to clear it."""
        with self._guard:
            if slot not in self.pending:
                self.seen = {**self.seen, slot: self.all.get(slot)}
            self.pending = {**self.pending, slot: mark}
            self.note_only = self.note_only | {slot} if note_only else self.note_only - {slot}
            self.all = self._applied(self.all)

    def save(self, wait: float = LOCK_WAIT) -> str | None:
        """Write the changes not on disk yet (and every mark held, when the file was lost),
        merged with what other sessions wrote, under the file's lock (waited for at most
        ``wait`` seconds); returns a notice for the user, or raises OSError and keeps them.
        With nothing to write it does nothing (the app's write-back after each change)."""
        if not self.pending and self.lost is None:
            return None
        try:
            with locked(self.path, wait):
                notice = self._save()
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise
        self.failed = None
        return notice

    def _save(self) -> str | None:
        with self._guard:
            pending, seen, note_only, held, lost = self.pending, self.seen, self.note_only, self.all, self.lost
        on_disk, kept = self._read_kept()
        reason = self.warning if on_disk is None else lost
        if reason is not None:
            # Damaged or gone from outside: every mark this session holds is written back,
            # beside what another session wrote to a new file since.
            on_disk = {**held, **(on_disk or {})}
            seen = {slot: on_disk.get(slot) for slot in pending}
        notices: list[str] = []
        result = self._merged(on_disk, pending, seen, note_only, notices)
        if reason is not None:  # what happened first: a toast shows the start of a long line
            notices.insert(0, f"the marks file was damaged from outside since this session read it: wrote "
                              f"back the {len(result)} marks this session holds; {reason}")
        atomic_write(self.path, self._payload(result, self.foreign))
        for path in kept:  # now in the file: the copies beside it can go
            with contextlib.suppress(OSError):
                path.unlink()
        with self._guard:  # what was changed again meanwhile stays pending
            self.pending = {s: m for s, m in self.pending.items() if s not in pending or pending[s] is not m}
            self.seen = {s: m for s, m in self.seen.items() if s in self.pending}
            self.note_only = self.note_only & set(self.pending)
            self.lost = None
            self.all = self._applied(result)
        return "; ".join(notices) or None

    @staticmethod
    def _merged(on_disk: dict, pending: dict, seen: dict, note_only: frozenset, notices: list[str]) -> dict:
        """The file's marks with this session's changes laid over them. The last writer of a
        mark wins, and is told when it replaces a mark it had not seen; clearing never deletes
        a mark it did not see; a note alone never changes a word another session chose; a
        note changed on both sides keeps both sides' changes (`merged_note`)."""
        result = dict(on_disk)
        for slot, mark in pending.items():
            theirs = result.get(slot)
            if theirs is None or theirs == seen.get(slot):
                if mark is None:
                    result.pop(slot, None)
                else:
                    result[slot] = mark
                continue
            if mark is None:
                notices.append(f"another session had marked this example {theirs.word} since; kept that mark")
                continue
            was = seen.get(slot)
            note = merged_note(was.note if was else "", mark.note, theirs.note)
            moved = theirs.word != (was.word if was else None)  # their word, not ours, changed
            if slot in note_only:
                result[slot] = replace(mark, word=theirs.word, note=note)
                said = [f"another session had marked this example {theirs.word} since; kept that mark"
                        + (", with your note" if note == mark.note else "")] if moved else []
            else:
                result[slot] = replace(mark, note=note)
                said = [f"another session had marked this example {theirs.word}; replaced with {mark.word}"] if moved else []
            seen_note = was.note if was else ""
            if note != mark.note:
                said.append(note_said(seen_note, mark.note, theirs.note, note))
            elif seen_note.strip() and not theirs.note.strip() and mark.note != seen_note:
                said.append("another session emptied this note since: yours is kept")  # (theirs undone)
            if said:
                notices.append("; ".join(said))
        return result

    def keep_unsaved(self) -> Path | None:
        """The changes a save could not write (the lock held by a stopped session, say), in
        a file of their own beside the marks file, written without the lock, as the session
        ends: the next save of any session takes them in. Clearing a mark is not kept (it
        deletes nothing that was not saved)."""
        with self._guard:
            marks = {slot: mark for slot, mark in self.pending.items() if mark is not None}
            if self.lost is not None:
                marks = {**self.all, **marks}
        if not marks:
            return None
        # What each note began from: what this session saw before its change; a mark it did
        # not change (all it holds, kept when the file was lost) began as it is.
        began = {slot: (seen.note if (seen := self.seen.get(slot)) is not None else "") if slot in self.pending
                 else marks[slot].note for slot in marks}
        kept = self.path.with_name(f"{self.path.name}.unsaved-{now_iso().replace(':', '')}-{os.getpid()}")
        atomic_write(kept, self._payload(marks, began=began), new=True)
        return kept

    @property
    def unsaved(self) -> int:
        """Changes a failed save left in memory only (not those still being saved)."""
        return len(self.pending) if self.failed is not None else 0

    def _payload(self, marks: dict, foreign: list[Any] = (), began: dict | None = None) -> bytes:
        """The file's bytes: ``marks``, then ``foreign`` entries as they were; ``began`` (a
        kept file's): each mark's note as its session began from it, as ``began_from``."""
        data = {
            "suite": self.suite,
            "version": 2,
            "marks": [
                *({**{_FILE_NAMES.get(name, name): value for name, value in asdict(marks[slot]).items()},
                   **({"began_from": began[slot]} if began is not None and slot in began else {})}
                  for slot in sorted(marks)),
                *foreign,
            ],
        }
        # A lone surrogate (a build named by a file name that is not UTF-8) cannot be UTF-8:
        # backslashreplace writes it as its JSON escape, so the file reads back as written.
        return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8", "backslashreplace")
