"""Renderings of a comparison: `build` makes one `Report`, and every format in `FORMATS`
(text, JSON, the contract other tools read, Markdown, HTML and Parquet) renders from it.

Importing this module loads no analysis (the command line reads `FORMATS` for ``--help``).
Suite text (ids, build and suite names, outputs) is untrusted: in text it goes through
``safetext.one_line`` into Rich ``Text`` (never markup), JSON is ASCII-escaped, Markdown
escapes its own punctuation, HTML shows ``one_line`` (running texts ``visible``) as entities.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rouge_tui.safetext import one_line, visible

if TYPE_CHECKING:
    from rouge_tui.analysis.compare import BuildStats
    from rouge_tui.analysis.figures import Figures
    from rouge_tui.analysis.pipeline import Texts
    from rouge_tui.review import Review
    from rouge_tui.store.log import ReferenceChange

__all__ = ["FORMATS", "Format", "Report", "build", "render_json", "render_markdown", "render_text"]


# The ids the pairing left out, as every format lists them.
LEFT_OUT = (("only_in_baseline", "Only in baseline"), ("only_in_candidate", "Only in candidate"),
            ("missing_reference", "Missing reference"))


def _said(data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(rank, row) of the top rows whose candidate says something new."""
    return [(rank, row) for rank, row in enumerate(data["top"], 1) if row["new_sentences"] or row["new_figures"]]


# Why a build's n and mean in the history differ from the comparison's (SPEC "History").
HISTORY_BASIS = "each build over its own ids with a reference; the comparison over the ids both builds have"


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
    from rouge_tui.analysis import signals
    from rouge_tui.analysis.figures import MOVED_BY

    f = figures
    shown = details if details is not None else f.details
    rows = [_row(f, rank, shown[rank] if rank < len(shown) else {}) for rank in range(min(top, f.paired))]
    flagged = [_row(f, rank, found) for rank, found in f.flagged_after(len(rows))]  # (past those in top)
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
        "delta_test": f.delta_test,
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
        "flagged": flagged,
        "signal_drift": [rate.to_json() for rate in f.drifting],
        "signal_rates": [{**rate.to_json(), "alarm": rate.alarm, **({"no_band": rate.reason} if rate.reason else {})}
                         for rate in f.rates],
        "signals": signals.counts(f.signals),
        "warnings": list(f.warnings),
        "delta_precision": f.delta_precision,
        "delta_recall": f.delta_recall,
        "top_share": f.top_share,
        "moved": {"by_more_than": MOVED_BY, "improved": f.improved, "regressed": f.regressed},
        "marks": marks or {},
    }
    data.update(extra or {})
    return data


def _row(f: Figures, rank: int, found: dict[str, Any]) -> dict[str, Any]:
    """One example as `top` and `flagged` list it (``found``: its grounding fields); with
    replicate runs also each run's F, how many runs each signal fired in, and the run shown."""
    from rouge_tui.analysis import signals

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
    row.update(found)
    if f.run_f:
        row["runs"] = {role: [float(x) for x in values[:, rank]] for role, values in f.run_f.items()}
        row["shown_run"] = f.run_moved(rank) + 1
        if f.runs_fired is not None:
            row["signal_runs"] = {s.name: int(f.runs_fired[bit, rank]) for bit, s in enumerate(signals.SIGNALS)
                                  if f.signals[rank] >> bit & 1}
    return row


@dataclass(frozen=True)
class Report:
    """One comparison as every format shows it: ``data``, the JSON object (SPEC's contract:
    the other formats render from it), the ``figures`` it was made from, and ``review``, the
    marks laid on the texts, for the formats that show the texts (`Format.texts`)."""

    data: dict[str, Any]
    figures: Figures
    review: Review | None = None

    @cached_property
    def examples(self) -> list[dict[str, Any]]:
        """Each example the page and the exported review show, with its diff (`examples`):
        the top, the flagged, then every other example marked."""
        assert self.review is not None, "the examples need the texts"
        ids = [row["id"] for row in self.data["top"] + self.data["flagged"]]
        ids += sorted(set(self.data["marks"]) - set(ids))
        return examples(self.review, ids)


