"""Time reading a suite (references + the last two builds) in fresh processes, side by side
with the bare loop any reader pays: open each file, one ``orjson.loads`` per line, keep
``id -> text`` (no checks, no digest, no fingerprint).

    python benchmarks/bench_suite_read.py /tmp/s100k [/work/shared/data/cnndm-pointer-gen] --runs 7

Prints, per suite, the median and range of wall time and the median peak RSS of each.
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
start = time.perf_counter()
from rouge_tui.suite.suite import open_suite, read_build, read_references
suite = open_suite(sys.argv[1])
references = read_references(suite)
builds = [read_build(suite, entry) for entry in suite.builds[-2:]]
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

BARE = """
import gzip, resource, sys, time
from pathlib import Path
start = time.perf_counter()
import orjson
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
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(code: str, suite: Path) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-c", code, str(suite)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seconds, rss_kb = done.stdout.split()
    return float(seconds), int(rss_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    readers = {"rouge_tui.suite": READER, "bare orjson loop": BARE}
    for suite in args.suites:
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in readers}
        for _ in range(args.runs):  # alternate, so a slow spell of the machine hits both
            for label, code in readers.items():
                samples[label].append(measure(code, suite))
        for label, runs in samples.items():
            walls = [wall for wall, _ in runs]
            figures = {
                "suite": str(suite),
                "reader": label,
                "median_s": round(statistics.median(walls), 3),
                "range_s": [round(min(walls), 3), round(max(walls), 3)],
                "peak_rss_mb": round(statistics.median(rss for _, rss in runs)),
            }
            print(json.dumps(figures))


if __name__ == "__main__":
    main()
