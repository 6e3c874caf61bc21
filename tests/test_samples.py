"""The bundled sample suites: reproducible, and shaped the way the README says they are.

The suites are parsed here with `json` and `tomllib` only (not rouge_tui.suite), and scored
with oracles the project did not write: the chapter's own textbook code for the whitespace
suite, and the rouge-score package for the rouge-score suite. SPEC's grounding definitions
(sentences, words, support, figures) and its history rules (bands, volatile examples) are
restated here in a few lines each; `report` is run once, as a user would, to see that the
app reads the suites the way these checks do.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tomllib
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from rouge_score import rouge_scorer

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
INCIDENTS = SAMPLES / "incident-summaries"
SUPPORT = SAMPLES / "support-answers"
SUITES = (INCIDENTS, SUPPORT)


# The chapter's code, as printed in "What the number counts" (the test's oracle).
def lcs(a: list[str], b: list[str]) -> int:
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


def rouge_l(candidate: str, reference: str) -> float:
    c, r = candidate.lower().split(), reference.lower().split()
    m = lcs(c, r)
    if m == 0:
        return 0.0
    precision, recall = m / len(c), m / len(r)
    return 2 * precision * recall / (precision + recall)


def read_jsonl(path: Path) -> list[dict[str, object]]:
    """Every line of a JSONL file as an object (fails on blank or non-object lines)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n")[:-1], 1):
        row = json.loads(line)
        assert isinstance(row, dict), f"{path}:{number} is not an object"
        rows.append(row)
    return rows


def by_id(path: Path, field: str) -> dict[str, str]:
    return {str(row["id"]): str(row[field]) for row in read_jsonl(path)}


def build_name(path: Path) -> str:
    """A build's name (SPEC): the file name without its extension, or the folder's name."""
    return path.name if path.is_dir() else path.name.removesuffix(".jsonl")


@cache
def incident_builds() -> tuple[tuple[str, tuple[dict[str, str], ...]], ...]:
    """Every build of the incident suite in name order: (name, the outputs of each run)."""
    builds = []
    for path in sorted((INCIDENTS / "builds").iterdir(), key=build_name):
        runs = sorted(path.glob("run-*.jsonl")) if path.is_dir() else [path]
        builds.append((build_name(path), tuple(by_id(run, "output") for run in runs)))
    return tuple(builds)


