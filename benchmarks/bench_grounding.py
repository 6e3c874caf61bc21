"""Grounding (what overlap cannot see) for every paired example, and for one example.

    python benchmarks/bench_grounding.py [--runs 5] [--sample 2000]
        [--cnndm ../shared/data/cnndm-pointer-gen] [--suite /tmp/s100k]
        [--pre /tmp/wt-pre-ground] [--process-runs 5]

The budget (SPEC "Budgets"): grounding for every paired example adds < 30 % to a cold
`report` (about 1 s on CNN/DM and 1.5 s on the 100k suite here: so < 0.3 s and < 0.45 s),
and the diff view, which grounds one example, opens within 50 ms.

Side by side, in this process, on the default pair of each suite (candidate = the last build
by name, baseline = the one before):

- the bulk path, `new_counts`, over every example;
- the plain reference, `ground_side` one example at a time, over a seeded sample of
  --sample examples, extrapolated to the whole suite (said so in the output);
- `ground` for one example of two 2,000-word outputs and a 2,000-word reference.

On CNN/DM and on a synthetic suite with sources (make_suite.py's texts, each reference
inside a source of --source-words words: CNN/DM's shape with its articles; made once in
$TMPDIR/rouge-tui-bench), the bulk path with the suites' sources, then whole processes, as
benchmarks/README.md says: `rouge-tui report SUITE --format json --no-cache` in fresh state,
in turn (A B C A B C ...), with grounding, with it stubbed out in this tree (new_counts,
copy_means and the report's top details made no-ops before the CLI runs: the same code
otherwise), and with --pre, the tree before grounding was wired in (`git worktree add
/tmp/wt-pre-ground 22e91ac^`; it also lacks what came after, e.g. the collector off for
report). The share grounding adds is the median of the run-by-run ratios, minus one.

Last, what the signals count on CNN/DM, per build: new sentences and new figures against
the references alone, and against the references and the build before (SPEC's signals).

Medians of --runs runs, with the spread (min-max), of the wall clock and of the CPU time this
process spent (steadier on a busy machine). The 100k suite is made with make_suite.py when
--suite does not exist. Suites are read with gzip and json, and only read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _measure import (
    BENCH_DIR,
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
)
from make_suite import _edit, _sentences, _vocabulary, write_suite

from rouge_tui.analysis.grounding import ground, ground_side
from rouge_tui.analysis.grounding_bulk import new_counts

CNNDM = ROOT.parent / "shared" / "data" / "cnndm-pointer-gen"


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_references(suite: Path) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The references and the sources (where given) by id."""
    refs, sources = {}, {}
    for row in read_jsonl(next(suite.glob("references.jsonl*"))):
        refs[row["id"]] = tuple(row["references"]) if "references" in row else (row["reference"],)
        if "source" in row:
            sources[row["id"]] = row["source"]
    return refs, sources


def read_pair(suite: Path) -> tuple[str, list[str], list[str], list[tuple[str, ...]], list[str | None]]:
    """The default pair's outputs, the references and sources, over the ids all three have."""
    refs, sources = read_references(suite)
    names = sorted(suite.glob("builds/*.jsonl*"), key=lambda p: p.name)
    base, cand = ({r["id"]: r["output"] for r in read_jsonl(p)} for p in names[-2:])
    ids = [i for i in cand if i in base and i in refs]
    label = f"{suite.name}: {names[-1].name.split('.')[0]} vs {names[-2].name.split('.')[0]}"
    return (label, [cand[i] for i in ids], [base[i] for i in ids], [refs[i] for i in ids],
            [sources.get(i) for i in ids])


