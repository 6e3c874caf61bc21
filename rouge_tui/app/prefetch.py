"""The first analysis of a big suite, computed in a forked process while the app starts.

The app scores in worker threads, and a process that runs threads must not fork (see
`forking.parallel_safe`), so a cold analysis in the app would run on one core. Before
Textual starts any thread, `Prefetch.start` forks one process that opens the suite exactly
as `session.open_review` would (`snapshot.open_analysis`, texts left out); being the only
thread of its process, it may fork again to score on both cores. It sends back what it
found or computed as an analysis snapshot (the same bytes the snapshot cache stores, bound
to their key), through a pipe, with progress on the way.

The review's first load then reads that snapshot through `PrefetchedSnapshots`, keyed as
any snapshot is: if the files or settings changed meanwhile, or the process failed, the
keys differ or nothing arrives, and the load computes in-process as it always did, with
the errors the loader gives. Nothing here decides anything about the suite.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rouge_tui.forking import fork_with_pipe
from rouge_tui.snapshot import (
    Snapshot,
    SnapshotError,
    SnapshotStore,
    decode_snapshot,
    encode_snapshot,
    list_suite,
)
from rouge_tui.state import ScoreCache
from rouge_tui.suite import SuiteError

# Suites smaller than this (bytes on disk) open in well under a second in-process.
MIN_BYTES = 4 << 20

_FRAME = struct.Struct(">cI")  # kind, payload length
_PROGRESS = b"p"  # payload: JSON [stage, fraction]
_RESULT = b"r"  # payload: key, newline, encoded snapshot


def suite_bytes(path: Path) -> int:
    """Bytes of the files the suite is read from (the loader's own listing, stat only)."""
    try:
        files = list_suite(path)
    except (SuiteError, OSError):
        return 0  # the in-process open says what is wrong
    return sum(stamp[3] for stamp in files.stamps if stamp is not None)


class _Capture:
    """A snapshot store for the forked process: hands the snapshot its open found or made
    to ``deliver`` at once (the open's own clean-up, freeing a suite's objects, comes
    after); one it made is stored in the real store (None with --no-cache) by `flush`,
    after the app has it."""

    def __init__(
        self, real: SnapshotStore | None, deliver: Callable[[str, Snapshot], None]
    ) -> None:
        self.real = real
        self.deliver = deliver
        self.found: tuple[str, Snapshot] | None = None
        self.made = False

    def get(self, key: str) -> Snapshot | None:
        snapshot = self.real.get(key) if self.real is not None else None
        if snapshot is not None:
            self.found = (key, snapshot)
            self.deliver(key, snapshot)
        return snapshot

    def put(self, key: str, snapshot: Snapshot) -> None:
        self.found = (key, snapshot)
        self.made = True
        self.deliver(key, snapshot)

    def flush(self) -> None:
        if self.made and self.real is not None and self.found is not None:
            self.real.put(*self.found)


class _LaterCache(ScoreCache):
    """The score cache for the forked process: reads as usual, writes (with their fsync)
    once the app has its analysis."""

    def __init__(self) -> None:
        super().__init__()
        self._pending: list[tuple[str, Any]] = []

    def put(self, key: str, scores: Any) -> None:  # type: ignore[override]
        self._pending.append((key, scores))

    def flush(self) -> None:
        for key, scores in self._pending:
            super().put(key, scores)


class Prefetch:
    """One forked process computing a suite's first analysis; read it with `wait`."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self._fd = fd
        self._lock = threading.Lock()
        self._done = False  # its answer was read (or it was stopped)
        self._reaped = False
        self._result: tuple[str, bytes] | None = None

    @classmethod
    def start(
        cls, path: Path, open_kwargs: dict[str, Any], min_bytes: int | None = None
    ) -> Prefetch | None:
        """Fork the process when it is safe and worth it (None otherwise).

        ``open_kwargs`` are `open_analysis`'s settings arguments (baseline, candidate,
        metric, tokenizer, stem, k, defaults) and ``no_cache``.
        """
        if suite_bytes(path) < (MIN_BYTES if min_bytes is None else min_bytes):
            return None
        forked = fork_with_pipe(lambda write_fd: _child(path, open_kwargs, write_fd))
        if forked is None:
            return None
        pid, read_fd = forked
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # also done by the child: whichever runs first
        return cls(pid, read_fd)

    def wait(self, progress: Callable[[str, float], None] | None = None) -> tuple[str, bytes] | None:
        """Block until the process has answered: its (key, snapshot bytes), or None if it
        failed (its answer is whole or nothing: each frame carries its length, and the
        snapshot's digest is checked where it is read).

        Safe to call from any thread and more than once (later calls return the first
        answer). ``progress`` hears the process's progress while it scores. The process
        may still be writing the score cache: `cancel` (at the app's exit) waits for it.
        """
        with self._lock:
            if not self._done:
                self._result = self._read(progress)
                self._done = True
                self._reap(block=False)
            return self._result

    def cancel(self) -> None:
        """End the process: stopped (and the one it may have forked to score) while it is
        still working on its answer, waited for when it is only writing the cache."""
        if self._reaped:
            return  # its pid may belong to another process by now
        if not self._done:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGTERM)
        if self._lock.acquire(blocking=False):  # nobody is reading: close and reap here
            try:
                self._done = True
                self._close()
                self._reap(block=True)
            finally:
                self._lock.release()

    def stop_unread(self) -> None:
        """`cancel` if nobody has its answer yet (an open that stopped before reading it);
        one that answered is left to finish its cache writes, reaped by `cancel` at exit."""
        if not self._done:
            self.cancel()

    def _close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def _read(self, progress: Callable[[str, float], None] | None) -> tuple[str, bytes] | None:
        result = None
        if self._fd < 0:
            return None
        fd, self._fd = self._fd, -1  # the file object below owns and closes it
        with open(fd, "rb", closefd=True) as pipe:
            while True:
                head = pipe.read(_FRAME.size)
                if len(head) < _FRAME.size:
                    break
                kind, size = _FRAME.unpack(head)
                payload = pipe.read(size)
                if len(payload) < size:
                    return None  # cut short: the process died mid-write
                if kind == _PROGRESS and progress is not None:
                    with contextlib.suppress(ValueError, TypeError):
                        stage, fraction = json.loads(payload)
                        progress(str(stage), float(fraction))
                elif kind == _RESULT:
                    key, _, data = payload.partition(b"\n")
                    result = (key.decode("ascii", "replace"), data)
                    break  # the last frame: the process may still be tidying up
        return result

    def _reap(self, block: bool) -> None:
        with contextlib.suppress(ChildProcessError, OSError):
            pid, _ = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            if pid == 0:
                return  # still writing the cache
        self._reaped = True


class PrefetchedSnapshots:
    """The snapshot store the review's first load reads: the prefetched snapshot when its
    key is the one asked for, else the real store (None: nothing cached, --no-cache)."""

    def __init__(
        self,
        prefetch: Prefetch,
        real: SnapshotStore | None,
        progress: Callable[[str, float], None] | None = None,
    ) -> None:
        self.prefetch = prefetch
        self.real = real
        self.progress = progress

    def get(self, key: str) -> Snapshot | None:
        found = self.prefetch.wait(self.progress)
        if found is not None and found[0] == key:
            with contextlib.suppress(SnapshotError):
                return decode_snapshot(key, found[1])
        return self.real.get(key) if self.real is not None else None

    def put(self, key: str, snapshot: Snapshot) -> None:
        if self.real is not None:
            self.real.put(key, snapshot)


def _child(path: Path, open_kwargs: dict[str, Any], write_fd: int) -> None:
    """The forked process: open the suite, send the snapshot, exit without cleanup."""
    code = 1
    try:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)  # its own group: the app can stop it and what it forks
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # never a byte to the terminal the app draws on
            os.dup2(devnull, fd)
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(-1)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        # One analysis and out: nothing it makes is cyclic garbage worth a collection, and
        # collections over the suite's objects cost ~0.05 s on the way to the answer.
        gc.disable()

        from rouge_tui.snapshot import open_analysis

        def send(kind: bytes, payload: bytes) -> None:
            data = _FRAME.pack(kind, len(payload)) + payload
            while data:
                data = data[os.write(write_fd, data) :]

        def progress(stage: str, fraction: float) -> None:
            send(_PROGRESS, json.dumps([stage, fraction]).encode())

        def deliver(key: str, snapshot: Snapshot) -> None:
            send(_RESULT, key.encode("ascii") + b"\n" + encode_snapshot(key, snapshot))

        kwargs = dict(open_kwargs)
        no_cache = bool(kwargs.pop("no_cache", False))
        capture = _Capture(None if no_cache else SnapshotStore(), deliver)
        cache = None if no_cache else _LaterCache()
        open_analysis(
            path,
            **kwargs,
            cache=cache,
            snapshots=capture,  # type: ignore[arg-type]
            progress=progress,
            texts=False,
        )
        os.close(write_fd)  # the app reads its answer now; the cache is written meanwhile
        if cache is not None:
            cache.flush()
        capture.flush()
        code = 0
    except BaseException:  # noqa: BLE001 - the app's own load reports any error
        code = 1
    finally:
        os._exit(code)
