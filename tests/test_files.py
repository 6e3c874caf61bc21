"""Tests for rouge_tui.files: the one checked open and the bounded reads.

Each hostile file is made here (FIFOs, sockets, devices, links, sparse files, gzip bombs)
and must give a one-line SuiteError fast, with little memory; reads that could hang run in
a thread with a timeout, reads that could eat memory in a child with a memory cap.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import socket
import zlib
from pathlib import Path

import pytest
from suite_helpers import error_of, files_read, in_child, settle_files, within

from rouge_tui import files as files_module
from rouge_tui.errors import SuiteError
from rouge_tui.files import (
    MAX_LINE,
    LineBlocks,
    file_digest,
    open_binary,
    read_head,
    read_small,
)


def lines_of(path: Path) -> list[tuple[int, list[bytes]]]:
    return list(LineBlocks(path))


def first_bytes(path: Path) -> bytes:
    with open_binary(path) as opened:
        return opened.read(4)


# --------------------------------------------------------------------------- plain reads


def test_blocks_cut_at_line_ends_with_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "BLOCK", 8)  # tiny reads: lines run across them
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"one\ntwo\n\nthree-long-line\nfour")
    got = lines_of(path)
    # By hand: reads of 8 bytes are "one\ntwo\n", "\nthree-l", "ong-line", "\nfour".
    assert got == [(1, [b"one", b"two"]), (3, [b""]), (4, [b"three-long-line"]), (5, [b"four"])]
    flat = [line for _, lines in got for line in lines]
    assert flat == path.read_bytes().split(b"\n")


def test_blocks_of_newlines_only_are_the_lines_split_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "BLOCK", 4)  # reads of "\n\n\n\n", then text among them
    path = tmp_path / "x.jsonl"
    data = b"\n" * 9 + b"ab\n\n\n\n\ncd" + b"\n" * 8
    path.write_bytes(data)
    got = [(first + k, line) for first, lines in lines_of(path) for k, line in enumerate(lines)]
    # By hand: the file's lines are its bytes split at each newline (the last, empty, dropped).
    want = list(enumerate(data.split(b"\n")[:-1], 1))
    assert got == want


def test_digest_is_the_raw_bytes_sha256_also_for_gzip(tmp_path: Path) -> None:
    data = b'{"id": "a", "output": "x"}\n' * 1000
    plain, zipped = tmp_path / "a.jsonl", tmp_path / "a.jsonl.gz"
    plain.write_bytes(data)
    zipped.write_bytes(gzip.compress(data, mtime=0))
    for path in (plain, zipped):
        blocks = LineBlocks(path)
        assert b"\n".join(line for _, lines in blocks for line in lines) == data.rstrip(b"\n")
        expected = hashlib.sha256(path.read_bytes()).hexdigest()
        assert blocks.digest == expected == file_digest(path)


def test_multi_member_gzip_and_trailing_garbage(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(gzip.compress(b"one\n") + gzip.compress(b"two\n"))
    assert [line for _, lines in LineBlocks(path) for line in lines] == [b"one", b"two"]
    path.write_bytes(gzip.compress(b"one\n") + b"garbage!")
    error = error_of(lines_of, path)
    assert str(error).startswith(f"{path}: not a valid gzip file: ")


def test_read_small_reads_whole_files_and_bounds_them(tmp_path: Path) -> None:
    path = tmp_path / "marks.json"
    path.write_bytes(b"x" * 100)
    assert read_small(path) == b"x" * 100
    assert read_small(path, limit=100) == b"x" * 100
    assert str(error_of(read_small, path, 99)) == f"{path}: too big (over 99 bytes)"
    with pytest.raises(FileNotFoundError):
        read_small(tmp_path / "missing.json")


def test_read_small_refuses_a_file_by_its_size_before_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "entry.bin"
    with open(path, "wb") as handle:
        handle.truncate(1_200_000_000)  # sparse: 1.2 GB of NUL bytes to a reader
    asked: list[int] = []
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, size: (asked.append(size), real(fd, size))[1])
    assert str(error_of(read_small, path, 512 << 20)) == f"{path}: too big (over 512 MiB)"
    assert asked == []  # not a byte read


def test_read_small_of_a_state_file_takes_only_the_users_own_never_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.bin"
    real.write_bytes(b"entry")
    (tmp_path / "link.bin").symlink_to(real)
    assert read_small(tmp_path / "link.bin") == b"entry"  # a suite file may be a link
    assert str(error_of(read_small, tmp_path / "link.bin", 100, True)) == (
        f"{tmp_path}/link.bin: a link where a state file belongs (never followed)"
    )
    assert read_small(real, 100, True) == b"entry"
    if os.geteuid() == 0:
        os.chown(real, 65534, 65534)
        assert str(error_of(read_small, real, 100, True)) == f"{real}: belongs to another user (uid 65534)"


def test_missing_data_file_and_broken_link(tmp_path: Path) -> None:
    assert str(error_of(lines_of, tmp_path / "no.jsonl")) == f"{tmp_path}/no.jsonl: no such file"
    assert str(error_of(first_bytes, tmp_path / "no.eval")) == f"{tmp_path}/no.eval: no such file"
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    assert str(error_of(read_small, tmp_path / "dangling.json")) == (
        f"{tmp_path}/dangling.json: a broken link (its target does not exist)"
    )


def test_read_head_gives_the_first_bytes_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "BLOCK", 4)  # the head spans several reads
    path = tmp_path / "x.json"
    path.write_bytes(b'{"evalId": "e", "results": {}}')
    assert read_head(path, 11) == b'{"evalId": '
    assert read_head(path, 1000) == b'{"evalId": "e", "results": {}}'
    with pytest.raises(FileNotFoundError):
        read_head(tmp_path / "absent.json", 10)


# --------------------------------------------------------------------------- not regular files


def test_a_fifo_is_refused_at_once_by_every_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # nobody writes: a plain open() would block forever
    for read in (read_small, lines_of, file_digest, lambda path: read_head(path, 16), first_bytes):
        error = within(5, read, fifo)
        assert isinstance(error, SuiteError), error
        assert str(error) == f"{fifo}: not a regular file (a FIFO)"


def test_directory_socket_and_device(tmp_path: Path) -> None:
    assert str(error_of(read_small, tmp_path)) == f"{tmp_path}: is a directory, expected a file"
    sock = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    try:
        assert str(error_of(read_small, sock)) == f"{sock}: not a regular file (a socket?)"
    finally:
        server.close()
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    assert str(error_of(lines_of, zero)) == f"{zero}: not a regular file (a character device)"


def test_link_loop(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to("loop.jsonl")
    assert str(error_of(lines_of, loop)) == (
        f"{loop}: cannot read: Too many levels of symbolic links"
    )


def test_a_read_that_would_block_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("{}\n")

    def would_block(fd: int, size: int) -> bytes:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(files_module.os, "read", would_block)
    assert str(error_of(lines_of, path)) == f"{path}: reading would block (not a plain file)"


@pytest.mark.skipif(not os.path.exists("/proc/kmsg"), reason="no /proc/kmsg on this machine")
def test_a_link_to_proc_kmsg_neither_hangs_nor_passes(tmp_path: Path) -> None:
    """stat calls /proc/kmsg a regular file, but reading it waits for kernel messages."""
    link = tmp_path / "references.jsonl"
    link.symlink_to("/proc/kmsg")
    for read in (lines_of, read_small):
        error = within(10, read, link)
        assert isinstance(error, SuiteError), error  # would block, permission denied, or
        assert str(error).startswith(f"{link}")  # kernel log lines that are no JSON, later


# --------------------------------------------------------------------------- bounds


def test_a_line_over_the_limit_is_named_without_reading_all_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "MAX_LINE", 100)
    monkeypatch.setattr(files_module, "BLOCK", 16)
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"short\n" + b"y" * 100 + b"\n" + b"z" * 101 + b"\n" + b"w" * 10**6)
    error = error_of(lines_of, path)
    # Line 2 holds exactly the limit; line 3 is one byte over.
    assert str(error) == f"{path}:3: line longer than 100 bytes"
    path.write_bytes(b"short\n" + b"y" * 10**6)  # the unfinished last line, too
    assert str(error_of(lines_of, path)) == f"{path}:2: line longer than 100 bytes"


def test_a_50mb_line_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    line = b'{"id": "1", "output": "' + b"x" * 50_000_000 + b'"}'
    path.write_bytes(b"{}\n" + line + b"\n{}\n")
    got = [line for _, lines in LineBlocks(path) for line in lines]
    assert len(got) == 3 and got[1] == line
    assert MAX_LINE == 64 << 20


def test_a_sparse_8gb_file_without_newlines_fails_fast_and_small(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with open(path, "wb") as handle:
        handle.truncate(8 << 30)  # `truncate -s 8G`: NUL bytes, no newline, no disk used
    code = (
        "import time; from pathlib import Path; from rouge_tui.suite.records import read_run\n"
        f"start = time.monotonic()\ntry: read_run(Path({str(path)!r}))\n"
        "except Exception as e: print(type(e).__name__, e)\nprint(time.monotonic() - start)"
    )
    out, peak = in_child(code, timeout=60, memory=1 << 30)
    message, seconds = out.strip().split("\n")
    assert message == f"SuiteError {path}:1: line longer than 64 MiB"
    assert float(seconds) < 10, seconds
    assert peak < 200, f"peak RSS {peak:.0f} MiB"


def test_the_digest_stops_at_a_line_over_the_limit_and_names_it(tmp_path: Path) -> None:
    """The figures' cache key hashes each file before it is parsed: a line over MAX_LINE
    must stop that pass too, at the right line, not after hashing gigabytes."""
    path = tmp_path / "c.jsonl"
    with open(path, "wb") as handle:
        handle.write(b'{"id": "a", "output": "x"}\n\n')  # lines 1 and 2; line 3 is the long one
        handle.truncate(8 << 30)
    message, seconds = in_child(
        "import time; from pathlib import Path; from rouge_tui.files import file_digest\n"
        f"start = time.monotonic()\ntry: file_digest(Path({str(path)!r}))\n"
        "except Exception as e: print(type(e).__name__, e)\nprint(time.monotonic() - start)",
        timeout=60, memory=1 << 30,
    )[0].strip().split("\n")
    assert message == f"SuiteError {path}:3: line longer than 64 MiB"
    assert float(seconds) < 5, seconds


def test_the_digest_holds_lines_to_the_limit_exactly(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    # Line 1 is MAX_LINE bytes with its newline, line 2 MAX_LINE bytes and none: both allowed.
    data = b"x" * (MAX_LINE - 1) + b"\n" + b"y" * MAX_LINE
    path.write_bytes(data)
    assert file_digest(path) == hashlib.sha256(data).hexdigest()
    path.write_bytes(data + b"y")  # line 2 one byte over
    assert str(error_of(file_digest, path)) == f"{path}:2: line longer than 64 MiB"


def test_a_parquet_file_has_no_lines_to_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parquet is binary: a long stretch without a newline byte is data, not a long line."""
    monkeypatch.setattr(files_module, "MAX_LINE", 100)
    data = b"PAR1" + b"\0" * 5000 + b"PAR1"  # no newline byte: one line, to a text reader
    for name in ("b.parquet", "b.jsonl"):
        (tmp_path / name).write_bytes(data)
    assert file_digest(tmp_path / "b.parquet") == hashlib.sha256(data).hexdigest()
    assert str(error_of(file_digest, tmp_path / "b.jsonl")) == f"{tmp_path}/b.jsonl:1: line longer than 100 bytes"


