"""What the signal bands and the paired test cost (issue 35), whole process, trees in turn.

    python benchmarks/bench_bands.py --runs 3 --against /work/wt/before

Two suites, generated once into $TMPDIR/rouge-tui-bench by make_suite.py and reused:

- bench_history.py's 30 nightly builds of 10,000 x ~40 words (and a 31st): in a fresh state
  directory, ``report SUITE --format json`` (no ``--history``) on the first 30 builds with
  an empty cache (the last pair's signal counts and those of the five earlier pairs ending
  at the baseline: the band's window, and the volatile signal's), then the 31st build added
  and the same command again (cache warm: one new pair to ground).
- bench_report.py's 100,000 x ~40 nightly: its two builds and the third that repeats the
  second except 5% of outputs; ``report --no-cache`` on the last two (the first two make the
  one earlier pair), beside SPEC's floor script (``--floor``, needs polars and rouge-score-rs)
  on the same two builds: the budget is a ratio to it. Beside them, this tree with one part
  made a no-op, so the parts' cost is a difference of whole processes: the earlier pairs'
  signal counts (``pairs.earlier_counts`` returns no pair: no band, as with too little
  history), and the paired test (``pipeline.paired_test`` returns a fixed result).

Ratios are medians of run-by-run ratios, of wall time and of CPU time (on a loaded machine
the CPU ratio is the steadier): to the floor, and of each other variant to this tree.
What the last run of each tree said (verdict, signal drift, paired test, bands) is shown under the
tables, so a figure is never of a report that said something else.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    BENCH_DIR,
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
    trees,
    view,
)
from make_suite import build_names

OK = (0, 1)  # 1: drift, of the mean or of a signal: a verdict, not a failure
CHANGED = 0.05
STUBS = {"bands": "this tree, earlier pairs' counts stubbed", "paired": "this tree, paired test stubbed"}
FLOOR = Path("/work/shared/bench/floor.py")


# This tree with one part of issue 35 made a no-op (argv[1]: "bands" or "paired").
STUBBED = r"""
import sys
from rouge_tui.analysis import pairs, pipeline
part = sys.argv.pop(1)
if part == "bands":
    pairs.earlier_counts = lambda *a, **k: []
else:
    class Fixed:
        def to_json(self):
            return {"method": "stubbed", "seed": 0, "resamples": 0, "interval": [0.0, 0.0], "p_value": 1.0,
                    "min_detectable": 0.0}
    pipeline.paired_test = lambda delta: Fixed()
from rouge_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def nightly(tree: Path, root: Path, names: list[str], outputs: Path) -> dict[str, Sample]:
    """The 30 builds with an empty cache, then the 31st added; both JSON kept in ``outputs``."""
    home = fresh_home()
    try:
        prefix, env = rouge_tui(tree)
        env.update(state_env(home))
        suite = view(root, names[:-1], home / "suite")
        argv = [*prefix, "report", str(suite), "--format", "json"]
        cold = run_once(argv, env, OK, stdout=outputs / "cold.json")
        os.symlink(root / "builds" / names[-1], suite / "builds" / names[-1])
        added = run_once(argv, env, OK, stdout=outputs / "added.json")
        return {"cold": cold, "added": added}
    finally:
        drop(home)


def big_cold(tree: Path, root: Path, names: list[str], outputs: Path, stub: str = "") -> Sample:
    home = fresh_home()
    try:
        prefix, env = rouge_tui(tree)
        if stub:
            prefix = [sys.executable, "-P", "-c", STUBBED, stub]
        suite = view(root, names, home / "suite")
        return run_once([*prefix, "report", str(suite), "--format", "json", "--no-cache"],
                        {**env, **state_env(home)}, OK, stdout=outputs / "big.json")
    finally:
        drop(home)


