"""The frozen reference set must stay frozen: a moved reference set is said, in JSON and text."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from rouge_tui import state

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_suites" / "incident-summaries"


def report(suite: Path, fmt: str = "json") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", fmt],
        capture_output=True, text=True, timeout=120,
    )


def test_reference_change_is_reported_and_persists(tmp_path: Path):
    suite = tmp_path / "suite"
    shutil.copytree(SAMPLE, suite)
    first = report(suite)
    assert json.loads(first.stdout)["references_changed"] is None
    assert "references changed" not in first.stderr

    refs = suite / "references.jsonl"
    lines = refs.read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    row["reference"] += " One more sentence."
    lines[0] = json.dumps(row) + "\n"
    refs.write_text("".join(lines))

    second = report(suite)
    change = json.loads(second.stdout)["references_changed"]
    assert change is not None and change["previous"] != change["current"]
    assert "references changed" in second.stderr
    # the same builds were scored against the old references: still said on the next run
    third = report(suite, "text")
    assert "WARNING: the references changed" in third.stdout
    markdown = report(suite, "markdown")
    assert "the references changed" in markdown.stdout


def test_history_records_each_distinct_review_once():
    history = state.History("s")
    entry = {"fingerprint": "a", "baseline": "b1", "candidate": "b2", "signature": "x"}
    history.record(entry)
    history.record(entry)
    assert len(history.entries()) == 1
    assert history.reference_change("a", ("b1", "b2")) is None
    change = history.reference_change("z", ("b3", "b4"))
    assert change is not None and change.previous == "a"  # newest review used other references


def test_corrupt_history_is_set_aside():
    history = state.History("s")
    history.path.parent.mkdir(parents=True, exist_ok=True)
    history.path.write_text("[1, 2")
    assert history.entries() == []
    assert history.warning and "kept it as" in history.warning
    assert any(".corrupt-" in p.name for p in history.path.parent.iterdir())


def test_unwritable_history_only_warns(tmp_path: Path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setattr(state, "data_dir", lambda: blocker)
    history = state.History("s")
    history.record({"fingerprint": "a"})
    assert history.warning and "could not record history" in history.warning
