"""The app on a big suite, headless: time to the first useful frame, cold and cached, peak
memory, and the time to open the diff of two 2,000-word outputs through the diff screen.

    python benchmarks/make_suite.py /tmp/bench-100k --examples 100000 --words 40
    python benchmarks/bench_app_open.py /tmp/bench-100k --repeat 3
    python benchmarks/bench_app_open.py /tmp/bench-100k --against /tmp/rouge-old


Each measurement runs in its own process (``App.run_test``, 80x24), so the peak RSS
(``resource.getrusage``) is that run's alone, and the clock starts before the process is
spawned: interpreter start-up and imports count, as they do for a person. "First frame" is
when the movers table shows the most-moved example (from a cold ``rouge-tui report``) in
row 1 under the cursor and the screen has handled the refresh that draws it. "Cold" has a
fresh cache directory; "cached" opens the same suite again with that directory. "texts in"
is when the suite's texts are loaded behind a frame drawn from the analysis snapshot.
"forked peak" is the largest process the app forked and waited for (a big suite's first
analysis runs in one, see rouge_tui/app/prefetch.py), so no memory goes uncounted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLL = 0.005  # seconds between looks at the screen
TIMEOUT = 300.0


def _env(home: Path, root: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def _children_peak_mb() -> float:
    """The largest process the app forked and waited for (the prefetch, and the one it forks
    to score), so memory moved out of the app's own process is still counted."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


# --------------------------------------------------------------------------- child: open


async def _open(suite: Path, expected: str, t0: float) -> dict[str, float]:
    import asyncio

    # As `rouge-tui SUITE` does (cli.cmd_open): the collector held until the app is
    # mounted, the prefetch before Textual is imported.
    from rouge_tui.gcpause import pause_for_startup

    pause_for_startup()
    from rouge_tui.app.prefetch import Prefetch
    from rouge_tui.snapshot import open_options

    prefetch = Prefetch.start(suite, open_options(argparse.Namespace())[0])

    from rouge_tui.app.app import RougeApp
    from rouge_tui.app.screens.review import ReviewScreen

    app = RougeApp([suite], argparse.Namespace(), prefetch=prefetch)
    result: dict[str, float] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            screen = app.screen
            if isinstance(screen, ReviewScreen) and screen.error:
                raise SystemExit(f"could not open: {screen.error}")
            review = screen.review if isinstance(screen, ReviewScreen) else None
            table = screen.table if review is not None else None
            if (
                review is not None
                and table is not None
                and table.row_count
                and table.cursor == 0
                and review.comparison.ids[int(table.view[0])] == expected
            ):
                # Let the screen handle what is pending (the refresh with the rows), then
                # draw it. Not pilot.pause(None): it waits for the whole process to idle,
                # and the texts load in the background meanwhile.
                await pilot._wait_for_screen()
                app.screen._on_timer_update()
                result["first_frame"] = time.time() - t0
                result["peak_first_mb"] = _peak_mb()
                break
            # A plain sleep between looks: pilot.pause() also redraws the screen, and a
            # redraw every few ms took a core's worth of CPU from the open it measures.
            await asyncio.sleep(POLL)
        else:
            raise SystemExit("timed out before the first frame")
        shot = app.export_screenshot()
        if expected not in shot:
            raise SystemExit(f"{expected!r} is not on the screen")
        assert isinstance(screen, ReviewScreen) and screen.review is not None
        result["snapshot"] = float(not screen.review.texts_ready)
        while not screen.review.texts_ready and time.monotonic() < deadline:
            await asyncio.sleep(POLL)
        result["texts_in"] = time.time() - t0
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        result["peak_mb"] = _peak_mb()
    result["children_peak_mb"] = _children_peak_mb()  # after exit: the prefetch is reaped
    return result


# --------------------------------------------------------------------------- child: diff


def _words(rng: random.Random, vocabulary: list[str], count: int) -> str:
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def write_diff_suite(root: Path, words: int) -> Path:
    """One example whose reference and two outputs have ``words`` words each, the outputs
    paraphrases of the reference (about 60% of its words kept in place)."""
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(800)]
    reference = _words(rng, vocabulary, words).split()

    def paraphrase() -> str:
        kept = [w if rng.random() < 0.6 else rng.choice(vocabulary) for w in reference]
        return " ".join(kept)

    suite = root / "diff-suite"
    (suite / "builds").mkdir(parents=True)
    lines = {
        "references.jsonl": {"id": "long", "reference": " ".join(reference)},
        "builds/a.jsonl": {"id": "long", "output": paraphrase()},
        "builds/b.jsonl": {"id": "long", "output": paraphrase()},
    }
    for name, record in lines.items():
        (suite / name).write_text(json.dumps(record) + "\n", encoding="utf-8")
    return suite


