"""The report as one self-contained HTML page (no network, no script): the figures and each
example's diff highlighted as in the app. Suite text is shown as ``one_line`` shows it
(running texts ``visible``), then as entities."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from rouge_tui.numbers import signed
from rouge_tui.report.examples import run_note
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
    said,
    signal_words,
    step_words,
    test_words,
)
from rouge_tui.safetext import one_line, visible

if TYPE_CHECKING:
    from rouge_tui.report import Report


_PAGE_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0; } .wide { overflow-x: auto; }
td, th { white-space: nowrap; padding: .15rem .6rem; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.prose { white-space: pre-line; overflow-wrap: anywhere; min-width: 12rem; }
.verdict { font-weight: bold; padding: .1rem .4rem; } {verdicts}
.warn { background: #fff4ce; padding: .3rem .6rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 13px; background: #f7f7f7; padding: .5rem; border-radius: 4px; }
.counted, .both { font-weight: bold; text-decoration: underline; color: #0a6d24; }
.baseline { text-decoration: underline; color: #8a6100; } .candidate { font-weight: bold; font-style: italic; color: #00658a; }
.removed { text-decoration: line-through; color: #b00020; background: #fde7e9; } .added { font-weight: bold; color: #0a6d24; background: #e3f7e8; }
.fold { font-style: italic; color: #777; } .flag { font-weight: bold; background: #ffd54f; } .newfig { font-weight: bold; color: #b00020; }
{marks}
.arith { font-weight: bold; font-size: 13px; } .legend { font-size: 13px; color: #555; }
code { overflow-wrap: anywhere; }
"""


def page_style() -> str:
    """The HTML page's stylesheet, each verdict's background and each mark word's colour
    from their registries (`VERDICTS`, `MARKS`)."""
    from rouge_tui.analysis.compare import VERDICTS
    from rouge_tui.store.marks import MARKS

    verdicts = " ".join(f".{v.name} {{ background: {v.html}; }}" for v in VERDICTS.values())
    marks = " ".join(f".mark-{mark.word} {{ color: {mark.html}; }}" for mark in MARKS.values())
    return _PAGE_STYLE.replace("{verdicts}", verdicts).replace("{marks}", marks)


def _h(text: str, limit: int | None = None) -> str:
    """A one-line field (id, name, label) for HTML: as ``one_line`` shows it (cut at
    ``limit``), then entities."""
    return html.escape(one_line(text, limit), quote=True)


def _h_text(text: str) -> str:
    """A running text (output, reference, note) for HTML: its newlines kept, every other
    control character a visible escape, then entities."""
    return html.escape(visible(text), quote=True)


def html_pieces(pieces: list) -> str:
    """A text's pieces (rouge_tui.diff.Piece) as spans; removed and added runs keep their
    markers so the page reads without colour too."""
    from rouge_tui.diff import BRACKETS, PLAIN_TEXT, by_line

    out = []
    for piece in by_line(pieces):
        opening, closing = BRACKETS.get(piece.kind, ("", ""))
        body = _h_text(piece.text)
        out.append(f'<span class="{piece.kind}">{opening}{body}{closing}</span>' if piece.kind not in PLAIN_TEXT else body)
    return "".join(out)


