"""The report as JSON, the contract other tools read (SPEC "Interfaces"): `to_json` makes
the object every other format renders from, `render_json` writes it ASCII-only."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from rouge_tui.safetext import one_line

if TYPE_CHECKING:
    from rouge_tui.analysis.compare import BuildStats
    from rouge_tui.analysis.figures import Figures


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