def build(
    figures: Figures,
    top: int,
    *,
    marks: dict[str, dict[str, Any]] | None = None,
    warnings: list[str] | tuple[str, ...] = (),
    change: ReferenceChange | None = None,
    history: list[dict[str, Any]] | None = None,
    texts: Callable[[], Texts] | None = None,
    review: Review | None = None,
) -> Report:
    """The report of ``figures`` with its ``top`` most-moved outputs (the rows past those whose
    grounding the figures keep are grounded in ``texts()``, read only then), the ``marks`` as the
    JSON gives them, the ``warnings`` of the review beyond the figures' own, how the
    references moved since (``change``), each build's ``history`` row (with --history), and
    the ``review`` the formats that show texts need."""
    details = None
    if min(top, figures.paired) > len(figures.details):  # beyond the ranks the figures keep: from the texts
        from rouge_tui.analysis.unseen import details as grounded

        assert texts is not None, "rows past the figures' own need the texts"
        rows = range(min(top, figures.paired))  # each on the run its diff opens on
        details = grounded(texts(), [figures.ids[r] for r in rows], figures.settings.min_support,
                           [figures.run_moved(r) for r in rows])
    data = to_json(figures, top, marks, details, extra={"history": history} if history is not None else None)
    data["warnings"] += warnings
    data["references_changed"] = (
        {"previous": change.previous, "current": change.current, "since": change.since} if change else None
    )
    return Report(data, figures, review)


def signal_words(row: dict[str, Any], runs: int) -> str:
    """A row's signals for a person: ``new-figure 1/3`` with replicate runs."""
    fired = row.get("signal_runs")
    return " ".join(f"{name} {fired[name]}/{runs}" if fired and name in fired else name for name in row["signals"])


def test_words(test: dict[str, Any]) -> str:
    """The paired test in a line (its seed is in the signature): ``bootstrap 95% [-0.0531,
    -0.0177]  p 0.0001  detectable ±0.0251``."""
    low, high = test["interval"]
    p = test["p_value"]
    return (f"bootstrap 95% [{low:+.4f}, {high:+.4f}]  p {p_words(p)}"
            f"  detectable ±{test['min_detectable']:.4f}")


def p_words(p: float) -> str:
    """A p-value as it reads: ``< 0.0001`` rather than a row of zeros."""
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def alarm_lines(data: dict[str, Any]) -> list[str]:
    """Each signal drift in words, with the top of its band in outputs at this pair's size
    (``▲ new figures: 50 outputs (earlier pairs 0-3), band up to 9``)."""
    from rouge_tui.analysis.triage import drift_words

    return [f"{drift_words(d)}, band up to {math.floor(d['band'][1] * data['paired'] + 1e-9)}"
            for d in data["signal_drift"]]


def band_note(data: dict[str, Any]) -> str:
    """Why the signals have no band, once (too little history), else nothing."""
    reasons = {r["no_band"] for r in data.get("signal_rates", []) if r.get("no_band")}
    return f"no signal band: {min(reasons).removeprefix('no band: ')}" if reasons else ""


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