def render_html(data: dict[str, Any], examples: list[dict[str, Any]] | None = None) -> str:
    """One self-contained page (no network, no script) with the figures and, for each of
    ``examples``, its diff highlighted as in the app. An example is a dict with ``rank``,
    ``id``, ``mark``, ``note``, ``sides`` (list of (title, pieces html, arithmetic)),
    ``reference`` (pieces html) and ``words`` (the word diff's pieces html)."""
    from rouge_tui.analysis.compare import VERDICTS, signal_alarm
    from rouge_tui.analysis.figures import percent

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    rows = "".join(
        f"<tr><td>{role}</td><td>{_h(s['name'])}</td><td class=n>{s['runs']}</td><td class=n>{s['n']}</td>"
        f"<td class=n>{s['mean']:.4f}</td><td class=n>{band_words(s['band'])}</td><td>{_h(s['band_source'])}</td></tr>"
        for role, s in (("baseline", b), ("candidate", c))
    )
    runs = max(b["runs"], c["runs"])
    top = "".join(
        f"<tr><td class=n>{rank}</td><td>{_h(row['id'])}</td><td class=n>{row['baseline']:.4f}</td>"
        f"<td class=n>{row['candidate']:.4f}</td><td class=n>{_h(signed(row['delta']))}</td>"
        f"<td>{_h(signal_words(row, runs))}</td><td>{_h(mark_word(data, row['id']))}</td>"
        f"<td class=prose>{_h_text(note_of(data, row['id']))}</td></tr>"
        for rank, row in enumerate(data["top"], 1)
    )
    left_out = "".join(
        f"<p>{label} ({len(data[key])}): {_h(listing(data[key]))}</p>"
        for key, label in LEFT_OUT
        if data[key]
    )
    warnings = "".join(f'<p class="warn">{_h(w)}</p>' for w in data["warnings"])
    counts = _h(", ".join(f"{name} {count}" for name, count in data["signals"].items()))
    parts = [
        "<!doctype html>",
        # The phone's width, not a 980-pixel page shrunk to 6-pixel text.
        '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
        f"<title>ROUGE drift review: {_h(data['suite'])}</title><style>{page_style()}</style></head><body>",
        f"<h1>ROUGE drift review: {_h(data['suite'])}</h1>",
        (f'<p><span class="verdict {data["verdict"]}">{VERDICTS[data["verdict"]].said}</span>'
         # The alarm in the alarm's colour, and the reason after a colon (it ran on into it).
         + (f', <span class="verdict drift-down">{alarm.removeprefix(", ")}</span>' if (alarm := signal_alarm(
             data["verdict"], bool(data["signal_drift"]))) else "")
         + f": {_h(data['verdict_reason'])} (band k = {data['k']:g})</p>"),
        "".join(f'<p class="verdict drift-down">{_h(line)}</p>' for line in alarm_lines(data)),
        f"<p class=legend>{_h(band_note(data))}</p>" if band_note(data) else "",
        warnings,
        (f"<p>Signature <code>{_h(data['signature'])}</code> · references <code>{_h(data['reference_fingerprint'][:16])}</code>"
         f" · paired {data['paired']}: {_h(moved_words(data))} · Δ {_h(signed(data['delta']))}, 95% [{_h(signed(low))}, {_h(signed(high))}] ({_h(data['delta_interval_method'])})"
         f" · precision {_h(signed(data['delta_precision']))}, recall {_h(signed(data['delta_recall']))}, the ten hold {_h(percent(data['top_share']))} of |Δ|</p>"),
        f"<p>Paired test: {_h(test_words(data['delta_test']))}; {_h(data['delta_test']['method'])}</p>",
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
    if data["flagged"]:
        parts += [
            f"<h2>The {len(data['flagged'])} flagged: a drifting signal fired, most telling first</h2>",
            ("<div class=wide><table><tr><th>id</th><th>baseline</th><th>candidate</th><th>delta</th><th>signals</th>"
             "<th>mark</th><th>note</th></tr>"),
            "".join(f"<tr><td>{_h(row['id'])}</td><td class=n>{row['baseline']:.4f}</td><td class=n>{row['candidate']:.4f}</td>"
                    f"<td class=n>{_h(signed(row['delta']))}</td><td>{_h(signal_words(row, runs))}</td>"
                    f"<td>{_h(mark_word(data, row['id']))}</td>"
                    f"<td class=prose>{_h_text(note_of(data, row['id']))}</td></tr>"
                    for row in data["flagged"]),
            "</table></div>",
        ]
    if said(data):
        parts.append("<h3>What the candidate says that its reference, source and baseline do not</h3><ul>")
        for rank, row in said(data):
            found = [f"{label}: {_h(text, limit)}" for label, text, limit in findings(row)]
            name = f"{rank}. {_h(row['id'])}" if rank != "" else _h(row["id"])
            parts.append(f"<li><b>{name}</b><ul>" + "".join(f"<li>{f}</li>" for f in found) + "</ul></li>")
        parts.append("</ul>")
    for example in examples or []:
        mark = example.get("mark") or "not reviewed"
        word = mark.split(" ")[0]
        parts.append(f'<h3>{example["rank"]}. {_h(example["id"])}: <span class="mark-{_h(word)}">{_h(mark)}</span></h3>')
        if example.get("note"):
            parts.append(f'<blockquote class="text">{_h_text(example["note"])}</blockquote>')
        if example.get("run_scores"):
            parts.append(f"<p class=legend>{_h(example['run_scores'])}</p>")
        parts += [f"<p class=legend>Cut: {_h(note)}.</p>" for note in example.get("cut", ())]
        for title, pieces, arithmetic in example["sides"]:
            parts.append(f"<p><b>{_h(title)}</b> <span class=arith>{_h(arithmetic)}</span></p><div class=text>{pieces}</div>")
        parts.append(f"<p><b>reference</b></p><div class=text>{example['reference']}</div>")
        parts.append('<p class=legend>matched by: <span class="both">both</span> · <span class="baseline">baseline only</span> · '
                     '<span class="candidate">candidate only</span> · neither; <span class="flag">[?] </span> no counterpart in the '
                     'reference or source — read it; <span class="newfig">«N»</span> a figure in no other text</p>')
        parts.append(f"<p><b>baseline → candidate</b></p><div class=text>{example['words']}</div>")
    if data.get("history"):
        parts.append(f"<h2>History</h2><p class=legend>{_h(history_basis(data))}</p>")
        parts.append("<div class=wide><table><tr><th>build</th><th>runs</th><th>n</th><th>mean</th><th>band</th>"
                     "<th>paired Δ</th><th>verdict</th></tr>")
        for h in data["history"]:
            if h["mean"] is None:
                parts.append(f"<tr><td>{_h(h['name'])}</td><td class=n>{h['runs']}</td><td></td><td></td><td class=prose>✗ {_h(h.get('error', ''))}</td><td></td><td></td></tr>")
            else:
                delta, verdict = step_words(h, data)
                parts.append(f"<tr><td>{_h(h['name'])}</td><td class=n>{h['runs']}</td><td class=n>{h['n']}</td>"
                             f"<td class=n>{h['mean']:.4f}</td><td class=n>{band_words(h['band'])}</td>"
                             f"<td class=n>{_h(delta)}</td><td>{_h(verdict)}</td></tr>")
        parts.append("</table></div>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def html_page(made: Report) -> str:
    """The page of ``made``, with each of its examples."""
    return render_html(made.data, html_examples(made.examples))


def html_examples(shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The examples in the form `render_html` takes."""
    from rouge_tui.diff import empty_output

    out = []
    for entry in shown:
        if "diff" not in entry:
            continue
        diff = entry["diff"]
        out.append({
            "rank": entry["rank"], "id": entry["id"], "mark": entry["mark"], "note": entry["note"], "cut": entry["cut"],
            "run_scores": entry["run_scores"],
            "sides": [(f"{role} · {side.build}{run_note(runs, entry['shown_run'])}", f'<span class="fold">{empty}</span>' if (empty := empty_output(side.text))
                       else html_pieces(pieces), side.arithmetic())
                      for role, side, pieces, runs in (("baseline", diff.baseline, entry["sides"][0], entry["runs"][0]),
                                                        ("candidate", diff.candidate, entry["sides"][1], entry["runs"][1]))],
            "reference": html_pieces(diff.reference.pieces()),
            "words": html_pieces(entry["words"]),
        })
    return out
