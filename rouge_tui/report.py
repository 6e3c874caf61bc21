"""Renderings of a comparison: JSON (the contract other tools read), text, Markdown and HTML.

Suite text (ids, build and suite names, outputs) is untrusted: in text it goes through
``safetext.one_line`` into Rich ``Text`` (never markup), JSON is ASCII-escaped, Markdown
escapes its own punctuation, HTML shows ``one_line`` (running texts ``visible``) as entities.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from rouge_tui.analysis import signals
from rouge_tui.analysis.compare import BuildStats
from rouge_tui.analysis.figures import Figures, percent
from rouge_tui.safetext import one_line, visible

__all__ = ["render_json", "render_markdown", "render_text", "to_json", "verdict_symbol", "verdict_words"]

VERDICT_WORDS = {"drift-down": "drift-down", "drift-up": "drift-up", "within-band": "within band"}
VERDICT_SYMBOLS = {"drift-down": "▼", "drift-up": "▲", "within-band": "●"}


# The ids the pairing left out, as every format lists them.
LEFT_OUT = (("only_in_baseline", "Only in baseline"), ("only_in_candidate", "Only in candidate"),
            ("missing_reference", "Missing reference"))


def _said(data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(rank, row) of the top rows whose candidate says something new."""
    return [(rank, row) for rank, row in enumerate(data["top"], 1) if row["new_sentences"] or row["new_figures"]]


# Why a build's n and mean in the history differ from the comparison's (SPEC "History").
HISTORY_BASIS = "each build over its own ids with a reference; the comparison over the ids both builds have"


def verdict_words(verdict: str) -> str:
    """The verdict for a person: ``drift-down``, ``drift-up`` or ``within band``."""
    return VERDICT_WORDS[verdict]


def verdict_symbol(verdict: str) -> str:
    """A direction symbol that reads without colour: ▼ down, ▲ up, ● within band."""
    return VERDICT_SYMBOLS[verdict]


def _build(stats: BuildStats, copied: list[float] | None = None) -> dict[str, Any]:
    data = {
        "name": stats.name,
        "runs": int(stats.runs),
        "n": int(stats.n),
        "mean": stats.mean,
        "band": [stats.band[0], stats.band[1]],
        "band_source": stats.band_source,
    }
    if copied:
        data["coverage"], data["density"] = copied
    return data


