"""store/paths: where state lives, atomic writes, safe file names, reading state files.

The oracles are the bytes on disk before a fault (a failed write must leave them exactly),
the folder a name must stay in, and the JSON module's own refusal of what it cannot read.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from safety_helpers import public_folder, unprivileged
from suite_helpers import within

from rouge_tui.store import paths
from rouge_tui.store.paths import Unreadable, atomic_write, read_state, safe_name, set_aside

# A second user needs root here (to fork one, or to chown to one).
AS_ANOTHER_USER = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")


def test_dirs_follow_xdg(isolated_state: Path) -> None:
    for folder in (paths.config_dir(), paths.data_dir(), paths.cache_dir()):
        assert folder.is_relative_to(isolated_state)
        assert folder.name == "rouge-tui"


def test_atomic_write_replaces_the_whole_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "f.json"
    atomic_write(target, b"one, a longer first version")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


def _enospc(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _erofs(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


class _HalfWriter(io.RawIOBase):
    """A file that takes half of what it is given, then fails as a full disk does."""

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


def inject(monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    """Make every atomic write fail at one of its steps, as a full disk or a read-only file
    system makes it fail."""
    if fault == "write-ENOSPC":
        real_fdopen = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _HalfWriter(real_fdopen(fd, *a, **k)))
    elif fault == "fsync-ENOSPC":
        monkeypatch.setattr(os, "fsync", _enospc)
    elif fault == "replace-ENOSPC":
        monkeypatch.setattr(os, "replace", _enospc)
    elif fault == "replace-EROFS":
        monkeypatch.setattr(os, "replace", _erofs)
    elif fault == "mkstemp-EROFS":
        monkeypatch.setattr(tempfile, "mkstemp", _erofs)
    else:  # pragma: no cover
        raise AssertionError(fault)


FAULTS = ["write-ENOSPC", "fsync-ENOSPC", "replace-ENOSPC", "replace-EROFS", "mkstemp-EROFS"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failed_write_keeps_the_previous_file_byte_for_byte(
    fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.json"
    precious = b'{"marks": ["hours of review"]}\n'
    atomic_write(target, precious)
    with monkeypatch.context() as patch:
        inject(patch, fault)
        with pytest.raises(OSError) as info:
            atomic_write(target, b'{"marks": []}\n' * 1000)
    assert info.value.errno in (errno.ENOSPC, errno.EROFS)
    assert target.read_bytes() == precious
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # the temporary file is gone


def _write_into(folder: str) -> str:
    target = Path(folder) / "f.json"
    try:
        atomic_write(target, b"new")
    except PermissionError as exc:
        return f"refused: {exc.strerror}" + (" (the folder named)" if exc.filename == folder else f" ({exc.filename})")
    return "written"


def test_a_read_only_folder_keeps_the_previous_file(tmp_path: Path) -> None:
    with public_folder() as root:
        folder = root / "state"
        folder.mkdir()
        (folder / "f.json").write_bytes(b"precious")
        folder.chmod(0o555)
        # Named by the folder, which the user can do something about: a newcomer's export
        # failure named the hidden temporary file.
        assert unprivileged(_write_into, str(folder)) == "refused: Permission denied (the folder named)"
        assert (folder / "f.json").read_bytes() == b"precious"
        assert sorted(p.name for p in folder.iterdir()) == ["f.json"]


def test_what_the_user_wrote_is_fsynced_and_a_cache_entry_is_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    atomic_write(tmp_path / "marks.json", b"precious")
    assert len(synced) == 2  # the file, then its folder, before the write returns
    synced.clear()
    atomic_write(tmp_path / "entry.bin", b"rebuilt on any doubt", durable=False)
    assert synced == []
    assert (tmp_path / "entry.bin").read_bytes() == b"rebuilt on any doubt"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.bin", "marks.json"]


def test_state_is_private_unless_a_mode_is_given(tmp_path: Path) -> None:
    atomic_write(tmp_path / "state.json", b"x")
    atomic_write(tmp_path / "export.md", b"x", 0o644)
    assert stat.S_IMODE((tmp_path / "state.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "export.md").stat().st_mode) == 0o644


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664), (0, 0o666)])
def test_umask_mode_is_what_a_new_file_gets_and_leaves_the_umask_alone(mask: int, mode: int) -> None:
    before = os.umask(mask)
    try:
        assert paths.umask_mode() == mode
        assert paths.umask_mode() == mode  # the umask itself was put back
    finally:
        os.umask(before)


HOSTILE = ["..", ".", "../../etc/passwd", "/etc/passwd", "a/b", "a\\b", "\x1b]2;x\x07", "x" * 500,
           "", ".hidden", "-rf", "é\u0301\u202e", "\ud800", "con", "a\x00b", "~"]  # fmt: skip


@pytest.mark.parametrize("name", HOSTILE)
def test_safe_name_cannot_escape_the_folder(name: str, tmp_path: Path) -> None:
    safe = safe_name(name)
    assert safe not in (".", "..") and not safe.startswith((".", "-"))
    assert set(safe) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    assert len(safe) <= 60 + 11
    assert (tmp_path / safe).resolve().parent == tmp_path.resolve()
    (tmp_path / safe).write_text("x")  # a name the file system takes


def test_safe_name_keeps_distinct_names_distinct() -> None:
    # each group cleans to the same letters: only the hash of the original tells them apart
    groups = [
        ["a/b", "a_b", "a\\b", "a b", "a\x00b", "a?b"],
        ["e", "é", "e\u0301"],
        ["", ".", "..", "x", "_"],
        ["y" * 100 + "1", "y" * 100 + "2"],  # differ only past the cut
    ]
    names = [name for group in groups for name in group]
    assert len({safe_name(name) for name in names}) == len(names)
    assert safe_name("a/b") == safe_name("a/b")  # and the same name finds the same file


def test_read_state_reads_a_json_state_file_and_says_none_for_no_file(tmp_path: Path) -> None:
    assert read_state(tmp_path / "missing.json") is None
    (tmp_path / "ok.json").write_text('{"marks": [1, "two"]}')
    assert read_state(tmp_path / "ok.json") == {"marks": [1, "two"]}


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"", b"\xff\xfe{}", b'{"marks": ' + b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000],
    ids=["broken", "empty", "not-utf8", "deep-open", "deep-closed"],
)
def test_a_state_file_that_is_not_json_is_unreadable_never_a_crash(
    content: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "marks.json"
    path.write_bytes(content)
    with pytest.raises(Unreadable) as info:
        read_state(path)
    assert info.value.reason.startswith("not valid JSON")


def test_deep_nesting_is_too_deep_for_the_json_module_itself(tmp_path: Path) -> None:
    """The oracle for the case above: Python's decoder cannot read it (RecursionError), so
    without read_state's own guard the reader would crash."""
    import json

    with pytest.raises(RecursionError):
        json.loads("[" * 100_000 + "]" * 100_000)


