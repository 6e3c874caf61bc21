"""The cache: what was scored before, so a new build re-scores only the outputs that changed.

Two stores under the cache dir, each bounded (`prune`: the entries used longest ago go first
once a store passes `LIMIT`):

- `ScoreCache`: per-example scores. An entry's key is a 16-byte hash of the scoring settings,
  the engine's version, the example's references and the output (`example_key`); its value
  precision, recall and F. One file per scoring setting holds every entry met under it.
- `BlobCache`: whole results under a content key (the figures of a comparison, keyed by the
  bytes of the files it read): what the caller stores, checked on the way back.

A store trusts nothing it did not write itself. Its folders must be the user's own and are
made private whatever the umask (`private_folder`: another user's folder, or a link where a
folder belongs, is refused with one warning, `problem`, and the cache then only costs speed).
Every file is read as a state file (`read_small`: a regular file of the user's own, never
through a link, without blocking, at most the size of the largest entry a store writes,
refused by its size before a byte is read). Every file carries a magic string and an
HMAC-SHA256 of its key and payload under a secret of 32 random bytes kept in the store's
folder (``key``, 0600, made on first use): no other user can make an entry that checks out.
Its values are checked on reading too: a truncated, corrupt, foreign, swapped or forged
entry is ignored and rebuilt, never trusted. A cache that cannot be written only costs speed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rouge_tui.store.paths import NotPrivate, atomic_write, cache_dir, locked, private_folder
from rouge_tui.suite.errors import SuiteError
from rouge_tui.suite.files import read_small

__all__ = ["LIMIT", "BlobCache", "ScoreCache", "example_key", "prune", "references_key"]

LIMIT = 512 << 20  # bytes a store may hold before the entries used longest ago go
PRUNE_TO = 0.75
STALE_TEMP = 3600  # seconds after which a killed writer's temporary file is removed
MAX_SCORES = 8_000_000  # entries in one scores file; past it a file starts again
BLOB_LIMIT = LIMIT  # bytes of one blob's payload: a larger one is not kept (nor read)
SECRET = 32  # bytes of the key a store seals its entries with
HEAD = 32  # bytes of the seal after the magic


class _Store:
    """What both stores share: a checked private folder, its secret, sealed files."""

    MAGIC = b""

    def __init__(self, root: Path, top: Path) -> None:
        self.root = root
        self.top = top  # the state root: checked from here down
        self.problem: str | None = None  # why the store is not used (said once, as a warning)
        self._secret: bytes | None = None

    def _folder(self, folder: Path, create: bool) -> bool:
        """Whether ``folder`` may be used (`private_folder`), made if ``create``."""
        try:
            private_folder(folder, self.top, create)
        except NotPrivate as exc:
            self.problem = self.problem or f"the cache is not used: {exc.reason} (it only costs speed)"
            return False
        except OSError:
            return False
        return True

    def _key(self, create: bool) -> bytes | None:
        """The store's secret, made on first use (``create``); None when there is none."""
        if self._secret is not None:
            return self._secret
        path = self.root / "key"
        try:
            found = read_small(path, SECRET, own=True)
            if len(found) == SECRET and not os.lstat(path).st_mode & 0o077:  # others never read it
                self._secret = found
                return found
        except FileNotFoundError:
            found = None
        except SuiteError:  # not the user's, not private, a link: replaced
            found = b""
        if not create:
            return None
        fd, tmp = tempfile.mkstemp(prefix=".key.", suffix=".tmp", dir=self.root)  # 0600
        try:
            secret = os.urandom(SECRET)
            with os.fdopen(fd, "wb") as handle:
                handle.write(secret)
            if found is None:
                try:
                    os.link(tmp, path)  # never over another process's: the first one made wins
                except FileExistsError:
                    return self._key(create=False)
            else:
                os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._secret = secret
        return secret

    def _seal(self, secret: bytes, key: bytes, payload: bytes) -> bytes:
        return self.MAGIC + _mac(secret, key, payload) + payload

    def _open(self, path: Path, key: bytes, limit: int) -> tuple[bytes | None, bool]:
        """The payload of the entry at ``path`` sealed under ``key``, or None; and whether a
        file was there (and did not check out)."""
        if not self._folder(path.parent, create=False):
            return None, False
        secret = self._key(create=False)
        try:
            data = read_small(path, len(self.MAGIC) + HEAD + limit, own=True)
        except FileNotFoundError:
            return None, False
        except SuiteError:
            return None, True
        head = len(self.MAGIC) + HEAD
        payload = data[head:]
        if (secret is None or data[: len(self.MAGIC)] != self.MAGIC
                or not hmac.compare_digest(data[len(self.MAGIC) : head], _mac(secret, key, payload))):
            return None, True
        return payload, True

    def _write(self, path: Path, key: bytes, payload: bytes) -> None:
        """Seal ``payload`` under ``key`` into ``path`` (OSError when it cannot be)."""
        if not self._folder(path.parent, create=True):
            raise OSError("cache folder refused")
        secret = self._key(create=True)
        if secret is None:  # another process made one we cannot use: it replaces it next time
            raise OSError("no usable cache key")
        atomic_write(path, self._seal(secret, key, payload), durable=False)


