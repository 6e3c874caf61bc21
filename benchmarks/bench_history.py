"""The suite's history: 30 nightly builds of 10,000 examples, then one more.

    python benchmarks/bench_history.py --runs 3
    python benchmarks/bench_history.py --runs 3 --examples 10000 --builds 30 --no-app

The suite is make_suite.py's ``--builds 31`` (each nightly build repeats the one before
except 10% of its outputs and a fixed 2% of volatile examples), generated once into
$TMPDIR/rouge-tui-bench; a view of its first --builds builds stands for the suite before
the last night. In a fresh state directory, each run times, whole process:

- ``report SUITE --history --format json`` with an empty cache (every build scored);
- the last build added, the same command again with the cache warm;
- beside them, ``report SUITE --format json`` with an empty cache (no ``--history``: the
  two compared builds, and the five before the baseline the volatile signal looks at);
- ``report SUITE --history`` again, in a cache that holds only another suite's scores
  (--other examples, two builds, the same scoring setting): every build of this suite is
  scored and kept as its own table beside the other suite's.

Then the app (tmux, --size): opened on the suite before the last night in a fresh state
directory, settled, ``h`` pressed: the time from the key to the end of the first frame
showing the history's figures (the candidate's line with its n, mean and band); and the
same after the last build is added (cache warm from the first session). The first frame
of each of those opens is given too, and the time from the spawn to the first frame whose
overview history line shows its figures ("N builds", where it said "scoring every
build…"): the overview scores every build in the background while the app settles, so
by the time ``h`` is pressed the cold scoring is done, and only this row shows it.

Issue 14 asks for the history view to open "within the app's budgets"; they are printed
beside: the first frame of a 100,000-example suite in < 1.5 s cold and < 0.7 s cached.
Trees whose report has no ``--history`` (the code before the rebuild) are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    drop,
    fresh_home,
    machine_note,
    print_table,
    rouge_tui,
    run_once,
    seconds,
    state_env,
    synthetic,
    trees,
    view,
)
from _terminal import Terminal
from make_suite import build_names

OK = (0, 1)
APP_BUDGETS = (1.5, 0.7)


def has_history(tree: Path) -> bool:
    prefix, env = rouge_tui(tree)
    done = subprocess.run([*prefix, "report", "--help"], env={**os.environ, **env}, capture_output=True, text=True, check=False)
    return "--history" in done.stdout


def report_json(tree: Path, suite: Path, home: Path, *flags: str) -> dict:
    prefix, env = rouge_tui(tree)
    done = subprocess.run([*prefix, "report", str(suite), "--format", "json", *flags],
                          env={**os.environ, **env, **state_env(home)}, capture_output=True, text=True, check=False)
    if done.returncode not in OK:
        raise SystemExit(f"report failed: {done.stderr[-800:]}")
    return json.loads(done.stdout)


def history_line(data: dict) -> str:
    """The figures the history view shows on the candidate's line (HistoryScreen.line)."""
    last = data["history"][-1]
    return f"{last['runs']:>4} {last['n']:>7} {last['mean']:.4f} ["


def reports(tree: Path, root: Path, names: list[str], home: Path, other_suite: Path) -> dict[str, object]:
    prefix, env = rouge_tui(tree)
    env.update(state_env(home))
    suite = view(root, names[:-1], home / "suite")
    argv = [*prefix, "report", str(suite), "--history", "--format", "json"]
    cold = run_once(argv, env, OK)
    os.symlink(root / "builds" / names[-1], suite / "builds" / names[-1])
    added = run_once(argv, env, OK)
    other = fresh_home()
    plain = run_once([*prefix, "report", str(suite), "--format", "json"], {**env, **state_env(other)}, OK)
    drop(other)
    os.unlink(suite / "builds" / names[-1])
    other = fresh_home()
    run_once([*prefix, "report", str(other_suite), "--format", "json"], {**env, **state_env(other)}, OK)
    full = run_once(argv, {**env, **state_env(other)}, OK)
    drop(other)
    return {"cold": cold, "added": added, "plain": plain, "other": full}


def trend_line(builds: int) -> re.Pattern[bytes]:
    """What the overview's history line shows once every build is scored (Overview.trend_line):
    "N builds", after two spaces or at the start of a line of its own (a long history wraps
    it at 80 columns), never the title's ", N builds"."""
    return re.compile(rb"(?<!, )(?<!\d)%d builds" % builds)


