"""Command line: open (the app), report (the headless alarm) and score (JSON Lines).

Exit status: 0 success / within band, 1 drift beyond band (``report``), 2 unusable input,
with one line on stderr naming the file and line. ``score`` and ``report`` never import
Textual, so they start fast in a CI job.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rouge_tui import __version__

COMMANDS = ("open", "report", "score")
METRIC_CHOICES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
TOKENIZER_CHOICES = ("whitespace", "rouge-score")


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def bundled_suite() -> Path:
    """The sample suite that ``rouge-tui`` with no argument opens."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "sample_suites" / "incident-summaries", here / "sample_suites" / "incident-summaries"):
        if candidate.is_dir():
            return candidate
    raise CliError("the bundled sample suite is not installed here; pass a suite directory")


def _add_scoring_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", metavar="B", help="baseline build name (default: second newest)")
    parser.add_argument("--candidate", metavar="C", help="candidate build name (default: newest)")
    parser.add_argument("--metric", choices=METRIC_CHOICES, help="default: the suite's, else rougeL")
    parser.add_argument("--tokenizer", choices=TOKENIZER_CHOICES, help="default: the suite's, else whitespace")
    parser.add_argument("--stem", action="store_true", default=None, help="Porter stemming (rouge-score tokenizer)")
    parser.add_argument("-k", "--band-k", type=float, dest="k", metavar="K", help="band half-width in standard errors / sds")
    parser.add_argument("--no-cache", action="store_true", help="score from scratch, ignoring and not writing the cache")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rouge-tui",
        description="Review drift in an LLM system's outputs against frozen references with ROUGE.",
        epilog="With no command, 'rouge-tui [SUITE|DIR]' is 'rouge-tui open': no argument opens the bundled sample suite.",
    )
    parser.add_argument("--version", action="version", version=f"rouge-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{open,report,score}")

    p_open = sub.add_parser("open", help="open a suite (or a folder of suites) in the app")
    p_open.add_argument("suite", nargs="?", help="suite directory, or a directory of suites")
    _add_scoring_options(p_open)
    p_open.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal (select text over SSH)")

    p_report = sub.add_parser("report", help="print the comparison; exit 0 within band, 1 drift, 2 bad input")
    p_report.add_argument("suite", help="suite directory")
    _add_scoring_options(p_report)
    p_report.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p_report.add_argument("--top", type=int, default=10, metavar="N", help="how many most-moved outputs to list")

    p_score = sub.add_parser("score", help="score one outputs file against references, as JSON Lines")
    p_score.add_argument("references")
    p_score.add_argument("outputs")
    p_score.add_argument("--metrics", default="rougeL", help="comma-separated: rouge1,rouge2,rougeL,rougeLsum")
    p_score.add_argument("--tokenizer", choices=TOKENIZER_CHOICES, default="whitespace")
    p_score.add_argument("--stem", action="store_true")
    return parser


def _normalise_argv(argv: list[str]) -> list[str]:
    """``rouge-tui SUITE`` and bare ``rouge-tui`` mean ``rouge-tui open ...``."""
    if not argv:
        return ["open"]
    first = argv[0]
    if first in COMMANDS or first in ("-h", "--help", "--version"):
        return argv
    return ["open", *argv]


def cmd_report(args: argparse.Namespace) -> int:
    from rouge_tui import report
    from rouge_tui.snapshot import SnapshotStore, attach_texts, open_analysis, open_options
    from rouge_tui.state import History, MarkStore, ScoreCache, outputs_hash

    if args.top < 0:
        raise CliError("--top must be 0 or more")
    kwargs, warning = open_options(args)
    no_cache = kwargs.pop("no_cache")
    cache = None if no_cache else ScoreCache()
    # A snapshot of an earlier analysis of the same files and settings answers without
    # parsing the suite; its texts are only needed for the stale check of marked examples.
    opened = open_analysis(
        Path(args.suite),
        **kwargs,
        cache=cache,
        snapshots=None if no_cache else SnapshotStore(),
        texts=False,
    )
    if warning:
        print(f"rouge-tui: warning: {warning}", file=sys.stderr)
    analysis = opened.analysis
    suite, baseline, candidate = analysis.suite, analysis.baseline, analysis.candidate
    store = MarkStore(suite.name, suite.fingerprint, baseline.name, candidate.name)
    marks = store.load()
    if marks and not opened.texts:
        analysis = attach_texts(opened, cache)[0]
        if analysis.suite.fingerprint != suite.fingerprint:  # the files changed meanwhile
            store = MarkStore(analysis.suite.name, analysis.suite.fingerprint, baseline.name, candidate.name)
            marks = store.load()
        suite, baseline, candidate = analysis.suite, analysis.baseline, analysis.candidate
    if store.warning:
        print(f"rouge-tui: warning: {store.warning}", file=sys.stderr)
    base_out, cand_out = baseline.runs[0].outputs, candidate.runs[0].outputs
    current = {i: outputs_hash(base_out[i], cand_out[i]) for i in marks if i in base_out and i in cand_out}
    data = report.to_json(analysis, args.top, report.marks_json(marks, current))
    history = History(suite.name)
    change = history.reference_change(suite.fingerprint, (baseline.name, candidate.name))
    history.record(report.history_entry(data))
    for warning in (history.warning, change.message() if change else None):
        if warning:
            print(f"rouge-tui: warning: {warning}", file=sys.stderr)
    data["references_changed"] = (
        {"previous": change.previous, "current": change.current, "since": change.since} if change else None
    )
    # Known before a byte is written, so a reader that closes the pipe early (`| head`)
    # still gets the alarm's exit status.
    args.exit_code = 1 if analysis.comparison.verdict != "within-band" else 0
    if args.format == "json":
        sys.stdout.write(report.render_json(data))
    elif args.format == "markdown":
        sys.stdout.write(report.render_markdown(data))
    else:
        sys.stdout.write(_rich_to_string(report.render_text(data)))
    return args.exit_code


