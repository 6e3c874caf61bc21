"""Renderings of an analysis: JSON (the contract other tools read), Markdown, and a Rich table.

Ids, build names and suite names are untrusted: they reach the terminal only through
``safetext`` and Rich ``Text`` objects (never markup), JSON is ASCII-escaped, and Markdown
escapes its own punctuation.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rouge_tui.compare import (
    VERDICT_DOWN,
    VERDICT_UP,
    Comparison,
    signal_words,
)
from rouge_tui.safetext import one_line
from rouge_tui.scoring import Analysis
from rouge_tui.state import Mark

VERDICT_WORDS = {VERDICT_DOWN: "drift-down", VERDICT_UP: "drift-up"}
VERDICT_MARKS = {VERDICT_DOWN: "▼", VERDICT_UP: "▲"}


def verdict_words(verdict: str) -> str:
    """The verdict as shown to a person: ``drift-down``, ``drift-up`` or ``within band``."""
    return VERDICT_WORDS.get(verdict, "within band")


def verdict_mark(verdict: str) -> str:
    """A direction mark that works without colour: ▼ down, ▲ up, ● within band."""
    return VERDICT_MARKS.get(verdict, "●")


def verdict_sentence(comparison: Comparison) -> str:
    low, high = comparison.baseline.band
    mean = comparison.candidate.mean
    if comparison.verdict == VERDICT_DOWN:
        return f"candidate mean {mean:.4f} is below the baseline band [{low:.4f}, {high:.4f}]"
    if comparison.verdict == VERDICT_UP:
        return f"candidate mean {mean:.4f} is above the baseline band [{low:.4f}, {high:.4f}]"
    return f"candidate mean {mean:.4f} is inside the baseline band [{low:.4f}, {high:.4f}]"


def marks_json(marks: dict[str, Mark], current: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Marks for the JSON report; ``stale`` when the outputs changed since the mark was set."""
    result: dict[str, dict[str, Any]] = {}
    for key in sorted(marks):
        mark = marks[key]
        entry: dict[str, Any] = {"mark": mark.mark, "note": mark.note}
        if key in current:
            entry["stale"] = current[key] != mark.outputs
        result[key] = entry
    return result


def to_json(
    analysis: Analysis, top: int = 10, marks: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The report as one JSON object; field names are SPEC's contract."""
    c = analysis.comparison

    def build(stats: Any) -> dict[str, Any]:
        return {
            "name": stats.name,
            "runs": int(stats.runs),
            "n": int(stats.n),
            "mean": stats.mean,
            "band": [stats.band[0], stats.band[1]],
            "band_source": stats.band_source,
        }

    top_rows = [
        {
            "id": c.ids[i],
            "baseline": float(c.baseline_f[i]),
            "candidate": float(c.candidate_f[i]),
            "delta": float(c.delta[i]),
            "signals": signal_words(int(c.signals[i]), short=False).split(),
        }
        for i in range(min(top, c.paired))
    ]
    return {
        "suite": analysis.suite.name,
        "metric": c.metric,
        "tokenizer": c.tokenizer,
        "stem": c.stem,
        "baseline": build(c.baseline),
        "candidate": build(c.candidate),
        "delta": c.delta_mean,
        "delta_interval": [c.delta_interval[0], c.delta_interval[1]],
        "delta_interval_method": c.delta_interval_method,
        "verdict": c.verdict,
        "verdict_reason": verdict_sentence(c),
        "paired": c.paired,
        "only_in_baseline": c.only_in_baseline,
        "only_in_candidate": c.only_in_candidate,
        "missing_reference": c.missing_reference,
        "partial": c.partial,
        "signature": analysis.signature,
        "reference_fingerprint": analysis.suite.fingerprint,
        "k": c.k,
        "signals": c.signal_counts(),
        "top": top_rows,
        "marks": marks or {},
    }


def history_entry(data: dict[str, Any]) -> dict[str, Any]:
    """What the per-suite history keeps of one report."""
    return {
        "fingerprint": data["reference_fingerprint"],
        "signature": data["signature"],
        "baseline": data["baseline"]["name"],
        "candidate": data["candidate"]["name"],
        "baseline_mean": data["baseline"]["mean"],
        "candidate_mean": data["candidate"]["mean"],
        "verdict": data["verdict"],
    }


def references_warning(data: dict[str, Any]) -> str | None:
    change = data.get("references_changed")
    if not change:
        return None
    return (
        f"WARNING: the references changed since {change['since']} "
        f"({change['previous'][:12]} -> {change['current'][:12]}): "
        "deltas against earlier figures are not comparable"
    )


def render_json(data: dict[str, Any]) -> str:
    """ASCII-only JSON, so no byte of untrusted text can act on a terminal."""
    return json.dumps(data, ensure_ascii=True, indent=2) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~])")


