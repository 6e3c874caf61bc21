"""What a report cannot do without, beside SPEC's floor script, in one run (issue 36).

Each bound is a whole process doing part of a report's work and nothing else: if a bound
alone is over a budget, no arrangement of the rest of the report brings the report under
it. On the synthetic 100,000 x ~40 suites (`--tokenizer rouge-score`, rougeL), in turn with
`floor.py` and `rouge-tui report --no-cache`:

- **bare read + score**: the three files read by the least loop (one ``orjson.loads`` a
  line, ``id -> text``, no check, no digest), the baseline scored in full and only the
  candidate's changed outputs, in one ``score_batch`` each, two means.
- **checked read + score**: the same, the files read by rouge-tui's checked reader (its
  guarantees: README "Guarantees") with the references' fingerprint, which the report
  prints and marks are kept under.
- **new build, read only**: the references and the new build, checked, and nothing more:
  the bytes a new build's first report has never seen, beside its cold twin.
- all changed: **checked read + score** both builds in full, as the floor does, then
  **+ grounding**: `new_counts` for every example (what overlap cannot see), or **+ the
  app's imports** (`rouge_tui.app.app`: Textual and the screens), the least the app's first
  frame on this pair (`bench_app.py`'s) waits for.

    python benchmarks/bench_bound.py --runs 5            # 4 min (first: generate 2 min)

Prints each variant's median wall and CPU time with their ranges and its run-by-run ratio
to the floor (to the cold report for the new build's bound).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _measure as measure
from make_suite import build_names

FLOOR = Path("/work/shared/bench/floor.py")

# The least reading any report does; then the scoring the floor does, less what a nightly
# build repeats ("all": every output scored, as the floor).
BARE = """
import math, sys
import orjson
from rouge_score_rs import rouge_scorer, tokenizers
root, a, b, every = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "all"
def read(path, field):
    out = {}
    with open(path, "rb") as handle:
        for line in handle.read().split(b"\\n"):
            if line:
                record = orjson.loads(line)
                out[record["id"]] = record[field]
    return out
references = read(root + "/references.jsonl", "reference")
base = read(root + "/builds/" + a + ".jsonl", "output")
cand = read(root + "/builds/" + b + ".jsonl", "output")
SCORE
"""

CHECKED = """
import math, sys
from rouge_score_rs import rouge_scorer, tokenizers
from rouge_tui.suite.suite import open_suite, read_build, read_references
root, a, b, every = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "all"
suite = open_suite(root)
first, second = suite.pick(a, b)
read = read_references(suite)
base_build = read_build(suite, first, like=[read.texts])
cand_build = read_build(suite, second, like=[run.outputs for run in base_build.runs])
read.fingerprint
references = {key: texts[0] for key, texts in read.texts.items()}
base, cand = base_build.runs[0].outputs, cand_build.runs[0].outputs
SCORE
GROUND
"""

SCORE = """
scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=tokenizers.DefaultTokenizer(False))
ids = [key for key in base if key in cand and key in references]
refs, outs = [references[key] for key in ids], [base[key] for key in ids]
f = [s["rougeL"].fmeasure for s in scorer.score_batch(refs, outs)]
news = [cand[key] for key in ids]
todo = range(len(ids)) if every else [k for k in range(len(ids)) if outs[k] != news[k]]
g = list(f)
for k, s in zip(todo, scorer.score_batch([refs[k] for k in todo], [news[k] for k in todo])):
    g[k] = s["rougeL"].fmeasure
print(math.fsum(f) / len(f), math.fsum(g) / len(g))
"""

GROUND = """
if sys.argv[5:] == ["app"]:
    import rouge_tui.app.app
elif sys.argv[5:] == ["ground"]:
    from rouge_tui.analysis.grounding_bulk import new_counts
    new_counts(news, outs, [read.texts[key] for key in ids], [read.sources.get(key) for key in ids])
"""

READ_ONLY = """
import sys
from rouge_tui.suite.suite import open_suite, read_build, read_references
suite = open_suite(sys.argv[1])
new = suite.pick(None, sys.argv[2])[1]
references = read_references(suite)
read_build(suite, new, like=[references.texts])
references.fingerprint
"""


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-P", "-c", code, *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--floor", type=Path, default=FLOOR)
    args = parser.parse_args()
    env = {**measure.rouge_tui(measure.ROOT)[1]}
    home = measure.fresh_home()
    try:
        env.update(measure.state_env(home))
        print(measure.machine_note())
        for share, label in ((0.05, "nightly (5% changed)"), (1.0, "all changed")):
            root = measure.synthetic(100_000, 40, changed=share)
            which = "nightly" if share < 1 else "all"
            a, b = build_names(2, share)[1:]
            # The pair alone, as the floor reads it: no earlier build scored for a band.
            pair = measure.view(root, [f"{a}.jsonl", f"{b}.jsonl"], home / which)
            report = [*measure.rouge_tui(measure.ROOT)[0], "report", str(pair), "--format", "json", "--no-cache",
                      "--tokenizer", "rouge-score"]
            checked = CHECKED.replace("SCORE", SCORE).replace("GROUND", GROUND)
            argvs = {"floor.py": [sys.executable, str(args.floor), str(root), a, b],
                     "checked read + score": python(checked, str(root), a, b, which)}
            if share < 1:
                argvs["bare read + score"] = python(BARE.replace("SCORE", SCORE), str(root), a, b, which)
                argvs["new build, read only"] = python(READ_ONLY, str(root), b)
            else:
                argvs["checked read + score + grounding"] = python(checked, str(root), a, b, which, "ground")
                argvs["checked read + score + the app's imports"] = python(checked, str(root), a, b, which, "app")
            argvs["report --no-cache"] = report
            variants = {name: functools.partial(measure.run_once, argv, env, (0, 1)) for name, argv in argvs.items()}
            got = measure.alternate(variants, args.runs)
            rows = []
            for name, samples in got.items():
                against = "report --no-cache" if name == "new build, read only" else "floor.py"
                ratio = "" if name == against else f"{measure.paired(samples, got[against]):.2f}x {against}"
                rows.append([name, measure.seconds(samples), measure.seconds(samples, "cpu"), ratio])
            print(f"\n100,000 x ~40 words, {label}")
            measure.print_table(["variant", "wall", "cpu", "ratio"], rows)
    finally:
        measure.drop(home)


if __name__ == "__main__":
    main()