@cache
def incidents() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(references, baseline outputs, candidate outputs) of the incident suite, by id: by
    default the candidate is the last build and the baseline the one before (SPEC)."""
    (_, (baseline,)), (_, (candidate,)) = incident_builds()[-2:]
    return by_id(INCIDENTS / "references.jsonl", "reference"), baseline, candidate


@cache
def incident_sources() -> dict[str, str]:
    return by_id(INCIDENTS / "references.jsonl", "source")


@cache
def chapter_f(output: str, reference: str) -> float:
    return rouge_l(output, reference)  # the nights repeat most outputs: score each once


@cache
def incident_pairs() -> tuple[list[str], list[float], list[float]]:
    """Paired ids with a usable reference, and their chapter rougeL F for each build."""
    references, baseline, candidate = incidents()
    ids = sorted(
        i for i in references if references[i].strip() and i in baseline and i in candidate
    )
    base = [chapter_f(baseline[i], references[i]) for i in ids]
    cand = [chapter_f(candidate[i], references[i]) for i in ids]
    return ids, base, cand


@cache
def build_scores() -> tuple[dict[str, float], ...]:
    """Each build's F per id over its own ids with a usable reference (with replicate runs,
    the mean over runs, of the ids every run has), in name order."""
    references, _, _ = incidents()
    out = []
    for _, runs in incident_builds():
        ids = sorted(set.intersection(*(set(run) for run in runs)))
        usable = [i for i in ids if references[i].strip()]
        out.append(
            {i: statistics.fmean(chapter_f(run[i], references[i]) for run in runs) for i in usable}
        )
    return tuple(out)


def band(runs: tuple[dict[str, str], ...], scores: dict[str, float], k: float):
    """(mean, low, high) of a build (SPEC "The comparison"): with replicate runs, mean ± k ·
    sample sd of the run means; with one run, mean ± k · standard error."""
    references, _, _ = incidents()
    mean = statistics.fmean(scores.values())
    if len(runs) >= 2:
        run_means = [
            statistics.fmean(chapter_f(run[i], references[i]) for i in scores) for run in runs
        ]
        half = k * statistics.stdev(run_means)
    else:
        half = k * statistics.stdev(scores.values()) / math.sqrt(len(scores))
    return mean, mean - half, mean + half


# SPEC "What overlap cannot see", restated: sentences are cut at line breaks and after a run
# of . ! ? (with closing marks) before whitespace; words are casefolded runs of letters and
# digits; a sentence's support in a text is its largest share of words on an LCS with one
# sentence there (a counterpart from 0.5); figures are matches of SPEC's pattern as written.
SENTENCE_END = re.compile(r"[.!?]+[\"')\]\u2019\u201d]*(?=\s)")
WORD = re.compile(r"[^\W_]+")
FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*%?")


def sentences(text: str) -> list[str]:
    found = []
    for line in text.splitlines():
        cut = 0
        for end in [m.end() for m in SENTENCE_END.finditer(line)] + [len(line)]:
            piece, cut = line[cut:end].strip(), end
            if WORD.search(piece.casefold()):
                found.append(piece)
    return found


def words(text: str) -> list[str]:
    return WORD.findall(text.casefold())


def support(sentence: str, *texts: str) -> float:
    own = words(sentence)
    others = [words(t) for text in texts for t in sentences(text)]
    return max((lcs(own, other) / len(own) for other in others), default=0.0)


def figures(*texts: str) -> set[str]:
    return {m.group() for text in texts for m in FIGURE.finditer(text)}


def settings(suite: Path) -> dict[str, object]:
    with open(suite / "suite.toml", "rb") as handle:
        return tomllib.load(handle)


# --- reproducible -------------------------------------------------------------------------


def relative_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_generator_reproduces_the_committed_files_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLES / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},  # hash order must not matter
    )
    generated = {suite.name: relative_files(tmp_path / suite.name) for suite in SUITES}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(generated)
    for suite in SUITES:
        assert relative_files(suite) == generated[suite.name], f"stray or missing file in {suite}"
        for relative in sorted(generated[suite.name]):
            fresh = (tmp_path / suite.name / relative).read_bytes()
            assert fresh == (suite / relative).read_bytes(), f"{suite.name}/{relative} differs"


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.name)
def test_files_are_plain_sorted_jsonl(suite: Path) -> None:
    for path in sorted(suite.rglob("*.jsonl")):
        raw = path.read_bytes()
        assert raw.endswith(b"\n") and b"\r" not in raw, path
        text = raw.decode("utf-8")
        assert "\\u" not in text, f"{path}: non-ASCII text should be written as is"
        ids = [str(row["id"]) for row in read_jsonl(path)]
        assert ids == sorted(ids) and len(set(ids)) == len(ids), path
        for row in read_jsonl(path):
            for value in row.values():
                odd = {c for c in str(value) if unicodedata.category(c) in ("Cc", "Cf")} - {"\n"}
                assert not odd, f"{path}: control or format characters {odd!r} in {row['id']}"


# --- the incident suite ---------------------------------------------------------------------

NIGHT = re.compile(r"2026-11-(\d\d)_[0-9a-f]{6}")
INVENTED_COUNT = (15, 25)  # invented closing sentences in the candidate


def test_incident_settings_and_build_order() -> None:
    assert settings(INCIDENTS) == {
        "name": "Incident summaries",
        "metric": "rougeL",
        "tokenizer": "whitespace",
        "stem": False,
        "band": {"k": 2.0},
    }
    names = [name for name, _ in incident_builds()]
    days = [int(m.group(1)) for m in map(NIGHT.fullmatch, names) if m]
    assert len(days) == len(names) >= 6, names
    assert days == list(range(days[0], days[0] + len(days))), "one build a night, in order"
    assert (names[0], names[-1]) == ("2026-11-20_4be1c0", "2026-11-27_9f03aa")
    # one middle build with replicate runs: a folder of run files, every run the same ids
    folders = [p for p in (INCIDENTS / "builds").iterdir() if p.is_dir()]
    assert len(folders) == 1 and build_name(folders[0]) in names[1:-2]
    runs = dict(incident_builds())[folders[0].name]
    assert len(runs) >= 2 and all(set(run) == set(runs[0]) for run in runs)
    assert all(len(runs) == 1 for name, runs in incident_builds() if name != folders[0].name)


def test_one_night_misses_a_few_outputs_and_no_line_is_bad() -> None:
    references, _, _ = incidents()
    builds = incident_builds()
    full = set(references) - {"inc-0158"}  # a new example: only the candidate ran it
    assert all("inc-0158" not in run for _, runs in builds[:-1] for run in runs)
    short = {name: full - set(runs[0]) for name, runs in builds[:-1] if set(runs[0]) != full}
    assert len(short) == 1, short
    ((name, missing),) = short.items()
    assert name not in (builds[0][0], builds[-2][0]) and 1 <= len(missing) <= 2
    for _, runs in builds:
        for run in runs:
            assert set(run) <= set(references)
            assert all(isinstance(text, str) for text in run.values())


def test_chapter_worked_example_is_inc_0042() -> None:
    references, baseline, candidate = incidents()
    reference, summary_a, summary_b = (d["inc-0042"] for d in (references, baseline, candidate))
    assert reference.startswith("The outage began at 02:14 UTC when a configuration push")
    assert summary_b.endswith("insufficient test coverage in the deployment pipeline.")
    # Token counts from the SPEC (not the chapter's prose, which cannot be reproduced).
    assert [len(t.split()) for t in (reference, summary_a, summary_b)] == [55, 47, 58]
    assert lcs(summary_a.lower().split(), reference.lower().split()) == 16
    assert lcs(summary_b.lower().split(), reference.lower().split()) == 46
    assert round(rouge_l(summary_a, reference), 4) == 0.3137
    assert round(rouge_l(summary_b, reference), 4) == 0.8142
    # Summary A on every night before the candidate: the chapter's pair is the default pair.
    assert all(run["inc-0042"] == summary_a for _, runs in incident_builds()[:-1] for run in runs)


def test_chapter_source_holds_the_reference_and_the_finding() -> None:
    references, baseline, candidate = incidents()
    source = incident_sources()["inc-0042"]
    assert all(sentence in source for sentence in sentences(references["inc-0042"]))
    finding = (
        "the config push was covered by tests, and it passed them, because the tests asserted "
        "on pool health after the change rather than on pool size during it"
    )  # the chapter's words
    assert finding in source.lower()
    *copied, closing = sentences(candidate["inc-0042"])
    assert (
        closing
        == "The incident was caused by insufficient test coverage in the deployment pipeline."
    )
    assert [support(s, source) for s in copied] == [1.0, 1.0, 1.0]  # lifted from the source
    for text in (references["inc-0042"], source, baseline["inc-0042"]):
        assert support(closing, text) < 0.5, text  # no counterpart anywhere: a new sentence
    assert figures(candidate["inc-0042"]) <= figures(references["inc-0042"])


def test_incident_edge_ids_exercise_the_loader() -> None:
    references, baseline, candidate = incidents()
    assert len(references) >= 200
    assert [i for i in references if not references[i].strip()] == ["inc-0077"]
    assert references["inc-0077"] == "   "
    assert sorted(set(baseline) - set(candidate)) == ["inc-0113"]
    assert sorted(set(candidate) - set(baseline)) == ["inc-0158"]
    assert set(baseline) | set(candidate) == set(references)
    outputs = [*baseline.values(), *candidate.values()]
    assert any("[bold]" in text for text in outputs)
    assert any("[/]" in text for text in outputs)


def test_incident_references_read_like_postmortems() -> None:
    references, _, _ = incidents()
    rows = {str(r["id"]): r for r in read_jsonl(INCIDENTS / "references.jsonl")}
    usable = {i: t for i, t in references.items() if t.strip()}
    assert len(set(usable.values())) == len(usable), "references repeat"
    assert all(40 <= len(t.split()) <= 90 for t in usable.values())
    assert all(" UTC" in t for t in usable.values())
    assert sum("\n" in t for t in usable.values()) >= len(usable) // 4
    assert all(str(rows[i].get("input", "")).strip() for i in rows)


def test_every_reference_has_the_postmortem_it_was_written_from() -> None:
    references, _, _ = incidents()
    sources = incident_sources()
    assert set(sources) == set(references)
    assert len(set(sources.values())) == len(sources), "sources repeat"
    for i, reference in references.items():
        if not reference.strip():
            continue
        source = sources[i]
        assert source.startswith("Postmortem OPS-"), i
        assert len(sentences(source)) >= len(sentences(reference)) + 3, i
        assert figures(reference) <= figures(source), i  # the reference's facts are in it
        # ...and details the reference leaves out: a ticket, a version, a timeline
        assert figures(source) - figures(reference), i
        assert "Timeline (UTC):" in source, i


def drift_kinds() -> dict[str, list[str]]:
    """The candidate's changes against the baseline, told apart from the texts alone."""
    ids, _, _ = incident_pairs()
    references, baseline, candidate = incidents()
    sources = incident_sources()
    kinds: dict[str, list[str]] = {"invented": [], "changed-figure": [], "copied-figure": []}
    for i in ids:
        old, new = baseline[i], candidate[i]
        if new.startswith(old) and len(new.split()) >= len(old.split()) + 6:
            kinds["invented"].append(i)  # an output that gained a closing sentence
        a, b = old.split(), new.split()
        changed = [k for k, (x, y) in enumerate(zip(a, b)) if x != y] if len(a) == len(b) else []
        if (
            len(changed) == 1
            and a[changed[0]].isdigit()
            and b[changed[0]].isdigit()
            and "".join(b[changed[0] + 1 : changed[0] + 2]).startswith("minutes")
        ):
            kinds["changed-figure"].append(i)  # "41 minutes" became "45 minutes"
        added = [s for s in sentences(new) if s not in sentences(old)]
        removed = [s for s in sentences(old) if s not in sentences(new)]
        if (
            len(added) == 1
            and not removed
            and added[0] in sentences(sources[i])
            and figures(added[0]) - figures(old, references[i])
        ):
            kinds["copied-figure"].append(i)  # a sentence of the source, with its figures
    return kinds


