"""The words every human-readable format (text, Markdown, HTML) says the same way: a row's
signals, the paired test, the alarms, how many moved, the left-out ids, a row's mark and
what its candidate says that nothing else does. Each format escapes them its own way."""

from __future__ import annotations

import math
from typing import Any

from rouge_tui.errors import quoted
from rouge_tui.numbers import signed

# The ids the pairing left out, as every format lists them.
LEFT_OUT = (("only_in_baseline", "Only in baseline"), ("only_in_candidate", "Only in candidate"),
            ("missing_reference", "Missing reference"))

def history_basis(data: dict[str, Any]) -> str:
    """What the history's figures are over, and of which score: why a build's n and mean
    there differ from the comparison's (SPEC "History")."""
    scoring = f"{data['metric']} F, tokenizer {data['tokenizer']}{', stemming' if data['stem'] else ''}"
    said = ("each build over its own ids with a reference; paired Δ and verdict against the build before it "
            f"with figures, over the ids both builds have ({scoring})")
    if any(h.get("against_band_source") == "history" for h in data.get("history") or ()):
        # Its verdict then reads no band shown in its table (a helper's pass: a mean inside
        # the band above it, judged drift-down).
        said += '; [band] source = "history": a verdict is against the band from the means of up to five builds'
    return said


def step_words(entry: dict[str, Any], data: dict[str, Any]) -> tuple[str, str]:
    """A history entry's paired Δ and verdict against the build before it, or blanks; the
    pair the report compares says its signal alarm too, as the report's verdict does (its
    row read "within band" under a report that exited 1 on the alarm)."""
    from rouge_tui.analysis.compare import VERDICTS, signal_alarm

    if entry.get("delta") is None:
        return "", ""
    compared = (entry["against"], entry["name"]) == (data["baseline"]["name"], data["candidate"]["name"])
    alarm = signal_alarm(entry["verdict"], bool(data["signal_drift"])) if compared else ""
    return signed(entry["delta"]), VERDICTS[entry["verdict"]].words + alarm


def said(data: dict[str, Any]) -> list[tuple[int | str, dict[str, Any]]]:
    """(rank, row) of the top rows, then the flagged ones (rank ""), whose candidate says
    something new: the flagged are where a new figure or sentence raised the alarm."""
    listed = [*enumerate(data["top"], 1), *(("", row) for row in data["flagged"])]
    return [(rank, row) for rank, row in listed if row["new_sentences"] or row["new_figures"]]


def other_marks(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(id, mark) of the marked examples in neither the top rows nor the flagged: what a
    reviewer wrote is never left out of a report."""
    listed = {row["id"] for row in (*data["top"], *data["flagged"])}
    return [(example_id, entry) for example_id, entry in data["marks"].items() if example_id not in listed]


def findings(row: dict[str, Any], sentences: int = 300, figures: int = 200) -> list[tuple[str, str, int]]:
    """What a row's candidate says that its reference, source and baseline do not, as
    (label, untrusted text, the length to cut it at): each new sentence, then its new
    figures in one line; each once (an output that repeats a line says it twice: the
    duplicated signal says so)."""
    found = [("new sentence", sentence, sentences) for sentence in dict.fromkeys(row["new_sentences"])]
    if row["new_figures"]:
        distinct = list(dict.fromkeys(row["new_figures"]))
        label = "new figure" if len(distinct) == 1 else "new figures"  # ("3 new figures: 3-1" read as a count)
        found.append((label, ", ".join(distinct), figures))
    return found


def signal_words(row: dict[str, Any], runs: int) -> str:
    """A row's signals for a person: ``new-figure 1/3`` with replicate runs."""
    fired = row.get("signal_runs")
    return " ".join(f"{name} {fired[name]}/{runs}" if fired and name in fired else name for name in row["signals"])


def test_words(test: dict[str, Any]) -> str:
    """The paired test in a line (its seed is in the signature), each figure by the method
    it comes from (a newcomer read the p as the bootstrap's): ``bootstrap 95% [-0.0531,
    -0.0177]  sign-flip p 0.0001  detectable ±0.0251``."""
    low, high = test["interval"]
    p = test["p_value"]
    return (f"bootstrap 95% [{signed(low)}, {signed(high)}]  sign-flip p {p_words(p)}"
            f"  detectable ±{test['min_detectable']:.4f}")


def p_words(p: float) -> str:
    """A p-value as it reads: ``< 0.0001`` rather than a row of zeros."""
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def band_words(band: list[float]) -> str:
    """A build's band: ``[0.3120, 0.3340]``."""
    return f"[{band[0]:.4f}, {band[1]:.4f}]"


def alarm_lines(data: dict[str, Any]) -> list[str]:
    """Each signal drift in words, with the top of its band in outputs at this pair's size
    (``▲ new figures: 50 outputs (earlier pairs 0-3), band up to 9``)."""
    from rouge_tui.analysis.triage import drift_words

    return [f"{drift_words(d)}, band up to {math.floor(d['band'][1] * data['paired'] + 1e-9)}"
            for d in data["signal_drift"]]


def band_note(data: dict[str, Any]) -> str:
    """Why the signals have no band, once (too little history); with bands, that none is
    above its band (`quiet_words`) where none is; else nothing (the alarm lines say a drift)."""
    from rouge_tui.analysis.triage import quiet_words

    rates = data.get("signal_rates", [])
    reasons = {r["no_band"] for r in rates if r.get("no_band")}
    if reasons:
        return f"no signal band: {min(reasons).removeprefix('no band: ')}"
    return quiet_words(rates)


def moved_words(data: dict[str, Any]) -> str:
    """How many examples improved and how many regressed, and by how much at least."""
    moved = data["moved"]
    return f"{moved['improved']} improved, {moved['regressed']} regressed (|Δ| > {moved['by_more_than']:g})"


def listing(ids: list[str], limit: int = 20) -> str:
    """The first ``limit`` ids, each quoted on one line cut at 40, and how many more: bare,
    the id "1 " read as 1, and one holding ", " as two."""
    shown = ", ".join(quoted(i, 40) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def note_of(data: dict[str, Any], example_id: str) -> str:
    """An example's note ("" without one), after where a mark carried from another pair was
    written (SPEC: "the pair it came from"): what every format's notes column shows."""
    entry = data["marks"].get(example_id) or {}
    carried = entry.get("carried_from")
    origin = f"(carried from {carried['baseline']} → {carried['candidate']}) " if carried else ""
    return (origin + (entry.get("note") or "")).rstrip(" ") if origin else entry.get("note") or ""


def mark_word(data: dict[str, Any], example_id: str) -> str:
    """An example's mark as a table cell shows it (``fine (carried)``), or nothing."""
    entry = data["marks"].get(example_id)
    if not entry:
        return ""
    word = entry["mark"]
    if entry.get("carried_from"):
        word += " (carried)"
    if entry.get("stale"):
        word += " (stale)"
    return word
