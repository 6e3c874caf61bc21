"""Where rouge-tui keeps what it writes, and the two ways it writes and reads its own files.

- config dir: the user's defaults (``config.toml``);
- data dir: review marks and notes, exported reviews, the per-suite review log;
- cache dir: scored results, rebuilt whenever an entry does not check out.

All three come from platformdirs, so ``XDG_*_HOME`` move them. Every write is atomic (a
temporary file beside the target, flushed, then renamed over it), so a crash or a full disk
leaves the previous file whole; what the user wrote is also fsynced before the rename, so a
power cut cannot lose it. The suite directory is never written.

State is private whatever the umask: folders rouge-tui makes are 0700 (the XDG spec's mode),
its files and locks 0600, and a lock is never opened through a link. `private_folder` is
the check a store makes before it trusts a folder: the user's own, a real folder, no one
else's to read or write.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import json
import os
import re
import stat
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from rouge_tui.errors import SuiteError
from rouge_tui.files import read_small

__all__ = [
    "LOCK_WAIT",
    "NotPrivate",
    "Unreadable",
    "atomic_write",
    "cache_dir",
    "config_dir",
    "data_dir",
    "locked",
    "now_iso",
    "private_folder",
    "read_state",
    "safe_name",
    "set_aside",
    "umask_mode",
]

APP = "rouge-tui"
# A state file (marks, review log) is read whole; one larger than this is not ours.
STATE_LIMIT = 256 << 20
PRIVATE = 0o700  # the mode of a folder rouge-tui makes for its state
# How long a state file's lock is waited for (another process updating it takes far less),
# and how often it is tried meanwhile.
LOCK_WAIT = 5.0
LOCK_POLL = 0.02


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP, appauthor=False))


def atomic_write(path: Path, data: bytes, mode: int | None = None, durable: bool = True, *,
                 new: bool = False) -> None:
    """Replace ``path`` with ``data``: readers see the old file or the new one, never half.

    ``mode`` None keeps the private default of a temporary file (0600: state and cache);
    an export passes the permissions the user's umask gives a new file. ``durable`` fsyncs
    the file and its folder, so the write survives a power cut: what the user wrote needs
    it; a cache entry does not, since it is checked when read and rebuilt on any doubt.
    Missing folders are made private, but with ``mode`` (an export) as the umask says.
    ``new``: the file must not exist yet (FileExistsError if it does, even when another
    process creates it at the same moment): the whole file appears under its name, or
    nothing does."""
    make_folders(path.parent, private=mode is None)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # named by the folder: the hidden temporary file's name says nothing
        raise OSError(exc.errno, exc.strerror, str(path.parent)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if new:
            os.link(tmp, path)  # fails if the name is taken, where a rename would replace
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if not durable:
        return
    with contextlib.suppress(OSError):
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def umask_mode() -> int:
    """The permissions a new file gets under the user's umask (0666 & ~umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def make_folders(folder: Path, private: bool = True) -> None:
    """``folder`` and the folders above it that are missing, made 0700 whatever the umask
    (``private``), else with the umask's mode (``mkdir -p``)."""
    if not private:
        folder.mkdir(parents=True, exist_ok=True)
        return
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, PRIVATE)  # the umask can take bits away, never add one


class NotPrivate(Exception):
    """A state folder rouge-tui will not use: another user's, or a link or file in its place;
    ``reason`` says which, naming it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def private_folder(folder: Path, top: Path, create: bool = True) -> None:
    """Check that only the user can reach into ``folder``: every folder from the state root
    ``top`` down to it is a real folder (never a link, but for ``top`` itself a link of the
    user's own), the user's own, and loses any permission its group or others have.

    Missing folders are made private (``create``) or raise FileNotFoundError. NotPrivate
    when a folder is not the user's own or not a folder; OSError when one cannot be made or
    read. Checked once private, a folder stays so: no other user can plant a link in it."""
    chain = [top, *(top / part for part in itertools.accumulate(folder.relative_to(top).parts, os.path.join))]
    for path in chain:  # each checked before the next is made in it
        if create and path == top:
            make_folders(top)
        elif create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, PRIVATE)  # never through a link: a link is "existing"
        _own_folder(path, follow=path == top)


def _own_folder(path: Path, follow: bool) -> None:
    """`private_folder`'s check of one folder (``follow``: a link of the user's own to it)."""
    if follow:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode) and found.st_uid != os.geteuid():
            raise NotPrivate(f"{path} is a link made by another user (uid {found.st_uid})")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    except OSError as exc:
        # A link gives ELOOP or ENOTDIR by kernel; a file there is only unusable.
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path):
            raise NotPrivate(f"{path} is a link where a folder belongs") from None
        raise
    try:
        found = os.fstat(fd)
        if found.st_uid != os.geteuid():
            raise NotPrivate(f"{path} belongs to another user (uid {found.st_uid})")
        if found.st_mode & 0o077:
            os.fchmod(fd, stat.S_IMODE(found.st_mode) & PRIVATE)
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """An advisory lock beside ``path`` so two processes update it one at a time; the lock
    file is private and never opened through a link (one planted there would make us
    create, or lock, whatever it points to).

    Waits at most ``wait`` seconds, then raises TimeoutError (an OSError, so a caller that
    keeps a failed write for a retry keeps this one too): a stopped session holding the
    lock must not freeze another one, nor keep it from ending."""
    make_folders(path.parent)
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"{lock} is held by another process (a stopped rouge-tui?) for over {wait:g} s"
                    ) from None
                time.sleep(LOCK_POLL)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def set_aside(path: Path) -> str:
    """Move a file that does not check out out of the way, never deleting it; returns what
    happened, in words that are true (the rename can fail on a read-only folder)."""
    target = path.with_name(f"{path.name}.corrupt-{datetime.now(UTC):%Y%m%dT%H%M%S%f}")
    try:
        os.replace(path, target)
    except OSError as exc:
        return f"left it in place (could not move it aside: {exc.strerror or exc})"
    return f"kept it as {target}"


class Unreadable(Exception):
    """A state file exists but cannot be used; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_state(path: Path) -> Any | None:
    """A state file's JSON, or None when there is none. A file that exists but is not
    readable JSON raises `Unreadable` (the caller sets it aside or refuses to write over
    it); nesting too deep for Python's decoder is one more way of not being readable."""
    try:
        raw = read_small(path, STATE_LIMIT)
    except FileNotFoundError:
        return None
    except SuiteError as exc:
        raise Unreadable(exc.message) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Unreadable(f"not valid JSON ({type(exc).__name__})") from None
    except RecursionError:
        raise Unreadable("not valid JSON (nested too deeply)") from None


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, limit: int = 60) -> str:
    """A file-name fragment from untrusted text: letters, digits, dot, dash and underscore
    only, never ``.``, ``..`` or hidden, with a short hash of the original so distinct
    inputs stay distinct after the replacement and the cut."""
    normal = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    cleaned = _UNSAFE_NAME.sub("_", normal)[:limit].strip("._-") or "x"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{cleaned}-{digest}"
