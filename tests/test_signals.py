"""SSH drops: SIGHUP and SIGTERM during a review, in a real terminal (tmux).

The installed ``rouge-tui`` runs on a temporary copy of the sample suite; a mark is made with
``g``; then the process gets the signal. The marks file holds the mark, the terminal has left
the alternate screen (``#{alternate_on}`` is 0), and the process exited with 128 + the signal.
A private tmux server (its own socket) is used and killed at the end.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
from pathlib import Path

import pytest
from safety_helpers import SAMPLE, xdg_env
from tmux_helpers import Tmux, wait_for


def start(tmp_path: Path) -> tuple[Tmux, Path, Path, Path]:
    """rouge-tui on a copy of the sample suite; its pid and exit status go to files."""
    program = shutil.which("rouge-tui")
    assert program, "rouge-tui is not installed (pip install -e .)"
    suite = tmp_path / "suite"
    shutil.copytree(SAMPLE, suite)
    home = tmp_path / "xdg"
    pid, status = tmp_path / "pid", tmp_path / "status"
    inner = f"echo $$ > {shlex.quote(str(pid))}; exec {shlex.quote(program)} --no-mouse "
    inner += shlex.quote(str(suite))
    # the shell stays after the app, so the pane (and its terminal state) can be inspected
    command = f"sh -c {shlex.quote(inner)}; echo $? > {shlex.quote(str(status))}; exec sh"
    env = xdg_env(home, TERM="xterm-256color")
    session = Tmux(f"sh -c {shlex.quote(command)}", env)
    return session, home / "xdg_data_home" / "rouge-tui" / "marks", pid, status


def review_and_mark(session: Tmux, marks: Path) -> str:
    """Wait for the review, mark the highlighted (most-moved) example fine; its id."""
    session.settled(lambda screen: "drift-down" in screen, "the overview")
    assert session.alternate_on() == "1"
    session.run("send-keys", "-t", "t:0", "g")
    wait_for(lambda: list(marks.glob("*.json")), "the marks file")
    data = json.loads(next(marks.glob("*.json")).read_text(encoding="utf-8"))["marks"]
    assert [entry["mark"] for entry in data.values()] == ["fine"]
    return next(iter(data))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_signal_during_review_keeps_marks_restores_terminal_and_exits(
    tmp_path: Path, signum: signal.Signals
) -> None:
    session, marks, pid, status = start(tmp_path)
    try:
        example = review_and_mark(session, marks)
        os.kill(int(pid.read_text()), signum)
        wait_for(status.exists, "the app to exit", timeout=15)
        wait_for(lambda: status.read_text().strip(), "the exit status")
        assert status.read_text().strip() == str(128 + signum)
        assert session.alternate_on() == "0"  # the shell's normal screen is back
        data = json.loads(next(marks.glob("*.json")).read_text(encoding="utf-8"))["marks"]
        assert data[example]["mark"] == "fine"
        assert not [p for p in marks.iterdir() if p.name.endswith(".tmp")]
    finally:
        session.close()


@pytest.mark.slow
def test_terminal_gone_the_app_does_not_linger(tmp_path: Path) -> None:
    """The pane is closed (the pty hangs up, as when SSH drops): the process ends."""
    session, marks, pid, _status = start(tmp_path)
    try:
        session.run("new-window", "-d", "-t", "t", "sleep 60")  # keep the server alive
        example = review_and_mark(session, marks)
        process = int(pid.read_text())
        session.run("kill-window", "-t", "t:0")

        def gone() -> bool:
            try:
                os.kill(process, 0)
            except ProcessLookupError:
                return True
            return False

        wait_for(gone, "the app to end after the hangup", timeout=15)
        data = json.loads(next(marks.glob("*.json")).read_text(encoding="utf-8"))["marks"]
        assert data[example]["mark"] == "fine"
    finally:
        session.close()
