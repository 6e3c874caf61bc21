"""Work done in a forked process: the same results as in-process, and every failure falls
back to the in-process path with its own error message."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from rouge_tui import forking, scoring
from rouge_tui.forking import Forked, ForkFailed
from rouge_tui.metrics import batch
from rouge_tui.report import render_json, to_json
from rouge_tui.suite import SuiteError, load_suite, loader


def square_list(n: int) -> list[int]:
    return [i * i for i in range(n)]


def boom() -> None:
    raise ValueError("raised in the child")


def die() -> None:
    os._exit(3)


def pid() -> int:
    return os.getpid()


def test_the_pipe_back_holds_a_mebibyte_and_a_big_answer_arrives_whole() -> None:
    """Linux lets any user have 1 MiB pipes (the default pipe-max-size): a big answer goes
    through in fewer turns; 20 MB of it arrives whole."""
    import fcntl

    forked = forking.fork_with_pipe(lambda fd: (os.write(fd, b"x"), os._exit(0)))
    assert forked is not None
    child, read_fd = forked
    try:
        assert fcntl.fcntl(read_fd, fcntl.F_GETPIPE_SZ) == 1 << 20
    finally:
        os.close(read_fd)
        os.waitpid(child, 0)
    job = Forked.start(bytes, 20 << 20)
    assert job is not None and job.result() == bytes(20 << 20)


def test_result_comes_back_from_another_process() -> None:
    job = Forked.start(square_list, 50_000)
    assert job is not None
    assert job.result() == [i * i for i in range(50_000)]
    other = Forked.start(pid)
    assert other is not None and other.result() != os.getpid()


@pytest.mark.parametrize("fn", [boom, die])
def test_a_failed_child_is_forkfailed(fn) -> None:
    job = Forked.start(fn)
    assert job is not None
    with pytest.raises(ForkFailed):
        job.result()


def test_cancel_reaps_and_never_forks_from_a_thread() -> None:
    job = Forked.start(square_list, 10)
    assert job is not None
    job.cancel()
    with pytest.raises(ForkFailed):
        job.result()
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(Forked.start(square_list, 3)))
    thread.start()
    thread.join()
    assert seen == [None]


# --- the loader reads the references in a forked process on big suites --------------------


def write_suite(root: Path, refs: list[str], base: list[str], cand: list[str]) -> Path:
    (root / "builds").mkdir(parents=True)
    (root / "references.jsonl").write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    (root / "builds" / "a.jsonl").write_text("".join(r + "\n" for r in base), encoding="utf-8")
    (root / "builds" / "b.jsonl").write_text("".join(r + "\n" for r in cand), encoding="utf-8")
    return root


def rows(key: str, n: int) -> list[str]:
    return [json.dumps({"id": f"e{i}", key: f"the pool {i} shrank to {i % 7}"}) for i in range(n)]


@pytest.fixture
def always_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "FORK_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "PARALLEL_MIN_PAIRS", 0)  # scoring (and signals) forked too


def test_forked_load_equals_the_plain_load(tmp_path: Path, always_fork, monkeypatch) -> None:
    root = write_suite(tmp_path, rows("reference", 300), rows("output", 300), rows("output", 280))
    forked = load_suite(root)
    monkeypatch.setattr(forking, "parallel_safe", lambda: False)
    plain = load_suite(root)
    assert forked.references == plain.references and forked.fingerprint == plain.fingerprint
    assert forked.empty_reference_ids == plain.empty_reference_ids
    assert [b.runs[0].outputs for b in forked.builds] == [b.runs[0].outputs for b in plain.builds]
    # And the whole analysis, signals found in a forked process, byte for byte.
    settings = scoring.resolve_settings(plain)
    one = render_json(to_json(scoring.analyse(forked, *forked.pick(), settings), 20, {}))
    two = render_json(to_json(scoring.analyse(plain, *plain.pick(), settings, workers=1), 20, {}))
    assert one == two


def test_reference_errors_come_first_even_when_read_aside(tmp_path: Path, always_fork) -> None:
    """Both a reference line and a build line are bad: the reference's is reported, as a
    plain read in order would."""
    refs = rows("reference", 20)
    refs[4] = "{not json"
    base = rows("output", 20)
    base[2] = '{"id": "e2"}'
    root = write_suite(tmp_path, refs, base, rows("output", 20))
    with pytest.raises(SuiteError) as caught:
        load_suite(root)
    assert "references.jsonl:5:" in str(caught.value)


def test_a_build_error_with_good_references(tmp_path: Path, always_fork) -> None:
    base = rows("output", 20)
    base[2] = '{"id": "e2"}'
    root = write_suite(tmp_path, rows("reference", 20), base, rows("output", 20))
    with pytest.raises(SuiteError) as caught:
        load_suite(root)
    assert "a.jsonl:3:" in str(caught.value)


def test_a_failed_fork_falls_back(tmp_path: Path, always_fork, monkeypatch) -> None:
    root = write_suite(tmp_path, rows("reference", 30), rows("output", 30), rows("output", 30))
    want = load_suite(root).fingerprint

    start = Forked.start

    def failing(fn, *args):
        return start(die)

    monkeypatch.setattr(Forked, "start", staticmethod(failing))
    assert load_suite(root).fingerprint == want