def app_history(tree: Path, root: Path, names: list[str], home: Path, size: tuple[int, int]) -> dict[str, float]:
    """The overview's history line and h in the app, cache cold (the suite before the last
    night) and warm (after it)."""
    prefix, env = rouge_tui(tree)
    env.update(state_env(home))
    suite = view(root, names[:-1], home / "suite")
    out = {}
    for kind in ("cold", "added"):
        if kind == "added":
            os.symlink(root / "builds" / names[-1], suite / "builds" / names[-1])
        scratch = fresh_home()
        data = report_json(tree, suite, scratch, "--history", "--top", "1", "--no-cache")
        drop(scratch)
        with Terminal(*size) as term:
            term.start([*prefix, str(suite)], env)
            start = term.go()
            out[f"open {kind}"] = term.frame_with(data["top"][0]["id"], 0) - start
            out[f"trend {kind}"] = term.frame_with(trend_line(len(data["history"])), 0) - start
            term.settle()
            since = term.position()
            pressed = term.key("h")
            out[f"h {kind}"] = term.frame_with(history_line(data), since) - pressed
            if history_line(data) not in term.screen():
                raise RuntimeError(f"the history is not on the screen:\n{term.screen()}")
            term.settle(0.3)
            term.stop()
    return out


def stat(values: list[float]) -> str:
    middle, low, high = statistics.median(values), min(values), max(values)
    if high < 1:
        return f"{middle * 1e3:.0f} ms ({low * 1e3:.0f}-{high * 1e3:.0f})"
    return f"{middle:.2f} s ({low:.2f}-{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--words", type=int, default=40)
    parser.add_argument("--builds", type=int, default=30, help="builds before the one added")
    parser.add_argument("--other", type=int, default=100_000, help="examples of the suite whose scores fill the cache first")
    parser.add_argument("--size", default="80x24", help="the app's terminal size (WxH)")
    parser.add_argument("--no-app", action="store_true", help="only the report figures")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    args = parser.parse_args()
    sources = [(label, tree) for label, tree in trees(args.against) if has_history(tree)]
    for label, tree in trees(args.against):
        if (label, tree) not in sources:
            print(f"({label}: its report has no --history; skipped)", file=sys.stderr)
    size = tuple(int(x) for x in args.size.lower().split("x"))
    root = synthetic(args.examples, args.words, builds=args.builds + 1)
    other_suite = synthetic(args.other, args.words)
    names = [f"{n}.jsonl" for n in build_names(args.builds + 1)]
    print(f"machine: {machine_note()}; {args.builds} builds of {args.examples:,} x ~{args.words} words, then one more; "
          f"medians of {args.runs} runs, trees in turn")

    got: dict[tuple[str, str], list] = {}
    for _ in range(args.runs):
        for label, tree in sources:
            home = fresh_home()
            try:
                for kind, sample in reports(tree, root, names, home, other_suite).items():
                    got.setdefault((label, kind), []).append(sample)
            finally:
                drop(home)
            if not args.no_app:
                home = fresh_home()
                try:
                    for kind, value in app_history(tree, root, names, home, size).items():
                        got.setdefault((label, kind), []).append(value)
                finally:
                    drop(home)
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    rows = []
    for label, _ in sources:
        for kind, what in (("cold", f"report --history, {args.builds} builds, empty cache"),
                           ("added", f"report --history, build {args.builds + 1} added, cache warm"),
                           ("plain", "report (no --history), empty cache"),
                           ("other", f"report --history, {args.builds} builds, another suite's cache")):
            samples = got[(label, kind)]
            rows.append([label, what, seconds(samples), seconds(samples, "cpu"), f"{statistics.median(s.rss_mb for s in samples):.0f} MB", ""])
        if not args.no_app:
            for kind, what, budget in (("open cold", "app: first frame, empty cache", None),
                                       ("trend cold", "app: spawn to the overview's history figures, empty cache", APP_BUDGETS[0]),
                                       ("h cold", "app: h to the history's figures, cache as the open left it", APP_BUDGETS[0]),
                                       ("open added", f"app: first frame, build {args.builds + 1} added (a new pair)", None),
                                       ("trend added", f"app: spawn to the history figures, build {args.builds + 1} added", None),
                                       ("h added", f"app: h, build {args.builds + 1} added, cache warm", APP_BUDGETS[1])):
                values = got[(label, kind)]
                check = "" if budget is None else f"< {budget:g} s: " + ("ok" if statistics.median(values) < budget else "OVER")
                rows.append([label, what, stat(values), "", "", check])
    print_table(["tree", "what", "wall median (range)", "cpu", "peak RSS", "app budget"], rows)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
