"""Command line: open (the app), report (the headless alarm) and score (JSON Lines).

Exit status: 0 success or within band, 1 drift beyond band (``report``), 2 unusable input,
with one line on stderr naming the file and line. Every message goes through
``safetext.one_line``: nothing from a suite or a path reaches the terminal raw. ``score`` and
``report`` never import Textual.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import io
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rouge_tui import __version__

COMMANDS = ("open", "report", "score", "serve", "import")


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def bundled_suite() -> Path:
    """The sample suite that ``rouge-tui`` (and ``rouge-tui report``) with no suite opens."""
    here = Path(__file__).resolve().parent
    for folder in (here.parent / "sample_suites", here / "sample_suites"):
        if (folder / "incident-summaries").is_dir():
            return folder / "incident-summaries"
    raise CliError("the bundled sample suite is not installed here; name a suite directory")


def _layout_options(parser: argparse.ArgumentParser, *flags: str, name: bool = False) -> None:
    """How PATH is read: ``flags`` name the option (``--layout``; ``--format`` where it means
    nothing else), its choices the registries' (names only: no importer is loaded)."""
    from rouge_tui.importers import IMPORTERS, NATIVE_FORMATS

    parser.add_argument(*flags, dest="layout", choices=[*NATIVE_FORMATS, *IMPORTERS], metavar="NAME",
                        help=f"read PATH as this format, whatever its shape or suite.toml says: "
                             f"{', '.join([*NATIVE_FORMATS, *IMPORTERS])}")
    if name:
        parser.add_argument("--suite-name", metavar="NAME",
                            help="the suite to use where PATH holds several (an lm-eval folder with several tasks, "
                                 "a folder of suites)")


def _scoring_options(parser: argparse.ArgumentParser) -> None:
    from rouge_tui.rouge import METRICS, TOKENIZERS, metrics, tokenizers
    from rouge_tui.rouge.tokenizers import STEMMERS

    parser.add_argument("--baseline", metavar="B", help="baseline build (default: the one before the candidate)")
    parser.add_argument("--candidate", metavar="C", help="candidate build (default: the newest)")
    parser.add_argument("--metric", choices=list(METRICS), help=f"default: the suite's, else {metrics.DEFAULT}")
    parser.add_argument("--tokenizer", choices=list(TOKENIZERS), help=f"default: the suite's, else {tokenizers.DEFAULT}")
    parser.add_argument("--stem", action=argparse.BooleanOptionalAction, default=None,
                        help=f"Porter stemming ({STEMMERS} tokenizer); --no-stem: none, whatever suite.toml says")
    parser.add_argument("-k", "--band-k", type=float, dest="k", metavar="K",
                        help="band half-width in standard errors or standard deviations (up to 100)")
    parser.add_argument("--no-cache", action="store_true", help="score from scratch, neither reading nor writing the cache")


