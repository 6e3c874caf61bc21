"""store/marks: what a person decided is kept, whatever happens to the process, the disk or
the file.

Faults are injected into every write (SIGKILL mid-write, a full disk at each step of the
atomic write, a read-only folder, a file where the folder belongs, a file damaged from
outside while a session is open). The oracles are the bytes on disk before the fault and
the marks the test itself acknowledged.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from safety_helpers import public_folder, public_state, small_suite, unprivileged, xdg_env
from test_paths import FAULTS, finishes, inject, lock_held_elsewhere

from rouge_tui import cli
from rouge_tui.errors import SuiteError
from rouge_tui.store import marks as marks_module
from rouge_tui.store import paths
from rouge_tui.store.marks import MARKS, MarkStore, outputs_hash

PAIR = ("base", "cand")


def store(fingerprint: str = "fp", place: str = "/suites/one", named: bool = False) -> MarkStore:
    found = MarkStore("suite", fingerprint, place, named)
    found.load()
    return found


def words(found: MarkStore) -> dict[str, tuple[str, str]]:
    """Every mark of the pair PAIR under fingerprint fp: id -> (word, note)."""
    return {m.id: (m.word, m.note) for m in found.own(*PAIR).values()}


def on_disk(found: MarkStore) -> dict[str, tuple[str, str]]:
    data = json.loads(found.path.read_text(encoding="utf-8"))
    return {m["id"]: (m["mark"], m["note"]) for m in data["marks"]}


def on_disk_readable(found: MarkStore) -> dict[str, tuple[str, str]]:
    """`on_disk`, less the entries this version cannot read."""
    data = json.loads(found.path.read_text(encoding="utf-8"))
    return {m["id"]: (m["mark"], m["note"]) for m in data["marks"]
            if isinstance(m, dict) and m.get("mark") in MARKS and isinstance(m.get("note"), str)}


def aside(found: MarkStore) -> list[Path]:
    return sorted(p for p in found.path.parent.iterdir() if ".corrupt-" in p.name)


# ---------------------------------------------------------------------- round trip


def test_marks_round_trip_with_everything_they_were_made_with() -> None:
    one = store()
    assert one.set_mark(*PAIR, "e1", "fine", "looks right", "h1") is None
    assert one.set_mark(*PAIR, "e2", "regression", "", "h2") is None
    fresh = store()
    assert words(fresh) == {"e1": ("fine", "looks right"), "e2": ("regression", "")}
    mark = fresh.own(*PAIR)["e1"]
    assert (mark.outputs, mark.fingerprint, mark.baseline, mark.candidate, mark.place) == (
        "h1", "fp", "base", "cand", "/suites/one"
    )
    assert mark.updated  # when it was made
    assert fresh.warning is None and fresh.unsaved == 0


def test_the_marks_file_is_plain_json_anyone_can_read() -> None:
    one = store()
    one.set_mark(*PAIR, "e", "fine", "n\u00e9 \u2014 note", "h")
    data = json.loads(one.path.read_text(encoding="utf-8"))
    assert data["suite"] == "suite" and data["version"] == 2
    assert [(m["id"], m["mark"], m["note"]) for m in data["marks"]] == [("e", "fine", "n\u00e9 \u2014 note")]


# A marks file as main wrote it before `Mark.mark` became `Mark.word`, typed by hand: the
# file's field stays "mark" (SPEC's word), in the same place.
MAIN_FORMAT = """{
 "suite": "suite",
 "version": 2,
 "marks": [
  {
   "id": "e1",
   "mark": "regression",
   "note": "the header is duplicated",
   "outputs": "h1",
   "fingerprint": "fp",
   "baseline": "base",
   "candidate": "cand",
   "place": "/suites/one",
   "updated": "2026-01-02T03:04:05Z"
  }
 ]
}
"""


def test_a_marks_file_in_mains_format_loads_and_is_written_back_byte_for_byte() -> None:
    path = MarkStore("suite", "fp", "/suites/one", False).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MAIN_FORMAT, encoding="utf-8")
    one = store()
    assert one.warning is None and words(one) == {"e1": ("regression", "the header is duplicated")}
    slot = ("fp", *PAIR, "e1")
    one.record(slot, one.all[slot])  # the same mark again: the file must come back unchanged
    assert one.save() is None
    assert path.read_text(encoding="utf-8") == MAIN_FORMAT


def test_a_note_alone_hangs_on_unsure_and_a_word_alone_keeps_the_note() -> None:
    one = store()
    one.set_mark(*PAIR, "e", None, "check the header", "h")
    assert words(store()) == {"e": ("unsure", "check the header")}
    one.set_mark(*PAIR, "e", "regression", None, "h")  # the word changes, the note stays
    one.set_mark(*PAIR, "f", "fine", "", "h")
    one.set_mark(*PAIR, "f", None, "a note on a fine mark", "h")  # the note changes, the word stays
    assert words(store()) == {
        "e": ("regression", "check the header"),
        "f": ("fine", "a note on a fine mark"),
    }


def test_an_unknown_mark_word_is_refused() -> None:
    one = store()
    with pytest.raises(ValueError, match="unknown mark"):
        one.set_mark(*PAIR, "e", "looks-good", "", "h")
    assert not one.path.exists()


def test_outputs_hash_tells_every_cut_of_the_same_text_apart() -> None:
    pairs = [("ab", "c"), ("a", "bc"), ("abc", ""), ("", "abc"), ("é", "\ud800x"), ("", "")]
    assert len({outputs_hash(*pair) for pair in pairs}) == len(pairs)
    assert outputs_hash("ab", "c") == outputs_hash("ab", "c")


def test_marks_belong_to_the_content_not_the_path() -> None:
    one = store("fp1", "/suites/one")
    one.set_mark(*PAIR, "e1", "fine", "", "h")
    # the same content (name and references) opened from another folder: the same marks
    assert set(store("fp1", "/copies/one").own(*PAIR)) == {"e1"}
    # other references: not marks of this pair, but shown as earlier (see test_review.py)
    other = store("fp2", "/suites/one")
    assert other.own(*PAIR) == {}
    assert set(other.earlier(*PAIR)) == {"e1"}
    # another unnamed suite that only shares the folder name: not its marks at all
    assert store("fp2", "/elsewhere/one").earlier(*PAIR) == {}
    # a named suite is the same suite wherever it lives
    assert set(store("fp2", "/elsewhere/one", named=True).earlier(*PAIR)) == {"e1"}


def test_a_build_name_that_is_not_utf8_round_trips_in_the_marks_file() -> None:
    """A file name with a byte that is not UTF-8 (legal on Linux) lists as a build whose
    name holds a lone surrogate; the marks file must read back what was written."""
    one = store()
    assert one.set_mark("a", "b\udcff", "e1", "fine", "n\u00e9", "h") is None
    assert one.set_mark("a", "b\udcff", "e2", "regression", "", "h") is None  # a clean re-read
    fresh = store()
    assert fresh.warning is None and aside(fresh) == []
    assert {m.id: (m.word, m.note) for m in fresh.own("a", "b\udcff").values()} == {
        "e1": ("fine", "n\u00e9"),
        "e2": ("regression", ""),
    }
    one.path.read_bytes().decode("utf-8")  # and the file stays UTF-8 other tools can read


# ---------------------------------------------------------------------- two sessions


def test_two_sessions_lose_no_mark_and_the_second_is_told() -> None:
    one, two = store(), store()
    assert one.set_mark(*PAIR, "e1", "fine", "one thinks fine", "h") is None
    # two marks the same example without having seen one's mark: told, and the last word
    # wins; one's note, which two never saw, is kept after two's (nothing written is lost)
    told = two.set_mark(*PAIR, "e1", "regression", "two disagrees", "h")
    assert told == ("another session had marked this example fine; replaced with regression; another session "
                    "changed this note too: both texts are kept in it")
    assert two.set_mark(*PAIR, "e2", "regression", "", "h") is None  # another example: no notice
    assert one.set_mark(*PAIR, "e3", "unsure", "", "h") is None  # one's next save keeps all three
    both = "two disagrees\n\n(kept from another session) one thinks fine"
    assert words(store()) == {
        "e1": ("regression", both),
        "e2": ("regression", ""),
        "e3": ("unsure", ""),
    }
    assert words(one)["e1"] == ("regression", both)  # one's save showed it two's


def test_a_note_another_session_saved_while_this_one_typed_is_kept() -> None:
    """A red-team pass: two sessions typed a note on one example; the second save erased the
    first's note (or, on the same word, without a word said). Both texts are kept, this
    session's first; a note this session had seen is replaced as before."""
    one, two = store(), store()
    one.set_mark(*PAIR, "e", "fine", "", "h")
    two.load()  # two has seen "fine" with no note
    assert one.set_mark(*PAIR, "e", None, "ALICE: the header is duplicated", "h") is None
    told = two.set_mark(*PAIR, "e", None, "BOB: fine by me", "h")
    assert told == "another session changed this note too: both texts are kept in it"  # (the word was fine already)
    assert on_disk(two) == {"e": ("fine", "BOB: fine by me\n\n(kept from another session) ALICE: the header is duplicated")}
    # a note this session had seen (its own save showed it) is its to replace, silently
    assert two.set_mark(*PAIR, "e", None, "BOB: rewritten", "h") is None
    assert on_disk(store()) == {"e": ("fine", "BOB: rewritten")}
    # a word changed elsewhere, the note left as this session saw it: only the word moves
    three = store()
    one.load()
    one.set_mark(*PAIR, "e", "regression", None, "h")
    assert three.set_mark(*PAIR, "e", None, "three's note", "h") == (
        "another session had marked this example regression since; kept that mark, with your note")
    assert on_disk(store()) == {"e": ("regression", "three's note")}


