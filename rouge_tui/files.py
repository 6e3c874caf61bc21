"""The one way rouge-tui opens and reads a file, whoever asks (suite, settings, state).

`_open` is the only place a file is opened: without blocking (a FIFO opens at once), then
checked through the descriptor, not the path, to be a regular file, so a directory, FIFO,
socket or device, a broken link or a link loop is a one-line SuiteError and never a hang.
Every read is bounded: a read that would block (``/proc/kmsg``) is an error; data files
stream in blocks cut at line ends, with at most `MAX_LINE` bytes in a line and
`MAX_BYTES` in a file (decompressed), and a gzip file that grows too fast is stopped early.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import os
import stat
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from rouge_tui.errors import SuiteError

__all__ = [
    "MANY_LINES", "MAX_BYTES", "MAX_LINE", "SETTLING_NS", "DigestMemo", "LineBlocks", "Stamp", "file_digest",
    "open_binary", "read_head", "read_small", "size_text",
]

MAX_LINE = 64 << 20  # bytes in one line (one JSON record, one CSV line)
MAX_BYTES = 16 << 30  # bytes one data file may yield, after gunzip
BLOCK = 1 << 20  # bytes asked of the file per read (less than MAX_LINE: a line that ends
# in the block it began in is short enough)
MANY_LINES = 1 << 15  # lines in a block, 32 bytes a line or less: maybe a blank-line bomb
# gzip: past this many bytes out, more than RATIO times the bytes in is a bomb, not data.
GZIP_FREE = 64 << 20
GZIP_RATIO = 200

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def size_text(size: int) -> str:
    """``64 MiB`` for messages."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


def _reason(exc: OSError) -> str:
    return f"cannot read: {exc.strerror or exc}"


def _open(path: Path, own: bool = False) -> int:
    """A descriptor of ``path`` once it is known to be a regular file; else a SuiteError.

    A missing file raises FileNotFoundError (callers decide what absence means); a link
    pointing nowhere is a SuiteError, since someone meant a file to be there. ``own``: a
    state file, which must be the user's own and is never read through a link (another
    user's link would make us read, and trust, what it points to).
    """
    try:
        fd = os.open(path, _FLAGS | (os.O_NOFOLLOW if own else 0))
    except FileNotFoundError:
        if os.path.islink(path):
            raise SuiteError("a broken link (its target does not exist)", path) from None
        raise
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing only
            raise SuiteError("not a regular file (a socket?)", path) from None
        if own and exc.errno == errno.ELOOP:
            raise SuiteError("a link where a state file belongs (never followed)", path) from None
        raise SuiteError(_reason(exc), path) from None
    try:
        found = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise SuiteError(_reason(exc), path) from None
    mode = found.st_mode
    if own and found.st_uid != os.geteuid():
        os.close(fd)
        raise SuiteError(f"belongs to another user (uid {found.st_uid})", path)
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise SuiteError("is a directory, expected a file", path)
        kind = next((name for test, name in _KINDS if test(mode)), "not a plain file")
        raise SuiteError(f"not a regular file ({kind})", path)
    return fd


class _Raw:
    """A checked, open file, read through its descriptor; the bytes are counted, and hashed
    (``hashed``) as they go by (the compressed bytes, for a gzip file read through it)."""

    def __init__(self, fd: int, path: Path, hashed: bool = True) -> None:
        self.fd = fd
        self.path = path
        self.sha = None
        if hashed:  # hashlib loads OpenSSL: imported where a file is hashed (`score` hashes none)
            import hashlib

            self.sha = hashlib.sha256()
        self.count = 0

    def read(self, size: int = BLOCK) -> bytes:
        try:
            data = os.read(self.fd, size if size >= 0 else BLOCK)
        except BlockingIOError:
            raise SuiteError("reading would block (not a plain file)", self.path) from None
        except OSError as exc:
            raise SuiteError(_reason(exc), self.path) from None
        if self.sha is not None:
            self.sha.update(data)
        self.count += len(data)
        return data


@contextlib.contextmanager
def _reading(path: Path, missing: str | None = "no such file", own: bool = False,
             hashed: bool = True) -> Iterator[_Raw]:
    """`_open` as a `_Raw`, closed after; a missing file is a SuiteError saying ``missing``
    (or FileNotFoundError, with None)."""
    try:
        fd = _open(path, own)
    except FileNotFoundError:
        if missing is None:
            raise
        raise SuiteError(missing, path) from None
    try:
        yield _Raw(fd, path, hashed)
    finally:
        os.close(fd)


