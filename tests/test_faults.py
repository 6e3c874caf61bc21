"""Nothing the user wrote is lost: faults injected into every write of the review state.

A writer killed with SIGKILL mid-write, a full disk (ENOSPC) and a read-only file system
(EROFS) at each step of the atomic write, a file where the state directory belongs, corrupt
and truncated state files, and a score cache corrupted in every way between two runs. The
oracles are the bytes on disk before the fault and the output of a run without any cache.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from safety_helpers import small_suite, xdg_env

from rouge_tui import cli, state

FAULTS_INJECTED = 0  # every injected fault adds one; ROUGE_TUI_COUNT=1 prints the total


def _counted() -> None:
    global FAULTS_INJECTED
    FAULTS_INJECTED += 1


if os.environ.get("ROUGE_TUI_COUNT"):
    import atexit

    atexit.register(lambda: print(f"\nfaults injected by test_faults.py: {FAULTS_INJECTED}"))


# ---------------------------------------------------------------------- SIGKILL mid-write

WRITER = r"""
import sys
from rouge_tui.state import MarkStore
start = int(sys.argv[1])
store = MarkStore("killed suite", "fp", "base", "cand")
store.load()
i = start
while True:
    # notes of varied length, so the file grows and a kill lands inside a write
    store.set(f"e{i:05d}", ("fine", "regression", "unsure")[i % 3], "n" * (i % 700), "h")
    print(i, flush=True)  # acknowledged: set() returned
    i += 1