def test_a_word_changed_here_keeps_a_note_changed_elsewhere_once() -> None:
    """A review of the change above: a session that changed the word alone, its view of the
    note stale, saved the other session's newer note after its old one, the old text twice.
    A note this session did not change is the other's, as it stands; and a note of theirs
    that is part of ours ("good" in "not good") is still kept."""
    one, two = store(), store()
    one.set_mark(*PAIR, "e", "fine", "A", "h")
    two.load()
    one.set_mark(*PAIR, "e", None, "A, and the header is duplicated", "h")
    assert two.set_mark(*PAIR, "e", "regression", None, "h") == (
        "another session changed this note since: theirs is kept (yours was not changed)")  # (the word: ours)
    assert on_disk(store()) == {"e": ("regression", "A, and the header is duplicated")}
    three, four = store(), store()
    three.set_mark(*PAIR, "f", None, "good", "h")
    four.set_mark(*PAIR, "f", None, "not good", "h")
    assert on_disk(store())["f"] == ("unsure", "not good\n\n(kept from another session) good")


def test_a_mark_the_session_has_seen_is_replaced_without_a_notice() -> None:
    """Each save re-reads the file, so a session holds (and shows) the other's marks from
    its next save on; replacing one it holds is a decision, not an accident."""
    one, two = store(), store()
    one.set_mark(*PAIR, "e1", "fine", "", "h")
    two.set_mark(*PAIR, "e2", "fine", "", "h")  # two's save brings in one's e1
    assert words(two)["e1"] == ("fine", "")
    assert two.set_mark(*PAIR, "e1", "regression", "", "h") is None
    assert words(store())["e1"] == ("regression", "")


