"""The cache: what was scored before, so a new build re-scores only the outputs that changed.

Two stores under the cache dir, each bounded (`prune`: the entries used longest ago go first
once a store passes `LIMIT`):

- `ScoreCache`: per-example scores. An entry's key is a 16-byte hash of the scoring settings,
  the engine's version, the example's references and the output (`example_key`); its value
  precision, recall and F. One file per scoring setting holds every entry met under it.
- `BlobCache`: whole results under a content key (the figures of a comparison, keyed by the
  bytes of the files it read): what the caller stores, checked on the way back.

Every file carries a magic string and the sha256 of its key and payload, and its values are
checked on reading: a truncated, corrupt, foreign or swapped entry is ignored and rebuilt,
never trusted. A cache that cannot be written only costs speed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rouge_tui.store.paths import atomic_write, cache_dir, locked

__all__ = ["LIMIT", "BlobCache", "ScoreCache", "example_key", "prune", "references_key"]

LIMIT = 512 << 20  # bytes a store may hold before the entries used longest ago go
PRUNE_TO = 0.75
STALE_TEMP = 3600  # seconds after which a killed writer's temporary file is removed
MAX_SCORES = 8_000_000  # entries in one scores file; past it a file starts again


def _digest(key: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(key + b"\0" + payload).digest()


def _seal(magic: bytes, key: bytes, payload: bytes) -> bytes:
    return magic + _digest(key, payload) + payload


def _open_seal(magic: bytes, key: bytes, data: bytes) -> bytes | None:
    head = len(magic) + 32
    payload = data[head:]
    if data[: len(magic)] != magic or data[len(magic) : head] != _digest(key, payload):
        return None
    return payload


def _read(path: Path) -> bytes | None:
    """A cache file's bytes, or None (missing, not a regular file, unreadable)."""
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read()
    except OSError:
        return None


def _used(path: Path) -> None:
    """A hit refreshes the entry's time, so pruning keeps what is in use."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _identity(found: os.stat_result) -> tuple[int, ...]:
    """What tells one state of a file from another: any write or replace changes the inode,
    size or change time (which no one can set back)."""
    return (found.st_mode, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def prune(root: Path, keep: Path | None = None) -> int:
    """Hold a store to `LIMIT`: remove the least recently used entries (never ``keep``) down
    to `PRUNE_TO` of it, and temporary files of killed writers older than `STALE_TEMP`.
    Best effort: what another process removes first, or what cannot be removed, is skipped.
    Returns how many entries went."""
    now = time.time()
    entries = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                found = os.lstat(path)
                if name.startswith(".") and name.endswith(".tmp"):
                    if now - found.st_mtime > STALE_TEMP:
                        os.unlink(path)
                elif name.endswith(".bin") and stat.S_ISREG(found.st_mode):
                    entries.append((found.st_mtime_ns, path, found.st_size))
    total = sum(size for _, _, size in entries)
    removed = 0
    if total <= LIMIT:
        return removed
    for _, path, size in sorted(entries):
        if total <= LIMIT * PRUNE_TO:
            break
        if keep is not None and path == str(keep):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
        total -= size
    return removed


class BlobCache:
    """Bytes under a hex key, sealed to that key."""

    MAGIC = b"rouge-tui blob 2\n"

    def __init__(self, name: str, root: Path | None = None) -> None:
        self.root = root if root is not None else cache_dir() / name

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.bin"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        data = _read(path)
        payload = None if data is None else _open_seal(self.MAGIC, key.encode(), data)
        if data is not None and payload is None:
            with contextlib.suppress(OSError):
                path.unlink()
        if payload is not None:
            _used(path)
        return payload

    def put(self, key: str, payload: bytes) -> None:
        path = self._path(key)
        with contextlib.suppress(OSError):
            atomic_write(path, _seal(self.MAGIC, key.encode(), payload), durable=False)
            prune(self.root, keep=path)


def references_key(scoring: str, references: Sequence[str]) -> bytes:
    """The part of an example's key its references make, once per example for every output."""
    digest = hashlib.blake2b(scoring.encode(), digest_size=32)
    for text in references:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.digest()