def read_small(path: Path, limit: int = 64 << 20, own: bool = False) -> bytes:
    """A whole small file (settings, marks, history, cache entries) through the same checks;
    a SuiteError when it is not a regular file, is unreadable or holds more than ``limit``
    bytes (said before a byte is read when its size says so: a sparse file of terabytes is
    refused at once); FileNotFoundError when it does not exist. ``own``: see `_open`."""
    parts: list[bytes] = []
    with _reading(Path(path), None, own, hashed=False) as raw:
        size = os.fstat(raw.fd).st_size
        if size > limit:
            raise SuiteError(f"too big (over {size_text(limit)})", raw.path)
        # The whole file in one read where it can (a 1,000,000-example build's table of scores is
        # tens of MB: one copy in memory, not blocks and their join); then on to the end, bounded.
        while chunk := raw.read(min(max(size + 1, BLOCK), limit + 1) if not parts else BLOCK):
            parts.append(chunk)
            if raw.count > limit:
                raise SuiteError(f"too big (over {size_text(limit)})", raw.path)
    return b"".join(parts)  # one part: that part itself, not a copy


def read_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of a file (all of it when shorter), through the same checks:
    for telling a file's format by its first bytes without reading the rest.
    FileNotFoundError when it does not exist."""
    parts: list[bytes] = []
    with _reading(Path(path), None, hashed=False) as raw:
        while raw.count < size and (chunk := raw.read(min(BLOCK, size - raw.count))):
            parts.append(chunk)
    return b"".join(parts)


@contextlib.contextmanager
def open_binary(path: Path) -> Iterator[BinaryIO]:
    """A regular file through `_open`'s checks, as a binary file object for a reader that
    seeks (a zip's central directory); closed after. Reads through it are the caller's to
    bound."""
    try:
        fd = _open(Path(path))
    except FileNotFoundError:
        raise SuiteError("no such file", path) from None
    with os.fdopen(fd, "rb") as opened:
        yield opened


# The coarsest timestamp tick of the file systems in use (FAT's): a file changed less than
# this long before it is hashed has no digest kept (`file_digest`).
SETTLING_NS = 2_000_000_000


class Stamp(NamedTuple):
    """What a file's bytes are known by without reading them (`file_digest`): its absolute
    path (where inodes mean little, one file's digest is never lent to another), device,
    inode, size, mtime and ctime."""

    path: str
    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, path: Path, found: os.stat_result) -> Stamp:
        return cls(os.path.abspath(path), found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns,
                   found.st_ctime_ns)

    def settled(self) -> bool:
        """Whether the file last changed `SETTLING_NS` or more ago, by this machine's clock."""
        return max(self.mtime_ns, self.ctime_ns) < time.time_ns() - SETTLING_NS


class DigestMemo(dict):
    """Files' digests by `Stamp`, for `file_digest`: this process's own; the cache's
    (`store.cache.KeptDigestMemo`) are kept for the next (`save`)."""

    def save(self) -> None:
        """Nothing is kept past this process."""

    def hashed_here(self, stamp: Stamp) -> str | None:
        """The digest of a file this process hashed under ``stamp`` (`LineBlocks` takes it
        rather than hash the file again as it reads it); None for one it did not."""
        return self.get(stamp)


def file_digest(path: Path, memo: DigestMemo | None = None) -> str:
    """sha256 (hex) of a file's raw bytes (compressed, for ``.gz``), read through `_open`.

    A plain text file's lines are held to MAX_LINE on the way, so a file with no newline (a
    sparse 8 GB one) fails at its first 64 MiB, not after hashing all of it.

    ``memo``: digests by `Stamp`, looked up first and added to. A file keeps its bytes while
    its stamp stands: a write sets its ctime, which no one but the clock sets, and a rename
    or copy gives it another inode. A file changed less than `SETTLING_NS` before it is
    hashed is not added: a second write within the same clock tick could leave its stamp as
    it was (git's "racily clean" index entries). So this holds where the file system keeps a
    change time and its clock is this machine's within `SETTLING_NS` (README "Guarantees").
    """
    # Lines of text only: a gzip file's are held when read (LineBlocks); Parquet has none.
    plain = not Path(path).name.endswith((".gz", ".parquet"))
    start = 0  # where the line now being read began
    with _reading(Path(path)) as raw:
        before = Stamp.of(raw.path, os.fstat(raw.fd))
        if memo is not None and (digest := memo.get(before)) is not None:
            return digest
        settled = before.settled()
        while data := raw.read():
            if raw.count > MAX_BYTES:
                raise SuiteError(f"too big (over {size_text(MAX_BYTES)})", raw.path)
            end = data.rfind(b"\n")
            if end >= 0:
                start = raw.count - len(data) + end + 1
            elif plain and raw.count - start > MAX_LINE:
                line = _line_number(raw.path, start)
                raise SuiteError(f"line longer than {size_text(MAX_LINE)}", raw.path, line)
        digest = raw.sha.hexdigest()
        if memo is not None and settled and Stamp.of(raw.path, os.fstat(raw.fd)) == before:
            memo[before] = digest
    return digest


def _line_number(path: Path, offset: int) -> int:
    """The number of the line that begins at byte ``offset`` of ``path``."""
    newlines = 0
    with _reading(path) as raw:
        while raw.count < offset and (data := raw.read(min(BLOCK, offset - raw.count))):
            newlines += data.count(b"\n")
    return newlines + 1


class LineBlocks:
    """A data file as blocks of whole lines, gunzipped for ``.gz``; iterate once.

    Yields ``(number of the block's first line, its lines)``, the lines without their
    newline (the file's last line may have had none). ``digest`` is then `file_digest`'s
    value (``hashed``; else left empty, where nothing asks for it): the one this process
    gave it moments before under its `Stamp` in ``memo`` (`file_digest`, to look its figures
    up), or computed on the way (a digest kept from an earlier process is checked so: the
    texts read after cached figures are the bytes their key names).
    """

    def __init__(self, path: Path, hashed: bool = True, memo: DigestMemo | None = None) -> None:
        self.path = Path(path)
        self.hashed = hashed
        self.memo = memo if hashed else None
        self.digest = ""

    def __iter__(self) -> Iterator[tuple[int, list[bytes]]]:
        with _reading(self.path, hashed=self.hashed) as raw:
            stamp = known = None
            if self.memo:
                stamp = Stamp.of(raw.path, os.fstat(raw.fd))
                known = self.memo.hashed_here(stamp)
                if known is not None:
                    raw.sha = None
            if self.path.name.endswith(".gz"):
                with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:  # type: ignore[arg-type]
                    yield from self._lines(unzipped.read, raw, gz=True)
            else:
                yield from self._lines(raw.read, raw, gz=False)
            if known is not None:
                # Its bytes are the digest's while its stamp stands (`file_digest`).
                if Stamp.of(raw.path, os.fstat(raw.fd)) != stamp:
                    raise SuiteError("changed while it was read: open it again", raw.path)
                self.digest = known
            elif raw.sha is not None:
                while raw.read():  # what gzip left unread still counts in the digest
                    pass
                self.digest = raw.sha.hexdigest()

    def _lines(
        self, read: Callable[[int], bytes], raw: _Raw, gz: bool
    ) -> Iterator[tuple[int, list[bytes]]]:
        path = self.path
        number = 1  # of the next line to yield
        total = 0
        carry: list[bytes] = []  # the start of a line that runs on past the bytes read
        carried = 0
        while chunk := self._read(read):
            total += len(chunk)
            if total > MAX_BYTES:
                raise SuiteError(f"more than {size_text(MAX_BYTES)} of data", path)
            if gz and total > GZIP_FREE and total > GZIP_RATIO * raw.count:
                raise SuiteError(
                    f"decompresses to over {GZIP_RATIO} times its size (a gzip bomb?)", path
                )
            if chunk[0] == chunk[-1] == 10 and chunk.count(b"\n") == len(chunk):
                # Newlines only (a newline bomb): the same lines as split gives, made in C
                # at once, not a million bytes objects a megabyte.
                lines = [b""] * (len(chunk) + 1)
            else:
                lines = chunk.split(b"\n")
            tail = lines.pop()  # the unfinished last line (b"" when the chunk ends one)
            if carry and lines:
                carry.append(lines[0])
                carried += len(lines[0])
                lines[0] = b"".join(carry)
            elif not lines:
                carry.append(tail)
                carried += len(tail)
                tail = b""
            if carried > MAX_LINE:
                raise SuiteError(f"line longer than {size_text(MAX_LINE)}", path, number)
            if lines:
                yield number, lines
                number += len(lines)
                carry, carried = [tail], len(tail)
        if carried:
            yield number, [b"".join(carry)]

    def _read(self, read: Callable[[int], bytes]) -> bytes:
        try:
            return read(BLOCK)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise SuiteError(f"not a valid gzip file: {exc}", self.path) from None
        except OSError as exc:
            raise SuiteError(_reason(exc), self.path) from None