def test_candidate_drift_kinds_are_all_present() -> None:
    ids, base, cand = incident_pairs()
    _, baseline, candidate = incidents()
    n = len(ids)
    b = [baseline[i] for i in ids]
    c = [candidate[i] for i in ids]
    empty = sum(not x.strip() for x in c)
    prefix = sum(bool(y.strip()) and y != x and x.startswith(y) for x, y in zip(b, c))
    shorter = sum(
        bool(y.strip()) and not x.startswith(y) and len(y.split()) < len(x.split()) / 2
        for x, y in zip(b, c)
    )

    def first_two_lines_equal(text: str) -> bool:
        lines = text.split("\n")
        return len(lines) > 2 and lines[0] == lines[1]

    duplicated = sum(
        first_two_lines_equal(y) and not first_two_lines_equal(x) for x, y in zip(b, c)
    )
    kinds = drift_kinds()
    same = sum(x == y for x, y in zip(b, c))
    volatile = volatile_ids()
    improved = sum(fc > fb + 0.1 for i, fb, fc in zip(ids, base, cand) if i not in volatile)
    assert 2 <= empty <= 3
    assert 0.07 * n <= prefix + shorter <= 0.13 * n, (prefix, shorter)
    assert prefix >= 0.06 * n
    assert 0.04 * n <= duplicated <= 0.08 * n
    assert INVENTED_COUNT[0] <= len(kinds["invented"]) <= INVENTED_COUNT[1]
    assert 5 <= len(kinds["changed-figure"]) <= 10
    assert 5 <= len(kinds["copied-figure"]) <= 10
    assert 3 <= improved <= 12
    assert 0.3 * n <= same <= 0.6 * n