def example_key(references: bytes, output: str) -> bytes:
    """An example's 16-byte key: its `references_key` and its output."""
    return hashlib.blake2b(
        references + output.encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


class ScoreCache:
    """Per-example (precision, recall, F), one file per scoring setting.

    A file holds its keys sorted by their first eight bytes, so a lookup is a binary search;
    the other eight bytes are compared too, and any doubt is a miss (scored again)."""

    MAGIC = b"rouge-tui scores 2\n"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else cache_dir() / "scores"
        self.rejected = 0  # files that did not check out (tests read it)
        # The last file checked, kept while it stays the same file (`_identity`) until
        # `forget`: a history reads it once a build. bench_history, another suite's cache:
        # 2.23 -> 1.54 s.
        self._loaded: tuple[Path, tuple[int, ...], np.ndarray, np.ndarray] | None = None

    def forget(self) -> None:
        """Let go of the file kept (up to 320 MB for a full one) once a scoring pass ends."""
        self._loaded = None

    def _path(self, scoring: str) -> Path:
        return self.root / f"{hashlib.sha256(scoring.encode()).hexdigest()[:32]}.bin"

    def _load(self, scoring: str) -> tuple[np.ndarray, np.ndarray]:
        """The file's keys ((n, 2) uint64) and values ((n, 3) float64); empty on any doubt."""
        empty = (np.zeros((0, 2), dtype=np.uint64), np.zeros((0, 3), dtype=np.float64))
        path = self._path(scoring)
        try:
            with open(path, "rb") as handle:
                found = os.fstat(handle.fileno())
                if not stat.S_ISREG(found.st_mode):
                    return empty
                loaded = self._loaded  # one look: another thread may replace it meanwhile
                if loaded is not None and loaded[:2] == (path, _identity(found)):
                    keys, values = loaded[2:]
                else:
                    checked = self._check(scoring, handle.read())
                    if checked is None:
                        return empty
                    keys, values = checked
                _used(path)
                self._loaded = (path, _identity(os.fstat(handle.fileno())), keys, values)
                return keys, values
        except OSError:
            return empty

    def _check(self, scoring: str, data: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        payload = _open_seal(self.MAGIC, scoring.encode(), data)
        count = (len(payload) // 40) if payload is not None else -1
        if payload is None or count * 40 != len(payload):
            self.rejected += 1
            return None
        keys = np.frombuffer(payload, dtype="<u8", count=2 * count).reshape(count, 2)
        values = np.frombuffer(payload, dtype="<f8", offset=16 * count).reshape(count, 3)
        if np.any(keys[1:, 0] < keys[:-1, 0]) or not np.all((values >= 0) & (values <= 1)):
            self.rejected += 1
            return None
        keys, values = keys.astype(np.uint64), values.astype(np.float64)
        keys.setflags(write=False)  # kept in `_loaded`: shared by every later read
        values.setflags(write=False)
        return keys, values

    @staticmethod
    def _as_array(keys: Sequence[bytes]) -> np.ndarray:
        return np.frombuffer(b"".join(keys), dtype="<u8").reshape(len(keys), 2).astype(np.uint64)

    def get(self, scoring: str, keys: Sequence[bytes]) -> np.ndarray:
        """(len(keys), 3) values, NaN where the cache has no entry."""
        found = np.full((len(keys), 3), np.nan)
        stored, values = self._load(scoring)
        if not len(keys) or not len(stored):
            return found
        wanted = self._as_array(keys)
        at = np.minimum(np.searchsorted(stored[:, 0], wanted[:, 0]), len(stored) - 1)
        hit = np.all(stored[at] == wanted, axis=1)
        found[hit] = values[at[hit]]
        return found

    def put(self, scoring: str, keys: Sequence[bytes], values: np.ndarray) -> None:
        """Add entries (under a lock, merged with what another process wrote meanwhile)."""
        if not len(keys):
            return
        path = self._path(scoring)
        with contextlib.suppress(OSError), locked(path):
            stored, old = self._load(scoring)
            if len(stored) + len(keys) > MAX_SCORES:
                stored, old = stored[:0], old[:0]
            merged = np.concatenate([stored, self._as_array(keys)])
            both = np.concatenate([old, np.asarray(values, dtype=np.float64)])
            order = np.argsort(merged[:, 0], kind="stable")
            payload = merged[order].astype("<u8").tobytes() + both[order].astype("<f8").tobytes()
            atomic_write(path, _seal(self.MAGIC, scoring.encode(), payload), durable=False)
            prune(self.root, keep=path)
