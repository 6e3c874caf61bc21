"""Whole-process `rouge-tui report SUITE --format json` beside SPEC's floor script, the
budgets (SPEC "Budgets") as ratios measured in the same run.

    python benchmarks/bench_report.py --runs 5                    # CNN/DM, 5k x 500, 100k x 40
    python benchmarks/bench_report.py --runs 3 --big              # and 1,000,000 x 40
    python benchmarks/bench_report.py --runs 5 --against /work/old --only 100k

The floor is ``/work/shared/bench/floor.py`` (``--floor``; it needs polars): a columnar
reader, a join on id, rouge-score-rs's ``score_batch`` over both builds, two exact means;
its means must equal the report's with the same metric, tokenizer and stemming. Suites:
the real CNN/DM suite (its suite.toml: rougeLsum, rouge-score tokenizer, stemming; builds 2
and 3 compared: two models, so nearly every output differs: "all changed"), and synthetic
suites made by make_suite.py into $TMPDIR/rouge-tui-bench once and reused: "nightly" (the
last two builds differ in 5% of outputs) and "all changed" (every output differs). For
each suite, in turn, the floor and then each tree:

- cold: ``--no-cache``, in a fresh state directory; its ratio to the floor (budget 1.0x
  nightly, 1.6x all changed; peak memory no more than the floor's);
- first open: the first run with the cache on, in a fresh state directory (what a user
  gets); its ratio to cold (budget 1.1x);
- reopened: the same again, the cache warm;
- new build (nightly suites and CNN/DM): in a fresh cache, the nightly job's reports of the
  earlier builds (untimed) warm it; then a build is added that repeats the last one except
  5% of its outputs, and the first report of it is timed beside a ``--no-cache`` report of
  the same suite: the ratio of the two (budget 0.35x), and they must print the same bytes.

Synthetic suites run with ``--tokenizer rouge-score``, the floor's tokenizer (the floor has
no whitespace tokenizer). Figures are medians of --runs runs with their range; CPU is user
+ sys of the process and what it waited for; RSS the largest process's peak.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    BENCH_DIR,
    Sample,
    drop,
    fresh_home,
    machine_note,
    med,
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

CNNDM = Path("/work/shared/data/cnndm-pointer-gen")
CHANGED = 0.05

FLOOR = Path("/work/shared/bench/floor.py")


@dataclass
class Case:
    """One budget suite: its two builds compared, the build added for "new build" (if any)
    and the earlier builds the nightly job reported before it, the cold budget to the floor."""

    key: str
    title: str
    root: Path
    pair: list[str]  # the two build files (names with their extension) compared
    cold_budget: float  # cold report / floor
    floor: list[str]  # the floor's argv
    flags: list[str] = field(default_factory=list)  # of every report (the floor's tokenizer)
    earlier: list[str] = field(default_factory=list)  # build files reported before the new one
    new: Callable[[Path], None] | None = None  # writes the new build into a view's builds/


def cnndm_new_build(root: Path) -> Callable[[Path], None]:
    """5% of build 3's outputs replaced by build 1's (ids where the two differ), seeded."""
    made: list[bytes] = []

    def write(builds: Path) -> None:
        if made:
            (builds / "4-changed.jsonl").write_bytes(made[0])
            return

        def read(name: str) -> list[dict]:
            with gzip.open(root / "builds" / f"{name}.jsonl.gz", "rt", encoding="utf-8") as handle:
                return [json.loads(line) for line in handle]

        last, other = read("3-pointer-gen-cov"), {r["id"]: r["output"] for r in read("1-baseline")}
        differ = [i for i, r in enumerate(last) if other[r["id"]] != r["output"]]
        for i in random.Random(5).sample(differ, round(CHANGED * len(last))):
            last[i]["output"] = other[last[i]["id"]]
        made.append("".join(json.dumps(r) + "\n" for r in last).encode())
        (builds / "4-changed.jsonl").write_bytes(made[0])

    return write


def cases(args: argparse.Namespace) -> list[Case]:
    out = []
    if (args.cnndm / "suite.toml").is_file():
        names = sorted(os.listdir(args.cnndm / "builds"))
        out.append(Case(
            "cnndm", "CNN/DM, 11,490 x 2 models (all changed), rougeLsum, stemming", args.cnndm, names[1:3], 1.6,
            [sys.executable, str(args.floor), str(args.cnndm), "2-pointer-gen", "3-pointer-gen-cov",
             "--metric", "rougeLsum", "--stem"],
            earlier=names, new=cnndm_new_build(args.cnndm),
        ))
    else:
        print(f"({args.cnndm}: not found, CNN/DM skipped)", file=sys.stderr)
    sizes = [("5k", 5000, 500, CHANGED), ("100k", 100_000, 40, CHANGED), ("100k-all", 100_000, 40, 1.0)]
    if args.big:
        sizes.append(("1m", 1_000_000, 40, CHANGED))
    for key, examples, words, share in sizes:
        if args.only and args.only not in key:
            continue
        root = synthetic(examples, words, changed=share, work=args.work)
        first, second, new = (f"{n}.jsonl" for n in build_names(2, share))
        kind = "nightly (5% changed)" if share < 1 else "all changed"

        def link_new(builds: Path, root: Path = root, new: str = new) -> None:
            os.symlink(root / "builds" / new, builds / new)

        out.append(Case(
            key, f"{examples:,} x ~{words} words, {kind}, rougeL", root, [second, new], 1.0 if share < 1 else 1.6,
            [sys.executable, str(args.floor), str(root), second.split(".")[0], new.split(".")[0], "--metric", "rougeL"],
            flags=["--tokenizer", "rouge-score"],
            earlier=[first, second] if share < 1 else [], new=link_new if share < 1 else None,
        ))
    return [c for c in out if not args.only or args.only in c.key]


def report_argv(tree: Path, suite: Path, *flags: str) -> tuple[list[str], dict[str, str]]:
    prefix, env = rouge_tui(tree)
    return [*prefix, "report", str(suite), "--format", "json", *flags], env


OK = (0, 1)  # report exits 1 on drift: a verdict, not a failure


def cold(tree: Path, case: Case) -> Sample:
    home = fresh_home()
    try:
        suite = view(case.root, case.pair, home / "suite")
        argv, env = report_argv(tree, suite, "--no-cache", *case.flags)
        return run_once(argv, {**env, **state_env(home)}, OK)
    finally:
        drop(home)


def opened(tree: Path, case: Case) -> tuple[Sample, Sample]:
    """The first run with the cache on in a fresh state directory, and the same again."""
    home = fresh_home()
    try:
        suite = view(case.root, case.pair, home / "suite")
        argv, env = report_argv(tree, suite, *case.flags)
        env.update(state_env(home))
        return run_once(argv, env, OK), run_once(argv, env, OK)
    finally:
        drop(home)


def changed(tree: Path, case: Case, beside: list[Sample], same: list[bool]) -> Sample:
    """The first report of the new build, the cache warm on the earlier ones; its
    --no-cache twin goes to ``beside``, and whether their bytes agree to ``same``."""
    assert case.new is not None
    home = fresh_home()
    try:
        suite = view(case.root, case.earlier, home / "suite")
        names = [n.split(".")[0] for n in case.earlier]
        env = {**rouge_tui(tree)[1], **state_env(home)}
        for a, b in itertools.pairwise(names):  # the nightly job's reports so far
            run_once(report_argv(tree, suite, "--baseline", a, "--candidate", b, *case.flags)[0], env, OK)
        case.new(suite / "builds")
        first, again = home / "first.json", home / "no-cache.json"
        sample = run_once(report_argv(tree, suite, *case.flags)[0], env, OK, stdout=first)
        other = fresh_home()
        beside.append(run_once(report_argv(tree, suite, "--no-cache", *case.flags)[0], {**env, **state_env(other)}, OK,
                               stdout=again))
        drop(other)
        same.append(first.read_bytes() == again.read_bytes())
        if not same[-1]:
            keep = Path(tempfile.gettempdir()) / f"rouge-tui-bench-differ-{case.key}"
            keep.mkdir(exist_ok=True)
            shutil.copy(first, keep / "first.json")
            shutil.copy(again, keep / "no-cache.json")
            print(f"\n{case.key}: first report and --no-cache differ; both kept in {keep}", file=sys.stderr)
        return sample
    finally:
        drop(home)


def check_floor(case: Case, tree: Path) -> str:
    """The floor's two means against the report's, exactly."""
    means = json.loads(subprocess_out(case.floor))
    home = fresh_home()
    try:
        suite = view(case.root, case.pair, home / "suite")
        argv, env = report_argv(tree, suite, "--no-cache", *case.flags)
        data = json.loads(subprocess_out(argv, {**env, **state_env(home)}))
    finally:
        drop(home)
    ours = [data["baseline"]["mean"], data["candidate"]["mean"]]
    return "means equal" if ours == means else f"DIFFER: report {ours}, floor {means}"


def subprocess_out(argv: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    if done.returncode not in OK:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr[-800:]}")
    return done.stdout


def verdict(ratio: float, budget: float) -> str:
    return "ok" if ratio <= budget else "OVER"


def measure(case: Case, sources: list[tuple[str, Path]], runs: int) -> None:
    print(f"\n{case.title}  ({case.root})", flush=True)
    for _, tree in sources:  # untimed: page cache, .pyc files
        cold(tree, case)
    floor: list[Sample] = []
    got: dict[tuple[str, str], list[Sample]] = {}
    twins: dict[str, list[Sample]] = {label: [] for label, _ in sources}
    same: dict[str, list[bool]] = {label: [] for label, _ in sources}
    for _ in range(runs):
        floor.append(run_once(case.floor))
        for label, tree in sources:
            got.setdefault(("cold", label), []).append(cold(tree, case))
            first, again = opened(tree, case)
            got.setdefault(("first", label), []).append(first)
            got.setdefault(("again", label), []).append(again)
            if case.new is not None:
                got.setdefault(("changed", label), []).append(changed(tree, case, twins[label], same[label]))
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    rows = [["floor.py", "", seconds(floor), seconds(floor, "cpu"), megabytes(floor), "1.00x", "",
             check_floor(case, sources[0][1])]]
    for label, _ in sources:
        samples = got[("cold", label)]
        wall, cpu = paired(samples, floor), paired(samples, floor, "cpu")
        memory = "" if med(samples, "rss_mb") <= med(floor, "rss_mb") else ", memory over the floor's"
        rows.append([label, "cold (--no-cache)", seconds(samples), seconds(samples, "cpu"), megabytes(samples),
                     f"{wall:.2f}x floor ({cpu:.2f}x cpu)", f"<= {case.cold_budget:.1f}x floor",
                     verdict(wall, case.cold_budget) + memory])
        first = got[("first", label)]
        share = paired(first, samples)
        rows.append([label, "first open (cache on)", seconds(first), seconds(first, "cpu"), megabytes(first),
                     f"{share:.2f}x cold", "<= 1.1x cold", verdict(share, 1.1)])
        again = got[("again", label)]
        rows.append([label, "reopened", seconds(again), seconds(again, "cpu"), megabytes(again),
                     f"{paired(again, samples):.2f}x cold", "", ""])
        if case.new is not None:
            new = got[("changed", label)]
            share = paired(new, twins[label])
            agree = "same bytes" if all(same[label]) else f"DIFFER ({same[label].count(False)}/{len(same[label])})"
            rows.append([label, f"new build, {CHANGED:.0%} changed", seconds(new), seconds(new, "cpu"),
                         megabytes(new), f"{share:.2f}x its cold", "<= 0.35x cold", f"{verdict(share, 0.35)}, {agree}"])
            rows.append([label, "  its --no-cache twin", seconds(twins[label]), seconds(twins[label], "cpu"),
                         megabytes(twins[label]), "", "", ""])
    print_table(["tree", "run", "wall median (range)", "cpu", "peak RSS", "ratio", "budget", "check"], rows)
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="also 1,000,000 x ~40 words (generated once, ~2 min)")
    parser.add_argument("--work", type=Path, default=BENCH_DIR, help="where generated suites are kept")
    parser.add_argument("--cnndm", type=Path, default=CNNDM, help="the real CNN/DM suite")
    parser.add_argument("--floor", type=Path, default=FLOOR, help="SPEC's floor script (needs polars)")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    parser.add_argument("--only", help="only the suites whose key (cnndm, 5k, 100k, 100k-all, 1m) contains this")
    args = parser.parse_args()
    if not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no floor script (--floor)")
    args.work.mkdir(parents=True, exist_ok=True)
    sources = trees(args.against)
    print(f"machine: {machine_note()}; medians of {args.runs} runs, the floor and each tree in turn")
    for case in cases(args):
        measure(case, sources, args.runs)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
