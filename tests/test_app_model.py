"""The app's parts that need no terminal: the review session, the histogram, the table's
column layout. Expected values are worked by hand or read from the files written here."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from test_app_helpers import oracle_f

from rouge_tui.app.session import (
    MarkCell,
    find_matches,
    next_in,
    open_review,
    summarise_suite,
)
from rouge_tui.app.widgets.movers import Columns
from rouge_tui.app.widgets.overview import histogram, sparkline


def write_suite(root: Path, name: str, toml: str = "", rows: int = 4) -> Path:
    """A small suite: a reference per id, a baseline that paraphrases, a candidate that cuts."""
    suite = root / name
    (suite / "builds").mkdir(parents=True)
    if toml:
        (suite / "suite.toml").write_text(toml, encoding="utf-8")
    refs, base, cand = [], [], []
    for i in range(rows):
        refs.append(
            {
                "id": f"ex-{i}",
                "reference": f"The cache node {i} failed at 02:14 UTC and was replaced",
            }
        )
        base.append(
            {"id": f"ex-{i}", "output": f"Cache node {i} failed at 02:14 UTC; it was replaced"}
        )
        cand.append(
            {"id": f"ex-{i}", "output": f"Cache node {i} FAILED" if i % 2 else f"Node {i} broke"}
        )
    for file, records in (
        ("references.jsonl", refs),
        ("builds/a.jsonl", base),
        ("builds/b.jsonl", cand),
    ):
        (suite / file).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return suite


# ---------------------------------------------------------------------- histogram


def test_histogram_bins_are_centred_on_zero_with_round_ends() -> None:
    # span: largest |delta| 0.5 -> 0.5; five bins of 0.2 from -0.5: [-.5,-.3) [-.3,-.1) [-.1,.1) [.1,.3) [.3,.5]
    span, counts = histogram(np.array([-0.5, 0.0, 0.0, 0.02, 0.35]), 5)
    assert span == pytest.approx(0.5)
    assert counts == [1, 0, 3, 0, 1]
    # 0.43 rounds up to 0.45; all-zero deltas still get a visible axis of ±0.05
    assert histogram(np.array([0.43, -0.1]), 3)[0] == pytest.approx(0.45)
    assert histogram(np.zeros(4), 3) == (pytest.approx(0.05), [0, 4, 0])
    with pytest.raises(ValueError):
        histogram(np.zeros(2), 4)


def test_sparkline_levels_are_linear_and_empty_bins_show_a_dot() -> None:
    # top 3: 1/3 of 8 levels -> ceil(2.67) = 3 -> ▃ ; 3 -> █
    assert sparkline([1, 0, 3, 0, 1]) == "▃·█·▃"
    assert sparkline([0, 0]) == "··"
    assert sparkline([1, 1000]) == "▁█"


# ---------------------------------------------------------------------- table layout


@pytest.mark.parametrize("width", [60, 79, 80, 99, 100, 119, 200])
def test_columns_fill_the_width_and_shorten_marks_when_narrow(width: int) -> None:
    cols = Columns.fit(width, rows=12345)
    used = (
        2 + cols.rank + 1 + cols.id + 2 * cols.score + cols.delta + 1 + cols.signals + 1 + cols.mark
    )
    assert used == width or (cols.id == 8 and used > width)
    assert cols.rank == 5
    assert cols.short_marks == (width < 90)
    assert cols.mark >= (4 if cols.short_marks else len("regression"))


def test_mark_cell_words() -> None:
    assert MarkCell("regression", False, False).word() == "regression"
    assert MarkCell("regression", True, True).word() == "regression*+"
    assert MarkCell("regression", True, False).word(short=True) == "regr*"
    assert MarkCell("unsure", False, True).word(short=True) == "unsu+"
    assert MarkCell("fine", False, False).word(short=True) == "fine"


def test_next_in_wraps_and_restarts_on_unknown_values() -> None:
    assert next_in(("a", "b", "c"), "b") == "c"
    assert next_in(("a", "b", "c"), "c") == "a"
    assert next_in(("a", "b"), "zzz") == "a"


# ---------------------------------------------------------------------- the review session


def test_open_review_scores_the_default_pair(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "s")
    review = open_review(suite, argparse.Namespace(metric=None, tokenizer=None, stem=None, k=None))
    c = review.comparison
    assert (c.baseline.name, c.candidate.name) == ("a", "b")
    refs = {r["id"]: r["reference"] for r in map(json.loads, (suite / "references.jsonl").open())}
    cand = {r["id"]: r["output"] for r in map(json.loads, (suite / "builds/b.jsonl").open())}
    for index, example_id in enumerate(c.ids):
        assert c.candidate_f[index] == oracle_f(refs[example_id], cand[example_id])


def test_filter_matches_ids_and_both_outputs_case_insensitively(tmp_path: Path) -> None:
    review = open_review(write_suite(tmp_path, "s"))
    c = review.comparison

    def found(query: str) -> set[str]:
        matches = find_matches(c, review.baseline, review.candidate, query)
        assert matches is not None
        return {c.ids[i] for i in np.flatnonzero(matches)}

    assert found("EX-2") == {"ex-2"}
    assert found("failed") == {"ex-0", "ex-1", "ex-2", "ex-3"}  # every baseline says it
    assert found("broke") == {"ex-0", "ex-2"}  # candidate only
    assert found("no such words") == set()
    assert find_matches(c, review.baseline, review.candidate, "  ") is None
    # a newer query cancels: the result stops early (and the caller drops it)
    stopped = find_matches(c, review.baseline, review.candidate, "node", lambda: True)
    assert stopped is not None and not stopped.any()


def test_view_sorts_then_filters(tmp_path: Path) -> None:
    review = open_review(write_suite(tmp_path, "s", rows=6))
    c = review.comparison
    matches = np.array([c.ids[i] in {"ex-1", "ex-4"} for i in range(c.paired)])
    by_id = review.view("id", matches)
    assert [c.ids[i] for i in by_id] == ["ex-1", "ex-4"]
    assert list(review.view("|delta|")) == list(range(c.paired))


def test_marks_are_stored_per_pair_and_go_stale_when_outputs_change(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "s")
    review = open_review(suite)
    review.set_mark("ex-1", "regression", "cut short")
    assert review.mark_cell("ex-1") == MarkCell("regression", False, True)
    review.set_mark("ex-1", None, "")  # empty note keeps the mark
    assert review.mark_of("ex-1").mark == "regression" and review.mark_of("ex-1").note == ""
    # the candidate's output changes: the mark comes back, stale
    lines = (
        (suite / "builds/b.jsonl")
        .read_text()
        .replace("Cache node 1 FAILED", "Cache node 1 failed again")
    )
    (suite / "builds/b.jsonl").write_text(lines)
    again = open_review(suite)
    assert again.mark_cell("ex-1") == MarkCell("regression", True, False)
    again.clear_mark("ex-1")
    assert open_review(suite).mark_of("ex-1") is None


def test_tokenizer_switch_keeps_the_stemming_the_suite_asked_for(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, "s", toml='tokenizer = "rouge-score"\nstem = true\n')
    review = open_review(suite)
    assert review.settings.stem is True
    plain = review.settings_for(tokenizer="whitespace")
    assert (plain.tokenizer, plain.stem) == ("whitespace", False)
    back = review.settings_for(plain, tokenizer="rouge-score")
    assert (back.tokenizer, back.stem) == ("rouge-score", True)
    assert review.settings_for(metric="rouge2").metric == "rouge2"


def test_export_writes_a_safe_file_name_in_the_data_dir(
    tmp_path: Path, isolated_state: Path
) -> None:
    suite = write_suite(tmp_path, "s", toml='name = "../../etc/passwd [b]x[/b]"\n')
    candidate = suite / "builds" / "b.jsonl"
    candidate.write_text(candidate.read_text().replace("node 3 FAILED", "node 3 ``` FAILED"))
    review = open_review(suite)
    review.set_mark("ex-3", "fine", "ok ``` not a fence")
    path = review.export(datetime(2026, 11, 29, 8, 30, tzinfo=UTC))
    exports = isolated_state / "xdg_data_home" / "rouge-tui" / "exports"
    assert path.parent == exports
    assert path.name.startswith("review-etc_passwd_b_x_b-") and path.name.endswith(
        "-20261129T083000Z.md"
    )
    text = path.read_text(encoding="utf-8")
    assert "Exported by rouge-tui on 2026-11-29 08:30 UTC" in text
    assert "## Reviewed examples (1)" in text
    assert "ex\\-3: fine" in text or "ex-3: fine" in text
    assert "Note: ok \\`\\`\\` not a fence" in text  # Markdown-escaped
    assert "````text" in text  # the fence is longer than any run of backticks inside
    assert not list(exports.glob(".*.tmp"))  # the atomic write left no temporary file


def test_summaries_for_the_suite_list(tmp_path: Path) -> None:
    good = summarise_suite(write_suite(tmp_path, "good"))
    assert (good.builds, good.error) == (2, None)
    assert good.verdict_text() in ("▼ drift-down", "▲ drift-up", "● within band")
    lonely = write_suite(tmp_path, "lonely")
    (lonely / "builds" / "b.jsonl").unlink()
    assert summarise_suite(lonely).verdict_text() == "needs two builds"
    broken = write_suite(tmp_path, "broken")
    (broken / "references.jsonl").write_text("{not json\n")
    summary = summarise_suite(broken)
    assert summary.verdict_text() == "error"
    assert "references.jsonl:1" in (summary.error or "")


def test_the_session_module_does_not_import_textual() -> None:
    code = "import sys, rouge_tui.app.session; print('textual' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
