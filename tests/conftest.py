"""Shared test set-up: every test gets its own platformdirs directories; `engine_calls`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# As `rouge_tui.cli.main` does, before anything imports numpy: the tests and the processes
# they start run with the command's one OpenBLAS thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_suites"


@pytest.fixture(autouse=True)
def isolated_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point config, data and cache at a fresh folder so no test sees the user's state."""
    home = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    # No file counts as settled (`files.file_digest` keeps no digest): a test's files are made
    # moments before, and a slow machine must not change which entries the cache holds. The
    # tests of kept digests settle their files themselves.
    from rouge_tui import files

    monkeypatch.setattr(files, "SETTLING_NS", 1 << 62)
    return home


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every call of the scoring engine, as the outputs it was asked to score."""
    from rouge_tui.rouge import engine

    calls: list[list[str]] = []
    real = engine.score

    def counted(references, outputs, *args, **kwargs):
        calls.append(list(outputs))
        return real(references, outputs, *args, **kwargs)

    monkeypatch.setattr(engine, "score", counted)
    return calls
