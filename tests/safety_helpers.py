"""Helpers for the safety tests (fuzz, faults, sessions, signals, read-only): small suites
written with ``json`` (not the loader under test), the CLI as a subprocess with a timeout,
and a snapshot of a directory tree to prove what was and was not written."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_suites" / "incident-summaries"
XDG_VARS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")

REFERENCES = {
    "1": "the cat sat on the mat",
    "2": "a dog ran in the park today",
    "3": "rain is expected in the north tomorrow",
}
BASELINE = {"1": "the cat sat", "2": "a dog ran in a park", "3": "rain tomorrow"}
CANDIDATE = {"1": "the cat sat on the mat", "2": "dog", "3": "rain is expected tomorrow"}


def jsonl(path: Path, records: Iterable[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def small_suite(root: Path, name: str | None = None) -> Path:
    """A three-example suite with two builds (a, b) and, if given, a suite.toml name."""
    root.mkdir(parents=True, exist_ok=True)
    jsonl(root / "references.jsonl", ({"id": k, "reference": v} for k, v in REFERENCES.items()))
    jsonl(root / "builds" / "a.jsonl", ({"id": k, "output": v} for k, v in BASELINE.items()))
    jsonl(root / "builds" / "b.jsonl", ({"id": k, "output": v} for k, v in CANDIDATE.items()))
    if name is not None:
        (root / "suite.toml").write_text(f"name = {json.dumps(name)}\n", encoding="utf-8")
    return root


def xdg_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for a subprocess whose platformdirs all live under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "TMUX"))}
    for var in XDG_VARS:
        env[var] = str(home / var.lower())
    env["HOME"] = str(home / "home")
    env.update(extra)
    return env


def cli(
    *args: str, home: Path, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``rouge-tui ARGS`` in a fresh interpreter (a hang fails by TimeoutExpired)."""
    return subprocess.run(
        [sys.executable, "-m", "rouge_tui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=xdg_env(home),
        cwd=cwd,
        check=False,
    )


def assert_one_line_error(stdout: str, stderr: str, *needles: str) -> None:
    """Exit 2's contract: nothing on stdout, one ``rouge-tui: error:`` line, no traceback."""
    assert stdout == "", f"partial output on stdout: {stdout[:200]!r}"
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr[-2000:]
    assert lines[0].startswith("rouge-tui: error: "), lines[0]
    assert "Traceback" not in stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def tree(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed): kind, mode, size, mtime, content hash."""
    found: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            digest = ""
            if path.is_file() and not path.is_symlink():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(root))] = (
                info.st_mode,
                info.st_size if digest else 0,
                info.st_mtime_ns,
                digest,
            )
    return found


# ---------------------------------------------------------------------- chmod that binds

NOBODY = 65534


def unprivileged(function: Callable[..., Any], *args: Any, gid: int = NOBODY) -> Any:
    """``function(*args)`` as a user that a folder's mode binds: tests run as root here, and
    root writes into a ``chmod a-w`` folder anyway. As root, a forked child drops to nobody
    (in group ``gid``: 0 makes it a member of root's group) and runs it; its result (or the
    exception it raised) comes back pickled. Not as root, it simply runs here."""
    if os.geteuid() != 0:
        return function(*args)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 0
        try:
            signal.alarm(120)  # a child stuck on a lock another thread held at fork dies
            os.close(read)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(NOBODY)
            try:
                outcome: tuple[str, Any] = ("returned", function(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the parent
                outcome = ("raised", exc)
            data = pickle.dumps(outcome)
        except BaseException as exc:  # noqa: BLE001
            data = pickle.dumps(("raised", RuntimeError(f"child failed: {exc!r}")))
            status = 1
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)
        os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert data, f"the unprivileged child ended without a result (wait status {status})"
    kind, value = pickle.loads(data)
    if kind == "raised":
        raise value
    return value


@contextlib.contextmanager
def public_folder() -> Iterator[Path]:
    """A fresh folder that the user `unprivileged` runs as can reach (pytest's own tmp_path
    lies under a folder only root may enter), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="rouge-tui-test-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def public_state(folder: Path, monkeypatch: Any) -> Path:
    """Point the XDG folders into ``folder`` (made writable for nobody); returns it."""
    for var in XDG_VARS:
        target = folder / var.lower()
        target.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(target))
    if os.geteuid() == 0:
        for path in [folder, *folder.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
    return folder
