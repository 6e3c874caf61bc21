"""The app in a real terminal (tmux): the first frame of a big suite, and opening a diff.

    python benchmarks/bench_app.py --runs 3                      # 100,000 x ~40 words
    python benchmarks/bench_app.py --runs 3 --big                # and 1,000,000 x ~40 words
    python benchmarks/bench_app.py --runs 3 --against /work/old
    python benchmarks/bench_app.py --only diff --diff-metric rougeL --diff-metric rougeLsum

Opening (``rouge-tui SUITE`` at --open-size, default 80x24): from spawning the process to
the end of the first frame that shows the most-moved example (its id, found by a
``rouge-tui report --top 1 --no-cache`` of this tree), on the first open (an empty cache)
and reopened (the second start, same state directory); "settled" is when the app then stops using CPU (texts read,
everything drawn); the peak RSS is the largest process's (the app, and anything it forked
and waited for) over the whole session, read after ``q``. The suite is make_suite.py's
(its first two builds, every output changed), generated once into $TMPDIR/rouge-tui-bench.

Diff (120x40 and 80x24): a small suite whose top example has a 2,000-word reference and
two 2,000-word outputs; in each app session, after it has settled, ``enter`` opens the
diff (timed from the key to the end of the first frame showing the baseline's first word)
and ``escape`` closes it, --opens times. The session's first open (it also imports the
diff's modules) is given apart from the median of the others.

Each round (the floor, then one session per tree; --runs rounds) first runs SPEC's floor
script (``--floor``, /work/shared/bench/floor.py: a columnar reader, a join, rouge-score-rs
over both builds, two means) on the same pair, as SPEC has it, with its defaults (rougeL,
rouge-score's tokenizer; the app scores with the suite's settings, the whitespace tokenizer
here); the floor runs once untimed before the rounds, as each tree's report does. Trees
alternate session by session (A B A B ...). See _terminal.py for how frames and keys are
timed. Budgets (SPEC "Budgets"): the first open (an empty cache) <= 1.5x the floor, its
ratio the median of the round-by-round ratios, at 100k and at 1M; reopened < 0.5 s (100k),
< 1.5 s (1M); peak memory < 400 MB (100k), < 1.5 GB (1M), decimal units, where the tables
print MiB; the diff < 50 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    Sample,
    drop,
    fresh_home,
    machine_note,
    med,
    print_table,
    rouge_tui,
    run_once,
    state_env,
    synthetic,
    trees,
    view,
)
from _terminal import Terminal
from make_suite import _edit, _sentences, _vocabulary, build_names

FLOOR = Path("/work/shared/bench/floor.py")
OPEN_BUDGETS = {  # examples: (first open / the floor, reopened s, peak bytes)
    100_000: (1.5, 0.5, 400e6),
    1_000_000: (1.5, 1.5, 1.5e9),
}
DIFF_BUDGET = 0.050
BASE_WORD, CAND_WORD = "zqbaseline", "zqcandidate"  # first words of the long outputs
TOP = "long-00"


def most_moved(tree: Path, suite: Path) -> str:
    prefix, env = rouge_tui(tree)
    home = fresh_home()
    done = subprocess.run([*prefix, "report", str(suite), "--format", "json", "--top", "1", "--no-cache"],
                          env={**env, **state_env(home)}, capture_output=True, text=True, check=False)
    drop(home)
    if done.returncode not in (0, 1):
        raise SystemExit(f"report failed: {done.stderr[-800:]}")
    return json.loads(done.stdout)["top"][0]["id"]


def session(tree: Path, suite: Path, home: Path, size: tuple[int, int]) -> tuple[Terminal, float]:
    """A started app (its clock released); returns the terminal and its start moment."""
    prefix, env = rouge_tui(tree)
    term = Terminal(*size)
    term.start([*prefix, str(suite)], {**env, **state_env(home)})
    return term, term.go()


def open_once(tree: Path, suite: Path, home: Path, size: tuple[int, int], expected: str) -> dict[str, float]:
    term, start = session(tree, suite, home, size)
    with term:
        frame = term.frame_with(expected, 0)
        if expected not in term.screen():
            raise RuntimeError(f"the first frame with {expected!r} is not on the screen:\n{term.screen()}")
        settled = term.settle()
        info = term.stop()
    return {"first": frame - start, "settled": settled - start, "rss_mb": info["rss_mb"], "cpu": info["cpu"]}


def stat(values: list[float], unit: str = "s") -> str:
    if not values:
        return "-"
    middle, low, high = statistics.median(values), min(values), max(values)
    if unit == "ms":
        return f"{middle * 1e3:.0f} ms ({low * 1e3:.0f}-{high * 1e3:.0f})"
    return f"{middle:.2f} s ({low:.2f}-{high:.2f})"


def bench_open(examples: int, sources: list[tuple[str, Path]], runs: int, size: tuple[int, int],
               floor_script: Path) -> None:
    root = synthetic(examples, 40, changed=0.05)
    with tempfile.TemporaryDirectory(prefix="rouge-tui-bench-app-") as tmp:
        pair = build_names(2)
        suite = view(root, [f"{n}.jsonl" for n in pair], Path(tmp) / "suite")
        floor: list[Sample] = []
        expected = most_moved(sources[0][1], suite)
        for label, tree in sources[1:]:
            theirs = most_moved(tree, suite)
            if theirs != expected:
                print(f"note: {label} ranks {theirs!r} first, this tree {expected!r}", file=sys.stderr)
        got: dict[tuple[str, str], list[dict[str, float]]] = {}
        floor_argv = [sys.executable, str(floor_script), str(suite), *pair]
        run_once(floor_argv)  # untimed: polars' first import, the page cache
        for _ in range(runs):
            floor.append(run_once(floor_argv))
            for label, tree in sources:
                home = fresh_home()
                try:
                    for kind in ("first open", "reopened"):
                        got.setdefault((label, kind), []).append(open_once(tree, suite, home, size, expected))
                finally:
                    drop(home)
            print(".", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    open_ratio, reopened_s, budget_bytes = OPEN_BUDGETS[examples]
    budget_mib = budget_bytes / 2**20
    floor_wall = [sample.wall for sample in floor]
    rows = [["floor.py", "", stat(floor_wall), "", f"{med(floor, 'rss_mb'):.0f} MB",
             f"{med(floor, 'cpu'):.2f} s", "1.00x", "", ""]]
    this = sources[0][0]
    for label, _ in sources:
        for kind in ("first open", "reopened"):
            runs_ = got[(label, kind)]
            first = [r["first"] for r in runs_]
            rss = statistics.median(r["rss_mb"] for r in runs_)
            if kind == "first open":  # to the floor, round by round
                ratio = statistics.median(a / b for a, b in zip(first, floor_wall))
                shown, budget, over = f"{ratio:.2f}x floor", f"<= {open_ratio:g}x floor", ratio > open_ratio
            else:
                shown, budget, over = "", f"< {reopened_s:g} s", statistics.median(first) > reopened_s
            if label != this:
                mine = [r["first"] for r in got[(this, kind)]]
                shown += f"{', ' if shown else ''}{statistics.median(a / b for a, b in zip(first, mine)):.2f}x this"
            over = over or rss > budget_mib
            rows.append([label, kind, stat(first), stat([r["settled"] for r in runs_]), f"{rss:.0f} MB",
                         f"{statistics.median(r['cpu'] for r in runs_):.2f} s", shown,
                         f"{budget}, < {budget_mib:,.1f} MB", "OVER" if over else "ok"])
    print(f"\napp, {examples:,} x ~40 words at {size[0]}x{size[1]}: spawn to the first frame showing {expected!r} "
          f"(MB: MiB; the floor: {' '.join(pair)})")
    print_table(["tree", "start", "first frame", "settled", "peak RSS", "cpu", "ratio", "budget", "check"], rows)
    sys.stdout.flush()


def write_diff_suite(root: Path, metric: str, words: int = 2000, short: int = 30) -> Path:
    """One example with a ``words``-word reference and two ``words``-word outputs (edits of
    it; the candidate much further off, so it is the most-moved), and ``short`` examples of
    ~40 words that barely move. Deterministic."""
    rng = random.Random(2000)
    vocab, weights = _vocabulary(rng)
    suite = root / f"diff-suite-{metric}"
    (suite / "builds").mkdir(parents=True)

    def exactly(source: list[str], rate: float) -> list[str]:
        out = _edit(rng, source, vocab, weights, rate)
        while len(out) < words:
            out.append(rng.choices(vocab, cum_weights=weights)[0])
        return out[:words]

    reference = rng.choices(vocab, cum_weights=weights, k=words)
    rows = {"references": [], "a-baseline": [], "b-candidate": []}
    rows["references"].append({"id": TOP, "reference": _sentences(rng, reference)})
    rows["a-baseline"].append({"id": TOP, "output": BASE_WORD + " " + _sentences(rng, exactly(reference, 0.3)[1:])})
    rows["b-candidate"].append({"id": TOP, "output": CAND_WORD + " " + _sentences(rng, exactly(reference, 0.9)[1:])})
    for index in range(1, short + 1):
        ref = rng.choices(vocab, cum_weights=weights, k=40)
        base = _edit(rng, ref, vocab, weights, 0.3)
        key = f"short-{index:02d}"
        rows["references"].append({"id": key, "reference": _sentences(rng, ref)})
        rows["a-baseline"].append({"id": key, "output": _sentences(rng, base)})
        rows["b-candidate"].append({"id": key, "output": _sentences(rng, _edit(rng, base, vocab, weights, 0.02))})
    for name, records in rows.items():
        path = suite / ("references.jsonl" if name == "references" else f"builds/{name}.jsonl")
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (suite / "suite.toml").write_text(f'name = "diff bench"\nmetric = "{metric}"\n', encoding="utf-8")
    return suite


def diff_session(tree: Path, suite: Path, size: tuple[int, int], opens: int) -> list[float]:
    """Seconds from ``enter`` to the first frame of the diff, for each of ``opens`` + 1 opens."""
    home = fresh_home()
    times = []
    try:
        term, _ = session(tree, suite, home, size)
        with term:
            term.frame_with(TOP, 0)
            term.settle(0.3)
            for _ in range(opens + 1):
                since = term.position()
                pressed = term.key("Enter")
                shown = term.frame_with(BASE_WORD, since, timeout=60)
                times.append(shown - pressed)
                if BASE_WORD not in term.screen():
                    raise RuntimeError(f"the diff is not on the screen:\n{term.screen()}")
                term.settle(0.3)
                since = term.position()
                term.key("Escape")
                term.frame_with("# id", since, timeout=60)
                term.settle(0.3)
            term.stop()
    finally:
        drop(home)
    return times


def bench_diff(sources: list[tuple[str, Path]], runs: int, opens: int, metrics: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="rouge-tui-bench-diff-") as tmp:
        rows = []
        for metric in metrics:
            suite = write_diff_suite(Path(tmp), metric)
            top = most_moved(sources[0][1], suite)
            if top != TOP:
                raise SystemExit(f"the diff suite's top example is {top!r}, not {TOP!r}")
            for size in ((120, 40), (80, 24)):
                got: dict[str, list[list[float]]] = {label: [] for label, _ in sources}
                for _ in range(runs):
                    for label, tree in sources:
                        got[label].append(diff_session(tree, suite, size, opens))
                    print(".", end="", file=sys.stderr, flush=True)
                print(file=sys.stderr)
                for label, _ in sources:
                    first = [s[0] for s in got[label]]
                    rest = [t for s in got[label] for t in s[1:]]
                    over = statistics.median(rest) > DIFF_BUDGET
                    rows.append([label, metric, f"{size[0]}x{size[1]}", stat(first, "ms"), stat(rest, "ms"),
                                 f"< {DIFF_BUDGET * 1e3:.0f} ms", "OVER" if over else "ok"])
    print(f"\ndiff of two 2,000-word outputs and a 2,000-word reference: enter to the first frame "
          f"showing it ({runs} sessions x {opens + 1} opens)")
    print_table(["tree", "metric", "size", "first open", "later opens", "budget", "check"], rows)
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="sessions per tree and measurement")
    parser.add_argument("--big", action="store_true", help="also the 1,000,000-example suite (generated once)")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    parser.add_argument("--only", choices=("open", "diff"))
    parser.add_argument("--open-size", default="80x24", help="terminal size for the opens (WxH)")
    parser.add_argument("--opens", type=int, default=5, help="diff opens per session after the first")
    parser.add_argument("--diff-metric", action="append", choices=("rouge1", "rouge2", "rougeL", "rougeLsum"),
                        help="the diff suite's metric (repeatable; default rougeL)")
    parser.add_argument("--floor", type=Path, default=FLOOR, help="SPEC's floor script (needs polars)")
    args = parser.parse_args()
    if args.only != "diff" and not args.floor.is_file():
        raise SystemExit(f"{args.floor}: no floor script (--floor)")
    sources = trees(args.against)
    size = tuple(int(x) for x in args.open_size.lower().split("x"))
    print(f"machine: {machine_note()}; medians (range) of {args.runs} sessions per tree, trees in turn")
    if args.only != "diff":
        bench_open(100_000, sources, args.runs, size, args.floor)
        if args.big:
            bench_open(1_000_000, sources, args.runs, size, args.floor)
    if args.only != "open":
        bench_diff(sources, args.runs, args.opens, args.diff_metric or ["rougeL"])
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