"""


@pytest.mark.slow
def test_sigkill_mid_write_keeps_every_acknowledged_mark(tmp_path: Path) -> None:
    """A writer saving marks in a loop is SIGKILLed at random moments, twelve times over:
    every time the file parses and holds every mark acknowledged before the kill."""
    rng = random.Random(20261129)
    env = xdg_env(tmp_path)
    acknowledged: set[str] = set()
    start = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(start)],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # running and writing
        assert first.strip().isdigit()
        acknowledged.add(f"e{int(first):05d}")
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        _counted()
        rest, _ = proc.communicate(timeout=30)
        for line in rest.splitlines():
            if line.strip().isdigit():
                acknowledged.add(f"e{int(line):05d}")
        assert proc.returncode == -signal.SIGKILL
        # what a new session reads: whole JSON, every acknowledged mark, no warning
        os.environ.update({k: env[k] for k in env if k.startswith("XDG_")})
        store = state.MarkStore("killed suite", "fp", "base", "cand")
        marks = store.load()
        assert store.warning is None
        assert json.loads(store.path.read_text(encoding="utf-8"))["marks"]
        missing = acknowledged - set(marks)
        assert not missing, f"lost acknowledged marks: {sorted(missing)[:5]}"
        start = max(int(k[1:]) for k in marks) + 1
    assert len(acknowledged) > 12


# ---------------------------------------------------------------------- full disk, read-only


def _enospc(*_args: object, **_kwargs: object) -> None:
    _counted()
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _erofs(*_args: object, **_kwargs: object) -> None:
    _counted()
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


class _HalfWriter(io.RawIOBase):
    """A file object that writes half of what it is given, then fails with ENOSPC."""

    def __init__(self, real: io.BufferedWriter) -> None:
        self.real = real

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.real.write(bytes(data[: len(data) // 2]))
        self.real.flush()
        _enospc()
        return 0

    def fileno(self) -> int:
        return self.real.fileno()

    def close(self) -> None:
        self.real.close()
        super().close()


def _inject(monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    """Make every write of the state fail at one step of the atomic write."""
    if fault == "write-ENOSPC":
        real_fdopen = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _HalfWriter(real_fdopen(fd, *a, **k)))
    elif fault == "fsync-ENOSPC":
        monkeypatch.setattr(os, "fsync", _enospc)
    elif fault == "rename-EROFS":
        monkeypatch.setattr(os, "replace", _erofs)
    elif fault == "mkstemp-EROFS":
        monkeypatch.setattr(tempfile, "mkstemp", _erofs)
    elif fault == "lock-EROFS":
        monkeypatch.setattr(state, "locked", _erofs)
    else:  # pragma: no cover
        raise AssertionError(fault)


FAULTS = ["write-ENOSPC", "fsync-ENOSPC", "rename-EROFS", "mkstemp-EROFS", "lock-EROFS"]


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if not p.name.endswith((".json", ".lock")))


@pytest.mark.parametrize("fault", FAULTS)
def test_failed_mark_save_keeps_the_file_and_the_mark(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = state.MarkStore("suite", "fp", "b", "c")
    store.load()
    store.set("kept", "fine", "written before the fault", "h1")
    before = store.path.read_bytes()

    with monkeypatch.context() as patch:
        _inject(patch, fault)
        with pytest.raises(OSError):
            store.set("new", "regression", "typed during the fault", "h2")
        with pytest.raises(OSError):
            store.set("kept", None, "a second note, also during the fault", "h1")

    assert store.path.read_bytes() == before  # the previous state, byte for byte
    assert _leftovers(store.path.parent) == []  # no half-written temporary file left
    # nothing typed is lost: both changes are in memory, and pending for the next save
    assert store.marks["new"].mark == "regression"
    assert store.marks["new"].note == "typed during the fault"
    assert store.marks["kept"] == state.Mark(
        "fine", "a second note, also during the fault", "h1", store.marks["kept"].updated
    )
    assert set(store.pending) == {"new", "kept"}

    # the fault is gone: the next save (of anything) writes everything
    store.set("third", "unsure", "", "h3")
    on_disk = json.loads(store.path.read_text(encoding="utf-8"))["marks"]
    assert {k: (v["mark"], v["note"]) for k, v in on_disk.items()} == {
        "kept": ("fine", "a second note, also during the fault"),
        "new": ("regression", "typed during the fault"),
        "third": ("unsure", ""),
    }
    assert store.pending == {}


@pytest.mark.parametrize("fault", FAULTS)
def test_failed_history_record_keeps_the_history(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = state.History("suite")
    history.record({"fingerprint": "f1", "baseline": "a", "candidate": "b"})
    before = history.path.read_bytes()
    with monkeypatch.context() as patch:
        _inject(patch, fault)
        history.record({"fingerprint": "f2", "baseline": "a", "candidate": "c"})
    assert history.warning and "could not record history" in history.warning
    assert history.path.read_bytes() == before
    assert _leftovers(history.path.parent) == []


def test_unreadable_marks_file_is_never_overwritten(monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that fails (EIO) must not be followed by a write of only the new mark."""
    store = state.MarkStore("suite", "fp", "b", "c")
    store.set("precious", "regression", "hours of review", "h")
    before = store.path.read_bytes()
    real = Path.read_bytes

    def eio(self: Path) -> bytes:
        if self == store.path:
            _counted()
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(self)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", eio)
        fresh = state.MarkStore("suite", "fp", "b", "c")
        assert fresh.load() == {}
        assert fresh.warning and "could not read marks" in fresh.warning
        with pytest.raises(OSError):
            fresh.set("other", "fine", "", "h")
    assert store.path.read_bytes() == before
    assert fresh.marks["other"].mark == "fine"  # kept in memory for the retry
    fresh.set("other", "fine", "", "h")  # the disk reads again: both marks are kept
    assert set(state.MarkStore("suite", "fp", "b", "c").load()) == {"precious", "other"}


def test_a_file_where_the_data_directory_belongs(isolated_state: Path) -> None:
    """chmod does not stop root, so the state directory is made unusable with a file."""
    blocker = state.data_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"not a directory")
    _counted()
    store = state.MarkStore("suite", "fp", "b", "c")
    assert store.load() == {}
    assert store.warning and "could not read marks" in store.warning
    with pytest.raises(OSError):
        store.set("e", "fine", "note", "h")
    assert store.marks["e"].note == "note"
    assert blocker.read_bytes() == b"not a directory"


# ---------------------------------------------------------------------- corrupt state files


def _valid_marks_file() -> bytes:
    store = state.MarkStore("suite", "fp", "b", "c")
    store.set("e1", "fine", "first note", "h1")
    store.set("e2", "regression", "second", "h2")
    data = store.path.read_bytes()
    store.path.unlink()
    return data


CORRUPT = {
    "garbage": b"\x00\xff garbage",
    "not utf-8": b'{"marks": {"e": {"mark": "fine", "note": "\xff"}}}',
    "empty": b"",
    "a list": b"[]",
    "marks not an object": b'{"marks": []}',
    "entry not an object": b'{"marks": {"e": "fine"}}',
    "unknown mark word": b'{"marks": {"e": {"mark": "looks-good", "note": "keep me"}}}',
    "no marks key": b'{"suite": "s"}',
}


