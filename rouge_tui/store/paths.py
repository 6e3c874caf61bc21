"""Where rouge-tui keeps what it writes, and the two ways it writes and reads its own files.

- config dir: the user's defaults (``config.toml``);
- data dir: review marks and notes, exported reviews, the per-suite review log;
- cache dir: scored results, rebuilt whenever an entry does not check out.

All three come from platformdirs, so ``XDG_*_HOME`` move them. Every write is atomic (a
temporary file beside the target, flushed, then renamed over it), so a crash or a full disk
leaves the previous file whole; what the user wrote is also fsynced before the rename, so a
power cut cannot lose it. The suite directory is never written.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from rouge_tui.suite.errors import SuiteError
from rouge_tui.suite.files import read_small

__all__ = [
    "LOCK_WAIT",
    "Unreadable",
    "atomic_write",
    "cache_dir",
    "config_dir",
    "data_dir",
    "locked",
    "now_iso",
    "read_json",
    "safe_name",
    "set_aside",
    "umask_mode",
]

APP = "rouge-tui"
# A state file (marks, review log) is read whole; one larger than this is not ours.
STATE_LIMIT = 256 << 20
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
    ``new``: the file must not exist yet (FileExistsError if it does, even when another
    process creates it at the same moment): the whole file appears under its name, or
    nothing does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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


@contextlib.contextmanager
def locked(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """An advisory lock beside ``path`` so two processes update it one at a time.

    Waits at most ``wait`` seconds, then raises TimeoutError (an OSError, so a caller that
    keeps a failed write for a retry keeps this one too): a stopped session holding the
    lock must not freeze another one, nor keep it from ending."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    with open(lock, "a+b") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
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
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


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


def read_json(path: Path) -> Any | None:
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
