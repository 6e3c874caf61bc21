"""The 1M nightly report beside the floor on every core, then on two of them: SPEC "Budgets"
asks that on a machine with more cores (8-16) the report's ratio to the floor be no worse
than on 2 cores. One prepared script, for the session that has such a machine.

    python benchmarks/bench_cores.py --runs 2
    python benchmarks/bench_cores.py --runs 2 --examples 100000     # a quick try of the script

The suite is bench_report.py's 1M nightly (make_suite.py's, generated once into
$TMPDIR/rouge-tui-bench); both compare its last two builds (5% of outputs differ), the
floor with rougeL and the rouge-score tokenizer, the report ``--no-cache`` with the same,
each a whole process, in turn, after one untimed run of each. "Two cores" pins this
script, and so every process it starts, to two cores of different physical cores where
the machine says which (``os.sched_setaffinity``): polars and rouge-score-rs size their
thread pools by the cores a process may run on.

It needs what the floor needs (polars, rouge-score-rs) in this interpreter, and the floor
script itself (``--floor``): a machine that reaches no network needs both brought along.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    ROOT,
    Sample,
    compiled,
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
CHANGED = 0.05
OK = (0, 1)  # report exits 1 on drift: a verdict, not a failure


def report(suite: Path) -> Sample:
    """One ``report --no-cache`` in fresh state directories (beside the suite's view)."""
    home = Path(tempfile.mkdtemp(dir=suite.parent))
    prefix, env = rouge_tui()
    argv = [*prefix, "report", str(suite), "--no-cache", "--format", "json", "--tokenizer", "rouge-score"]
    return run_once(argv, {**env, **state_env(home)}, OK)


def siblings(cpu: int) -> set[int]:
    """The logical CPUs that share ``cpu``'s physical core ({cpu} where the machine does not say)."""
    try:
        text = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip()
    except OSError:
        return {cpu}
    out: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return out


def two_cores(cpus: list[int]) -> list[int]:
    """Two of ``cpus`` on different physical cores where there are such, else the first two."""
    first = cpus[0]
    other = next((cpu for cpu in cpus[1:] if cpu not in siblings(first)), None)
    return [first, other] if other is not None else cpus[:2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2, help="runs of each, in turn, per setting of cores")
    parser.add_argument("--examples", type=int, default=1_000_000)
    parser.add_argument("--floor", type=Path, default=FLOOR, help="SPEC's floor script (needs polars)")
    args = parser.parse_args()
    if not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no floor script (--floor)")
    try:  # before the suite is generated: what the floor and the report import
        import polars  # noqa: F401
        import rouge_score_rs  # noqa: F401
    except ImportError as exc:
        raise SystemExit(f"{exc}: the floor needs polars and rouge-score-rs in this interpreter") from None
    compiled(ROOT)
    every = sorted(os.sched_getaffinity(0))
    if len(every) < 3:
        print(f"note: this process may run on {len(every)} cores; both settings are the same here", file=sys.stderr)
    root = synthetic(args.examples, 40, changed=CHANGED)
    pair = build_names(2, CHANGED)[1:]
    pinned = two_cores(every)
    rows, ratios = [], {}
    with tempfile.TemporaryDirectory(prefix="rouge-tui-bench-cores-") as tmp:
        suite = view(root, [f"{name}.jsonl" for name in pair], Path(tmp) / "suite")
        floor_argv = [sys.executable, str(args.floor), str(suite), *pair, "--metric", "rougeL"]
        print(f"machine: {machine_note()}; {args.examples:,} x ~40 words, {' -> '.join(pair)}; "
              f"medians of {args.runs} runs, the floor and the report in turn")
        try:
            for label, cores in ((f"every core ({len(every)})", every),
                                 (f"2 cores ({', '.join(map(str, pinned))})", pinned)):
                os.sched_setaffinity(0, cores)
                run_once(floor_argv)  # untimed: page cache, polars' first import
                report(suite)
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
        finally:
            os.sched_setaffinity(0, every)
    print_table(["cores", "command", "wall median (range)", "cpu", "peak RSS", "ratio"], rows)
    wide, two = ratios.values()
    print(f"\nthe ratio on every core {wide:.2f}x, on 2 cores {two:.2f}x: "
          f"{'ok' if wide <= two else 'OVER'} (budget: no worse on every core)")
    print(f"machine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
