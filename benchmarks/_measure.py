"""Shared helpers for the benchmark scripts: run a whole process, time it from outside, take
its peak memory, alternate the variants of a comparison and print medians, spreads and ratios.

Each measurement runs the command under a fresh Python wrapper, so `RUSAGE_CHILDREN` holds
that command alone (and any process it forked and waited for): CPU seconds summed over them,
peak RSS of the largest. The wrapper's own start is not timed: the clock starts just before
it spawns the command.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "rouge-tui-bench"

_WRAPPER = r"""
import json, resource, subprocess, sys, time
spec = json.loads(sys.stdin.read())
out = open(spec["stdout"], "wb") if spec["stdout"] else subprocess.DEVNULL
start = time.perf_counter()
done = subprocess.run(spec["argv"], env=spec["env"], stdin=subprocess.DEVNULL, stdout=out,
                      stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_kb": usage.ru_maxrss, "code": done.returncode,
                  "stderr": done.stderr.decode(errors="replace")[-800:]}))
"""


@dataclass
class Sample:
    wall: float  # seconds, spawn to exit
    cpu: float  # user + sys seconds of the process and what it waited for
    rss_mb: float  # peak RSS of the largest of them


def run_once(
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    ok_codes: tuple[int, ...] = (0,),
    stdout: Path | None = None,
) -> Sample:
    """Run ``argv`` once under the wrapper (``env`` added to this environment; stdout to the
    file ``stdout`` or nowhere). A failing command is an error, not a figure."""
    spec = {"argv": list(argv), "env": {**os.environ, **(env or {})}, "stdout": str(stdout or "")}
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER], input=json.dumps(spec), capture_output=True, text=True, check=True
    )
    data = json.loads(out.stdout)
    if data["code"] not in ok_codes:
        raise RuntimeError(f"{' '.join(argv)} exited {data['code']}: {data['stderr']}")
    return Sample(data["wall"], data["cpu"], data["rss_kb"] / 1024)


def rouge_tui(source: Path | None = None) -> tuple[list[str], dict[str, str]]:
    """The command prefix (and environment) running rouge-tui from ``source`` (default: the
    tree this script lives in)."""
    src = Path(source or ROOT).resolve()
    # -P: no current directory on sys.path, so PYTHONPATH decides which tree runs.
    return [sys.executable, "-P", "-m", "rouge_tui"], {"PYTHONPATH": str(src)}


def state_env(home: Path) -> dict[str, str]:
    """XDG directories under ``home``: config, data, cache and state of one measurement, so
    no user setting or earlier cache enters it."""
    return {var: str(home / var.lower()) for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")}


def fresh_home() -> Path:
    """A new empty directory for one measurement's state (removed by `drop`)."""
    return Path(tempfile.mkdtemp(prefix="rouge-tui-bench-home-"))


def drop(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def trees(against: Sequence[Path] | None) -> list[tuple[str, Path]]:
    """(label, source tree): this tree first, then each --against tree."""
    out = [("this tree", ROOT)]
    for tree in against or []:
        tree = Path(tree).resolve()
        if not (tree / "rouge_tui").is_dir():
            raise SystemExit(f"{tree}: not a rouge-tui source tree (no rouge_tui/ in it)")
        out.append((str(tree), tree))
    for _, tree in out:
        compiled(tree)
    return out


def compiled(tree: Path) -> None:
    """Byte-compile a tree's ``rouge_tui`` as ``pip install`` does for its users, so that no
    timed process compiles it (with PYTHONDONTWRITEBYTECODE set, as on some machines here,
    every process would: about 30 ms of a report on the sample)."""
    import compileall

    compileall.compile_dir(tree / "rouge_tui", quiet=1)


def alternate(variants: dict[str, Callable[[], Sample]], runs: int, warm_up: bool = True) -> dict[str, list[Sample]]:
    """Each variant ``runs`` times, in turn (A B C A B C ...), so a slow spell of the
    machine falls on all of them; one untimed round first (page cache, .pyc files)."""
    if warm_up:
        for call in variants.values():
            call()
    out: dict[str, list[Sample]] = {label: [] for label in variants}
    for _ in range(runs):
        for label, call in variants.items():
            out[label].append(call())
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


def med(samples: Sequence[Sample], field: str = "wall") -> float:
    return statistics.median(getattr(s, field) for s in samples)


def spread(samples: Sequence[Sample], field: str = "wall") -> tuple[float, float]:
    values = [getattr(s, field) for s in samples]
    return min(values), max(values)


def paired(a: Sequence[Sample], b: Sequence[Sample], field: str = "wall") -> float:
    """The median of the run-by-run ratios a_i / b_i (runs taken side by side)."""
    return statistics.median(getattr(x, field) / getattr(y, field) for x, y in zip(a, b))


def seconds(samples: Sequence[Sample], field: str = "wall") -> str:
    """``0.412 s (0.398-0.455)``: median and range; milliseconds below a second."""
    low, high = spread(samples, field)
    middle = med(samples, field)
    if high < 1.0:
        return f"{middle * 1e3:.0f} ms ({low * 1e3:.0f}-{high * 1e3:.0f})"
    return f"{middle:.2f} s ({low:.2f}-{high:.2f})"


def megabytes(samples: Sequence[Sample]) -> str:
    return f"{med(samples, 'rss_mb'):.0f} MB"


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Columns as wide as their widest cell, the first left-aligned, the rest right."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


def synthetic(examples: int, words: int, builds: int = 2, changed: float | None = None, work: Path = BENCH_DIR) -> Path:
    """A make_suite.py suite in ``work``, generated once (under a temporary name, then
    renamed, so a killed run leaves no half suite) and reused."""
    from make_suite import write_suite

    name = f"suite-{examples}x{words}" + (f"-{builds}builds" if builds != 2 else "") + (f"-changed{changed}" if changed else "")
    path = work / name
    if not (path / "suite.toml").exists():
        print(f"generating {path} (once) ...", file=sys.stderr, flush=True)
        part = work / f".{name}.part"
        shutil.rmtree(part, ignore_errors=True)
        write_suite(part, examples, words, builds=builds, changed=changed)
        part.rename(path)
    return path


def view(root: Path, builds: Sequence[str], into: Path) -> Path:
    """A suite directory of links to ``root``'s settings, references and the named build
    files (names with their extension): the same bytes, a chosen set of builds."""
    (into / "builds").mkdir(parents=True)
    for name in os.listdir(root):
        if name != "builds":
            os.symlink(root / name, into / name)
    for name in builds:
        os.symlink(root / "builds" / name, into / "builds" / name)
    return into


def machine_note() -> str:
    """Cores and load, printed with the figures: the machine is shared and noisy."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load}"
