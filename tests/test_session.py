"""session.Session: the review screen's state and the order of its steps, without a terminal.

Each case drives a session as the screen's messages would (a comparison shown, its texts
read, an ask answered or refused) on a suite written here; the expected figures are the
ones planted or SPEC's (the metric order, "rouge1 | rouge2 | rougeL | rougeLsum").
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from suite_helpers import make_suite

from rouge_tui.review import Request, Review, open_review
from rouge_tui.session import Session, Waiting

METRICS = ["rouge1", "rouge2", "rougeL", "rougeLsum"]  # SPEC's order, the m key's cycle


def shown(path: Path) -> Session:
    """A session showing the suite's newest pair, its texts not read yet."""
    session = Session.of(Request.of(path))
    session.show(open_review(session.request, marks=False, log=False).analysis)
    return session


def test_only_the_comparison_asked_for_last_is_shown(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    settings = session.analysis.settings
    first = session.ask(settings.switched(metric="rouge1"), None, "scoring rouge1")
    second = session.ask(settings.switched(metric="rouge2"), None, "scoring rouge2")
    assert (first.number, second.number) == (1, 2)
    assert session.answers(None)  # the opening's comparison is always shown
    assert not session.answers(1) and session.asked is second  # superseded
    assert session.refuse(1) is None and session.asked is second
    assert session.answers(2) and session.asked is None
    assert not session.answers(2)  # answered once


def test_a_refused_metric_is_stepped_past(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    assert session.analysis.settings.metric == "rougeL"  # SPEC's default
    asked = session.step("metric", METRICS)
    assert asked.settings.metric == "rougeLsum" and asked.step == ("metric", "rougeLsum")
    assert session.step("metric", METRICS).settings.metric == "rouge1"  # on from the one asked for
    waiting = [Waiting("diff", "the diff opens", after_asked=True)]
    session.waiting = list(waiting)
    assert session.refuse(session.asked.number) == waiting and session.waiting == []
    assert session.refused == ("metric", "rouge1") and session.asked is None
    assert session.step("metric", METRICS).settings.metric == "rouge2"  # past the refused one
    assert session.refused is None


def test_actions_wait_for_the_texts_and_then_go_in_order(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    assert not session.texts_in() and session.status_parts(2)["marks"] == ["reading texts"]
    mark, note = Waiting("mark", "the mark is set", ("a", "fine")), Waiting("note", "the note opens", ("b",))
    assert session.park(mark) == "reading the texts… the mark is set when they are in"
    session.park(note)
    made = session.take_texts(session.analysis, session.analysis.texts.result())
    assert made is session.review and session.texts_in()
    assert session.take_waiting() == [mark, note] and session.waiting == []
    # The same pair scored again keeps its review, which follows once the texts are in.
    again = session.compare(session.analysis.settings.switched(metric="rouge1"), None)[0]
    session.show(again)
    assert session.review is made and not session.texts_in()
    assert session.take_texts(again, session.texts) is None and session.review.analysis is again


def test_a_diff_waits_for_the_comparison_asked_for(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    session.take_texts(session.analysis, session.analysis.texts.result())
    diff = Waiting("diff", "the diff opens", after_asked=True)
    assert not session.must_wait_for_asked(diff)
    session.ask(session.analysis.settings.switched(metric="rouge1"), None, "scoring rouge1")
    assert session.must_wait_for_asked(diff)
    assert not session.must_wait_for_asked(Waiting("mark", "the mark is set"))
    assert session.park(diff) == "scoring rouge1… the diff opens when it is done"
    session.answers(session.asked.number)
    assert session.must_wait_for_asked(diff)  # an m that waits for the texts goes first


def test_texts_that_cannot_be_read_are_read_again_by_the_next_key(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    said = session.texts_unread("1-old.jsonl:2: gone", [Waiting("mark", "the mark is set"), Waiting("note", "the note opens")])
    assert said == ("could not read the texts: 1-old.jsonl:2: gone (not done: the mark is set; the note opens); "
                    "a key that needs them reads them again")
    assert session.status_parts(2)["marks"] == ["texts unreadable", "no texts"]
    again = session.read_again()
    assert again is not None and again.pair == ("1-old", "2-new") and again.what == "reading the texts again"
    assert session.texts_failed is None and session.read_again() is None


def test_the_filter_shows_its_own_rows_in_the_ranking(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    # By hand (rougeL, whitespace): a moves 0.8 -> 0.4 (LCS 2 of 2 and 3, then 1 of 2 and 3),
    # b 0.8 -> 0.0 (an empty output): b ranks first.
    assert session.view().tolist() == [0, 1] and session.analysis.figures.ids == ["b", "a"]
    assert session.set_filter("cat")
    assert session.take_matches("dog", np.asarray([0]), session.analysis, "text") is None  # another query's
    assert session.take_matches("cat", np.asarray([1]), session.analysis, "text") is False
    assert session.take_matches("cat", np.asarray([1]), session.analysis, "text") is True  # applied again
    assert session.view().tolist() == [1] and session.diff_query() == "cat"
    assert session.status_parts(1)["filter"][0] == "text 'cat'"
    assert not session.set_filter("  ") and session.matches is None and session.view().tolist() == [0, 1]


def test_a_pair_picked_in_the_history(tmp_path: Path) -> None:
    root = make_suite(tmp_path / "s")
    (root / "builds" / "0-first.jsonl").write_text('{"id": "a", "output": "the cat sat"}\n{"id": "b", "output": "a dog"}\n')
    session = shown(root)
    assert session.pick(("1-old", "2-new")) == "1-old → 2-new is the comparison shown"
    asked = session.pick(("0-first", "2-new"))
    assert asked.pair == ("0-first", "2-new") and asked.what == "comparing 0-first → 2-new"
    assert session.notice() is None
    analysis, said, texts = session.compare(asked.settings, asked.pair)
    assert said == "now 0-first → 2-new" and texts is None
    session.show(analysis)
    assert session.notice() == "not the newest pair (h, end ⏎: the newest)"


def test_another_sessions_marks_are_read_when_the_file_changes(tmp_path: Path) -> None:
    session = shown(make_suite(tmp_path / "s"))
    other = Review(session.analysis, session.analysis.texts.result())
    other.set_mark("b", "fine")  # the marks file exists before this session reads it
    session.take_texts(session.analysis, other.texts)
    path, seen = other.store.path, session.marks_seen
    assert seen == path.stat().st_mtime and session.poll_marks() == (False, False)
    other.set_mark("a", "regression")
    os.utime(path, (seen, seen))  # the file's time as last read: not read again
    assert session.poll_marks() == (False, False) and session.review.get("a") is None
    os.utime(path, (seen + 5, seen + 5))  # a later write, whatever the clock's grain
    assert session.poll_marks() == (True, False) and session.review.get("a").word == "regression"
    assert session.poll_marks() == (False, False)


def test_a_pair_in_a_message_is_told_apart_where_its_names_differ() -> None:
    """A review: "comparing 2026-11-20 openai:gpt-4o-mini… → 2026-11-20 openai:gpt-4o-mini……"
    (each name cut at its end, and an ellipsis after one). They are cut where they differ."""
    from rouge_tui.session import pair_text

    long = "2026-11-20 openai:gpt-4o-mini · summarize-incidents-prompt-v{}"
    first, second = pair_text((long.format(1), long.format(2))).split(" → ")
    assert first.endswith("v1") and second.endswith("v2") and len(first) <= 30
    assert pair_text(("1-old", "2-new")) == "1-old → 2-new"
