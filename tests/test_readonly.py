"""Read-only everywhere it should be, and file names nobody vetted.

The suite directory is never written (SPEC: it must work on a read-only mount): a copy is made
read-only (``chmod -R a-w``; tests run as root here, which chmod does not stop, so the real
check is the tree's listing, modes, sizes, mtimes and contents before and after). Everything
rouge-tui writes lands in its platformdirs directories (or the export path it names): checked
by snapshotting the whole temporary tree around subprocess runs, and in-process by an audit
hook that records every file opened for writing, renamed, created or removed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from app_helpers import settle
from safety_helpers import SAMPLE, assert_one_line_error, cli, jsonl, small_suite, tree

from rouge_tui import cli as cli_module
from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.export import export_review
from rouge_tui.review import Review
from rouge_tui.store.paths import cache_dir, config_dir, data_dir
from rouge_tui.suite.suite import open_suite

# ---------------------------------------------------------------------- an audit of writes

_WATCH: dict[str, list | None] = {"writes": None}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": 1,
    "os.rmdir": 1,
    "os.mkdir": 1,
    "os.chmod": 1,
    "os.chown": 1,
    "os.utime": 1,
    "os.truncate": 1,
    "os.symlink": 2,
    "os.link": 2,
    "os.rename": 2,
    "os.replace": 2,
}


def _audit(event: str, args: tuple) -> None:
    writes = _WATCH["writes"]
    if writes is None:
        return
    if event == "open":
        path, mode, flags = args
        if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        ):
            paths = [path]
        else:
            return
    elif event in _PATH_EVENTS:
        paths = list(args[: _PATH_EVENTS[event]])
    else:
        return
    for path in paths:
        if isinstance(path, (str, bytes, os.PathLike)):
            writes.append((event, os.path.abspath(os.fsdecode(path))))


sys.addaudithook(_audit)  # audit hooks cannot be removed: it records only while watched


class Writes:
    """Every write rouge-tui does in the ``with`` block, as (event, absolute path)."""

    def __enter__(self) -> list[tuple[str, str]]:
        self.found: list[tuple[str, str]] = []
        _WATCH["writes"] = self.found
        return self.found

    def __exit__(self, *exc: object) -> None:
        _WATCH["writes"] = None


def _inside(path: str, *roots: Path) -> bool:
    return any(Path(path).resolve().is_relative_to(root.resolve()) for root in roots)


def _outside(writes: list[tuple[str, str]], *roots: Path) -> list[tuple[str, str]]:
    """Writes outside ``roots``; making a root's missing parents (``mkdir -p``) is allowed."""
    return [
        (event, path)
        for event, path in writes
        if not _inside(path, *roots)
        and not (event == "os.mkdir" and any(root.resolve().is_relative_to(path) for root in roots))
    ]


def state_dirs() -> tuple[Path, Path, Path]:
    return config_dir(), data_dir(), cache_dir()


