"""suite/writer: `rouge-tui import`, another tool's suite written in the native layout.

Oracles: the native layout as SPEC "Suite on disk" states it, read back with json and
tomllib (not the reader under test); names checked character by character."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from suite_helpers import error_of
from toy_format import install, write_toy

from rouge_tui.suite.writer import import_suites, safe_file_name


@pytest.mark.parametrize(("name", "safe"), [
    ("gpt-4o@2026-01-02", "gpt-4o@2026-01-02"),
    ("openai:gpt-4o/prompt 1", "openai:gpt-4o_prompt 1"),
    ("..\\..\\etc", "_.._etc"),
    (".hidden", "hidden"),
    ("a\x1b[2Jb\nc\u202ed", "a_[2Jb_c_d"),
    ("\x00\x01", "__"),
    ("...", "build"),
    ("", "build"),
])
def test_safe_file_name(name: str, safe: str) -> None:
    assert safe_file_name(name) == safe


def test_a_long_name_is_cut_within_the_file_name_limit() -> None:
    name = safe_file_name("é" * 300)
    assert name == "é" * 60 and len(name.encode()) <= 255


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_native_layout_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """References with one or several texts and a source; a build per file, replicate runs
    as run-N files (zero-padded past nine); the names numbered in the order given, across
    paths; suite.toml naming the suite in TOML that reads back whole."""
    install(monkeypatch)
    first = write_toy(tmp_path / "a", task='sum"\x7fm\\', builds={("d1", "x/y"): {1: "one", 2: "two", 3: "three"}})
    runs = [{1: f"run {n}", 2: "b", 3: "c"} for n in range(1, 11)]
    second = write_toy(tmp_path / "b", task='sum"\x7fm\\', builds={("d2", ".m"): runs, ("d3", "m"): {1: "z", 2: "y", 3: "x"}})
    out = tmp_path / "out"
    suite = import_suites([first, second], "toy", out)
    assert tomllib.loads((out / "suite.toml").read_text(encoding="utf-8")) == {"name": 'sum"\x7fm\\'}
    assert suite.name == 'sum"\x7fm\\' and [b.name for b in suite.builds] == ["1-x_y@d1", "2-m@d2", "3-m@d3"]
    assert _lines(out / "references.jsonl") == [
        {"id": "1", "reference": "the cat sat on the mat", "source": "doc 1"},
        {"id": "2", "references": ["a dog ran far", "the dog ran"], "source": "doc 2"},
        {"id": "3", "reference": "rain fell all day", "source": "doc 3"}]
    assert _lines(out / "builds" / "1-x_y@d1.jsonl") == [
        {"id": "1", "output": "one"}, {"id": "2", "output": "two"}, {"id": "3", "output": "three"}]
    folder = out / "builds" / "2-m@d2"
    assert sorted(p.name for p in folder.iterdir()) == [f"run-{n:02d}.jsonl" for n in range(1, 11)]
    assert _lines(folder / "run-10.jsonl")[0] == {"id": "1", "output": "run 10"}


def test_the_same_inputs_write_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    folder = write_toy(tmp_path / "in")

    def written(out: Path) -> dict[str, bytes]:
        import_suites([folder], "toy", out)
        return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}

    assert written(tmp_path / "one") == written(tmp_path / "two")


def test_references_that_disagree_across_paths_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    first = write_toy(tmp_path / "a")
    second = write_toy(tmp_path / "b", refs={1: "the cat sat on the mat", 2: "another", 3: "rain fell all day"})
    error = error_of(import_suites, [first, second], "toy", tmp_path / "out")
    assert str(error) == f"{second}: id '2' has other references (or source) here than in an earlier path"
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temporary folder left


def test_paths_of_different_suites_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two paths whose tasks differ (xsum in one, gsm8k in the other) were written as one
    suite, named after the last, without a word (a newcomer's pass): a suite is one task,
    its identity its name (SPEC), so the second path is refused, naming both names."""
    install(monkeypatch)
    first = write_toy(tmp_path / "a", task="xsum")
    second = write_toy(tmp_path / "b", task="gsm8k")
    error = error_of(import_suites, [first, second], "toy", tmp_path / "out")
    assert str(error) == (f"{second}: holds the suite 'gsm8k', not 'xsum' as {first} does: "
                          "import one suite at a time")
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_an_out_inside_an_input_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    folder = write_toy(tmp_path / "in")
    before = sorted(p.name for p in folder.iterdir())
    error = error_of(import_suites, [folder], "toy", folder / "native")
    assert str(error) == f"{folder / 'native'}: inside {folder}, which is only read: name a folder outside the inputs"
    assert sorted(p.name for p in folder.iterdir()) == before


def test_the_suites_settings_are_written_but_its_format_and_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The imported suite scores as the harness's folder did: suite.toml's metric, tokenizer,
    stemming, band, grounding and alarm come along (the last path's, as its name does); the
    format and [fields] do not, for the native files use the native names."""
    install(monkeypatch)
    folder = write_toy(tmp_path / "in")
    (folder / "suite.toml").write_text(
        'name = "mine"\nformat = "toy"\nmetric = "rouge1"\ntokenizer = "rouge-score"\nstem = true\n'
        '[band]\nk = 3\nsource = "history"\nmin_delta = 0.01\n[grounding]\nmin_support = 0.6\n'
        '[alarm]\nsignals = ["new-figure", "empty"]\n[fields]\noutput = "resp.0"\n', encoding="utf-8")
    import_suites([folder], "toy", tmp_path / "out")
    assert tomllib.loads((tmp_path / "out" / "suite.toml").read_text(encoding="utf-8")) == {
        "name": "mine", "metric": "rouge1", "tokenizer": "rouge-score", "stem": True,
        "band": {"k": 3.0, "source": "history", "min_delta": 0.01}, "grounding": {"min_support": 0.6},
        "alarm": {"signals": ["new-figure", "empty"]}}


def test_an_out_whose_folder_is_missing_names_that_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The error names the folder that is not there, never the temporary folder the suite is
    written in first; nothing is made."""
    install(monkeypatch)
    folder = write_toy(tmp_path / "in")
    error = error_of(import_suites, [folder], "toy", tmp_path / "gone" / "deeper" / "out")
    assert str(error) == f"{tmp_path / 'gone' / 'deeper'}: no such folder to make the suite in"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