def timed(work: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus


def show(values: list[float], scale: float = 1.0, unit: str = "s") -> str:
    values = [v * scale for v in values]
    digits = 3 if unit == "s" else 1
    return (f"{statistics.median(values):.{digits}f} {unit} "
            f"[{min(values):.{digits}f}-{max(values):.{digits}f}]")


def bench_suite(suite: Path, runs: int, sample: int) -> None:
    label, cand, base, refs, sources = read_pair(suite)
    n = len(cand)
    new_counts(cand, base, refs, sources)  # warm-up: imports, caches
    walls, cpus = timed(lambda: new_counts(cand, base, refs, sources), runs)
    chosen = sorted(random.Random(1).sample(range(n), min(sample, n)))

    plain_counts: dict[int, tuple[int, int]] = {}

    def plain() -> None:
        for i in chosen:
            side = ground_side(cand[i], refs[i], sources[i], base[i])
            plain_counts[i] = (len(side.new_sentences), len(side.new_figures))

    ref_walls, ref_cpus = timed(plain, max(1, runs // 2))
    scale = n / len(chosen)
    counts = new_counts(cand, base, refs, sources)
    same = all(plain_counts[i] == (counts[0][i], counts[1][i]) for i in chosen)
    with_source = sum(s is not None for s in sources)
    print(f"{label} ({n:,} paired examples, {with_source:,} with a source)")
    print(f"  new_counts, every example      wall {show(walls)}   cpu {show(cpus)}")
    print(f"  plain reference (ground_side)  wall {show(ref_walls, scale)}   cpu "
          f"{show(ref_cpus, scale)}   ({len(chosen):,} examples timed, x{scale:.1f})")
    print(f"  ratio, median wall             {statistics.median(ref_walls) * scale / statistics.median(walls):.1f}x")
    print(f"  the bulk counts equal the reference's on the {len(chosen):,} examples: {same}")
    print(f"  new sentences {int(counts[0].sum()):,} in {int((counts[0] > 0).sum()):,} examples; "
          f"new figures {int(counts[1].sum()):,} in {int((counts[1] > 0).sum()):,} examples")


def long_example(words: int) -> tuple[str, str, str]:
    """A reference and two outputs of about ``words`` words, as make_suite.py makes them."""
    rng = random.Random(7)
    vocab, weights = _vocabulary(rng)
    ref = rng.choices(vocab, cum_weights=weights, k=words)
    base = _edit(rng, ref, vocab, weights, 0.3)
    cand = _edit(rng, base, vocab, weights, 0.2)
    return tuple(_sentences(rng, w) for w in (ref, base, cand))


def sourced_suite(examples: int, words: int, source_words: int, work: Path = BENCH_DIR) -> Path:
    """make_suite.py's suite, each reference inside a source of about ``source_words`` words
    (made-up sentences before and after it), written once and reused."""
    path = work / f"suite-{examples}x{words}-sources{source_words}"
    if not (path / "suite.toml").exists():
        print(f"generating {path} (once) ...", file=sys.stderr, flush=True)
        part = work / f".{path.name}.part"
        shutil.rmtree(part, ignore_errors=True)
        write_suite(part, examples, words)
        rng = random.Random(3)
        vocab, weights = _vocabulary(random.Random(1))
        rows = read_jsonl(part / "references.jsonl")
        with open(part / "references.jsonl", "w", encoding="utf-8") as handle:
            for row in rows:
                before, after = (rng.choices(vocab, cum_weights=weights, k=source_words // 2) for _ in "ab")
                source = "\n".join([_sentences(rng, before), row["reference"], _sentences(rng, after)])
                handle.write(json.dumps({**row, "source": source}) + "\n")
        part.rename(path)
    return path


# This tree with grounding made a no-op: signals, build means and the report's top details.
STUBBED = r"""
import sys
import numpy as np
from rouge_tui.analysis import grounding, grounding_bulk, unseen
grounding_bulk.new_counts = lambda candidates, *a, **k: (*(np.zeros(len(candidates), np.int64),) * 2,
                                                         np.ones(len(candidates)))
grounding.copy_means = lambda builds, sources: [None] * len(builds)
unseen.details = lambda texts, ids, min_support, runs=None: [{} for _ in ids]
from rouge_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def cold_report(tree: Path, suite: Path, stubbed: bool = False):
    """One `report --format json --no-cache` of ``suite`` by ``tree``, in fresh state."""
    prefix, env = rouge_tui(tree)
    if stubbed:
        prefix = [sys.executable, "-P", "-c", STUBBED]
    home = fresh_home()
    try:
        argv = [*prefix, "report", str(suite), "--format", "json", "--no-cache"]
        return run_once(argv, {**env, **state_env(home)}, (0, 1))  # 1: drift, a verdict
    finally:
        drop(home)


def bench_process(label: str, suite: Path, runs: int, pre: Path | None) -> None:
    variants = {
        "grounding on (this tree)": lambda: cold_report(ROOT, suite),
        "grounding stubbed (this tree)": lambda: cold_report(ROOT, suite, stubbed=True),
    }
    if pre is not None:
        variants[f"before grounding ({pre})"] = lambda: cold_report(pre, suite)
    print(f"{label}: rouge-tui report --format json --no-cache, whole process", flush=True)
    got = alternate(variants, runs)
    on = got["grounding on (this tree)"]
    rows = []
    for name, samples in got.items():
        added = "" if samples is on else f"{paired(on, samples) - 1:+.0%} wall, {paired(on, samples, 'cpu') - 1:+.0%} cpu"
        rows.append([name, seconds(samples), seconds(samples, "cpu"), megabytes(samples), added])
    print_table(["variant", "wall median (range)", "cpu", "peak RSS", "grounding adds"], rows)


def cnndm_signal_counts(cnndm: Path) -> None:
    """New sentences / new figures of each build against the references, and against the
    references and the build before (SPEC's new-sentence and new-figure)."""
    refs, _ = read_references(cnndm)
    names = sorted(p.name.split(".")[0] for p in cnndm.glob("builds/*.jsonl*"))
    builds = {n: {r["id"]: r["output"] for r in read_jsonl(next(cnndm.glob(f"builds/{n}.jsonl*")))} for n in names}
    rows = []
    for k, name in enumerate(names):
        ids = [i for i in builds[name] if i in refs and all(i in b for b in builds.values())]
        cand = [builds[name][i] for i in ids]
        against = [("the references", [""] * len(ids))]  # an empty baseline has no sentence
        if k:
            against.append((f"references + {names[k - 1]}", [builds[names[k - 1]][i] for i in ids]))
        for what, base in against:
            sent, fig = new_counts(cand, base, [refs[i] for i in ids])
            rows.append([name, what, f"{int(sent.sum()):,}", f"{int((sent > 0).sum()):,}",
                         f"{int(fig.sum()):,}", f"{int((fig > 0).sum()):,}", f"{len(ids):,}"])
    print("CNN/DM, what the signals count (no sources in this suite)")
    print_table(["build", "against", "new sentences", "in outputs", "new figures", "in outputs", "outputs"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--cnndm", type=Path, default=CNNDM)
    parser.add_argument("--suite", type=Path, default=Path("/tmp/s100k"))
    parser.add_argument("--pre", type=Path, help="the tree before grounding was wired in (22e91ac^)")
    parser.add_argument("--process-runs", type=int, default=5, help="runs of each whole-process report")
    parser.add_argument("--sourced-examples", type=int, default=10_000)
    parser.add_argument("--source-words", type=int, default=600, help="about CNN/DM's articles")
    args = parser.parse_args()
    if args.pre is not None and not (args.pre / "rouge_tui").is_dir():
        raise SystemExit(f"{args.pre}: not a rouge-tui source tree")
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    sourced = sourced_suite(args.sourced_examples, 56, args.source_words)
    print(f"machine: {machine_note()}")
    if not args.suite.exists():
        print(f"making {args.suite} (100,000 examples of 40 words) ...", flush=True)
        write_suite(args.suite, 100_000, 40)
    print(f"medians of {args.runs} runs [min-max]\n")
    for suite in (args.cnndm, args.suite, sourced):
        bench_suite(suite, args.runs, args.sample)
        print()
    ref, base, cand = long_example(2000)
    ground(cand, [ref], None, base)
    walls, cpus = timed(lambda: ground(cand, [ref], None, base), max(args.runs, 9))
    print(f"ground(), one example: two outputs of {len(cand.split()):,} and {len(base.split()):,} "
          f"words, a reference of {len(ref.split()):,}")
    print(f"  wall {show(walls, 1000, 'ms')}   cpu {show(cpus, 1000, 'ms')}   (budget: the diff "
          "view opens within 50 ms)")
    print(f"\nmedians of {args.process_runs} runs [range], variants in turn")
    for label, suite in (("CNN/DM", args.cnndm), (f"synthetic with sources, {sourced.name}", sourced)):
        print()
        bench_process(label, suite, args.process_runs, args.pre)
    print()
    cnndm_signal_counts(args.cnndm)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
