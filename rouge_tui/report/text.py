"""The report as text, for a terminal or a CI log: `render_text` builds Rich renderables
from the JSON object (suite text goes through ``one_line`` into ``Text``, never markup),
`text_for` prints them to a string."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len

from rouge_tui.numbers import signed
from rouge_tui.report.words import (
    LEFT_OUT,
    alarm_lines,
    band_note,
    band_words,
    findings,
    history_basis,
    listing,
    mark_word,
    moved_words,
    note_of,
    other_marks,
    signal_words,
    step_words,
    test_words,
)
from rouge_tui.safetext import one_line, shorten_names

MOST_COMPARED = 100


WIDTH = 80  # the columns the report is laid out in, not to a terminal (`text_for`)


def name_room(heads: list[str], rows: list[list[str]], edges: int, width: int) -> int:
    """The cells a build name may take in a table of one name column and the columns
    ``heads`` (holding ``rows``' cells), a line within ``width``: each column as wide as its
    widest cell, two spaces between columns, ``edges`` at the ends. A name cut to it, where
    it differs, keeps each row one line (cut at a fixed width, a 5-digit n folded them)."""
    widths = [max([cell_len(head), *(cell_len(row[k]) for row in rows)]) for k, head in enumerate(heads)]
    return max(12, width - sum(widths) - 2 * len(heads) - edges)


def cut_names(names: list[str], room: int) -> list[str]:
    """``names`` cut where they differ (`shorten_names`) to ``room`` cells: a name of wide
    characters (CJK) takes two cells a character, so it is cut to half as many."""
    wide = any(cell_len(name) != len(name) for name in names)
    return shorten_names(names, max(6, room // 2) if wide else room)


def render_text(data: dict[str, Any], width: int = WIDTH) -> Any:
    """A Rich renderable for a terminal or a CI log (no markup from the data is parsed)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from rouge_tui.analysis.compare import VERDICTS, signal_alarm
    from rouge_tui.analysis.figures import percent

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    style = VERDICTS[data["verdict"]].style
    # Each figure under its label: a line longer than the width goes on under the figures,
    # not back at the label's column (a newcomer read "±0.0252" alone on a line as a figure).
    head = Table.grid(padding=(0, 1))
    head.add_column(min_width=10, no_wrap=True)
    head.add_column(overflow="fold")

    def say(label: str, value: str, style: str = "") -> None:
        head.add_row(label, Text(value, style=style))

    say("signature", f"{data['signature']}  refs {data['reference_fingerprint'][:12]}")
    head.add_row("verdict", Text.assemble((VERDICTS[data["verdict"]].said, style),
                                          (signal_alarm(data["verdict"], bool(data["signal_drift"])), "bold red")))
    say("", data["verdict_reason"])
    say("delta", f"{signed(data['delta'])}  95% [{signed(low)}, {signed(high)}] "
                 f"{data['delta_interval_method']}   paired {data['paired']}   k {data['k']:g}")
    say("paired", test_words(data["delta_test"]))
    say("examples", moved_words(data))
    say("moved", f"precision {signed(data['delta_precision'])}  recall {signed(data['delta_recall'])}"
                 f"  the ten hold {percent(data['top_share'])} of |delta|")
    for line in alarm_lines(data):
        say("alarm", line, "bold red")
    if bands := band_note(data):
        say("signals", bands)
    for warning in data["warnings"]:
        say("warning", one_line(warning), "bold yellow")
    name = Text(one_line(data["suite"]), style="bold")

    builds = Table(box=None, pad_edge=False, show_edge=False)
    for column, justify in (("", "left"), ("build", "left"), ("runs", "right"), ("n", "right"),
                            ("mean", "right"), ("band", "left"), ("source", "left")):
        builds.add_column(column, justify=justify, no_wrap=column == "build")
    # Names cut where they differ, to fit 80 columns a line (cut at their ends, then folded,
    # a harness's "2026-11-20 openai:gpt-4o-mini · summarize-…-v1" and "-v2" read alike).
    cells = {role: [role, str(s["runs"]), str(s["n"]), f"{s['mean']:.4f}", band_words(s["band"]), s["band_source"]]
             for role, s in (("baseline", b), ("candidate", c))}
    room = name_room(["", "runs", "n", "mean", "band", "source"], list(cells.values()), 0, width)
    for (role, row), name in zip(cells.items(), cut_names([b["name"], c["name"]], room)):
        builds.add_row(row[0], Text(name), *row[1:])

    notes = Text("signals: " + " · ".join(f"{k} {v}" for k, v in data["signals"].items()))
    for key, label in LEFT_OUT:
        if data[key]:
            notes.append(f"\n{label.lower()} ({len(data[key])}): {listing(data[key], 8)}")

    runs = max(b["runs"], c["runs"])

    def rows(title: str, ranked: bool = True) -> Table:
        """A table of rows; ``ranked``: with the ranks' column (the flagged have none)."""
        table = Table(title=title, title_justify="left", box=None)
        for column, justify in (("#", "right"), ("id", "left"), ("base", "right"), ("cand", "right"),
                                ("delta", "right"), ("signals", "left"), ("mark", "left"))[0 if ranked else 1:]:
            table.add_column(column, justify=justify)
        return table

    # The ids listed, each cut where it differs from the others (a promptfoo id is a test's
    # vars as JSON: cut at its end, rows of one article read alike); past MOST_COMPARED ids,
    # at the end (shorten_names compares every pair of them).
    others = other_marks(data)
    listed = [row["id"] for row in (*data["top"], *data["flagged"])] + [example_id for example_id, _ in others]

    def ids(width: int) -> dict[str, str]:
        if len(listed) > MOST_COMPARED:
            return {i: one_line(i, width) for i in listed}
        return dict(zip(listed, shorten_names(listed, width)))

    wide, narrow = ids(32), ids(24)
    top = rows(f"the {len(data['top'])} most-moved outputs")
    said = Table.grid(padding=(0, 1))  # a long sentence wraps under itself, not under the id
    said.add_column(justify="right", min_width=3)
    said.add_column()
    said.add_column(overflow="fold")  # a word wider than the column (a URL, Chinese) whole

    def add(table: Table, rank: str, row: dict[str, Any]) -> None:
        """A row in ``table`` (its rank first, where it has one), and what its candidate says
        in ``said``."""
        table.add_row(
            *([rank] if rank else []), Text(wide[row["id"]]), f"{row['baseline']:.4f}", f"{row['candidate']:.4f}",
            signed(row['delta']), signal_words(row, runs), Text(mark_word(data, row["id"])),
        )
        for label, text, limit in findings(row, 200, 120):
            said.add_row(rank, Text(narrow[row["id"]]), Text(f"{label}: " + one_line(text, limit)))

    for rank, row in enumerate(data["top"], 1):
        add(top, str(rank), row)
    parts = [name, head, Text(""), builds, Text(""), notes, *([Text(""), top] if data["top"] else [])]
    if data["flagged"]:
        flagged = rows(f"the {len(data['flagged'])} flagged: a drifting signal fired, most telling first", ranked=False)
        for row in data["flagged"]:
            add(flagged, "", row)
        parts += [Text(""), flagged]
    written = Table.grid(padding=(0, 1))  # the reviewers' notes on these rows, whole
    written.add_column(justify="right", min_width=3)
    written.add_column()
    written.add_column(overflow="fold")
    for rank, row in [*enumerate(data["top"], 1), *(("", row) for row in data["flagged"])]:
        if note := note_of(data, row["id"]):  # (a carried mark's: where it was written)
            written.add_row(str(rank), Text(narrow[row["id"]]), Text(one_line(note, 1100)))
    if written.row_count:
        parts += [Text("\nnotes:"), written]
    if others:
        marked = Table.grid(padding=(0, 1))
        marked.add_column(overflow="fold")
        marked.add_column()
        marked.add_column(overflow="fold")
        for example_id, entry in others:
            marked.add_row(Text(wide[example_id]), Text(mark_word(data, example_id)),
                           Text(one_line(note_of(data, example_id), 1100)))
        parts += [Text(f"\nmarked, in neither list ({len(others)}):"), marked]
    if said.row_count:
        parts += [Text("\nwhat the candidates say that reference, source and baseline do not:"), said]
    if data.get("history"):
        trend = Table(title="history", title_justify="left", box=None, caption=history_basis(data), caption_justify="left")
        # The runs where some build has several: a column of 1s took the room of the names a
        # reader copies into --baseline ("3-poin…gen-cov" at 80 columns).
        runs = any(h["runs"] != 1 for h in data["history"])
        heads = ["runs", "n", "mean", "band", "paired Δ", "verdict"][0 if runs else 1:]
        trend.add_column("build", no_wrap=True)
        for column, justify in zip(heads, ("right", "right", "right", "left", "right", "left")[0 if runs else 1:]):
            trend.add_column(column, justify=justify, overflow="fold")
        # Why a build has no figures goes under the table, a line each: folded in the band's
        # column, "…0da610.jsonl:24" ended one line and "0: invalid JSON" began the next.
        unread = []
        rows = [[str(h["runs"]), "", "", "✗ (below)", "", ""] if h["mean"] is None else
                [str(h["runs"]), str(h["n"]), f"{h['mean']:.4f}", band_words(h["band"]), *step_words(h, data)]
                for h in data["history"]]
        rows = [row[0 if runs else 1:] for row in rows]
        # The compared pair's signal alarm as "!" in its row and said under the table: in
        # words there it folded the verdict over two lines at 80 columns.
        words = signal_alarm("within-band", True)
        alarmed = [row[-1].endswith(words) for row in rows]
        rows = [[*row[:-1], f"{row[-1].removesuffix(words)} !"] if alarm else row for row, alarm in zip(rows, alarmed)]
        names = cut_names([h["name"] for h in data["history"]], name_room(heads, rows, 2, width))
        for h, name, row, alarm in zip(data["history"], names, rows, alarmed):
            trend.add_row(Text(name), *row)
            if h["mean"] is None:
                unread.append(Text(f"✗ {name}: {one_line(h.get('error', ''), 300)}", overflow="fold"))
            if alarm:
                unread.append(Text(f"! {name}: within band, signal alarm (the pair compared: its verdict above)",
                                   overflow="fold"))
        parts += [Text(""), trend, *unread]
    return Group(*parts)


def text_for(data: dict[str, Any], width: int | None) -> str:
    """The text report for a terminal ``width`` columns wide: Rich's rendering as a string.
    Writing it ourselves keeps one error path for every format (Rich's own broken-pipe
    handling would exit 1, which reads as drift). Not to a terminal (``width`` None: a pipe,
    a file, a CI log), 80 columns and no trailing spaces, so the bytes are the same wherever
    it runs and read well in an 80-column pager."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=width is not None, width=width or WIDTH,
        highlight=False, emoji=False, markup=False, soft_wrap=False,
    )
    console.print(render_text(data, width or WIDTH))
    text = buffer.getvalue()
    return text if width is not None else "".join(line.rstrip() + "\n" for line in text.splitlines())

