"""Fuzzed input through the whole pipeline: every case ends in a result or in exit status 2
with one line naming the file and line, nothing on stdout, no traceback and no hang.

The reader's own cases (one bad input each, random bytes, a per-line JSON oracle) live in
tests/test_records.py and tests/test_files.py. Here the volume is hypothesis-generated
suites run through ``rouge-tui report`` in-process, each either clean (then the figures are checked against
rouge-score as the oracle) or carrying exactly one planted fault (then the error must name
that file and line). A representative set of hostile files goes through the real CLI in
subprocesses with timeouts. Metrics get hostile text too: controls, NUL, lone surrogates.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer
from safety_helpers import (
    BASELINE,
    REFERENCES,
    assert_one_line_error,
    jsonl,
    small_suite,
    xdg_env,
)

from rouge_tui import cli
from rouge_tui.rouge import METRICS, engine

CASES_RUN = {"subprocess": 0, "pipeline": 0, "metrics": 0}

if os.environ.get("ROUGE_TUI_COUNT"):
    import atexit

    atexit.register(lambda: print(f"\nfuzz cases run by test_fuzz.py: {CASES_RUN}"))


class Whitespace:
    """The chapter's tokenizer for rouge-score's ``tokenizer=`` hook (the oracle)."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


ORACLE = rouge_scorer.RougeScorer(["rougeL"], tokenizer=Whitespace())

# ---------------------------------------------------------------------- the real CLI


def _build(suite: Path, content: bytes, name: str = "b.jsonl") -> Path:
    path = suite / "builds" / name
    path.write_bytes(content)
    return path


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _case_random_bytes(suite: Path) -> str:
    _build(suite, bytes(range(256)) * 4)
    return "b.jsonl:1: invalid JSON: Expecting value (column 1)"  # 0x0a ends line 1


def _case_not_utf8(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "x"}\n' + bytes(range(128, 256)) + b"\n")
    return "b.jsonl:2: not valid UTF-8 (byte 0x80 at column 1)"


def _case_truncated_gzip(suite: Path) -> str:
    (suite / "references.jsonl").unlink()
    data = "".join(json.dumps({"id": k, "reference": v}) + "\n" for k, v in REFERENCES.items())
    (suite / "references.jsonl.gz").write_bytes(_gz(data.encode())[:-9])
    return "references.jsonl.gz: not a valid gzip file"


def _case_corrupt_gzip(suite: Path) -> str:
    (suite / "builds" / "b.jsonl").unlink()
    data = bytearray(_gz(b'{"id": "1", "output": "x"}\n' * 50))
    data[-6] ^= 0xFF  # the CRC no longer matches
    _build(suite, bytes(data), "b.jsonl.gz")
    return "b.jsonl.gz: not a valid gzip file"


