"""The report as Markdown, for a CI summary or a ticket; `md` escapes untrusted text for
one line of it (the exported review's Markdown uses it too)."""

from __future__ import annotations

import re
from typing import Any

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
    said,
    signal_words,
    step_words,
    test_words,
)
from rouge_tui.safetext import one_line

# (& too: "&amp;" in a note is rendered "&", an entity, unless backslashed)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~#&])")
# What GitHub's and GitLab's renderers make a link of in plain text: a colon before "//"
# (http://, ftp://) and "www."; backslashed, each is text (checked with cmark-gfm).
_AUTOLINK = re.compile(r"(:)(?=//)|((?i:www))(\.)")  # (any www., "a_www.x" too: GitHub links after a _)


def md(text: str, limit: int | None = None) -> str:
    """Untrusted text for one line of Markdown: visible escapes, inline syntax backslashed,
    no link made of a URL in it (a phishing URL in an output is not clickable in a ticket)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", one_line(text, limit))
    return _AUTOLINK.sub(lambda m: "\\:" if m.group(1) else f"{m.group(2)}\\.", escaped)


def _ranked(rank: int | str, example_id: str) -> str:
    """An example as a list names it: ``3. inc-0042``, or its id alone past the top rows."""
    return f"{rank}. {md(example_id, 60)}" if rank != "" else md(example_id, 60)


def render_markdown(data: dict[str, Any]) -> str:
    """The report as Markdown, for a CI summary or a ticket."""
    from rouge_tui.analysis.compare import VERDICTS, signal_alarm
    from rouge_tui.analysis.figures import percent

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    lines = [
        f"# ROUGE drift report: {md(data['suite'])}",
        "",
        (f"**Verdict: {VERDICTS[data['verdict']].said}{signal_alarm(data['verdict'], bool(data['signal_drift']))}**"
         f" (band k = {data['k']:g}): {data['verdict_reason']}"),
        "",
        *(f"- **Signal drift:** {md(line)}" for line in alarm_lines(data)),
        *([""] if data["signal_drift"] else []),
        *([f"_{md(band_note(data))}_", ""] if band_note(data) else []),
        *(f"> **warning:** {md(w)}" for w in data["warnings"]),
        *([""] if data["warnings"] else []),
        f"- Signature: `{data['signature']}`",
        f"- Reference fingerprint: `{data['reference_fingerprint'][:16]}`",
        f"- Paired examples: {data['paired']}: {moved_words(data)}",
        (f"- Delta: {signed(data['delta'])}, 95% interval [{signed(low)}, {signed(high)}]"
         f" ({data['delta_interval_method']})"),
        f"- Paired test: {test_words(data['delta_test'])}; {data['delta_test']['method']}",
        (f"- What moved: precision {signed(data['delta_precision'])}, recall {signed(data['delta_recall'])};"
         f" the ten most-moved hold {percent(data['top_share'])} of the total |delta|"),
        "",
        "| build | name | runs | n | mean | band | band source |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for role, s in (("baseline", b), ("candidate", c)):
        lines.append(
            f"| {role} | {md(s['name'])} | {s['runs']} | {s['n']} | {s['mean']:.4f} |"
            f" {band_words(s['band'])} | {s['band_source']} |"
        )
    counts = ", ".join(f"{name} {count}" for name, count in data["signals"].items())
    lines += ["", f"Change signals: {counts}", ""]
    for key, label in LEFT_OUT:
        if data[key]:
            lines.append(f"- {label} ({len(data[key])}): {md(listing(data[key]))}")
    lines += [  # (none asked for with --top 0: no table)
        "",
        f"## The {len(data['top'])} most-moved outputs",
        "",
        "| rank | id | baseline | candidate | delta | signals | mark | note |",
        "| ---: | --- | ---: | ---: | ---: | --- | --- | --- |",
    ] if data["top"] else []
    runs = max(b["runs"], c["runs"])
    long_notes = []  # (rank, id, lines) of notes of several lines: whole below the tables
    ranks = {row["id"]: rank for rank, row in enumerate(data["top"], 1)}

    def cell(example_id: str) -> str:
        """An example's note in a table cell, which holds one line: a note of several shows
        its first, and then whole below the tables (a raw <br> would be HTML from untrusted
        text)."""
        note = note_of(data, example_id)
        note_lines = note.splitlines()
        if len(note_lines) > 1:
            long_notes.append((ranks.get(example_id, ""), example_id, note_lines))
            note = f"{note_lines[0]} (whole note below)"
        return md(note, 200)

    for rank, row in enumerate(data["top"], 1):
        lines.append(
            f"| {rank} | {md(row['id'], 60)} | {row['baseline']:.4f} | {row['candidate']:.4f} |"
            f" {signed(row['delta'])} | {signal_words(row, runs)} | {mark_word(data, row['id'])} |"
            f" {cell(row['id'])} |"
        )
    if data["flagged"]:
        lines += ["", f"## The {len(data['flagged'])} flagged: a drifting signal fired, most telling first", "",
                  "| id | baseline | candidate | delta | signals | mark | note |",
                  "| --- | ---: | ---: | ---: | --- | --- | --- |"]
        lines += [f"| {md(row['id'], 60)} | {row['baseline']:.4f} | {row['candidate']:.4f} | {signed(row['delta'])} |"
                  f" {signal_words(row, runs)} | {mark_word(data, row['id'])} | {cell(row['id'])} |"
                  for row in data["flagged"]]
    others = other_marks(data)
    if others:
        lines += ["", f"## Marked, in neither list ({len(others)})", "", "| id | mark | note |", "| --- | --- | --- |"]
        lines += [f"| {md(example_id, 60)} | {mark_word(data, example_id)} | {cell(example_id)} |"
                  for example_id, _ in others]
    if long_notes:
        lines += ["", "### Notes of several lines", ""]
        for rank, example_id, note_lines in long_notes:
            lines += [f"- **{_ranked(rank, example_id)}**", "", *(f"  > {md(line, 500)}" for line in note_lines), ""]
    if said(data):
        lines += ["", "### What the candidate says that its reference, source and baseline do not", ""]
        for rank, row in said(data):
            lines.append(f"- **{_ranked(rank, row['id'])}**")
            lines += [f"  - {label}: {md(text, limit)}" for label, text, limit in findings(row)]
    if data.get("history"):
        basis = history_basis(data)
        lines += ["", "## History", "", f"_{md(basis[0].upper() + basis[1:])}._", "",
                  "| build | runs | n | mean | band | paired Δ | verdict |", "| --- | ---: | ---: | ---: | --- | ---: | --- |"]
        for h in data["history"]:
            if h["mean"] is None:
                lines.append(f"| {md(h['name'])} | {h['runs']} | | | ✗ {md(h.get('error', ''), 200)} | | |")
            else:
                delta, verdict = step_words(h, data)
                lines.append(f"| {md(h['name'])} | {h['runs']} | {h['n']} | {h['mean']:.4f} | {band_words(h['band'])} | {delta} | {verdict} |")
    return "\n".join(lines) + "\n"

