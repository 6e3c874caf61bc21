"""Two sessions, one suite: two engineers review the same suite and build pair at once.

No mark is lost, the last writer of an example wins and is told, and the app shows the
notice. Also: the app says, like ``report``, when the frozen references moved.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
from pathlib import Path

import pytest
from safety_helpers import small_suite
from test_app_helpers import settle

from rouge_tui import state
from rouge_tui.suite import load_suite

IDS = [f"ex-{i:03d}" for i in range(160)]
FIRST = IDS[:100]  # session one marks these "fine"
SECOND = IDS[60:]  # session two marks these "regression": 40 overlap


def _hammer(env: dict[str, str], ids: list[str], mark: str, go, done, out) -> None:
    """One reviewing session: load, wait for the other, mark every id in ``ids``; then, when
    both have finished, save once more (its next save), collecting every notice."""
    os.environ.update(env)
    store = state.MarkStore("shared", "fp", "base", "cand")
    store.load()
    go.wait(30)
    notices = []
    for example_id in ids:
        notice = store.set(example_id, mark, f"{mark} by pid {os.getpid()}", "h")
        if notice:
            notices.append(notice)
    out.put(None)
    done.wait(30)
    notice = store.set(f"last-{mark}", mark, mark, "h")
    out.put((mark, notices + ([notice] if notice else [])))


MENTION = re.compile(r"'(ex-\d{3})'")


def told_count(notices: list[str]) -> int:
    """How many examples the notices name (the message shows three, then "and N more")."""
    total = 0
    for notice in notices:
        total += len(MENTION.findall(notice))
        more = re.search(r"and (\d+) more", notice)
        total += int(more.group(1)) if more else 0
    return total


@pytest.mark.slow
def test_two_processes_lose_no_mark_and_overlaps_are_told(isolated_state: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith("XDG_")}
    ctx = multiprocessing.get_context("spawn")  # a clean interpreter, as a second session is
    go, done, out = ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_hammer, args=(env, FIRST, "fine", go, done, out)),
        ctx.Process(target=_hammer, args=(env, SECOND[::-1], "regression", go, done, out)),
    ]
    for proc in procs:
        proc.start()
    go.set()
    assert out.get(timeout=60) is None and out.get(timeout=60) is None
    done.set()
    notices = dict([out.get(timeout=60), out.get(timeout=60)])
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0

    marks = state.MarkStore("shared", "fp", "base", "cand").load()
    assert set(marks) == set(IDS) | {"last-fine", "last-regression"}  # nothing lost
    overlap = set(FIRST) & set(SECOND)
    for example_id in IDS:
        if example_id not in overlap:
            assert marks[example_id].mark == ("fine" if example_id in FIRST else "regression")
        # a mark and its note always come from the same writer
        assert marks[example_id].note.startswith(marks[example_id].mark)
    for mark, said in notices.items():
        # told only ever about examples both sessions marked
        assert {n for notice in said for n in MENTION.findall(notice)} <= overlap
        # and about every one of its marks the other session replaced
        lost = [i for i in overlap if marks[i].mark != mark]
        assert told_count(said) >= len(lost), (mark, len(lost), said)
    assert any(notices.values())


def test_last_writer_wins_and_each_is_told_at_its_next_save_of_it() -> None:
    one = state.MarkStore("shared", "fp", "base", "cand")
    two = state.MarkStore("shared", "fp", "base", "cand")
    one.load()
    two.load()
    assert one.set("x", "fine", "one thinks fine", "h") is None
    told = two.set("x", "regression", "two disagrees", "h")
    assert told == "another session had marked 'x' as fine; replaced"
    assert state.MarkStore("shared", "fp", "base", "cand").load()["x"].note == "two disagrees"
    told = one.set("x", "unsure", None, "h")  # one comes back to x: told of two's mark
    assert told == "another session had marked 'x' as regression; replaced"
    # a mark change alone keeps the other's note: the note is not silently dropped
    assert state.MarkStore("shared", "fp", "base", "cand").load()["x"].note == "two disagrees"


def _app(suite: Path):
    from rouge_tui.app.app import RougeApp

    return RougeApp(suites=[suite], options=argparse.Namespace())


async def test_app_shows_the_other_sessions_notice(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite")
    loaded = load_suite(suite)
    app = _app(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        example = screen.current_id()
        # meanwhile, a colleague's session marks the same example
        other = state.MarkStore(loaded.name, loaded.fingerprint, "a", "b")
        other.load()
        other.set(example, "fine", "colleague", "h")
        await pilot.press("b")
        await pilot.pause()
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
    assert f"another session had marked {example!r} as fine; replaced" in warnings
    on_disk = json.loads(other.path.read_text(encoding="utf-8"))["marks"][example]
    assert on_disk["mark"] == "regression"


async def test_app_overview_says_the_references_changed(tmp_path: Path) -> None:
    from rouge_tui.app.widgets.overview import Overview

    suite = small_suite(tmp_path / "suite", name="frozen")
    app = _app(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen.query_one(Overview).render_line(0).text
    assert "refs changed" not in first
    # someone edits the frozen references, then opens the same builds again
    refs = suite / "references.jsonl"
    refs.write_text(refs.read_text(encoding="utf-8").replace("mat", "rug"), encoding="utf-8")
    app = _app(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        title = app.screen.query_one(Overview).render_line(0).text
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
    assert "refs changed since" in title  # visible at 80 columns
    assert any(w.startswith("references changed since") for w in warnings)
    history = state.History("frozen").entries()
    assert len({entry["fingerprint"] for entry in history}) == 2  # both reviews recorded