def _case_50mb_unterminated(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "' + b"x" * 50_000_000 + b"\n")
    return "b.jsonl:1: invalid JSON: Unterminated string"


def _case_deep_nesting(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "x"}\n' + b"[" * 200_000 + b"\n")
    return "b.jsonl:2: invalid JSON"


def _case_nan(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "x"}\n{"id": "2", "output": NaN}\n')
    return "b.jsonl:2: invalid JSON: NaN is not a JSON value"


def _case_infinity_id(suite: Path) -> str:
    _build(suite, b'{"id": -Infinity, "output": "x"}\n')
    return "b.jsonl:1: invalid JSON: -Infinity is not a JSON value"


def _case_null_text(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "x"}\n\n{"id": "2", "output": null}\n')
    return "b.jsonl:3: 'output' must be a string, not null"


def _case_number_reference(suite: Path) -> str:
    jsonl(suite / "references.jsonl", [{"id": "1", "reference": "a"}, {"id": "2", "reference": 2}])
    return "references.jsonl:2: 'reference' must be a string, not number"


def _case_raw_nul(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "x"}\n{"id": "2", "output": "a\x00b"}\n')
    return "b.jsonl:2: invalid JSON: Invalid control character"


def _case_lone_surrogate(suite: Path) -> str:
    _build(suite, b'{"id": "1", "output": "ok"}\r\n{"id": "2", "output": "\\udc80"}\r\n')
    return "b.jsonl:2: 'output' is not valid Unicode"


def _case_directory_for_file(suite: Path) -> str:
    (suite / "references.jsonl").unlink()
    (suite / "references.jsonl").mkdir()
    return "references.jsonl: is a directory"


def _case_symlink_loop(suite: Path) -> str:
    os.symlink("loop.jsonl", suite / "builds" / "loop.jsonl")
    return "loop.jsonl: cannot read: Too many levels of symbolic links"


def _case_directory_loop(suite: Path) -> str:
    (suite / "builds" / "b.jsonl").unlink()
    os.symlink("..", suite / "builds" / "up")  # a build directory that is the suite itself
    return "references.jsonl:1: missing 'output' field"


REPORT_CASES = {
    f.__name__.removeprefix("_case_"): f
    for f in (
        _case_random_bytes,
        _case_not_utf8,
        _case_truncated_gzip,
        _case_corrupt_gzip,
        _case_50mb_unterminated,
        _case_deep_nesting,
        _case_nan,
        _case_infinity_id,
        _case_null_text,
        _case_number_reference,
        _case_raw_nul,
        _case_lone_surrogate,
        _case_directory_for_file,
        _case_symlink_loop,
        _case_directory_loop,
    )
}


TEXT_TOO = {"random_bytes", "not_utf8", "nan", "lone_surrogate", "symlink_loop"}  # also --format text


def _start(args: list[str], home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rouge_tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=xdg_env(home),
    )


@pytest.mark.slow
def test_hostile_files_through_the_cli_exit_2_with_one_line(tmp_path: Path) -> None:
    """Every case runs at once (in parallel), each in its own process with a timeout."""
    running = {}
    for name, plant in REPORT_CASES.items():
        suite = small_suite(tmp_path / name)
        expected = plant(suite)
        for fmt in ("json", "text") if name in TEXT_TOO else ("json",):
            proc = _start(["report", str(suite), "--format", fmt], tmp_path / "xdg")
            running[(name, fmt)] = (proc, expected)
    # score takes files: the same plants through the other command
    suite = small_suite(tmp_path / "score")
    refs, outputs = suite / "references.jsonl", suite / "builds" / "b.jsonl"
    for name in ("random_bytes", "not_utf8", "deep_nesting", "nan", "null_text", "raw_nul",
                 "lone_surrogate"):
        expected = REPORT_CASES[name](small_suite(tmp_path / f"score-{name}"))
        build = tmp_path / f"score-{name}" / "builds" / "b.jsonl"
        proc = _start(["score", str(refs), str(build)], tmp_path / "xdg")
        running[(name, "score")] = (proc, expected)
    proc = _start(["score", str(tmp_path / "score"), str(outputs)], tmp_path / "xdg")
    running[("directory", "score")] = (proc, "score: is a directory")
    failures = []
    for key, (proc, expected) in running.items():
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            failures.append((key, "hung"))
            continue
        CASES_RUN["subprocess"] += 1
        try:
            assert proc.returncode == 2, (proc.returncode, err[-500:])
            assert_one_line_error(out, err, expected)
        except AssertionError as error:
            failures.append((key, str(error)[:300]))
    assert failures == [], "\n".join(map(str, failures))


@pytest.mark.slow
def test_a_50mb_single_line_is_scored(tmp_path: Path) -> None:
    suite = small_suite(tmp_path / "suite")
    huge = "x" * 50_000_000
    _build(suite, (json.dumps({"id": "1", "output": huge}) + "\n").encode())
    result = subprocess.run(
        [sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=xdg_env(tmp_path / "xdg"),
        check=False,
    )
    CASES_RUN["subprocess"] += 1
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    # the one paired id: "the cat sat" against one giant token
    assert data["paired"] == 1 and data["only_in_baseline"] == ["2", "3"]
    assert data["candidate"]["mean"] == 0.0
    assert (
        data["baseline"]["mean"] == ORACLE.score(REFERENCES["1"], BASELINE["1"])["rougeL"].fmeasure
    )


def test_integer_and_string_ids_pair_through_the_cli(tmp_path: Path) -> None:
    """Decided: 1 and "1" are one id (see rouge_tui/suite/records.py)."""
    suite = tmp_path / "suite"
    jsonl(
        suite / "references.jsonl",
        [{"id": 1, "reference": "a b c"}, {"id": "2", "reference": "d e"}],
    )
    jsonl(suite / "builds" / "a.jsonl", [{"id": "1", "output": "a b"}, {"id": 2, "output": "d"}])
    jsonl(suite / "builds" / "b.jsonl", [{"id": 1, "output": "a b c"}, {"id": "2", "output": "e"}])
    env = xdg_env(tmp_path / "xdg")
    run = [sys.executable, "-m", "rouge_tui"]
    report = subprocess.run(
        [*run, "report", str(suite), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    score = subprocess.run(
        [*run, "score", str(suite / "references.jsonl"), str(suite / "builds" / "a.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    CASES_RUN["subprocess"] += 2
    data = json.loads(report.stdout)
    assert data["paired"] == 2 and data["only_in_baseline"] == data["only_in_candidate"] == []
    assert data["missing_reference"] == []
    lines = [json.loads(line) for line in score.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["1", "2"]
    assert (
        lines[0]["scores"]["rougeL"]["fmeasure"] == ORACLE.score("a b c", "a b")["rougeL"].fmeasure
    )


# ---------------------------------------------------------------------- in-process volume

ID_POOL = ["1", "2", "3", "10", "007", "x", "é", "a b", "[red]", "\u202e", "1.5", " "]
TEXT = st.lists(
    st.sampled_from(
        ["the", "cat", "sat", "The", " ", " ", "\n", "\r\n", "\t", "\x00", "\u202e", "\u2028",
         "[b]", "\x1b[2J", "é", "İ", "—", ".", "\ufeff"]
    ),
    max_size=12,
).map("".join)  # fmt: skip

# A planted fault: the record's JSON text (a line) that must be reported at its line.
FAULTS = {
    "nan": '{"id": "zz", "%s": NaN}',
    "infinity": '{"id": "zz", "%s": Infinity}',
    "null text": '{"id": "zz", "%s": null}',
    "number text": '{"id": "zz", "%s": 12}',
    "nested text": '{"id": "zz", "%s": [[["x"]]]}',
    "deep nesting": "[" * 5000,
    "bool id": '{"id": true, "%s": "x"}',
    "float id": '{"id": 1.0, "%s": "x"}',
    "null id": '{"id": null, "%s": "x"}',
    "empty id": '{"id": "", "%s": "x"}',
    "missing text": '{"id": "zz"}',
    "array record": '["zz", "x"]',
    "lone surrogate": '{"id": "zz", "%s": "\\ud83d"}',
    "raw nul": '{"id": "zz", "%s": "a\x00b"}',
    "truncated": '{"id": "zz", "%s": "x',
    "duplicate id": "DUPLICATE",
}


@st.composite
def suites(draw: st.DrawFn) -> dict:
    """Three files of records over a shared id pool, ids drawn as integers where they can be;
    maybe a BOM or CRLF line ends; maybe exactly one planted fault in one file."""
    files = {}
    for name, field in (
        ("references.jsonl", "reference"),
        ("a.jsonl", "output"),
        ("b.jsonl", "output"),
    ):
        ids = draw(st.lists(st.sampled_from(ID_POOL), min_size=1, max_size=6, unique=True))
        lines = []
        for key in ids:
            as_int = key.isdigit() and key == str(int(key)) and draw(st.booleans())
            lines.append(json.dumps({"id": int(key) if as_int else key, field: draw(TEXT)}))
        files[name] = {"field": field, "ids": ids, "lines": lines}
    fault = draw(st.one_of(st.none(), st.sampled_from(sorted(FAULTS))))
    planted = None
    if fault is not None:
        name = draw(st.sampled_from(sorted(files)))
        entry = files[name]
        at = draw(st.integers(0, len(entry["lines"])))
        if fault == "duplicate id":
            first = entry["ids"][0]
            line = json.dumps({"id": first, entry["field"]: "again"})
            at = max(at, 1)
        else:
            line = FAULTS[fault].replace("%s", entry["field"])
        entry["lines"].insert(at, line)
        planted = (name, at + 1, fault)
    return {
        "files": files,
        "planted": planted,
        "bom": draw(st.booleans()),
        "crlf": draw(st.booleans()),
    }


def _write(root: Path, case: dict) -> Path:
    suite = root / "suite"
    (suite / "builds").mkdir(parents=True)
    end = "\r\n" if case["crlf"] else "\n"
    for name, entry in case["files"].items():
        path = suite / name if name == "references.jsonl" else suite / "builds" / name
        text = ("\ufeff" if case["bom"] else "") + "".join(line + end for line in entry["lines"])
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return suite


def _oracle_means(case: dict) -> tuple[int, float, float] | None:
    """Paired count and the two means, from the files as written, scored by rouge-score."""
    files = case["files"]
    refs = dict(
        zip(
            files["references.jsonl"]["ids"],
            (json.loads(x)["reference"] for x in files["references.jsonl"]["lines"]),
        )
    )
    base = dict(
        zip(files["a.jsonl"]["ids"], (json.loads(x)["output"] for x in files["a.jsonl"]["lines"]))
    )
    cand = dict(
        zip(files["b.jsonl"]["ids"], (json.loads(x)["output"] for x in files["b.jsonl"]["lines"]))
    )
    paired = [i for i in base if i in cand and i in refs and refs[i].strip()]
    if not paired:
        return None
    f = lambda ref, out: ORACLE.score(ref, out)["rougeL"].fmeasure
    return (
        len(paired),
        math.fsum(f(refs[i], base[i]) for i in paired) / len(paired),
        math.fsum(f(refs[i], cand[i]) for i in paired) / len(paired),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=suites())
def test_fuzzed_suites_report_a_result_or_name_the_planted_line(
    tmp_path_factory: pytest.TempPathFactory, case: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = _write(tmp_path_factory.mktemp("fuzz"), case)
    capsys.readouterr()
    code = cli.main(["report", str(suite), "--format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    CASES_RUN["pipeline"] += 1
    planted = case["planted"]
    if planted is not None:
        name, line, fault = planted
        assert code == 2, (fault, out[:200])
        assert_one_line_error(out, err, f"{name}:{line}: ")
        return
    expected = _oracle_means(case)
    if expected is None:  # nothing to pair: a one-line error naming the suite
        assert code == 2
        assert_one_line_error(out, err, "share no example with a usable reference")
        return
    assert code in (0, 1), err
    # every example is a suite named "suite": its history says when the references moved
    assert all(line.startswith("rouge-tui: warning: ") for line in err.splitlines()), err
    data = json.loads(out)
    paired, base_mean, cand_mean = expected
    assert data["paired"] == paired
    assert data["baseline"]["mean"] == pytest.approx(base_mean, rel=1e-12, abs=1e-15)
    assert data["candidate"]["mean"] == pytest.approx(cand_mean, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------- metrics on hostile text

HOSTILE = st.text(
    alphabet=st.one_of(
        st.sampled_from(["a", "b", "A", " ", "\n", "\x00", "\x85", "\u2028", "\u202e", "\u0301",
                         "\ud800", "\udfff", "\ufeff", "ǅ", "ß", "İ", "１", "٣", ".", "'", "-"]),
        st.characters(),
    ),
    max_size=40,
)  # fmt: skip
ORACLES = {
    "whitespace": rouge_scorer.RougeScorer(list(METRICS), tokenizer=Whitespace()),
    "rouge-score": rouge_scorer.RougeScorer(list(METRICS)),
}


@settings(max_examples=400, deadline=None)
@given(reference=HOSTILE, candidate=HOSTILE, tokenizer=st.sampled_from(sorted(ORACLES)))
def test_metrics_on_hostile_text_equal_rouge_score(
    reference: str, candidate: str, tokenizer: str
) -> None:
    got = engine.score([(reference,)], [candidate], list(METRICS), tokenizer)[0]
    want = ORACLES[tokenizer].score(reference, candidate)
    CASES_RUN["metrics"] += 1
    for row, metric in zip(got.tolist(), METRICS):
        assert 0.0 <= row[2] <= 1.0
        assert tuple(row) == tuple(want[metric]), metric
