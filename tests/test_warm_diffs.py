"""Diff models made once per review and ahead of time: the row the cursor rests on and the
next step of a walk are ready before they are opened, and a made model is the one a fresh
`example_diff` gives for the settings and texts on screen."""

from __future__ import annotations

import argparse
import asyncio

import pytest
from test_app_helpers import INCIDENT, ranked_ids, settle

from rouge_tui.app import session
from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.session import open_review
from rouge_tui.diff import example_diff


def fresh(review, example_id: str):
    s = review.settings
    base, cand = review.outputs(example_id)
    return example_diff(
        example_id, tuple(review.references(example_id)), base, cand, s.metric, s.tokenizer, s.stem
    )


def test_a_made_model_is_kept_and_follows_the_settings() -> None:
    review = open_review(INCIDENT, argparse.Namespace(no_cache=True))
    first = ranked_ids()[0]
    model = review.diff_model(first)
    assert model == fresh(review, first)
    assert review.diff_model(first) is model  # made once
    review.adopt(review.rescore(review.settings_for(metric="rouge1")))
    other = review.diff_model(first)
    assert other.metric == "rouge1" and other == fresh(review, first)
    review.adopt_texts(review.analysis)  # texts replaced: nothing made from the old ones
    assert review.diff_model(first) is not other


def test_only_the_newest_models_are_kept() -> None:
    review = open_review(INCIDENT, argparse.Namespace(no_cache=True))
    ids = ranked_ids()[: session.DIFFS_KEPT + 3]
    made = [review.diff_model(i) for i in ids]
    assert review.diff_model(ids[-1]) is made[-1]
    assert review.diff_model(ids[0]) is not made[0]  # the oldest was let go


async def test_the_rested_row_and_the_next_step_are_made_before_they_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = session.Review.diff_model

    def counting(self, example_id: str):
        calls.append(example_id)
        return real(self, example_id)

    monkeypatch.setattr(session.Review, "diff_model", counting)
    app = RougeApp([INCIDENT], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await asyncio.sleep(0.5)  # the cursor rests on the most-moved row
        await settle(pilot)
        review = screen.review
        key = lambda i: (i, review.baseline.name, review.candidate.name, "rougeL", "whitespace", False)
        ranked = ranked_ids()
        assert key(ranked[0]) in review._diffs  # made while the table was on screen
        await pilot.press("w")  # the walk: the most-moved, then the next is made ahead
        await settle(pilot)
        await asyncio.sleep(0.5)  # read a moment
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert key(ranked[1]) in review._diffs
        made = review._diffs[key(ranked[1])]
        await pilot.press("n")
        await settle(pilot)
        assert app.screen.example_id == ranked[1]
        assert review._diffs[key(ranked[1])] is made  # stepping drew what was made
        assert calls.count(ranked[0]) >= 1 and set(calls) >= {ranked[0], ranked[1]}