async def _diff(words: int) -> dict[str, float]:
    import asyncio

    from rouge_tui.app.app import RougeApp
    from rouge_tui.app.screens.diff import DiffScreen
    from rouge_tui.app.screens.review import ReviewScreen

    with tempfile.TemporaryDirectory() as tmp:
        suite = write_diff_suite(Path(tmp), words)
        app = RougeApp([suite], argparse.Namespace())
        result: dict[str, float] = {}
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            while not (isinstance(screen, ReviewScreen) and screen.review is not None):
                await pilot.pause(POLL)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            # What `enter` does, called directly: pilot.press adds its own idle waits.
            start = time.perf_counter()
            screen.action_open_diff()
            diff = app.screen
            while not (isinstance(diff, DiffScreen) and diff.shown == diff.index):
                await asyncio.sleep(0.001)
                diff = app.screen
            await pilot._wait_for_screen()
            result["diff_open_ms"] = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            app.export_screenshot()  # a whole render of the screen now showing the diff
            result["diff_render_ms"] = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            diff.action_mode()  # `d`: baseline vs candidate
            await pilot._wait_for_screen()
            app.export_screenshot()
            result["diff_mode_ms"] = (time.perf_counter() - start) * 1000
    return result


def child(args: argparse.Namespace) -> None:
    import asyncio

    if args.child == "diff":
        result = asyncio.run(_diff(args.words))
    else:
        result = asyncio.run(_open(Path(args.suite), args.expected, args.t0))
    print(json.dumps(result))


# --------------------------------------------------------------------------- parent


def _run(args: list[str], env: dict[str, str]) -> dict[str, float]:
    t0 = time.time()
    command = [sys.executable, __file__, *args, "--t0", repr(t0)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def most_moved(suite: Path) -> str:
    """The top mover by a cold ``rouge-tui report`` in a throw-away state directory."""
    with tempfile.TemporaryDirectory() as home:
        command = [sys.executable, "-m", "rouge_tui", "report", str(suite), "--format", "json"]
        done = subprocess.run(
            [*command, "--top", "1"],
            env=_env(Path(home)),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode not in (0, 1):
            raise SystemExit(f"report failed: {done.stderr}")
        return json.loads(done.stdout)["top"][0]["id"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", nargs="?", default="/tmp/bench-100k")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--words", type=int, default=2000, help="words per output in the diff")
    parser.add_argument(
        "--against",
        type=Path,
        help="another rouge-tui source tree: its cold and cached opens are timed in turn with "
        "this tree's, and the ratios printed",
    )
    parser.add_argument("--child", choices=("open", "diff"), help=argparse.SUPPRESS)
    parser.add_argument("--expected", help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    suite = Path(args.suite)
    if not (suite / "builds").is_dir():
        raise SystemExit(f"{suite}: no suite; make one with benchmarks/make_suite.py")
    expected = most_moved(suite)
    rows: dict[str, list[dict[str, float]]] = {"cold": [], "cached": [], "diff": []}
    other: dict[str, list[dict[str, float]]] = {"cold": [], "cached": []}
    opening = ["--child", "open", str(suite), "--expected", expected]
    for _ in range(args.repeat):
        for root, into in [(ROOT, rows)] + ([(args.against, other)] if args.against else []):
            with tempfile.TemporaryDirectory() as home:
                env = _env(Path(home), root)
                into["cold"].append(_run(opening, env))
                into["cached"].append(_run(opening, env))
        with tempfile.TemporaryDirectory() as home:
            diff_args = ["--child", "diff", "--words", str(args.words)]
            rows["diff"].append(_run(diff_args, _env(Path(home))))
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    def median(kind: str, key: str) -> float:
        return statistics.median(row[key] for row in rows[kind])

    print(f"suite {suite} · most-moved {expected!r} · medians of {args.repeat} runs")
    print(
        f"{'open':<8} {'first frame':>12} {'texts in':>10} {'peak@frame':>11} {'peak':>8}"
        f" {'forked peak':>12}"
    )
    for kind in ("cold", "cached"):
        print(
            f"{kind:<8} {median(kind, 'first_frame'):>11.2f}s {median(kind, 'texts_in'):>9.2f}s "
            f"{median(kind, 'peak_first_mb'):>8.0f} MB {median(kind, 'peak_mb'):>5.0f} MB"
            f" {median(kind, 'children_peak_mb'):>9.0f} MB"
        )
    hits = [row["snapshot"] for row in rows["cached"]]
    print(f"cached runs drawn from a snapshot: {int(sum(hits))}/{len(hits)}")
    print(
        f"diff of two {args.words}-word outputs: open {median('diff', 'diff_open_ms'):.0f} ms "
        f"(+ {median('diff', 'diff_render_ms'):.0f} ms to render the screen), "
        f"switch mode and render {median('diff', 'diff_mode_ms'):.0f} ms"
    )
    for kind in ("cold", "cached"):
        each = ", ".join(f"{row['first_frame']:.2f}" for row in rows[kind])
        print(f"  {kind} first frames: {each} s")
    if args.against:
        print(f"against {args.against} (its opens ran in turn with this tree's):")
        for kind in ("cold", "cached"):
            theirs = statistics.median(row["first_frame"] for row in other[kind])
            ours = median(kind, "first_frame")
            paired = statistics.median(
                a["first_frame"] / b["first_frame"] for a, b in zip(rows[kind], other[kind])
            )
            print(
                f"  {kind}: {theirs:.2f}s there, {ours:.2f}s here; here/there {ours / theirs:.2f}"
                f" (median of paired ratios {paired:.2f})"
            )


if __name__ == "__main__":
    main()
