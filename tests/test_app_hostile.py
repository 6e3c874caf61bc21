"""Hostile text through the whole app: Rich markup, OSC/CSI escapes, bidi overrides and a
1 MB output in ids and outputs. The app must show them literally (escaped) and keep running:
open the table, open the diff in both modes, mark, note, export."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from app_helpers import press, screen_text, settle, table_lines, type_text

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.diff import DiffScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.widgets.diffview import DiffView

MARKUP_ID = "[bold red]x[/]"
CLOSE_ID = "x [/] y"
OSC_ID = "osc\x1b]2;pwned\x07"
CSI_ID = "csi\x1b[31mred\x1b[0m"
BIDI_ID = "bidi\u202eevil"
BIG = "big"

HOSTILE_TEXT = {
    MARKUP_ID: "[bold red]x[/] is [link=http://e.vil]here[/link] :smile:",
    CLOSE_ID: "a closing tag x [/] y and [/bold] in an output",
    OSC_ID: "set the title \x1b]2;pwned\x07 then ring \x07 the bell",
    CSI_ID: "clear \x1b[2J the screen \x1b[31m red \x1b[0m and \x9b31m C1",
    BIDI_ID: "right-to-left \u202e override \u2066 isolate \u200f mark",
}


def write_suite(root: Path) -> Path:
    suite = root / "hostile"
    (suite / "builds").mkdir(parents=True)
    (suite / "suite.toml").write_text(
        'name = "[bold]hostile[/] \\u001b[31m suite"\n', encoding="utf-8"
    )
    refs, base, cand = [], [], []
    for example_id, text in HOSTILE_TEXT.items():
        refs.append({"id": example_id, "reference": f"the reference words {text}"})
        base.append({"id": example_id, "output": f"baseline words {text}"})
        cand.append({"id": example_id, "output": f"{text} candidate"})
    # A 1 MB output (one line, ~170,000 words) beside a short reference.
    refs.append({"id": BIG, "reference": "alpha beta gamma delta"})
    base.append({"id": BIG, "output": "alpha beta gamma"})
    cand.append({"id": BIG, "output": ("alpha beta [b] gamma \x1b[1m " * 40_000)[:1_000_000]})
    for name, rows in (
        ("references.jsonl", refs),
        ("builds/a.jsonl", base),
        ("builds/b.jsonl", cand),
    ):
        (suite / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return suite


def assert_inert(text: str) -> None:
    """No raw control or bidi character reaches the screen."""
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "\u202e" not in text and "\u2066" not in text and "\u200f" not in text


@pytest.mark.slow
async def test_hostile_text_is_shown_literally_and_the_app_keeps_running(
    tmp_path: Path, isolated_state: Path
) -> None:
    suite = write_suite(tmp_path)
    app = RougeApp(suites=[suite], options=argparse.Namespace())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen), getattr(screen, "error", None)
        assert screen.analysis.figures.paired == len(HOSTILE_TEXT) + 1
        lines = "\n".join(table_lines(screen.table))
        assert_inert(lines)
        # Shown literally: the markup as typed, escapes made visible.
        assert MARKUP_ID in lines
        assert CLOSE_ID in lines
        assert "osc\\x1b]2;pwned\\x07" in lines
        assert "csi\\x1b[31mred" in lines
        assert "bidi\\u202eevil" in lines
        overview = screen_text(app)
        assert_inert(overview)
        assert "[bold]hostile[/] \\x1b[31m suite" in overview
        # Every row: open its diff in both modes, step through with n, mark and note.
        await press(pilot, "home", "enter")
        diff_screen = app.screen
        assert isinstance(diff_screen, DiffScreen)
        seen = set()
        for _ in range(len(HOSTILE_TEXT) + 1):
            await settle(pilot)
            assert diff_screen.shown == diff_screen.index
            seen.add(diff_screen.example_id)
            for _mode in ("outputs", "reference"):
                await press(pilot, "d")
                shown = screen_text(app)
                assert_inert(shown)
            await press(pilot, "n")
        assert seen == set(HOSTILE_TEXT) | {BIG}
        view = diff_screen.query_one(DiffView)
        assert view.mode == "reference"
        # The markup example, in the reference mode: the output's brackets appear as typed.
        await press(pilot, "escape", "slash")
        await type_text(pilot, "[bold red]")
        await press(pilot, "enter", "enter")
        await settle(pilot)
        shown = screen_text(app)
        assert "[bold red]x[/] is [link=http://e.vil]here[/link]" in shown
        await press(pilot, "b", "c")
        await type_text(pilot, "[red]not markup[/] \x1b[31m")
        await press(pilot, "ctrl+s", "e")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert all("\x1b" not in message for message in notes)
        kept = screen.review.get(MARKUP_ID)
        assert (kept.word, kept.note) == ("regression", "[red]not markup[/] \x1b[31m")
    exports = sorted((isolated_state / "xdg_data_home" / "rouge-tui" / "reviews").iterdir())
    assert [p.suffix for p in exports] == [".html", ".md"]
    for path in exports:
        text = path.read_text(encoding="utf-8")
        assert_inert(text)
        assert "regression" in text
    page = exports[0].read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "[bold red]x[/]" in page


def test_a_paste_reaches_the_app_in_order_with_what_a_terminal_acts_on_escaped() -> None:
    """A pass on marks: a log line pasted with its colours into a note came out reordered,
    "^[31mRED^[0m mid ^O tailpre" (Textual's parser reads an ESC in a paste as the start of
    a key), two ESCs in it were the escape key (the rest lost) and a ^S saved the note. The
    terminal's input, decoded, has such characters of a paste as their visible escapes, the
    brackets and every key outside them as they were: read in one chunk, two, three, or a
    byte at a time; with a byte that is no UTF-8 as U+FFFD."""
    from textual import events
    from textual._xterm_parser import XTermParser

    from rouge_tui.app.app import InputDecoder

    raw = "abc\x1b[200~pre\x1b[31mRED\x1b[0m mid\x13 tail\x1b\x1by 👩\u200d👧\x1b[201~x\x1b[A".encode() + b"\xe9"
    pasted = "pre\\x1b[31mRED\\x1b[0m mid\\x13 tail\\x1b\\x1by 👩\u200d👧"
    want = f"abc\x1b[200~{pasted}\x1b[201~x\x1b[A\ufffd"
    for a in range(len(raw) + 1):
        for b in range(a, len(raw) + 1):
            decoder = InputDecoder("utf-8")
            got = decoder.decode(raw[:a]) + decoder.decode(raw[a:b]) + decoder.decode(raw[b:], final=True)
            assert got == want, (a, b, got)
    decoder = InputDecoder("utf-8")
    assert "".join(decoder.decode(raw[k : k + 1], final=k == len(raw) - 1) for k in range(len(raw))) == want
    tokens = list(XTermParser().feed(want))
    pastes = [t for t in tokens if isinstance(t, events.Paste)]
    keys = [t.key for t in tokens if isinstance(t, events.Key)]
    assert [p.text for p in pastes] == [pasted]
    assert keys[:3] == ["a", "b", "c"] and "ctrl+s" not in keys and "escape" not in keys
