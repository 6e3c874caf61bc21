"""Write a synthetic suite of any size for the benchmarks (deterministic for a given seed).

Texts draw words from a Zipf-like vocabulary; each build's output is its reference with
words dropped, swapped and inserted, so LCS lengths look like real paraphrase (about half
the words shared), and the candidate drifts a little from the baseline.

    python benchmarks/make_suite.py OUT_DIR --examples 100000 --words 40
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

VOCAB_SIZE = 5000


def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(VOCAB_SIZE * 2)})
    rng.shuffle(words)
    words = words[:VOCAB_SIZE]
    cumulative, total = [], 0.0
    for rank in range(len(words)):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return words, cumulative


def _edit(rng: random.Random, words: list[str], vocab: list[str], weights: list[float], rate: float) -> list[str]:
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < rate / 3:
            continue  # dropped
        if roll < 2 * rate / 3:
            out.append(rng.choices(vocab, cum_weights=weights)[0])  # replaced
            continue
        out.append(word)
        if roll > 1 - rate / 3:
            out.append(rng.choices(vocab, cum_weights=weights)[0])  # inserted
    return out


def _sentences(rng: random.Random, words: list[str]) -> str:
    """Capitalise and punctuate, with a newline between sentences (for rougeLsum)."""
    text, sentence = [], []
    for word in words:
        sentence.append(word)
        if len(sentence) >= 8 and rng.random() < 0.12:
            text.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    if sentence:
        text.append(" ".join(sentence).capitalize() + ".")
    return "\n".join(text)


def write_suite(out: Path, examples: int, words: int, seed: int = 1, runs: int = 1) -> None:
    rng = random.Random(seed)
    vocab, weights = _vocabulary(rng)
    (out / "builds").mkdir(parents=True, exist_ok=True)
    refs, base, cand = [], [], []
    for index in range(examples):
        length = max(3, int(rng.gauss(words, words / 5)))
        ref = rng.choices(vocab, cum_weights=weights, k=length)
        b = _edit(rng, ref, vocab, weights, 0.5)
        c = _edit(rng, b, vocab, weights, 0.2 if rng.random() < 0.7 else 0.6)
        key = f"ex-{index:07d}"
        refs.append({"id": key, "reference": _sentences(rng, ref)})
        base.append({"id": key, "output": _sentences(rng, b)})
        cand.append({"id": key, "output": _sentences(rng, c)})

    def dump(path: Path, rows: list[dict]) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")

    dump(out / "references.jsonl", refs)
    dump(out / "builds" / "a-baseline.jsonl", base)
    dump(out / "builds" / "b-candidate.jsonl", cand)
    (out / "suite.toml").write_text(f'name = "synthetic {examples} x {words} words"\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    write_suite(args.out, args.examples, args.words, args.seed)


if __name__ == "__main__":
    main()