def test_invented_closing_sentences_have_no_counterpart_anywhere() -> None:
    references, baseline, candidate = incidents()
    sources = incident_sources()
    invented = drift_kinds()["invented"]
    closings = set()
    for i in invented:
        added = candidate[i][len(baseline[i]) :]
        assert len(sentences(added)) == 1, added
        closing = sentences(added)[0]
        closings.add(closing)
        for text in (references[i], sources[i], baseline[i]):
            assert support(closing, text) < 0.5, (i, closing, text)
    assert len(closings) >= 3, "a few different inventions, not one"


def test_changed_figures_are_in_no_text_and_copied_ones_are_in_the_source() -> None:
    references, baseline, candidate = incidents()
    sources = incident_sources()
    kinds = drift_kinds()
    for i in kinds["changed-figure"]:
        new = figures(candidate[i]) - figures(baseline[i])
        assert len(new) == 1 and not new & figures(references[i], sources[i], baseline[i]), i
        assert all(support(s, baseline[i]) >= 0.5 for s in sentences(candidate[i])), i
    for i in kinds["copied-figure"]:
        new = figures(candidate[i]) - figures(baseline[i], references[i])
        assert new and new <= figures(sources[i]), i  # new to the summary, not to the source


def test_quiet_nights_stay_within_each_others_bands() -> None:
    # Each night against the night before (the history view's verdict), with SPEC's bands.
    k = settings(INCIDENTS)["band"]["k"]  # type: ignore[index]
    builds, scores = incident_builds(), build_scores()
    means = [statistics.fmean(s.values()) for s in scores]
    for before in range(len(builds) - 2):
        _, low, high = band(builds[before][1], scores[before], k)
        assert low <= means[before + 1] <= high, (
            builds[before + 1][0],
            low,
            means[before + 1],
            high,
        )
    assert max(means[:-1]) - min(means[:-1]) < 0.015, means
    _, low, _ = band(builds[-2][1], scores[-2], k)
    assert means[-1] < low - 0.01, "the candidate's drift is new: below every night before"


