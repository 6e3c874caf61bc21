"""End to end in a real terminal: the installed ``rouge-tui`` under tmux, driven by keys.

Start, enter (the most-moved diff), mark, back, export, quit; the screen text, the marks
file, the export and the exit status are checked. tmux is required (CI installs it): this
test fails rather than skips without it. It runs on its own tmux server socket, which it
kills at the end, so it never touches anyone's sessions.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from test_app_helpers import INCIDENT, ranked_ids
from tmux_helpers import Tmux, wait_for

WIDTH, HEIGHT = 100, 30


@pytest.mark.slow
def test_rouge_tui_in_tmux_start_enter_mark_export_quit(tmp_path: Path) -> None:
    tmux = shutil.which("tmux")
    program = shutil.which("rouge-tui")
    assert tmux, "tmux is required for the end-to-end test (CI installs it)"
    assert program, "rouge-tui is not installed (pip install -e .)"
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if not key.startswith("TMUX")}
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    env["TERM"] = "xterm-256color"
    status = tmp_path / "status"
    command = (
        f"{shlex.quote(program)} --no-mouse {shlex.quote(str(INCIDENT))}; "
        f"echo $? > {shlex.quote(str(status))}; sleep 60"
    )
    # the session's command gets the environment of the tmux server, which is ours
    session = Tmux(f"sh -c {shlex.quote(command)}", env, WIDTH, HEIGHT)
    data = home / "xdg_data_home" / "rouge-tui"
    try:
        start = session.settled(lambda screen: "drift-down" in screen, "the overview")
        top = ranked_ids()[0]
        assert "▼ drift-down" in start
        assert "Incident summaries" in start
        assert re.search(rf"▶ +1 {top} ", start), start
        assert "the ten most-moved above" in start
        assert "? help" in start and "q quit" in start

        session.keys("Enter")
        diff = session.settled(lambda screen: "LCS" in screen, "the diff")
        assert "row 1/" in diff and top in diff

        session.keys("g")
        wait_for(lambda: any((data / "marks").glob("*.json")), "the marks file")
        session.settled(lambda screen: "marked fine" in screen, "the mark in the title")
        marks = json.loads(next((data / "marks").glob("*.json")).read_text(encoding="utf-8"))
        assert marks["marks"][top]["mark"] == "fine"

        session.keys("Escape")
        table = session.settled(
            lambda screen: "the ten most-moved above" in screen, "the table again"
        )
        row = next(line for line in table.splitlines() if re.search(rf" 1 {top} ", line))
        assert row.rstrip().endswith("fine")

        session.keys("e")
        wait_for(lambda: any((data / "exports").glob("*.md")), "the export")
        export = next((data / "exports").glob("*.md"))
        session.settled(lambda screen: "review written to" in screen, "the export notice")
        text = export.read_text(encoding="utf-8")
        assert "drift-down" in text and "fine" in text and "LCS" in text

        session.keys("q")
        wait_for(status.exists, "the app to exit")
        assert status.read_text().strip() == "0"
    finally:
        session.close()
