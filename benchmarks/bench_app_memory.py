"""The app's memory without a terminal: the real app headless, stage by stage.

    python benchmarks/bench_app_memory.py                          # 100,000 x ~40 words
    python benchmarks/bench_app_memory.py --big --against /work/old  # 1,000,000, two trees

Each tree runs in its own process (``PYTHONPATH=TREE python -P``, fresh XDG state), the app
headless (Textual's ``run_test`` at 80x24) on the first two builds of the synthetic suite
(bench_app.py's pair: every output changed), with an empty cache and then reopened. A thread
reads the RSS (/proc/self/statm) every 0.1 s; the RSS and the peak (getrusage) are printed
when the figures are shown, the texts are in (the review made) and the overview's history
line is in, then the peak over the session once every worker is done. Unlike bench_app.py
this sees inside the process (which stage holds what), not the terminal's frames.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import drop, fresh_home, machine_note, rouge_tui, state_env, synthetic, trees, view
from make_suite import build_names

CHILD = r"""
import asyncio, os, resource, sys, threading, time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
START = time.monotonic()
top = [0.0]


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def sample():
    while True:
        top[0] = max(top[0], rss())
        time.sleep(0.1)


threading.Thread(target=sample, daemon=True).start()


def say(stage):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{stage}\t{time.monotonic() - START:.2f}\t{rss():.0f}\t{peak:.0f}", flush=True)


from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.review import ReviewScreen

say("imported")


async def main():
    app = RougeApp([Path(sys.argv[1])])
    async with app.run_test(size=(80, 24)) as pilot:
        seen = set()
        while time.monotonic() - START < 1200:
            await pilot.pause(0.1)
            if not isinstance(app.screen, ReviewScreen):
                continue
            s = app.screen.session
            for name, done in (("figures shown", s.analysis is not None), ("texts in", s.review is not None),
                               ("history line in", s.trend is not None)):
                if done and name not in seen:
                    seen.add(name)
                    say(name)
            if s.trend is not None and not any(w.is_running for w in app.workers):
                break
        await pilot.pause(0.3)
        say("settled")


asyncio.run(main())
print(f"session peak\t{time.monotonic() - START:.2f}\t{top[0]:.0f}\t"
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}", flush=True)
"""


def session(tree: Path, suite: Path, home: Path) -> list[list[str]]:
    prefix, env = rouge_tui(tree)
    done = subprocess.run([prefix[0], "-P", "-c", CHILD, str(suite)], env={**os.environ, **env, **state_env(home)},
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree}: the app failed: {done.stderr[-800:]}")
    return [line.split("\t") for line in done.stdout.splitlines() if line.count("\t") == 3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", action="store_true", help="the 1,000,000-example suite instead")
    parser.add_argument("--against", type=Path, action="append", help="another rouge-tui source tree (repeatable)")
    args = parser.parse_args()
    examples = 1_000_000 if args.big else 100_000
    root = synthetic(examples, 40, changed=0.05)
    print(f"machine: {machine_note()}; the app headless at 80x24, {examples:,} x ~40 words, its first two builds")
    with tempfile.TemporaryDirectory(prefix="rouge-tui-bench-mem-") as tmp:
        suite = view(root, [f"{n}.jsonl" for n in build_names(2)], Path(tmp) / "suite")
        for label, tree in trees(args.against):
            home = fresh_home()
            try:
                for kind in ("empty cache", "reopened"):
                    print(f"\n{label}, {kind}\n  {'stage':<16} {'at':>8} {'RSS':>9} {'peak':>9}")
                    for stage, at, now, peak in session(tree, suite, home):
                        print(f"  {stage:<16} {float(at):7.2f}s {now:>6} MB {peak:>6} MB")
            finally:
                drop(home)


if __name__ == "__main__":
    main()
