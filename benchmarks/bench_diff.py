"""Opening the diff of two 2,000-word outputs in the app, from the key to the painted frame.

    python benchmarks/bench_diff.py [--words 2000] [--runs 9] [--metric rougeL]
    python benchmarks/bench_diff.py --profile out.prof   # cProfile of the timed opens

The budget (SPEC "Budgets"): the diff of two 2,000-word outputs opens in < 100 ms.

The real app (`RougeApp`, headless, in this process) on a generated suite of a few examples
whose reference and two outputs have about --words words each (deterministic: the outputs
are edits of the reference, about 70 % of its words kept, in sentences of 8+ words). At
120x40 and 80x24, after a warm-up open, each run times:

- open, made then: what `enter` on the table does (`action_open_diff`) until the first
  frame the diff screen paints with the diff in it (model computed there and then, panes
  laid out, every visible line rendered and turned into terminal output);
- open, made ahead: the same once the cursor has rested on the row for a moment, as a
  person's does while reading the table (the app then makes the row's diff model in the
  background, see `screens.common.warm_diff`), so the open only lays out and draws;
- mode: `d` (against the reference -> baseline vs candidate) until its frame is painted;
- step: `n` (the next example) until that example's frame is painted (made ahead while the
  previous one was shown);

then `escape` back to the table. Between actions the app is let settle (workers, timers and
the footer's recompose after a refresh), so each action is timed on its own. "Painted" is
the first `App._display` after the change that is laid out for it (every pane the mode
shows as high as its lines: a frame painted before the layout caught up shows the new text
at the last text's pane heights and is not counted): the headless driver drops frames, so
the hook renders the frame to the terminal string a real terminal would get
(`render_segments`), counts that time, and checks that the frame holds a word of the shown
output. Medians of --runs runs, of the wall clock and of the CPU time this process spent
meanwhile (steadier on a busy machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_suite import _edit, _sentences, _vocabulary

SIZES = ((120, 40), (80, 24))
# The diff view's panes each mode shows (`DiffView.compose`).
PANES = {"reference": {"diff-baseline", "diff-candidate", "diff-reference"}, "outputs": {"diff-rows"}}
EXAMPLES = 3
TIMEOUT = 30.0


def write_suite(root: Path, words: int, metric: str) -> Path:
    """A few examples, each a ~`words`-word reference and two edits of it (deterministic)."""
    rng = random.Random(2000)
    vocab, weights = _vocabulary(rng)
    suite = root / "diff-suite"
    (suite / "builds").mkdir(parents=True)
    refs, base, cand = [], [], []
    for index in range(EXAMPLES):
        reference = rng.choices(vocab, cum_weights=weights, k=words)
        key = f"long-{index}"
        refs.append({"id": key, "reference": _sentences(rng, reference)})
        base.append(
            {"id": key, "output": _sentences(rng, _edit(rng, reference, vocab, weights, 0.3))}
        )
        cand.append(
            {"id": key, "output": _sentences(rng, _edit(rng, reference, vocab, weights, 0.3))}
        )
    for name, rows in (
        ("references.jsonl", refs),
        ("builds/a-baseline.jsonl", base),
        ("builds/b-candidate.jsonl", cand),
    ):
        (suite / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (suite / "suite.toml").write_text(
        f'name = "diff bench"\nmetric = "{metric}"\n', encoding="utf-8"
    )
    return suite


class Frames:
    """Hooks `App._display`: stamps the first frame painted once `ready()` holds."""

    def __init__(self, app) -> None:
        self.app = app
        self.ready: Callable[[], bool] | None = None
        self.word = ""
        self.stamp: float | None = None
        self.cpu_stamp = 0.0
        self.painted = ""
        self.profiler = None  # a cProfile.Profile enabled only while an action is timed
        display = app._display

        def hooked(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is None or self.ready is None or not self.ready():
                return
            # What the driver would write to a real terminal (headless drops it).
            self.painted = renderable.render_segments(app.console)
            self.stamp = time.perf_counter()
            self.cpu_stamp = time.process_time()
            self.ready = None

        app._display = hooked

    async def time(
        self, action: Callable[[], None], ready: Callable[[], bool], word: str
    ) -> tuple[float, float]:
        """Seconds from `action()` to the first frame painted once `ready()` is true: wall
        clock, and CPU time of this process (all threads) meanwhile."""
        self.stamp, self.ready = None, ready
        if self.profiler:
            self.profiler.enable()
        start, cpu = time.perf_counter(), time.process_time()
        action()
        deadline = start + TIMEOUT
        while self.stamp is None:
            if time.perf_counter() > deadline:
                screen = self.app.screen
                state = {k: vars(screen).get(k) for k in ("position", "shown")}
                raise SystemExit(f"timed out: no frame after {action!r} on {screen!r} {state}")
            await asyncio.sleep(0)
        if self.profiler:
            self.profiler.disable()
        if word not in self.painted:
            raise SystemExit(f"the painted frame does not show {word!r}")
        return self.stamp - start, self.cpu_stamp - cpu


async def measure(
    suite: Path, size: tuple[int, int], runs: int, profiler=None
) -> dict[str, list[tuple[float, float]]]:
    from rouge_tui.app.app import RougeApp
    from rouge_tui.app.screens.common import WARM_AFTER
    from rouge_tui.app.screens.diff import DiffScreen
    from rouge_tui.app.screens.review import ReviewScreen
    from rouge_tui.app.widgets.diff_view import DiffView, TextPane
    from rouge_tui.gcpause import pause_for_startup

    pause_for_startup()  # as `rouge-tui SUITE` does (cli.cmd_open), until the app is mounted
    app = RougeApp([suite], argparse.Namespace())
    times: dict[str, list[tuple[float, float]]] = {"cold": [], "open": [], "mode": [], "step": []}
    async with app.run_test(size=size) as pilot:
        frames = Frames(app)
        deadline = time.monotonic() + TIMEOUT
        while not (
            isinstance(app.screen, ReviewScreen)
            and app.screen.review is not None
            and app.screen.review.texts_ready
        ):
            if time.monotonic() > deadline:
                raise SystemExit("the suite did not open")
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        review_screen = app.screen
        review = review_screen.review

        def first_word(index: int, which: str = "baseline") -> str:
            baseline, candidate = review.outputs(review.comparison.ids[index])
            return (baseline if which == "baseline" else candidate).split()[0]

        def diff_screen() -> DiffScreen:
            screen = app.screen
            assert isinstance(screen, DiffScreen)
            return screen

        def laid_out(screen: DiffScreen) -> bool:
            """True once the layout has caught up with the text shown: every pane of the
            mode is as high as its lines at its width (a frame painted before that shows the
            new text at the last text's heights and scroll range, and is not counted)."""
            view = screen.query_one(DiffView)
            names = PANES[view.mode]
            for pane in view.query(TextPane):
                if pane.id in names:
                    width, height = pane.size
                    if height != len(pane.lines(width)):
                        return False
            return True

        def shown(position: int) -> Callable[[], bool]:
            def check() -> bool:
                screen = app.screen
                return (
                    isinstance(screen, DiffScreen)
                    and screen.position == position
                    and screen.shown == screen.index
                    and laid_out(screen)
                )

            return check

        async def settle() -> None:
            """Let what an action left behind (the footer's recompose after the refresh,
            timers, workers) finish, so the next action is timed on its own."""
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.pause(0.05)
            await pilot.pause()

        for run in range(runs + 1):  # run 0 warms up (imports, caches)
            frames.profiler = profiler if run else None
            await settle()  # the screen's callback has put the cursor on the last example shown
            review_screen.table.cursor = 0
            await settle()
            index = int(review_screen.table.view[0])
            # Made on open: no diff model made ahead (the cursor has not rested yet).
            review._diffs.clear()
            cold = await frames.time(review_screen.action_open_diff, shown(0), first_word(index))
            await settle()
            diff_screen().action_back()
            while app.screen is not review_screen:
                await pilot.pause(0.005)
            # Made ahead: the cursor rests on the row long enough for its model to be made.
            review._diffs.clear()
            review_screen.table.cursor = 0
            await pilot.pause(WARM_AFTER + 0.1)
            await settle()
            opened = await frames.time(review_screen.action_open_diff, shown(0), first_word(index))
            screen = diff_screen()
            await settle()
            view = screen.query_one(DiffView)
            moded = await frames.time(
                screen.action_mode,
                lambda view=view, screen=screen: view.mode == "outputs" and laid_out(screen),
                first_word(index),
            )
            await settle()
            screen.action_mode()  # back to against the reference for the step
            await settle()
            position = screen.position + 1
            stepped = await frames.time(
                lambda screen=screen: screen.action_step(1),
                shown(position),
                first_word(int(screen.sequence[position])),
            )
            await settle()
            screen.action_back()
            while app.screen is not review_screen:
                await pilot.pause(0.005)
            if run:
                times["cold"].append(cold)
                times["open"].append(opened)
                times["mode"].append(moded)
                times["step"].append(stepped)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--metric", default="rougeL", choices=("rouge1", "rouge2", "rougeL", "rougeLsum")
    )
    parser.add_argument(
        "--profile", type=Path, help="write a cProfile of the timed actions (this thread) here"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            os.environ[var] = str(home / var.lower())
        suite = write_suite(home, args.words, args.metric)
        print(
            f"diff of two ~{args.words}-word outputs ({args.metric}), key to painted frame, "
            f"median of {args.runs} runs: wall clock (CPU of this process)"
        )
        print(
            f"{'size':>7} {'open, made then':>16} {'open, made ahead':>16} {'mode d':>16}"
            f" {'step n':>16}   open runs, wall (ms)"
        )
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
        for size in SIZES:
            times = asyncio.run(measure(suite, size, args.runs, profiler))
            cells = []
            for key in ("cold", "open", "mode", "step"):
                wall = statistics.median(t for t, _ in times[key]) * 1e3
                cpu = statistics.median(c for _, c in times[key]) * 1e3
                cells.append(f"{wall:6.1f} ({cpu:5.1f}) ms")
            each = " ".join(f"{t * 1e3:.0f}" for t, _ in times["cold"])
            print(f"{size[0]:>3}x{size[1]:<3} {' '.join(f'{c:>16}' for c in cells)}   {each}")
        if profiler:
            profiler.dump_stats(args.profile)
    print("budget: < 100 ms to open the diff of two 2,000-word outputs")


if __name__ == "__main__":
    main()
