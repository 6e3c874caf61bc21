"""The first analysis computed in a forked process while the app starts: the same analysis
as an in-process open, and any mismatch or failure falls back to the in-process open."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from test_app_helpers import INCIDENT, ranked_ids, settle

from rouge_tui.app import prefetch as prefetch_module
from rouge_tui.app.app import RougeApp
from rouge_tui.app.prefetch import Prefetch
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.session import open_options, open_review
from rouge_tui.report import render_json, to_json


def options(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**values)


def as_json(review) -> str:
    return render_json(to_json(review.analysis, 50, {}))


def start(path: Path, ns: argparse.Namespace) -> Prefetch:
    job = Prefetch.start(path, open_options(ns)[0], min_bytes=0)
    assert job is not None
    return job


def gone(pid: int, within: float = 5.0) -> bool:
    """The process has ended (and is reaped now, by whoever waited for it)."""
    deadline = time.monotonic() + within
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


@pytest.mark.parametrize("no_cache", [False, True])
def test_prefetched_open_equals_the_plain_open(no_cache: bool) -> None:
    ns = options(no_cache=no_cache)
    job = start(INCIDENT, ns)
    fetched = open_review(INCIDENT, ns, defer_texts=True, prefetch=job)
    assert not fetched.texts_ready  # drawn from the forked process's snapshot
    fetched.adopt_texts(fetched.load_texts()[0])
    plain = open_review(INCIDENT, options(no_cache=True))
    assert as_json(fetched) == as_json(plain)
    assert gone(job.pid)


def test_the_answer_arrives_before_the_process_has_tidied_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The forked process hands its snapshot over the moment it has one: freeing a big
    # suite's objects (here a long sleep stands in for it) happens after the app has it.
    import rouge_tui.snapshot as snapshot_module

    real_open = snapshot_module.open_analysis

    def slow_to_return(*args: object, **kwargs: object) -> object:
        opened = real_open(*args, **kwargs)
        time.sleep(30)
        return opened

    monkeypatch.setattr(snapshot_module, "open_analysis", slow_to_return)
    job = start(INCIDENT, options(no_cache=True))
    try:
        found = job.wait()
        assert found is not None
        assert not gone(job.pid, within=0.5)  # still "tidying up"
    finally:
        with contextlib.suppress(OSError):
            os.killpg(job.pid, signal.SIGKILL)  # cancel() would wait for its tidying up
        job.cancel()
    assert gone(job.pid)
    review = open_review(INCIDENT, options(no_cache=True))
    key, data = found
    assert prefetch_module.decode_snapshot(key, data).comparison.ids == review.comparison.ids


def test_other_settings_than_prefetched_are_computed_here() -> None:
    job = start(INCIDENT, options(no_cache=True, metric="rouge1"))
    review = open_review(INCIDENT, options(no_cache=True), defer_texts=True, prefetch=job)
    assert review.texts_ready  # keys differ: loaded and scored in-process
    assert review.settings.metric == "rougeL"
    assert as_json(review) == as_json(open_review(INCIDENT, options(no_cache=True)))
    assert gone(job.pid)  # it ends by itself once read (and is reaped here, not left a zombie)


def test_a_failed_prefetch_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object) -> None:
        os._exit(4)

    monkeypatch.setattr(prefetch_module, "_child", crash)
    job = start(INCIDENT, options(no_cache=True))
    review = open_review(INCIDENT, options(no_cache=True), defer_texts=True, prefetch=job)
    assert review.texts_ready  # nothing came: loaded and scored in-process
    assert job.wait() is None and gone(job.pid)


def test_small_suites_are_not_prefetched() -> None:
    assert Prefetch.start(INCIDENT, open_options(options())[0]) is None


async def test_the_app_opens_from_the_prefetch_and_quits_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    app = RougeApp([INCIDENT], options())
    job = app.prefetch
    assert job is not None
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert job.wait() is not None  # it sent its snapshot
        assert screen.review.comparison.ids[screen.table.current] == ranked_ids()[0]
        assert screen.review.texts_ready
        assert as_json(screen.review) == as_json(open_review(INCIDENT, options(no_cache=True)))
    assert gone(job.pid)


async def test_quitting_while_the_prefetch_runs_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(*args: object) -> None:
        time.sleep(30)
        os._exit(0)

    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_child", slow)
    suite = shutil.copytree(INCIDENT, tmp_path / "suite")
    app = RougeApp([suite], options())
    assert app.prefetch is not None
    pid = app.prefetch.pid
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
    assert gone(pid)


def test_the_caches_are_written_after_the_answer() -> None:
    """The forked process answers first, then writes the score cache and the snapshot: once
    it has ended (the app waits for it on exit) the next open finds both."""
    from rouge_tui.snapshot import SnapshotStore
    from rouge_tui.state import cache_dir

    job = start(INCIDENT, options())
    found = job.wait()
    assert found is not None
    job.cancel()  # waits for the writes
    assert gone(job.pid)
    assert SnapshotStore().get(found[0]) is not None
    assert any((cache_dir() / "scores").rglob("*")), "the score cache was written"