def test_clearing_a_mark_another_session_has_since_replaced_keeps_theirs() -> None:
    """One session clears what it saw (its own mark); meanwhile another replaced it with
    its own mark and note: clearing must not delete a mark its session never saw."""
    one, two = store(), store()
    one.set_mark(*PAIR, "e1", "fine", "one's note", "h")
    two.set_mark(*PAIR, "e1", "regression", "two's note, hours of work", "h")
    slot = ("fp", *PAIR, "e1")
    one.record(slot, None)  # what Review.clear does
    told = one.save()
    # (two never saw one's note: it is kept after two's)
    kept = "two's note, hours of work\n\n(kept from another session) one's note"
    assert words(store()) == {"e1": ("regression", kept)}
    assert told == "another session had marked this example regression since; kept that mark"
    assert words(one) == {"e1": ("regression", kept)}  # shown to one
    one.record(slot, None)
    assert one.save() is None  # now seen: a second clear is a decision, and clears
    assert words(store()) == {}


IDS = [f"ex-{i:03d}" for i in range(160)]
FIRST = IDS[:100]  # session one marks these "fine"
SECOND = IDS[60:]  # session two marks these "regression": 40 overlap


def _session(env: dict[str, str], ids: list[str], mark: str, go, out) -> None:
    os.environ.update(env)
    mine = store()
    go.wait(30)
    notices = []
    for example_id in ids:
        notice = mine.set_mark(*PAIR, example_id, mark, f"{mark} by pid {os.getpid()}", "h")
        if notice:
            notices.append(notice)
    out.put((mark, notices))


@pytest.mark.slow
def test_two_processes_lose_no_mark() -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith("XDG_")}
    ctx = multiprocessing.get_context("spawn")  # a clean interpreter, as a second session is
    go, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_session, args=(env, FIRST, "fine", go, out)),
        ctx.Process(target=_session, args=(env, SECOND[::-1], "regression", go, out)),
    ]
    for proc in procs:
        proc.start()
    go.set()
    notices = dict([out.get(timeout=120), out.get(timeout=120)])
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    found = store()
    marks = words(found)
    assert set(marks) == set(IDS)  # nothing lost
    overlap = set(FIRST) & set(SECOND)
    for example_id, (word, note) in marks.items():
        if example_id not in overlap:
            assert word == ("fine" if example_id in FIRST else "regression")
        assert note.startswith(word)  # a mark and its note come from the same writer
    for mark, said in notices.items():
        other = "regression" if mark == "fine" else "fine"
        # Where the other's save came between this session's read and its own (the race this
        # test runs, not every time), the two notes, made from none, are both kept, and said.
        replaced = f"another session had marked this example {other}; replaced with {mark}"
        both = f"{replaced}; another session changed this note too: both texts are kept in it"
        assert set(said) <= {replaced, both}, said
        assert len(said) <= len(overlap)


# ---------------------------------------------------------------------- SIGKILL mid-write

WRITER = r"""
import sys
from rouge_tui.store.marks import MarkStore
start = int(sys.argv[1])
store = MarkStore("killed suite", "fp", "/place", False)
store.load()
i = start
while True:
    # notes of varied length, so the file grows and a kill lands inside a write
    store.set_mark("base", "cand", f"e{i:05d}", ("fine", "regression", "unsure")[i % 3], "n" * (i % 700), "h")
    print(i, flush=True)  # acknowledged: set_mark() returned
    i += 1
"""


@pytest.mark.slow
def test_sigkill_mid_write_keeps_every_acknowledged_mark(tmp_path: Path) -> None:
    """A writer saving marks in a loop is SIGKILLed at random moments, twelve times over:
    every time the file parses and holds every mark acknowledged before the kill."""
    rng = random.Random(20261129)
    env = xdg_env(tmp_path)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    acknowledged: set[str] = set()
    start = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(start)], stdout=subprocess.PIPE, env=env, text=True
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # running and writing
        assert first.strip().isdigit()
        acknowledged.add(f"e{int(first):05d}")
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
        acknowledged.update(f"e{int(line):05d}" for line in rest.split() if line.isdigit())
        assert proc.returncode == -signal.SIGKILL
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            os.environ[var] = env[var]
        found = MarkStore("killed suite", "fp", "/place", False)
        found.load()
        assert found.warning is None  # whole JSON, nothing set aside
        held = set(found.own("base", "cand"))
        missing = acknowledged - held
        assert not missing, f"lost acknowledged marks: {sorted(missing)[:5]}"
        start = max(int(k[1:]) for k in held) + 1
    assert len(acknowledged) > 12


# ---------------------------------------------------------------------- a failed save


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith((".json", ".lock")))


