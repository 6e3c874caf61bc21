"""Copies of the CNN/DM suite with a newest build that invents figures (issue 35's trial).

    python benchmarks/cnndm_invented.py /tmp/cnndm-invented
    python benchmarks/cnndm_invented.py /tmp/cnndm-invented-long --history 6

Writes OUT (never the suite itself): its references, suite.toml and three builds, copied,
then a newest build ``99-invented``: the newest build's outputs, but 50 of them (every 200th id:
000000, 000200, ..., 009800) given one more closing line, an invented sentence with a figure found nowhere
else ("police said 37 people were arrested .", the number varying), in the suite's own
style (lowercased, tokenized, one sentence per line).

CNN/DM has three builds, so the new pair has two earlier pairs, and those are model changes
(thousands of new sentences each). ``--history N`` puts N nightly builds between the newest
model and the invented build, as a nightly job would have them: ``4-nightly-1`` ... each the
newest model's outputs except a fresh 0.25% (every 400th id, a different offset each night)
regenerated, i.e. replaced by the previous model's output for that id; the invented build
is then one more such night, plus the 50 invented lines. Everything is deterministic: same command, same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

CNNDM = Path("/work/shared/data/cnndm-pointer-gen")
EVERY, COUNT = 200, 50  # ids 000000, 000200, ..., 009800 get the invented line
REGENERATED = 400  # every 400th id regenerated on each nightly build
SAID = ["police said {n} people were arrested .", "officials said {n} homes were destroyed .",
        "the company said it had lost {n} million dollars .", "{n} people were taken to hospital , police said ."]


def read(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def write(path: Path, rows: list[dict]) -> None:
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
        handle.write(data)


def invented(index: int) -> str:
    """The invented line for the index-th chosen output: numbers 13, 20, 27, ... (none repeated)."""
    return SAID[index % len(SAID)].format(n=13 + 7 * index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--suite", type=Path, default=CNNDM)
    parser.add_argument("--history", type=int, default=0, help="nightly builds before the invented one")
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out}: exists; give a new directory")
    (args.out / "builds").mkdir(parents=True)
    for name in ("references.jsonl.gz", "suite.toml"):
        shutil.copy(args.suite / name, args.out / name)
    models = sorted(p.name for p in (args.suite / "builds").iterdir())
    for name in models:
        shutil.copy(args.suite / "builds" / name, args.out / "builds" / name)
    newest, previous = read(args.suite / "builds" / models[-1]), read(args.suite / "builds" / models[-2])
    last = newest
    for night in range(1, args.history + 2 if args.history else 1):
        last = [prev if i % REGENERATED == night * 61 % REGENERATED else new
                for i, (new, prev) in enumerate(zip(newest, previous, strict=True))]
        if night <= args.history:
            write(args.out / "builds" / f"{3 + night}-nightly-{night}.jsonl.gz", last)
    chosen = 0
    out = []
    for i, row in enumerate(last):
        if i % EVERY == 0 and chosen < COUNT:
            row = {**row, "output": row["output"] + "\n" + invented(chosen)}
            chosen += 1
        out.append(row)
    write(args.out / "builds" / "99-invented.jsonl.gz", out)
    print(f"{args.out}: {len(models) + args.history + 1} builds, {chosen} outputs given an invented line")


if __name__ == "__main__":
    main()