def volatile_ids() -> set[str]:
    """SPEC "History": moved by 0.05 or more in more than half of the last five consecutive
    build pairs ending at the baseline (two pairs at least)."""
    history = build_scores()[:-1]
    pairs = list(itertools.pairwise(history))[-5:]
    out = set()
    for i in history[-1]:
        seen = [(a[i], b[i]) for a, b in pairs if i in a and i in b]
        moved = sum(abs(new - old) >= 0.05 for old, new in seen)
        if len(seen) >= 2 and moved > len(seen) / 2:
            out.add(i)
    return out


def moves(i: str) -> list[bool]:
    history = build_scores()[:-1]
    pairs = list(itertools.pairwise(history))[-5:]
    return [abs(b[i] - a[i]) >= 0.05 for a, b in pairs if i in a and i in b]


def test_a_few_examples_flip_every_night_and_come_out_volatile() -> None:
    volatile = volatile_ids()
    assert 6 <= len(volatile) <= 10, sorted(volatile)
    for i in volatile:
        assert all(moves(i)) and len(moves(i)) == 5, (i, moves(i))
    assert "inc-0042" not in volatile


def test_a_one_night_incident_is_two_moves_and_not_volatile() -> None:
    # Outputs cut short one night and back the next: down, then up; two moves of five.
    history = build_scores()[:-1]
    dips: dict[int, list[str]] = {}
    for night in range(1, len(history) - 1):
        before, that, after = history[night - 1], history[night], history[night + 1]
        for i in that:
            if i in before and i in after and before[i] - that[i] >= 0.05 <= after[i] - that[i]:
                dips.setdefault(night, []).append(i)
    volatile = volatile_ids()
    (night, dipped), = ((n, [i for i in ids if i not in volatile]) for n, ids in dips.items()
                        if len([i for i in ids if i not in volatile]) >= 5)  # fmt: skip
    assert 2 <= night <= len(history) - 3, "in the middle of the window"
    assert len(dipped) <= 15
    for i in dipped:
        assert sum(moves(i)) == 2 and i not in volatile, (i, moves(i))


def test_incident_candidate_falls_clearly_below_the_baseline_band() -> None:
    # With one run per build the band is mean ± k standard errors (SPEC, analytic form).
    ids, base, cand = incident_pairs()
    k = settings(INCIDENTS)["band"]["k"]  # type: ignore[index]
    mean_b, mean_c = statistics.fmean(base), statistics.fmean(cand)
    half_width = k * statistics.stdev(base) / math.sqrt(len(base))
    assert len(ids) >= 200
    assert 0.3 <= mean_b <= 0.55, "a decent paraphrasing model scores like a second human"
    assert mean_c < mean_b - 1.5 * half_width, (mean_b, half_width, mean_c)