def _lock_fails(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


@pytest.mark.parametrize("fault", [*FAULTS, "lock-EROFS"])
def test_a_failed_save_keeps_the_file_and_the_mark_and_a_retry_saves_it(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = store()
    one.set_mark(*PAIR, "kept", "fine", "written before the fault", "h1")
    before = one.path.read_bytes()
    with monkeypatch.context() as patch:
        if fault == "lock-EROFS":
            patch.setattr(marks_module, "locked", _lock_fails)
        else:
            inject(patch, fault)
        with pytest.raises(OSError):
            one.set_mark(*PAIR, "new", "regression", "typed during the fault", "h2")
        with pytest.raises(OSError):
            one.set_mark(*PAIR, "kept", None, "a second note, also during the fault", "h1")
        assert one.unsaved == 2
        with pytest.raises(OSError):
            one.save()  # a retry while the fault lasts fails again, and keeps both
    assert one.path.read_bytes() == before  # the previous file, byte for byte
    assert _leftovers(one.path.parent) == []  # no half-written temporary file left
    # nothing typed is lost: both changes are in memory, waiting for the next save
    assert words(one) == {
        "new": ("regression", "typed during the fault"),
        "kept": ("fine", "a second note, also during the fault"),
    }
    assert one.unsaved == 2
    one.save()  # the fault is gone: the retry writes everything
    assert one.unsaved == 0
    assert on_disk(one) == {
        "kept": ("fine", "a second note, also during the fault"),
        "new": ("regression", "typed during the fault"),
    }


def _mark_in_a_folder_made_read_only() -> dict[str, object]:
    """Run as nobody: mark, make the marks folder read-only, mark again, retry."""
    one = store()
    one.set_mark(*PAIR, "kept", "fine", "before", "h")
    before = one.path.read_bytes()
    one.path.parent.chmod(0o555)
    seen: dict[str, object] = {}
    try:
        one.set_mark(*PAIR, "new", "regression", "typed while read-only", "h")
    except PermissionError as exc:
        seen["error"] = exc.strerror
    seen["unchanged"] = one.path.read_bytes() == before
    seen["unsaved"] = one.unsaved
    seen["in memory"] = words(one)
    try:
        one.save()
    except PermissionError:
        seen["retry while read-only"] = "refused"
    one.path.parent.chmod(0o755)
    one.save()
    seen["after"] = on_disk(one)
    seen["leftovers"] = _leftovers(one.path.parent)
    return seen


def test_a_read_only_marks_folder_keeps_the_file_and_the_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    with public_folder() as root:
        public_state(root, monkeypatch)
        seen = unprivileged(_mark_in_a_folder_made_read_only)
    assert seen == {
        "error": "Permission denied",
        "unchanged": True,
        "unsaved": 1,
        "in memory": {"kept": ("fine", "before"), "new": ("regression", "typed while read-only")},
        "retry while read-only": "refused",
        "after": {"kept": ("fine", "before"), "new": ("regression", "typed while read-only")},
        "leftovers": [],
    }


def _corrupt_file_in_a_read_only_folder() -> dict[str, object]:
    """Run as nobody: a corrupt marks file in a folder that cannot be written."""
    path = MarkStore("suite", "fp", "/suites/one", False).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{half a file")
    path.parent.chmod(0o555)
    one = store()
    seen: dict[str, object] = {"warning": one.warning}
    try:
        one.set_mark(*PAIR, "e", "fine", "typed", "h")
    except PermissionError:
        seen["save"] = "refused"
    seen["file"] = path.read_bytes()
    seen["in memory"] = words(one)
    path.parent.chmod(0o755)
    return seen


def test_a_corrupt_file_that_cannot_be_moved_aside_is_never_written_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with public_folder() as root:
        public_state(root, monkeypatch)
        seen = unprivileged(_corrupt_file_in_a_read_only_folder)
    warning = seen.pop("warning")
    assert "unreadable" in warning and "kept it as" not in warning
    assert "left it in place (could not move it aside: Permission denied)" in warning
    assert seen == {"save": "refused", "file": b"{half a file", "in memory": {"e": ("fine", "typed")}}


def test_a_file_where_the_data_directory_belongs() -> None:
    """The state folder made unusable without chmod: a file in its place."""
    blocker = paths.data_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"not a directory")
    one = store()
    assert one.warning is not None and "unreadable" in one.warning
    assert "left it in place" in one.warning and "kept it as" not in one.warning
    with pytest.raises(OSError):
        one.set_mark(*PAIR, "e", "fine", "note", "h")
    assert words(one) == {"e": ("fine", "note")} and one.unsaved == 1
    assert blocker.read_bytes() == b"not a directory"


def test_a_marks_file_that_cannot_be_read_is_set_aside_never_written_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A read that fails (EIO) must not be followed by a write of only the new mark over
    the marks it could not read."""
    first = store()
    first.set_mark(*PAIR, "precious", "regression", "hours of review", "h")
    before = first.path.read_bytes()
    real = paths.read_small

    def eio(path: Path, limit: int) -> bytes:
        if Path(path) == first.path and first.path.exists():
            raise SuiteError(f"cannot read: {os.strerror(errno.EIO)}", path)
        return real(path, limit)

    with monkeypatch.context() as patch:
        patch.setattr(paths, "read_small", eio)
        fresh = store()
        assert fresh.warning is not None and "Input/output error" in fresh.warning
        fresh.set_mark(*PAIR, "other", "fine", "", "h")
    (kept,) = aside(first)
    assert kept.read_bytes() == before  # what could not be read is kept, untouched
    assert str(kept) in fresh.warning
    assert on_disk(fresh) == {"other": ("fine", "")}


# ---------------------------------------------------------------------- damaged files


def _valid_marks_file() -> bytes:
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "first note", "h1")
    one.set_mark(*PAIR, "e2", "regression", "second", "h2")
    data = one.path.read_bytes()
    one.path.unlink()
    return data


def _entry(**change: object) -> bytes:
    mark = {"id": "e", "mark": "fine", "note": "keep me", "outputs": "h", "fingerprint": "fp",
            "baseline": "base", "candidate": "cand", "place": "/suites/one", "updated": ""}  # fmt: skip
    mark.update(change)
    return json.dumps({"suite": "suite", "version": 2, "marks": [mark]}).encode()


CORRUPT = {
    "garbage": b"\x00\xff garbage",
    "not utf-8": _entry().replace(b"keep me", b"\xff"),
    "empty": b"",
    "a list": b"[]",
    "marks not a list": b'{"marks": {"e": {"mark": "fine"}}}',
    "no marks key": b'{"suite": "s"}',
    "deep nesting": b'{"marks": ' + b"[" * 100_000,
    "deep nesting, closed": b'{"marks": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


def _check_set_aside(found: MarkStore, content: bytes) -> None:
    assert found.all == {}
    assert found.warning and "unreadable" in found.warning and "kept it as" in found.warning
    (kept,) = aside(found)
    assert kept.read_bytes() == content
    assert str(kept) in found.warning
    # the next save starts a new file and never touches the one set aside
    found.set_mark(*PAIR, "new", "fine", "", "h")
    assert kept.read_bytes() == content
    assert on_disk(found) == {"new": ("fine", "")}


def test_the_valid_entry_the_corrupt_ones_are_made_from_is_read() -> None:
    one = store()
    one.path.parent.mkdir(parents=True, exist_ok=True)
    one.path.write_bytes(_entry())
    assert words(store()) == {"e": ("fine", "keep me")}


@pytest.mark.parametrize(("bad", "why"), [
    ("fine", "an entry is not an object"),
    ({"id": "e", "mark": "skip"}, "the mark of 'e': unknown mark word 'skip'"),
    ({"id": "e", "mark": "fine", "note": None}, "the mark of 'e': its 'note' is not text (null)"),
    ({"id": "e", "mark": "fine", "note": 12}, "the mark of 'e': its 'note' is not text (number)"),
], ids=["entry not an object", "unknown mark word", "a null note", "a field not text"])
def test_an_entry_this_version_cannot_read_is_kept_and_hides_no_other_mark(bad: object, why: str) -> None:
    """A pass on marks: one entry with a word this version does not know (a typo, a newer
    version's word) or a null note set the whole file aside: every mark of the suite
    vanished from the app and the reports, and only the first reader, maybe a nightly job,
    said why. The other marks are read, the entry is written back as it was, and every
    reader says so."""
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "first note", "h1")
    data = json.loads(one.path.read_bytes())
    data["marks"].append(bad)
    one.path.write_text(json.dumps(data))
    for _ in range(2):  # each reader says it, not only the first
        found = store()
        assert words(found) == {"e1": ("fine", "first note")}
        assert found.warning == (f"marks file {found.path}: 1 entry this version cannot read ({why}), kept in the "
                                 "file as it is; every other mark is shown")  # (whose: a regression hunt)
        assert not aside(found)
    found.set_mark(*PAIR, "e2", "regression", "", "h2")
    *marks, last = json.loads(found.path.read_bytes())["marks"]
    assert last == bad  # written back as it was
    assert {m["id"]: (m["mark"], m["note"]) for m in marks} == {"e1": ("fine", "first note"), "e2": ("regression", "")}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_marks_file_is_set_aside_with_a_warning(name: str) -> None:
    path = MarkStore("suite", "fp", "/suites/one", False).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(CORRUPT[name])
    _check_set_aside(store(), CORRUPT[name])


def test_every_truncation_of_a_marks_file_is_set_aside() -> None:
    full = _valid_marks_file()
    assert full.endswith(b"}\n")
    for cut in range(len(full) - 1):  # every cut that loses more than the final newline
        folder = paths.data_dir() / "marks"
        for old in folder.glob("*"):
            old.unlink()
        path = MarkStore("suite", "fp", "/suites/one", False).path
        path.write_bytes(full[:cut])
        _check_set_aside(store(), full[:cut])


@pytest.mark.parametrize(
    "damage",
    [lambda raw: raw[: len(raw) // 2], lambda raw: b"", lambda raw: b"\x00" * len(raw)],
    ids=["truncated", "emptied", "zeroed"],
)
def test_a_file_damaged_while_a_session_is_open_is_rewritten_from_the_session(damage) -> None:
    """Issue 12, item 8: the file is set aside, the new file holds every mark the session
    held (not just the newest), and the notice says what happened."""
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "first", "h")
    one.set_mark(*PAIR, "e2", "regression", "second", "h")
    one.set_mark(*PAIR, "e3", "unsure", "third", "h")
    damaged = damage(one.path.read_bytes())
    one.path.write_bytes(damaged)  # from outside, while the session is open
    notice = one.set_mark(*PAIR, "e4", "regression", "fourth", "h")
    assert on_disk(one) == {
        "e1": ("fine", "first"),
        "e2": ("regression", "second"),
        "e3": ("unsure", "third"),
        "e4": ("regression", "fourth"),
    }
    (kept,) = aside(one)
    assert kept.read_bytes() == damaged
    assert notice is not None and "another session" not in notice
    assert "damaged from outside" in notice
    assert str(kept) in notice and "wrote back the 4 marks this session holds" in notice


@pytest.mark.parametrize("who", ["another process", "this session's own check"])
def test_a_file_set_aside_while_a_session_is_open_is_written_back_from_the_session(who: str) -> None:
    """Issue 39, 13: once the damaged file was set aside (by a report, or by the app's own
    look at the file), the next look found no file and emptied the session's marks, and the
    next mark was saved alone. The session keeps its three, and writes back all four."""
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "first", "h")
    one.set_mark(*PAIR, "e2", "regression", "second", "h")
    one.set_mark(*PAIR, "e3", "unsure", "third", "h")
    damaged = one.path.read_bytes()[:40]
    one.path.write_bytes(damaged)  # from outside, while the session is open
    if who == "another process":
        assert "kept it as" in store().warning  # a report reads it and sets it aside
    else:
        one.load()  # the app's look at the file finds it damaged and sets it aside
    assert not one.path.exists()
    one.load()  # the next look: no file at all
    held = {"e1": ("fine", "first"), "e2": ("regression", "second"), "e3": ("unsure", "third")}
    assert words(one) == held
    notice = one.set_mark(*PAIR, "e4", "regression", "fourth", "h")
    assert on_disk(one) == {**held, "e4": ("regression", "fourth")}
    (kept,) = aside(one)
    assert kept.read_bytes() == damaged
    assert notice is not None and "damaged from outside" in notice and "wrote back the 4 marks" in notice


def test_a_file_set_aside_is_written_back_beside_a_mark_another_session_saved_since() -> None:
    """Another session's mark in the new file is kept beside everything this one held."""
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "mine", "h")
    one.path.write_bytes(b"{")
    store().load()  # set aside
    one.load()  # no file: one holds its mark
    store().set_mark(*PAIR, "e2", "regression", "theirs", "h")  # a new file, with only theirs
    one.load()
    assert words(one) == {"e1": ("fine", "mine"), "e2": ("regression", "theirs")}
    assert one.save() is not None  # the app's write-back, with no new mark
    assert on_disk(one) == {"e1": ("fine", "mine"), "e2": ("regression", "theirs")}


def test_a_lock_held_by_a_stopped_session_fails_the_save_in_bounded_time_and_keeps_the_mark() -> None:
    """Issue 39, 14: a save waited without end for a lock another process held (a session
    stopped with ctrl+z). It gives up within the lock's bound, keeps the change for a retry,
    and leaves the file as it was."""
    one = store()
    one.set_mark(*PAIR, "kept", "fine", "before", "h")
    before = one.path.read_bytes()
    with lock_held_elsewhere(one.path):
        start = time.monotonic()
        ended, result = finishes(lambda: one.set_mark(*PAIR, "new", "regression", "typed", "h"), 20)
        assert ended, "the save still waited for the lock after 20 s"
        assert isinstance(result, TimeoutError)
        assert time.monotonic() - start < paths.LOCK_WAIT + 2
        assert one.unsaved == 1 and words(one)["new"] == ("regression", "typed")
        assert one.path.read_bytes() == before
    one.save()
    assert on_disk(one) == {"kept": ("fine", "before"), "new": ("regression", "typed")} and one.unsaved == 0


def test_changes_a_hang_up_could_not_save_are_kept_beside_the_file_and_taken_in_by_the_next_save() -> None:
    """Issue 39, 14: a hang-up while another process holds the lock waits briefly and goes;
    what it could not save is kept in a file of its own beside the marks file (written
    without the lock), shown by the next session and written into the file by its next save."""
    one = store()
    one.set_mark(*PAIR, "kept", "fine", "before", "h")
    with lock_held_elsewhere(one.path):
        one.set_mark(*PAIR, "new", "regression", "typed before the line dropped", "h", save=False)
        with pytest.raises(TimeoutError):
            one.save(0.2)  # what the hang-up does first
        side = one.keep_unsaved()
        assert side is not None and side.parent == one.path.parent and ".unsaved-" in side.name
    assert on_disk(one) == {"kept": ("fine", "before")}  # the file itself as it was
    later = store()
    assert words(later) == {"kept": ("fine", "before"), "new": ("regression", "typed before the line dropped")}
    later.set_mark(*PAIR, "other", "unsure", "", "h")
    assert on_disk(later) == {
        "kept": ("fine", "before"), "new": ("regression", "typed before the line dropped"), "other": ("unsure", ""),
    }  # fmt: skip
    assert not side.exists()  # in the file now


@pytest.mark.parametrize("seen", [None, "fine"], ids=["unmarked", "seen fine"])
def test_a_note_never_replaces_the_word_another_session_chose(seen: str | None) -> None:
    """Weak spot of issue 39: a note added on an example another session had since marked
    "regression" saved it as "unsure" (or as the word this session last saw): the other
    session's decision was lost. The word stays theirs, the note is added, and it is said."""
    one, two = store(), store()
    if seen:
        one.set_mark(*PAIR, "e", seen, "", "h")
    two.load()
    two.set_mark(*PAIR, "e", "regression", "", "h")
    told = one.set_mark(*PAIR, "e", None, "a note", "h")
    assert on_disk(one) == {"e": ("regression", "a note")}
    assert told == "another session had marked this example regression since; kept that mark, with your note"
    # a note on an example nobody marked still hangs on "unsure", and a word chosen replaces
    one.set_mark(*PAIR, "f", None, "alone", "h")
    one.set_mark(*PAIR, "e", "fine", None, "h")
    assert on_disk(store()) == {"e": ("fine", "a note"), "f": ("unsure", "alone")}


def _report_json(suite: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = cli.main(["report", str(suite), "--format", "json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out)


def test_report_sets_aside_a_deeply_nested_marks_file_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 12, item 3: ``{"marks": [[[[`` 100,000 deep crashed report with a
    RecursionError (exit 1, which means drift)."""
    suite = small_suite(tmp_path / "suite", name="nested")
    code, clean = _report_json(suite, capsys)
    path = MarkStore("nested", clean["reference_fingerprint"], str(suite), True).path
    path.parent.mkdir(parents=True, exist_ok=True)
    deep = b'{"marks": ' + b"[" * 100_000
    path.write_bytes(deep)
    again, data = _report_json(suite, capsys)
    assert again == code
    (warning,) = [w for w in data["warnings"] if "references alone" not in w]  # (no source: said)
    assert "unreadable (not valid JSON (nested too deeply))" in warning and "kept it as" in warning
    assert data["marks"] == {}
    (kept,) = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert kept.read_bytes() == deep and not path.exists()


def test_the_mark_words_are_specs_each_with_its_key_and_four_letters() -> None:
    """SPEC "Review": the words every report and marks file carries, byte for byte, in its
    order; `a` fine, `b` regression, `u` unsure; narrow, at least the first four letters."""
    assert [(m.word, m.key, m.short) for m in MARKS.values()] == [
        ("fine", "a", "fine"), ("regression", "b", "regr"), ("unsure", "u", "unsu")]
    assert all(m.word.encode("ascii") == m.word.encode("utf-8") for m in MARKS.values())


def test_a_note_is_merged_three_ways_against_what_was_seen() -> None:
    """The rule of every save and of the note editor: a side that left the note as both saw
    it gives way (the editor saved with nothing typed keeps the other session's note), a
    side that changed it alone wins, and changed on both sides both are kept, ours first."""
    from rouge_tui.store.notes import merged_note

    assert merged_note("seen", "seen", "theirs") == "theirs"
    assert merged_note("seen", "mine", "seen") == "mine"
    assert merged_note("seen", "mine", "theirs") == "mine\n\n(kept from another session) theirs"
    assert merged_note("", "mine", "theirs") == "mine\n\n(kept from another session) theirs"  # two notes
    assert merged_note("", "mine", "   ") == "mine"  # a blank note of theirs is no text to keep
    joined = merged_note("seen", "mine", "theirs")
    assert merged_note("theirs", joined, "theirs") == joined  # the join saved again: once
    # Two edits of one note at different places are both made; two additions at one place go
    # in side by side, theirs (saved first) first: what both started from is there once.
    assert merged_note("the cat sat", "the cat sat. Mine.", "The cat sat") == "The cat sat. Mine."
    assert merged_note("alpha", "alpha A2", "alpha B2") == "alpha B2 A2"
    assert merged_note("alpha", "alpha\nA2", "alpha\nB2") == "alpha\nB2\nA2"
    # An edit both sides made is made once (a review: both texts were kept whole for it).
    assert merged_note("a b c d", "a c d x", "a c d y") == "a c d y x"
    # Edits that meet are no two places: made letter by letter they wrote what nobody did
    # ("counts 121", a review): both texts are kept.
    assert merged_note("counts 10", "counts 12", "counts 101") == "counts 12\n\n(kept from another session) counts 101"
    # (a red-team pass: both adding a word at the end, round after round, doubled the note)
    note = "shared"
    for k in range(6):
        note = merged_note(note, f"{note} a{k}", f"{note} b{k}")
    assert note == "shared b0 a0 b1 a1 b2 a2 b3 a3 b4 a4 b5 a5"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["cut", "at", "02:14", " ", "  ", "\n", ".", "log"]), max_size=8),
       st.sampled_from([" ", "  ", "\n", ""]), st.sampled_from([" ", "  ", "\n", ""]),
       st.lists(st.sampled_from(["A", "adds", "this", "[x]"]), min_size=1, max_size=4),
       st.lists(st.sampled_from(["B", "adds", "that", "[y]"]), min_size=1, max_size=4))
def test_two_additions_to_one_note_each_stay_whole(seen_words, gap_a, gap_b, words_a, words_b) -> None:
    """A pass of two sessions: both added to a note that ended in a space, and the saved note
    was "first note.  [B  [A adds that]\nadds this]": each addition cut at a space inside
    it and spliced into the other (2,056 times in 20,000 random pairs). Whatever the merge
    makes of them, each addition is there whole, and so is the note they were made to."""
    from rouge_tui.store.notes import merged_note

    seen = "".join(seen_words)
    a, b = " ".join(words_a), " ".join(words_b)
    merged = merged_note(seen, seen + gap_a + a, seen + gap_b + b)
    assert a in merged and b in merged and seen.strip() in merged, (seen, a, b, merged)


def test_what_became_of_a_note_is_said_as_it_is() -> None:
    """A review: a note emptied here while the other session edited it kept theirs, and the
    notice said "yours was not changed"; a save of two changes, one with nothing to say, began
    its notice with "; "."""
    from rouge_tui.store.notes import merged_note, note_said

    kept = merged_note("drops the date", "", "drops the year")
    assert kept == "drops the year"
    assert note_said("drops the date", "", "drops the year", kept) == (
        "another session changed this note too: theirs is kept, your change of it is not made")
    assert note_said("drops the date", "drops the date", "drops the year", kept) == (
        "another session changed this note since: theirs is kept (yours was not changed)")
    one, two = store(), store()
    one.set_mark(*PAIR, "e", "fine", "", "h")
    one.set_mark(*PAIR, "f", "fine", "", "h")
    two.load()
    one.set_mark(*PAIR, "e", "fine", "", "h")  # the same word again: nothing to tell two of
    one.set_mark(*PAIR, "f", "unsure", "", "h")
    two.record(("fp", *PAIR, "e"), replace(two.all[("fp", *PAIR, "e")], word="regression"))
    two.record(("fp", *PAIR, "f"), replace(two.all[("fp", *PAIR, "f")], word="regression"))
    assert two.save() == "another session had marked this example unsure; replaced with regression"


def test_two_sessions_kept_at_one_hang_up_keep_both_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass of two sessions: with the lock held by a stopped one, two hang-ups each kept
    their note beside the file (`keep_unsaved`), "base fromB fromA" and "base fromB fromC";
    the next save took the newer of the two and deleted both files: A's text was gone. The
    kept notes are merged against the file's, the newer word kept."""
    slot = ("fp", *PAIR, "e")
    store().set_mark(*PAIR, "e", "fine", "base fromB", "h")
    sessions = [store(), store()]  # both read "base fromB" before either hung up
    for pid, hung, note in ((101, sessions[0], "base fromB fromA"), (102, sessions[1], "base fromB fromC")):
        with monkeypatch.context() as patch:  # (two processes' files, kept in one second)
            patch.setattr(marks_module.os, "getpid", lambda pid=pid: pid)
            hung.record(slot, replace(hung.all[slot], note=note))
            assert hung.keep_unsaved() is not None
    later = store()
    later.set_mark(*PAIR, "other", "unsure", "", "h")  # a save takes the kept ones in
    assert on_disk(later)["e"] == ("fine", "base fromB fromA fromC")
    assert not [p for p in later.path.parent.iterdir() if ".unsaved-" in p.name]


def test_a_kept_files_entry_this_version_cannot_read_goes_into_the_marks_file() -> None:
    """A review of "an entry this version cannot read hides no other mark": a file a session
    kept at a hang-up, holding such an entry (a newer version's word), was taken in and
    removed, and the entry with it: the text typed in it was nowhere. It goes into the marks
    file as it was, beside the marks taken in."""
    one = store()
    one.set_mark(*PAIR, "e1", "fine", "first", "h1")
    data = json.loads(one.path.read_bytes())
    good = {**data["marks"][0], "id": "e8", "note": "kept good"}
    newer = {**data["marks"][0], "id": "e9", "mark": "skip", "note": "typed in the newer version"}
    kept_as = {**newer, "began_from": ""}  # (what a kept file adds: no field of the marks file)
    kept = one.path.with_name(one.path.name + ".unsaved-2026-12-05T000000+0000-1")
    kept.write_text(json.dumps({"suite": "suite", "version": 2, "marks": [good, kept_as]}))
    two = store()
    two.set_mark(*PAIR, "e2", "regression", "", "h2")
    assert not kept.exists()
    entries = json.loads(one.path.read_bytes())["marks"]
    assert newer in entries  # (as it was: no began_from of the kept file's brought along)
    assert on_disk_readable(one) == {"e1": ("fine", "first"), "e2": ("regression", ""), "e8": ("fine", "kept good")}
    assert "1 entry this version cannot read" in store().warning


def test_a_kept_entry_this_version_cannot_read_of_a_marked_example_is_left_for_a_person() -> None:
    """A review of the test above: an entry a newer version kept for an example the file
    already marks went in beside that mark, two entries for one example (a newer version
    would take the last, and this one edits the first). Such a kept file is left as it is,
    and the marks file holds one entry for the example."""
    one = store()
    one.set_mark(*PAIR, "e1", "regression", "old note", "h1")
    data = json.loads(one.path.read_bytes())
    newer = {**data["marks"][0], "mark": "skip", "note": "old note, then typed in newer", "began_from": "old note"}
    kept = one.path.with_name(one.path.name + ".unsaved-2026-12-05T000000+0000-1")
    kept.write_text(json.dumps({"suite": "suite", "version": 2, "marks": [newer]}))
    two = store()
    two.set_mark(*PAIR, "e1", "regression", "old note + edited here", "h1")
    assert kept.exists()
    entries = [m for m in json.loads(one.path.read_bytes())["marks"] if m["id"] == "e1"]
    assert [(m["mark"], m["note"]) for m in entries] == [("regression", "old note + edited here")]


def test_a_lost_files_marks_kept_at_a_hang_up_give_way_where_unchanged() -> None:
    """A review of the change below: a session whose marks file was damaged keeps every mark
    it holds at a hang-up; a mark it never changed was kept as begun from no note, and the
    next save kept its note and another session's newer one side by side. It began as it
    is held, and gives way."""
    lost = store()
    lost.set_mark(*PAIR, "e", "fine", "base", "h")
    lost.path.write_text("{ damaged")  # damaged from outside
    lost.load()
    assert lost.lost
    other = store()  # sets the damaged file aside, and starts a new one
    other.set_mark(*PAIR, "e", "fine", "base fromB", "h")
    lost.record(("fp", *PAIR, "f"), replace(lost.all[("fp", *PAIR, "e")], id="f", note="new"))
    assert lost.keep_unsaved() is not None
    later = store()
    later.set_mark(*PAIR, "other", "unsure", "", "h")
    assert on_disk(later)["e"] == ("fine", "base fromB")
    assert on_disk(later)["f"] == ("fine", "new")


def test_a_note_kept_at_a_hang_up_keeps_what_another_session_saved_before_it() -> None:
    """A pass on marks: a note typed here while another session saved its addition to the
    same note and held the lock; the hang-up kept ours beside the file, and the next save
    took the file's note (theirs) for what ours began from: ours won whole, their addition
    was gone everywhere, no word. The kept file says what its note began from."""
    slot = ("fp", *PAIR, "e")
    store().set_mark(*PAIR, "e", "fine", "base", "h")
    hung = store()  # read "base"
    store().set_mark(*PAIR, "e", "fine", "base fromB", "h")  # another session's, saved first
    hung.record(slot, replace(hung.all[slot], note="base fromA"))
    assert hung.keep_unsaved() is not None  # (its save could not have the lock)
    later = store()
    later.set_mark(*PAIR, "other", "unsure", "", "h")
    assert on_disk(later)["e"] == ("fine", "base fromB fromA")
    assert not [p for p in later.path.parent.iterdir() if ".unsaved-" in p.name]


def test_an_addition_to_a_long_note_merges_and_edits_all_through_it_keep_both() -> None:
    """A pass of two sessions: a 24 KB note and an addition on each side; the merge compared
    every word with every word, 5 s, and the hang-up's grace ended the process in it, the
    typed text lost. What all three share at each end is compared no more: the additions
    merge; edits all through a long note keep both texts whole (nothing dropped)."""
    from rouge_tui.store.notes import merged_note

    long = " ".join(f"word{k}" for k in range(5000))
    assert merged_note(long, f"{long} tailA", f"{long} tailB") == f"{long} tailB tailA"
    mine, theirs = f"x {long} tailA", long.replace("word2500", "W") + " tailB"
    assert merged_note(long, mine, theirs) == f"{mine}\n\n(kept from another session) {theirs}"


def test_a_note_emptied_elsewhere_and_added_to_here_keeps_ours_and_says_so() -> None:
    """A pass of two sessions: B emptied a note and saved; A added to it and saved: A's note
    stood (nothing of B's text to keep) and A was told nothing of B's emptying it."""
    one, two = store(), store()
    one.set_mark(*PAIR, "e", "fine", "n0 base", "h")
    two.load()
    one.set_mark(*PAIR, "e", None, "", "h")
    assert two.set_mark(*PAIR, "e", None, "n0 base fromA", "h") == (
        "another session emptied this note since: yours is kept")
    assert on_disk(store()) == {"e": ("fine", "n0 base fromA")}