def md(text: str) -> str:
    """Escape untrusted text for a Markdown table cell (one line; inline syntax backslashed)."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def _listing(ids: list[str], limit: int = 20) -> str:
    shown = ", ".join(one_line(i, 40) for i in ids[:limit])
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"{shown}{more}"


def render_markdown(data: dict[str, Any]) -> str:
    """The report as Markdown, for a CI summary or a ticket."""
    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    lines = [
        f"# ROUGE drift report: {md(data['suite'])}",
        "",
        f"**Verdict: {verdict_mark(data['verdict'])} {verdict_words(data['verdict'])}**"
        f" (band k = {data['k']:g})",
        "",
        *([f"> **{references_warning(data)}**", ""] if references_warning(data) else []),
        f"- Signature: `{data['signature']}`",
        f"- Reference fingerprint: `{data['reference_fingerprint'][:16]}`",
        f"- Paired examples: {data['paired']}",
        f"- Delta: {data['delta']:+.4f}, 95% interval [{low:+.4f}, {high:+.4f}]"
        f" ({data['delta_interval_method']})",
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
    for key, label in (
        ("only_in_baseline", "Only in baseline"),
        ("only_in_candidate", "Only in candidate"),
        ("missing_reference", "Missing reference"),
    ):
        if data[key]:
            lines.append(f"- {label} ({len(data[key])}): {md(_listing(data[key]))}")
    lines += [
        "",
        f"## The {len(data['top'])} most-moved outputs",
        "",
        "| rank | id | baseline | candidate | delta | signals | mark |",
        "| ---: | --- | ---: | ---: | ---: | --- | --- |",
    ]
    marks = data["marks"]
    for rank, row in enumerate(data["top"], 1):
        mark = marks.get(row["id"], {}).get("mark", "")
        lines.append(
            f"| {rank} | {md(row['id'])} | {row['baseline']:.4f} | {row['candidate']:.4f} |"
            f" {row['delta']:+.4f} | {' '.join(row['signals'])} | {mark} |"
        )
    return "\n".join(lines) + "\n"


def render_text(data: dict[str, Any], width: int | None = None) -> "object":
    """A Rich renderable for a terminal or a CI log (no markup from the data ever parsed)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    verdict_style = {"drift-down": "bold red", "drift-up": "bold yellow"}.get(data["verdict"], "bold green")
    head = Text()
    head.append(one_line(data["suite"]), style="bold")
    head.append(f"\nsignature  {data['signature']}   references {data['reference_fingerprint'][:12]}")
    head.append("\nverdict    ")
    head.append(f"{verdict_mark(data['verdict'])} {verdict_words(data['verdict'])}", style=verdict_style)
    head.append(f"\n           {data['verdict_reason']}")
    head.append(
        f"\ndelta      {data['delta']:+.4f}  95% [{low:+.4f}, {high:+.4f}] {data['delta_interval_method']}"
        f"   paired {data['paired']}   k {data['k']:g}"
    )

    warning = references_warning(data)
    if warning:
        head.append("\n" + warning, style="bold yellow")

    builds = Table(box=None, pad_edge=False, show_edge=False)
    for col, justify in (("", "left"), ("build", "left"), ("runs", "right"), ("n", "right"),
                         ("mean", "right"), ("band", "left"), ("source", "left")):
        builds.add_column(col, justify=justify)  # type: ignore[arg-type]
    for role, s in (("baseline", b), ("candidate", c)):
        builds.add_row(
            role, Text(one_line(s["name"], 40)), str(s["runs"]), str(s["n"]), f"{s['mean']:.4f}",
            f"[{s['band'][0]:.4f}, {s['band'][1]:.4f}]", s["band_source"],
        )

    notes = Text()
    notes.append("signals: " + " · ".join(f"{k} {v}" for k, v in data["signals"].items()))
    for key, label in (
        ("only_in_baseline", "only in baseline"),
        ("only_in_candidate", "only in candidate"),
        ("missing_reference", "missing reference"),
    ):
        if data[key]:
            notes.append(f"\n{label} ({len(data[key])}): {_listing(data[key], 8)}")

    top = Table(title=f"the {len(data['top'])} most-moved outputs", title_justify="left", box=None)
    for col, justify in (("#", "right"), ("id", "left"), ("base", "right"), ("cand", "right"),
                         ("delta", "right"), ("signals", "left"), ("mark", "left")):
        top.add_column(col, justify=justify)  # type: ignore[arg-type]
    for rank, row in enumerate(data["top"], 1):
        mark = data["marks"].get(row["id"], {}).get("mark", "")
        top.add_row(
            str(rank), Text(one_line(row["id"], 32)), f"{row['baseline']:.4f}",
            f"{row['candidate']:.4f}", f"{row['delta']:+.4f}", " ".join(row["signals"]), mark,
        )
    return Group(head, Text(""), builds, Text(""), notes, Text(""), top)
