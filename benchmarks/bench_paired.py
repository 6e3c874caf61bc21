"""The paired test (rouge_tui.analysis.paired) on big suites, in-process.

    python benchmarks/bench_paired.py --runs 5
    python benchmarks/bench_paired.py --runs 5 --only 100k

A pure function of one delta array, so it is timed inside one process: the median (and range)
of --runs calls of ``paired_test`` on the same deltas, and the peak of memory the call
allocates (numpy's arrays included, read with tracemalloc in one more call). The deltas are
normal(0.01, 0.1), clipped to [-1, 1], on a fixed share of the examples, zero elsewhere (a
nightly build leaves most outputs unchanged). Rows:

- 100,000 and 1,000,000 examples with 5% and 100% of the deltas non-zero (issue 35's four);
- 512 to 2,048 non-zero of 100,000: the resampling path up to its bound (``RESAMPLE_MAX``);
- the sign-flip sums side by side (A B A B) on RESAMPLE_MAX deltas: the module's byte table against
  one signed delta at a time on the same random bytes (the same p-value, checked).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _measure import machine_note, print_table

from rouge_tui.analysis import paired
from rouge_tui.analysis.paired import RESAMPLE_MAX, paired_test

CASES = [("100k", 100_000, 5_000), ("100k", 100_000, 100_000), ("1m", 1_000_000, 50_000),
         ("1m", 1_000_000, 1_000_000), ("100k", 100_000, 512), ("100k", 100_000, 1_024),
         ("100k", 100_000, RESAMPLE_MAX)]


def deltas(examples: int, nonzero: int, seed: int = 1) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(seed))
    delta = np.zeros(examples)
    delta[rng.choice(examples, nonzero, replace=False)] = np.clip(rng.normal(0.01, 0.1, nonzero), -1, 1)
    delta[delta == 0.0] = 0.0  # -0.0 from the clip counts as zero anyway
    return delta


def timed(call, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def peak_mb(call) -> float:
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def one_at_a_time_p(quantised: np.ndarray, resamples: int, rng: np.random.Generator) -> float:
    """The sign-flip p the plain way: the same random bytes, each bit signing one delta."""
    k = len(quantised)
    groups = -(-k // 8)
    magnitude = np.abs(quantised)
    observed = abs(int(quantised.sum()))
    reached = 0
    rows = max(1, paired.CHUNK // k)
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        signs = rng.integers(0, 256, size=(count, groups), dtype=np.uint8)
        plus = np.unpackbits(signs, axis=1, count=k).view(bool)
        flipped = 2 * np.where(plus, magnitude, 0).sum(axis=1) - int(magnitude.sum())
        reached += int(np.count_nonzero(np.abs(flipped) >= observed))
    return (1 + reached) / (1 + resamples)


def flip_rows(runs: int) -> list[list[str]]:
    quantised = np.rint(deltas(RESAMPLE_MAX, RESAMPLE_MAX) * 2.0**40).astype(np.int64)
    variants = {"byte table (paired.py)": paired._monte_carlo_p, "one delta at a time": one_at_a_time_p}
    times: dict[str, list[float]] = {name: [] for name in variants}
    answers = set()
    for _ in range(runs):
        for name, flips in variants.items():
            start = time.perf_counter()
            answers.add(flips(quantised, paired.RESAMPLES, np.random.Generator(np.random.PCG64(0))))
            times[name].append(time.perf_counter() - start)
    if len(answers) != 1:
        raise SystemExit(f"the two sign-flip sums disagree: {sorted(answers)}")
    ratios = [a / b for a, b in zip(*times.values())]
    rows = [[name, f"{statistics.median(t) * 1e3:.0f}", f"{min(t) * 1e3:.0f}-{max(t) * 1e3:.0f}", ""]
            for name, t in times.items()]
    rows[0][3] = f"{statistics.median(ratios):.2f}x"
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="only the cases whose key (100k, 1m) contains this")
    args = parser.parse_args()
    print(machine_note())
    rows = []
    for key, examples, nonzero in CASES:
        if args.only not in key:
            continue
        delta = deltas(examples, nonzero)
        result = paired_test(delta)
        times = timed(lambda delta=delta: paired_test(delta), args.runs)
        rows.append([f"{examples:,} x {nonzero / examples:.1%} non-zero ({nonzero:,})",
                     f"{statistics.median(times) * 1e3:.0f}", f"{min(times) * 1e3:.0f}-{max(times) * 1e3:.0f}",
                     f"{peak_mb(lambda delta=delta: paired_test(delta)):.0f}",
                     "normal limits" if result.method.startswith("normal") else "resampled"])
    print_table(["deltas", "median ms", "range ms", "peak MB", "path"], rows)
    print()
    print_table([f"sign-flip sums, {RESAMPLE_MAX:,} deltas", "median ms", "range ms", "vs next"], flip_rows(args.runs))


if __name__ == "__main__":
    main()
