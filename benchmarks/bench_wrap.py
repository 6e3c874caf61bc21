"""Word wrapping in the diff view, side by side: ours (``wrap.lay_out``) against Rich's
own (``Text.wrap``), on the same styled texts, in-process.

    python benchmarks/bench_wrap.py --runs 7

The diff view breaks styled stretches (a word diff, its grounding tags) into lines of the
pane's width at word boundaries. Both sides take the same stretches and give lines of
(text, style) stretches ready to draw: ours through ``lay_out``; Rich's by assembling a
``Text``, ``Text.wrap`` (fold overflow, as a word longer than the line is cut in ours) and
each line's segments. The texts, each laid out at 77 cells (the 80-column stacked view)
and 58 (one column of the 120-column side-by-side view):

- cnndm: the first 2,000 outputs of CNN/DM's pointer-gen build (about 60 words each), word
  diffs against the baseline's, one after the other (opening 2,000 diffs);
- 2000w: one word diff of two 2,000-word outputs (the diff budget's example), 20 times;
- short: 2,000 short lines of 2 to 8 words, one text, 20 times;
- cjk: 2,000 words of mixed Latin and CJK (no fast path for ASCII), 20 times.

Timed A B C A B C: the median of --runs runs of each side with its range, and the median of
the run-by-run ratios; C is Rich's ``Text.wrap`` alone (its lines as ``Text``, not yet
stretches to draw), the least a switch to Rich would cost. Also said: how many lines the two give alike (Rich keeps the spaces
where a line breaks, up to the width; ours drops the one the line breaks at, so those are
compared without trailing spaces, which draw as nothing on an unstyled background).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _measure import machine_note, print_table
from rich.console import Console
from rich.text import Text

from rouge_tui.app.widgets.diffview import styled
from rouge_tui.app.widgets.wrap import lay_out
from rouge_tui.diff import word_diff

CNNDM = Path("/work/shared/data/cnndm-pointer-gen")
WIDTHS = (77, 58)
CONSOLE = Console(file=io.StringIO(), width=200, color_system=None, legacy_windows=False)


def rich_wrap(found, width: int):
    """Rich's wrapping alone: the lines as ``Text``, not yet stretches to draw."""
    return Text.assemble(*found, no_wrap=False).wrap(CONSOLE, max(width, 1), overflow="fold")


def rich_lay_out(found, width: int):
    """The same lines as ours through Rich's wrapping."""
    return [[(s.text, s.style) for s in line.render(CONSOLE) if s.text] for line in rich_wrap(found, width)]


def words(rng: random.Random, n: int, vocabulary: list[str]) -> list[str]:
    return [rng.choice(vocabulary) for _ in range(n)]


def inputs() -> dict[str, list[list]]:
    """Each case's styled texts (the merged word diff's stretches, as the view shows them)."""
    rng = random.Random(40)
    vocabulary = [
        "the", "of", "and", "to", "in", "a", "is", "that", "for", "on", "was", "with", "said", "he",
        "it", "as", "at", "by", "from", "his", "an", "were", "are", "which", "this", "be", "has",
        "had", "have", "not", "but", "after", "who", "they", "their", "one", "been", "its", "two",
        "new", "first", "incident", "replica", "configuration", "rollback", "latency", "02:14",
        "41", "minutes", "database"
    ]
    cases: dict[str, list[list]] = {}
    if (CNNDM / "builds").is_dir():
        def read(name: str) -> list[str]:
            with gzip.open(CNNDM / "builds" / name, "rt") as f:
                return [json.loads(line)["output"] for _, line in zip(range(2000), f)]
        base, cand = read("1-baseline.jsonl.gz"), read("2-pointer-gen.jsonl.gz")
        cases["cnndm"] = [styled(word_diff(a, b)[2]) for a, b in zip(base, cand)]
    a = words(rng, 2000, vocabulary)
    b = [w if rng.random() > 0.1 else rng.choice(vocabulary) for w in a]
    cases["2000w"] = [styled(word_diff(" ".join(a), " ".join(b))[2])] * 20
    short = "\n".join(" ".join(words(rng, rng.randint(2, 8), vocabulary)) for _ in range(2000))
    cases["short"] = [styled(word_diff(short, short.replace(" the ", " a "))[2])] * 20
    mixed = vocabulary + ["漢字", "データベース", "復旧", "café", "naïve", "Zürich"]
    c = words(rng, 2000, mixed)
    d = [w if rng.random() > 0.1 else rng.choice(mixed) for w in c]
    cases["cjk"] = [styled(word_diff(" ".join(c), " ".join(d))[2])] * 20
    return cases


def timed(lay, texts: list[list], width: int) -> float:
    start = time.perf_counter()
    for found in texts:
        lay(found, width)
    return time.perf_counter() - start


def plain(lines) -> list[str]:
    return ["".join(text for text, _ in line).rstrip(" ") for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(machine_note())
    rows = []
    for name, texts in inputs().items():
        for width in WIDTHS:
            ours, rich, ratios, bare = [], [], [], []
            for _ in range(args.runs):  # A B C A B C
                o, r, w = timed(lay_out, texts, width), timed(rich_lay_out, texts, width), timed(rich_wrap, texts, width)
                ours.append(o)
                rich.append(r)
                ratios.append(r / o)
                bare.append(w / o)
            unique = {id(found): found for found in texts}.values()
            alike = total = 0
            for found in unique:
                mine, theirs = plain(lay_out(found, width)), plain(rich_lay_out(found, width))
                total += max(len(mine), len(theirs))
                alike += sum(x == y for x, y in zip(mine, theirs))
            rows.append([f"{name} @{width}", f"{statistics.median(ours) * 1e3:.1f} ({min(ours) * 1e3:.1f}-{max(ours) * 1e3:.1f})",
                         f"{statistics.median(rich) * 1e3:.1f} ({min(rich) * 1e3:.1f}-{max(rich) * 1e3:.1f})",
                         f"{statistics.median(ratios):.1f}x", f"{statistics.median(bare):.1f}x", f"{alike}/{total}"])
    print_table(["case", "ours ms (range)", "Rich ms (range)", "Rich / ours", "wrap alone / ours", "lines alike"], rows)


if __name__ == "__main__":
    main()
