"""The diff view (rouge_tui/app/widgets/diffview.py): the panes, their markers, folds and the
steps between changes, driven by keys through Textual's pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import (
    CLOSING,
    app_for,
    diff_lines,
    filter_by,
    open_chapter_pair,
    open_first_diff,
    press,
    screen_text,
    settle,
    type_text,
)
from oracles import CHAPTER_A, CHAPTER_B, CHAPTER_REFERENCE
from suite_helpers import jsonl, make_suite, one_example

from rouge_tui.analysis.settings import Settings
from rouge_tui.app.widgets.diffview import DiffModel, DiffView
from rouge_tui.diff import example_diff

pytestmark = pytest.mark.slow


async def test_every_changed_run_has_its_marker_on_every_line_it_spans() -> None:
    """Issue 11, 2: a changed run that wraps onto the next line is still marked there."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "d")
        view = app.screen.query_one(DiffView)
        lines = diff_lines(view)
        body = [line for line in lines[1:] if line.strip()]
        inside = None  # the kind of run a line starts inside of, if any
        for line in body:
            if inside:
                assert line[:1] in ("-", "+", "±"), line
            text = line[2:]
            for opening, closing, kind in (("[-", "-]", "removed"), ("{+", "+}", "added")):
                if text.rfind(opening) > text.rfind(closing):
                    inside = kind
                elif closing in text and inside == kind:
                    inside = None
        assert any("[-" in line for line in body) and any("{+" in line for line in body)


async def test_brackets_step_through_the_changes_and_f_folds() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await filter_by(pilot, "inc-0165")  # seven changed runs; the top one is a rewrite
        await press(pilot, "enter", "d")
        view = app.screen.query_one(DiffView)
        assert len(view.changes) >= 3
        await press(pilot, "right_square_bracket")
        first = view.current
        await press(pilot, "right_square_bracket")
        assert view.current is not None and view.current > first
        await press(pilot, "left_square_bracket")
        assert view.current == first
        shown = view.render_line(first - round(view.scroll_y)).text
        drawn = view.draw(first).text  # the row as drawn without the cursor
        assert drawn[0] in "-+±"  # a change starts on it, so its gutter says which
        assert shown.startswith("▶" + drawn[0]) and shown[2:] == drawn[2 : len(shown)]  # the mark kept


async def test_tab_reaches_the_reference_pane_below_the_fold() -> None:
    app = app_for()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        view = app.screen.query_one(DiffView)
        assert len(view.panes) == 3 and view.render_line(0).text.startswith("[?]")  # the legend
        assert not any(line.startswith(" reference") for line in screen_text(app).splitlines())
        await press(pilot, "tab", "tab")  # pointed at by a symbol, not by colour alone
        lines = screen_text(app).splitlines()
        assert any(line.startswith("▶reference") for line in lines), lines
        assert not any(line.startswith(("▶baseline", "▶candidate", " reference")) for line in lines)
        await press(pilot, "tab")  # past the last pane: back to the top
        assert round(view.scroll_y) == view.panes[0] and view.current == view.panes[0]
        assert view.render_line(view.panes[0] - round(view.scroll_y)).text.startswith("▶")


async def test_brackets_step_onto_the_flag_of_bs_invented_closing_sentence() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_chapter_pair(pilot)
        lines = diff_lines(view)
        baseline_pane, candidate_pane, reference_pane = view.panes
        stops: list[int] = []
        for _ in range(10):
            await press(pilot, "right_square_bracket")
            assert view.current is not None, "] went nowhere"
            if stops and view.current == stops[-1]:
                break
            stops.append(view.current)
        # A's two sentences, then B's closing one: three [?], nothing else to step to.
        assert len(stops) == 3, [lines[s] for s in stops]
        assert all(baseline_pane < s < candidate_pane for s in stops[:2])
        assert all(lines[s].count("[?]") == 1 for s in stops)
        assert candidate_pane < stops[2] < reference_pane
        assert "[?] " + CLOSING[:20] in lines[stops[2]]
        assert view.render_line(stops[2] - round(view.scroll_y)).text.startswith("▶")
        assert any("no more changes that way" in n.message for n in app._notifications)
        await press(pilot, *["right_square_bracket"] * 6)  # said once while it shows, not six times
        assert sum("no more changes that way" in n.message for n in app._notifications) == 1
        await press(pilot, "a", "b", "a")  # a message said again after another is said again
        said = [n.message for n in app._notifications if n.message.endswith((": fine", ": regression"))]
        assert [m.rsplit(": ", 1)[1] for m in said] == ["fine", "regression", "fine"]


