"""The command line as a CI job uses it: exit codes, the JSON contract, determinism, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rouge_score import rouge_scorer

from rouge_tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "sample_suites" / "incident-summaries"
SUPPORT = ROOT / "sample_suites" / "support-answers"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rouge_tui", *args], capture_output=True, text=True, timeout=120
    )


def chapter_lcs(a: list[str], b: list[str]) -> int:
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


def chapter_rouge_l(candidate: str, reference: str) -> float:
    c, r = candidate.lower().split(), reference.lower().split()
    m = chapter_lcs(c, r)
    if m == 0:
        return 0.0
    precision, recall = m / len(c), m / len(r)
    return 2 * precision * recall / (precision + recall)


def write_suite(root: Path, refs: dict[str, str], builds: dict[str, dict[str, str]], toml: str = "") -> Path:
    (root / "builds").mkdir(parents=True)
    with open(root / "references.jsonl", "w") as f:
        for key, text in refs.items():
            f.write(json.dumps({"id": key, "reference": text}) + "\n")
    for name, outputs in builds.items():
        with open(root / "builds" / f"{name}.jsonl", "w") as f:
            for key, text in outputs.items():
                f.write(json.dumps({"id": key, "output": text}) + "\n")
    if toml:
        (root / "suite.toml").write_text(toml)
    return root


def test_report_exit_codes_on_samples():
    assert main(["report", str(INCIDENTS), "--format", "json"]) == 1  # the sample drifts down
    assert main(["report", str(SUPPORT), "--format", "json"]) == 0  # replicates stay in band


def test_json_contract(capsys: pytest.CaptureFixture[str]):
    main(["report", str(INCIDENTS), "--format", "json", "--top", "5"])
    data = json.loads(capsys.readouterr().out)
    for key in (
        "suite", "metric", "tokenizer", "stem", "baseline", "candidate", "delta", "delta_interval",
        "delta_interval_method", "verdict", "paired", "only_in_baseline", "only_in_candidate",
        "missing_reference", "signature", "top", "marks",
    ):
        assert key in data, key
    for role in ("baseline", "candidate"):
        build = data[role]
        assert isinstance(build["runs"], int) and isinstance(build["n"], int)
        assert isinstance(build["mean"], float)
        assert len(build["band"]) == 2 and build["band"][0] <= build["mean"] <= build["band"][1]
        assert build["band_source"] in ("replicates", "bootstrap", "analytic")
    assert data["signature"] == "rougeL|tok:whitespace|stem:no|v:0.1.0"
    assert data["verdict"] == "drift-down"
    assert isinstance(data["paired"], int)
    assert data["only_in_baseline"] == ["inc-0113"]
    assert data["only_in_candidate"] == ["inc-0158"]
    assert data["missing_reference"] == ["inc-0077"]
    assert len(data["top"]) == 5
    assert set(data["top"][0]) >= {"id", "baseline", "candidate", "delta"}
    deltas = [abs(row["delta"]) for row in data["top"]]
    assert deltas == sorted(deltas, reverse=True)
    assert data["marks"] == {}


def test_report_figures_match_the_chapter_definition(tmp_path: Path):
    # The chapter's own code is the oracle for whitespace rougeL means and the verdict.
    refs = {
        "a": "the outage began at 02:14 utc when a push removed the replica",
        "b": "checkout requests queued behind a single primary and timed out",
        "c": "a guard now blocks pushes that reduce pool size below two",
    }
    base = {"a": "the outage began at 02:14 when a push removed a replica", "b": "requests queued and timed out", "c": "a guard blocks pushes below two"}
    cand = {"a": "an outage", "b": "checkout requests queued behind a primary", "c": "pushes that reduce the pool are blocked"}
    suite = write_suite(tmp_path / "s", refs, {"1-base": base, "2-cand": cand})
    proc = run("report", str(suite), "--format", "json")
    data = json.loads(proc.stdout)
    base_f = [chapter_rouge_l(base[k], refs[k]) for k in refs]
    cand_f = [chapter_rouge_l(cand[k], refs[k]) for k in refs]
    assert data["baseline"]["mean"] == pytest.approx(sum(base_f) / 3, abs=1e-12)
    assert data["candidate"]["mean"] == pytest.approx(sum(cand_f) / 3, abs=1e-12)
    by_id = {row["id"]: row for row in data["top"]}
    for key, b, c in zip(refs, base_f, cand_f):
        assert by_id[key]["baseline"] == pytest.approx(b, abs=1e-15)
        assert by_id[key]["candidate"] == pytest.approx(c, abs=1e-15)
    mean = sum(base_f) / 3
    sd = (sum((x - mean) ** 2 for x in base_f) / 2) ** 0.5
    low, high = mean - 2 * sd / 3**0.5, mean + 2 * sd / 3**0.5
    assert data["baseline"]["band"] == pytest.approx([low, high], abs=1e-12)
    cand_mean = sum(cand_f) / 3
    expected = "drift-down" if cand_mean < low else "drift-up" if cand_mean > high else "within-band"
    assert data["verdict"] == expected
    assert proc.returncode == (0 if expected == "within-band" else 1)


def test_files_in_different_orders_pair_by_id(tmp_path: Path):
    # Each file lists the examples in its own order; every figure is still per id.
    refs = {
        "a": "the outage began at 02:14 utc when a push removed the replica",
        "b": "checkout requests queued behind a single primary and timed out",
        "c": "a guard now blocks pushes that reduce pool size below two",
        "d": "the on call engineer restored the replica from a snapshot",
    }
    base = {
        "c": "a guard blocks pushes",
        "a": "the outage began at 02:14",
        "d": "the engineer restored it",
        "b": "requests timed out",
    }
    cand = {
        "b": "checkout requests queued behind a primary and timed out",
        "d": "",
        "a": "an outage began when a push removed the replica",
        "c": "pushes below two are blocked by a guard",
    }
    suite = write_suite(tmp_path / "s", refs, {"1-base": base, "2-cand": cand})
    data = json.loads(run("report", str(suite), "--format", "json").stdout)
    by_id = {row["id"]: row for row in data["top"]}
    assert sorted(by_id) == sorted(refs)
    for key, reference in refs.items():
        want = chapter_rouge_l(base[key], reference), chapter_rouge_l(cand[key], reference)
        assert by_id[key]["baseline"] == pytest.approx(want[0], abs=1e-15)
        assert by_id[key]["candidate"] == pytest.approx(want[1], abs=1e-15)
    # the change signals compare each id's own two outputs: only d's candidate is empty
    assert {key for key, row in by_id.items() if "empty" in row["signals"]} == {"d"}


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_same_inputs_same_bytes(fmt: str, tmp_path: Path):
    cold = run("report", str(INCIDENTS), "--format", fmt, "--no-cache")
    warm1 = run("report", str(INCIDENTS), "--format", fmt)
    warm2 = run("report", str(INCIDENTS), "--format", fmt)
    assert cold.stdout == warm1.stdout == warm2.stdout
    assert cold.stdout


def test_text_report_names_the_verdict():
    proc = run("report", str(INCIDENTS))
    assert proc.returncode == 1
    assert "▼ drift-down" in proc.stdout
    assert "inc-0042" in proc.stdout


def test_markdown_report():
    proc = run("report", str(SUPPORT), "--format", "markdown")
    assert proc.returncode == 0
    assert "● within band" in proc.stdout and "| baseline |" in proc.stdout


@pytest.mark.parametrize(
    "args, needle",
    [
        (["report", "/nonexistent/suite"], "nonexistent"),
        (["report", str(INCIDENTS), "--stem"], "--stem needs a tokenizer that stems (rouge-score)"),
        (["report", str(INCIDENTS), "--baseline", "nope"], "nope"),
        (["report", str(INCIDENTS), "--metric", "bleu"], "invalid choice"),
        (["score", "/nonexistent.jsonl", "/nonexistent2.jsonl"], "nonexistent"),
    ],
)
def test_unusable_input_exits_2_with_one_line(args: list[str], needle: str):
    proc = run(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_build_line_names_file_and_line(tmp_path: Path):
    suite = write_suite(tmp_path / "s", {"a": "x y"}, {"1": {"a": "x"}, "2": {"a": "y"}})
    with open(suite / "builds" / "2.jsonl", "a") as f:
        f.write("{not json\n")
    proc = run("report", str(suite))
    assert proc.returncode == 2
    assert "2.jsonl:2" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_score_matches_rouge_score(tmp_path: Path):
    refs = tmp_path / "refs.jsonl"
    outs = tmp_path / "outs.jsonl"
    pairs = {
        "z": ("The outage began at 02:14 UTC.\nA guard was added.", "An outage at 02:14 UTC;\nguards were added"),
        "a": ("Running runners ran quickly", "the runner runs quick"),
        "m": ("only in refs", None),
    }
    refs.write_text("".join(json.dumps({"id": k, "reference": r}) + "\n" for k, (r, _) in pairs.items()))
    outs.write_text("".join(json.dumps({"id": k, "output": o}) + "\n" for k, (_, o) in pairs.items() if o is not None))
    proc = run("score", str(refs), str(outs), "--metrics", "rouge1,rouge2,rougeL,rougeLsum", "--tokenizer", "rouge-score", "--stem")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["z", "a"]  # the outputs file's order; m has no output
    oracle = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    for line in lines:
        ref, out = pairs[line["id"]]
        expected = oracle.score(ref, out)
        for metric, score in expected.items():
            got = line["scores"][metric]
            assert (got["precision"], got["recall"], got["fmeasure"]) == tuple(score)


def test_score_rejects_stem_with_whitespace(tmp_path: Path):
    refs = tmp_path / "r.jsonl"
    refs.write_text('{"id": "a", "reference": "x"}\n')
    proc = run("score", str(refs), str(refs), "--stem")
    assert proc.returncode == 2 and "--stem" in proc.stderr


def test_headless_paths_never_import_textual():
    code = (
        "import sys, io, contextlib\n"
        "from rouge_tui.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): main(['report', {str(INCIDENTS)!r}, '--format', 'text'])\n"
        "assert 'textual' not in sys.modules, 'report imported textual'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_version_and_help():
    proc = run("--version")
    assert proc.returncode == 0 and "0.1.0" in proc.stdout
    proc = run("--help")
    assert proc.returncode == 0 and "report" in proc.stdout


def test_stemming_needs_no_nltk(tmp_path: Path):
    """rouge-score-rs carries the Porter stemmer: --stem works from a plain install, with
    NLTK not importable at all, and gives rouge-score's stemmed figures."""
    suite = write_suite(
        tmp_path / "s", {"a": "running runners"}, {"1": {"a": "runs"}, "2": {"a": "ran"}},
        toml='tokenizer = "rouge-score"\nstem = true\n',
    )
    code = (
        "import sys\n"
        "sys.modules['nltk'] = None  # NLTK is not there\n"
        "from rouge_tui.cli import main\n"
        f"sys.exit(main(['report', {str(suite)!r}, '--no-cache', '--format', 'json']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    data = json.loads(proc.stdout)
    # Stemmed, "running runners" -> "run runner" and "runs" -> "run": P 1/1, R 1/2.
    assert data["baseline"]["mean"] == 2 * 1.0 * 0.5 / 1.5
    assert data["signature"].startswith("rougeL|tok:rouge-score|stem:yes")


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
@pytest.mark.parametrize("suite, expected", [(INCIDENTS, 1), (SUPPORT, 0)])
def test_closed_pipe_keeps_the_verdict_exit_status(fmt: str, suite: Path, expected: int):
    # `rouge-tui report | head` under pipefail must still see the verdict: drift stays 1 and
    # within band stays 0. The reader here (`true`) is gone long before the report writes,
    # so the write meets EPIPE.
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {sys.executable} -m rouge_tui report {suite} --format {fmt} --no-cache | true"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == expected
    assert "Traceback" not in proc.stderr