def _gzip_stream(path: Path, piece: bytes, total: int) -> None:
    """``total`` bytes of ``piece`` repeated, gzipped a piece at a time (never in memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = piece * ((1 << 20) // len(piece))
    with open(path, "wb") as handle:
        handle.writelines(packer.compress(chunk) for _ in range(total // len(chunk)))
        handle.write(packer.flush())


@pytest.mark.parametrize("piece", [b"\0", b"\n"], ids=["zeros", "newlines"])
def test_a_gzip_bomb_fails_in_seconds_with_little_memory(tmp_path: Path, piece: bytes) -> None:
    path = tmp_path / "b.jsonl.gz"
    _gzip_stream(path, piece, 200 << 20)
    assert path.stat().st_size < 1 << 20  # about 200 KB that would unpack to 200 MB
    code = (
        "import time; from pathlib import Path; from rouge_tui.suite.records import read_run\n"
        f"start = time.monotonic()\ntry: read_run(Path({str(path)!r}))\n"
        "except Exception as e: print(type(e).__name__, e)\nprint(time.monotonic() - start)"
    )
    out, peak = in_child(code, timeout=60, memory=1 << 30)
    message, seconds = out.strip().split("\n")
    assert message == (f"SuiteError {path}: decompresses to over 200 times its size (a gzip bomb?)")
    assert float(seconds) < 10, seconds
    assert peak < 200, f"peak RSS {peak:.0f} MiB"


def test_compressible_but_honest_gzip_is_read(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl.gz"
    line = b'{"id": "same", "output": "' + b"word " * 20 + b'"}\n'
    _gzip_stream(path, line, 10 << 20)  # 10 MB of one line repeated: far over 200x, but small
    count = sum(len(lines) for _, lines in LineBlocks(path))
    # By hand: a line is 129 bytes, a piece 8,128 lines (1 MiB // 129), 10 pieces written.
    assert count == 81_280


def test_the_total_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_module, "MAX_BYTES", 1000)
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"{}\n" * 400)
    assert str(error_of(lines_of, path)) == f"{path}: more than 1000 bytes of data"


# ---------------------------------------------------------------------- digests kept by stamp


def kept_memo(path: Path, monkeypatch: pytest.MonkeyPatch) -> files_module.DigestMemo:
    """A memo holding ``path``'s digest, kept once the files written so far settled."""
    settle_files(monkeypatch)
    memo = files_module.DigestMemo()
    assert file_digest(path, memo) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert list(memo.values()) == [hashlib.sha256(path.read_bytes()).hexdigest()]
    return memo


