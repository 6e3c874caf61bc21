"""The cache: what was worked out before, under a key naming every byte it came from.

Four stores under the cache dir, all `BlobCache`s, each bounded (`prune`: the entries used
longest ago go first once a store passes `LIMIT`): ``scores`` (each build's per-example
scores, one table a build: `analysis.scores`; and the history's rows, one entry a list of
builds: `analysis.history.trend`), ``figures`` (a comparison's figures), ``pairs`` (a
build pair's signal counts) and ``digests`` (a suite's files' digests: `KeptDigestMemo`).
Every entry's key is made by `key` (one recipe, one version string, `VERSION`), and the
tables and the counts are written by one codec (`pack`, `unpack`: a JSON head and an array
of float64).

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
import json
import os
import stat
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from rouge_tui import __version__
from rouge_tui.errors import SuiteError
from rouge_tui.files import DigestMemo, Stamp, read_small
from rouge_tui.store.paths import NotPrivate, atomic_write, cache_dir, private_folder

__all__ = ["LIMIT", "VERSION", "BlobCache", "KeptDigestMemo", "key", "pack", "prune", "unpack"]

LIMIT = 512 << 20  # bytes a store may hold before the entries used longest ago go
PRUNE_TO = 0.75
STALE_TEMP = 3600  # seconds after which a killed writer's temporary file is removed
BLOB_LIMIT = LIMIT  # bytes of one blob's payload: a larger one is not kept (nor read)
SECRET = 32  # bytes of the key a store seals its entries with
HEAD = 32  # bytes of the seal after the magic
# In every entry's key: a change to a key's parts, to `pack` or to what a store keeps bumps it.
VERSION = "rouge-tui cache 6"  # 6: a table of scores per build, one key recipe, one codec


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


class KeptDigestMemo(DigestMemo):
    """One suite's files' digests by `files.Stamp`, kept as one entry of ``store``: what
    `files.file_digest` need not read again (benchmarks/README.md,
    "A file's digest kept by its identity"). `save` writes it back once something was added;
    an entry that does not check out is an empty memo."""

    LIMIT = 4096  # files remembered, the last added kept

    def __init__(self, store: BlobCache, where: str) -> None:
        super().__init__()
        self._store = store
        self._key = key("digests", where)
        self._added = False
        self._here: set[Stamp] = set()  # the stamps this process hashed (`hashed_here`)
        self._lock = threading.Lock()
        found = store.get(self._key)
        try:
            rows = json.loads(found) if found else []
        except (ValueError, RecursionError):
            rows = []
        if isinstance(rows, list) and all(_memo_row(row) for row in rows):
            super().update((Stamp(*row[:-1]), row[-1]) for row in rows)

    def __setitem__(self, stamp: Stamp, digest: str) -> None:
        with self._lock:
            super().__setitem__(stamp, digest)
            self._here.add(stamp)
            self._added = True

    def hashed_here(self, stamp: Stamp) -> str | None:
        return self.get(stamp) if stamp in self._here else None

    def save(self) -> None:
        """Write the memo back when something was added (the last `LIMIT` paths added)."""
        with self._lock:  # held through the write: two saves never land out of order
            if not self._added:
                return
            self._added = False
            latest: dict[str, list] = {}
            for stamp, digest in self.items():
                latest.pop(stamp.path, None)  # one row a path: its last
                latest[stamp.path] = [*stamp, digest]
            self._store.put(self._key, json.dumps(list(latest.values())[-self.LIMIT :]).encode())


def _memo_row(row: object) -> bool:
    """A row as `KeptDigestMemo.save` writes it: a `Stamp` (a path, five integers) and a
    sha256 in hex."""
    return (isinstance(row, list) and len(row) == len(Stamp._fields) + 1 and type(row[0]) is str
            and all(type(x) is int for x in row[1:-1])
            and type(row[-1]) is str and len(row[-1]) == 64 and not row[-1].strip("0123456789abcdef"))


def key(kind: str, *parts: object) -> str:
    """An entry's key (hex): `VERSION`, rouge-tui's version, what kind of entry, and ``parts``
    (JSON values naming every byte and setting the entry was worked out from)."""
    text = json.dumps([VERSION, __version__, kind, *parts], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def pack(head: dict, values: np.ndarray) -> bytes:
    """An entry's bytes: the length of ``head`` as JSON (8 bytes, little-endian), that JSON,
    then ``values`` as little-endian float64."""
    text = json.dumps(head, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return len(text).to_bytes(8, "little") + text + np.ascontiguousarray(values, dtype="<f8").tobytes()


def unpack(data: bytes) -> tuple[dict, np.ndarray]:
    """What `pack` wrote: the head and the values, flat; a ValueError for anything else (the
    caller checks what they say)."""
    size = int.from_bytes(data[:8], "little")
    if len(data) < 8 + size or (len(data) - 8 - size) % 8:
        raise ValueError("a cache entry of a ragged length")
    try:
        head = json.loads(data[8 : 8 + size].decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"a cache entry's head does not read: {exc}") from None
    if not isinstance(head, dict):
        raise ValueError("a cache entry's head is not an object")  # noqa: TRY004 - every bad entry is one kind of error
    return head, np.frombuffer(data, "<f8", offset=8 + size).astype(np.float64)