async def test_an_empty_output_says_so_in_its_pane(tmp_path: Path) -> None:
    """A blank pane over 'P 0/0' looked like a drawing fault."""
    suite = make_suite(
        tmp_path / "s", jsonl({"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": "a dog ran"}),
        {"1-old.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "a dog ran"}),
         "2-new.jsonl": jsonl({"id": "a", "output": ""}, {"id": "b", "output": " \t "})},
    )  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = {}
        for _ in range(2):
            await press(pilot, "enter")
            await settle(pilot)
            seen[app.screen.example_id] = "\n".join(diff_lines(app.screen.view))
            await press(pilot, "escape", "down")
        assert "(empty output)" in seen["a"] and "(only whitespace)" not in seen["a"]
        assert "(only whitespace)" in seen["b"]
        assert "(empty output)" not in seen["a"].split("reference")[0].split("candidate")[0]  # not the baseline's


@pytest.mark.parametrize("typed", ['"root cause"', "root cause"])
async def test_a_text_filter_quoted_or_not_is_shown_reversed_in_the_diff(typed: str) -> None:
    """README: matches are shown reversed in the diff; the quotes that make a query text
    are not part of what is looked for (a quoted filter showed nothing)."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, typed)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        view = app.screen.query_one(DiffView)
        assert view.model.query == "root cause"
        candidate = view.model.outputs[1]
        assert "root cause" in candidate.casefold()


async def test_side_by_side_each_column_has_its_title_and_arithmetic_over_it() -> None:
    """At 120 columns both pane titles sat together at the left and both LCS lines stacked
    under the left column, so a reader could not tell which column was which."""
    app = app_for()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "inc-0042")
        await press(pilot, "enter", "enter")
        await settle(pilot)
        lines = screen_text(app).splitlines()
    title = next(line for line in lines if " baseline · " in line)
    left, right = title.split("│")
    assert "baseline ·" in left and "candidate ·" in right
    sums = next(line for line in lines if line.startswith("LCS 16"))
    left, right = sums.split("│")
    assert "F 0.31" in left and "LCS 46" in right and "F 0.81" in right


def chapter_model() -> DiffModel:
    diff = example_diff("inc-0042", [CHAPTER_REFERENCE], CHAPTER_A, CHAPTER_B, Settings())
    return DiffModel(diff, (CHAPTER_A, CHAPTER_B), ("a-baseline", "b-candidate"))


def test_the_layout_in_use_is_kept_while_a_resize_tries_other_widths() -> None:
    """Four layouts are kept: the one shown again stays, the one least recently shown goes
    (the hand-made cache dropped the oldest made, the one on screen)."""
    model = chapter_model()
    shown = model.layout("reference", True, 60)
    assert model.layout("reference", True, 60) is shown  # made once
    others = {width: model.layout("reference", True, width) for width in (70, 80, 90)}
    assert model.layout("reference", True, 60) is shown  # shown again: now the most recent
    model.layout("reference", True, 100)  # a fifth: the least recently shown (70) goes
    assert model.layout("reference", True, 60) is shown
    assert model.layout("reference", True, 80) is others[80]
    assert model.layout("reference", True, 70) is not others[70]
    assert shown.rows  # a real layout



@pytest.mark.parametrize("removed", ["It recovered in 30 minutes.", "It recovered in 30 minutes — café."])
@pytest.mark.parametrize("width", range(20, 60))
def test_a_sentences_flag_is_never_left_at_the_end_of_a_line(removed: str, width: int) -> None:
    """A newcomer read the candidate's [?] as the removed baseline sentence's: the line broke
    between the flag and the sentence it opens, leaving `- [-...-] [?]` on one line and the
    sentence on the next. The flag now wraps with the first word of its sentence, ASCII or
    not (each width from 20 to 59 cells puts the break elsewhere)."""
    from rouge_tui.app.widgets.wrap import lay_out
    from rouge_tui.diff import UNSUPPORTED_TAG

    found = [("Same words here. ", "same"), (removed, "removed"), (" ", "same"), (UNSUPPORTED_TAG, "flag"),
             ("The root cause was a cosmic ray.", "added")]
    lines = ["".join(text for text, _ in line) for line in lay_out(found, width)]
    assert "".join(lines).replace(" ", "") == "".join(text for text, _ in found).replace(" ", "")  # nothing lost
    for line in lines:
        assert not line.rstrip().endswith("[?]"), lines
        assert len(line) <= width, lines


@pytest.mark.parametrize("text", ["ab [?] abcdefghe", "ab [?] abcdefghé", "漢 [?] abcdefghé"])
def test_a_word_after_a_flag_is_not_cut_when_it_needs_a_line_of_its_own(text: str) -> None:
    """A review: where the flag and the first word of its sentence do not fit on one line,
    the line breaks after the flag rather than inside the word; the path for text that is
    not ASCII cut the word ("[?] abcdef" / "ghé") where the ASCII one kept it whole."""
    from rouge_tui.app.widgets.wrap import breaks

    word = text.rsplit(" ", 1)[1]
    cuts = breaks(text, 10)
    lines = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert any(line.strip() == word for line in lines), lines


async def test_a_changed_run_of_several_lines_is_one_change_for_the_brackets(tmp_path: Path) -> None:
    """A review: with markers on each line of a changed run, `]` stopped on each of its lines
    and "change k of n" counted lines. Only the run's first line is where a change begins."""
    grown = "the pool timed out at noon\nretries piled up\nthe queue grew\nnobody was paged"  # (each line
    suite = one_example(tmp_path / "s", grown, "the pool timed out at noon", grown)  # in the reference: no [?],
    app = app_for(suite)  # whose flags are changes of their own)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_first_diff(pilot, "d")
        lines = diff_lines(view)
        assert sum(line.lstrip("+± ").startswith("{+") for line in lines) == 3, lines  # a marker on each line
        assert len(view.changes) == 1, (view.changes, lines)


async def test_g_and_end_and_a_page_in_a_long_diff_jump_at_once(tmp_path: Path) -> None:
    """A newcomer's pass: g, G and end in a diff scrolled in some 20 frames over 0.7 s
    (Textual's animated scroll), slow over SSH. Each is one jump."""
    words = " ".join(f"w{k}" for k in range(3000))
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": words}), {
        "1.jsonl": jsonl({"id": "a", "output": words}),
        "2.jsonl": jsonl({"id": "a", "output": words.replace("w7 ", "x7 ")}),
    })
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_first_diff(pilot)
        assert view.max_scroll_y > 50
        animated: list[str] = []
        real = app.animator.animate

        def animate(obj, attribute, *args, **kwargs):  # (the tests' pauses wait animations out)
            if obj is view:
                animated.append(attribute)
            return real(obj, attribute, *args, **kwargs)

        app.animator.animate = animate
        for key, where in (("G", lambda: view.max_scroll_y), ("g", lambda: 0), ("end", lambda: view.max_scroll_y),
                           ("pageup", lambda: view.max_scroll_y - view.scrollable_content_region.height)):
            await pilot.press(key)
            await pilot.pause()
            assert view.scroll_y == where() and animated == [], (key, animated)