class _Parser(argparse.ArgumentParser):
    """argparse, its errors one line (exit 2) as every other error, not a usage block."""

    def error(self, message: str) -> None:  # exits: argparse's NoReturn
        command = self.prog.removeprefix("rouge-tui").strip()
        _say(f"error: {command + ': ' if command else ''}{message} (see {self.prog} --help)")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    # The registries alone (not the settings, nor suite.toml's reader): `score` needs no more.
    from rouge_tui.importers import IMPORTERS
    from rouge_tui.report import FORMATS
    from rouge_tui.rouge import METRICS, TOKENIZERS, metrics, tokenizers
    from rouge_tui.rouge.tokenizers import STEMMERS

    parser = _Parser(
        prog="rouge-tui",
        description="Review drift in an LLM system's outputs against frozen references with ROUGE.",
        epilog="With no command, 'rouge-tui [SUITE|DIR]' is 'rouge-tui open': no argument opens the bundled sample suite. "
               f"A SUITE may be another tool's outputs, read where they are ({', '.join(IMPORTERS)}).",
    )
    parser.add_argument("--version", action="version", version=f"rouge-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{open,report,score,serve,import}")

    opened = sub.add_parser("open", help="open a suite (or a folder of suites) in the app")
    opened.add_argument("suite", nargs="?", help="a suite, another tool's outputs, or a folder of either")
    _scoring_options(opened)
    _layout_options(opened, "--format", "--layout")
    opened.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal (select text over SSH)")

    report = sub.add_parser("report", help="print the comparison; exit 0 within band, 1 drift, 2 bad input")
    report.add_argument("suite", nargs="?", help="a suite, or another tool's outputs (default: the bundled sample)")
    _scoring_options(report)
    report.add_argument("--format", choices=list(FORMATS), default="text",
                        help="parquet: the per-example table, binary: to --out FILE or a redirect, never a terminal")
    report.add_argument("--out", metavar="FILE", help="write the report to FILE (replaced whole) instead of standard output")
    _layout_options(report, "--layout", name=True)
    # 10: compare.TEN, not imported here (numpy, for --help)
    report.add_argument("--top", type=int, default=10, metavar="N", help="how many most-moved outputs to list")
    report.add_argument("--history", action="store_true", help="add every build's n, mean and band")

    served = sub.add_parser("serve", help="the app in a browser (textual-serve), on 127.0.0.1 by default")
    served.add_argument("suite", nargs="?", help="a suite, another tool's outputs, or a folder of either")
    _layout_options(served, "--format", "--layout")
    served.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; there is no authentication)")
    served.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")

    score = sub.add_parser("score", help="score one outputs file against references, as JSON Lines")
    score.add_argument("references")
    score.add_argument("outputs")
    score.add_argument("--metrics", default=metrics.DEFAULT, help=f"comma-separated, of: {','.join(METRICS)}")
    score.add_argument("--tokenizer", choices=list(TOKENIZERS), default=tokenizers.DEFAULT)
    score.add_argument("--stem", action="store_true", help=f"Porter stemming ({STEMMERS} tokenizer)")
    imported = sub.add_parser("import", help="write another tool's outputs as a native suite",
                              description="Read each PATH as FORMAT and write its references and builds as a "
                                          "native suite in DIR. The PATHs' order is the history order: the "
                                          "last is the candidate. The inputs are never written.")
    imported.add_argument("import_format", metavar="FORMAT", choices=list(IMPORTERS), help=", ".join(IMPORTERS))
    imported.add_argument("paths", metavar="PATH", nargs="+", help="another tool's outputs, oldest first")
    imported.add_argument("--out", required=True, metavar="DIR", help="a new (or empty) folder for the suite")
    imported.add_argument("--suite-name", metavar="NAME",
                          help="the suite to import where a PATH holds several (an lm-eval folder with several tasks)")
    return parser


def _normalise(argv: list[str]) -> list[str]:
    """``rouge-tui SUITE`` and a bare ``rouge-tui`` mean ``rouge-tui open ...``."""
    if not argv:
        return ["open"]
    if argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version"):
        return argv
    return ["open", *argv]


