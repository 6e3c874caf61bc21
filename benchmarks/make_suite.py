"""Write a synthetic suite of any size for the benchmarks (deterministic for a given seed).

Texts draw words from a Zipf-like vocabulary; each build's output is its reference with
words dropped, swapped and inserted, so LCS lengths look like real paraphrase (about half
the words shared), and the candidate drifts a little from the baseline.

    python benchmarks/make_suite.py OUT_DIR --examples 100000 --words 40
    python benchmarks/make_suite.py OUT_DIR --examples 10000 --words 40 --builds 31
    python benchmarks/make_suite.py OUT_DIR --examples 100000 --words 40 --changed 0.05

- Two builds (the default): ``a-baseline`` and ``b-candidate``, byte for byte what this
  script always wrote for the same arguments.
- ``--builds N`` (N > 2): ``nightly-001`` .. ``nightly-N`` in name order. The first two are
  the default's two builds; each later one is an edit of the one before, as nightly builds
  are: it repeats the previous build's outputs except ``--churn`` of them (default 10%,
  drawn afresh each build) and a fixed 2% of examples that change on every build (the
  volatile ones), each changed output an edit of the previous one.
- ``--changed SHARE``: one more build after those (``c-changed``, or ``nightly-(N+1)``) that
  repeats the last build's outputs except exactly ``round(SHARE * examples)`` of them, each
  an edit of the output it replaces: "a new build in which 5% of outputs changed".

Builds after the second draw from their own seeded generators, so adding them never
changes the first two.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

VOCAB_SIZE = 5000
CHURN = 0.10  # share of outputs a nightly build re-edits, drawn afresh each build
VOLATILE = 0.02  # share of examples whose output changes on every nightly build
NIGHTLY_RATE = 0.2  # edit rate of a changed nightly output (words dropped/replaced/inserted)
VOLATILE_RATE = 0.5


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


def _dump(path: Path, keys: list[str], field: str, texts: list[str]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"id": key, field: text}) + "\n" for key, text in zip(keys, texts))


class _Later:
    """The builds after the second: each an edit of the one before."""

    def __init__(self, seed: int, vocab: list[str], weights: list[float], words: list[list[str]], texts: list[str]) -> None:
        self.seed, self.vocab, self.weights = seed, vocab, weights
        self.words, self.texts = words, texts  # the last build's outputs (words and text)
        self.volatile = set(random.Random(f"{seed}:volatile").sample(range(len(words)), round(VOLATILE * len(words))))

    def _change(self, rng: random.Random, index: int, rate: float) -> None:
        text = self.texts[index]
        while text == self.texts[index]:  # a changed output is a different output
            words = _edit(rng, self.words[index], self.vocab, self.weights, rate) or [self.vocab[0]]
            text = _sentences(rng, words)
        self.words[index], self.texts[index] = words, text

    def nightly(self, number: int) -> list[str]:
        rng = random.Random(f"{self.seed}:build:{number}")
        for index in range(len(self.texts)):
            if index in self.volatile:
                self._change(rng, index, VOLATILE_RATE)
            elif rng.random() < CHURN:
                self._change(rng, index, NIGHTLY_RATE)
        return list(self.texts)

    def changed(self, share: float) -> list[str]:
        rng = random.Random(f"{self.seed}:changed:{share!r}")
        for index in sorted(rng.sample(range(len(self.texts)), round(share * len(self.texts)))):
            self._change(rng, index, NIGHTLY_RATE)
        return list(self.texts)


def build_names(builds: int = 2, changed: float | None = None) -> list[str]:
    """The build names `write_suite` writes, in name order."""
    if builds == 2:
        return ["a-baseline", "b-candidate"] + (["c-changed"] if changed is not None else [])
    total = builds + (changed is not None)
    return [f"nightly-{number:03d}" for number in range(1, total + 1)]


def write_suite(
    out: Path, examples: int, words: int, seed: int = 1, builds: int = 2, changed: float | None = None
) -> list[str]:
    """Write the suite; returns its build names in order."""
    if builds < 2:
        raise ValueError("a suite needs at least two builds")
    if changed is not None and not 0 < changed <= 1:
        raise ValueError("--changed is a share of the outputs, in (0, 1]")
    rng = random.Random(seed)
    vocab, weights = _vocabulary(rng)
    (out / "builds").mkdir(parents=True, exist_ok=True)
    later = builds > 2 or changed is not None
    keys, refs, base, cand, cand_words = [], [], [], [], []
    for index in range(examples):
        length = max(3, int(rng.gauss(words, words / 5)))
        ref = rng.choices(vocab, cum_weights=weights, k=length)
        b = _edit(rng, ref, vocab, weights, 0.5)
        c = _edit(rng, b, vocab, weights, 0.2 if rng.random() < 0.7 else 0.6)
        keys.append(f"ex-{index:07d}")
        refs.append(_sentences(rng, ref))
        base.append(_sentences(rng, b))
        cand.append(_sentences(rng, c))
        if later:
            cand_words.append(c)

    names = build_names(builds, changed)
    _dump(out / "references.jsonl", keys, "reference", refs)
    _dump(out / "builds" / f"{names[0]}.jsonl", keys, "output", base)
    del refs, base
    _dump(out / "builds" / f"{names[1]}.jsonl", keys, "output", cand)
    if later:
        chain = _Later(seed, vocab, weights, cand_words, cand)
        for number in range(3, builds + 1):
            _dump(out / "builds" / f"{names[number - 1]}.jsonl", keys, "output", chain.nightly(number))
        if changed is not None:
            _dump(out / "builds" / f"{names[-1]}.jsonl", keys, "output", chain.changed(changed))
    title = f"synthetic {examples} x {words} words" + (f", {builds} builds" if builds > 2 else "")
    (out / "suite.toml").write_text(f'name = "{title}"\n')
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--builds", type=int, default=2, help="builds in name order, each an edit of the one before")
    parser.add_argument("--changed", type=float, metavar="SHARE",
                        help="add a last build repeating the one before except SHARE of its outputs")
    args = parser.parse_args()
    write_suite(args.out, args.examples, args.words, args.seed, args.builds, args.changed)


if __name__ == "__main__":
    main()
