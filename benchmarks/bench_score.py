"""`rouge-tui score` against rouge-score 0.1.2 on 2,000 pairs of ~500 words, whole process.

    python benchmarks/bench_score.py [--pairs 2000] [--words 500] [--runs 3] [--against DIR]

Both sides read the same JSON Lines files and write one JSON line per pair; both use
rouge-score's tokenizer (no stemming) so they compute the same numbers, and the script
checks that they did. The budget: rouge-tui >= 100x faster (aim 300x).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import median, rouge_tui, run_once

# rouge-score's side: the obvious loop a user would write.
ROUGE_SCORE = r"""
import json, sys
from rouge_score import rouge_scorer
scorer = rouge_scorer.RougeScorer(["rougeL"])
refs = {}
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        refs[record["id"]] = record["reference"]
out = open(sys.argv[3], "w", encoding="utf-8")
with open(sys.argv[2], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        s = scorer.score(refs[record["id"]], record["output"])["rougeL"]
        out.write(json.dumps({"id": record["id"], "scores": {"rougeL": {
            "precision": s.precision, "recall": s.recall, "fmeasure": s.fmeasure}}}) + "\n")
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


def f_values(path: Path) -> dict[str, float]:
    with open(path, encoding="utf-8") as handle:
        return {(row := json.loads(line))["id"]: row["scores"]["rougeL"]["fmeasure"] for line in handle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--oracle-runs", type=int, default=None, help="rouge-score runs (default: --runs)")
    parser.add_argument("--against", type=Path, help="another rouge-tui source tree to time side by side")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        refs, outs = write_pairs(folder, args.pairs, args.words)
        ours_out, theirs_out = folder / "ours.jsonl", folder / "theirs.jsonl"
        sources = [("rouge-tui (this tree)", None)] + ([(f"rouge-tui ({args.against})", args.against)] if args.against else [])
        rows = []
        for label, source in sources:
            prefix, env = rouge_tui(source)
            argv = ["sh", "-c", 'exec "$@" > "$0"', str(ours_out), *prefix, "score", str(refs), str(outs), "--tokenizer", "rouge-score"]
            rows.append((label, median([run_once(argv, env) for _ in range(args.runs)])))
        oracle = [sys.executable, "-c", ROUGE_SCORE, str(refs), str(outs), str(theirs_out)]
        rouge = median([run_once(oracle) for _ in range(args.oracle_runs or args.runs)])

        ours, theirs = f_values(ours_out), f_values(theirs_out)
        same = ours == theirs
        print(f"{args.pairs} pairs of ~{args.words} words, rougeL, rouge-score tokenizer; medians of runs")
        print(f"{'':28} {'wall':>8} {'cpu':>8} {'RSS':>7} {'vs rouge-score (wall)':>22}")
        print(f"{'rouge-score 0.1.2':28} {rouge.wall:7.2f}s {rouge.cpu:7.2f}s {rouge.rss_mb:5.0f}MB {'1x':>22}")
        for label, sample in rows:
            ratio = rouge.wall / sample.wall
            print(f"{label:28} {sample.wall:7.2f}s {sample.cpu:7.2f}s {sample.rss_mb:5.0f}MB {ratio:21.0f}x")
        print(f"F values equal to rouge-score's on every pair: {'yes' if same else 'NO'}")
        print("budget: >= 100x faster than rouge-score, whole process (aim 300x)")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
