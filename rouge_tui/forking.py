"""Run a function in one forked process while this one goes on: the second core, cheaply.

`Forked.start(fn, *args)` forks; the child calls ``fn(*args)``, pickles the value into a
pipe and exits without cleanup (no atexit handlers, no flush of the parent's buffers). The
child reads the parent's memory as it was at the fork, so nothing is pickled on the way in.
`result()` reads the value back; when the child failed in any way it raises `ForkFailed`
and the caller does the work itself, so every error message is the one the in-process
path gives.

Forking is only safe from a process running one thread (a lock another thread held at the
fork would stay locked forever in the child): `start` returns None otherwise, and callers
then do the work in-process. This module imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

# The pipe size asked for (Linux lets any user have up to 1 MiB by default).
PIPE_BYTES = 1 << 20


class ForkFailed(RuntimeError):
    """The forked process raised, was killed or sent nothing usable."""


def parallel_safe() -> bool:
    """True when forking is safe here: fork available and this process runs one thread."""
    return (
        hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
        and threading.active_count() == 1
    )


def fork_with_pipe(child: Callable[[int], object]) -> tuple[int, int] | None:
    """Fork with a pipe from the child to this process: the child runs ``child(write_fd)``,
    which must end with ``os._exit``; this process gets (pid, read_fd). None when forking
    is not safe here or fails."""
    if not parallel_safe():
        return None
    read_fd, write_fd = os.pipe()
    # A bigger pipe (Linux; best effort) lets an answer of tens of MB through in fewer
    # turns between the processes: the references of the 100k suite came 30 ms sooner.
    with contextlib.suppress(ImportError, AttributeError, OSError):
        import fcntl  # not on Windows, where there is no fork either

        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:
        os.close(read_fd)
        try:
            child(write_fd)
        finally:
            os._exit(1)  # a child that returned or raised never runs the parent's code
    os.close(write_fd)
    return pid, read_fd


class Forked(Generic[T]):
    """A function call running in a forked process; `result` waits for its value."""

    def __init__(self, pid: int, fd: int) -> None:
        self._pid = pid
        self._fd = fd

    @classmethod
    def start(cls, fn: Callable[..., T], *args: object) -> Forked[T] | None:
        """Fork and call ``fn(*args)`` in the child; None when forking is not safe here."""
        forked = fork_with_pipe(lambda write_fd: _child(fn, args, write_fd))
        return None if forked is None else cls(*forked)

    def cancel(self) -> None:
        """Stop the process and forget its result (for a caller leaving early)."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self._pid, 0)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1

    def result(self) -> T:
        """The child's return value (blocks until it is sent); `ForkFailed` otherwise."""
        if self._fd < 0:
            raise ForkFailed("result already taken")
        fd, self._fd = self._fd, -1
        try:
            with open(fd, "rb", closefd=True) as pipe:
                data = pipe.read()
        finally:
            status = 0
            with contextlib.suppress(ChildProcessError, OSError):
                _, status = os.waitpid(self._pid, 0)
        if not data or not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            raise ForkFailed("the forked process failed")
        try:
            ok, value = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - anything unreadable is a failure
            raise ForkFailed(f"unreadable result ({type(exc).__name__})") from None
        if not ok:
            raise ForkFailed("the forked process raised")
        return value


def _child(fn: Callable[..., object], args: tuple[object, ...], write_fd: int) -> None:
    code = 1
    try:
        try:
            payload = pickle.dumps((True, fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - the parent redoes the work and reports
            payload = pickle.dumps((False, None))
        view = memoryview(payload)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)
