"""Tests for rouge_tui.suite.suite: opening a suite (settings, references file, builds listed
without reading a record), picking builds, and reading only the builds in use."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from suite_helpers import ROOT, error_of, jsonl, make_suite
from toy_format import install, write_toy

from rouge_tui.errors import SuiteError
from rouge_tui.files import file_digest
from rouge_tui.suite.records import Fields, reference_fingerprint
from rouge_tui.suite.suite import (
    BuildEntry,
    Suite,
    SuiteRef,
    build_digests,
    directory_problem,
    is_suite,
    list_suites,
    open_suite,
    read_build,
    read_references,
    references_digest,
)
from rouge_tui.suite.toml import SuiteSettings


def names(suite: Suite) -> list[str]:
    return [entry.name for entry in suite.builds]


# --------------------------------------------------------------------------- opening


def test_opens_a_plain_suite(tmp_path: Path) -> None:
    suite = open_suite(make_suite(tmp_path / "incidents"))
    root = tmp_path / "incidents"
    assert (suite.path, suite.name, suite.settings) == (root, "incidents", SuiteSettings())
    assert suite.references_path == root / "references.jsonl"
    assert suite.builds == [
        BuildEntry("1-old", root / "builds/1-old.jsonl", (root / "builds/1-old.jsonl",)),
        BuildEntry("2-new", root / "builds/2-new.jsonl", (root / "builds/2-new.jsonl",)),
    ]
    references = read_references(suite)
    assert references.texts == {"a": ("the cat sat",), "b": ("a dog ran",)}
    assert references.fingerprint == reference_fingerprint(
        {"b": ("a dog ran",), "a": ("the cat sat",)}
    )
    assert references.digest == file_digest(root / "references.jsonl")
    old, new = (read_build(suite, entry) for entry in suite.builds)
    assert (old.name, old.path, old.ids, old.partial) == (
        "1-old",
        root / "builds/1-old.jsonl",
        ["a", "b"],
        [],
    )
    assert old.runs[0].outputs == {"a": "the cat", "b": "dog ran"}
    assert new.runs[0].outputs["b"] == ""  # an empty output is valid
    assert old.runs[0].digest == file_digest(root / "builds/1-old.jsonl")


def test_the_name_comes_from_suite_toml_and_fields_reach_the_readers(tmp_path: Path) -> None:
    toml = (
        'name = "Incident summaries"\n'
        '[fields]\nid = "key"\nreference = "summary"\noutput = "text"\n'
    )
    suite = open_suite(
        make_suite(
            tmp_path / "s",
            toml=toml,
            references=jsonl({"key": "a", "summary": "the cat"}),
            builds={
                "x.jsonl": jsonl({"key": "a", "text": "cat"}),
                "y.csv": "key,text\na,the cat\n",
            },
        )
    )
    assert suite.name == "Incident summaries"
    assert suite.settings.fields == Fields(id="key", reference="summary", output="text")
    assert read_references(suite).texts == {"a": ("the cat",)}
    assert read_build(suite, suite.build("y")).runs[0].outputs == {"a": "the cat"}
    assert suite.build("x").run_files == (tmp_path / "s/builds/x.jsonl",)


def test_builds_are_ordered_by_plain_string_sort(tmp_path: Path) -> None:
    order = ["b", "a", "B", "10", "9", "2026-11-27_9f03aa", "2026-11-20_4be1c0"]
    record = jsonl({"id": "a", "output": "x"})
    suite = open_suite(make_suite(tmp_path / "s", builds={f"{n}.jsonl": record for n in order}))
    # By hand: digits before capitals before lower case; "10" before "9".
    assert names(suite) == ["10", "2026-11-20_4be1c0", "2026-11-27_9f03aa", "9", "B", "a", "b"]


def test_replicate_runs_partial_ids_and_file_order(tmp_path: Path) -> None:
    runs = {
        "run-2.jsonl": jsonl(*({"id": k, "output": "two"} for k in ["c", "a", "d"])),
        "run-1.jsonl": jsonl(*({"id": k, "output": "one"} for k in ["b", "a", "c"])),
        "run-3.jsonl.gz": "",  # replaced by a gzip file below
        "notes.txt": "not a run",
        ".hidden.jsonl": "not a run either",
    }
    suite_dir = make_suite(tmp_path / "s", builds={"r": runs})
    import gzip

    (suite_dir / "builds/r/run-3.jsonl.gz").write_bytes(
        gzip.compress(jsonl(*({"id": k, "output": "three"} for k in ["a", "c", "e", "b"])).encode())
    )
    suite = open_suite(suite_dir)
    entry = suite.build("r")
    assert [p.name for p in entry.run_files] == ["run-1.jsonl", "run-2.jsonl", "run-3.jsonl.gz"]
    build = read_build(suite, entry)
    assert build.path == suite_dir / "builds/r"
    assert build.ids == ["a", "c"]  # in every run, in the first run's order
    assert build.partial == ["b", "d", "e"]  # by hand: b lacks run 2, d runs 1 and 3, e 1 and 2
    assert [run.outputs["a"] for run in build.runs] == ["one", "two", "three"]


def test_hidden_and_other_entries_under_builds_are_ignored(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "builds/.DS_Store").write_bytes(b"\x00\x01junk")
    (suite / "builds/._1-old.jsonl").write_bytes(b"\x00\x05\x16\x07 AppleDouble")
    (suite / "builds/README.md").write_text("# builds\n")
    (suite / "builds/.git").mkdir()
    (suite / "builds/loop").symlink_to("loop")
    (suite / "builds/dangling").symlink_to("nowhere")
    assert names(open_suite(suite)) == ["1-old", "2-new"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            "no-references",
            (
                ": missing references file (expected references.jsonl, "
                "references.jsonl.gz, references.csv or references.parquet)"
            ),
        ),
        ("two-references", ": two references files, references.jsonl and references.csv: keep one"),
        ("no-builds", "/builds: missing builds directory"),
        ("builds-a-file", "/builds: not a directory (builds/ holds the build files)"),
    ],
)
def test_what_makes_a_suite_unusable(tmp_path: Path, change: str, expected: str) -> None:
    suite = make_suite(tmp_path / "s", builds={})
    if change == "no-references":
        (suite / "references.jsonl").unlink()
    elif change == "two-references":
        (suite / "references.csv").write_text("id,reference\na,x\n")
    else:
        (suite / "builds").rmdir()
        if change == "builds-a-file":
            (suite / "builds").write_text("a file")
    assert str(error_of(open_suite, suite)) == f"{suite}{expected}"


def test_not_a_suite_directory(tmp_path: Path) -> None:
    assert str(error_of(open_suite, tmp_path / "nope")) == f"{tmp_path}/nope: no such directory"
    (tmp_path / "file").write_text("x")
    assert str(error_of(open_suite, str(tmp_path / "file"))) == (
        f"{tmp_path}/file: not a directory "
        "(a suite is a directory with references.jsonl and builds/)"
    )


def test_suite_toml_errors_come_through_open_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", toml='metric = "rougeL"\ntokenizer = "spacy"\n')
    error = error_of(open_suite, suite)
    assert (error.path, error.line) == (suite / "suite.toml", 2)


def test_errors_show_the_path_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_suite(
        tmp_path / "s", builds={"b.jsonl": "oops\n", "c.jsonl": jsonl({"id": "a", "output": "x"})}
    )
    monkeypatch.chdir(tmp_path)
    suite = open_suite("s")
    assert str(error_of(read_build, suite, suite.build("b"))) == (
        "s/builds/b.jsonl:1: invalid JSON: Expecting value (column 1)"
    )


def test_opening_and_reading_never_write_to_the_suite(tmp_path: Path) -> None:
    suite_dir = make_suite(tmp_path / "s", toml='name = "x"\n')

    def snapshot() -> list[tuple[str, int, int, int]]:
        return sorted(
            (
                str(p.relative_to(suite_dir)),
                p.stat().st_mtime_ns,
                p.stat().st_size,
                p.stat().st_mode,
            )
            for p in [suite_dir, *suite_dir.rglob("*")]
        )

    before = snapshot()
    for path in [suite_dir, *suite_dir.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        suite = open_suite(suite_dir)
        read_references(suite)
        for entry in suite.builds:
            read_build(suite, entry)
    finally:
        for path in [suite_dir, *suite_dir.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert snapshot() == before


# --------------------------------------------------------------------------- broken builds


def test_a_bad_line_in_a_third_build_stops_only_that_build(tmp_path: Path) -> None:
    """One bad line in a build nobody compares once blocked the whole review."""
    suite = open_suite(
        make_suite(
            tmp_path / "s",
            builds={
                "1-old.jsonl": jsonl({"id": "a", "output": "x"}, {"id": "b", "output": "y"}),
                "2-new.jsonl": jsonl({"id": "a", "output": "x"}, {"id": "b", "output": "z"}),
                "3-broken.jsonl": jsonl({"id": "a", "output": "x"}) + '{"id": "b", "output": }\n',
            },
        )
    )
    assert names(suite) == ["1-old", "2-new", "3-broken"]
    base, cand = suite.pick("1-old", "2-new")
    assert read_build(suite, base).runs[0].outputs == {"a": "x", "b": "y"}
    assert read_build(suite, cand).runs[0].outputs == {"a": "x", "b": "z"}
    error = error_of(read_build, suite, suite.build("3-broken"))
    assert (
        str(error)
        == f"{suite.path}/builds/3-broken.jsonl:2: invalid JSON: Expecting value (column 23)"
    )


def test_listing_problems_stay_with_their_build(tmp_path: Path) -> None:
    suite_dir = make_suite(tmp_path / "s")
    (suite_dir / "builds/3-empty").mkdir()
    (suite_dir / "builds/3-empty/notes.txt").write_text("nothing here")
    (suite_dir / "builds/4-twice.jsonl").write_text(jsonl({"id": "a", "output": "x"}))
    (suite_dir / "builds/4-twice.csv").write_text("id,output\na,x\n")
    (suite_dir / "builds/5-dir.jsonl").mkdir()
    os.mkfifo(suite_dir / "builds/6-pipe.jsonl")
    suite = open_suite(suite_dir)
    # A folder is a build of replicate runs whatever its name (a red-team pass: `import`
    # named one "… prompts.csv", and the suite it wrote could not be read).
    assert names(suite) == ["1-old", "2-new", "3-empty", "4-twice", "5-dir.jsonl", "6-pipe"]
    problems = {entry.name: str(entry.problem) for entry in suite.builds if entry.problem}
    assert problems == {
        "3-empty": (
            f"{suite_dir}/builds/3-empty: build directory holds no run files "
            "(*.jsonl, *.jsonl.gz, *.csv or *.parquet)"
        ),
        "4-twice": (
            f"{suite_dir}/builds: two builds named '4-twice': '4-twice.csv' and '4-twice.jsonl'"
        ),
        "5-dir.jsonl": (
            f"{suite_dir}/builds/5-dir.jsonl: build directory holds no run files "
            "(*.jsonl, *.jsonl.gz, *.csv or *.parquet)"
        ),
    }
    for name, message in problems.items():
        assert str(error_of(read_build, suite, suite.build(name))) == message
    # Read problems show when the build is read, and only then.
    assert str(error_of(read_build, suite, suite.build("6-pipe"))) == (
        f"{suite_dir}/builds/6-pipe.jsonl: not a regular file (a FIFO)"
    )
    assert read_build(suite, suite.build("2-new")).ids == ["a", "b"]
    _, cand = suite.pick("2-new", "3-empty")  # pickable; reading says what is wrong
    assert cand.problem is not None


def test_a_bad_run_in_a_replicate_build_names_that_run(tmp_path: Path) -> None:
    runs = {"run-1.jsonl": jsonl({"id": "a", "output": "x"}), "run-2.jsonl": '{"id": "a"}\n'}
    suite = open_suite(make_suite(tmp_path / "s", builds={"r": runs}))
    assert str(error_of(read_build, suite, suite.build("r"))) == (
        f"{suite.path}/builds/r/run-2.jsonl:1: missing 'output' field"
    )


def test_a_build_directory_that_is_the_suite_itself(tmp_path: Path) -> None:
    suite_dir = make_suite(tmp_path / "s")
    (suite_dir / "builds/up").symlink_to("..")
    suite = open_suite(suite_dir)
    assert suite.build("up").run_files == (suite_dir / "builds/up/references.jsonl",)
    assert str(error_of(read_build, suite, suite.build("up"))) == (
        f"{suite_dir}/builds/up/references.jsonl:1: missing 'output' field"
    )


# --------------------------------------------------------------------------- escaping


def test_an_escape_sequence_in_the_suite_folder_name_never_reaches_a_message(
    tmp_path: Path,
) -> None:
    evil = "suite\x1b]0;pwned\x07\x1b[2J"
    suite_dir = make_suite(
        tmp_path / evil,
        builds={
            "a.jsonl": jsonl(
                {"id": "x\x1b[31m", "output": "1"}, {"id": "x\x1b[31m", "output": "2"}
            ),
            "b.jsonl": jsonl({"id": "1", "output": "x"}),
        },
    )
    suite = open_suite(suite_dir)
    shown = f"{tmp_path}/suite\\x1b]0;pwned\\x07\\x1b[2J"
    assert str(error_of(read_build, suite, suite.build("a"))) == (
        f"{shown}/builds/a.jsonl:2: duplicate id 'x\\x1b[31m' (first on line 1)"
    )
    assert str(error_of(suite.build, "c")) == f"{shown}: no build named 'c' (builds: 'a', 'b')"
    (suite_dir / "references.jsonl").unlink()
    assert str(error_of(open_suite, suite_dir)).startswith(f"{shown}: missing references file")


# --------------------------------------------------------------------------- pick and build


@pytest.fixture
def three_builds(tmp_path: Path) -> Suite:
    record = jsonl({"id": "a", "output": "x"})
    return open_suite(make_suite(tmp_path / "s", builds={f"{n}.jsonl": record for n in "cab"}))


@pytest.mark.parametrize(
    ("baseline", "candidate", "expected"),
    [
        (None, None, ("b", "c")),
        ("a", None, ("a", "c")),
        (None, "b", ("a", "b")),
        ("c", "a", ("c", "a")),
        ("a", "b", ("a", "b")),
    ],
)
def test_pick(
    three_builds: Suite, baseline: str | None, candidate: str | None, expected: tuple[str, str]
) -> None:
    base, cand = three_builds.pick(baseline, candidate)
    assert (base.name, cand.name) == expected


def test_pick_errors(three_builds: Suite, tmp_path: Path) -> None:
    path = three_builds.path
    assert (
        str(error_of(three_builds.pick, "b", "b"))
        == f"{path}: baseline and candidate are the same build 'b'"
    )
    assert (
        str(error_of(three_builds.pick, "c", None))
        == f"{path}: baseline and candidate are the same build 'c'"
    )
    assert str(error_of(three_builds.pick, None, "a")) == (
        f"{path}: no build comes before 'a' to be the baseline; name one"
    )
    assert (
        str(error_of(three_builds.pick, "zz", None))
        == f"{path}: no build named 'zz' (builds: 'a', 'b', 'c')"
    )
    one = open_suite(
        make_suite(tmp_path / "one", builds={"only.jsonl": jsonl({"id": "a", "output": "x"})})
    )
    assert str(error_of(one.pick, None, None)) == (
        f"{tmp_path}/one/builds: a comparison needs at least two builds, found 1: 'only'"
    )
    none = open_suite(make_suite(tmp_path / "none", builds={}))
    assert (
        str(error_of(none.pick))
        == f"{tmp_path}/none/builds: a comparison needs at least two builds, found 0"
    )
    # A newcomer's b2.JSONL was left out without a word: the files that are no build are named.
    cased = make_suite(tmp_path / "cased", builds={"only.jsonl": jsonl({"id": "a", "output": "x"}),
                                                   "b2.JSONL": jsonl({"id": "a", "output": "y"}), ".hidden": ""})
    assert str(error_of(open_suite(cased).pick)) == (
        f"{cased}/builds: a comparison needs at least two builds, found 1: 'only'; not builds: 'b2.JSONL' "
        "(a build is a .jsonl, .jsonl.gz, .csv or .parquet file, or a folder of them)"
    )


def test_the_list_of_names_in_a_message_is_short(tmp_path: Path) -> None:
    record = jsonl({"id": "a", "output": "x"})
    suite = open_suite(
        make_suite(tmp_path / "s", builds={f"b{i:02d}.jsonl": record for i in range(25)})
    )
    shown = ", ".join(f"'b{i:02d}'" for i in range(10))
    assert str(error_of(suite.build, "x" * 500)) == (
        f"{suite.path}: no build named '{'x' * 39}…' (builds: {shown} and 15 more)"
    )


# --------------------------------------------------------------------------- finding suites


def test_list_suites_lists_subdirectories_that_are_suites(tmp_path: Path) -> None:
    make_suite(tmp_path / "zeta")
    make_suite(
        tmp_path / "alpha", references="id,reference\na,x\n", references_name="references.csv"
    )
    (tmp_path / "not-a-suite/builds").mkdir(parents=True)  # no references file
    (tmp_path / "refs-only").mkdir()
    (tmp_path / "refs-only/references.jsonl").write_text(jsonl({"id": "a", "reference": "x"}))
    make_suite(tmp_path / ".hidden")
    (tmp_path / "a-file.jsonl").write_text("{}")
    assert list_suites(tmp_path) == [SuiteRef(tmp_path / "alpha"), SuiteRef(tmp_path / "zeta")]
    assert is_suite(tmp_path / "zeta") and not is_suite(tmp_path / "not-a-suite")
    assert (
        not is_suite(tmp_path / "refs-only")
        and not is_suite(tmp_path)
        and not is_suite(tmp_path / "nope")
    )
    assert list_suites(tmp_path / "zeta") == [SuiteRef(tmp_path / "zeta")]
    with pytest.raises(SuiteError, match="no such directory"):
        list_suites(tmp_path / "missing")


def as_parquet(source: Path, target: Path) -> Path:
    """A copy of the suite ``source`` whose every data file is Parquet, written by polars from
    the records as ``json`` reads them (not the reader under test)."""
    import json
    import shutil

    import polars as pl

    for path in sorted(source.rglob("*")):
        out = target / path.relative_to(source)
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
        elif path.name.endswith(".jsonl"):
            out.parent.mkdir(parents=True, exist_ok=True)
            lines = path.read_text(encoding="utf-8").splitlines()
            rows = [json.loads(line) for line in lines if line.strip()]
            pl.DataFrame(rows).write_parquet(out.with_name(out.name.removesuffix(".jsonl") + ".parquet"))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, out)
    return target


def test_a_parquet_suite_reads_as_its_jsonl_twin(tmp_path: Path) -> None:
    sample = ROOT / "sample_suites" / "incident-summaries"
    twin = as_parquet(sample, tmp_path / "incident-summaries")
    suite, expected = open_suite(twin), open_suite(sample)
    assert suite.references_path == twin / "references.parquet"
    assert names(suite) == names(expected) and len(suite.builds) == 8
    replicate = suite.build("2026-11-24_54c7f3")
    assert [p.name for p in replicate.run_files] == ["run-1.parquet", "run-2.parquet", "run-3.parquet"]
    refs, refs_expected = read_references(suite), read_references(expected)
    assert refs.texts == refs_expected.texts and list(refs.texts) == list(refs_expected.texts)
    assert (refs.sources, refs.extra) == (refs_expected.sources, refs_expected.extra)
    assert refs.fingerprint == refs_expected.fingerprint
    for entry, twin_entry in zip(expected.builds, suite.builds):
        build, build_twin = read_build(expected, entry), read_build(suite, twin_entry)
        assert build_twin.ids == build.ids and build_twin.partial == build.partial
        assert [r.outputs for r in build_twin.runs] == [r.outputs for r in build.runs]


def test_the_real_cnndm_suite_reads(tmp_path: Path) -> None:
    path = Path("/work/shared/data/cnndm-pointer-gen")
    if not path.is_dir():
        pytest.skip("the CNN/DM suite is not on this machine")
    suite = open_suite(path)
    assert names(suite) == ["1-baseline", "2-pointer-gen", "3-pointer-gen-cov"]
    assert (suite.settings.metric, suite.settings.tokenizer, suite.settings.stem) == (
        "rougeLsum",
        "rouge-score",
        True,
    )
    references = read_references(suite)
    assert len(references.texts) == 11_490 and references.empty == []
    for entry in suite.builds:
        build = read_build(suite, entry)
        assert len(build.ids) == 11_490 and build.partial == []
        assert build.runs[0].digest == file_digest(entry.path)


def test_the_suite_package_does_not_import_textual() -> None:
    code = "import sys, rouge_tui.suite; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], check=True, env={"PYTHONPATH": str(ROOT)})


def _problems(folder: str) -> tuple[str | None, str]:
    try:
        open_suite(folder)
    except SuiteError as exc:
        return directory_problem(Path(folder)), str(exc)
    return directory_problem(Path(folder)), ""


def test_a_folder_that_cannot_be_entered_loops_or_is_missing_says_which(tmp_path: Path) -> None:
    """Issue 39, weak spot: a suite folder of mode 000 read as "suite.toml: Permission denied"
    (and `open` said "not a suite"), a loop of links as "no such directory"."""
    from safety_helpers import public_folder, unprivileged

    with public_folder() as root:
        suite = make_suite(root / "s")
        suite.chmod(0o000)
        problem, error = unprivileged(_problems, str(suite))
        assert problem == "cannot enter the folder: Permission denied"
        assert error == f"{suite}: cannot enter the folder: Permission denied"
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    assert _problems(str(tmp_path / "a")) == (
        "a loop of symbolic links", f"{tmp_path}/a: a loop of symbolic links")
    assert _problems(str(tmp_path / "gone"))[0] == "a broken link (its target does not exist)"
    assert _problems(str(tmp_path / "none"))[0] == "no such directory"
    assert directory_problem(make_suite(tmp_path / "ok")) is None


# ------------------------------------------------------------------ another tool's files


def test_an_imported_suite_keeps_the_importers_history_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    suite = open_suite(write_toy(tmp_path / "out"))
    assert suite.imported is not None and suite.imported.format == "toy" and suite.name == "summ" and suite.named
    # by date: the names sort the other way round (alpha, mid, zeta)
    assert names(suite) == ["zeta@2026-01-01", "alpha@2026-01-02", "mid@2026-01-03"]
    assert [e.name for e in suite.pick()] == ["alpha@2026-01-02", "mid@2026-01-03"]
    assert [e.name for e in suite.pick(candidate="alpha@2026-01-02")] == ["zeta@2026-01-01", "alpha@2026-01-02"]
    references = read_references(suite)
    assert references.texts == {"1": ("the cat sat on the mat",), "2": ("a dog ran far", "the dog ran"),
                                "3": ("rain fell all day",)}
    assert references.sources == {"1": "doc 1", "2": "doc 2", "3": "doc 3"}
    build = read_build(suite, suite.build("alpha@2026-01-02"))
    assert build.ids == ["1", "2", "3"] and build.runs[0].outputs["2"] == "the dog ran far"


def test_a_suite_name_that_a_native_suite_does_not_have_is_refused(tmp_path: Path) -> None:
    """``--suite-name`` on a native suite is checked as on a harness's folder: a name the
    suite does not have is an error listing the one it has, never ignored."""
    path = make_suite(tmp_path / "mine", builds={"a.jsonl": jsonl({"id": "a", "output": "x"})})
    assert str(error_of(open_suite, path, None, "other")) == f"{path}: no suite named 'other' here (suites: 'mine')"
    assert open_suite(path, None, "mine").name == "mine"


def test_an_imported_suite_of_one_build_names_its_own_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Too few builds to compare: the error names where the harness's files are, never a
    builds/ folder that an imported suite does not have."""
    install(monkeypatch)
    folder = write_toy(tmp_path / "out", builds={("2026-01-01", "zeta"): {1: "the cat", 2: "a dog", 3: "rain"}})
    one = open_suite(folder)
    assert str(error_of(one.pick)) == f"{folder}: a comparison needs at least two builds, found 1: 'zeta@2026-01-01'"


