"""The report as Parquet: the per-example table (SPEC "Interfaces"), for a notebook or a
warehouse."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rouge_tui.report import Report


def parquet(made: Report) -> bytes:
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
    columns["note"] = [marks[i]["note"] or None if i in marks else None for i in f.ids]  # README: null when none
    table = pl.DataFrame(columns, schema_overrides={"signals": pl.List(pl.String), "mark": pl.String, "note": pl.String})
    out = io.BytesIO()
    table.write_parquet(out)
    return out.getvalue()