def test_a_fifo_or_a_folder_where_a_state_file_belongs_is_unreadable(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for path in (fifo, folder):
        result = within(5, read_state, path)
        assert isinstance(result, Unreadable), result


def test_set_aside_moves_the_file_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "marks.json"
    path.write_bytes(b"{half")
    said = set_aside(path)
    aside = list(tmp_path.iterdir())
    assert len(aside) == 1 and aside[0].name.startswith("marks.json.corrupt-")
    assert aside[0].read_bytes() == b"{half"
    assert said == f"kept it as {aside[0]}"


def _set_aside_in(folder: str) -> str:
    return set_aside(Path(folder) / "marks.json")


def test_set_aside_in_a_read_only_folder_says_what_is_true() -> None:
    with public_folder() as root:
        folder = root / "marks"
        folder.mkdir()
        (folder / "marks.json").write_bytes(b"{half")
        folder.chmod(0o555)
        said = unprivileged(_set_aside_in, str(folder))
        assert said.startswith("left it in place (could not move it aside: Permission denied")
        assert "kept it as" not in said
        assert [p.name for p in folder.iterdir()] == ["marks.json"]
        assert (folder / "marks.json").read_bytes() == b"{half"


def test_locked_lets_one_process_in_at_a_time(tmp_path: Path) -> None:
    import fcntl

    path = tmp_path / "marks.json"
    # another open file of the lock is another holder, as another process's would be
    with (
        paths.locked(path),
        open(tmp_path / "marks.json.lock", "a+b") as other,
        pytest.raises(BlockingIOError),
    ):
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(tmp_path / "marks.json.lock", "a+b") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # released


def test_folders_and_locks_are_private_whatever_the_umask(tmp_path: Path) -> None:
    """Under umask 002 a folder would be group-writable and a lock 0664: listings of suite
    names, and a group member's way in. The XDG spec's mode for state folders is 0700."""
    mask = os.umask(0o002)
    try:
        atomic_write(tmp_path / "a" / "b" / "marks.json", b"{}")
        with paths.locked(tmp_path / "c" / "d" / "log.json"):
            pass
        atomic_write(tmp_path / "e" / "review.md", b"shared", paths.umask_mode())  # an export
    finally:
        os.umask(mask)
    modes = {p.relative_to(tmp_path).as_posix(): oct(stat.S_IMODE(p.lstat().st_mode)) for p in tmp_path.rglob("*")}
    assert modes == {
        "a": "0o700", "a/b": "0o700", "a/b/marks.json": "0o600",
        "c": "0o700", "c/d": "0o700", "c/d/log.json.lock": "0o600",
        "e": "0o775", "e/review.md": "0o664",  # what the user hands on follows the umask
    }  # fmt: skip


def test_a_lock_is_never_taken_through_a_link(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "marks.json.lock").symlink_to(elsewhere / "created")
    with pytest.raises(OSError), paths.locked(tmp_path / "state" / "marks.json"):
        pass
    assert list(elsewhere.iterdir()) == []


def _private(folder: str, top: str) -> str:
    try:
        paths.private_folder(Path(folder), Path(top))
    except paths.NotPrivate as exc:
        return exc.reason
    return "used"


@AS_ANOTHER_USER
def test_private_folder_refuses_another_users_folder_and_links_and_tightens_its_own() -> None:
    with public_folder() as root:
        top = root / "cache"
        (top / "mine").mkdir(parents=True)
        (top / "mine").chmod(0o775)
        os.chown(top, 65534, 65534)
        os.chown(top / "mine", 65534, 65534)
        (top / "theirs").mkdir()  # root's: another user's, to nobody
        (top / "link").symlink_to(top / "mine")
        os.lchown(top / "link", 65534, 65534)
        assert unprivileged(_private, str(top / "mine" / "new" / "deeper"), str(top)) == "used"
        assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in (top, top / "mine", top / "mine" / "new")} == {"0o700"}
        assert unprivileged(_private, str(top / "theirs" / "x"), str(top)) == f"{top / 'theirs'} belongs to another user (uid 0)"
        assert not (top / "theirs" / "x").exists()
        said = unprivileged(_private, str(top / "link" / "x"), str(top))
        assert said == f"{top / 'link'} is a link where a folder belongs"
        assert not (top / "mine" / "x").exists()  # nothing made through it


