"""The 1M nightly report beside the floor on every core, then on two of them: SPEC "Budgets"
asks that on a machine with more cores (8-16) the report's ratio to the floor be no worse
than on 2 cores. One prepared script, for the session that has such a machine.

    python benchmarks/bench_cores.py --runs 2
    python benchmarks/bench_cores.py --runs 2 --examples 100000     # a quick try of the script

The suite is bench_report.py's 1M nightly (make_suite.py's, generated once into
$TMPDIR/rouge-tui-bench: ~2 min on 2 cores); both compare its last two builds (5% of outputs
differ), the floor with rougeL and the rouge-score tokenizer, the report ``--no-cache``
with the same, each a whole process, in turn. "Two cores" pins this script, and so every
process it starts, to the first two cores it may use (``os.sched_setaffinity``): polars and
rouge-score-rs size their thread pools by the cores a process may run on.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    Sample,
    drop,
    fresh_home,
    machine_note,
    megabytes,
    paired,
    print_table,
    rouge_tui,
    run_once,
    seconds,
    state_env,
    synthetic,
    view,
)
from make_suite import build_names

FLOOR = Path("/work/shared/bench/floor.py")
OK = (0, 1)  # report exits 1 on drift: a verdict, not a failure


def report(suite: Path) -> Sample:
    home = fresh_home()
    try:
        prefix, env = rouge_tui()
        argv = [*prefix, "report", str(suite), "--no-cache", "--format", "json", "--tokenizer", "rouge-score"]
        return run_once(argv, {**env, **state_env(home)}, OK)
    finally:
        drop(home)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2, help="runs of each, in turn, per setting of cores")
    parser.add_argument("--examples", type=int, default=1_000_000)
    parser.add_argument("--floor", type=Path, default=FLOOR, help="SPEC's floor script (needs polars)")
    args = parser.parse_args()
    if not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no floor script (--floor)")
    every = sorted(os.sched_getaffinity(0))
    if len(every) < 3:
        print(f"note: this process may run on {len(every)} cores; both settings are the same here", file=sys.stderr)
    root = synthetic(args.examples, 40, changed=0.05)
    pair = build_names(2, 0.05)[1:]
    home = fresh_home()
    try:
        suite = view(root, [f"{name}.jsonl" for name in pair], home / "suite")
        floor_argv = [sys.executable, str(args.floor), str(suite), *pair, "--metric", "rougeL"]
        print(f"machine: {machine_note()}; {args.examples:,} x ~40 words, {' -> '.join(pair)}; "
              f"medians of {args.runs} runs, the floor and the report in turn")
        rows, ratios = [], {}
        for label, cores in ((f"every core ({len(every)})", every), ("2 cores", every[:2])):
            os.sched_setaffinity(0, cores)
            report(suite)  # untimed: page cache, .pyc files
            floor, ours = [], []
            for _ in range(args.runs):
                floor.append(run_once(floor_argv))
                ours.append(report(suite))
                print(".", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            ratios[label] = paired(ours, floor)
            rows.append([label, "floor.py", seconds(floor), seconds(floor, "cpu"), megabytes(floor), ""])
            rows.append([label, "report --no-cache", seconds(ours), seconds(ours, "cpu"), megabytes(ours),
                         f"{ratios[label]:.2f}x floor"])
        os.sched_setaffinity(0, every)
    finally:
        drop(home)
    print_table(["cores", "run", "wall median (range)", "cpu", "peak RSS", "ratio"], rows)
    wide, two = ratios.values()
    print(f"\nthe ratio on every core {wide:.2f}x, on 2 cores {two:.2f}x: "
          f"{'ok' if wide <= two else 'OVER'} (budget: no worse on every core)")
    print(f"machine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
