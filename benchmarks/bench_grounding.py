"""Grounding (what overlap cannot see) for every paired example, and for one example.

    python benchmarks/bench_grounding.py [--runs 5] [--sample 2000]
        [--cnndm ../shared/data/cnndm-pointer-gen] [--suite /tmp/s100k]

The budget (SPEC "Budgets"): grounding for every paired example adds < 30 % to a cold
`report` (about 1 s on CNN/DM and 1.5 s on the 100k suite here: so < 0.3 s and < 0.45 s),
and the diff view, which grounds one example, opens within 50 ms.

Side by side, in this process, on the default pair of each suite (candidate = the last build
by name, baseline = the one before):

- the bulk path, `new_counts`, over every example;
- the plain reference, `ground_side` one example at a time, over a seeded sample of
  --sample examples, extrapolated to the whole suite (said so in the output);
- `ground` for one example of two 2,000-word outputs and a 2,000-word reference.

Medians of --runs runs, with the spread (min-max), of the wall clock and of the CPU time this
process spent (steadier on a busy machine). The 100k suite is made with make_suite.py when
--suite does not exist. Suites are read with gzip and json, and only read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_suite import _edit, _sentences, _vocabulary, write_suite

from rouge_tui.analysis.grounding import ground, ground_side, new_counts

CNNDM = ROOT.parent / "shared" / "data" / "cnndm-pointer-gen"


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_pair(suite: Path) -> tuple[str, list[str], list[str], list[tuple[str, ...]]]:
    """The default pair's outputs and the references, over the ids all three have."""
    refs = {}
    for row in read_jsonl(next(suite.glob("references.jsonl*"))):
        refs[row["id"]] = tuple(row["references"]) if "references" in row else (row["reference"],)
    names = sorted(suite.glob("builds/*.jsonl*"), key=lambda p: p.name)
    base, cand = ({r["id"]: r["output"] for r in read_jsonl(p)} for p in names[-2:])
    ids = [i for i in cand if i in base and i in refs]
    label = f"{suite.name}: {names[-1].name.split('.')[0]} vs {names[-2].name.split('.')[0]}"
    return label, [cand[i] for i in ids], [base[i] for i in ids], [refs[i] for i in ids]


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
    label, cand, base, refs = read_pair(suite)
    n = len(cand)
    sources = [None] * n
    new_counts(cand, base, refs, sources)  # warm-up: imports, caches
    walls, cpus = timed(lambda: new_counts(cand, base, refs, sources), runs)
    chosen = sorted(random.Random(1).sample(range(n), min(sample, n)))

    plain_counts: dict[int, tuple[int, int]] = {}

    def plain() -> None:
        for i in chosen:
            side = ground_side(cand[i], refs[i], None, base[i])
            plain_counts[i] = (len(side.new_sentences), len(side.new_figures))

    ref_walls, ref_cpus = timed(plain, max(1, runs // 2))
    scale = n / len(chosen)
    counts = new_counts(cand, base, refs, sources)
    same = all(plain_counts[i] == (counts[0][i], counts[1][i]) for i in chosen)
    print(f"{label} ({n:,} paired examples)")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--cnndm", type=Path, default=CNNDM)
    parser.add_argument("--suite", type=Path, default=Path("/tmp/s100k"))
    args = parser.parse_args()
    if not args.suite.exists():
        print(f"making {args.suite} (100,000 examples of 40 words) ...", flush=True)
        write_suite(args.suite, 100_000, 40)
    print(f"medians of {args.runs} runs [min-max]\n")
    for suite in (args.cnndm, args.suite):
        bench_suite(suite, args.runs, args.sample)
        print()
    ref, base, cand = long_example(2000)
    ground(cand, [ref], None, base)
    walls, cpus = timed(lambda: ground(cand, [ref], None, base), max(args.runs, 9))
    print(f"ground(), one example: two outputs of {len(cand.split()):,} and {len(base.split()):,} "
          f"words, a reference of {len(ref.split()):,}")
    print(f"  wall {show(walls, 1000, 'ms')}   cpu {show(cpus, 1000, 'ms')}   (budget: the diff "
          "view opens within 50 ms)")


if __name__ == "__main__":
    main()
