"""The diff a reviewer opens: `example_diff` + `output_alignment` on 2,000-word texts.

    python benchmarks/bench_app.py [--words 2000] [--runs 7]

Times the model behind the app's diff view (no terminal): two outputs of --words words
edited from a reference of the same size, each metric, both tokenizers, in this process
after a warm-up, median of --runs. The budget: the diff opens in < 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rouge_tui.diff import example_diff, output_alignment


def texts(words: int, seed: int = 1) -> tuple[str, str, str]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    ref = rng.choices(vocab, weights, k=words)

    def edit(source: list[str], rate: float) -> str:
        out = [w if rng.random() > rate else rng.choices(vocab, weights)[0] for w in source if rng.random() > rate / 2]
        sentences, line = [], []
        for w in out:
            line.append(w)
            if len(line) > 15 and rng.random() < 0.1:
                sentences.append(" ".join(line).capitalize() + ".")
                line = []
        sentences.append(" ".join(line).capitalize() + ".")
        return "\n".join(sentences)

    return edit(ref, 0.0), edit(ref, 0.4), edit(ref, 0.5)


def timed(call, runs: int) -> float:
    call()  # warm-up: imports, stem cache
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    reference, baseline, candidate = texts(args.words)
    print(f"diff of two ~{args.words}-word outputs against a {args.words}-word reference; median of {args.runs}")
    print(f"{'metric':10} {'tokenizer':20} {'example_diff':>12} {'alignment':>10} {'total':>8}")
    for tokenizer, stem in (("whitespace", False), ("rouge-score", True)):
        for metric in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
            diff = timed(partial(example_diff, "x", [reference], baseline, candidate, metric, tokenizer, stem), args.runs)
            align = timed(partial(output_alignment, baseline, candidate, tokenizer, stem), args.runs)
            label = tokenizer + (" +stem" if stem else "")
            print(f"{metric:10} {label:20} {diff * 1e3:10.1f}ms {align * 1e3:8.1f}ms {(diff + align) * 1e3:6.1f}ms")
    print("budget: the diff of two 2,000-word outputs opens in < 100 ms (model + drawing)")


if __name__ == "__main__":
    main()
