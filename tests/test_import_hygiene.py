"""The core, the report and the CLI's headless commands never load Textual (the app's
start-up cost, and a layering rule: data flows files -> analysis -> report | app)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEADLESS = [
    "rouge_tui.rouge",
    "rouge_tui.rouge.engine",
    "rouge_tui.suite",
    "rouge_tui.analysis.pipeline",
    "rouge_tui.analysis.signals",
    "rouge_tui.store.marks",
    "rouge_tui.store.cache",
    "rouge_tui.review",
    "rouge_tui.session",
    "rouge_tui.diff",
    "rouge_tui.report",
    "rouge_tui.export",
    "rouge_tui.cli",
    "rouge_tui.importers.lm_eval",
    "rouge_tui.importers.inspect_ai",
]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_modules_load_neither_textual_nor_nltk(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'nltk'))\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


# What reads the suite's files and what scores: the app reaches them only through the core's
# entry (rouge_tui.review, rouge_tui.session, rouge_tui.diff); the registries are fine.
READERS_AND_ENGINES = {
    "rouge_tui.suite.suite", "rouge_tui.suite.records", "rouge_tui.files", "rouge_tui.suite.toml",
    "rouge_tui.importers", "rouge_tui.rouge.engine", "rouge_tui.analysis.pipeline", "rouge_tui.analysis.grounding",
    "rouge_tui.analysis.grounding_bulk",
}


def runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs (not those under ``if TYPE_CHECKING:``)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module:  # a module, or a name of one
            found.update({node.module, *(f"{node.module}.{alias.name}" for alias in node.names)})
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_the_app_reads_no_file_and_scores_nothing_itself() -> None:
    app = Path(__file__).resolve().parent.parent / "rouge_tui" / "app"
    reached = {
        f"{path.relative_to(app)}: {module}"
        for path in sorted(app.rglob("*.py"))
        for module in runtime_imports(path)
        if any(module == bad or module.startswith(bad + ".") for bad in READERS_AND_ENGINES)
    }
    assert reached == set()


def test_the_store_borrows_nothing_from_the_suite_reader() -> None:
    """store/ keeps the user's own files; it reads them through rouge_tui.files and raises
    rouge_tui.errors' error, which neither layer owns, and never reaches into suite/."""
    store = Path(__file__).resolve().parent.parent / "rouge_tui" / "store"
    reached = {
        f"{path.name}: {module}"
        for path in sorted(store.glob("*.py"))
        for module in runtime_imports(path)
        if module == "rouge_tui.suite" or module.startswith("rouge_tui.suite.")
    }
    assert reached == set()