def _rich_to_string(renderable: object) -> str:
    """Render with Rich into a string, sized and coloured for stdout.

    Writing the string ourselves keeps one error path for every format: Rich's own
    broken-pipe handling would exit 1, which reads as drift.
    """
    import io
    import shutil

    from rich.console import Console

    tty = sys.stdout.isatty()
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=tty, width=shutil.get_terminal_size().columns if tty else None,
        highlight=False, emoji=False, markup=False, soft_wrap=False,
    )
    console.print(renderable)
    return buffer.getvalue()


def cmd_score(args: argparse.Namespace) -> int:
    from rouge_tui.metrics import METRICS, Scorer
    from rouge_tui.suite import read_outputs, read_references

    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise CliError(f"unknown metric {', '.join(unknown) or '(none)'}; expected some of {', '.join(METRICS)}")
    if args.stem and args.tokenizer != "rouge-score":
        raise CliError("--stem needs --tokenizer rouge-score (stemming is part of rouge-score's tokenizer)")
    references = read_references(Path(args.references))
    outputs = read_outputs(Path(args.outputs))
    scorer = Scorer(metrics, tokenizer=args.tokenizer, stem=args.stem)
    out = sys.stdout
    for example_id, text in outputs.items():
        refs = references.get(example_id)
        if refs is None:
            continue
        scores = scorer.score_multi(refs, text)
        line = {
            "id": example_id,
            "scores": {
                m: {"precision": s.precision, "recall": s.recall, "fmeasure": s.fmeasure}
                for m, s in ((m, scores[m]) for m in metrics)
            },
        }
        out.write(json.dumps(line, ensure_ascii=True) + "\n")
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    from rouge_tui.gcpause import pause_for_startup
    from rouge_tui.suite import find_suites, is_suite

    target = Path(args.suite) if args.suite else bundled_suite()
    if not target.exists():
        raise CliError(f"{target}: no such directory")
    if not target.is_dir():
        raise CliError(f"{target}: not a directory (a suite is a directory with references and builds/)")
    if is_suite(target):
        suites = [target]
    else:
        suites = find_suites(target)
        if not suites:
            raise CliError(f"{target}: not a suite (no references file and builds/) and holds no suites")
    prefetch = None
    pause_for_startup()  # until the app is mounted (RougeApp.on_mount)
    if len(suites) == 1:  # a big suite's first analysis starts before Textual is even imported
        from rouge_tui.app.prefetch import Prefetch
        from rouge_tui.snapshot import open_options

        prefetch = Prefetch.start(suites[0], open_options(args)[0])
    from rouge_tui.app.app import RougeApp

    app = RougeApp(suites=suites, options=args, prefetch=prefetch)
    app.run(mouse=not args.no_mouse)
    return app.return_code or 0


def main(argv: Sequence[str] | None = None) -> int:
    from rouge_tui.metrics import StemmerUnavailable
    from rouge_tui.scoring import UsageError
    from rouge_tui.suite import SuiteError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(_normalise_argv(argv))
    handlers = {"open": cmd_open, "report": cmd_report, "score": cmd_score}
    if args.command != "open":
        # One analysis and out: nothing it makes is cyclic garbage worth a collection.
        gc.disable()
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()  # a full disk or a closed pipe is met here, not at exit
        return code
    except (CliError, SuiteError, UsageError, StemmerUnavailable, ValueError) as exc:
        print(f"rouge-tui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped reading: not an error of ours, and not a reason to hide drift.
        _silence_stdout()
        return getattr(args, "exit_code", 0)
    except OSError as exc:
        # e.g. stdout on a full disk: exit 2 with one line, never 1 (which means drift)
        _silence_stdout()
        where = f"{exc.filename}: " if exc.filename else "writing the output: "
        print(f"rouge-tui: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what could not be
    written does not fail again at exit (the Python docs' advice for SIGPIPE)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
