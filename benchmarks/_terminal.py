"""A real terminal for the app benchmarks: a private tmux server running one command.

- The command runs under a small wrapper in the pane, which waits on a FIFO until `go`
  releases it, spawns the command (the clock starts just before: interpreter start-up and
  imports count, as they do for a person), and after it exits writes the command's peak RSS
  (``RUSAGE_CHILDREN``: the largest of the app and any process it forked and waited for).
- Everything the app writes to its terminal is copied (``tmux pipe-pane``) into a FIFO that
  a thread reads, stamping each chunk: "the first frame that shows X" is the end of the
  burst of output in which X first appears after a moment, and `screen` (``tmux
  capture-pane``) then checks that the terminal really shows it.
- Keys go in through a tmux control-mode client kept open (``send-keys`` written to its
  stdin), so a key costs no process start and its moment is known to a fraction of a ms.

Only this module's own server is ever touched (its own socket name, ``kill-server`` on it).
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Self

GAP = 0.003  # seconds of silence that end a burst of output (one frame)

_PANE = r"""
import json, os, resource, subprocess, sys
spec = json.load(open(sys.argv[1]))
with open(spec["go"], "rb") as go:
    go.read(1)
child = subprocess.Popen(spec["argv"], env=spec["env"])
with open(spec["pid"] + ".part", "w") as out:
    out.write(str(child.pid))
os.rename(spec["pid"] + ".part", spec["pid"])
code = child.wait()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(spec["result"] + ".part", "w") as out:
    json.dump({"code": code, "rss_kb": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime}, out)
