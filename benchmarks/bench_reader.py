"""Reading suites, whole processes side by side with SPEC's floor script: `report --no-cache`
on the 100,000 x ~40 nightly (rouge-score tokenizer, as the floor) and on CNN/DM's two
newest builds (rougeLsum, stemming), for this tree and each ``--against`` tree, in turn with
``floor.py`` (A B C A B C ...); the median wall and CPU time, their ranges, peak RSS and the
medians of the run-by-run ratios to the floor (CPU is the steadier on a loaded machine).

    python benchmarks/bench_reader.py --runs 5 --against /tmp/reader-before --against /tmp/reader-proto
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _measure import (
    BENCH_DIR,
    Sample,
    alternate,
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
    trees,
)

FLOOR = Path("/work/shared/bench/floor.py")
CNNDM = Path("/work/shared/data/cnndm-pointer-gen")
NIGHTLY = BENCH_DIR / "suite-100000x40-changed0.05"
SUITES = {  # name: (suite, baseline, candidate, report flags, floor flags)
    "100k nightly": (NIGHTLY, "b-candidate", "c-changed", ["--tokenizer", "rouge-score"], []),
    "CNN/DM": (CNNDM, "2-pointer-gen", "3-pointer-gen-cov", ["--metric", "rougeLsum", "--stem"],
               ["--metric", "rougeLsum", "--stem"]),
}


def report(tree: Path, suite: Path, flags: list[str]) -> Sample:
    argv, env = rouge_tui(tree)
    home = fresh_home()
    try:
        return run_once([*argv, "report", str(suite), "--no-cache", "--format", "json", *flags],
                        env={**env, **state_env(home)}, ok_codes=(0, 1))
    finally:
        drop(home)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--floor", type=Path, default=FLOOR)
    parser.add_argument("--against", type=Path, action="append", help="another source tree (repeatable)")
    args = parser.parse_args()
    sources = trees(args.against)
    print(f"machine: {machine_note()}; medians of {args.runs} runs, in turn")
    for name, (suite, base, cand, flags, floor_flags) in SUITES.items():
        floor = [sys.executable, str(args.floor), str(suite), base, cand, *floor_flags]
        variants = {"floor.py": lambda floor=floor: run_once(floor)}
        for label, tree in sources:
            variants[label] = lambda tree=tree, suite=suite, flags=flags: report(tree, suite, flags)
        got = alternate(variants, args.runs)
        rows = [
            [label, seconds(s), seconds(s, "cpu"), megabytes(s),
             "" if label == "floor.py" else f"{paired(s, got['floor.py']):.2f}x",
             "" if label == "floor.py" else f"{paired(s, got['floor.py'], 'cpu'):.2f}x"]
            for label, s in got.items()
        ]
        print(f"\n{name}: {suite}")
        print_table(["", "wall", "cpu", "peak RSS", "wall / floor", "cpu / floor"], rows)
    print(f"\nafter: {machine_note()}")


if __name__ == "__main__":
    main()
