"""Helpers shared by the app's tests: waiting for workers, reading the sample suites with the
json module (not the loader under test), and each example's F from the independent oracle
in oracles.py (rouge-score with the chapter's ``lower().split()`` tokenizer plugged in)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from oracles import rouge_score
from textual import events
from textual.pilot import Pilot

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_suites"
INCIDENT = SAMPLES / "incident-summaries"
SUPPORT = SAMPLES / "support-answers"


async def settle(pilot: Pilot, rounds: int = 4) -> None:
    """Let workers finish and the messages they posted be handled; again while a handler
    started another worker (at most ``rounds`` times)."""
    await pilot.pause()
    for thread in getattr(pilot.app, "exports", ()):  # a review being written (a plain thread)
        thread.join(30)
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in pilot.app.workers):
            return


async def press(pilot: Pilot, *keys: str) -> None:
    """Press keys one by one; after each, let any worker it started finish and report."""
    for key in keys:
        await pilot.press(key)
        if any(worker.is_running for worker in pilot.app.workers):
            await settle(pilot)


CHARACTERS = {"slash": "/", "question_mark": "?", "enter": "\r", "space": " ", "escape": "\x1b"}


async def burst(pilot: Pilot, *keys: str) -> None:
    """Keys as one burst, the way a fast typist or ``tmux send-keys`` delivers them: all
    queued before the app handles the first (``pilot.press`` waits after each key)."""
    for key in keys:
        pilot.app.post_message(events.Key(key, CHARACTERS.get(key, key if len(key) == 1 else None)))
    await settle(pilot)


async def type_text(pilot: Pilot, text: str) -> None:
    """Type into the focused Input: the first characters as keys (so the keys do reach it),
    the rest set at once (each pilot key press costs tens of milliseconds)."""
    await pilot.press(*text[:2])
    widget = pilot.app.focused
    if hasattr(widget, "insert_text_at_cursor"):
        widget.insert_text_at_cursor(text[2:])  # an Input
    else:
        widget.insert(text[2:])  # a TextArea
    await settle(pilot)


def read_jsonl(path: Path) -> list[dict]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def oracle_f(
    reference: str, output: str, metric: str = "rougeL", tokenizer: str = "whitespace"
) -> float:
    return _scorer(metric, tokenizer).score(reference, output)[metric].fmeasure


@cache
def _scorer(metric: str, tokenizer: str):
    return rouge_score(tokenizer, metrics=[metric])


@cache
def incident_pairs() -> dict[str, tuple[str, str, str]]:
    """id -> (reference, baseline output, candidate output) for every paired id of the
    incident suite, read straight from its files."""
    refs = {r["id"]: r["reference"] for r in read_jsonl(INCIDENT / "references.jsonl")}
    builds = sorted((INCIDENT / "builds").glob("*.jsonl"))
    base = {r["id"]: r["output"] for r in read_jsonl(builds[-2])}  # the default pair: the last two
    cand = {r["id"]: r["output"] for r in read_jsonl(builds[-1])}
    return {
        i: (refs[i], base[i], cand[i]) for i in base if i in cand and i in refs and refs[i].strip()
    }


@cache
def incident_deltas() -> dict[str, float]:
    """Per-example F(candidate) - F(baseline) under rougeL / whitespace, from the oracle."""
    return {i: oracle_f(ref, c) - oracle_f(ref, b) for i, (ref, b, c) in incident_pairs().items()}


def ranked_ids() -> list[str]:
    deltas = incident_deltas()
    return sorted(deltas, key=lambda i: (-abs(deltas[i]), i))


def table_lines(table) -> list[str]:
    """The text of every line the movers table shows now (header first)."""
    return [table.render_line(y).text for y in range(table.size.height)]


def screen_text(app) -> str:
    """Everything on screen now, as the terminal would get it (without styles)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def diff_lines(view) -> list[str]:
    """Every line the diff view holds, as text."""
    return [strip.text for strip in view.strips]



def two_suites(folder: Path) -> Path:
    """``folder`` holding copies of the two samples, incident/ and support/: a folder of
    suites, which the app lists."""
    import shutil

    shutil.copytree(INCIDENT, folder / "incident")
    shutil.copytree(SUPPORT, folder / "support")
    return folder


def app_for(suite: Path = INCIDENT, **options: object) -> RougeApp:
    return RougeApp([suite], argparse.Namespace(**options))


async def filter_by(pilot, query: str) -> None:
    """Type a filter into the review table and wait for its rows."""
    await press(pilot, "slash")
    await type_text(pilot, query)
    await press(pilot, "enter")
    await settle(pilot)


