"""The README's "Guarantees" name their tests: every named test must exist, so a promise
cannot outlive the test that backed it (a rename or a deletion fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_")
    }


def _guarantees() -> list[str]:
    """The bullets of the README's Guarantees section, each joined into one line."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Guarantees\n", 1)[1].split("\n## ", 1)[0]
    return [" ".join(item.split()) for item in re.split(r"\n- ", "\n" + section)[1:]]


def test_every_test_the_readme_names_exists() -> None:
    named = NAMED.findall(README.read_text(encoding="utf-8"))
    assert len(named) > 20
    missing = []
    for file, test in named:
        path = ROOT / file
        if not path.is_file() or (test and test not in _tests_in(path)):
            missing.append(f"{file}::{test}" if test else file)
    assert missing == []


def test_every_guarantee_names_a_test() -> None:
    bullets = _guarantees()
    assert len(bullets) >= 15
    unbacked = [bullet[:80] for bullet in bullets if not NAMED.search(bullet)]
    assert unbacked == []


def test_the_check_catches_a_test_that_is_gone() -> None:
    """The oracle for the first test: a name that is not defined is reported."""
    assert "test_every_test_the_readme_names_exists" in _tests_in(Path(__file__))
    assert "test_state_is_gone" not in _tests_in(ROOT / "tests" / "test_paths.py")
