"""Start-up, whole process: `rouge-tui --version` beside a bare `python -P -c pass`, and
`rouge-tui report` on the bundled sample suite.

    python benchmarks/bench_start.py --runs 20
    python benchmarks/bench_start.py --runs 20 --against /work/old
    python benchmarks/bench_start.py --imports     # also the slowest imports of each command

Every tree is given the same sample suite (this tree's sample_suites/incident-summaries) by
path, so they do the same work; ``report`` is timed with ``--no-cache`` and with a warm
cache (the second run in one state directory). The variants run in turn (A B C ...),
medians of --runs runs with their range; ratios are run-by-run against the bare Python.
Budgets (SPEC): ``--version`` < 60 ms; ``report`` on the bundled sample < 300 ms.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    ROOT,
    alternate,
    drop,
    fresh_home,
    machine_note,
    med,
    paired,
    print_table,
    rouge_tui,
    run_once,
    seconds,
    state_env,
    trees,
)

SAMPLE = ROOT / "sample_suites" / "incident-summaries"


def slowest_imports(argv: list[str], env: dict[str, str], count: int = 8) -> list[tuple[float, str]]:
    """The top-level imports that took longest (cumulative ms), from ``-X importtime``."""
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if found and len(found.group(3)) <= 2:  # top-level (and the next level down)
            rows.append((int(found.group(2)) / 1000, found.group(3) + found.group(4)))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    parser.add_argument("--imports", action="store_true", help="print the slowest imports of each command")
    args = parser.parse_args()
    sources = trees(args.against)
    bare = [sys.executable, "-P", "-c", "pass"]
    variants = {"python -P -c pass": lambda: run_once(bare)}
    homes = []
    commands = {}
    for label, tree in sources:
        prefix, env = rouge_tui(tree)
        home = fresh_home()
        homes.append(home)
        env.update(state_env(home))
        version = [*prefix, "--version"]
        cold = [*prefix, "report", str(SAMPLE), "--no-cache"]
        warm = [*prefix, "report", str(SAMPLE)]
        run_once(warm, env, (0, 1))  # fills this tree's cache
        variants[f"{label}: --version"] = lambda argv=version, env=env: run_once(argv, env)
        variants[f"{label}: report sample --no-cache"] = lambda argv=cold, env=env: run_once(argv, env, (0, 1))
        variants[f"{label}: report sample, cached"] = lambda argv=warm, env=env: run_once(argv, env, (0, 1))
        commands[label] = (env, {"--version": version, "report --no-cache": cold})
    print(f"machine: {machine_note()}; medians of {args.runs} runs, the variants in turn")
    results = alternate(variants, args.runs)
    base = results["python -P -c pass"]
    rows = []
    for label, samples in results.items():
        budget, check = "", ""
        if label.endswith("--version"):
            budget, limit = "< 60 ms", 0.060
        elif "report" in label:
            budget, limit = "< 300 ms", 0.300
        if budget:
            check = "ok" if med(samples) < limit else "OVER"
        minus = f"{(med(samples) - med(base)) * 1e3:+.0f} ms" if samples is not base else ""
        rows.append([label, seconds(samples), seconds(samples, "cpu"), f"{paired(samples, base):.2f}x", minus,
                     f"{med(samples, 'rss_mb'):.0f} MB", budget, check])
    print_table(["", "wall median (range)", "cpu", "vs bare", "over bare", "peak RSS", "budget", "check"], rows)
    if args.imports:
        for label, (env, argvs) in commands.items():
            for what, argv in argvs.items():
                print(f"\nslowest imports, {label}: {what} (cumulative ms, -X importtime, one run)")
                for ms, name in slowest_imports(argv, {**os.environ, **env}):
                    print(f"  {ms:7.1f}  {name}")
    for home in homes:
        drop(home)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