os.rename(spec["result"] + ".part", spec["result"])
"""

_count = 0


class Terminal:
    """A ``width`` x ``height`` tmux window running ``argv`` (started with `start`)."""

    def __init__(self, width: int, height: int) -> None:
        global _count
        _count += 1
        if shutil.which("tmux") is None:
            raise SystemExit("the app benchmarks need tmux (apt-get install tmux)")
        self.width, self.height = width, height
        self.socket = f"rouge-tui-bench-{os.getpid()}-{_count}"
        self.dir = Path(tempfile.mkdtemp(prefix="rouge-tui-bench-term-"))
        self.data = bytearray()  # everything the command wrote to the terminal
        self.ends: list[int] = []  # where each chunk read ends in it
        self.stamps: list[float] = []  # when each chunk was read (perf_counter)
        self.arrived = threading.Condition()
        self.control: subprocess.Popen | None = None
        self.pid: int | None = None
        self.socket_path = ""

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, check=False)
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def start(self, argv: list[str], env: dict[str, str]) -> None:
        """Open the window with the command waiting to be released by `go`."""
        go, stream = self.dir / "go", self.dir / "stream"
        os.mkfifo(go)
        os.mkfifo(stream)
        spec = {"argv": argv, "env": {**os.environ, **env, "TERM": "tmux-256color"}, "go": str(go),
                "pid": str(self.dir / "pid"), "result": str(self.dir / "result.json")}
        (self.dir / "spec.json").write_text(json.dumps(spec))
        pane = shlex.join([sys.executable, "-c", _PANE, str(self.dir / "spec.json")])
        self.tmux("new-session", "-d", "-x", str(self.width), "-y", str(self.height), "-s", "bench", pane)
        self.socket_path = self.tmux("display-message", "-p", "#{socket_path}").strip()
        reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        reader.start()
        self.tmux("pipe-pane", "-t", "bench", f"cat > {shlex.quote(str(stream))}")
        self.control = subprocess.Popen(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "-C", "attach", "-t", "bench", "-f", "ignore-size,no-output"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

    def _read(self, stream: Path) -> None:
        fd = os.open(stream, os.O_RDONLY)
        while True:
            data = os.read(fd, 1 << 16)
            stamp = time.perf_counter()
            if not data:
                break
            with self.arrived:
                self.data += data
                self.ends.append(len(self.data))
                self.stamps.append(stamp)
                self.arrived.notify_all()
        os.close(fd)

    def go(self) -> float:
        """Release the command; returns the moment (perf_counter) it was released."""
        fd = os.open(self.dir / "go", os.O_WRONLY)  # waits for the wrapper to be ready
        start = time.perf_counter()
        os.write(fd, b"g")
        os.close(fd)
        deadline = time.monotonic() + 30
        while not (self.dir / "pid").exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the command did not start")
            time.sleep(0.001)
        self.pid = int((self.dir / "pid").read_text())
        return start

    def key(self, name: str) -> float:
        """Press a key (tmux key name: Enter, Escape, h, q); returns the moment it was sent."""
        assert self.control is not None and self.control.stdin is not None
        start = time.perf_counter()
        self.control.stdin.write(f"send-keys -t bench {name}\n".encode())
        self.control.stdin.flush()
        return start

    def position(self) -> int:
        """A position in the output stream, to look for what comes after it."""
        with self.arrived:
            return len(self.data)

    def frame_with(self, text: str | re.Pattern[bytes], after: int, timeout: float = 300.0) -> float:
        """The moment the burst of output holding ``text`` (or a match of it, written
        after position ``after``) ended: the frame's last byte reached the terminal."""
        pattern = text if isinstance(text, re.Pattern) else re.compile(re.escape(text.encode()))
        deadline = time.monotonic() + timeout
        with self.arrived:
            start = after
            while (found := pattern.search(self.data, start)) is None:
                if time.monotonic() > deadline or self.exited():
                    raise RuntimeError(f"no frame with {text!r} within {timeout:.0f} s:\n{self.screen()}")
                start = max(after, len(self.data) - 4096)  # a match may begin in what came before
                self.arrived.wait(0.05)
            index = bisect.bisect_left(self.ends, found.end())
            while True:  # the rest of the burst: chunks that follow within GAP
                while index + 1 < len(self.stamps) and self.stamps[index + 1] - self.stamps[index] <= GAP:
                    index += 1
                last = self.stamps[index]
                if index + 1 < len(self.stamps) or time.perf_counter() - last > GAP:
                    return last
                self.arrived.wait(GAP)

    def screen(self) -> str:
        """What the terminal shows now (text only)."""
        return self.tmux("capture-pane", "-p", "-t", "bench", check=False)

    def cpu(self) -> float:
        """CPU seconds the command has used so far (all its threads)."""
        assert self.pid is not None
        with open(f"/proc/{self.pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self, quiet: float = 0.5, timeout: float = 300.0) -> float:
        """Wait until the command has used no CPU (beyond a tick) for ``quiet`` seconds;
        returns the moment it went quiet."""
        deadline = time.monotonic() + timeout
        tick = 1.5 / os.sysconf("SC_CLK_TCK")
        used, since = self.cpu(), time.perf_counter()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.cpu()
            if now - used > tick:
                used, since = now, time.perf_counter()
            elif time.perf_counter() - since >= quiet:
                return since
        raise RuntimeError(f"the app never went quiet:\n{self.screen()}")

    def exited(self) -> bool:
        return (self.dir / "result.json").exists()

    def stop(self, key: str = "Q", timeout: float = 30.0) -> dict:
        """Press ``key`` (Q quits from any view; q closes a diff or the history) and wait
        for the command's exit; returns its exit code,
        peak RSS (MB) and CPU seconds."""
        result = self.dir / "result.json"
        if not result.exists():
            self.key(key)
        deadline = time.monotonic() + timeout
        while not result.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        data = json.loads(result.read_text()) if result.exists() else {"code": None, "rss_kb": 0, "cpu": 0.0}
        return {"code": data["code"], "rss_mb": data["rss_kb"] / 1024, "cpu": data["cpu"]}

    def close(self) -> None:
        if self.control is not None:
            with_stdin = self.control.stdin
            if with_stdin is not None:
                with_stdin.close()
            try:
                self.control.wait(5)
            except subprocess.TimeoutExpired:
                self.control.kill()
        self.tmux("kill-server", check=False)
        if self.socket_path:  # the server leaves its socket file behind
            with contextlib.suppress(OSError):
                os.unlink(self.socket_path)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