def read_only_copy(tmp_path: Path, source: Path = SAMPLE) -> Path:
    suite = tmp_path / "ro" / "suite"
    shutil.copytree(source, suite)
    for path in [suite, *suite.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return suite


# ---------------------------------------------------------------------- the suite is never written


@pytest.mark.slow
def test_report_and_score_write_nothing_outside_their_state_dirs(tmp_path: Path) -> None:
    suite = read_only_copy(tmp_path)
    home = tmp_path / "xdg"
    work = tmp_path / "cwd"
    work.mkdir()
    before = tree(tmp_path)
    builds = sorted((suite / "builds").glob("*.jsonl"))
    runs = [
        cli("report", str(suite), home=home, cwd=work),
        cli("report", str(suite), "--format", "markdown", home=home, cwd=work),  # cached
        cli("score", str(suite / "references.jsonl"), str(builds[0]), home=home, cwd=work),
    ]
    assert [run.returncode for run in runs] == [1, 1, 0], [r.stderr for r in runs]
    after = tree(tmp_path)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    outside = [k for k in changed if k != "xdg" and not k.startswith("xdg/xdg_")]
    assert outside == [], outside  # not the suite, not the cwd, not HOME
    assert any(k.startswith("xdg/xdg_cache_home/rouge-tui/") for k in changed)  # it did write


async def test_app_open_mark_note_export_never_writes_the_suite(tmp_path: Path) -> None:
    from rouge_tui.app.app import RougeApp

    suite = read_only_copy(tmp_path, SAMPLE)
    before = tree(suite)
    app = RougeApp(suites=[suite], options=argparse.Namespace())
    with Writes() as writes:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("a", "down", "b", "c")
            app.screen.query_one("TextArea").text = "checked"
            await pilot.press("ctrl+s", "e")
            await settle(pilot)
            await pilot.press("enter")  # the diff screen
            await settle(pilot)
            await pilot.press("u", "e")
            await settle(pilot)
    assert tree(suite) == before
    exports = list((data_dir() / "reviews").glob("*.md"))
    assert exports, [n.message for n in app._notifications]
    assert writes, "the audit saw no write at all"
    outside = _outside(writes, *state_dirs())
    assert outside == [], outside
    assert any(Path(w[1]).parent.name == "marks" for w in writes)


# ---------------------------------------------------------------------- names nobody vetted

HOSTILE_NAMES = [
    "../../../../../tmp/escaped",
    "/etc/passwd",
    "a/b\\c/..",
    "..",
    "\x1b]2;pwned\x07\x1b[31m\u202eevil\x00",
    "x" * 10_000,
]

BUILD_FILES = [
    "a..b",  # dots inside a name
    "\x1b[31mred\x07",  # controls in a file name
    "ünïcødé build ✓",
    "n" * 240,  # near the file name limit
]


@pytest.mark.parametrize(
    "name", HOSTILE_NAMES, ids=["dotdot", "abs", "slashes", "dots", "ctl", "10k"]
)
def test_hostile_suite_build_and_id_names_write_only_inside_state_dirs(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.toml").write_text(f"name = {json.dumps(name)}\n", encoding="utf-8")
    ids = ["../x", "/abs", "a\x00b", "\x1b[2J", "i" * 10_000]
    jsonl(
        suite / "references.jsonl",
        ({"id": i, "reference": f"ref {n} text"} for n, i in enumerate(ids)),
    )
    for rank, build in enumerate(BUILD_FILES):
        outputs = ({"id": i, "output": f"ref {n} {'text' * rank}"} for n, i in enumerate(ids))
        jsonl(suite / "builds" / f"{build}.jsonl", outputs)
    before = tree(tmp_path)

    with Writes() as writes:
        code = cli_module.main(["report", str(suite), "--format", "json"])
        analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
        review = Review(analysis, analysis.texts.result())
        for example_id in ids:
            review.set_mark(example_id, "fine", f"note on {example_id[:20]}")
        exported = export_review(review)
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    assert json.loads(out.out)["suite"] == name
    marks = json.loads(review.store.path.read_text(encoding="utf-8"))["marks"]
    assert {mark["id"] for mark in marks} == set(ids)

    roots = state_dirs()
    outside = _outside(writes, *roots)
    assert outside == [], outside
    for path in [*exported, review.store.path, *(Path(w[1]) for w in writes if w[0] != "os.mkdir")]:
        assert _inside(str(path), *roots)
        assert len(path.name.encode()) <= 255
        assert path.name.isascii() and path.name.isprintable()
    assert {path.parent for path in exported} == {data_dir() / "reviews"}
    # on disk, too: the suite untouched, nothing new outside the state directories
    after = tree(tmp_path)
    changed = [k for k in set(before) | set(after) if before.get(k) != after.get(k)]
    assert [k for k in changed if not _inside(str(tmp_path / k), *roots)] == []


# ---------------------------------------------------------------------- suite.toml is data

TOML_AS_CODE = [
    ("metric = \"__import__('os').system('touch PWNED')\"\n", "suite.toml:1", "unknown metric"),
    ('name = "ok"\nexec = "touch PWNED"\n', "suite.toml:2", "unknown key 'exec'"),
    ('name = "ok"\n[hooks]\npre = "$(touch PWNED)"\n', "suite.toml", "unknown key 'hooks'"),
    ('include = "/etc/passwd"\n', "suite.toml:1", "unknown key 'include'"),
    ('[fields]\nid = "id"\nscript = "`touch PWNED`"\n', "suite.toml:3", "fields.script"),
    (
        "name = 'x'\n[band]\nk = 'os.system(\"touch PWNED\")'\n",
        "suite.toml:3",
        "band.k must be a number",
    ),
]


@pytest.mark.parametrize("toml, where, what", TOML_AS_CODE)
def test_suite_toml_is_data_only(tmp_path: Path, toml: str, where: str, what: str) -> None:
    suite = small_suite(tmp_path / "suite")
    (suite / "suite.toml").write_text(toml, encoding="utf-8")
    work = tmp_path / "cwd"
    work.mkdir()
    result = cli("report", str(suite), home=tmp_path / "xdg", cwd=work)
    assert result.returncode == 2
    assert_one_line_error(result.stdout, result.stderr, where, what)
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists()


def test_suite_toml_that_names_paths_is_only_a_name(tmp_path: Path) -> None:
    """A path-looking name is a name: nothing is read from or written to that path."""
    suite = small_suite(tmp_path / "suite", name=str(tmp_path / "elsewhere" / "x.json"))
    result = cli("report", str(suite), "--format", "json", home=tmp_path / "xdg")
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["suite"] == str(tmp_path / "elsewhere" / "x.json")
    assert not (tmp_path / "elsewhere").exists()
