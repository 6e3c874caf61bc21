"""The diff view's lazy lines draw exactly what Rich draws, only later.

`Wrapped` cuts a text into lines itself and renders a line when it is first read; the
oracle is Rich's own `Text.wrap` + `render` (`wrap_rich`), on hypothesis texts with styled
spans, newlines, tabs, runs of spaces, wide characters and words longer than the width.
The rows of the outputs mode are made lazily row by row; the oracle is the rows made one
after another, eagerly.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from rouge_tui.app.widgets.diff_view import (
    NOTE,
    REFERENCE_STYLES,
    Block,
    Chain,
    Wrapped,
    _marked_text,
    _side_by_side_row,
    _stacked_row,
    side_by_side,
    stacked,
    wrap_rich,
)
from rouge_tui.diff import Segment as Piece
from rouge_tui.diff import example_diff, output_alignment, reference_segments

CONSOLE = Console(width=200, color_system="truecolor", legacy_windows=False)
BASE = Style(color="white", bgcolor="black")
STYLES = [None, Style(bold=True), Style(underline=True, color="green"), Style(strike=True)]

# Words drawn to hit Rich's edge cases: runs of spaces, tabs, newlines, double-width
# characters, combining marks and words far wider than the line.
ATOMS = st.sampled_from(
    [
        "a",
        "word",
        "longerword",
        " ",
        "  ",
        "   ",
        "\n",
        "\n\n",
        "\t",
        "字",
        "字字字",
        "é",
        "e\u0301",
        "x" * 40,
        "🙂",
        ".",
        "-",
    ]
)
PIECES = st.lists(
    st.tuples(st.lists(ATOMS, min_size=0, max_size=6).map("".join), st.sampled_from(STYLES)),
    max_size=25,
)


def as_segments(strips) -> list[tuple[list, int]]:
    return [(list(strip), strip.cell_length) for strip in strips]


def styled(pieces: list[tuple[str, Style | None]]) -> Text:
    text = Text()
    for part, style in pieces:
        text.append(part, style)
    return text


@settings(max_examples=400, deadline=None)
@given(PIECES, st.integers(min_value=1, max_value=30), st.sampled_from([BASE, BASE, Style()]))
def test_wrapped_lines_equal_richs_wrap(pieces, width: int, base: Style) -> None:
    # Lines are cut to segments directly under a base style, and by Rich under none.
    text = styled(pieces)
    lazy = Wrapped(CONSOLE, text, width, base)
    expected = wrap_rich(CONSOLE, text, width, base)
    assert len(lazy) == len(expected)
    # Read out of order, as a scrolled view does: a line's strip must not depend on others.
    order = list(range(len(lazy)))[::-1]
    got = {k: lazy[k] for k in order}
    assert as_segments(got[k] for k in range(len(lazy))) == as_segments(expected)


@settings(max_examples=100, deadline=None)
@given(PIECES, st.integers(min_value=1, max_value=30), st.sampled_from(STYLES[1:]))
def test_wrapped_with_a_base_style_and_overlapping_spans_equals_rich(pieces, width, extra) -> None:
    text = styled(pieces)
    text.style = Style(italic=True)
    if len(text):
        text.stylize(extra, 0, max(1, len(text) // 2))  # overlaps the pieces' spans
    assert as_segments(Wrapped(CONSOLE, text, width, BASE)) == as_segments(
        wrap_rich(CONSOLE, text, width, BASE)
    )


def test_wrapped_hand_checked() -> None:
    text = Text("alpha beta\n\ngamma")
    text.stylize(Style(bold=True), 6, 10)
    lines = [strip.text for strip in Wrapped(CONSOLE, text, 7, BASE)]
    assert lines == ["alpha  ", "beta   ", "       ", "gamma  "]
    beta = list(Wrapped(CONSOLE, text, 7, BASE)[1])
    assert beta[0].text == "beta" and beta[0].style.bold
    # Spaces past the width are dropped as Rich's rstrip_end drops them (8 chars, 2 too many),
    # by Wrapped itself: no line is left to Rich.
    spaced = Wrapped(CONSOLE, Text("alpha   beta"), 6, BASE)
    assert [strip.text for strip in spaced] == ["alpha ", "beta  "]
    assert all(isinstance(line, tuple) for line in spaced._lines)


# Pieces of plain words (the common case, drawn as is) or of any characters, control
# characters and bidi overrides included (each piece made visible).
PIECE_TEXT = st.one_of(st.text(alphabet="ab \n\t字", max_size=8), st.text(max_size=8))


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(PIECE_TEXT, st.sampled_from([None, "both", "baseline", "candidate", "other"])),
        max_size=20,
    ),
    st.integers(min_value=0, max_value=3),
)
def test_marked_text_equals_appending_each_piece(pieces, left_out: int) -> None:
    from rouge_tui.app.widgets.diff_view import NOTE
    from rouge_tui.safetext import visible

    segs = [Piece(text, mark) for text, mark in pieces]
    got = _marked_text(segs, left_out, REFERENCE_STYLES)
    oracle = Text()
    for piece in segs:
        oracle.append(visible(piece.text), REFERENCE_STYLES.get(piece.mark) if piece.mark else None)
    if left_out:
        oracle.append(
            f"\n… {left_out:,} more characters not shown (the figures use all of them)", NOTE
        )
    assert got.plain == oracle.plain
    assert got.spans == oracle.spans


def test_chain_and_block_read_through_to_their_parts() -> None:
    made = []
    strips = [Strip.blank(k + 1) for k in range(6)]

    def make() -> list[Strip]:
        made.append(1)
        return strips[2:5]

    chain = Chain([strips[:2], Block(3, make), [], strips[5:]])
    assert len(chain) == 6 and made == []
    assert [chain[k].cell_length for k in range(6)] == [1, 2, 3, 4, 5, 6]
    assert made == [1]  # made once, on first read
    assert chain[-1].cell_length == 6


def long_rows(words: int = 600):
    import random

    rng = random.Random(3)
    vocab = [f"w{k}" for k in range(60)] + ["x" * 70, "字字字字"]
    ref = [rng.choice(vocab) for _ in range(words)]

    def edit() -> str:
        out = [w if rng.random() > 0.3 else rng.choice(vocab) for w in ref]
        return " ".join(out).replace("w7 ", "w7\n")

    return edit(), edit()


def test_rows_drawn_lazily_equal_the_rows_drawn_one_by_one() -> None:
    from rouge_tui.app.widgets.diff_view import row_cells

    baseline, candidate = long_rows()
    cells = row_cells(output_alignment(baseline, candidate), folded=False)
    assert len(cells) > 100
    for width in (40, 81, 120):
        column = max((width - 5) // 2, 1)
        eager = [
            strip
            for cell in cells
            for strip in _side_by_side_row(
                cell, CONSOLE, (column, max(width - 5 - column, 1)), BASE
            )
        ]
        assert as_segments(side_by_side(cells, CONSOLE, width, BASE)) == as_segments(eager)
        eager = [
            strip
            for cell in cells
            for strip in _stacked_row(cell, CONSOLE, max(width - 2, 1), BASE)
        ]
        assert as_segments(stacked(cells, CONSOLE, width, BASE)) == as_segments(eager)


def test_reference_pane_lines_equal_richs_wrap_on_a_long_diff() -> None:
    baseline, candidate = long_rows(2000)
    diff = example_diff("x", [candidate], baseline, candidate)
    text = _marked_text(*reference_segments(diff.reference), REFERENCE_STYLES)
    for width in (30, 57, 118):
        assert as_segments(Wrapped(CONSOLE, text, width, BASE)) == as_segments(
            wrap_rich(CONSOLE, text, width, BASE)
        )


def test_a_wrapped_run_keeps_its_own_style_on_every_line():
    # A removed run is one Text with its own style and no spans; Rich's Text.render leaves
    # that style to the caller, so without care every line after the gutter lost it.
    from rich.console import Console
    from rich.style import Style
    from rich.text import Text

    from rouge_tui.app.widgets.diff_view import wrap

    removed = Style(strike=True, color="red")
    text = Text("one two three four five six seven eight nine ten eleven twelve", removed)
    lines = wrap(Console(width=40), text, 20, Style())
    assert len(lines) >= 3
    for strip in lines:
        words = [seg for seg in strip if seg.text.strip()]
        assert words and all(seg.style is not None and seg.style.strike for seg in words)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "word", "longerword", " ", "  ", ".", "x" * 12]), max_size=30)
    .map("".join),
    st.integers(min_value=1, max_value=30),
)
def test_ascii_breaks_are_richs_breaks(paragraph: str, width: int) -> None:
    from rich._wrap import divide_line

    from rouge_tui.app.widgets.diff_view import _ascii_breaks

    found = _ascii_breaks(paragraph, width)
    if found is None:  # left to Rich only when a word (with the spaces before it) is too wide
        assert any(len(word) > width for word in re.findall(r"\s*\S+", paragraph))
    else:
        assert found == divide_line(paragraph, width, fold=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["rollback", "the", "Deploy,", "İ", "字", "[bold]", "\x1b[31m", "\u202e"]),
            st.sampled_from([" ", "  ", "\n", ". ", "\t"]),
        ),
        max_size=25,
    ).map(lambda pairs: "".join(word + gap for word, gap in pairs)),
    st.lists(
        st.tuples(st.sampled_from(["rollback", "the", "deploy,", "x"]), st.just(" ")), max_size=25
    ).map(lambda pairs: "".join(word + gap for word, gap in pairs)),
    st.sampled_from(["whitespace", "rouge-score"]),
    st.none() | st.integers(0, 80),
)
def test_texts_from_runs_equal_texts_from_pieces(
    output: str, reference: str, tokenizer: str, limit: int | None
) -> None:
    from rouge_tui.app.widgets.diff_view import MATCH, reference_text, side_text
    from rouge_tui.diff import side_segments

    diff = example_diff("x", [reference], output, reference, tokenizer=tokenizer)
    for side in (diff.baseline, diff.candidate):
        got = side_text(side, limit)
        oracle = _marked_text(*side_segments(side, limit), {"match": MATCH})
        if not side.text.strip():
            oracle.append("(empty output)", NOTE)
        assert (got.plain, got.spans) == (oracle.plain, oracle.spans)
    got = reference_text(diff, limit)
    marked = _marked_text(*reference_segments(diff.reference, limit), REFERENCE_STYLES)
    assert marked.plain in got.plain
    at = got.plain.index(marked.plain)
    inside = [span for span in got.spans if at <= span.start and span.end <= at + len(marked)]
    assert [(s.start - at, s.end - at, s.style) for s in inside] == [
        (s.start, s.end, s.style) for s in marked.spans
    ]