def test_an_imported_builds_digests_are_its_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache keys looked up before reading name what the importer's runs say, never the
    whole file's digest (one file may hold several builds); a changed file is seen."""
    install(monkeypatch)
    folder = write_toy(tmp_path / "out")
    suite = open_suite(folder)
    entry = suite.build("zeta@2026-01-01")
    digests = build_digests(suite, entry)
    assert digests == [run.digest for run in read_build(suite, entry).runs]
    assert digests != [file_digest(path) for path in entry.run_files]
    assert references_digest(suite) == read_references(suite).digest
    (folder / "out~summ~2026-01-01~zeta.jsonl").write_text(jsonl({"doc": {"n": 1}, "resp": ["changed"]}))
    assert build_digests(suite, entry, fresh=True) != digests


def test_replicate_runs_of_an_imported_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    folder = write_toy(tmp_path / "out", builds={
        ("d1", "m"): {1: "x", 2: "y", 3: "z"}, ("d2", "m"): [{1: "x", 2: "y", 3: "z"}, {1: "x", 3: "z"}]})
    suite = open_suite(folder)
    build = read_build(suite, suite.build("m@d2"))
    assert len(build.runs) == 2 and build.ids == ["1", "3"] and build.partial == ["2"]


def test_format_and_suite_toml_name_the_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, "toy-too")  # two formats recognise it: one must be named
    folder = write_toy(tmp_path / "out")
    with pytest.raises(SuiteError) as caught:
        open_suite(folder)
    assert str(caught.value) == f"{folder}: reads as several formats (toy, toy-too): name one with --layout NAME or suite.toml's format"
    assert open_suite(folder, "toy-too").imported.format == "toy"  # the module's own Importer
    (folder / "suite.toml").write_text('name = "Summaries"\nformat = "toy"\n')
    suite = open_suite(folder)
    assert suite.name == "Summaries" and suite.settings.format == "toy"
    (folder / "suite.toml").write_text('format = "native"\n')  # the argument beats suite.toml
    assert open_suite(folder, "toy").name == "summ"
    error = str(error_of(lambda: open_suite(folder)))  # native as suite.toml says: it is none
    assert error.endswith("missing references file (expected references.jsonl, references.jsonl.gz, references.csv or references.parquet)")


