"""Where rouge-tui keeps what it writes, and how it writes it.

- config dir: user defaults (``config.toml``: metric, tokenizer, k, theme).
- data dir: review marks and notes, exported reviews, per-suite history of build means.
- cache dir: scored results keyed by content hashes, scoring settings and tool version,
  each store bounded (`prune_store`: least recently used entries go first).

All three come from platformdirs, so ``XDG_*_HOME`` move them. Every write is atomic: a
temporary file in the same directory, flushed and fsynced, then renamed over the target, so a
crash or a full disk leaves the previous file whole. The suite directory is never written.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import tempfile
import time
import tomllib
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import platformdirs

from rouge_tui import __version__
from rouge_tui.digests import length_prefixed

APP_NAME = "rouge-tui"
MARKS = ("fine", "regression", "unsure")


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never half.

    The temporary file lives beside the target (same file system, so the rename is atomic),
    is flushed and fsynced before the rename, and is removed if anything fails.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


# --------------------------------------------------------------------------- cache bounds

# A cache store (scores, snapshots) holds at most this many bytes of entries: past it, the
# entries used longest ago (a hit refreshes an entry's time) are removed down to PRUNE_TO of
# it. A daily build of a 100,000-example suite adds about 5 MB a day.
CACHE_LIMIT = 512 << 20
PRUNE_TO = 0.75
# A temporary file of a writer killed mid-write is removed once it is this old (a live
# writer renames its file within seconds).
STALE_TEMP_SECONDS = 3600


def mark_used(path: Path) -> None:
    """Refresh a cache entry's time on a hit, so pruning keeps what is in use."""
    with contextlib.suppress(OSError):
        os.utime(path)


def prune_store(root: Path, suffix: str, keep: Path | None = None) -> int:
    """Bound a cache store (entries ``root/??/*<suffix>``): when they hold more than
    CACHE_LIMIT bytes, remove the least recently used ones, never ``keep``, down to PRUNE_TO
    of it; remove temporary files left by killed writers. Returns how many entries went.

    Best effort: an entry another process removes first, or one it cannot remove, is
    skipped; a reader that loses its entry sees a miss and scores again.
    """
    now = time.time()
    entries: list[tuple[int, str, int]] = []
    with contextlib.suppress(OSError):
        for folder in os.scandir(root):
            if not folder.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                for entry in os.scandir(folder.path):
                    with contextlib.suppress(OSError):
                        found = entry.stat(follow_symlinks=False)
                        if not stat.S_ISREG(found.st_mode):
                            continue
                        if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                            if now - found.st_mtime > STALE_TEMP_SECONDS:
                                os.unlink(entry.path)
                        elif entry.name.endswith(suffix):
                            entries.append((found.st_mtime_ns, entry.path, found.st_size))
    total = sum(size for _, _, size in entries)
    limit = CACHE_LIMIT
    if total <= limit:
        return 0
    removed = 0
    kept = str(keep) if keep is not None else None
    for _, path, size in sorted(entries):
        if total <= limit * PRUNE_TO:
            break
        if path == kept:
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
        total -= size
    return removed


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, limit: int = 60) -> str:
    """A file-name fragment derived from untrusted text: no separators, dots-only or controls.

    Keeps letters, digits, dot, dash and underscore; everything else becomes ``_``. Leading
    dots are dropped so the result can never be ``.`` or ``..`` or hidden. A short hash of
    the original keeps distinct inputs distinct after the replacement and the length cap.
    """
    normal = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    cleaned = _UNSAFE_NAME.sub("_", normal)[:limit].strip("._-") or "x"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{cleaned}-{digest}"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An advisory lock beside ``path`` so two processes update it one at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class UserDefaults:
    metric: str | None = None
    tokenizer: str | None = None
    k: float | None = None
    theme: str | None = None


