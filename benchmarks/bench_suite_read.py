"""Time reading a suite (references + the last two builds, each build read like the one
before, as `report` reads them) in fresh processes, side by side with the bare loop any
reader pays: open each file, one ``orjson.loads`` per line, keep ``id -> text`` (no checks,
no digest, no fingerprint); ``--against TREE``, the same read by another checkout's code.

    python benchmarks/bench_suite_read.py /tmp/s100k [/work/shared/data/cnndm-pointer-gen] --runs 7 --against /work/old

Prints, per suite, the median, best and range of the time the read takes inside the process
(imports left out: `bench_start.py` has them), its CPU time (less moved by a busy machine)
and the median peak RSS of each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

READER = """
import resource, sys, time
from rouge_tui.suite.suite import open_suite, read_build, read_references
start, cpu = time.perf_counter(), time.process_time()
suite = open_suite(sys.argv[1])
references = read_references(suite)
base = read_build(suite, suite.builds[-2], like=[references.texts])
candidate = read_build(suite, suite.builds[-1], like=[run.outputs for run in base.runs])
print(time.perf_counter() - start, time.process_time() - cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

BARE = """
import gzip, resource, sys, time
from pathlib import Path
import orjson
start, cpu = time.perf_counter(), time.process_time()
root = Path(sys.argv[1])
refs = next(root.glob("references.jsonl*"))
files = [refs] + sorted((root / "builds").iterdir())[-2:]
kept = []
for path, field in zip(files, ["reference", "output", "output"]):
    with (gzip.open if path.name.endswith(".gz") else open)(path, "rb") as handle:
        texts = {}
        for line in handle:
            record = orjson.loads(line)
            texts[record["id"]] = record[field]
        kept.append(texts)
print(time.perf_counter() - start, time.process_time() - cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(code: str, suite: Path, tree: Path = ROOT) -> tuple[float, float, float]:
    done = subprocess.run(
        [sys.executable, "-P", "-c", code, str(suite)],  # -P: PYTHONPATH decides the tree, not the cwd
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
    )
    seconds, cpu, rss_kb = done.stdout.split()
    return float(seconds), float(cpu), int(rss_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout")
    args = parser.parse_args()
    readers = {"rouge_tui.suite": (READER, ROOT)}
    readers |= {f"rouge_tui.suite at {tree}": (READER, tree) for tree in args.against}
    readers["bare orjson loop"] = (BARE, ROOT)
    for suite in args.suites:
        samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in readers}
        for _ in range(args.runs):  # alternate, so a slow spell of the machine hits all
            for label, (code, tree) in readers.items():
                samples[label].append(measure(code, suite, tree))
        for label, runs in samples.items():
            walls = [wall for wall, _, _ in runs]
            cpus = [cpu for _, cpu, _ in runs]
            figures = {
                "suite": str(suite),
                "reader": label,
                "median_s": round(statistics.median(walls), 3),
                "best_s": round(min(walls), 3),
                "range_s": [round(min(walls), 3), round(max(walls), 3)],
                "cpu_median_s": round(statistics.median(cpus), 3),
                "cpu_best_s": round(min(cpus), 3),
                "peak_rss_mb": round(statistics.median(rss for _, _, rss in runs)),
            }
            print(json.dumps(figures))


if __name__ == "__main__":
    main()