def review_screen(app: RougeApp) -> ReviewScreen:
    return next(s for s in app.screen_stack if isinstance(s, ReviewScreen))


def current_id(app: RougeApp) -> str:
    screen = review_screen(app)
    return screen.analysis.figures.ids[screen.table.current]


def lines_of(app, selector: str) -> str:
    """The lines on screen of the widget ``selector`` picks, one after the other."""
    region = app.screen.query_one(selector).region
    return "\n".join(screen_text(app).splitlines()[region.y : region.bottom])


def footer_text(app) -> str:
    """The footer's lines on screen."""
    return lines_of(app, "KeyBar")


# The chapter's pair (reference/rouge-chapter.txt): Summary A, two sentences, both a
# paraphrase of the reference (no counterpart by overlap); Summary B, the reference's first
# two sentences and most of its third, copied, then a closing sentence nobody wrote.
CLOSING = "The incident was caused by insufficient test coverage in the deployment pipeline."


def slow_switch(monkeypatch, metric: str = "rougeLsum", seconds: float = 1.0) -> None:
    """A switch to ``metric`` takes ``seconds`` more (as on a big suite): keys pressed right
    after `m` meet it under way."""
    import time

    from rouge_tui import session

    real = session.analyse

    def slow(suite, settings, *args, **options):
        if settings.metric == metric:
            time.sleep(seconds)
        return real(suite, settings, *args, **options)

    monkeypatch.setattr(session, "analyse", slow)


async def right_after_m(pilot, key: str, done: Callable[[], object]) -> None:
    """``m``, then ``key`` while the switch (made slow: `slow_switch`) is under way; back once
    ``done`` holds (press would wait for the switch) and the app has settled."""
    await settle(pilot)
    assert review_screen(pilot.app).analysis.settings.metric == "rougeL"
    await pilot.press("m", key)
    for _ in range(60):
        await pilot.pause(0.1)
        if done():
            break
    await settle(pilot)


async def open_first_diff(pilot, *keys: str) -> DiffView:
    """The diff of the table's first row, once the suite is open (then ``keys`` pressed)."""
    await settle(pilot)
    await press(pilot, "enter")
    await settle(pilot)
    view = pilot.app.screen.query_one(DiffView)
    if keys:
        await press(pilot, *keys)
    return view


async def open_chapter_pair(pilot) -> DiffView:
    await settle(pilot)
    await press(pilot, *["down"] * ranked_ids().index("inc-0042"), "enter")
    assert pilot.app.screen.example_id == "inc-0042"
    return pilot.app.screen.query_one(DiffView)


def carried_mark_suite(tmp_path: Path) -> Path:
    """Builds 1-base, 2-cand and the same two again as 3-base, 4-cand; t1 marked regression
    with a note on (1-base, 2-cand), so it shows carried on the default pair (3-base, 4-cand)."""
    from test_review import BASELINE, CANDIDATE, write_suite
    from test_review import review as pair_review

    suite = write_suite(tmp_path / "s", **{"1-base": BASELINE, "2-cand": CANDIDATE, "3-base": BASELINE, "4-cand": CANDIDATE})
    pair_review(suite, "1-base", "2-cand").set_mark("t1", "regression", "cut at 02:14")
    return suite


def slow_open(monkeypatch, seconds: float = 0.5) -> None:
    """The review's open made ``seconds`` slower, so that keys come before the table shows."""
    import time

    from rouge_tui import review

    real = review.open_review

    def slow(*args, **options):
        time.sleep(seconds)
        return real(*args, **options)

    monkeypatch.setattr(review, "open_review", slow)
    monkeypatch.setattr("rouge_tui.app.screens.review.open_review", slow)


async def typed_before_the_table(pilot, *keys: str, diff: bool = True) -> None:
    """``keys`` pressed while the open (made slow: `slow_open`) is under way, before the
    table shows; back once the app has settled and, with ``diff``, a diff opened over it."""
    await pilot.pause()
    assert review_screen(pilot.app).analysis is None
    await pilot.press(*keys)
    await settle(pilot)
    if diff:
        await diff_opened(pilot)


async def diff_opened(pilot, tries: int = 50) -> None:
    """Wait, a tenth of a second at a time, for a diff to open over the table."""
    from rouge_tui.app.screens.diff import DiffScreen

    for _ in range(tries):
        if isinstance(pilot.app.screen, DiffScreen):
            return
        await pilot.pause(0.1)