def test_a_kept_digest_spares_reading_the_file_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"id": "1", "output": "a b c"}\n')
    memo = kept_memo(path, monkeypatch)
    reads = files_read(monkeypatch, tmp_path)
    # What is kept is what comes back, unread: a digest planted under the file's stamp.
    memo[next(iter(memo))] = "f" * 64
    assert file_digest(path, memo) == "f" * 64
    assert reads == []


def test_a_file_whose_digest_is_known_by_its_stamp_is_read_without_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first open hashes each file to look its figures up (`file_digest`), then reads it:
    the read takes that digest, known by the file's stamp, and does not hash it again."""
    data = b'{"id": "1", "output": "a b c"}\n{"id": "2", "output": "d e"}\n'
    plain, zipped = tmp_path / "b.jsonl", tmp_path / "c.jsonl.gz"
    plain.write_bytes(data)
    zipped.write_bytes(gzip.compress(data, mtime=0))
    for path in (plain, zipped):
        memo = kept_memo(path, monkeypatch)
        assert memo == {next(iter(memo)): hashlib.sha256(path.read_bytes()).hexdigest()}
        memo[next(iter(memo))] = "f" * 64  # planted: only a read that trusts the stamp gives it
        blocks = LineBlocks(path, memo=memo)
        assert [line for _, lines in blocks for line in lines] == data.splitlines()
        assert blocks.digest == "f" * 64
        unknown = LineBlocks(path, memo=files_module.DigestMemo())  # nothing known: hashed
        list(unknown)
        assert unknown.digest == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_changed_while_read_under_a_known_digest_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest known by the stamp names the bytes as they were when the read began: a
    file rewritten meanwhile is neither given that digest nor taken as read."""
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"id": "1", "output": "a b c"}\n' * 5)
    memo = kept_memo(path, monkeypatch)
    blocks = iter(LineBlocks(path, memo=memo))
    next(blocks)
    with open(path, "ab") as handle:
        handle.write(b'{"id": "2", "output": "d"}\n')
    with pytest.raises(SuiteError) as caught:
        list(blocks)
    assert str(caught.value) == f"{path}: changed while it was read: open it again"


@pytest.mark.parametrize("how", ["rewritten in place, same size", "replaced by a rename", "appended to"])
def test_a_file_changed_after_its_digest_was_kept_is_read_again(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"id": "1", "output": "a b c"}\n')
    memo = kept_memo(path, monkeypatch)
    before = os.stat(path)
    if how == "rewritten in place, same size":
        with open(path, "r+b") as handle:
            handle.write(b'{"id": "1", "output": "x y z"}\n')
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back: the ctime is not
    elif how == "replaced by a rename":
        (tmp_path / "new").write_bytes(b'{"id": "1", "output": "x y z"}\n')
        os.replace(tmp_path / "new", path)
    else:
        with open(path, "ab") as handle:
            handle.write(b'{"id": "2", "output": "d"}\n')
    assert file_digest(path, memo) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_changed_moments_before_it_is_hashed_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two writes within one clock tick can leave a file's stamp as it was: a digest is kept
    only for a file last changed `SETTLING_NS` before it is hashed."""
    monkeypatch.setattr(files_module, "SETTLING_NS", 2_000_000_000)  # the shipped value
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"id": "1", "output": "a b c"}\n')
    memo = files_module.DigestMemo()
    assert file_digest(path, memo) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert memo == {}
    old = os.stat(path).st_mtime_ns - 10_000_000_000
    os.utime(path, ns=(old, old))  # an old mtime: the ctime is still now
    file_digest(path, memo)
    assert memo == {}


def test_a_kept_digest_is_lent_to_no_other_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where inodes mean little (some network and FUSE file systems give every file the same
    one), two files of one size written in one clock tick would share all the rest."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(b'{"id": "1", "output": "a b c"}\n')
    second.write_bytes(b'{"id": "1", "output": "x y z"}\n')
    memo = kept_memo(first, monkeypatch)
    theirs = os.stat(first)

    def same_as_first(fd: int) -> os.stat_result:  # the second file, with the first one's stat
        return theirs

    monkeypatch.setattr(files_module.os, "fstat", same_as_first)
    assert file_digest(second, memo) == hashlib.sha256(second.read_bytes()).hexdigest()
