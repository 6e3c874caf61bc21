"""Helpers for the suite package's tests: suites and record files written with ``json`` and
``csv`` (not the reader under test), a record file read in a line, the one-line error check,
and ways to run a read that might hang or eat memory (a thread with a timeout; a child
process with a memory cap that reports its peak)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from rouge_tui.errors import SuiteError
from rouge_tui.suite.records import Fields, read_references_file, read_run

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FIELDS = Fields()


def outputs(path: Path, fields: Fields = DEFAULT_FIELDS) -> dict[str, str]:
    return read_run(path, fields).outputs


def texts(path: Path, fields: Fields = DEFAULT_FIELDS) -> dict[str, tuple[str, ...]]:
    return read_references_file(path, fields).texts


def write_csv(path: Path, header: list[str], rows: list[list[str]], bom: bool = False) -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(("\ufeff" if bom else "") + buffer.getvalue(), encoding="utf-8", newline="")
    return path


def run_file(tmp_path: Path, content: str | bytes, name: str = "x.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def make_suite(
    root: Path,
    references: str | None = None,
    builds: Mapping[str, str | Mapping[str, str]] | None = None,
    toml: str | None = None,
    references_name: str = "references.jsonl",
) -> Path:
    """Write a suite: ``builds`` maps a file name to its text, or a directory name to its
    runs' names and texts. By default two references (a, b) and two builds (1-old, 2-new)."""
    root.mkdir(parents=True, exist_ok=True)
    if references is None:
        references = jsonl(
            {"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": "a dog ran"}
        )
    (root / references_name).write_text(references, encoding="utf-8", newline="")
    (root / "builds").mkdir(exist_ok=True)
    if builds is None:
        builds = {
            "1-old.jsonl": jsonl(
                {"id": "a", "output": "the cat"}, {"id": "b", "output": "dog ran"}
            ),
            "2-new.jsonl": jsonl({"id": "a", "output": "a cat"}, {"id": "b", "output": ""}),
        }
    for name, content in builds.items():
        if isinstance(content, Mapping):
            (root / "builds" / name).mkdir()
            for run, text in content.items():
                (root / "builds" / name / run).write_text(text, encoding="utf-8")
        else:
            (root / "builds" / name).write_text(content, encoding="utf-8", newline="")
    if toml is not None:
        (root / "suite.toml").write_text(toml, encoding="utf-8")
    return root


def error_of(function: Callable[..., object], *args: object) -> SuiteError:
    """The SuiteError ``function(*args)`` raises, checked to be one safe line."""
    with pytest.raises(SuiteError) as info:
        function(*args)
    text = str(info.value)
    assert "\n" not in text and "\r" not in text and "\x1b" not in text, repr(text)
    return info.value


def within(seconds: float, function: Callable[..., object], *args: object) -> object:
    """``function(*args)``'s result or raised exception, in a daemon thread; fails the test
    if it has not returned after ``seconds`` (a hang must not hang the test run)."""
    box: list[object] = []

    def run() -> None:
        try:
            box.append(function(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{function.__name__} still running after {seconds} s"
    return box[0]


def in_child(code: str, timeout: float = 60, memory: int = 2 << 30) -> tuple[str, float]:
    """Run ``code`` in a fresh interpreter capped at ``memory`` bytes of address space;
    its stdout and the child's peak RSS in MiB (from RUSAGE_CHILDREN, measured around
    this child alone by a wrapper process, so earlier children do not count)."""
    wrapper = textwrap.dedent(
        f"""
        import resource, subprocess, sys
        def cap():
            resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
        done = subprocess.run([sys.executable, "-c", {code!r}], capture_output=True,
                              text=True, timeout={timeout}, preexec_fn=cap)
        sys.stderr.write(done.stderr)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(done.returncode, peak)
        print(done.stdout, end="")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", wrapper],
        capture_output=True,
        text=True,
        timeout=timeout + 10,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    status, rest = result.stdout.split("\n", 1)
    code_status, peak = status.split()
    assert code_status == "0", result.stderr[-2000:]
    return rest, int(peak) / 1024


def one_example(root: Path, reference: str, baseline: str, candidate: str, toml: str | None = None) -> Path:
    """A suite of one example, ``a``: its reference, and its output in two builds (1-old, 2-new)."""
    return make_suite(root, jsonl({"id": "a", "reference": reference}),
                      {"1-old.jsonl": jsonl({"id": "a", "output": baseline}),
                       "2-new.jsonl": jsonl({"id": "a", "output": candidate})}, toml)


# A two-example suite with sources, its copied spans worked out by hand (SPEC "What overlap
# cannot see": Grusky et al.'s greedy fragments; coverage = sum |f| / |output words|, density =
# sum |f|^2 / |output words|; words are casefolded runs of letters and digits).
COPY_SOURCES = {"a": "The cat sat on the mat. A dog barked.", "b": "Pool size fell to one."}
COPY_REFERENCES = {"a": "a cat sat", "b": "pool size fell"}
COPY_BASELINE = {"a": "The cat sat on a mat", "b": "Pool size went to one"}
COPY_CANDIDATE = {"a": "A dog sat there now", "b": "Size fell to one today"}
# a, baseline: "the cat sat on" (4; the source's second "the" gives 1 only), "a" (1), "mat" (1):
#   coverage 6/6, density (16 + 1 + 1)/6 = 3.
# b, baseline: "pool size" (2), "went" nowhere, "to one" (2): coverage 4/5, density 8/5.
# a, candidate: "a dog" (2), "sat" (1), "there" and "now" nowhere: coverage 3/5, density 5/5.
# b, candidate: "size fell to one" (4), "today" nowhere: coverage 4/5, density 16/5.
COPY_ROWS = {"a": (3 / 5, 5 / 5), "b": (4 / 5, 16 / 5)}  # the candidate's, per example
COPY_MEANS = {"baseline": ((1 + 4 / 5) / 2, (3 + 8 / 5) / 2), "candidate": ((3 / 5 + 4 / 5) / 2, (1 + 16 / 5) / 2)}


def copy_suite(root: Path, sources: bool = True) -> Path:
    """The suite above, with its sources or without them."""
    records = [
        {"id": k, "reference": v, **({"source": COPY_SOURCES[k]} if sources else {})}
        for k, v in COPY_REFERENCES.items()
    ]
    return make_suite(
        root,
        jsonl(*records),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in COPY_BASELINE.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in COPY_CANDIDATE.items()))},
    )  # fmt: skip


# The rule `files.file_digest` keeps a digest by, made short: a file written by a test counts
# as settled once `settle_files` has waited past it (the conftest holds no file to be).
SETTLING_NS = 20_000_000


def settle_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wait until the files written so far count as settled under a settling time of
    `SETTLING_NS`, and keep to it from now on: a file written after is not, for as long,
    and a write after this wait falls on another clock tick than the writes before."""
    import time

    from rouge_tui import files

    monkeypatch.setattr(files, "SETTLING_NS", SETTLING_NS)
    time.sleep(3 * SETTLING_NS / 1e9)


def files_read(monkeypatch: pytest.MonkeyPatch, under: Path) -> list[Path]:
    """The files under ``under`` whose bytes are read from now on, in turn (each read
    counted by the file its descriptor names)."""
    import os

    seen: list[Path] = []
    real = os.read

    def read(fd: int, size: int) -> bytes:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path.is_relative_to(under.resolve()):
            seen.append(path)
        return real(fd, size)

    monkeypatch.setattr(os, "read", read)
    return seen
