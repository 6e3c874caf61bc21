"""Shared helpers for the benchmark scripts: run a command, time it, take its peak memory.

Each measurement runs the command under a fresh Python wrapper, so `RUSAGE_CHILDREN` holds
that command alone (and any worker process it forked and waited for): CPU seconds summed
over them, peak RSS of the largest.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_WRAPPER = r"""
import json, resource, subprocess, sys, time
argv = json.loads(sys.argv[1])
start = time.perf_counter()
done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_kb": usage.ru_maxrss, "code": done.returncode,
                  "stderr": done.stderr.decode(errors="replace")[-500:]}))
"""


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def run_once(argv: list[str], env: dict[str, str] | None = None, ok_codes: tuple[int, ...] = (0,)) -> Sample:
    """Run `argv` once under the wrapper; a failing command is an error, not a figure."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, json.dumps(argv)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    )
    data = json.loads(out.stdout)
    if data["code"] not in ok_codes:
        raise RuntimeError(f"{' '.join(argv)} exited {data['code']}: {data['stderr']}")
    return Sample(data["wall"], data["cpu"], data["rss_kb"] / 1024)


def median(samples: list[Sample]) -> Sample:
    """Per-field medians of several runs."""
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.cpu for s in samples),
        statistics.median(s.rss_mb for s in samples),
    )


def rouge_tui(source: Path | None) -> tuple[list[str], dict[str, str]]:
    """The command prefix (and environment) running rouge-tui from `source` (default: this tree)."""
    src = source or ROOT
    # -P: no current directory on sys.path, so PYTHONPATH decides which tree runs.
    return [sys.executable, "-P", "-m", "rouge_tui"], {"PYTHONPATH": str(src)}