def cmd_report(args: argparse.Namespace) -> int:
    import shutil

    from rouge_tui import report
    from rouge_tui.errors import SuiteError
    from rouge_tui.review import Request, open_review

    if args.top < 0:
        raise CliError("--top must be 0 or more")
    form = report.FORMATS[args.format]
    out = Path(args.out) if args.out else None
    if out is None and form.binary and _terminal(sys.stdout):
        raise CliError(f"--format {form.name} is binary: name a file with --out FILE, or redirect the output")
    request = Request.of(args.suite or bundled_suite(), args)
    if out is not None and out.resolve().is_relative_to(request.path.resolve()):
        raise CliError(f"--out {out}: inside the suite, which rouge-tui never writes; name a file elsewhere")
    if out is not None and out.is_dir():  # else the write's temporary file is what the error names
        raise CliError(f"--out {out}: a folder; name a file to write the report to")
    try:
        opened = open_review(request)
    except SuiteError:
        _folder_of_suites(request.path, args.suite_name)
        raise
    # What reads the texts first: figures cached from files changed since are computed again.
    review = opened.review() if form.texts else None
    history = opened.history() if args.history else None
    made = report.make(opened.analysis.figures, args.top, marks=opened.marks(), warnings=opened.warnings,
                        change=opened.change, history=history, texts=opened.texts, review=review)
    tty = out is None and sys.stdout.isatty()
    rendered = form.render(made, shutil.get_terminal_size().columns if tty else None)
    if out is not None:
        report.write(out, rendered)
        return opened.exit_code
    # The exit status is known before a byte is written, so a reader that closes the pipe
    # early (`| head`) still gets the alarm's.
    try:
        if isinstance(rendered, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(rendered)
        else:
            sys.stdout.write(rendered)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped reading: not an error of ours, and no reason to hide drift
        _silence_stdout()
    return opened.exit_code


def cmd_score(args: argparse.Namespace) -> int:
    import json

    from rouge_tui.rouge import METRICS, engine
    from rouge_tui.rouge.tokenizers import cannot_stem
    from rouge_tui.suite.records import read_references_file, read_run

    names = list(dict.fromkeys(m.strip() for m in args.metrics.split(",") if m.strip()))  # each once: one JSON key
    unknown = [m for m in names if m not in METRICS]
    if unknown or not names:
        raise CliError(f"unknown metric {', '.join(unknown) or '(none)'}; expected some of {', '.join(METRICS)}")
    if args.stem and (why := cannot_stem(args.tokenizer)):
        raise CliError(why)
    references = read_references_file(Path(args.references), hashed=False).texts
    outputs = read_run(Path(args.outputs), hashed=False).outputs
    ids = [i for i in outputs if i in references]
    if not ids:  # two files of other examples (the wrong pair?): nothing scored is no success
        raise CliError(f"no id is in both files ({len(outputs):,} in {args.outputs}, {len(references):,} "
                       f"in {args.references})")
    if len(ids) < max(len(outputs), len(references)):  # left out: said, never silently
        _say(f"note: {len(ids):,} ids in both files scored; left out {len(outputs) - len(ids):,} "
             f"only in {args.outputs} and {len(references) - len(ids):,} only in {args.references}")
    scores = engine.rows([references[i] for i in ids], [outputs[i] for i in ids], names, args.tokenizer, args.stem, ids=ids)
    dumps = json.dumps  # ASCII only: an id's control or bidi characters reach no terminal raw

    def line(key: str, row: tuple[tuple[float, float, float], ...]) -> str:
        # What json.dumps writes for the line's dict (a float is its repr), written out:
        # faster than json.dumps (benchmarks/README.md, "Figures behind the code").
        entry = ", ".join(f'"{m}": {{"precision": {p!r}, "recall": {r!r}, "fmeasure": {f!r}}}' for m, (p, r, f) in zip(names, row))
        return f'{{"id": {dumps(key)}, "scores": {{{entry}}}}}\n'

    sys.stdout.write("".join(map(line, ids, scores)))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from rouge_tui.suite.writer import import_suites

    suite = import_suites([Path(path) for path in args.paths], args.import_format, Path(args.out), args.suite_name)
    _say(f"wrote {suite.name!r}: {len(suite.builds)} builds, to {suite.path}")
    return 0


def _folder_of_suites(path: Path, name: str | None = None) -> None:
    """A CliError where ``path``, which does not open as a suite, is a folder of them (the
    app lists them; a report is of one), naming them where ``name`` (--suite-name) is none."""
    from rouge_tui.errors import SuiteError
    from rouge_tui.safetext import one_line
    from rouge_tui.suite.suite import list_suites

    try:
        suites = [ref for ref in list_suites(path) if ref.path != path]
    except SuiteError:
        return
    if suites and name is not None:
        from rouge_tui.suite.suite import named_children

        # (--suite-name picks among the native suites here by name or folder; a harness's
        # folder is a PATH of its own, its tasks named there)
        alike = [one_line(suite.path.name, 40) for suite in named_children(path, name)]
        if len(alike) > 1:  # (a copy of a suite keeps its suite.toml name)
            raise CliError(f"{one_line(str(path))}: {len(alike)} suites here are named {one_line(name, 60)!r}, in "
                           f"{', '.join(alike)}: name one by its folder")
        folders = list(dict.fromkeys(one_line(ref.path.name, 40) for ref in suites))
        listed = ", ".join(folders[:8]) + (" …" if len(folders) > 8 else "")
        raise CliError(f"{one_line(str(path))}: no suite named {one_line(name, 60)!r} in this folder of suites "
                       f"(by its suite.toml name or its folder: {listed}; a harness's folder is a PATH of its "
                       "own, with --suite-name for its task)")
    if suites:
        first = one_line(str(suites[0].path))
        raise CliError(f"{one_line(str(path))}: a folder of {len(suites)} {'suite' if len(suites) == 1 else 'suites'}, not a suite: report on one of them, "
                       f"such as {first}, or name one with --suite-name (rouge-tui {one_line(str(path))} lists them)")


def _suites(target: Path, layout: str | None) -> list:
    """The suites the app opens at ``target`` (`list_suites`); a CliError when there are none."""
    from rouge_tui.suite.suite import list_suites

    suites = list_suites(target, layout)
    if not suites:
        raise CliError(f"{target}: not a suite (no references file and builds/) and holds no suites")
    return suites


def terminal_problem(environ: Mapping[str, str]) -> str | None:
    """Why the app cannot draw where it would (None: it can). An editor's shell, TERM=dumb,
    cannot move the cursor, and got full colour; under serve the page's own process draws
    to the browser (Textual told so), with its server's TERM."""
    if environ.get("TERM") == "dumb" and not environ.get("TEXTUAL_DRIVER"):
        return ("this terminal (TERM=dumb) cannot draw the app: `rouge-tui report SUITE` prints the review, "
                "`rouge-tui serve SUITE` shows the app in a browser")
    return None


def cmd_open(args: argparse.Namespace) -> int:
    if problem := terminal_problem(os.environ):
        raise CliError(problem)
    target = Path(args.suite) if args.suite else bundled_suite()
    suites = _suites(target, args.layout)
    import asyncio
    import signal

    # Before any thread starts (numpy's start as it is imported): every thread inherits the
    # mask, and the app's own hang-up thread takes SIGHUP (RougeApp.watch_hang_up).
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    from rouge_tui.app.app import RougeApp

    app = RougeApp(suites, args)
    app.watch_hang_up()
    # Our own loop, left open: asyncio.run would join the worker threads at its close, so
    # q while a big suite is still scored waited for the scoring.
    app.run(mouse=not args.no_mouse, loop=asyncio.new_event_loop())
    if any(thread.is_alive() for thread in app.exports):
        _say("finishing the review being written…")
    app.finish_exports()  # a review being written is finished (or said not to be) below
    app.finish_saves()  # and a mark or note being saved
    if app.fatal:
        _say(f"error: {app.fatal}")
    for failure in app.export_failures:
        _say(failure)
    for path in app.exported:  # said once more, where it stays after the screen is gone
        _say(f"review written to {path}")
    # What else still runs is for a screen that is gone (a suite being scored, a diff, the
    # loop's idle pool threads), so it is not waited for: marks and notes are saved as they
    # are made, the exports were joined above, and a cache entry is written whole or not at
    # all (a killed write leaves a temporary file the cache prunes).
    os._exit(app.return_code or 0)


def cmd_serve(args: argparse.Namespace) -> int:
    target = Path(args.suite) if args.suite else bundled_suite()
    if not target.exists():
        raise CliError(f"{target}: no such file or directory")
    if not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: expected 1 to 65535")
    # What the browser would open, found before the server starts: a folder that is no suite
    # served a blank page, its error only in the server's log.
    _suites(target, args.layout)
    from rouge_tui.app.serve import serve

    serve(target, args.host, args.port, args.layout)
    return 0


def _say(message: str) -> None:
    """One escaped line on stderr, if there is a stderr (never on stdout)."""
    from rouge_tui.safetext import one_line

    if sys.stderr is not None:
        try:
            sys.stderr.write(f"rouge-tui: {one_line(message)}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def main(argv: Sequence[str] | None = None) -> int:
    # rouge-tui never multiplies matrices, but numpy's OpenBLAS starts a thread per core when
    # numpy is imported (nothing has imported it yet), CPU taken from the scoring on a small
    # machine. A user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    argv = list(sys.argv[1:] if argv is None else argv)
    if _closed(2):  # no stderr: keep fd 2 from going to the next file opened
        fd = os.open(os.devnull, os.O_WRONLY)
        if fd != 2:
            os.dup2(fd, 2)
            os.close(fd)
    if sys.stdout is None or _closed(1):
        _say("error: standard output is closed: nothing to write the result to")
        return 2
    if argv == ["--version"]:  # answered before the registries (and their imports) load
        sys.stdout.write(f"rouge-tui {__version__}\n")
        return 0
    argv = _normalise(argv)
    if argv[0] != "open":
        # One analysis and out: no cyclic garbage worth a collection, and the passes over a
        # big suite's objects cost (benchmarks/README.md, "Figures behind the code"); off
        # before the imports, which make thousands of objects too. Nor is any worth the
        # interpreter's last collection at exit, which walks them all once more: frozen
        # first (atexit runs before it).
        gc.disable()
        atexit.unregister(gc.freeze)  # once, however often main is called in one process
        atexit.register(gc.freeze)
    args = build_parser().parse_args(argv)
    from rouge_tui.errors import SuiteError

    if empty := _empty_path(args):
        _say(f"error: {empty} is an empty path (an unset variable?); name a file or folder")
        return 2

    handlers = {"open": cmd_open, "report": cmd_report, "score": cmd_score, "serve": cmd_serve, "import": cmd_import}
    restore = _whole_writes(args.command != "open")
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()  # a full disk or a closed pipe is met here, not at exit
        return code
    except (CliError, SuiteError, ValueError) as exc:  # a UsageError is a ValueError
        _say(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped reading: not an error of ours (report says its exit status itself).
        _silence_stdout()
        return 0
    except OSError as exc:
        # stdout on a full disk, say: exit 2 with one line, never 1 (which means drift)
        _silence_stdout()
        where = f"{exc.filename}: " if exc.filename else "writing the output: "
        _say(f"error: {where}{exc.strerror or exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug of ours must not exit 1 (drift)
        _say(f"error: internal error ({type(exc).__name__}: {exc}); please report it")
        return 2
    finally:
        restore()


def _empty_path(args: argparse.Namespace) -> str | None:
    """The first path argument given as "" (``report "$SUITE"`` with SUITE unset): it must
    never fall back to the bundled sample, whose verdict would page someone or silence them."""
    for name in ("suite", "references", "outputs", "out"):
        if getattr(args, name, None) == "":
            return "the suite" if name == "suite" else "--out" if name == "out" else f"the {name} file"
    if "" in (getattr(args, "paths", None) or ()):
        return "a PATH"
    return None


class _WholeWrites(io.RawIOBase):
    """Standard output's descriptor, every write made whole or an OSError: Python's own
    stdout lets a short write (a file past ``ulimit -f``, a disk filling mid-write) go by
    silently, and a report cut short must never pass for a whole one."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.done = False  # then what is left is dropped

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data: bytes) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")
        if self.done:
            return len(view)
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:])  # after a short write, the error comes here
        return done


def _whole_writes(wanted: bool) -> Callable[[], None]:
    """sys.stdout through `_WholeWrites` (when wanted and it is a real descriptor), and the
    function that puts it back (what is still buffered then is dropped: flushed already, or
    failed)."""
    stdout = sys.stdout
    try:
        fd = stdout.fileno() if wanted else -1
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        fd = -1
    if fd < 0:
        return lambda: None
    stdout.flush()
    raw = _WholeWrites(fd)
    wrapper = io.TextIOWrapper(io.BufferedWriter(raw), encoding=stdout.encoding,
                               errors=stdout.errors, line_buffering=stdout.line_buffering)
    sys.stdout = wrapper

    def restore() -> None:
        sys.stdout = stdout
        raw.done = True
        wrapper.detach().detach()  # leaves fd open (closing the raw object would close it)

    return restore


def _terminal(stream: object) -> bool:
    """Whether ``stream``'s descriptor is a terminal (`_WholeWrites` says no for its own)."""
    try:
        return os.isatty(stream.fileno())  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what could not be
    written does not fail again at exit (the Python docs' advice for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
