"""Time whole-process `rouge-tui report` on the budget suites: cold, cached, peak memory.

    python benchmarks/bench_report.py                 # 5k x 500 and 100k x 40 words (+ CNN/DM if present)
    python benchmarks/bench_report.py --runs 5 --cnndm /path/to/cnndm-pointer-gen
    python benchmarks/bench_report.py --against /tmp/rouge-old   # another source tree side by side

Synthetic suites are generated once into --work (default: a folder in the temp directory)
and reused. "cold" is `--no-cache`; "cached" is a second run with a warm score cache (in a
private XDG_CACHE_HOME). Figures are medians of --runs runs; CPU is user + sys over the
process and any worker it forked; RSS is the largest process's peak.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import Sample, median, rouge_tui, run_once
from make_suite import write_suite

DEFAULT_CNNDM = Path("/work/shared/data/cnndm-pointer-gen")

# (name, examples, words, time budget in s, memory budget in MB or None)
SYNTHETIC = [
    ("5k x 500 words", 5000, 500, 2.0, None),
    ("100k x 40 words", 100_000, 40, 3.0, 250.0),
]
CNNDM_BUDGET = (3.0, 400.0)


def suite_dir(work: Path, examples: int, words: int) -> Path:
    path = work / f"suite-{examples}x{words}"
    if not (path / "suite.toml").exists():
        print(f"generating {path} ...", file=sys.stderr)
        write_suite(path, examples, words)
    return path


def measure(suite: Path, runs: int, source: Path | None, cache_home: Path) -> tuple[Sample, Sample]:
    prefix, env = rouge_tui(source)
    # report exits 1 on drift: that is a verdict, not a failure.
    cold = [run_once([*prefix, "report", str(suite), "--no-cache"], env, (0, 1)) for _ in range(runs)]
    env = {**env, "XDG_CACHE_HOME": str(cache_home)}
    run_once([*prefix, "report", str(suite)], env, (0, 1))  # fill the cache
    warm = [run_once([*prefix, "report", str(suite)], env, (0, 1)) for _ in range(runs)]
    return median(cold), median(warm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "rouge-tui-bench")
    parser.add_argument("--cnndm", type=Path, default=DEFAULT_CNNDM, help="the real CNN/DM suite, if present")
    parser.add_argument("--against", type=Path, help="another rouge-tui source tree to time side by side")
    parser.add_argument("--only", help="run only suites whose name contains this")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    suites = [(name, suite_dir(args.work, n, w), t, m) for name, n, w, t, m in SYNTHETIC]
    if args.cnndm.is_dir():
        suites.append(("CNN/DM rougeLsum stem", args.cnndm, *CNNDM_BUDGET))
    else:
        print(f"({args.cnndm} not found: CNN/DM row skipped)", file=sys.stderr)
    if args.only:
        suites = [s for s in suites if args.only in s[0]]

    sources = [("this tree", None)] + ([(f"{args.against}", args.against)] if args.against else [])
    header = f"{'suite':24} {'code':14} {'cold wall':>9} {'cold cpu':>8} {'cold RSS':>8} {'cached':>7} {'budget':>16}"
    print(header)
    print("-" * len(header))
    results: dict[tuple[str, str], Sample] = {}
    for name, path, budget_s, budget_mb in suites:
        for label, source in sources:
            with tempfile.TemporaryDirectory() as cache_home:
                cold, warm = measure(path, args.runs, source, Path(cache_home))
            results[(name, label)] = cold
            budget = f"< {budget_s:g} s" + (f", < {budget_mb:g} MB" if budget_mb else "")
            print(
                f"{name:24} {label[-14:]:14} {cold.wall:8.2f}s {cold.cpu:7.2f}s {cold.rss_mb:6.0f}MB "
                f"{warm.wall:6.2f}s {budget:>16}",
                flush=True,
            )
        if args.against:
            new, old = results[(name, "this tree")], results[(name, f"{args.against}")]
            print(f"{'':24} {'speed-up':14} {old.wall / new.wall:8.1f}x {old.cpu / new.cpu:7.1f}x")
    print(f"\nmedians of {args.runs} runs; cpu = user + sys incl. forked workers; RSS = largest process")


if __name__ == "__main__":
    main()