def _mac(secret: bytes, key: bytes, payload: bytes) -> bytes:
    sealed = hmac.new(secret, key + b"\0", hashlib.sha256)
    sealed.update(payload)
    return sealed.digest()


def _used(path: Path) -> None:
    """A hit refreshes the entry's time, so pruning keeps what is in use."""
    with contextlib.suppress(OSError, NotImplementedError):
        os.utime(path, follow_symlinks=False)


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


class BlobCache(_Store):
    """Bytes under a hex key, sealed to that key; `BLOB_LIMIT` bytes at most."""

    MAGIC = b"rouge-tui blob 3\n"

    def __init__(self, name: str, root: Path | None = None) -> None:
        super().__init__(root if root is not None else cache_dir() / name, root if root is not None else cache_dir())

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.bin"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        payload, there = self._open(path, key.encode(), BLOB_LIMIT)
        if payload is None and there:
            with contextlib.suppress(OSError):
                path.unlink()
        if payload is not None:
            _used(path)
        return payload

    def put(self, key: str, payload: bytes) -> None:
        if len(payload) > BLOB_LIMIT:
            return
        path = self._path(key)
        with contextlib.suppress(OSError):
            self._write(path, key.encode(), payload)
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


class ScoreCache(_Store):
    """Per-example (precision, recall, F), one file per scoring setting.

    A file holds its keys sorted by their first eight bytes, so a lookup is a binary search;
    the other eight bytes are compared too, and any doubt is a miss (scored again)."""

    MAGIC = b"rouge-tui scores 3\n"

    def __init__(self, root: Path | None = None) -> None:
        super().__init__(root if root is not None else cache_dir() / "scores", root if root is not None else cache_dir())
        self.rejected = 0  # files that did not check out (tests read it)
        # The last file checked, kept while it stays the same file (`_identity`) until
        # `forget`: a history reads it once a build, not once a build it scores.
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
            # Taken before the file is read: if it is replaced meanwhile, the next look
            # sees another identity and reads it again.
            identity = _identity(os.lstat(path))
        except OSError:
            return empty
        loaded = self._loaded  # one look: another thread may replace it meanwhile
        if loaded is not None and loaded[:2] == (path, identity) and self._folder(self.root, create=False):
            keys, values = loaded[2:]
        else:
            payload, there = self._open(path, scoring.encode(), MAX_SCORES * 40)
            checked = None if payload is None else self._check(payload)
            if checked is None:
                self.rejected += there
                return empty
            keys, values = checked
        _used(path)
        self._loaded = (path, identity, keys, values)
        return keys, values

    @staticmethod
    def _check(payload: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        """A payload's keys and values, or None when they do not make sense."""
        count = len(payload) // 40
        if count * 40 != len(payload):
            return None
        keys = np.frombuffer(payload, dtype="<u8", count=2 * count).reshape(count, 2)
        values = np.frombuffer(payload, dtype="<f8", offset=16 * count).reshape(count, 3)
        if np.any(keys[1:, 0] < keys[:-1, 0]) or not np.all((values >= 0) & (values <= 1)):
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
        if not self._folder(self.root, create=True):  # before the lock is made in it
            return
        with contextlib.suppress(OSError), locked(path):
            stored, old = self._load(scoring)
            if len(stored) + len(keys) > MAX_SCORES:
                stored, old = stored[:0], old[:0]
            merged = np.concatenate([stored, self._as_array(keys)])
            both = np.concatenate([old, np.asarray(values, dtype=np.float64)])
            order = np.argsort(merged[:, 0], kind="stable")
            payload = merged[order].astype("<u8").tobytes() + both[order].astype("<f8").tobytes()
            self._write(path, scoring.encode(), payload)
            prune(self.root, keep=path)