def _check_set_aside(store: state.MarkStore, content: bytes) -> None:
    assert store.load() == {}
    assert store.warning and "kept it as" in store.warning
    aside = [p for p in store.path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert aside[0].name in store.warning
    # the next save starts a new file and never touches the one set aside
    store.set("new", "fine", "", "h")
    assert aside[0].read_bytes() == content
    assert set(json.loads(store.path.read_text(encoding="utf-8"))["marks"]) == {"new"}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupt_marks_file_is_set_aside_with_a_warning(name: str) -> None:
    store = state.MarkStore("suite", "fp", "b", "c")
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_bytes(CORRUPT[name])
    _counted()
    _check_set_aside(store, CORRUPT[name])


def test_every_truncation_of_a_marks_file_is_set_aside(isolated_state: Path) -> None:
    full = _valid_marks_file()
    # every cut that loses more than the final newline is a broken file
    for cut in range(len(full) - 1):
        marks_dir = state.data_dir() / "marks"
        for old in marks_dir.glob("*"):
            old.unlink()
        store = state.MarkStore("suite", "fp", "b", "c")
        store.path.write_bytes(full[:cut])
        _counted()
        _check_set_aside(store, full[:cut])


def test_corrupt_marks_file_is_set_aside_during_a_save_too() -> None:
    """Another program broke the file between our load and our save."""
    store = state.MarkStore("suite", "fp", "b", "c")
    store.set("e1", "fine", "", "h")
    store.path.write_bytes(b'{"marks": {"e1": ')
    _counted()
    store.set("e2", "fine", "", "h")
    assert store.warning and "kept it as" in store.warning
    aside = [p for p in store.path.parent.iterdir() if ".corrupt-" in p.name]
    assert [p.read_bytes() for p in aside] == [b'{"marks": {"e1": ']


# ---------------------------------------------------------------------- the score cache


def _report(suite: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = cli.main(["report", str(suite), "--format", "json", *extra])
    out = capsys.readouterr().out
    return code, out


def _cache_files() -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(state.cache_dir().rglob("*")) if p.is_file()}


def _old_format(path: Path, raw: bytes, other: bytes) -> bytes:
    """An entry as an earlier version wrote it: the hash of the payload alone."""
    head = len(b"rouge-tui-scores\x00")
    payload = raw[head + 32 :]
    return raw[:head] + hashlib.sha256(payload).digest() + payload


CORRUPTIONS = {
    "flip the last byte": lambda p, raw, other: raw[:-1] + bytes([raw[-1] ^ 0x01]),
    "truncate": lambda p, raw, other: raw[: len(raw) // 2],
    "partial write (empty)": lambda p, raw, other: b"",
    "foreign magic": lambda p, raw, other: b"x" * 17 + raw[17:],
    "earlier format": _old_format,
    "another entry's file": lambda p, raw, other: other,
    "scores out of range": lambda p, raw, other: raw[:-8] + b"\x00" * 7 + b"\x7f",
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_corrupt_cache_gives_the_same_report_and_is_rebuilt(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = small_suite(tmp_path / "suite")
    code, uncached = _report(suite, capsys, "--no-cache")
    assert _cache_files() == {}
    assert _report(suite, capsys) == (code, uncached)
    entries = _cache_files()
    assert len(entries) >= 2
    paths = list(entries)
    for index, path in enumerate(paths):
        other = entries[paths[(index + 1) % len(paths)]]
        path.write_bytes(CORRUPTIONS[how](path, entries[path], other))
        _counted()
    assert _report(suite, capsys) == (code, uncached)
    assert _cache_files() == entries  # every entry rebuilt, as it was


def test_unwritable_cache_only_costs_speed(tmp_path: Path, capsys) -> None:
    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    blocker = state.cache_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"a file where the cache directory belongs")
    _counted()
    assert _report(suite, capsys) == expected
    assert _report(suite, capsys) == expected
    assert blocker.read_bytes() == b"a file where the cache directory belongs"


# ---------------------------------------------------------------------- the app under faults


def _app(suite: Path):
    from rouge_tui.app.app import RougeApp

    return RougeApp(suites=[suite], options=argparse.Namespace())


def _messages(app, severity: str | None = None) -> list[str]:
    return [n.message for n in app._notifications if severity in (None, n.severity)]


async def _settle(pilot) -> None:
    from test_app_helpers import settle

    await settle(pilot)


async def test_app_failed_save_says_so_keeps_mark_and_note_and_retries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rouge_tui.app.screens.note import NoteScreen

    suite = small_suite(tmp_path / "suite")
    app = _app(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        screen = app.screen
        example = screen.current_id()
        store = screen.review.store
        with monkeypatch.context() as patch:
            _inject(patch, "fsync-ENOSPC")
            await pilot.press("b")
            await pilot.press("c")
            assert isinstance(app.screen, NoteScreen)
            app.screen.query_one("Input").value = "the header is duplicated, see line 2"
            await pilot.press("enter")
            await pilot.pause()
        errors = _messages(app, "error")
        assert len(errors) == 2 and all("No space left on device" in e for e in errors)
        assert "could not save the mark" in errors[0] and "could not save the note" in errors[1]
        assert not store.path.exists()  # nothing reached the disk
        # the mark is shown and the note comes back in the editor
        assert screen.review.mark_cell(example).word() == "regression+"
        await pilot.press("c")
        assert app.screen.query_one("Input").value == "the header is duplicated, see line 2"
        await pilot.press("enter")  # the retry
        await pilot.pause()
    entry = json.loads(store.path.read_text(encoding="utf-8"))["marks"][example]
    assert (entry["mark"], entry["note"]) == ("regression", "the header is duplicated, see line 2")


async def test_app_opens_and_says_so_with_corrupt_marks_and_history(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite", name="corrupt state")
    marks_dir = state.data_dir() / "marks"
    marks_dir.mkdir(parents=True)
    history = state.History("corrupt state")
    history.path.parent.mkdir(parents=True)
    history.path.write_bytes(b'{"entries": [')
    # the marks file name depends on the fingerprint: write it where the app will look
    from rouge_tui.suite import load_suite

    loaded = load_suite(suite)
    store = state.MarkStore(loaded.name, loaded.fingerprint, "a", "b")
    store.path.write_bytes(b"{half a file")
    _counted()
    app = _app(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        warnings = _messages(app, "warning")
        assert app.screen.review is not None  # the review opened
        await pilot.press("g")  # and marking works: a new file
        await pilot.pause()
    assert any("marks file was unreadable" in w and "kept it as" in w for w in warnings)
    assert any("history file was unreadable" in w for w in warnings)
    aside = sorted(p.name for p in marks_dir.iterdir() if ".corrupt-" in p.name)
    assert len(aside) == 1
    assert (marks_dir / aside[0]).read_bytes() == b"{half a file"
    assert json.loads(store.path.read_text(encoding="utf-8"))["marks"]


async def test_app_opens_with_an_unusable_data_directory(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite")
    blocker = state.data_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"x")
    _counted()
    app = _app(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        assert app.screen.review is not None
        await pilot.press("g")
        await pilot.pause()
        example = app.screen.current_id()
        assert app.screen.review.mark_of(example).mark == "fine"
    assert any("could not read marks" in w for w in _messages(app, "warning"))
    assert any("could not record history" in w for w in _messages(app, "warning"))
    assert any("could not save the mark" in e for e in _messages(app, "error"))
    assert blocker.read_bytes() == b"x"


# ---------------------------------------------------------------------- output on a full disk


@pytest.mark.parametrize(
    "args",
    [
        ["report", "{suite}"],
        ["report", "{suite}", "--format", "json"],
        ["score", "{refs}", "{out}"],
    ],
    ids=["report-text", "report-json", "score"],
)
def test_output_to_a_full_disk_is_exit_2_not_drift_and_not_a_traceback(
    tmp_path: Path, args: list[str]
) -> None:
    """Exit 1 means drift: a report that could not be written must never say that."""
    suite = small_suite(tmp_path / "suite")
    values = {
        "suite": str(suite),
        "refs": str(suite / "references.jsonl"),
        "out": str(suite / "builds" / "a.jsonl"),
    }
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        result = subprocess.run(
            [sys.executable, "-m", "rouge_tui", *(a.format(**values) for a in args)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env=xdg_env(tmp_path / "xdg"),
            check=False,
        )
    _counted()
    assert result.returncode == 2, result.stderr
    assert result.stderr == "rouge-tui: error: writing the output: No space left on device\n"