def test_field_paths_reach_an_importer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    folder = write_toy(tmp_path / "out", builds={("d1", "a"): {1: "x"}, ("d2", "b"): {1: "y"}}, refs={1: "r"})
    (folder / "out~summ~d2~b.jsonl").write_text(jsonl({"doc": {"n": 1}, "resp": ["first", "second"]}))
    (folder / "suite.toml").write_text('format = "toy"\n[fields]\noutput = "resp.1"\n')
    suite = open_suite(folder)
    assert read_build(suite, suite.build("b@d2")).runs[0].outputs == {"1": "second"}
    (folder / "suite.toml").write_text('format = "toy"\n\n[fields]\noutput = "resp..1"\n')
    assert str(error_of(lambda: open_suite(folder))) == (
        f"{folder / 'suite.toml'}:4: fields.output: empty part in the field path 'resp..1'")


def test_several_suites_at_one_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An output folder with two tasks is two suites: listed, each opened by its name; a
    folder of suites lists native suites and harness folders alike."""
    install(monkeypatch)
    folder = write_toy(tmp_path / "all" / "harness", task="summ")
    write_toy(folder, task="qa")
    assert list_suites(folder) == [SuiteRef(folder, "toy", "qa"), SuiteRef(folder, "toy", "summ")]
    with pytest.raises(SuiteError, match="holds 2 suites \\('qa', 'summ'\\): name one with --suite-name NAME"):
        open_suite(folder)
    assert open_suite(SuiteRef(folder, "toy", "qa")).name == "qa"
    assert open_suite(folder, name="summ").name == "summ"
    assert str(error_of(lambda: open_suite(folder, name="x"))) == f"{folder}: no suite named 'x' here (suites: 'qa', 'summ')"
    # A name as long as HELM's "mmlu:subject=...,method=..." is said whole, so that the one
    # the message names can be given back (a newcomer's came cut at 40 and was "no suite named").
    long = "mmlu:subject=anatomy,method=multiple_choice_joint,data_augmentation=canonical"
    other = write_toy(tmp_path / "long", task=long)
    write_toy(other, task="qa")
    said = str(error_of(lambda: open_suite(other)))
    assert f"'{long}'" in said, said
    assert open_suite(other, name=re.search(r"'(mmlu[^']*)'", said).group(1)).name == long
    make_suite(tmp_path / "all" / "native")
    write_toy(tmp_path / "all" / "one", task="only")
    (tmp_path / "all" / "plain").mkdir()
    assert list_suites(tmp_path / "all") == [
        SuiteRef(folder, "toy", "qa"), SuiteRef(folder, "toy", "summ"), SuiteRef(tmp_path / "all" / "native"),
        SuiteRef(tmp_path / "all" / "one", "toy")]
    # a format named picks the suites read that way
    assert list_suites(tmp_path / "all", "native") == [SuiteRef(tmp_path / "all" / "native", "native")]
    assert list_suites(tmp_path / "all", "toy") == [
        SuiteRef(folder, "toy", "qa"), SuiteRef(folder, "toy", "summ"), SuiteRef(tmp_path / "all" / "one", "toy")]


def test_a_broken_imported_build_stops_only_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    folder = write_toy(tmp_path / "out")
    (folder / "out~summ~2026-01-01~zeta.jsonl").write_text(jsonl({"doc": {"n": 1}, "resp": ["x"]}) + "{oops\n")
    (folder / "out~summ~x.jsonl").write_text("")  # listed, unreadable
    suite = open_suite(folder)
    assert read_build(suite, suite.build("mid@2026-01-03")).ids == ["1", "2", "3"]
    assert str(error_of(lambda: read_build(suite, suite.build("zeta@2026-01-01")))).startswith(
        f"{folder / 'out~summ~2026-01-01~zeta.jsonl'}:2: invalid JSON")
    assert str(error_of(lambda: read_build(suite, suite.build("out~summ~x.jsonl")))) == (
        f"{folder / 'out~summ~x.jsonl'}: a toy build file names its task, date and model")


def test_a_native_suite_loads_no_importer() -> None:
    """The registry's names are all a native suite needs of the importers."""
    code = ("import sys\nfrom rouge_tui.suite.suite import open_suite, read_build, read_references\n"
            f"s = open_suite({str(ROOT / 'sample_suites' / 'incident-summaries')!r})\n"
            "read_references(s); read_build(s, s.builds[-1])\n"
            "print(sorted(m for m in sys.modules if m.startswith('rouge_tui.importers.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_build_read_like_the_one_before_shares_its_equal_outputs(tmp_path):
    # Ids of more than one character: CPython keeps one string of each single character.
    a, b, c = "example-a", "example-b", "example-c"
    old = {"r1.jsonl": jsonl({"id": a, "output": "same words"}, {"id": b, "output": "old words"}),
           "r2.jsonl": jsonl({"id": a, "output": "second run"}, {"id": b, "output": "old words"})}
    new = {"r1.jsonl": jsonl({"id": a, "output": "same words"}, {"id": b, "output": "new words"},
                             {"id": c, "output": "same words"}),
           "r2.jsonl": jsonl({"id": b, "output": "old words"}, {"id": a, "output": "same words"})}
    suite = open_suite(make_suite(tmp_path / "s", builds={"1-old": old, "2-new": new}))
    before = read_build(suite, suite.build("1-old"))
    plain = read_build(suite, suite.build("2-new"))
    like = read_build(suite, suite.build("2-new"), like=[run.outputs for run in before.runs])
    assert [run.outputs for run in like.runs] == [run.outputs for run in plain.runs]  # the same texts
    first, second = (run.outputs for run in like.runs)
    assert first[a] is before.runs[0].outputs[a]  # equal to run 1's: its string
    assert first[b] is not before.runs[0].outputs[b]
    assert first[c] is not before.runs[0].outputs[a]  # equal text, but another id's
    assert second[b] is before.runs[1].outputs[b]  # run 2 against run 2, in another order
    assert second[a] is not before.runs[0].outputs[a]
    old_ids = list(before.runs[0].outputs)
    assert [k is old for k, old in zip(first, old_ids)] == [True, True]  # in the same order: its ids


def test_a_build_read_like_the_references_shares_their_ids(tmp_path):
    references = jsonl({"id": "example-a", "reference": "the cat sat"}, {"id": "example-b", "reference": "a dog"})
    build = jsonl({"id": "example-a", "output": "the cat"}, {"id": "example-b", "output": "dog ran"})
    suite = open_suite(make_suite(tmp_path / "s", references, {"1-old.jsonl": build, "2-new.jsonl": build}))
    texts = read_references(suite).texts
    shared = read_build(suite, suite.build("1-old"), like=[texts])
    plain = read_build(suite, suite.build("1-old"))
    assert shared.runs[0].outputs == plain.runs[0].outputs == {"example-a": "the cat", "example-b": "dog ran"}
    assert all(k is r for k, r in zip(shared.runs[0].outputs, texts))
    assert not any(k is r for k, r in zip(plain.runs[0].outputs, texts))


def test_names_given_again_are_told_apart_by_their_places() -> None:
    """Every build of a shared name gets its place, whatever the order (numbered in history,
    a build added later renumbered the rest: a review); places alike too, a number as well."""
    from rouge_tui.importers.base import told_apart

    assert told_apart(["a", "b", "a"], ["1.json", "2.json", "3.json"]) == ["a (1.json)", "b", "a (3.json)"]
    assert told_apart(["a", "a", "a (x)"], ["x", "x", "y"]) == ["a (x) #1", "a (x) #2", "a (x) #3"]
    assert told_apart(["x", "y"], ["p", "p"]) == ["x", "y"]
    # (a review: a name already like a numbered one was given again)
    names = told_apart(["a", "a", "a (p) #1"], ["p", "p", "p"])
    assert names == ["a (p) #2", "a (p) #3", "a (p) #1"] and len(set(names)) == 3