def test_version_loads_nothing_heavy() -> None:
    code = (
        "import runpy, sys\n"
        "sys.argv = ['rouge-tui', '--version']\n"
        "from rouge_tui.cli import main\n"
        "main(['--version'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'textual', 'rich', 'rouge_score_rs', 'platformdirs'))\n"
        "print('|', ','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().endswith("|"), done.stdout


def test_score_with_rouge_scores_tokenizer_loads_only_what_it_uses(tmp_path) -> None:
    """`score` is budgeted against a plain script on rouge-score-rs, which loads no numpy
    (about 70 ms of a 2,000-pair run), no TOML parser, nothing that lists a suite (the
    two about 20 ms) and no settings' reader (8 ms), nor, for JSON Lines, the CSV and
    Parquet readers, nor hashlib (OpenSSL's load: it hashes no file); its scores still come out, for both kinds of file. (The whitespace
    tokenizer spells its words for rouge-score-rs with numpy.)"""
    refs, outs = tmp_path / "refs.jsonl", tmp_path / "outs.jsonl"
    refs.write_text('{"id": "a", "reference": "the pool timed out"}\n'
                    '{"id": "b", "references": ["x y", "the cache"]}\n', encoding="utf-8")
    outs.write_text('{"id": "a", "output": "the pool"}\n{"id": "b", "output": "the cache"}\n', encoding="utf-8")
    code = (
        "import sys\n"
        "from rouge_tui.cli import main\n"
        f"code = main(['score', {str(refs)!r}, {str(outs)!r}, '--tokenizer', 'rouge-score'])\n"
        "print('|', code, *(name in sys.modules for name in (\n"
        "    'numpy', 'tomllib', 'rouge_tui.suite.suite', 'rouge_tui.suite.toml', 'rouge_tui.analysis.settings',\n"
        "    'csv', 'rouge_tui.suite.csv_rows', 'rouge_tui.suite.parquet_rows', 'hashlib')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "| 0" + " False" * 9, done.stdout
    scores = [json.loads(line)["scores"]["rougeL"]["fmeasure"] for line in lines[:-1]]
    # a: LCS 2 of 2 and 4 tokens, F = 2 * 1 * 0.5 / 1.5; b: the second reference matches whole
    assert scores == [2 * 1.0 * 0.5 / 1.5, 1.0]


SAMPLE = Path(__file__).resolve().parent.parent / "sample_suites" / "incident-summaries"


def loaded_by(tmp_path: Path, *argv: str) -> tuple[int, set[str]]:
    """``rouge-tui ARGV``'s exit code and every module loaded by its end, in a fresh process
    with its own state folders under ``tmp_path`` (the same ones for every call)."""
    env = {**os.environ, **{var: str(tmp_path / var.lower()) for var in (
        "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")}}
    code = (
        "import contextlib, io, json, sys\n"
        "from rouge_tui.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): code = main({list(argv)!r})\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    code, modules = json.loads(done.stdout)
    return code, set(modules)


def test_score_loads_no_report_format_and_no_importer(tmp_path) -> None:
    """`score` writes JSON Lines of its own: the report's formats (text, Markdown, HTML,
    Parquet and what they say alike) and the importers' modules are other commands' (the
    parser reads only their registries' names); `report --format json` loads none of the
    other formats either."""
    refs, outs = tmp_path / "refs.jsonl", tmp_path / "outs.jsonl"
    refs.write_text('{"id": "a", "reference": "the pool timed out"}\n', encoding="utf-8")
    outs.write_text('{"id": "a", "output": "the pool"}\n', encoding="utf-8")
    others = ("text", "markdown", "page", "table", "examples", "words")  # not JSON's (contract)

    def loaded(*argv: str) -> list[str]:
        modules = loaded_by(tmp_path, *argv)[1]
        return sorted(m for m in modules if m.startswith(("rouge_tui.report.", "rouge_tui.importers.")))

    assert loaded("score", str(refs), str(outs), "--tokenizer", "rouge-score") == []
    json_report = loaded("report", str(SAMPLE), "--format", "json", "--no-cache")
    assert [m for m in json_report if m.removeprefix("rouge_tui.report.") in others] == []
    assert "rouge_tui.report.text" in loaded("report", str(SAMPLE), "--no-cache")


def test_a_report_of_cached_figures_loads_no_grounding(tmp_path) -> None:
    """The second report of the sample suite reads its figures from the cache and no text:
    what overlap cannot see (the grounding modules, rapidfuzz) is not loaded for it, though
    the first report, which found it, loaded both."""
    names = ("rapidfuzz", "rouge_tui.analysis.grounding", "rouge_tui.analysis.grounding_bulk")
    (first, first_modules), (second, second_modules) = (loaded_by(tmp_path, "report", str(SAMPLE)) for _ in range(2))
    assert (first, [name in first_modules for name in names]) == (1, [True, True, True])  # the sample drifts: 1
    assert (second, [name in second_modules for name in names]) == (1, [False, False, False])


def test_a_cold_report_of_the_sample_loads_no_numpy_ma(tmp_path) -> None:
    """SPEC budgets `report` on the bundled sample, `--no-cache`, as a whole process: numpy.ma
    (which np.unique loads to ask whether an array is masked) is on no part of its path,
    the grounding of every example and the history included."""
    code, modules = loaded_by(tmp_path, "report", str(SAMPLE), "--no-cache", "--history")
    assert (code, "rouge_tui.analysis.grounding_bulk" in modules, "numpy.ma" in modules) == (1, True, False)  # drifts: 1


def test_the_command_line_reaches_no_store_itself() -> None:
    """cli.py builds a request and writes what the core hands it: the paths, caches, marks
    and log under store/ are reached through the core (review, report, export), not from
    the command line (issue 40's shape)."""
    cli = Path(__file__).resolve().parent.parent / "rouge_tui" / "cli.py"
    reached = sorted(m for m in runtime_imports(cli) if m == "rouge_tui.store" or m.startswith("rouge_tui.store."))
    assert reached == []
