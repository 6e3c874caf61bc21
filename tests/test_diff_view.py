"""DiffView mounted in a tiny app: layout by width, modes, folding, hostile text shown literally."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult

from rouge_tui.app.widgets.diff_view import DiffView, TextPane, arithmetic_lines
from rouge_tui.diff import example_diff, output_alignment

REFERENCE = (
    "The outage began at 02:14 UTC when a configuration push removed the read replica "
    "from the connection pool."
)
BASELINE = "A bad config deploy at 02:14 UTC dropped the replica out of the pool."
CANDIDATE = (
    "The outage began at 02:14 UTC when a configuration push removed the read replica "
    "from the connection pool. The incident was caused by insufficient test coverage."
)
HOSTILE = "x [/] y [bold red]loud[/] \x1b]2;title\x07 \u202egnp.exe \x1b[31mred\x1b[0m end"


class DiffApp(App[None]):
    """The smallest host: one DiffView, mode toggled on `d` as the real screen does."""

    BINDINGS: ClassVar = [("d", "mode", "mode")]

    def compose(self) -> ComposeResult:
        yield DiffView(id="diff")

    def action_mode(self) -> None:
        self.query_one(DiffView).toggle_mode()


def rendered_strips(app: App[None]) -> list:
    """The lines the terminal would show for the current screen."""
    return app.screen._compositor.render_strips()


def rendered(app: App[None]) -> str:
    """The plain text of the whole rendered screen."""
    return "\n".join(strip.text for strip in rendered_strips(app))


def chapter_diff(baseline: str = BASELINE, candidate: str = CANDIDATE):
    return (
        example_diff("inc-0042", [REFERENCE], baseline, candidate, "rougeL", "whitespace"),
        output_alignment(baseline, candidate, "whitespace"),
    )


async def test_side_by_side_when_wide_and_stacked_when_narrow() -> None:
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(*chapter_diff())
        await pilot.pause()
        base = app.query_one("#diff-baseline", TextPane)
        cand = app.query_one("#diff-candidate", TextPane)
        assert not view.narrow
        assert base.region.y == cand.region.y and base.region.x < cand.region.x
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert view.narrow
        assert base.region.x == cand.region.x and base.region.y < cand.region.y
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not view.narrow and base.region.y == cand.region.y


async def test_against_the_reference_shows_arithmetic_and_highlights() -> None:
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        diff, rows = chapter_diff()
        view.show(diff, rows, "reference", baseline_name="2026-11-20_4be1c0")
        await pilot.pause()
        screen = rendered(app)
        assert diff.baseline.arithmetic() in screen
        assert diff.candidate.arithmetic() in screen
        assert "matched by: both  baseline only  candidate only  neither" in screen
        assert "baseline · 2026-11-20_4be1c0" in screen
        # the words that count are bold + underlined (not colour alone); the rest are not
        styles = {}
        for strip in rendered_strips(app):
            for segment in strip:
                for word in segment.text.split():
                    if segment.style is not None:
                        styles.setdefault(word, set()).add(
                            bool(segment.style.bold and segment.style.underline)
                        )
        assert styles["insufficient"] == {False}  # the invented ending: not on the LCS
        assert True in styles["configuration"]


async def test_mode_toggle_and_fold() -> None:
    long_same = " ".join(f"w{k}" for k in range(60))
    baseline = f"start {long_same} old ending"
    candidate = f"begin {long_same} new ending"
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(*chapter_diff(baseline, candidate))
        await pilot.pause()
        assert view.mode == "reference"
        assert app.query_one("#diff-against").display
        assert not app.query_one("#diff-outputs").display
        await pilot.press("d")
        await pilot.pause()
        assert view.mode == "outputs"
        assert not app.query_one("#diff-against").display
        screen = rendered(app)
        assert "… 54 unchanged words …" in screen
        start = next(line for line in screen.splitlines() if "start" in line)
        assert start.index("-") < start.index("start") < start.index("+") < start.index("begin")
        view.focus()
        await pilot.press("f")
        await pilot.pause()
        assert not view.folded
        screen = rendered(app)
        assert "unchanged words" not in screen
        assert "w30" in screen
        await pilot.press("d")
        await pilot.pause()
        assert view.mode == "reference"


async def test_outputs_mode_marks_removed_left_and_added_right() -> None:
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(*chapter_diff("keep this oldword here", "keep this newword here"), "outputs")
        await pilot.pause()
        lines = [line for line in rendered(app).splitlines() if "oldword" in line]
        assert len(lines) == 1
        line = lines[0]
        # one aligned row: "-" gutter and the removed word left, "+" and the added word right
        assert line.index("-") < line.index("oldword") < line.index("+") < line.index("newword")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        stacked = rendered(app)
        assert "- oldword" in stacked and "+ newword" in stacked


async def test_hostile_text_is_shown_literally_at_both_sizes() -> None:
    reference = REFERENCE + " " + HOSTILE
    diff = example_diff("id [b]\x1b[2J", [reference], BASELINE, CANDIDATE + " " + HOSTILE)
    rows = output_alignment(BASELINE, CANDIDATE + " " + HOSTILE, "whitespace")
    for size in ((80, 24), (120, 40)):
        app = DiffApp()
        async with app.run_test(size=size) as pilot:
            view = app.query_one(DiffView)
            view.show(diff, rows, baseline_name="[red]build[/]\x1b[1m")
            await pilot.pause()
            for mode in ("reference", "outputs"):
                view.mode = mode
                await pilot.pause()
                # everything of the view, scrolled or not: every pane's lines, and the screen
                panes = [pane.plain for pane in app.query(TextPane) if pane.display]
                titles = [str(pane.border_title) for pane in app.query(TextPane)]
                shown = "\n".join(panes + titles) + rendered(app)
                assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
                assert "[/]" in shown
                assert "\\x1b" in shown
                if mode == "reference":
                    assert "[bold red]loud[/]" in shown
                    assert "\\u202egnp.exe" in shown
                    assert "[red]build[/]\\x1b[1m" in shown


async def check_capped(huge: str) -> None:
    diff = example_diff("big", ["lorem ipsum"], "lorem", huge)
    rows = output_alignment("lorem", huge, "whitespace")
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(diff, rows)
        await pilot.pause()
        cand = app.query_one("#diff-candidate", TextPane)
        assert cand.region.height < 2_000  # capped, not a megabyte of wrapped text
        view.scroll_end(animate=False)
        await pilot.pause()
        assert "more characters not shown" in rendered(app)
        view.mode = "outputs"
        await pilot.pause()
        assert app.query_one("#diff-rows", TextPane).region.height < 2_000
        view.scroll_end(animate=False)
        await pilot.pause()
        assert "more" in "\n".join(rendered(app).splitlines()[-4:])  # the cut row's end in view
        words = " ".join(app.query_one("#diff-rows", TextPane).plain.split())
        assert "more characters" in words


async def test_a_megabyte_line_is_capped_and_says_so() -> None:
    await check_capped("lorem" + "x" * 1_000_000)


@pytest.mark.slow
async def test_a_megabyte_of_words_is_capped_and_says_so() -> None:
    # Most of the time here is the model (tokenising and aligning ~200,000 words).
    await check_capped(("lorem ipsum dolor sit amet " * 40_000)[:1_000_000])


async def test_mode_is_validated_and_empty_outputs_say_so() -> None:
    app = DiffApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(DiffView)
        assert "No example selected." in rendered(app)
        view.show(*chapter_diff("", ""), "outputs")
        await pilot.pause()
        assert "Both outputs are empty." in rendered(app)
        try:
            view.mode = "sideways"
        except ValueError as exc:
            assert "sideways" in str(exc)
        else:
            raise AssertionError("an unknown mode was accepted")
        assert view.mode == "outputs"


async def test_fold_key_only_acts_and_shows_in_the_outputs_mode() -> None:
    app = DiffApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(*chapter_diff())
        view.focus()
        await pilot.pause()
        assert "f" not in app.screen.active_bindings
        await pilot.press("f")
        assert view.folded  # nothing to fold against the reference
        view.mode = "outputs"
        await pilot.pause()
        assert app.screen.active_bindings["f"].binding.id == "diff.fold"
        await pilot.press("f")
        assert not view.folded


def test_arithmetic_breaks_only_between_terms() -> None:
    line = "LCS 27 · P 27/58 = 0.47 · R 27/65 = 0.42 · F 0.44"
    assert arithmetic_lines(line, 80) == [line]
    assert arithmetic_lines(line, 45) == ["LCS 27 · P 27/58 = 0.47 · R 27/65 = 0.42", "F 0.44"]
    assert arithmetic_lines(line, 10) == ["LCS 27", "P 27/58 = 0.47", "R 27/65 = 0.42", "F 0.44"]


async def test_arithmetic_line_is_not_split_inside_a_term_in_narrow_panes() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        diff, rows = chapter_diff()
        view.show(diff, rows)
        await pilot.pause()
        lines = app.query_one("#diff-baseline", TextPane).plain.splitlines()
        tail = [line for line in lines if line.startswith(("LCS", "F ", "R "))]
        assert " · ".join(tail) == diff.baseline.arithmetic()
