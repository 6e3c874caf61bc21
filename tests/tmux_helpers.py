"""A private tmux server for tests that drive the installed app in a real terminal."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path


class Tmux:
    """One private tmux server (its own socket) with one session running one command."""

    def __init__(self, command: str, env: dict[str, str], width: int = 100, height: int = 30) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux is required for the terminal tests (CI installs it)"
        self.base = [tmux, "-L", f"rouge-tui-test-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
        self.env = env
        self.run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [*self.base, *args], capture_output=True, text=True, env=self.env, timeout=20, check=False
        )
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t:0")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t:0", *keys)

    def settled(self, condition: Callable[[str], object], what: str, timeout: float = 20.0) -> str:
        """The screen once ``condition`` holds for it and it has stopped changing.

        The app writes a frame to the terminal in pieces, so a capture can catch one half
        written (a loaded machine shows this): a text seen in one capture says only that the
        frame has started. Two equal captures a moment apart say it has been written whole.
        """
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen == last and condition(screen):
                return screen
            last = screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.screen()}")

    def alternate_on(self) -> str:
        return self.run("display", "-p", "-t", "t:0", "#{alternate_on}").strip()

    def close(self) -> None:
        socket = self.run("display-message", "-p", "#{socket_path}").strip()
        self.run("kill-server")
        if socket:  # tmux leaves the socket file behind; it is ours, so tidy it
            Path(socket).unlink(missing_ok=True)


def wait_for(condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
