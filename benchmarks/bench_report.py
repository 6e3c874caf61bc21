"""Whole-process `rouge-tui report SUITE --format json` on the budget suites: cold, cached,
and the first report of a new build in which 5% of the outputs changed.

    python benchmarks/bench_report.py --runs 5                    # CNN/DM, 5k x 500, 100k x 40
    python benchmarks/bench_report.py --runs 3 --big              # and 1,000,000 x 40
    python benchmarks/bench_report.py --runs 5 --against /work/old --only cnndm

Suites: the real CNN/DM suite (its suite.toml: rougeLsum, rouge-score tokenizer, stemming;
builds 2 and 3 compared), and synthetic suites made by make_suite.py (``--changed 0.05``)
into $TMPDIR/rouge-tui-bench once and reused. For each suite and each tree, in turn:

- cold: ``--no-cache``, in a fresh state directory;
- cached: a second run with the cache on (the first, untimed, fills it);
- first open, nightly: the new build's pair alone (the last earlier build and the 5%-changed
  one), its first report with an empty cache beside its ``--no-cache`` twin, in turn: what a
  user pays for the cache on a suite never seen (SPEC: <= 1.1x the twin);
- 5% changed: in a fresh cache, the nightly job's reports of the earlier builds (each
  consecutive pair, untimed) warm it; then a new build is added that repeats the last one
  except 5% of its outputs (make_suite's ``--changed 0.05``; for CNN/DM, 5% of build 3's
  outputs replaced by build 1's), and the first report of it is timed, then a
  ``--no-cache`` report of the same suite beside it: the ratio is first / no-cache of the
  same run, and the two must print the same bytes.

The anchor is `ANCHOR`, the 20-line script a user could write on rouge-score-rs: read the
references and both builds, score them, print the two means. For CNN/DM (gzip JSON Lines)
rougeLsum with stemming, and its means must equal the report's; for the synthetic suites
rougeL with rouge-score-rs's own tokenizer (it has no whitespace tokenizer: the least work an
exact scorer of these builds can do, with no grounding, signals or checks), and its means
must equal a report's with ``--tokenizer rouge-score``. Figures are medians of --runs runs with their
range; CPU is user + sys of the process and what it waited for; RSS the largest process's
peak. The budgets (SPEC "Budgets") are printed beside each figure.
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

# The anchor (argv: suite, metric, "stem" or "-", build names): plain or gzip JSON Lines.
ANCHOR = r"""
import gzip, json, statistics, sys
from pathlib import Path
from rouge_score_rs import rouge_scorer
root, metric, stem, *names = Path(sys.argv[1]), *sys.argv[2:]
def read(stem_path, field):
    path = next(stem_path.parent.glob(stem_path.name + ".jsonl*"))
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt", encoding="utf-8") as handle:
        return {(r := json.loads(line))["id"]: r[field] for line in handle}
refs = read(root / "references", "reference")
scorer = rouge_scorer.RougeScorer([metric], use_stemmer=stem == "stem")
means = []
for name in names:
    outs = read(root / "builds" / name, "output")
    ids = [i for i in outs if i in refs]
    scores = scorer.score_batch([refs[i] for i in ids], [outs[i] for i in ids])
    means.append(statistics.fmean(s[metric].fmeasure for s in scores))