def load_user_defaults() -> tuple[UserDefaults, str | None]:
    """The user's defaults from ``config.toml``, and a warning if the file could not be used."""
    path = config_dir() / "config.toml"
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return UserDefaults(), None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return UserDefaults(), f"{path}: ignored ({exc})"
    metric = data.get("metric")
    tokenizer = data.get("tokenizer")
    k = data.get("k")
    theme = data.get("theme")
    return (
        UserDefaults(
            metric=metric if isinstance(metric, str) else None,
            tokenizer=tokenizer if isinstance(tokenizer, str) else None,
            k=float(k) if isinstance(k, (int, float)) and not isinstance(k, bool) else None,
            theme=theme if isinstance(theme, str) else None,
        ),
        None,
    )


# --------------------------------------------------------------------------- marks


def outputs_hash(baseline: str, candidate: str) -> str:
    """What a mark judged: a hash of the two outputs, so a later change shows the mark stale."""
    digest = hashlib.sha256()
    for text in (baseline, candidate):
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Mark:
    mark: str
    note: str
    outputs: str  # outputs_hash of what was judged
    updated: str

    def to_json(self) -> dict[str, str]:
        return {"mark": self.mark, "note": self.note, "outputs": self.outputs, "updated": self.updated}


class MarkStore:
    """Review marks of one suite content and build pair, kept in the data directory.

    Marks belong to the suite's content, not its path: the file is keyed by the suite name,
    the reference fingerprint and the build pair. Each change re-reads the file under a lock
    and writes only the example it changes, so two sessions on one suite lose nothing.
    """

    def __init__(self, suite_name: str, fingerprint: str, baseline: str, candidate: str):
        self.suite_name = suite_name
        self.fingerprint = fingerprint
        self.baseline = baseline
        self.candidate = candidate
        key = "\x00".join((suite_name, fingerprint, baseline, candidate))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        self.path = data_dir() / "marks" / f"{safe_name(suite_name, 40)}-{digest}.json"
        self.marks: dict[str, Mark] = {}
        self.warning: str | None = None
        # Changes not on disk yet (a save failed): kept in memory and written by the next save.
        self.pending: dict[str, Mark | None] = {}
        self._known: dict[str, Mark] = {}  # the marks as last read from or written to disk

    def load(self) -> dict[str, Mark]:
        """Read the marks from disk; a corrupt file is set aside with a warning, never dropped."""
        self.marks, self.warning = self._read()
        self._known = dict(self.marks)
        self._apply(self.marks, self.pending)
        return self.marks

    def _read(self, strict: bool = False) -> tuple[dict[str, Mark], str | None]:
        """The marks on disk. ``strict`` (before a write) raises when the file exists but cannot
        be read, so a failed read is never followed by a write that drops the marks in it."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}, None
        except OSError as exc:
            if strict:
                raise
            return {}, f"could not read marks {self.path}: {exc.strerror or exc}"
        try:
            data = json.loads(raw.decode("utf-8"))
            entries = data["marks"]
            marks = {
                str(key): Mark(
                    mark=str(value["mark"]),
                    note=str(value.get("note", "")),
                    outputs=str(value.get("outputs", "")),
                    updated=str(value.get("updated", "")),
                )
                for key, value in entries.items()
            }
            unknown = sorted(k for k, m in marks.items() if m.mark not in MARKS)
            if unknown:  # a word this version does not know: keep the file, do not drop it
                raise ValueError(f"unknown mark word for {unknown[0]!r}")
            return marks, None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            kept = self._set_aside()
            return {}, f"marks file was unreadable ({type(exc).__name__}); kept it as {kept}"

    def _set_aside(self) -> Path:
        target = self.path.with_name(f"{self.path.name}.corrupt-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}")
        with contextlib.suppress(OSError):
            os.replace(self.path, target)
        return target

    def _payload(self, marks: dict[str, Mark]) -> bytes:
        data: dict[str, Any] = {
            "suite": self.suite_name,
            "fingerprint": self.fingerprint,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "version": __version__,
            "marks": {key: marks[key].to_json() for key in sorted(marks)},
        }
        return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")

    @staticmethod
    def _apply(marks: dict[str, Mark], changes: dict[str, Mark | None]) -> None:
        for key, entry in changes.items():
            if entry is None:
                marks.pop(key, None)
            else:
                marks[key] = entry

    @staticmethod
    def _entry(current: Mark | None, mark: str | None, note: str | None, outputs: str) -> Mark | None:
        """The mark after a change: ``None`` for mark or note keeps the current one."""
        new_mark = mark if mark is not None else (current.mark if current else None)
        new_note = note if note is not None else (current.note if current else "")
        if new_mark is None and new_note:
            new_mark = "unsure"  # a note needs a mark to hang on; unsure claims nothing
        if new_mark is None:
            return None
        return Mark(new_mark, new_note, outputs, now_iso())

    def set(self, example_id: str, mark: str | None, note: str | None, outputs: str) -> str | None:
        """Set (or with ``mark=None`` and no note, clear) one example's mark; returns a notice.

        The notice says when another session had changed the same example since we last
        read it: the last writer wins, and the other is told. If the save fails (``OSError``:
        full disk, read-only or missing directory) the change is still kept in ``marks`` and
        ``pending``, so nothing typed is lost and the next save (a retry) writes it.
        """
        if mark is not None and mark not in MARKS:
            raise ValueError(f"unknown mark {mark!r}")
        return self._save(example_id, lambda current: self._entry(current, mark, note, outputs))

    def clear(self, example_id: str) -> None:
        self._save(example_id, lambda current: None)

    def _changed_by_others(self, on_disk: dict[str, Mark], skip: str) -> str | None:
        """Which of the marks we last saw on disk another session has since changed: the
        session whose mark was replaced is told at its next save."""
        changed = [
            (key, on_disk.get(key))
            for key, seen in sorted(self._known.items())
            if key != skip and on_disk.get(key) != seen
        ]
        if not changed:
            return None
        shown = ", ".join(
            f"{key!r} ({'now ' + mark.mark if mark else 'cleared'})" for key, mark in changed[:3]
        )
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        return f"another session changed your marks of {shown}{more}"

    def _save(self, example_id: str, change: Callable[[Mark | None], Mark | None]) -> str | None:
        notice = None
        before = self._known.get(example_id)
        mine = self.marks.get(example_id)
        self.pending[example_id] = change(mine)
        self._apply(self.marks, {example_id: self.pending[example_id]})
        with locked(self.path):
            on_disk, warning = self._read(strict=True)
            if warning:
                self.warning = warning
            theirs = on_disk.get(example_id)
            if theirs is not None and theirs != before:
                notice = f"another session had marked {example_id!r} as {theirs.mark}; replaced"
            notice = _join(notice, self._changed_by_others(on_disk, example_id))
            self.pending[example_id] = change(theirs or mine)
            self._apply(on_disk, self.pending)
            atomic_write_bytes(self.path, self._payload(on_disk))
            self.pending.clear()
            self.marks = on_disk
            self._known = dict(on_disk)
        return notice


def _join(*notices: str | None) -> str | None:
    return "; ".join(n for n in notices if n) or None


# --------------------------------------------------------------------------- cache

_CACHE_MAGIC = b"rouge-tui-scores\x00"


class ScoreCache:
    """Scored results on disk, keyed by content hashes, scoring settings and tool version.

    An entry is the raw float64 scores behind a magic string and the sha256 of its key and
    payload, so a truncated, corrupt or foreign entry (another key's file, copied or left in
    its place) is detected, ignored and rebuilt, never trusted.
    An unwritable cache directory only costs speed.
    """

    def __init__(self, root: Path | None = None, enabled: bool = True):
        self.root = root if root is not None else cache_dir() / "scores"
        self.enabled = enabled
        self.rejected = 0

    @staticmethod
    def key(*parts: str) -> str:
        return length_prefixed((__version__, *parts))

    @staticmethod
    def _digest(key: str, payload: bytes) -> bytes:
        """Binds an entry to its key: the same scores under another key do not check out."""
        return hashlib.sha256(key.encode("utf-8", "surrogatepass") + b"\x00" + payload).digest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.bin"

    def get(self, key: str, count: int) -> "np.ndarray | None":
        if not self.enabled:
            return None
        import numpy as np

        path = self._path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        head = len(_CACHE_MAGIC) + 32
        payload = raw[head:]
        if (
            raw[: len(_CACHE_MAGIC)] != _CACHE_MAGIC
            or self._digest(key, payload) != raw[len(_CACHE_MAGIC) : head]
            or len(payload) != 8 * count
        ):
            self.rejected += 1
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        values = np.frombuffer(payload, dtype="<f8").astype(np.float64)
        if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
            self.rejected += 1
            return None
        mark_used(path)
        return values

    def put(self, key: str, values: "np.ndarray") -> None:
        if not self.enabled:
            return
        import numpy as np

        payload = np.ascontiguousarray(values, dtype="<f8").tobytes()
        data = _CACHE_MAGIC + self._digest(key, payload) + payload
        path = self._path(key)
        with contextlib.suppress(OSError):
            atomic_write_bytes(path, data)
            prune_store(self.root, ".bin", keep=path)


# --------------------------------------------------------------------------- history

HISTORY_LIMIT = 500


@dataclass(frozen=True)
class ReferenceChange:
    """The frozen references moved: a delta against a moved reference set means little."""

    previous: str
    current: str
    since: str  # when the previous fingerprint was last seen

    def message(self) -> str:
        return (
            f"references changed since {self.since}: fingerprint {self.previous[:12]} -> "
            f"{self.current[:12]}; deltas against earlier reviews are not comparable"
        )


class History:
    """Per-suite history of build means and the reference fingerprint they were scored against.

    Keyed by the suite's name (not its path), so a suite whose references file was edited is
    recognised as the same suite with moved references.
    """

    def __init__(self, suite_name: str):
        self.suite_name = suite_name
        self.path = data_dir() / "history" / f"{safe_name(suite_name, 40)}.json"
        self.warning: str | None = None

    def entries(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_bytes().decode("utf-8"))
            entries = data["entries"]
            if not isinstance(entries, list):
                raise TypeError("entries is not a list")
            return [e for e in entries if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)]
        except FileNotFoundError:
            return []
        except OSError as exc:
            self.warning = f"could not read history {self.path}: {exc.strerror or exc}"
            return []
        except (ValueError, KeyError, TypeError) as exc:
            target = self.path.with_name(f"{self.path.name}.corrupt-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}")
            with contextlib.suppress(OSError):
                os.replace(self.path, target)
            self.warning = f"history file was unreadable ({type(exc).__name__}); kept it as {target}"
            return []

    def reference_change(self, fingerprint: str, builds: tuple[str, ...] = ()) -> ReferenceChange | None:
        """How the references moved, if they did.

        Said when the newest recorded review used other references, or when either of
        ``builds`` was ever scored against other references (its old figures are then not
        comparable with the new ones). Stays said as long as such builds are compared.
        """
        entries = self.entries()
        for entry in reversed(entries):
            if entry["fingerprint"] == fingerprint:
                continue
            if entry is entries[-1] or entry.get("baseline") in builds or entry.get("candidate") in builds:
                return ReferenceChange(entry["fingerprint"], fingerprint, str(entry.get("time", "an earlier review")))
        return None

    def record(self, entry: dict[str, Any]) -> None:
        """Append one review's figures (atomic, under a lock); failures only cost the record."""
        try:
            with locked(self.path):
                entries = self.entries()
                if entries and all(entries[-1].get(key) == value for key, value in entry.items()):
                    return  # the same review again: nothing new to keep
                entries.append({"time": now_iso(), **entry})
                payload = {"suite": self.suite_name, "entries": entries[-HISTORY_LIMIT:]}
                atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
        except OSError as exc:
            self.warning = f"could not record history in {self.path.parent}: {exc.strerror or exc}"
