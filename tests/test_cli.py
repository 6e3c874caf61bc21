"""The command line as a CI job uses it: exit codes, the JSON contract, determinism, errors."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rouge_score import rouge_scorer
from safety_helpers import assert_one_line_error, cli, small_suite, xdg_env
from suite_helpers import jsonl, make_suite

from rouge_tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "sample_suites" / "incident-summaries"
SUPPORT = ROOT / "sample_suites" / "support-answers"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rouge_tui", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


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
        f.writelines(json.dumps({"id": key, "reference": text}) + "\n" for key, text in refs.items())
    for name, outputs in builds.items():
        with open(root / "builds" / f"{name}.jsonl", "w") as f:
            f.writelines(json.dumps({"id": key, "output": text}) + "\n" for key, text in outputs.items())
    if toml:
        (root / "suite.toml").write_text(toml)
    return root


def test_report_exit_codes_on_samples():
    assert main(["report", str(INCIDENTS), "--format", "json"]) == 1  # the sample drifts down
    assert main(["report", str(SUPPORT), "--format", "json"]) == 0  # replicates stay in band


def test_a_report_on_a_folder_of_suites_says_it_is_one_and_names_a_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The app lists a folder of suites; report said "missing references file" of it."""
    import shutil

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENTS, folder / "b-incidents")
    shutil.copytree(SUPPORT, folder / "a-support")
    assert main(["report", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"rouge-tui: error: {folder}: a folder of 2 suites, not a suite: report on one of "
                                 f"them, such as {folder / 'a-support'}, or name one with --suite-name "
                                 f"(rouge-tui {folder} lists them)\n")
    # Named, as the app lists it: its suite.toml's name.
    assert main(["report", str(folder), "--suite-name", "Support answers", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["suite"] == "Support answers"
    # or by its folder, which the app lists beside it (a newcomer's pass: the folder's name was
    # refused with the message of no name at all)
    assert main(["report", str(folder), "--suite-name", "b-incidents", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["suite"] == "Incident summaries"
    assert main(["report", str(folder), "--suite-name", "Nothing so named"]) == 2
    assert capsys.readouterr().err == (
        f"rouge-tui: error: {folder}: no suite named 'Nothing so named' in this folder of suites (by its "
        "suite.toml name or its folder: a-support, b-incidents; a harness's folder is a PATH of its own, with "
        "--suite-name for its task)\n")
    # two harness folders of one task: not "name one by its folder", which picks no harness's
    from test_importer_lm_eval import FRIDAY, MONDAY, sample, write_run

    harness = tmp_path / "harnesses"
    for model in ("h1", "h2"):
        for date in (MONDAY, FRIDAY):
            write_run(harness / model / "m", date, {"xsum": [sample(0, "a", "x")]})
    assert main(["report", str(harness), "--suite-name", "xsum"]) == 2
    err = capsys.readouterr().err
    assert "name one by its folder" not in err and "a harness's folder is a PATH of its own" in err, err
    shutil.copytree(INCIDENTS, folder / "c-copy")  # a copy keeps its suite.toml's name: say so
    assert main(["report", str(folder), "--suite-name", "Incident summaries"]) == 2
    assert capsys.readouterr().err == (f"rouge-tui: error: {folder}: 2 suites here are named 'Incident summaries', "
                                       "in b-incidents, c-copy: name one by its folder\n")
    assert main(["report", str(folder), "--suite-name", "c-copy", "--format", "json"]) == 1
    capsys.readouterr()
    shutil.rmtree(folder / "c-copy")
    (folder / "a-support" / "references.jsonl").unlink()  # one that cannot open is no suite: the other
    assert main(["report", str(folder)]) == 2
    assert f"a folder of 1 suite, not a suite: report on one of them, such as {folder / 'b-incidents'}" in (
        capsys.readouterr().err)


def test_json_contract(capsys: pytest.CaptureFixture[str]):
    main(["report", str(INCIDENTS), "--format", "json", "--top", "5"])
    data = json.loads(capsys.readouterr().out)
    for key in (
        "suite", "metric", "tokenizer", "stem", "baseline", "candidate", "delta", "delta_interval",
        "delta_interval_method", "verdict", "paired", "only_in_baseline", "only_in_candidate",
        "missing_reference", "signature", "top", "marks", "signal_drift", "flagged", "delta_test",
    ):
        assert key in data, key
    assert set(data["delta_test"]) == {"method", "seed", "resamples", "interval", "p_value", "min_detectable"}
    assert data["delta_test"]["seed"] == 0 and data["delta_test"]["resamples"] == 10_000
    for drift in data["signal_drift"]:
        assert set(drift) == {"signal", "count", "rate", "band", "history"}
    for role in ("baseline", "candidate"):
        build = data[role]
        assert isinstance(build["runs"], int) and isinstance(build["n"], int)
        assert isinstance(build["mean"], float)
        assert len(build["band"]) == 2 and build["band"][0] <= build["mean"] <= build["band"][1]
        assert build["band_source"] in ("replicates", "bootstrap", "analytic")
    assert data["signature"] == "rougeL|tok:whitespace|stem:no|v:0.1.0|seed:0"
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


def test_score_writes_each_line_as_json_dumps_would(tmp_path: Path):
    """The lines are written out by hand: each must be the bytes json.dumps gives for its
    own value (ASCII only, so no id's control or bidi character reaches a terminal raw)."""
    ids = ['quote"back\\slash', "tab\tnew\nline\x1b[31m", "é中\u202edone", 7, "x" * 300]
    outputs = ["a b c", "d e f", "a c", "a b c d", ""]
    refs = tmp_path / "refs.jsonl"
    outs = tmp_path / "outs.jsonl"
    refs.write_text("".join(json.dumps({"id": i, "reference": "a b c"}) + "\n" for i in ids))
    outs.write_text("".join(json.dumps({"id": i, "output": o}) + "\n" for i, o in zip(ids, outputs)))
    proc = run("score", str(refs), str(outs), "--metrics", "rouge1,rougeL")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii()
    lines = proc.stdout.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [str(i) for i in ids]
    for line in lines:
        assert line == json.dumps(json.loads(line))
    first = json.loads(lines[0])["scores"]["rouge1"]  # identical texts; and none in common
    assert (first["precision"], first["recall"], first["fmeasure"]) == (1.0, 1.0, 1.0)
    assert json.loads(lines[1])["scores"]["rougeL"]["fmeasure"] == 0.0


def test_score_hashes_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """A file's digest keys the caches and the history, which `score` has none of: its two
    files, plain and gzipped, are read and scored without one."""
    import gzip
    import hashlib

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("score hashed a file")

    refs, outs = tmp_path / "refs.jsonl", tmp_path / "outs.jsonl.gz"
    refs.write_text('{"id": "a", "reference": "the pool timed out"}\n', encoding="utf-8")
    outs.write_bytes(gzip.compress(b'{"id": "a", "output": "the pool"}\n'))
    monkeypatch.setattr(hashlib, "sha256", refused)
    assert main(["score", str(refs), str(outs), "--tokenizer", "rouge-score"]) == 0
    out, err = capsys.readouterr()
    # LCS 2 of 2 output and 4 reference tokens: P 1, R 0.5, F 2 * 1 * 0.5 / 1.5
    assert (json.loads(out)["scores"]["rougeL"], err) == ({"precision": 1.0, "recall": 0.5, "fmeasure": 2 / 3}, "")


def test_score_and_report_make_no_garbage_collection_from_their_first_import(tmp_path: Path) -> None:
    """A one-shot command turns the cyclic collector off before it loads the registries and
    the readers (whose imports made a dozen collections), not after."""
    refs = tmp_path / "refs.jsonl"
    refs.write_text('{"id": "a", "reference": "the pool timed out"}\n', encoding="utf-8")
    code = (
        "import contextlib, gc, io, sys\n"
        "from rouge_tui.cli import main\n"
        "made = []\n"
        "gc.callbacks.append(lambda phase, info: made.append(info['generation']) if phase == 'start' else None)\n"
        "with contextlib.redirect_stdout(io.StringIO()): code = main(sys.argv[1:])\n"
        "print(code, len(made))\n"
    )
    for args in (["score", str(refs), str(refs)], ["report", str(INCIDENTS), "--no-cache", "--format", "json"]):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True,
                              env=xdg_env(tmp_path / "home"))
        assert done.stdout.split()[1] == "0", (args, done.stdout, done.stderr)


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
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
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
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
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
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == expected
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------------- closed and full streams


def _closed(args: list[str], redirect: str, home: Path) -> subprocess.CompletedProcess[bytes]:
    """``rouge-tui ARGS`` under bash with ``redirect`` (``>&-``: stdout closed)."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "rouge_tui", *args])
    return subprocess.run(
        ["bash", "-c", f"{command} {redirect}"],
        capture_output=True, timeout=120, env=xdg_env(home), check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [["report", str(INCIDENTS)], ["report", str(INCIDENTS), "--format", "json"],
     ["score", str(INCIDENTS / "references.jsonl"), str(INCIDENTS / "references.jsonl")]],
    ids=["report-text", "report-json", "score"],
)  # fmt: skip
def test_stdout_closed_is_exit_2_with_nothing_written_anywhere(args: list[str], tmp_path: Path) -> None:
    """Issue 12, item 6: with stdout closed, report exited 1 (drift) with a traceback. And a
    closed fd 1 is the next file opened: nothing may land in a state file either."""
    home = tmp_path / "xdg"
    result = _closed(args, ">&-", home)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == b"rouge-tui: error: standard output is closed: nothing to write the result to\n"
    assert not home.exists() or not any(p.is_file() for p in home.rglob("*"))


def test_stdout_and_stderr_closed_is_still_exit_2(tmp_path: Path) -> None:
    assert _closed(["report", str(INCIDENTS)], ">&- 2>&-", tmp_path / "xdg").returncode == 2


@pytest.mark.parametrize(
    "args",
    [["report", "/nonexistent/suite"], ["report", str(INCIDENTS), "--baseline", "nope"],
     ["score", "/nonexistent.jsonl", "/nonexistent2.jsonl"]],
)  # fmt: skip
def test_with_stderr_closed_errors_never_go_to_stdout(args: list[str], tmp_path: Path) -> None:
    result = _closed(args, "2>&-", tmp_path / "xdg")
    assert result.returncode == 2
    assert result.stdout == b""


def test_main_with_no_stdout_object_is_exit_2(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["report", str(INCIDENTS)]) == 2
    assert "standard output is closed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["report", "{suite}"], ["report", "{suite}", "--format", "json"],
     ["report", "{suite}", "--format", "markdown"], ["score", "{refs}", "{out}"]],
    ids=["report-text", "report-json", "report-markdown", "score"],
)  # fmt: skip
def test_output_to_a_full_disk_is_exit_2_not_drift_and_not_a_traceback(
    tmp_path: Path, args: list[str]
) -> None:
    """Exit 1 means drift: a report that could not be written must never say that."""
    suite = small_suite(tmp_path / "suite")
    values = {"suite": str(suite), "refs": str(suite / "references.jsonl"),
              "out": str(suite / "builds" / "a.jsonl")}  # fmt: skip
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        result = subprocess.run(
            [sys.executable, "-m", "rouge_tui", *(a.format(**values) for a in args)],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            env=xdg_env(tmp_path / "xdg"), check=False,
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr == "rouge-tui: error: writing the output: No space left on device\n"


# ---------------------------------------------------------------------- what report reads


def test_report_with_no_suite_reports_on_the_bundled_sample(tmp_path: Path) -> None:
    result = cli("report", "--format", "json", home=tmp_path / "xdg")
    assert result.returncode == 1, result.stderr  # the sample drifts down
    data = json.loads(result.stdout)
    assert data["suite"] == "Incident summaries" and data["paired"] == 237


ESCAPE = "su\x1b]0;pwned\x07\x1b[31mite\u202e"


def _assert_no_raw_escape(result: subprocess.CompletedProcess[bytes], *needles: bytes) -> None:
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"\x1b" not in result.stderr and b"\x07" not in result.stderr
    assert "\u202e".encode() not in result.stderr
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def _run_bytes(*args: str, home: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rouge_tui", *args],
        capture_output=True, timeout=60, env=xdg_env(home), check=False,
    )  # fmt: skip


def test_an_escape_sequence_in_a_suite_folder_name_never_reaches_stderr_raw(tmp_path: Path) -> None:
    """Issue 12, item 5: every message that names the folder, checked byte by byte."""
    home = tmp_path / "xdg"
    escaped = b"su\\x1b]0;pwned\\x07\\x1b[31mite"
    no_refs = tmp_path / "a" / ESCAPE
    (no_refs / "builds").mkdir(parents=True)
    _assert_no_raw_escape(_run_bytes("report", str(no_refs), home=home), escaped, b"missing references")
    _assert_no_raw_escape(_run_bytes("report", str(tmp_path / "missing" / ESCAPE), home=home), escaped)
    broken = small_suite(tmp_path / "b" / ESCAPE)
    (broken / "builds" / "b.jsonl").write_text('{"id": "1", "output": "x"}\n{broken\n')
    _assert_no_raw_escape(_run_bytes("report", str(broken), home=home), escaped, b"b.jsonl:2:")
    apart = write_suite(tmp_path / "c" / ESCAPE, {"a": "x y"}, {f"1{ESCAPE}": {"b": "x"}, "2": {"c": "y"}})
    (apart / "references.jsonl").write_text(
        json.dumps({"id": "b", "reference": "x"}) + "\n" + json.dumps({"id": "c", "reference": "y"}) + "\n"
    )
    _assert_no_raw_escape(_run_bytes("report", str(apart), home=home), b"share no example")
    _assert_no_raw_escape(
        _run_bytes("score", str(no_refs / "references.jsonl"), str(broken / "builds" / "a.jsonl"), home=home),
        escaped,
    )


def test_a_bad_line_in_a_build_not_compared_stops_nothing(tmp_path: Path) -> None:
    refs = {"a": "the cat sat on the mat", "b": "a dog ran in the park", "c": "rain today"}
    base = {"a": "the cat sat", "b": "a dog ran in a park", "c": "rain"}
    cand = {"a": "the cat sat on the mat", "b": "dog", "c": "rain today"}
    suite = write_suite(tmp_path / "s", refs, {"A": base, "B": cand, "C": cand})
    (suite / "builds" / "C.jsonl").write_text('{"id": "a", "output": "x"}\n{broken\n')
    home = tmp_path / "xdg"
    result = cli("report", str(suite), "--baseline", "A", "--candidate", "B", "--format", "json", home=home)
    base_f = [chapter_rouge_l(base[k], refs[k]) for k in refs]
    cand_f = [chapter_rouge_l(cand[k], refs[k]) for k in refs]
    mean = sum(base_f) / 3
    half = 2 * (sum((x - mean) ** 2 for x in base_f) / 2) ** 0.5 / 3**0.5
    cand_mean = sum(cand_f) / 3
    verdict = "drift-down" if cand_mean < mean - half else "drift-up" if cand_mean > mean + half else "within-band"
    assert json.loads(result.stdout)["verdict"] == verdict, result.stderr
    assert result.returncode == (0 if verdict == "within-band" else 1)
    hint = "(--baseline A --candidate B compares the two newest builds that can be read)"  # C is the broken one
    for args in (["--candidate", "C"], ["--baseline", "C", "--candidate", "B"], []):
        broken = cli("report", str(suite), *args, home=home)  # [] picks C, the newest
        assert broken.returncode == 2, args
        assert_one_line_error(broken.stdout, broken.stderr, "C.jsonl:2: invalid JSON")
        # the way on, for a reader who did not pick the pair (who did, knows it)
        assert (hint in broken.stderr) == (args == []), (args, broken.stderr)


def test_the_way_on_from_a_broken_newest_build_is_flags_to_type_quoted(tmp_path: Path) -> None:
    """The two newest other builds, quoted for a shell: the baseline of the default pair broken
    this time, so the candidate is one of them."""
    refs = {"a": "the cat sat on the mat"}
    suite = write_suite(tmp_path / "s", refs, {"night 1": refs, "night 2": refs, "night 3": refs})
    (suite / "builds" / "night 2.jsonl").write_text("{broken\n")
    broken = cli("report", str(suite), home=tmp_path / "xdg")
    assert broken.returncode == 2
    assert_one_line_error(broken.stdout, broken.stderr, "night 2.jsonl:1: invalid JSON")
    assert "(--baseline 'night 1' --candidate 'night 3' compares the two newest builds that can be read)" in broken.stderr


def test_the_way_on_leaves_out_builds_known_broken_and_guards_a_leading_dash(tmp_path: Path) -> None:
    """Names argparse would read as flags take the --flag=value form; a build the suite
    already lists as unreadable is not offered; with no other pair, it says so."""
    refs = {"a": "the cat sat on the mat"}
    suite = write_suite(tmp_path / "s", refs, {"-v": refs, "-w": refs, "-x": refs, "-y": refs})
    (suite / "builds" / "-w.jsonl").unlink()
    (suite / "builds" / "-w").mkdir()  # a run folder with no runs: listed unreadable at open
    (suite / "builds" / "-y.jsonl").write_text("{broken\n")
    broken = cli("report", str(suite), "--baseline=-x", "--candidate=-y", home=tmp_path / "xdg")
    assert broken.returncode == 2 and "(--baseline" not in broken.stderr  # picked: no way on
    broken = cli("report", str(suite), home=tmp_path / "xdg")
    assert broken.returncode == 2, broken.stderr
    assert "(--baseline=-v --candidate=-x compares the two newest builds that can be read)" in broken.stderr, broken.stderr
    assert cli("report", str(suite), "--baseline=-v", "--candidate=-x", home=tmp_path / "xdg").returncode in (0, 1)
    two = write_suite(tmp_path / "t", refs, {"1": refs, "2": refs})
    (two / "builds" / "2.jsonl").write_text("{broken\n")
    broken = cli("report", str(two), home=tmp_path / "xdg")
    assert "(no other two builds of the suite can be read)" in broken.stderr, broken.stderr


def test_the_way_on_names_only_builds_that_can_be_read(tmp_path: Path) -> None:
    """A newcomer's suite: the newest build has a bad line, the one before is empty (read
    first, as the baseline); the way on named the one with the bad line, which failed in its
    turn. Only builds read whole are offered."""
    refs = {"a": "the cat sat on the mat"}
    suite = write_suite(tmp_path / "s", refs, {"1": refs, "2": refs, "3": refs, "4": refs, "5": refs})
    (suite / "builds" / "5.jsonl").write_text('{"id": "a", "output": "x"}\n{broken\n')
    (suite / "builds" / "4.jsonl").write_text("")
    (suite / "builds" / "2.jsonl").write_text('{"id": "a"}\n')  # no output field
    broken = cli("report", str(suite), home=tmp_path / "xdg")
    assert broken.returncode == 2
    assert_one_line_error(broken.stdout, broken.stderr, "4.jsonl: empty file (no records)")
    assert "(--baseline 1 --candidate 3 compares the two newest builds that can be read)" in broken.stderr
    assert cli("report", str(suite), "--baseline", "1", "--candidate", "3", home=tmp_path / "xdg").returncode in (0, 1)


@pytest.mark.parametrize("how", ["a dangling link", "a folder named as a file", "two builds of one name"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no cache"])
def test_a_newest_build_that_cannot_even_be_opened_gets_the_way_on_too(tmp_path: Path, how: str, cache: bool) -> None:
    """A review found these went past the way on: with the cache, the bytes of the newest
    files were hashed for the figures' key before the reading that gives it, and a build
    the listing already knew was broken matched neither of the pair's paths."""
    refs = {"a": "the cat sat on the mat"}
    suite = write_suite(tmp_path / "s", refs, {"1": refs, "2": refs})
    newest = suite / "builds" / "3.jsonl"
    if how == "a dangling link":
        newest.symlink_to(tmp_path / "nowhere.jsonl")
    elif how == "a folder named as a file":
        newest.mkdir()
    else:
        newest.write_text('{"id": "a", "output": "x"}\n')
        (suite / "builds" / "3.csv").write_text("id,output\na,x\n")
    broken = cli("report", str(suite), *([] if cache else ["--no-cache"]), home=tmp_path / "xdg")
    assert broken.returncode == 2
    assert_one_line_error(broken.stdout, broken.stderr, "(--baseline 1 --candidate 2 compares the two newest builds that can be read)")


def test_a_bad_k_from_the_command_line_is_exit_2(tmp_path: Path) -> None:
    for value in ("nan", "0", "-1", "inf"):
        result = cli("report", str(INCIDENTS), "-k", value, home=tmp_path / "xdg")
        assert result.returncode == 2, value
        assert_one_line_error(result.stdout, result.stderr, "band k must be a positive number up to 100")


# ---------------------------------------------------------------------- references and identity


def _edit_first_reference(suite: Path) -> None:
    refs = suite / "references.jsonl"
    lines = refs.read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    row["reference"] += " One more sentence."
    lines[0] = json.dumps(row) + "\n"
    refs.write_text("".join(lines))


def test_a_reference_change_is_reported_and_persists(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(INCIDENTS, suite)
    home = tmp_path / "xdg"
    first = json.loads(cli("report", str(suite), "--format", "json", home=home).stdout)
    assert first["references_changed"] is None
    assert not [w for w in first["warnings"] if "references changed" in w]
    _edit_first_reference(suite)
    second = json.loads(cli("report", str(suite), "--format", "json", home=home).stdout)
    change = second["references_changed"]
    assert change is not None and change["previous"] == first["reference_fingerprint"]
    assert change["current"] == second["reference_fingerprint"] != change["previous"]
    assert any(w.startswith("references changed since ") for w in second["warnings"])
    # the same builds were scored against the old references: still said on the next runs
    for fmt in ("text", "markdown", "json"):
        again = cli("report", str(suite), "--format", fmt, home=home)
        assert "references changed since" in again.stdout, fmt


def test_two_unnamed_suites_in_folders_called_suite_never_warn_about_each_other(tmp_path: Path) -> None:
    """Issue 12, item 10: they shared one log and each report warned, alternating."""
    one = small_suite(tmp_path / "one" / "suite")
    two = small_suite(tmp_path / "two" / "suite")
    refs = two / "references.jsonl"
    refs.write_text(refs.read_text().replace("mat", "rug"))
    home = tmp_path / "xdg"
    for _ in range(2):
        for suite in (one, two):
            data = json.loads(cli("report", str(suite), "--format", "json", home=home).stdout)
            assert data["suite"] == "suite"
            said = [w for w in data["warnings"] if "references alone" not in w]  # (no source: said)
            assert data["references_changed"] is None and said == [], suite
    refs.write_text(refs.read_text().replace("park", "yard"))  # a real change, in two only
    data = json.loads(cli("report", str(two), "--format", "json", home=home).stdout)
    assert data["references_changed"] is not None
    warnings = json.loads(cli("report", str(one), "--format", "json", home=home).stdout)["warnings"]
    assert [w for w in warnings if "references alone" not in w] == []


def test_a_named_suites_edited_copy_never_makes_the_original_warn(tmp_path: Path) -> None:
    """A newcomer copied the sample, edited a reference in the copy, and from then on every
    report of the untouched original said its references had changed (the log follows the
    suite.toml name), alternating with the copy's on every run."""
    original, copy = tmp_path / "original", tmp_path / "copy"
    shutil.copytree(INCIDENTS, original)
    shutil.copytree(INCIDENTS, copy)
    _edit_first_reference(copy)
    home = tmp_path / "xdg"

    def changed(suite: Path) -> bool:
        data = json.loads(cli("report", str(suite), "--format", "json", home=home).stdout)
        said = any(w.startswith("references changed since ") for w in data["warnings"])
        assert said == (data["references_changed"] is not None)
        return said

    assert not changed(original)
    assert changed(copy)  # first seen here: the same name was reviewed with other references
    for _ in range(2):
        assert not changed(original)
        assert not changed(copy)
    _edit_first_reference(original)  # a real change, in the original's own folder
    assert changed(original)
    assert not changed(copy)


def test_an_unexpected_error_is_exit_2_never_1_which_means_drift(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any exception nobody foresaw (a bug, a cache entry crafted to pass its seal) ended in
    a traceback and Python's exit status 1: to a CI job, drift."""
    from rouge_tui.report import contract

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("a bug \x1b[31m of ours")

    monkeypatch.setattr(contract, "to_json", broken)
    assert main(["report", str(INCIDENTS), "--no-cache"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "rouge-tui: error: internal error (KeyError: 'a bug \\x1b[31m of ours'); please report it\n"


def test_a_sparse_8gb_candidate_is_exit_2_in_seconds_naming_its_first_line(tmp_path: Path) -> None:
    """Issue 12, 1: `truncate -s 8G builds/c.jsonl` through the whole report (the figures'
    cache key hashes the files before they are parsed): one line naming file and line, fast."""
    suite = make_suite(tmp_path / "s")
    big = suite / "builds" / "3-huge.jsonl"
    with open(big, "wb") as handle:
        handle.truncate(8 << 30)
    start = time.monotonic()
    proc = run("report", str(suite))
    assert time.monotonic() - start < 8  # hashing all 8 GB first took 16-20 s
    assert proc.returncode == 2
    assert proc.stdout == ""
    way = "--baseline 1-old --candidate 2-new compares the two newest builds that can be read"
    assert proc.stderr == f"rouge-tui: error: {big}:1: line longer than 64 MiB ({way})\n"


def test_a_400_mb_build_of_newlines_is_exit_2_in_seconds(tmp_path: Path) -> None:
    """Issue 12, 1: a newline bomb must not take minutes; it took 25 s a gigabyte (a million
    empty lines a megabyte, each made and looked at in Python)."""
    suite = make_suite(tmp_path / "s")
    bomb = suite / "builds" / "3-newlines.jsonl"
    with open(bomb, "wb") as handle:
        handle.writelines(b"\n" * (1 << 20) for _ in range(400))
    start = time.monotonic()
    proc = run("report", str(suite), "--no-cache")
    assert time.monotonic() - start < 6  # 10 s before
    assert proc.returncode == 2
    way = "--baseline 1-old --candidate 2-new compares the two newest builds that can be read"
    assert proc.stderr == f"rouge-tui: error: {bomb}: empty file (no records) ({way})\n"


def test_cached_figures_follow_an_edit_to_an_earlier_build(tmp_path: Path) -> None:
    """The history band and the volatile signal read the builds before the baseline: a
    cached comparison must not outlive an edit to one of them (it did: the key held only
    the references and the two compared builds)."""
    refs = jsonl({"id": "a", "reference": "the cat sat on the mat"}, {"id": "b", "reference": "a dog ran in the park"})
    out = {
        "1.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": "a dog ran"}),
        "2.jsonl": jsonl({"id": "a", "output": "the cat sat"}, {"id": "b", "output": "a dog"}),
        "3.jsonl": jsonl({"id": "a", "output": "the cat sat on"}, {"id": "b", "output": "a dog ran in"}),
        "4.jsonl": jsonl({"id": "a", "output": "the cat sat on the"}, {"id": "b", "output": "a dog ran in the"}),
    }
    suite = make_suite(tmp_path / "s", refs, out, toml='name = "edited history"\n[band]\nsource = "history"\n')
    first = json.loads(run("report", str(suite), "--format", "json").stdout)
    (suite / "builds" / "1.jsonl").write_text(
        jsonl({"id": "a", "output": "the cat sat on the mat"}, {"id": "b", "output": "a dog ran in the park"}))
    cached = json.loads(run("report", str(suite), "--format", "json").stdout)
    fresh = json.loads(run("report", str(suite), "--format", "json", "--no-cache").stdout)
    assert cached == fresh
    assert cached["baseline"]["band"] != first["baseline"]["band"]  # build 1's mean is in it


def test_text_report_not_to_a_terminal_fits_80_columns_and_keeps_every_word(capsys) -> None:
    """Piped or in a CI log, the text report is 80 columns with no trailing spaces; a new
    sentence longer than a line wraps under itself and keeps its words, in order."""
    main(["report", str(INCIDENTS)])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines and all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert all(line == line.rstrip() for line in lines)
    sentence = "The incident was caused by insufficient test coverage in the deployment pipeline."
    at = next(i for i, line in enumerate(lines) if "inc-0042  new sentence:" in line or "inc-0042 new sentence:" in line)
    column = lines[at].index("new sentence:")
    joined = lines[at][column + len("new sentence:"):].split()
    for line in lines[at + 1:]:
        if line[:column].strip():  # the next row
            break
        joined += line.split()
    assert " ".join(joined) == sentence


def test_a_new_sentence_with_a_word_wider_than_the_line_is_shown_whole(tmp_path: Path, capsys) -> None:
    """A run of Chinese with no space, or a long URL, is folded across lines, not cut."""
    wide, url = "\u77ed" * 70 + "\u3002", "https://status.example.com/" + "a" * 90
    refs = jsonl({"id": "a", "reference": "the pool timed out."}, {"id": "b", "reference": "the pool timed out."})
    suite = make_suite(tmp_path / "s", refs, {
        "1.jsonl": jsonl({"id": "a", "output": "the pool timed out."}, {"id": "b", "output": "the pool."}),
        "2.jsonl": jsonl({"id": "a", "output": f"the pool timed out. {wide}"}, {"id": "b", "output": f"the pool. See {url} now."}),
    })  # fmt: skip
    main(["report", str(suite), "--no-cache"])
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    flat = "".join(line.strip() for line in out.splitlines())
    assert wide in flat and url in flat.replace(" ", "")


def test_no_stem_turns_off_the_suites_stemming(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """suite.toml says stem = true; --no-stem scores without, as rouge-score does with
    use_stemmer=False (the only way before was another tokenizer)."""
    refs = {"a": "the cats were running home", "b": "dogs barked loudly"}
    old = {"a": "the cat runs home", "b": "a dog barks"}
    new = {"a": "cats running home", "b": "dogs barking loudly"}
    suite = make_suite(
        tmp_path / "s", jsonl(*({"id": k, "reference": v} for k, v in refs.items())),
        {"1-old.jsonl": jsonl(*({"id": k, "output": v} for k, v in old.items())),
         "2-new.jsonl": jsonl(*({"id": k, "output": v} for k, v in new.items()))},
        'tokenizer = "rouge-score"\nstem = true\n',
    )  # fmt: skip
    for flags, stem in (([], True), (["--no-stem"], False), (["--stem"], True)):
        main(["report", str(suite), "--format", "json", "--no-cache", *flags])
        data = json.loads(capsys.readouterr().out)
        assert data["signature"].split("|")[2] == f"stem:{'yes' if stem else 'no'}"
        oracle = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
        deltas = [oracle.score(refs[k], new[k])["rougeL"].fmeasure - oracle.score(refs[k], old[k])["rougeL"].fmeasure for k in refs]
        assert data["delta"] == pytest.approx(sum(deltas) / 2, abs=1e-12), flags


def test_top_defaults_to_the_ten(capsys: pytest.CaptureFixture[str]) -> None:
    from rouge_tui.analysis.compare import TEN

    main(["report", str(INCIDENTS), "--format", "json"])
    assert len(json.loads(capsys.readouterr().out)["top"]) == TEN


def test_rougelsum_past_its_table_is_one_line_and_exit_2_not_an_abort(tmp_path: Path):
    """7,100 words on one line a side: rouge-score-rs's rougeLsum table would be 7,101 x 7,101
    four-byte cells (past engine.MOST_LSUM_CELLS; 110,000 words aborted the process)."""
    line = " ".join(f"w{i % 13}" for i in range(7100))
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "the cat"}, {"id": "long", "reference": line}),
                       {"1-old.jsonl": jsonl({"id": "a", "output": "the cat"}, {"id": "long", "output": line}),
                        "2-new.jsonl": jsonl({"id": "a", "output": "a cat"}, {"id": "long", "output": line})})
    for args in (("report", str(suite), "--metric", "rougeLsum"),
                 ("score", str(suite / "references.jsonl"), str(suite / "builds" / "2-new.jsonl"), "--metrics", "rougeL,rougeLsum")):
        done = run(*args)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines() == [
            ("rouge-tui: error: example 'long': rougeLsum cannot score a line of 7,100 tokens against a "
             "reference line of 7,100 (its table would take 0.2 GB); rougeL can"),
        ]
    assert run("report", str(suite), "--metric", "rougeL").returncode in (0, 1)


@pytest.mark.parametrize("args", [["report", ""], ["open", ""], [""], ["report", "", "--format", "json"],
                                  ["score", "", "x.jsonl"], ["score", "x.jsonl", ""]])
def test_an_empty_path_is_exit_2_never_the_bundled_sample(args: list[str], tmp_path: Path) -> None:
    """Issue 39, 11: `report "$SUITE"` with SUITE unset reported the sample, exit 1 (drift)."""
    result = cli(*args, home=tmp_path / "xdg")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "empty path" in result.stderr


@pytest.mark.parametrize("blank", [b" \n", b"\r\n", b"\t \r\n"], ids=["space", "crlf", "tab-space-crlf"])
def test_100_mb_of_blank_lines_is_exit_2_in_seconds(tmp_path: Path, blank: bytes) -> None:
    """Issue 39, 16: 100 MB of " \\n" or "\\r\\n" took 61 s to reach the error that 100 MB
    of "\\n" reaches in 0.6 s: a line of whitespace only is blank too."""
    suite = make_suite(tmp_path / "s")
    bomb = suite / "builds" / "3-blank.jsonl"
    with open(bomb, "wb") as handle:
        handle.writelines(blank * ((1 << 20) // len(blank)) for _ in range(100))
    start = time.monotonic()
    proc = run("report", str(suite), "--no-cache")
    assert time.monotonic() - start < 15  # well under the minute it took, even on a busy machine
    assert proc.returncode == 2
    way = "--baseline 1-old --candidate 2-new compares the two newest builds that can be read"
    assert proc.stderr == f"rouge-tui: error: {bomb}: empty file (no records) ({way})\n"


@pytest.mark.parametrize(
    "args",
    [["report", "{suite}", "--format", "json"], ["report", "{suite}", "--format", "markdown"],
     ["report", "{suite}"], ["score", "{refs}", "{out}"]],
    ids=["report-json", "report-markdown", "report-text", "score"],
)  # fmt: skip
def test_a_report_cut_short_by_a_file_size_limit_is_exit_2(tmp_path: Path, args: list[str]) -> None:
    """Issue 39, 12: past `ulimit -f` (or a disk filling mid-write) the first write is short
    and Python's stdout says nothing: report exited 1 with invalid JSON, score 0."""
    suite = INCIDENTS  # a report of several KiB, past the 1 KiB allowed
    values = {"suite": str(suite), "refs": str(suite / "references.jsonl"),
              "out": str(max((suite / "builds").iterdir()))}  # fmt: skip
    command = shlex.join([sys.executable, "-m", "rouge_tui", *(a.format(**values) for a in args)])
    out = tmp_path / "out"
    result = subprocess.run(
        ["bash", "-c", f"ulimit -f 1; {command} > {shlex.quote(str(out))}"],
        capture_output=True, text=True, timeout=60, env=xdg_env(tmp_path / "xdg"), check=False,
    )  # fmt: skip
    assert out.stat().st_size == 1024  # the limit was met mid-report
    assert result.returncode == 2, result.stderr
    # one line; score notes first the sample's one reference with no output
    lines = result.stderr.splitlines()
    assert lines[-1] == "rouge-tui: error: writing the output: File too large"
    assert len(lines) == (2 if args[0] == "score" else 1), lines


def test_score_says_how_many_ids_it_left_out_on_one_stderr_line(tmp_path: Path) -> None:
    """Issue 39, weak spot: ids found in only one of the two files were dropped silently."""
    refs, outs = tmp_path / "refs.jsonl", tmp_path / "outs.jsonl"
    refs.write_text(jsonl(*({"id": i, "reference": "a b"} for i in ("a", "b", "c", "m"))))
    outs.write_text(jsonl(*({"id": i, "output": "a"} for i in ("x", "a", "y", "b", "z"))))
    proc = run("score", str(refs), str(outs))
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == ["a", "b"]
    assert proc.stderr == (f"rouge-tui: note: 2 ids in both files scored; left out 3 only in {outs} "
                           f"and 2 only in {refs}\n")
    outs.write_text(jsonl(*({"id": i, "output": "a"} for i in ("m", "c", "b", "a"))))
    quiet = run("score", str(refs), str(outs))
    assert quiet.returncode == 0 and quiet.stderr == ""  # the same ids: nothing to say
    # A metric named twice is one key of each line (it was written twice: JSON readers keep one).
    twice = run("score", str(refs), str(outs), "--metrics", "rougeL,rouge1,rougeL")
    assert [list(json.loads(line)["scores"]) for line in twice.stdout.splitlines()] == [["rougeL", "rouge1"]] * 4
    # No id in both (the wrong pair of files, a newcomer's): exit 2, one line, not an empty success.
    outs.write_text(jsonl({"id": "q", "output": "x"}))
    none = run("score", str(refs), str(outs))
    assert (none.returncode, none.stdout) == (2, "")
    assert none.stderr == f"rouge-tui: error: no id is in both files (1 in {outs}, 4 in {refs})\n"


def _main_with_stderr(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, err.getvalue()


@pytest.mark.parametrize("command", ["report", "open"])
def test_a_folder_that_cannot_be_entered_or_loops_is_named_so_by_report_and_open(
    tmp_path: Path, command: str
) -> None:
    """Issue 39, weak spot: `report` on a folder of mode 000 said "suite.toml: Permission
    denied", `open` "not a suite"; a loop of links was "no such directory"."""
    from safety_helpers import public_folder, unprivileged

    with public_folder() as root:
        suite = small_suite(root / "s")
        with contextlib.redirect_stdout(io.StringIO()):  # what report imports, imported
            assert main(["report", str(suite), "--no-cache"]) in (0, 1)
        suite.chmod(0o000)
        assert unprivileged(_main_with_stderr, command, str(suite)) == (
            2, f"rouge-tui: error: {suite}: cannot enter the folder: Permission denied\n")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert _main_with_stderr(command, str(tmp_path / "a")) == (
        2, f"rouge-tui: error: {tmp_path}/a: a loop of symbolic links\n")


@pytest.mark.parametrize(("args", "line"), [
    (["report", str(INCIDENTS), "--metric", "bleu"],
     ("report: argument --metric: invalid choice: 'bleu' (choose from 'rouge1', 'rouge2', 'rougeL', "
     "'rougeLsum') (see rouge-tui report --help)")),
    (["score", "r", "o", "--tokenizer", "x"],
     ("score: argument --tokenizer: invalid choice: 'x' (choose from 'whitespace', 'rouge-score', "
     "'unicode', 'character') (see rouge-tui score --help)")),
    (["report", "--top", "many"], "report: argument --top: invalid int value: 'many' (see rouge-tui report --help)"),
])
def test_a_bad_option_value_is_one_line_not_a_usage_block(args: list[str], line: str) -> None:
    """Issue 39, weak spot: a bad choice printed argparse's usage block (8 lines) first."""
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"rouge-tui: error: {line}\n"


# ------------------------------------------------------------------ another tool's files


def _main_out(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _figures(report: dict) -> dict:
    """A report's figures without the builds' names (an import numbers them)."""
    keep = ("n", "runs", "mean", "band", "band_source")
    return {"suite": report["suite"], "paired": report["paired"], "delta": report["delta"],
            "verdict": report["verdict"], "signature": report["signature"],
            "delta_interval": report["delta_interval"],
            **{side: {k: report[side][k] for k in keep} for side in ("baseline", "candidate")},
            "top": [(row["id"], row["baseline"], row["candidate"]) for row in report["top"]],
            "history": [{k: h[k] for k in ("runs", "n", "mean", "band")} for h in report.get("history", [])]}


def test_report_reads_another_tools_files_and_import_gives_the_same_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report PATH` on a harness's files; `import` of the same files, then `report` on the
    native suite written: the same figures, the builds in the same (history) order; the
    inputs untouched."""
    from toy_format import install, write_toy

    install(monkeypatch)
    folder = write_toy(tmp_path / "harness", builds={
        ("2026-01-01", "zeta"): {1: "the cat sat on a mat", 2: "a dog ran", 3: "rain fell all day"},
        ("2026-01-02", "alpha"): [{1: "the cat sat", 2: "the dog ran far", 3: "rain all day"},
                                  {1: "the cat sat down", 2: "the dog ran", 3: "rain all day long"}],
        ("2026-01-03", "mid"): {1: "a cat", 2: "dogs", 3: "sun shone"}})
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    code, text, err = _main_out("report", str(folder), "--format", "json", "--history", "--no-cache")
    assert code == 1 and err == "", err  # the candidate fell apart: drift
    harness = json.loads(text)
    assert (harness["baseline"]["name"], harness["candidate"]["name"]) == ("alpha@2026-01-02", "mid@2026-01-03")
    assert [h["name"] for h in harness["history"]] == ["zeta@2026-01-01", "alpha@2026-01-02", "mid@2026-01-03"]
    assert harness["suite"] == "summ" and harness["baseline"]["runs"] == 2

    out = tmp_path / "native"
    assert _main_out("import", "toy", str(folder), "--out", str(out)) == (
        0, "", f"rouge-tui: wrote 'summ': 3 builds, to {out}\n")
    assert sorted(p.name for p in (out / "builds").iterdir()) == ["1-zeta@2026-01-01.jsonl", "2-alpha@2026-01-02", "3-mid@2026-01-03.jsonl"]
    assert sorted(p.name for p in (out / "builds" / "2-alpha@2026-01-02").iterdir()) == ["run-1.jsonl", "run-2.jsonl"]
    code, text, err = _main_out("report", str(out), "--format", "json", "--history", "--no-cache")
    assert code == 1 and err == "", err
    native = json.loads(text)
    assert (native["baseline"]["name"], native["candidate"]["name"]) == ("2-alpha@2026-01-02", "3-mid@2026-01-03")
    assert _figures(native) == _figures(harness)
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()} == before


def test_a_broken_third_build_of_another_tools_files_stops_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toy_format import install, write_toy

    install(monkeypatch)
    folder = write_toy(tmp_path / "harness")
    broken = folder / "out~summ~2026-01-03~mid.jsonl"
    broken.write_text(jsonl({"doc": {"n": 1}, "resp": ["x"]}, {"doc": {"n": 2}, "resp": [7]}))
    code, text, err = _main_out("report", str(folder), "--baseline", "zeta@2026-01-01",
                                "--candidate", "alpha@2026-01-02", "--format", "json", "--no-cache")
    assert code in (0, 1) and err == "" and json.loads(text)["candidate"]["name"] == "alpha@2026-01-02"
    code, text, err = _main_out("report", str(folder), "--candidate", "mid@2026-01-03", "--no-cache")
    assert (code, text) == (2, "")
    assert err == f"rouge-tui: error: {broken}:2: 'resp.0' must be a string, not number\n"
    code, _, err = _main_out("import", "toy", str(folder), "--out", str(tmp_path / "new"))
    assert code == 2 and err.startswith(f"rouge-tui: error: {broken}:2: ") and not (tmp_path / "new").exists()


def test_format_names_the_layout_where_several_could_read_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toy_format import install, write_toy

    install(monkeypatch, "toy-too")
    folder = write_toy(tmp_path / "harness")
    several = (f"rouge-tui: error: {folder}: reads as several formats (toy, toy-too): name one with --layout NAME "
               "or suite.toml's format\n")
    assert _main_out("report", str(folder)) == (2, "", several)
    assert _main_out(str(folder)) == (2, "", several)  # rouge-tui PATH: before any screen
    code, text, err = _main_out("report", str(folder), "--layout", "toy-too", "--format", "json", "--no-cache")
    assert code == 1 and json.loads(text)["suite"] == "summ"
    (folder / "suite.toml").write_text('name = "Summaries"\n\nformat = "toy-to"\n')
    assert _main_out("report", str(folder)) == (2, "", (
        f"rouge-tui: error: {folder / 'suite.toml'}:3: unknown format 'toy-to' (did you mean 'toy-too'?); "
        "expected one of native, parquet, toy, toy-too\n"))
    (folder / "suite.toml").write_text('name = "Summaries"\nformat = "toy"\n')
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert (code, err) == (1, "") and json.loads(text)["suite"] == "Summaries"
    write_toy(folder, task="qa")  # two suites at one path: report needs one named
    code, text, err = _main_out("report", str(folder), "--suite-name", "qa", "--format", "json", "--no-cache")
    assert (code, err) == (1, "") and json.loads(text)["suite"] == "Summaries"  # suite.toml's name wins
    (folder / "suite.toml").unlink()
    assert _main_out("report", str(folder), "--layout", "toy") == (2, "", (
        f"rouge-tui: error: {folder}: holds 2 suites ('qa', 'summ'): name one with --suite-name NAME\n"))


def test_import_refuses_a_folder_that_holds_anything_and_help_lists_the_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toy_format import install, write_toy

    install(monkeypatch)
    folder = write_toy(tmp_path / "harness")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / ".keep").write_text("")
    assert _main_out("import", "toy", str(folder), "--out", str(tmp_path / "full")) == (
        2, "", f"rouge-tui: error: {tmp_path / 'full'}: exists and is not empty: name a new folder for the suite\n")
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == [".keep"]
    (tmp_path / "empty").mkdir()
    assert _main_out("import", "toy", str(folder), "--out", str(tmp_path / "empty"))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "full", "harness"]  # no temporary left
    for command, listed in (("import", "FORMAT toy"), ("report", "format, whatever its shape or suite.toml says: native, parquet, toy")):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            main([command, "--help"])
        assert listed in " ".join(out.getvalue().split()), out.getvalue()


def test_parquet_goes_to_out_or_a_redirect_and_never_to_a_terminal(tmp_path: Path) -> None:
    """Parquet is binary: ``--out FILE`` writes it, a redirect takes it, and a terminal is
    refused with one line and exit 2 (nothing run, nothing written there)."""
    import os
    import pty

    suite = small_suite(tmp_path / "suite")
    home = tmp_path / "home"
    written = cli("report", str(suite), "--format", "parquet", "--out", str(tmp_path / "r.parquet"), home=home)
    assert written.returncode in (0, 1) and written.stdout == "", written.stderr
    piped = subprocess.run([sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "parquet"],
                           capture_output=True, timeout=60, env=xdg_env(home), check=False)
    assert piped.returncode == written.returncode
    assert piped.stdout == (tmp_path / "r.parquet").read_bytes() and piped.stdout.startswith(b"PAR1")
    leader, follower = pty.openpty()
    try:
        refused = subprocess.run([sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "parquet"],
                                 stdout=follower, stderr=subprocess.PIPE, text=True, timeout=60, env=xdg_env(home),
                                 check=False)
        os.set_blocking(leader, False)
        with contextlib.suppress(BlockingIOError):
            assert os.read(leader, 4096) == b""  # not a byte of it on the terminal
    finally:
        os.close(leader)
        os.close(follower)
    assert refused.returncode == 2
    assert_one_line_error("", refused.stderr, "--format parquet", "--out FILE")


def test_out_writes_what_stdout_would_and_never_into_the_suite(tmp_path: Path) -> None:
    """``--out FILE`` holds the bytes standard output would have had, with the same exit
    status; a FILE inside the suite is refused (the suite directory is never written)."""
    from safety_helpers import tree

    suite = small_suite(tmp_path / "suite")
    home = tmp_path / "home"
    printed = cli("report", str(suite), "--format", "json", home=home)
    written = cli("report", str(suite), "--format", "json", "--out", str(tmp_path / "r.json"), home=home)
    assert (written.returncode, written.stdout) == (printed.returncode, "")
    assert (tmp_path / "r.json").read_text() == printed.stdout
    # A report written over one made private stays private (a newcomer's 0600 file came back
    # world-readable: the new file renamed over it had the umask's mode).
    (tmp_path / "r.json").chmod(0o600)
    again = cli("report", str(suite), "--format", "json", "--out", str(tmp_path / "r.json"), home=home)
    assert again.returncode == printed.returncode and (tmp_path / "r.json").stat().st_mode & 0o777 == 0o600
    before = tree(suite)
    inside = cli("report", str(suite), "--format", "json", "--out", str(suite / "builds" / "r.json"), home=home)
    assert inside.returncode == 2
    assert_one_line_error(inside.stdout, inside.stderr, "inside the suite")
    assert tree(suite) == before

def test_out_naming_a_folder_says_so_and_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--out DIR`` (a folder, where a file is wanted) is one line naming DIR, exit 2: never
    the temporary file the write went through, and nothing is left in the folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    suite = small_suite(tmp_path / "suite")
    folder = tmp_path / "reports"
    folder.mkdir()
    code, out, err = _main_out("report", str(suite), "--format", "json", "--out", str(folder))
    assert (code, out) == (2, "")
    assert err == f"rouge-tui: error: --out {folder}: a folder; name a file to write the report to\n"
    assert not list(folder.iterdir()) and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_report_on_a_parquet_suite_is_its_jsonl_twins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_suite import as_parquet

    twin = as_parquet(INCIDENTS, tmp_path / INCIDENTS.name)
    assert main(["report", str(INCIDENTS), "--format", "json", "--no-cache"]) == 1
    expected = json.loads(capsys.readouterr().out)
    assert main(["report", str(twin), "--format", "json", "--no-cache"]) == 1
    assert json.loads(capsys.readouterr().out) == expected


@pytest.mark.parametrize(("given", "seen"), [(None, "1"), ("4", "4")])
def test_the_command_runs_numpy_with_one_openblas_thread_and_an_import_sets_nothing(
    given: str | None, seen: str
) -> None:
    """The command sets OPENBLAS_NUM_THREADS before numpy loads (a user's own setting wins);
    importing the package changes no environment variable of the program importing it."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = (
        "import os, sys\n"
        "import rouge_tui.analysis.pipeline\n"
        "before = os.environ.get('OPENBLAS_NUM_THREADS')\n"
        "from rouge_tui.cli import main\n"
        "main(['--version'])\n"
        "print(before, os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.splitlines()[-1] == f"{given} {seen}"


def test_open_with_a_format_that_finds_nothing_says_the_formats_own_error(tmp_path: Path) -> None:
    """``open PATH --format helm`` where no HELM run is: the HELM importer's own line (what it
    looked for), never "not a suite (no references file and builds/)", the native layout's."""
    (tmp_path / "empty").mkdir()
    code, out, err = _main_out("open", str(tmp_path / "empty"), "--format", "helm")
    assert (code, out) == (2, "")
    assert err == f"rouge-tui: error: {tmp_path / 'empty'}: no HELM run folder (one with scenario_state.json) found\n"


def test_a_suites_stem_without_a_tokenizer_that_stems_names_the_file_and_line(tmp_path: Path, capsys) -> None:
    """A red-team pass: "error: suite.toml's stem = true needs a tokenizer that stems" named
    no file: in a folder of suites, which suite.toml? It names it, and the line."""
    from suite_helpers import make_suite

    suite = make_suite(tmp_path / "s", toml='name = "s"\n\nstem = true\n')
    capsys.readouterr()
    assert main(["report", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rouge-tui: error: {suite / 'suite.toml'}:3: suite.toml's stem = true needs"), err


def test_files_in_builds_named_like_a_build_but_not_read_are_said(tmp_path: Path, capsys) -> None:
    """A red-team pass: builds/ held a.jsonl and b.jsonl, and c.JSONL and d.json, meant as the
    newest builds; report compared a with b, within band, exit 0, no word of the other two
    (the note of files that are no build came only with fewer than two builds). So were a
    folder's run-4.JSONL and notes left out of its runs. Each report says what it did not
    read; a README beside the builds is no stray."""
    run = jsonl({"id": "a", "output": "the cat"}, {"id": "b", "output": "a dog"})
    suite = make_suite(tmp_path / "s", builds={"1-old.jsonl": run, "2-new": {"run-1.jsonl": run, "run-4.JSONL": run},
                                               "c.JSONL": run, "d.json": run, "README.md": "notes"})
    capsys.readouterr()
    assert main(["report", str(suite), "--format", "json", "--no-cache"]) in (0, 1)
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    said = [w for w in warnings if w.startswith("not read: ")]
    assert said == [("not read: 'builds/c.JSONL', 'builds/d.json', 'builds/2-new/run-4.JSONL' (are no build or run: a "
                     "build is a .jsonl, .jsonl.gz, .csv or .parquet file, or a folder of them)")], warnings
    (suite / "builds" / "c.JSONL").unlink()
    (suite / "builds" / "d.json").unlink()
    (suite / "builds" / "2-new" / "run-4.JSONL").unlink()
    assert main(["report", str(suite), "--format", "json", "--no-cache"]) in (0, 1)
    assert not [w for w in json.loads(capsys.readouterr().out)["warnings"] if w.startswith("not read")]


def test_a_dumb_terminal_is_told_what_prints_the_review(monkeypatch, capsys) -> None:
    """A newcomer on call opened the app under TERM=dumb (an editor's shell): it drew with
    full 24-bit colour codes and cursor moves such a terminal cannot make. It says so, and
    what does the review there; report works as ever."""
    monkeypatch.setenv("TERM", "dumb")
    assert main([str(INCIDENTS)]) == 2
    err = capsys.readouterr().err
    assert err == ("rouge-tui: error: this terminal (TERM=dumb) cannot draw the app: `rouge-tui report SUITE` prints "
                   "the review, `rouge-tui serve SUITE` shows the app in a browser\n"), err
    assert main(["report", str(INCIDENTS), "--no-cache"]) == 1


def test_under_serve_a_dumb_terminals_page_still_opens() -> None:
    """A regression hunt: the TERM=dumb refusal named serve, and serve's page process (which
    draws to the browser, its server's TERM copied into it) was refused too: a blank page.
    Where Textual is told to draw elsewhere (textual-serve's TEXTUAL_DRIVER), the app runs."""
    from rouge_tui.cli import terminal_problem

    assert terminal_problem({"TERM": "dumb"}) is not None
    assert terminal_problem({"TERM": "dumb", "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}) is None
    assert terminal_problem({"TERM": "xterm-256color"}) is None and terminal_problem({}) is None


def test_builds_that_share_ids_with_no_usable_reference_say_so(tmp_path: Path, capsys) -> None:
    """A review: "share no example with a usable reference (their first ids: 'a' and 'a')"
    read as ids that differ, where the ids were the same and their references blank."""
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": " "}, {"id": "b", "reference": ""}))
    capsys.readouterr()
    assert main(["report", str(suite), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("share no example with a usable reference (the ids they share, such as 'a', have no "
                        "reference or only blank ones)\n"), err