def said(path: Path) -> str:
    """What a report's JSON said: verdict, delta, the signal drift, the paired test, and the
    new sentences' and figures' counts with their band (as counts) or why there is none."""
    data = json.loads(path.read_text())
    drift = [f"{d['signal']} {d['count']}" for d in data.get("signal_drift") or []]
    out = f"verdict {data['verdict']}, delta {data['delta']:+.4f}, signal_drift [{', '.join(drift)}]"
    if data.get("delta_test"):
        out += f", delta_test p {data['delta_test']['p_value']:.2g}"
    for rate in data.get("signal_rates") or []:
        if rate["signal"] in ("new-sentence", "new-figure"):
            band = "no band" if rate["band"] is None else f"band up to {rate['band'][1] * data['paired']:.1f}"
            out += f"; {rate['signal']} {rate['count']} ({band})"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--builds", type=int, default=30, help="builds before the one added")
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--big", type=int, default=100_000, help="examples of the nightly beside the floor")
    parser.add_argument("--floor", type=Path, default=FLOOR, help="SPEC's floor script")
    parser.add_argument("--work", type=Path, default=BENCH_DIR, help="where generated suites are kept")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sources = trees(args.against)
    root = synthetic(args.examples, 40, builds=args.builds + 1, work=args.work)
    names = [f"{n}.jsonl" for n in build_names(args.builds + 1)]
    big = synthetic(args.big, 40, changed=CHANGED, work=args.work)
    big_names = [f"{n}.jsonl" for n in build_names(2, CHANGED)]
    floor = [sys.executable, str(args.floor), str(big), *(n.split(".")[0] for n in big_names[1:]), "--metric", "rougeL"]
    if not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no floor script (--floor)")
    print(f"machine: {machine_note()}; medians of {args.runs} runs, trees and floor in turn")

    keep = fresh_home()
    outs = {label: keep / str(i) for i, (label, _) in enumerate(sources)}
    for out in outs.values():
        out.mkdir()
    got: dict[tuple[str, str], list[Sample]] = {}
    for label, tree in sources:  # untimed: page cache, .pyc files
        big_cold(tree, big, big_names, outs[label])
    for stub in STUBS:
        big_cold(sources[0][1], big, big_names, keep, stub)
    run_once(floor)
    for _ in range(args.runs):
        for label, tree in sources:
            for kind, sample in nightly(tree, root, names, outs[label]).items():
                got.setdefault((label, kind), []).append(sample)
        got.setdefault(("floor", "big"), []).append(run_once(floor))
        for label, tree in sources:
            got.setdefault((label, "big"), []).append(big_cold(tree, big, big_names, outs[label]))
        for stub in STUBS:
            got.setdefault((stub, "big"), []).append(big_cold(sources[0][1], big, big_names, keep, stub))
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    this = sources[0][0]
    rows = []

    def ratios(samples: list[Sample], to: list[Sample], name: str) -> str:
        return f"{paired(samples, to):.2f}x / {paired(samples, to, 'cpu'):.2f}x {name}"

    for kind, what in (("cold", f"report, {args.builds} builds x {args.examples:,}, empty cache"),
                       ("added", f"report, build {args.builds + 1} added, cache warm"),
                       ("big", f"report --no-cache, {args.big:,} x ~40 nightly (5% changed)")):
        variants = [(label, label) for label, _ in sources]
        if kind == "big":
            variants = [("floor", "floor.py"), *variants, *STUBS.items()]
        for key, label in variants:
            samples = got[(key, kind)]
            said_ratios = [] if key in ("floor", this) else [ratios(samples, got[(this, kind)], "this")]
            if kind == "big" and key != "floor":
                said_ratios.insert(0, ratios(samples, got[("floor", "big")], "floor"))
            rows.append([label, what, seconds(samples), seconds(samples, "cpu"), megabytes(samples),
                         ", ".join(said_ratios)])
    print_table(["tree", "what", "wall median (range)", "cpu", "peak RSS", "ratio wall / cpu"], rows)
    print()
    for label, _ in sources:
        for name in ("cold", "added", "big"):
            print(f"{label}, {name}: {said(outs[label] / f'{name}.json')}")
    drop(keep)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