HOLD = (
    "import fcntl, sys, time\n"
    "handle = open(sys.argv[1], 'a+b')\n"
    "fcntl.flock(handle.fileno(), fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "time.sleep(120)\n"
)


@contextlib.contextmanager
def lock_held_elsewhere(path: Path) -> Iterator[subprocess.Popen]:
    """Another process holds ``path``'s lock (a session stopped with ctrl+z, say) until the
    block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path.with_name(path.name + ".lock"))],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def finishes(work, within_s: float) -> tuple[bool, object]:
    """Run ``work`` in a thread: whether it ended within ``within_s`` seconds, and what it
    returned or raised (a hang is a failure, not a stuck test)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within_s)
    return not thread.is_alive(), out[0] if out else None


def test_a_lock_another_process_holds_is_waited_for_a_bounded_time(tmp_path: Path) -> None:
    """Issue 39, 14: the lock was waited for without end; now ``wait`` seconds, then a
    TimeoutError (an OSError: callers keep the change for a retry)."""
    path = tmp_path / "marks.json"

    def enter() -> str:
        with paths.locked(path, 0.5):
            return "entered"

    with lock_held_elsewhere(path):
        start = time.monotonic()
        ended, result = finishes(enter, 10)
        took = time.monotonic() - start
        assert ended, "still waiting for the lock after 10 s"
        assert isinstance(result, TimeoutError) and isinstance(result, OSError)
        assert "held by another process" in str(result)
        assert 0.4 < took < 5
    assert finishes(enter, 10) == (True, "entered")  # released with its holder