def moved_words(data: dict[str, Any]) -> str:
    """How many examples improved and how many regressed, and by how much at least."""
    moved = data["moved"]
    return f"{moved['improved']} improved, {moved['regressed']} regressed (|Δ| > {moved['by_more_than']:g})"


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
    from rouge_tui.analysis.compare import VERDICTS
    from rouge_tui.analysis.figures import percent

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    lines = [
        f"# ROUGE drift report: {md(data['suite'])}",
        "",
        (f"**Verdict: {VERDICTS[data['verdict']].said}**"
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
        (f"- Delta: {data['delta']:+.4f}, 95% interval [{low:+.4f}, {high:+.4f}]"
         f" ({data['delta_interval_method']})"),
        f"- Paired test: {test_words(data['delta_test'])}; {data['delta_test']['method']}",
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
    long_notes = []  # (rank, id, lines) of notes of several lines: whole below the table
    for rank, row in enumerate(data["top"], 1):
        note = data["marks"].get(row["id"], {}).get("note", "")
        # A table cell holds one line: a note of several shows its first, and then whole
        # below the table (a raw <br> would be HTML from untrusted text).
        note_lines = note.splitlines()
        if len(note_lines) > 1:
            long_notes.append((rank, row["id"], note_lines))
            note = f"{note_lines[0]} (whole note below)"
        lines.append(
            f"| {rank} | {md(row['id'], 60)} | {row['baseline']:.4f} | {row['candidate']:.4f} |"
            f" {row['delta']:+.4f} | {signal_words(row, max(b['runs'], c['runs']))} | {_mark_word(data, row['id'])} |"
            f" {md(note, 200)} |"
        )
    runs = max(b["runs"], c["runs"])
    if data["flagged"]:
        lines += ["", f"## The {len(data['flagged'])} flagged: a drifting signal fired, most telling first", "",
                  "| id | baseline | candidate | delta | signals | mark |", "| --- | ---: | ---: | ---: | --- | --- |"]
        lines += [f"| {md(row['id'], 60)} | {row['baseline']:.4f} | {row['candidate']:.4f} | {row['delta']:+.4f} |"
                  f" {signal_words(row, runs)} | {_mark_word(data, row['id'])} |" for row in data["flagged"]]
    if long_notes:
        lines += ["", "### Notes of several lines", ""]
        for rank, example_id, note_lines in long_notes:
            lines += [f"- **{rank}. {md(example_id, 60)}**", "", *(f"  > {md(line, 500)}" for line in note_lines), ""]
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

    from rouge_tui.analysis.compare import VERDICTS
    from rouge_tui.analysis.figures import percent

    b, c = data["baseline"], data["candidate"]
    low, high = data["delta_interval"]
    style = VERDICTS[data["verdict"]].style
    head = Text()
    head.append(one_line(data["suite"]), style="bold")
    head.append(f"\nsignature  {data['signature']}  refs {data['reference_fingerprint'][:12]}")
    head.append("\nverdict    ")
    head.append(VERDICTS[data["verdict"]].said, style=style)
    head.append(f"\n           {data['verdict_reason']}")
    head.append(
        f"\ndelta      {data['delta']:+.4f}  95% [{low:+.4f}, {high:+.4f}] "
        f"{data['delta_interval_method']}   paired {data['paired']}   k {data['k']:g}"
    )
    test = data["delta_test"]
    head.append(f"\npaired     {test_words(test)}")
    head.append(f"\nexamples   {moved_words(data)}")
    head.append(
        f"\nmoved      precision {data['delta_precision']:+.4f}  recall {data['delta_recall']:+.4f}"
        f"  the ten hold {percent(data['top_share'])} of |delta|"
    )
    for line in alarm_lines(data):
        head.append("\nalarm      " + line, style="bold red")
    bands = band_note(data)
    if bands:
        head.append("\nsignals    " + bands)
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

    runs = max(b["runs"], c["runs"])

    def listing(title: str) -> Table:
        table = Table(title=title, title_justify="left", box=None)
        for column, justify in (("#", "right"), ("id", "left"), ("base", "right"), ("cand", "right"),
                                ("delta", "right"), ("signals", "left"), ("mark", "left")):
            table.add_column(column, justify=justify)
        return table

    top = listing(f"the {len(data['top'])} most-moved outputs")
    said = Table.grid(padding=(0, 1))  # a long sentence wraps under itself, not under the id
    said.add_column(justify="right", min_width=3)
    said.add_column()
    said.add_column(overflow="fold")  # a word wider than the column (a URL, Chinese) whole
    for rank, row in enumerate(data["top"], 1):
        top.add_row(
            str(rank), Text(one_line(row["id"], 32)), f"{row['baseline']:.4f}",
            f"{row['candidate']:.4f}", f"{row['delta']:+.4f}", signal_words(row, runs),
            Text(_mark_word(data, row["id"])),
        )
        for sentence in row["new_sentences"]:
            said.add_row(str(rank), Text(one_line(row["id"], 24)), Text("new sentence: " + one_line(sentence, 200)))
        if row["new_figures"]:
            said.add_row(str(rank), Text(one_line(row["id"], 24)),
                         Text("new figures: " + one_line(", ".join(row["new_figures"]), 120)))
    parts = [head, Text(""), builds, Text(""), notes, *([Text(""), top] if data["top"] else [])]
    if data["flagged"]:
        flagged = listing(f"the {len(data['flagged'])} flagged: a drifting signal fired, most telling first")
        for row in data["flagged"]:
            flagged.add_row(
                "", Text(one_line(row["id"], 32)), f"{row['baseline']:.4f}", f"{row['candidate']:.4f}",
                f"{row['delta']:+.4f}", signal_words(row, runs), Text(_mark_word(data, row["id"])),
            )
            for sentence in row["new_sentences"]:
                said.add_row("", Text(one_line(row["id"], 24)), Text("new sentence: " + one_line(sentence, 200)))
            if row["new_figures"]:
                said.add_row("", Text(one_line(row["id"], 24)),
                             Text("new figures: " + one_line(", ".join(row["new_figures"]), 120)))
        parts += [Text(""), flagged]
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


# --------------------------------------------------------------------------- examples


def run_note(runs: int, shown: int = 0) -> str:
    """Which run of a build with replicate runs an export shows (the one the app's diff
    opens on, whose F moved most: the app's `r` steps through the others)."""
    return f", run {min(shown, runs - 1) + 1} of {runs}" if runs > 1 else ""


def run_scores(figures: Figures, rank: int) -> str:
    """Every run's F of both builds, and which run is shown (SPEC "Triage": replicate runs)."""
    if not figures.run_f:
        return ""
    each = "; ".join(f"{role} " + " ".join(f"{f:.4f}" for f in figures.run_f[role][:, rank])
                     for role in ("baseline", "candidate"))
    return f"F by run: {each} (shown: run {figures.run_moved(rank) + 1}, the one that moved most)"


def mark_words(review: Review, example_id: str) -> tuple[str, str]:
    shown = review.get(example_id)
    if shown is None:
        return "not reviewed", ""
    word = shown.word
    if shown.carried_from:
        word += f" (carried from {shown.carried_from[0]} → {shown.carried_from[1]})"
    if shown.stale:
        word += f" (stale: {shown.reason})"
    return word, shown.note


def examples(review: Review, ids: list[str]) -> list[dict[str, Any]]:
    """What the renderings show of each example: rank, mark, note, and its diff's pieces."""
    from rouge_tui.analysis import grounding
    from rouge_tui.diff import (
        OTHER_TEXT,
        annotate,
        cut_texts,
        example_diff,
        grounding_tags,
        word_diff,
    )

    figures, texts = review.analysis.figures, review.texts
    ranks = {example_id: rank for rank, example_id in enumerate(figures.ids)}
    out = []
    for example_id in ids:
        mark, note = mark_words(review, example_id)
        rank = ranks.get(example_id)
        entry: dict[str, Any] = {"id": example_id, "rank": rank + 1 if rank is not None else "—", "mark": mark, "note": note}
        if rank is not None:
            shown_run = figures.run_moved(rank)
            whole = texts.outputs(example_id, shown_run)
            references = texts.references.texts[example_id]
            settings = review.analysis.settings
            # Grounded whole, as the table's counts are; aligned and shown cut, as in the app.
            found = grounding.ground(whole[1], references, texts.references.sources.get(example_id),
                                     whole[0], settings.min_support)
            cut, notes = cut_texts([("baseline", whole[0]), ("candidate", whole[1]),
                                    *((f"reference {i + 1}", r) for i, r in enumerate(references))])
            baseline, candidate, references = cut[0], cut[1], cut[2:]
            diff = example_diff(example_id, references, baseline, candidate,
                                settings, (texts.baseline.name, texts.candidate.name))
            tags = {"baseline": grounding_tags(found.baseline, len(baseline)),
                    "candidate": grounding_tags(found.candidate, len(candidate))}
            entry.update(
                cut=notes,
                runs=(len(texts.baseline.runs), len(texts.candidate.runs)), shown_run=shown_run,
                run_scores=run_scores(figures, rank),
                scores=(float(figures.baseline_f[rank]), float(figures.candidate_f[rank]), float(figures.delta[rank])),
                diff=diff,
                sides=(annotate(diff.baseline.pieces(), tags["baseline"]), annotate(diff.candidate.pieces(), tags["candidate"])),
                words=annotate(word_diff(baseline, candidate)[2], tags["candidate"], skip=OTHER_TEXT),
            )
        out.append(entry)
    return out


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


# --------------------------------------------------------------------------- HTML

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
    from rouge_tui.analysis.compare import VERDICTS
    from rouge_tui.analysis.figures import percent

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
        f"<td>{_h(signal_words(row, max(b['runs'], c['runs'])))}</td><td>{_h(_mark_word(data, row['id']))}</td>"
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
        f"<title>ROUGE drift review: {_h(data['suite'])}</title><style>{page_style()}</style></head><body>",
        f"<h1>ROUGE drift review: {_h(data['suite'])}</h1>",
        (f'<p><span class="verdict {data["verdict"]}">{VERDICTS[data["verdict"]].said}</span> '
         f"{_h(data['verdict_reason'])} (band k = {data['k']:g})</p>"),
        "".join(f'<p class="verdict drift-down">{_h(line)}</p>' for line in alarm_lines(data)),
        f"<p class=legend>{_h(band_note(data))}</p>" if band_note(data) else "",
        warnings,
        (f"<p>Signature <code>{_h(data['signature'])}</code> · references <code>{_h(data['reference_fingerprint'][:16])}</code>"
         f" · paired {data['paired']}: {_h(moved_words(data))} · Δ {data['delta']:+.4f}, 95% [{low:+.4f}, {high:+.4f}] ({_h(data['delta_interval_method'])})"
         f" · precision {data['delta_precision']:+.4f}, recall {data['delta_recall']:+.4f}, the ten hold {percent(data['top_share'])} of |Δ|</p>"),
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
    runs = max(b["runs"], c["runs"])
    if data["flagged"]:
        parts += [
            f"<h2>The {len(data['flagged'])} flagged: a drifting signal fired, most telling first</h2>",
            "<div class=wide><table><tr><th>id</th><th>baseline</th><th>candidate</th><th>delta</th><th>signals</th><th>mark</th></tr>",
            "".join(f"<tr><td>{_h(row['id'])}</td><td class=n>{row['baseline']:.4f}</td><td class=n>{row['candidate']:.4f}</td>"
                    f"<td class=n>{row['delta']:+.4f}</td><td>{_h(signal_words(row, runs))}</td>"
                    f"<td>{_h(_mark_word(data, row['id']))}</td></tr>" for row in data["flagged"]),
            "</table></div>",
        ]
    said = _said(data)
    if said:
        parts.append("<h3>What the candidate says that its reference, source and baseline do not</h3><ul>")
        for rank, row in said:
            found = [f"new sentence: {_h(s, 300)}" for s in row["new_sentences"]]  # as in the Markdown
            if row["new_figures"]:
                found.append(f"new figures: {_h(', '.join(row['new_figures']), 200)}")
            parts.append(f"<li><b>{rank}. {_h(row['id'])}</b><ul>" + "".join(f"<li>{f}</li>" for f in found) + "</ul></li>")
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


# --------------------------------------------------------------------------- the formats


@dataclass(frozen=True)
class Format:
    """One way to write a report: ``render`` takes the report and the terminal's width when
    it goes to a terminal (None: a pipe, a file); ``texts``: it shows the texts, so the report
    needs its review; ``binary``: bytes that never go to a terminal."""

    name: str
    render: Callable[[Report, int | None], str | bytes]
    texts: bool = False
    binary: bool = False


def _text(made: Report, width: int | None) -> str:
    """Rich's rendering as a string: writing it ourselves keeps one error path for every
    format (Rich's own broken-pipe handling would exit 1, which reads as drift). Not to a
    terminal (a pipe, a file, a CI log), 80 columns and no trailing spaces, so the bytes are
    the same wherever it runs and read well in an 80-column pager."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=width is not None, width=width or 80,
        highlight=False, emoji=False, markup=False, soft_wrap=False,
    )
    console.print(render_text(made.data))
    text = buffer.getvalue()
    return text if width is not None else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _html(made: Report, width: int | None) -> str:
    return render_html(made.data, html_examples(made.examples))


def _parquet(made: Report, width: int | None) -> bytes:
    """Every paired example, in rank order: its id, each build's precision, recall and F (the
    mean over its runs), the delta of F, its signals and its mark and note (null: none), for
    a notebook or a warehouse. F and delta are the figures' own, so they equal the JSON's."""
    import io

    import numpy as np
    import polars as pl

    from rouge_tui.analysis import signals
    from rouge_tui.analysis.compare import run_mean
    from rouge_tui.rouge import engine

    assert made.review is not None, "the table needs the texts"
    f, texts = made.figures, made.review.texts
    s = f.settings
    references = [texts.references.texts[i] for i in f.ids]
    columns: dict[str, Any] = {"id": f.ids}
    for role, build, mean_f in (("baseline", texts.baseline, f.baseline_f), ("candidate", texts.candidate, f.candidate_f)):
        # Precision and recall are not in the figures: scored here, as the pipeline scores them.
        scores = run_mean(np.stack([engine.score(references, [run.outputs[i] for i in f.ids], s.metric, s.tokenizer, s.stem)
                                    for run in build.runs]))
        columns[f"{role}_precision"], columns[f"{role}_recall"] = scores[:, 0], scores[:, 1]
        columns[f"{role}_f"] = mean_f
    columns["delta"] = f.delta
    columns["signals"] = [signals.names(int(flags)) for flags in f.signals]
    marks = made.data["marks"]
    columns["mark"] = [marks[i]["mark"] if i in marks else None for i in f.ids]
    columns["note"] = [marks[i]["note"] if i in marks else None for i in f.ids]
    table = pl.DataFrame(columns, schema_overrides={"signals": pl.List(pl.String), "mark": pl.String, "note": pl.String})
    out = io.BytesIO()
    table.write_parquet(out)
    return out.getvalue()


# The one list of formats: ``report --format`` offers these, in this order.
FORMATS: dict[str, Format] = {format.name: format for format in (
    Format("text", _text),
    Format("json", lambda made, width: render_json(made.data)),
    Format("markdown", lambda made, width: render_markdown(made.data)),
    Format("html", _html, texts=True),
    Format("parquet", _parquet, texts=True, binary=True),
)}
