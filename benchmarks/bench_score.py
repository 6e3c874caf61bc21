"""`rouge-tui score` against a plain rouge-score-rs script, whole process, equal floats.

    python benchmarks/bench_score.py [--runs 5] [--against /work/old]

Two workloads, each with the same JSON Lines files for every side:

- 2,000 deterministic pairs of ~500 words, rougeL with the rouge-score tokenizer (and, with
  no anchor doing that work, the default whitespace tokenizer beside it);
- the CNN/DM candidate (``builds/3-pointer-gen-cov`` against the references, 11,490 pairs),
  all four metrics with stemming; read from plain-JSONL copies in a temp directory.

The anchor is the script a user could write instead (`ANCHOR`): read both files with the
standard json module, one ``RougeScorer(...).score_batch`` call, one JSON line per pair.
SPEC's budget: ``score`` at most 1.2x its time, whole process. The variants run in turn
(A B A B ...); each figure is the median wall time of --runs runs with the range, and the
ratio the median of the run-by-run ratios to the anchor. Every precision, recall and F of
each rouge-tui tree must equal the anchor's, pair by pair (the whitespace tokenizer's, with
no anchor, each --against tree's to this tree's).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
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

CNNDM = Path("/work/shared/data/cnndm-pointer-gen")
METRICS = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

# The anchor: a plain script on rouge-score-rs (argv: references, outputs, metrics, stem).
ANCHOR = r"""
import json, sys
from rouge_score_rs import rouge_scorer
metrics = sys.argv[3].split(",")
scorer = rouge_scorer.RougeScorer(metrics, use_stemmer=sys.argv[4] == "stem")
refs = {}
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        refs[record["id"]] = record["reference"]
ids, outs = [], []
with open(sys.argv[2], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        ids.append(record["id"])
        outs.append(record["output"])
results = scorer.score_batch([refs[i] for i in ids], outs)
write = sys.stdout.write
for key, result in zip(ids, results):
    write(json.dumps({"id": key, "scores": {m: {"precision": s.precision, "recall": s.recall,
          "fmeasure": s.fmeasure} for m, s in result.items()}}) + "\n")
"""


def write_pairs(folder: Path, pairs: int, words: int, seed: int = 1) -> tuple[Path, Path]:
    """Deterministic reference/output files: Zipf-ish words, outputs edited from references."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    refs, outs = folder / "references.jsonl", folder / "outputs.jsonl"
    with open(refs, "w", encoding="utf-8") as r_file, open(outs, "w", encoding="utf-8") as o_file:
        for index in range(pairs):
            n = max(10, int(rng.gauss(words, words / 10)))
            ref = rng.choices(vocab, weights, k=n)
            out = [w if rng.random() > 0.4 else rng.choices(vocab, weights)[0] for w in ref if rng.random() > 0.1]
            key = f"p{index:05d}"
            r_file.write(json.dumps({"id": key, "reference": " ".join(ref).capitalize() + "."}) + "\n")
            o_file.write(json.dumps({"id": key, "output": " ".join(out).capitalize() + "."}) + "\n")
    return refs, outs


def gunzip(source: Path, target: Path) -> Path:
    with gzip.open(source, "rb") as inp, open(target, "wb") as out:
        shutil.copyfileobj(inp, out)
    return target


def scores_of(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as handle:
        return {(row := json.loads(line))["id"]: row["scores"] for line in handle}


def workload(
    title: str, refs: Path, outs: Path, metrics: list[str], stem: bool, sources: list[tuple[str, Path]],
    runs: int, folder: Path, whitespace: bool,
) -> list[list[str]]:
    """Time every side in turn; check the floats; return the table's rows."""
    home = fresh_home()
    variants, files = {}, {}
    anchor_out = folder / "anchor.jsonl"
    anchor = [sys.executable, "-c", ANCHOR, str(refs), str(outs), ",".join(metrics), "stem" if stem else "-"]
    variants["rouge-score-rs score_batch (plain script)"] = lambda: run_once(anchor, stdout=anchor_out)
    for number, (label, tree) in enumerate(sources):
        prefix, env = rouge_tui(tree)
        env.update(state_env(home))
        flags = ["--metrics", ",".join(metrics)] + (["--stem"] if stem else [])
        out = folder / f"tree{number}.jsonl"
        files[label] = out
        argv = [*prefix, "score", str(refs), str(outs), "--tokenizer", "rouge-score", *flags]
        variants[f"rouge-tui, {label}"] = lambda argv=argv, env=env, out=out: run_once(argv, env, stdout=out)
        if whitespace:
            plain = [*prefix, "score", str(refs), str(outs), *flags]
            out = folder / f"tree{number}-whitespace.jsonl"
            files[f"{label}, whitespace tokenizer"] = out
            variants[f"rouge-tui, {label}, whitespace tokenizer"] = (
                lambda argv=plain, env=env, out=out: run_once(argv, env, stdout=out))
    results = alternate(variants, runs)
    drop(home)

    anchor_scores = scores_of(anchor_out)
    base = results["rouge-score-rs score_batch (plain script)"]
    print(f"\n{title}")
    rows = []
    for label, samples in results.items():
        ratio = paired(samples, base)
        equal = ""
        source = label.removeprefix("rouge-tui, ")
        if source.endswith("whitespace tokenizer"):  # no anchor: the trees against each other
            first = files[f"{sources[0][0]}, whitespace tokenizer"]
            equal = "(no anchor)" if source.startswith(sources[0][0]) else (
                "yes, to this tree's" if scores_of(files[source]) == scores_of(first) else "NO, not this tree's")
        elif source in files:
            equal = "yes" if scores_of(files[source]) == anchor_scores else "NO"
        rows.append([label, seconds(samples), seconds(samples, "cpu"), megabytes(samples), f"{ratio:.2f}x", equal])
    print_table(["", "wall median (range)", "cpu", "peak RSS", "vs anchor", "equal floats"], rows)
    print("budget: rouge-tui score at most 1.2x the anchor, whole process (ratio <= 1.20x)")
    return [[title, *row] for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--cnndm", type=Path, default=CNNDM, help="the real CNN/DM suite")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    args = parser.parse_args()
    sources = trees(args.against)
    print(f"machine: {machine_note()}; medians of {args.runs} runs, the variants in turn")
    with tempfile.TemporaryDirectory(prefix="rouge-tui-bench-score-") as tmp:
        folder = Path(tmp)
        refs, outs = write_pairs(folder, args.pairs, args.words)
        workload(f"{args.pairs} pairs of ~{args.words} words, rougeL, rouge-score tokenizer",
                 refs, outs, ["rougeL"], False, sources, args.runs, folder, whitespace=True)
        if (args.cnndm / "references.jsonl.gz").is_file():
            refs = gunzip(args.cnndm / "references.jsonl.gz", folder / "cnndm-references.jsonl")
            outs = gunzip(args.cnndm / "builds" / "3-pointer-gen-cov.jsonl.gz", folder / "cnndm-candidate.jsonl")
            workload("CNN/DM candidate (11,490 pairs), all four metrics, rouge-score tokenizer, stemming",
                     refs, outs, METRICS, True, sources, args.runs, folder, whitespace=False)
        else:
            print(f"({args.cnndm}: not found, CNN/DM skipped)", file=sys.stderr)
    print(f"\nmachine afterwards: {machine_note()}")


if __name__ == "__main__":
    main()