print(json.dumps(means))
"""


@dataclass
class Case:
    """One budget suite: where it is, which builds come before the new one, its budgets."""

    key: str
    title: str
    root: Path
    earlier: list[str]  # build file names (with extension) compared cold and cached
    new: Callable[[Path], None]  # writes the 5%-changed build into a view's builds/
    budget_s: float
    budget_mb: float | None
    anchor: list[str] | None = None  # the anchor's argv
    anchor_flags: list[str] = field(default_factory=list)  # of the report its means must equal
    rows: list[list[str]] = field(default_factory=list)


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
            "cnndm", "CNN/DM, 11,490 x 2 builds, rougeLsum, stemming", args.cnndm, names,
            cnndm_new_build(args.cnndm), 1.0, 300.0,
            anchor=[sys.executable, "-c", ANCHOR, str(args.cnndm), "rougeLsum", "stem", "2-pointer-gen", "3-pointer-gen-cov"],
        ))
    else:
        print(f"({args.cnndm}: not found, CNN/DM skipped)", file=sys.stderr)
    sizes = [("5k", 5000, 500, 1.0, None), ("100k", 100_000, 40, 1.5, 250.0)]
    if args.big:
        sizes.append(("1m", 1_000_000, 40, 8.0, 1200.0))
    for key, examples, words, budget_s, budget_mb in sizes:
        if args.only and args.only not in key:
            continue
        root = synthetic(examples, words, changed=CHANGED, work=args.work)
        first, second, new = (f"{n}.jsonl" for n in build_names(2, CHANGED))

        def link_new(builds: Path, root: Path = root, new: str = new) -> None:
            os.symlink(root / "builds" / new, builds / new)

        names = [n.split(".")[0] for n in (first, second)]
        out.append(Case(key, f"{examples:,} x ~{words} words, 2 builds, rougeL", root, [first, second],
                        link_new, budget_s, budget_mb,
                        anchor=[sys.executable, "-c", ANCHOR, str(root), "rougeL", "-", *names],
                        anchor_flags=["--baseline", names[0], "--candidate", names[1], "--tokenizer", "rouge-score"]))
    return [c for c in out if not args.only or args.only in c.key]


def report_argv(tree: Path, suite: Path, *flags: str) -> tuple[list[str], dict[str, str]]:
    prefix, env = rouge_tui(tree)
    return [*prefix, "report", str(suite), "--format", "json", *flags], env


OK = (0, 1)  # report exits 1 on drift: a verdict, not a failure


def cold(tree: Path, case: Case) -> Sample:
    home = fresh_home()
    try:
        with tempfile.TemporaryDirectory(dir=home) as tmp:
            suite = view(case.root, case.earlier[-2:], Path(tmp) / "suite")
            argv, env = report_argv(tree, suite, "--no-cache")
            return run_once(argv, {**env, **state_env(home)}, OK)
    finally:
        drop(home)


def cached(tree: Path, case: Case) -> Sample:
    home = fresh_home()
    try:
        suite = view(case.root, case.earlier[-2:], home / "suite")
        argv, env = report_argv(tree, suite)
        env.update(state_env(home))
        run_once(argv, env, OK)  # fills the cache
        return run_once(argv, env, OK)
    finally:
        drop(home)


def first_open(tree: Path, case: Case, beside: list[Sample]) -> Sample:
    """The nightly pair's first report with an empty cache; its --no-cache twin (in a fresh
    state directory too) goes to ``beside``."""
    home = fresh_home()
    try:
        suite = view(case.root, case.earlier[-1:], home / "suite")
        case.new(suite / "builds")
        argv, env = report_argv(tree, suite)
        sample = run_once(argv, {**env, **state_env(home / "on")}, OK)
        beside.append(run_once([*argv, "--no-cache"], {**env, **state_env(home / "off")}, OK))
        return sample
    finally:
        drop(home)


def changed(tree: Path, case: Case, beside: list[Sample], same: list[bool]) -> Sample:
    """The first report of the new build, the cache warm on the earlier ones; its
    --no-cache twin goes to ``beside``, and whether their bytes agree to ``same``."""
    home = fresh_home()
    try:
        suite = view(case.root, case.earlier, home / "suite")
        names = [n.split(".")[0] for n in case.earlier]
        env = {**rouge_tui(tree)[1], **state_env(home)}
        for a, b in itertools.pairwise(names):  # the nightly job's reports so far
            run_once(report_argv(tree, suite, "--baseline", a, "--candidate", b)[0], env, OK)
        case.new(suite / "builds")
        first, again = home / "first.json", home / "no-cache.json"
        sample = run_once(report_argv(tree, suite)[0], env, OK, stdout=first)
        other = fresh_home()
        beside.append(run_once(report_argv(tree, suite, "--no-cache")[0], {**env, **state_env(other)}, OK, stdout=again))
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


def check_anchor(case: Case, tree: Path) -> str:
    """The anchor's two means against the report's, exactly."""
    done = subprocess_out(case.anchor)
    means = json.loads(done)
    argv, env = report_argv(tree, case.root, "--no-cache", *case.anchor_flags)
    home = fresh_home()
    data = json.loads(subprocess_out(argv, {**env, **state_env(home)}))
    drop(home)
    ours = [data["baseline"]["mean"], data["candidate"]["mean"]]
    return "equal" if ours == means else f"DIFFER: report {ours}, anchor {means}"


def subprocess_out(argv: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    if done.returncode not in OK:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr[-800:]}")
    return done.stdout


def measure(case: Case, sources: list[tuple[str, Path]], runs: int) -> None:
    print(f"\n{case.title}  ({case.root})", flush=True)
    for _, tree in sources:  # untimed: page cache, .pyc files
        cold(tree, case)
    got: dict[tuple[str, str], list[Sample]] = {}
    twins: dict[str, list[Sample]] = {label: [] for label, _ in sources}
    open_twins: dict[str, list[Sample]] = {label: [] for label, _ in sources}
    same: dict[str, list[bool]] = {label: [] for label, _ in sources}
    for _ in range(runs):
        if case.anchor:
            got.setdefault(("anchor", ""), []).append(run_once(case.anchor))
        for label, tree in sources:
            got.setdefault(("cold", label), []).append(cold(tree, case))
        for label, tree in sources:
            got.setdefault(("cached", label), []).append(cached(tree, case))
        for label, tree in sources:
            got.setdefault(("first", label), []).append(first_open(tree, case, open_twins[label]))
        for label, tree in sources:
            got.setdefault(("changed", label), []).append(changed(tree, case, twins[label], same[label]))
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    this = sources[0][0]
    budget_cold = f"< {case.budget_s:g} s" + (f", < {case.budget_mb:g} MB" if case.budget_mb else "")
    rows = []
    if case.anchor:
        anchor = got[("anchor", "")]
        rows.append(["rouge-score-rs script", "cold", seconds(anchor), seconds(anchor, "cpu"),
                     megabytes(anchor), "1.00x anchor", "", check_anchor(case, sources[0][1])])
    for label, _ in sources:
        samples = got[("cold", label)]
        ratio = f"{paired(samples, got[('anchor', '')]):.2f}x anchor" if case.anchor else (
            "" if label == this else f"{paired(samples, got[('cold', this)]):.2f}x this")
        over = med(samples) > case.budget_s or (case.budget_mb is not None and med(samples, "rss_mb") > case.budget_mb)
        rows.append([label, "cold (--no-cache)", seconds(samples), seconds(samples, "cpu"), megabytes(samples),
                     ratio, budget_cold, "OVER" if over else "ok"])
    for label, _ in sources:
        samples = got[("cached", label)]
        ratio = f"{paired(samples, got[('cold', label)]):.2f}x cold"
        rows.append([label, "cached (2nd run)", seconds(samples), seconds(samples, "cpu"), megabytes(samples),
                     ratio, "", ""])
    for label, _ in sources:
        samples = got[("first", label)]
        ratio = paired(samples, open_twins[label])
        rows.append([label, "nightly first open (empty cache)", seconds(samples), seconds(samples, "cpu"),
                     megabytes(samples), f"{ratio:.2f}x its cold", "<= 1.1x cold", "ok" if ratio <= 1.1 else "OVER"])
        rows.append([label, "  its --no-cache twin", seconds(open_twins[label]), seconds(open_twins[label], "cpu"),
                     megabytes(open_twins[label]), "", "", ""])
    for label, _ in sources:
        samples = got[("changed", label)]
        share = paired(samples, twins[label])
        agree = "same bytes" if all(same[label]) else f"DIFFER ({same[label].count(False)}/{len(same[label])})"
        rows.append([label, f"new build, {CHANGED:.0%} changed", seconds(samples), seconds(samples, "cpu"),
                     megabytes(samples), f"{share:.2f}x its cold", "<= 0.35x cold",
                     ("ok" if share <= 0.35 else "OVER") + f", {agree}"])
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
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    parser.add_argument("--only", help="only the suites whose key (cnndm, 5k, 100k, 1m) contains this")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sources = trees(args.against)
    print(f"machine: {machine_note()}; medians of {args.runs} runs, trees and anchor in turn")
    for case in cases(args):
        measure(case, sources, args.runs)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
