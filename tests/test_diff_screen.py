"""The diff screen computes an ordinary example's diff on the spot and a huge one in a worker;
either way the same diff lands, and a failure is told, not raised.

Expected words come from the sample suite's files read with ``json`` (test_app_helpers).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from test_app_helpers import INCIDENT, incident_pairs, press, ranked_ids, settle, share_score_cache

from rouge_tui.app import screens
from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.widgets.diff_view import DiffView, TextPane

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def shared_cache(
    isolated_state: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    return share_score_cache(tmp_path_factory, monkeypatch)


def app() -> RougeApp:
    return RougeApp(suites=[INCIDENT], options=argparse.Namespace())


def baseline_words(example_id: str) -> str:
    return " ".join(incident_pairs()[example_id][1].split()[:3])


@pytest.fixture
def in_worker(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ranked indices whose diff went to the worker."""
    indices: list[int] = []
    compute = DiffScreen.compute

    def spy(self: DiffScreen, index: int) -> object:
        indices.append(index)
        return compute(self, index)

    monkeypatch.setattr(DiffScreen, "compute", spy)
    return indices


def shown_text(screen: DiffScreen) -> str:
    pane = screen.query_one("#diff-baseline", TextPane)
    return " ".join(pane.plain.split())


async def test_an_ordinary_diff_is_there_when_the_screen_first_draws(
    in_worker: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    top = ranked_ids()
    on_mount = DiffScreen.on_mount
    at_mount: list[int | None] = []

    def spy(self: DiffScreen) -> None:
        on_mount(self)
        at_mount.append(self.shown)  # before the screen's first layout and frame

    monkeypatch.setattr(DiffScreen, "on_mount", spy)
    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        assert at_mount == [0]
        assert not screen.query_one(DiffView).loading
        assert screen.shown == screen.index == 0
        assert baseline_words(top[0]) in shown_text(screen)
        await pilot.press("n")
        assert screen.shown == 1
        assert baseline_words(top[1]) in shown_text(screen)
        assert in_worker == []


async def test_a_huge_diff_is_computed_in_a_worker_and_lands_the_same(
    in_worker: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    top = ranked_ids()
    monkeypatch.setattr(screens.diff, "INLINE_CHARS", 0)  # every example counts as huge
    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        assert screen.shown == screen.index == 0
        assert baseline_words(top[0]) in shown_text(screen)
        await press(pilot, "n")
        assert screen.shown == 1
        assert baseline_words(top[1]) in shown_text(screen)
        assert in_worker == [0, 1]


async def test_a_diff_that_cannot_be_built_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import rouge_tui.diff

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("planted fault")

    monkeypatch.setattr(rouge_tui.diff, "example_diff", broken)
    for inline in (10**9, 0):
        monkeypatch.setattr(screens.diff, "INLINE_CHARS", inline)
        async with app().run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "enter")
            screen = pilot.app.screen
            assert isinstance(screen, DiffScreen)
            assert screen.shown is None
            messages = [n.message for n in pilot.app._notifications]
            assert any("could not build the diff" in m and "planted fault" in m for m in messages)
            await pilot.pause(0.4)  # past the busy indicator's delay: a failure is not "busy"
            assert not screen.query_one(DiffView).loading


async def test_a_slow_diff_says_it_is_busy_until_it_lands(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import rouge_tui.diff

    real = rouge_tui.diff.example_diff
    release = threading.Event()

    def slow(*args: object, **kwargs: object) -> object:
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(rouge_tui.diff, "example_diff", slow)
    monkeypatch.setattr(screens.diff, "INLINE_CHARS", 0)
    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        await pilot.pause(0.5)
        assert screen.query_one(DiffView).loading  # past 0.3 s and still computing
        assert screen.shown is None
        release.set()
        await settle(pilot)
        assert screen.shown == 0
        assert not screen.query_one(DiffView).loading


async def test_the_outputs_are_aligned_only_when_their_mode_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rouge_tui.diff

    real = rouge_tui.diff.output_alignment
    aligned: list[tuple[str, str]] = []

    def spy(baseline: str, candidate: str, *args: object, **kwargs: object) -> object:
        aligned.append((baseline, candidate))
        return real(baseline, candidate, *args, **kwargs)

    monkeypatch.setattr(rouge_tui.diff, "output_alignment", spy)
    top = ranked_ids()
    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        assert aligned == []  # the reference mode does not show the alignment
        await press(pilot, "d")
        _, baseline, candidate = incident_pairs()[top[0]]
        assert aligned == [(baseline, candidate)]
        rows = " ".join(screen.query_one("#diff-rows", TextPane).plain.split())
        assert "- " in rows or "+ " in rows
        await press(pilot, "d", "d")
        assert len(aligned) == 1  # made once per example
        await press(pilot, "n")  # in the outputs mode, the next example is aligned at once
        assert len(aligned) == 2


async def test_outputs_that_cannot_be_aligned_are_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import rouge_tui.diff

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("planted alignment fault")

    monkeypatch.setattr(rouge_tui.diff, "output_alignment", broken)
    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "d")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        messages = [n.message for n in pilot.app._notifications]
        assert any("could not align the outputs" in m and "planted" in m for m in messages)
        await press(pilot, "d", "n")  # still running, keys still work
        assert screen.shown == 1


def laid_out(screen: DiffScreen) -> bool:
    """Every pane the mode shows is as high as its lines at its width."""
    view = screen.query_one(DiffView)
    names = {
        "reference": ("diff-baseline", "diff-candidate", "diff-reference"),
        "outputs": ("diff-rows",),
    }[view.mode]
    for name in names:
        pane = screen.query_one(f"#{name}", TextPane)
        width, height = pane.size
        if height != len(pane.lines(width)):
            return False
    return True


async def test_a_diff_is_laid_out_in_the_first_frame_that_shows_it() -> None:
    # The panes ask for a layout by messages that reach the screen a frame later; a frame
    # painted before that would show the new example at the last one's pane heights.
    rouge = app()
    async with rouge.run_test(size=SIZE) as pilot:
        await settle(pilot)
        frames: list[tuple[int | None, str, bool]] = []
        display = rouge._display

        def hooked(screen: object, renderable: object) -> None:
            display(screen, renderable)
            if renderable is not None and isinstance(screen, DiffScreen):
                frames.append((screen.shown, screen.mode, laid_out(screen)))

        rouge._display = hooked  # type: ignore[method-assign]
        heights: set[int] = set()
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        for step, key in enumerate(["n", "n", "d", "escape", "down", "enter", "n"]):
            heights.add(len(screen.query_one("#diff-baseline", TextPane).lines(50)))
            frames.clear()
            await press(pilot, key)
            if key in ("escape", "down"):  # the table's keys: no diff drawn
                continue
            assert pilot.app.screen is screen  # the kept screen, opened again
            shown = [laid for shown, mode, laid in frames if shown == screen.shown]
            assert shown, f"no frame after {key!r} (step {step})"
            assert shown[0], f"the first frame after {key!r} (step {step}) was not laid out"
        assert len(heights) > 2  # the examples stepped through differ in height


async def test_the_footer_keeps_its_keys_while_they_stay_the_same() -> None:
    from textual.widgets._footer import FooterKey

    from rouge_tui.app.widgets.footer import KeysFooter

    async with app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        footer = screen.query_one(KeysFooter)

        def keys() -> list[FooterKey]:
            return list(footer.query(FooterKey))

        shown = keys()
        assert {"back", "mode", "next"} <= {key.description for key in shown}
        # Back to the table and into the kept screen again, a step: the same key widgets.
        await press(pilot, "escape", "enter", "n")
        assert pilot.app.screen is screen
        assert keys() == shown
        # `f` folds only in the outputs mode: its key comes and goes with the mode.
        assert "fold" not in {key.description for key in shown}
        await press(pilot, "d")
        assert "fold" in {key.description for key in keys()}
        await press(pilot, "d")
        assert "fold" not in {key.description for key in keys()}