@cache
def incident_report() -> tuple[int, dict]:
    """`rouge-tui report` on the incident suite, as a user runs it (JSON, every example)."""
    proc = subprocess.run(
        [sys.executable, "-m", "rouge_tui", "report", str(INCIDENTS), "--format", "json",
         "--top", "1000", "--no-cache"],
        check=False, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(SAMPLES.parent)},
    )  # fmt: skip
    assert proc.stderr == "" or proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_report_reads_the_drift_and_the_signals_the_suite_was_built_with() -> None:
    code, data = incident_report()
    assert code == 1 and data["verdict"] == "drift-down"
    names = [name for name, _ in incident_builds()]
    assert (data["baseline"]["name"], data["candidate"]["name"]) == tuple(names[-2:])
    signals = data["signals"]
    assert signals["new-sentence"] > 0 and signals["new-figure"] > 0 and signals["volatile"] > 0
    rows = {row["id"]: row for row in data["top"]}
    assert {i for i, row in rows.items() if "volatile" in row["signals"]} == volatile_ids()
    assert rows["inc-0042"]["new_sentences"] == [
        "The incident was caused by insufficient test coverage in the deployment pipeline."
    ]
    _, baseline, candidate = incidents()
    kinds = drift_kinds()
    for i in kinds["invented"]:
        assert sentences(candidate[i][len(baseline[i]) :]) == rows[i]["new_sentences"][-1:], i
    changed = {
        f for i in kinds["changed-figure"] for f in figures(candidate[i]) - figures(baseline[i])
    }
    copied = {
        f for i in kinds["copied-figure"] for f in figures(candidate[i]) - figures(baseline[i])
    }
    new_figures = {f for row in rows.values() for f in row["new_figures"]}
    assert changed & new_figures and changed <= new_figures
    for i in kinds["copied-figure"]:
        assert rows[i]["new_figures"] == [] and rows[i]["new_sentences"] == [], i
    assert not copied & {f for i in kinds["copied-figure"] for f in rows[i]["new_figures"]}


def test_every_new_figure_fire_is_a_planted_changed_figure() -> None:
    # The issue: a figure taken from the source must not fire. A fire is only ever the
    # duration the candidate changed, never a number the source or reference states (even
    # in another form, "70%" there and "70 percent" here).
    _, data = incident_report()
    references, baseline, candidate = incidents()
    sources = incident_sources()
    fired = {row["id"]: row["new_figures"] for row in data["top"] if row["new_figures"]}
    planted = drift_kinds()["changed-figure"]
    assert sorted(fired) == sorted(planted)
    assert data["signals"]["new-figure"] == len(planted)
    for i, new in fired.items():
        assert set(new) == figures(candidate[i]) - figures(baseline[i]), i
        stated = {f.rstrip("%") for f in figures(references[i], sources[i], baseline[i])}
        assert not {f.rstrip("%") for f in new} & stated, (i, new)


# --- the support suite ---------------------------------------------------------------------


@cache
def support_runs() -> tuple[dict[str, str], dict[str, list[dict[str, str]]]]:
    """(references, {build name: [outputs of run 1, 2, 3]})."""
    references = by_id(SUPPORT / "references.jsonl", "reference")
    builds = {}
    for build in sorted((SUPPORT / "builds").iterdir()):
        builds[build.name] = [by_id(run, "output") for run in sorted(build.glob("run-*.jsonl"))]
    return references, builds


def test_support_settings_and_layout() -> None:
    assert settings(SUPPORT) == {
        "name": "Support answers",
        "metric": "rougeL",
        "tokenizer": "rouge-score",
        "stem": False,
        "band": {"k": 2.0},
    }
    references, builds = support_runs()
    assert len(references) >= 120 and all(t.strip() for t in references.values())
    assert list(builds) == ["2026-11-24_1a2b3c", "2026-11-28_5d6e7f"]
    for runs in builds.values():
        assert len(runs) == 3
        assert all(set(run) == set(references) for run in runs)


def test_support_replicate_runs_differ_only_slightly() -> None:
    _, builds = support_runs()
    for runs in builds.values():
        for first, second in [(0, 1), (0, 2), (1, 2)]:
            a, b = runs[first], runs[second]
            changed = [i for i in a if a[i] != b[i]]
            assert 0.2 * len(a) <= len(changed) <= 0.8 * len(a)
            for i in changed:  # a word or two swapped, not a new answer
                assert abs(len(a[i].split()) - len(b[i].split())) <= 4
                assert rouge_l(a[i], b[i]) >= 0.85


def test_support_candidate_stays_within_the_replicate_band() -> None:
    # With replicate runs the band is mean ± k · (sample sd of the run means) (SPEC).
    references, builds = support_runs()
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    k = settings(SUPPORT)["band"]["k"]  # type: ignore[index]
    ids = sorted(references)
    summary = {}
    for name, runs in builds.items():
        run_means = [
            statistics.fmean(scorer.score(references[i], run[i])["rougeL"].fmeasure for i in ids)
            for run in runs
        ]
        summary[name] = statistics.fmean(run_means), statistics.stdev(run_means)
    (mean_b, sd_b), (mean_c, sd_c) = summary.values()
    assert sd_b > 0 and sd_c > 0, "replicates should carry some noise"
    assert abs(mean_c - mean_b) < k * sd_b, (mean_b, sd_b, mean_c)