def to_json(
    figures: Figures,
    top: int,
    marks: dict[str, dict[str, Any]] | None = None,
    details: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as one JSON object; the field names are SPEC's contract. ``details`` are
    the grounding fields of the first rows (what overlap cannot see), one dict per row."""
    f = figures
    rows = []
    for rank in range(min(top, f.paired)):
        row = {
            "id": f.ids[rank],
            "baseline": float(f.baseline_f[rank]),
            "candidate": float(f.candidate_f[rank]),
            "delta": float(f.delta[rank]),
            "signals": signals.names(int(f.signals[rank])),
            "unsupported": [],
            "new_sentences": [],
            "new_figures": [],
        }
        shown = details if details is not None else f.details
        if rank < len(shown):
            row.update(shown[rank])
        rows.append(row)
    data = {
        "suite": f.suite,
        "metric": f.settings.metric,
        "tokenizer": f.settings.tokenizer,
        "stem": f.settings.stem,
        "baseline": _build(f.baseline, f.copied.get("baseline")),
        "candidate": _build(f.candidate, f.copied.get("candidate")),
        "delta": f.delta_mean,
        "delta_interval": [f.delta_interval[0], f.delta_interval[1]],
        "delta_interval_method": f.delta_interval_method,
        "verdict": f.verdict,
        "verdict_reason": f.verdict_reason(),
        "paired": f.paired,
        "only_in_baseline": f.only_in_baseline,
        "only_in_candidate": f.only_in_candidate,
        "missing_reference": f.missing_reference,
        "partial": f.partial,
        "signature": f.signature,
        "reference_fingerprint": f.reference_fingerprint,
        "k": f.settings.k,
        "top": rows,
        "signals": signals.counts(f.signals),
        "warnings": list(f.warnings),
        "delta_precision": f.delta_precision,
        "delta_recall": f.delta_recall,
        "top_share": f.top_share,
        "marks": marks or {},
    }
    data.update(extra or {})
    return data


def render_json(data: dict[str, Any]) -> str:
    """ASCII-only JSON, so no byte of untrusted text can act on a terminal; strict JSON: a
    lone surrogate (a file name's byte that is not UTF-8) is written as the escape the text
    report shows, ``\\udcff``, never as a lone escape that strict parsers refuse."""
    return json.dumps(_no_lone_surrogates(data), ensure_ascii=True, indent=2) + "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")  # in a Python str, always a lone one


def _no_lone_surrogates(value: Any) -> Any:
    if type(value) is str:
        return _SURROGATE.sub(lambda m: one_line(m[0]), value) if _SURROGATE.search(value) else value
    if type(value) is dict:
        return {_no_lone_surrogates(k): _no_lone_surrogates(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [_no_lone_surrogates(v) for v in value]
    return value


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~#])")


def md(text: str, limit: int | None = None) -> str:
    """Untrusted text for one line of Markdown: visible escapes, inline syntax backslashed."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text, limit))


def _listing(ids: list[str], limit: int = 20) -> str:
    shown = ", ".join(one_line(i, 40) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _mark_word(data: dict[str, Any], example_id: str) -> str:
    entry = data["marks"].get(example_id)
    if not entry:
        return ""
    word = entry["mark"]
    if entry.get("carried_from"):
        word += " (carried)"
    if entry.get("stale"):
        word += " (stale)"
    return word


def render_markdown(data: dict[str, Any]) -> str:
    """The report as Markdown, for a CI summary or a ticket."""
    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    lines = [
        f"# ROUGE drift report: {md(data['suite'])}",
        "",
        (f"**Verdict: {verdict_symbol(data['verdict'])} {verdict_words(data['verdict'])}**"
         f" (band k = {data['k']:g}): {data['verdict_reason']}"),
        "",
        *(f"> **warning:** {md(w)}" for w in data["warnings"]),
        *([""] if data["warnings"] else []),
        f"- Signature: `{data['signature']}`",
        f"- Reference fingerprint: `{data['reference_fingerprint'][:16]}`",
        f"- Paired examples: {data['paired']}",
        (f"- Delta: {data['delta']:+.4f}, 95% interval [{low:+.4f}, {high:+.4f}]"
         f" ({data['delta_interval_method']})"),
        (f"- What moved: precision {data['delta_precision']:+.4f}, recall {data['delta_recall']:+.4f};"
         f" the ten most-moved hold {percent(data['top_share'])} of the total |delta|"),
        "",
        "| build | name | runs | n | mean | band | band source |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for role, s in (("baseline", b), ("candidate", c)):
        lines.append(
            f"| {role} | {md(s['name'])} | {s['runs']} | {s['n']} | {s['mean']:.4f} |"
            f" [{s['band'][0]:.4f}, {s['band'][1]:.4f}] | {s['band_source']} |"
        )
    counts = ", ".join(f"{name} {count}" for name, count in data["signals"].items())
    lines += ["", f"Change signals: {counts}", ""]
    for key, label in LEFT_OUT:
        if data[key]:
            lines.append(f"- {label} ({len(data[key])}): {md(_listing(data[key]))}")
    lines += [  # (none asked for with --top 0: no table)
        "",
        f"## The {len(data['top'])} most-moved outputs",
        "",
        "| rank | id | baseline | candidate | delta | signals | mark | note |",
        "| ---: | --- | ---: | ---: | ---: | --- | --- | --- |",
    ] if data["top"] else []
    for rank, row in enumerate(data["top"], 1):
        note = data["marks"].get(row["id"], {}).get("note", "")
        lines.append(
            f"| {rank} | {md(row['id'], 60)} | {row['baseline']:.4f} | {row['candidate']:.4f} |"
            f" {row['delta']:+.4f} | {' '.join(row['signals'])} | {_mark_word(data, row['id'])} |"
            f" {md(note, 200)} |"
        )
    said = _said(data)
    if said:
        lines += ["", "### What the candidate says that its reference, source and baseline do not", ""]
        for rank, row in said:
            lines.append(f"- **{rank}. {md(row['id'], 60)}**")
            lines += [f"  - new sentence: {md(s, 300)}" for s in row["new_sentences"]]
            if row["new_figures"]:
                lines.append(f"  - new figures: {md(', '.join(row['new_figures']), 200)}")
    if data.get("history"):
        lines += ["", "## History", "", f"_{HISTORY_BASIS[0].upper()}{HISTORY_BASIS[1:]}._", "",
                  "| build | runs | n | mean | band |", "| --- | ---: | ---: | ---: | --- |"]
        for h in data["history"]:
            if h["mean"] is None:
                lines.append(f"| {md(h['name'])} | {h['runs']} | | | ✗ {md(h.get('error', ''), 200)} |")
            else:
                lines.append(f"| {md(h['name'])} | {h['runs']} | {h['n']} | {h['mean']:.4f} | [{h['band'][0]:.4f}, {h['band'][1]:.4f}] |")
    return "\n".join(lines) + "\n"


def render_text(data: dict[str, Any]) -> Any:
    """A Rich renderable for a terminal or a CI log (no markup from the data is parsed)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    style = {"drift-down": "bold red", "drift-up": "bold yellow"}.get(data["verdict"], "bold green")
    head = Text()
    head.append(one_line(data["suite"]), style="bold")
    head.append(f"\nsignature  {data['signature']}   references {data['reference_fingerprint'][:12]}")
    head.append("\nverdict    ")
    head.append(f"{verdict_symbol(data['verdict'])} {verdict_words(data['verdict'])}", style=style)
    head.append(f"\n           {data['verdict_reason']}")
    head.append(
        f"\ndelta      {data['delta']:+.4f}  95% [{low:+.4f}, {high:+.4f}] "
        f"{data['delta_interval_method']}   paired {data['paired']}   k {data['k']:g}"
    )
    head.append(
        f"\nmoved      precision {data['delta_precision']:+.4f}  recall {data['delta_recall']:+.4f}"
        f"  the ten hold {percent(data['top_share'])} of |delta|"
    )
    for warning in data["warnings"]:
        head.append("\nwarning    " + one_line(warning), style="bold yellow")

    builds = Table(box=None, pad_edge=False, show_edge=False)
    for column, justify in (("", "left"), ("build", "left"), ("runs", "right"), ("n", "right"),
                            ("mean", "right"), ("band", "left"), ("source", "left")):
        builds.add_column(column, justify=justify)
    for role, s in (("baseline", b), ("candidate", c)):
        builds.add_row(
            role, Text(one_line(s["name"], 40)), str(s["runs"]), str(s["n"]), f"{s['mean']:.4f}",
            f"[{s['band'][0]:.4f}, {s['band'][1]:.4f}]", s["band_source"],
        )

    notes = Text("signals: " + " · ".join(f"{k} {v}" for k, v in data["signals"].items()))
    for key, label in LEFT_OUT:
        if data[key]:
            notes.append(f"\n{label.lower()} ({len(data[key])}): {_listing(data[key], 8)}")

    top = Table(title=f"the {len(data['top'])} most-moved outputs", title_justify="left", box=None)
    for column, justify in (("#", "right"), ("id", "left"), ("base", "right"), ("cand", "right"),
                            ("delta", "right"), ("signals", "left"), ("mark", "left")):
        top.add_column(column, justify=justify)
    said = Table.grid(padding=(0, 1))  # a long sentence wraps under itself, not under the id
    said.add_column(justify="right", min_width=3)
    said.add_column()
    said.add_column(overflow="fold")  # a word wider than the column (a URL, Chinese) whole
    for rank, row in enumerate(data["top"], 1):
        top.add_row(
            str(rank), Text(one_line(row["id"], 32)), f"{row['baseline']:.4f}",
            f"{row['candidate']:.4f}", f"{row['delta']:+.4f}", " ".join(row["signals"]),
            Text(_mark_word(data, row["id"])),
        )
        for sentence in row["new_sentences"]:
            said.add_row(str(rank), Text(one_line(row["id"], 24)), Text("new sentence: " + one_line(sentence, 200)))
        if row["new_figures"]:
            said.add_row(str(rank), Text(one_line(row["id"], 24)),
                         Text("new figures: " + one_line(", ".join(row["new_figures"]), 120)))
    parts = [head, Text(""), builds, Text(""), notes, *([Text(""), top] if data["top"] else [])]
    written = Table.grid(padding=(0, 1))  # the reviewers' notes on these rows, whole
    written.add_column(justify="right", min_width=3)
    written.add_column()
    written.add_column(overflow="fold")
    for rank, row in enumerate(data["top"], 1):
        entry = data["marks"].get(row["id"], {})
        if note := entry.get("note"):
            carried = entry.get("carried_from")  # written on another pair: say which
            where = f"(carried from {carried['baseline']} → {carried['candidate']}) " if carried else ""
            written.add_row(str(rank), Text(one_line(row["id"], 24)), Text(one_line(where + note, 1100)))
    if written.row_count:
        parts += [Text("\nnotes:"), written]
    if said.row_count:
        parts += [Text("\nwhat the candidates say that reference, source and baseline do not:"), said]
    if data.get("history"):
        trend = Table(title="history", title_justify="left", box=None, caption=HISTORY_BASIS, caption_justify="left")
        for column, justify in (("build", "left"), ("runs", "right"), ("n", "right"), ("mean", "right"), ("band", "left")):
            trend.add_column(column, justify=justify, overflow="fold")
        # Why a build has no figures goes under the table, a line each: folded in the band's
        # column, "…0da610.jsonl:24" ended one line and "0: invalid JSON" began the next.
        unread = []
        for h in data["history"]:
            if h["mean"] is None:
                trend.add_row(Text(one_line(h["name"], 40)), str(h["runs"]), "", "", "✗ (below)")
                unread.append(Text(f"✗ {one_line(h['name'], 40)}: {one_line(h.get('error', ''), 300)}", overflow="fold"))
            else:
                trend.add_row(Text(one_line(h["name"], 40)), str(h["runs"]), str(h["n"]), f"{h['mean']:.4f}", f"[{h['band'][0]:.4f}, {h['band'][1]:.4f}]")
        parts += [Text(""), trend, *unread]
    return Group(*parts)


# --------------------------------------------------------------------------- HTML

_PAGE_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0; } .wide { overflow-x: auto; }
td, th { white-space: nowrap; padding: .15rem .6rem; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.prose { white-space: pre-line; overflow-wrap: anywhere; min-width: 12rem; }
.verdict { font-weight: bold; padding: .1rem .4rem; } .drift-down { background: #fdd; } .drift-up { background: #ffc; } .within-band { background: #dfd; }
.warn { background: #fff4ce; padding: .3rem .6rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 13px; background: #f7f7f7; padding: .5rem; border-radius: 4px; }
.counted, .both { font-weight: bold; text-decoration: underline; color: #0a6d24; }
.baseline { text-decoration: underline; color: #8a6100; } .candidate { font-weight: bold; font-style: italic; color: #00658a; }
.removed { text-decoration: line-through; color: #b00020; background: #fde7e9; } .added { font-weight: bold; color: #0a6d24; background: #e3f7e8; }
.fold { font-style: italic; color: #777; } .flag { font-weight: bold; background: #ffd54f; } .newfig { font-weight: bold; color: #b00020; }
.mark-fine { color: #0a6d24; } .mark-regression { color: #b00020; } .mark-unsure { color: #8a6100; }
.arith { font-weight: bold; font-size: 13px; } .legend { font-size: 13px; color: #555; }
"""


def _h(text: str) -> str:
    """A one-line field (id, name, label) for HTML: as ``one_line`` shows it, then entities."""
    return html.escape(one_line(text), quote=True)


def _h_text(text: str) -> str:
    """A running text (output, reference, note) for HTML: its newlines kept, every other
    control character a visible escape, then entities."""
    return html.escape(visible(text), quote=True)


def html_pieces(pieces: list) -> str:
    """A text's pieces (rouge_tui.diff.Piece) as spans; removed and added runs keep their
    markers so the page reads without colour too."""
    from rouge_tui.diff import BRACKETS, PLAIN_TEXT

    out = []
    for piece in pieces:
        opening, closing = BRACKETS.get(piece.kind, ("", ""))
        body = _h_text(piece.text)
        out.append(f'<span class="{piece.kind}">{opening}{body}{closing}</span>' if piece.kind not in PLAIN_TEXT else body)
    return "".join(out)


def render_html(data: dict[str, Any], examples: list[dict[str, Any]] | None = None) -> str:
    """One self-contained page (no network, no script) with the figures and, for each of
    ``examples``, its diff highlighted as in the app. An example is a dict with ``rank``,
    ``id``, ``mark``, ``note``, ``sides`` (list of (title, pieces html, arithmetic)),
    ``reference`` (pieces html) and ``words`` (the word diff's pieces html)."""
    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    rows = "".join(
        f"<tr><td>{role}</td><td>{_h(s['name'])}</td><td class=n>{s['runs']}</td><td class=n>{s['n']}</td>"
        f"<td class=n>{s['mean']:.4f}</td><td class=n>[{s['band'][0]:.4f}, {s['band'][1]:.4f}]</td><td>{_h(s['band_source'])}</td></tr>"
        for role, s in (("baseline", b), ("candidate", c))
    )
    top = "".join(
        f"<tr><td class=n>{rank}</td><td>{_h(row['id'])}</td><td class=n>{row['baseline']:.4f}</td>"
        f"<td class=n>{row['candidate']:.4f}</td><td class=n>{row['delta']:+.4f}</td>"
        f"<td>{_h(' '.join(row['signals']))}</td><td>{_h(_mark_word(data, row['id']))}</td>"
        f"<td class=prose>{_h_text(data['marks'].get(row['id'], {}).get('note', ''))}</td></tr>"
        for rank, row in enumerate(data["top"], 1)
    )
    left_out = "".join(
        f"<p>{label} ({len(data[key])}): {_h(_listing(data[key]))}</p>"
        for key, label in LEFT_OUT
        if data[key]
    )
    warnings = "".join(f'<p class="warn">{_h(w)}</p>' for w in data["warnings"])
    counts = _h(", ".join(f"{name} {count}" for name, count in data["signals"].items()))
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
        f"<title>ROUGE drift review: {_h(data['suite'])}</title><style>{_PAGE_STYLE}</style></head><body>",
        f"<h1>ROUGE drift review: {_h(data['suite'])}</h1>",
        (f'<p><span class="verdict {data["verdict"]}">{verdict_symbol(data["verdict"])} {verdict_words(data["verdict"])}</span> '
         f"{_h(data['verdict_reason'])} (band k = {data['k']:g})</p>"),
        warnings,
        (f"<p>Signature <code>{_h(data['signature'])}</code> · references <code>{_h(data['reference_fingerprint'][:16])}</code>"
         f" · paired {data['paired']} · Δ {data['delta']:+.4f}, 95% [{low:+.4f}, {high:+.4f}] ({_h(data['delta_interval_method'])})"
         f" · precision {data['delta_precision']:+.4f}, recall {data['delta_recall']:+.4f}, the ten hold {percent(data['top_share'])} of |Δ|</p>"),
        "<div class=wide><table><tr><th></th><th>build</th><th>runs</th><th>n</th><th>mean</th><th>band</th><th>source</th></tr>",
        rows,
        "</table></div>",
        f"<p>Change signals: {counts}</p>",
        left_out,
    ]
    if data["top"]:
        parts += [
            f"<h2>The {len(data['top'])} most-moved outputs</h2>",
            "<div class=wide><table><tr><th>rank</th><th>id</th><th>baseline</th><th>candidate</th><th>delta</th><th>signals</th><th>mark</th><th>note</th></tr>",
            top,
            "</table></div>",
        ]
    said = _said(data)
    if said and not examples:  # (an export shows them in each example's text)
        parts.append("<h3>What the candidate says that its reference, source and baseline do not</h3><ul>")
        for rank, row in said:
            found = [f"new sentence: {_h(s)}" for s in row["new_sentences"]]
            if row["new_figures"]:
                found.append(f"new figures: {_h(', '.join(row['new_figures']))}")
            parts.append(f"<li><b>{rank}. {_h(row['id'])}</b><ul>" + "".join(f"<li>{f}</li>" for f in found) + "</ul></li>")
        parts.append("</ul>")
    for example in examples or []:
        mark = example.get("mark") or "not reviewed"
        word = mark.split(" ")[0]
        parts.append(f'<h3>{example["rank"]}. {_h(example["id"])}: <span class="mark-{_h(word)}">{_h(mark)}</span></h3>')
        if example.get("note"):
            parts.append(f'<blockquote class="text">{_h_text(example["note"])}</blockquote>')
        parts += [f"<p class=legend>Cut: {_h(note)}.</p>" for note in example.get("cut", ())]
        for title, pieces, arithmetic in example["sides"]:
            parts.append(f"<p><b>{_h(title)}</b> <span class=arith>{_h(arithmetic)}</span></p><div class=text>{pieces}</div>")
        parts.append(f"<p><b>reference</b></p><div class=text>{example['reference']}</div>")
        parts.append('<p class=legend>matched by: <span class="both">both</span> · <span class="baseline">baseline only</span> · '
                     '<span class="candidate">candidate only</span> · neither; <span class="flag">[?] </span> no counterpart in the '
                     'reference or source — read it; <span class="newfig">«N»</span> a figure in no other text</p>')
        parts.append(f"<p><b>baseline → candidate</b></p><div class=text>{example['words']}</div>")
    if data.get("history"):
        parts.append(f"<h2>History</h2><p class=legend>{HISTORY_BASIS}</p>")
        parts.append("<div class=wide><table><tr><th>build</th><th>runs</th><th>n</th><th>mean</th><th>band</th></tr>")
        for h in data["history"]:
            if h["mean"] is None:
                parts.append(f"<tr><td>{_h(h['name'])}</td><td class=n>{h['runs']}</td><td></td><td></td><td class=prose>✗ {_h(h.get('error', ''))}</td></tr>")
            else:
                parts.append(f"<tr><td>{_h(h['name'])}</td><td class=n>{h['runs']}</td><td class=n>{h['n']}</td>"
                             f"<td class=n>{h['mean']:.4f}</td><td class=n>[{h['band'][0]:.4f}, {h['band'][1]:.4f}]</td></tr>")
        parts.append("</table></div>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
