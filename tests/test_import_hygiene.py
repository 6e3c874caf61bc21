"""The core, the report and the CLI's headless commands never load Textual (the app's
start-up cost, and a layering rule: data flows files -> analysis -> report | app)."""

from __future__ import annotations

import subprocess
import sys

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
    "rouge_tui.diff",
    "rouge_tui.report",
    "rouge_tui.export",
    "rouge_tui.cli",
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
