"""Tests for rouge_tui.suite: loading suites, and the one-line errors for every bad input.

Expected values are worked out by hand from the tiny files each test writes (line numbers,
columns, orders), or come from an independent per-line ``json.loads`` oracle.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rouge_tui.suite import (
    Fields,
    Settings,
    Suite,
    SuiteError,
    find_suites,
    is_suite,
    load_suite,
    read_outputs,
    read_references,
    read_settings,
    reference_fingerprint,
)
from rouge_tui.suite import records as records_module

# --- helpers ---------------------------------------------------------------------------


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def make_suite(
    root: Path,
    references: str | None = None,
    builds: dict[str, str | dict[str, str]] | None = None,
    toml: str | None = None,
    references_name: str = "references.jsonl",
) -> Path:
    """Write a suite: builds maps a file name to its text, or a directory name to its runs."""
    root.mkdir(parents=True, exist_ok=True)
    if references is None:
        references = jsonl(
            {"id": "a", "reference": "the cat sat"}, {"id": "b", "reference": "a dog ran"}
        )
    (root / references_name).write_text(references, encoding="utf-8")
    (root / "builds").mkdir(exist_ok=True)
    if builds is None:
        builds = {
            "1-old.jsonl": jsonl(
                {"id": "a", "output": "the cat"}, {"id": "b", "output": "dog ran"}
            ),
            "2-new.jsonl": jsonl({"id": "a", "output": "a cat"}, {"id": "b", "output": ""}),
        }
    for name, content in builds.items():
        if isinstance(content, dict):
            (root / "builds" / name).mkdir()
            for run, text in content.items():
                (root / "builds" / name / run).write_text(text, encoding="utf-8")
        else:
            (root / "builds" / name).write_text(content, encoding="utf-8")
    if toml is not None:
        (root / "suite.toml").write_text(toml, encoding="utf-8")
    return root


def error_of(function: Callable[..., object], *args: object) -> SuiteError:
    """Run ``function`` and return the SuiteError it raised, checking it is one line."""
    with pytest.raises(SuiteError) as info:
        function(*args)
    text = str(info.value)
    assert "\n" not in text and "\r" not in text and "\x1b" not in text
    return info.value


def build_error(tmp_path: Path, content: str | bytes, name: str = "x.jsonl") -> SuiteError:
    """The error from loading a suite whose one build file holds ``content``."""
    suite = make_suite(tmp_path / "s", builds={})
    target = suite / "builds" / name
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    return error_of(load_suite, suite)


# --- loading what is right ---------------------------------------------------------------


def test_loads_a_plain_suite(tmp_path: Path) -> None:
    suite = load_suite(make_suite(tmp_path / "incidents"))
    assert suite.name == "incidents"
    assert suite.settings == Settings()
    assert suite.references == {"a": ("the cat sat",), "b": ("a dog ran",)}
    assert [b.name for b in suite.builds] == ["1-old", "2-new"]
    old, new = suite.builds
    assert old.ids == ["a", "b"] and old.partial_ids == []
    assert old.output("b") == "dog ran"
    assert new.output("b") == ""  # an empty output is valid
    assert len(old.runs) == 1 and old.runs[0].path == tmp_path / "incidents/builds/1-old.jsonl"
    assert old.path == tmp_path / "incidents/builds/1-old.jsonl"
    assert len(suite.fingerprint) == 64 and int(suite.fingerprint, 16) >= 0
    assert suite.empty_reference_ids == [] and suite.reference_extra == {}


def test_builds_are_ordered_by_plain_string_sort(tmp_path: Path) -> None:
    names = ["b", "a", "B", "10", "9", "2026-11-27_9f03aa", "2026-11-20_4be1c0"]
    record = jsonl({"id": "a", "output": "x"})
    suite = load_suite(make_suite(tmp_path / "s", builds={f"{n}.jsonl": record for n in names}))
    # By hand: digits before capitals before lower case; "10" before "9".
    assert [b.name for b in suite.builds] == [
        "10", "2026-11-20_4be1c0", "2026-11-27_9f03aa", "9", "B", "a", "b",
    ]  # fmt: skip


def test_file_order_of_outputs_is_kept(tmp_path: Path) -> None:
    text = jsonl(*({"id": k, "output": k} for k in ["c", "a", "b"]))
    builds = {"x.jsonl": text, "y.jsonl": text}
    suite = load_suite(make_suite(tmp_path / "s", builds=builds))
    assert list(suite.builds[0].runs[0].outputs) == ["c", "a", "b"]
    assert suite.builds[0].ids == ["c", "a", "b"]


def test_replicate_runs_are_ordered_by_file_name(tmp_path: Path) -> None:
    runs = {
        "run-2.jsonl": jsonl({"id": "a", "output": "two"}, {"id": "b", "output": "two b"}),
        "run-1.jsonl": jsonl({"id": "b", "output": "one b"}, {"id": "a", "output": "one"}),
        "notes.txt": "not a run",
    }
    suite = load_suite(
        make_suite(
            tmp_path / "s", builds={"base": runs, "cand.jsonl": jsonl({"id": "a", "output": "x"})}
        )
    )
    base = suite.build("base")
    assert base.path == tmp_path / "s/builds/base"
    assert [r.path.name for r in base.runs] == ["run-1.jsonl", "run-2.jsonl"]
    assert base.ids == ["b", "a"]  # the first run's order
    assert base.output("a", 1) == "two" and base.output("a", 0) == "one"


def test_ids_missing_from_some_runs_are_listed_and_left_out(tmp_path: Path) -> None:
    runs = {
        "run-1.jsonl": jsonl(*({"id": k, "output": "x"} for k in ["a", "b", "c"])),
        "run-2.jsonl": jsonl(*({"id": k, "output": "x"} for k in ["c", "a", "d"])),
        "run-3.jsonl": jsonl(*({"id": k, "output": "x"} for k in ["a", "c", "e", "b"])),
    }
    build = load_suite(make_suite(tmp_path / "s", builds={"r": runs})).build("r")
    assert build.ids == ["a", "c"]
    assert sorted(build.partial_ids) == ["b", "d", "e"]


def test_empty_references_are_listed(tmp_path: Path) -> None:
    references = jsonl(
        {"id": "blank", "reference": "   "},
        {"id": "none", "reference": ""},
        {"id": "all-empty", "references": ["", " \n\t"]},
        {"id": "one-usable", "references": ["", "a cat"]},
        {"id": "fine", "reference": "a cat"},
    )
    suite = load_suite(make_suite(tmp_path / "s", references=references))
    assert suite.empty_reference_ids == ["blank", "none", "all-empty"]
    assert suite.references["one-usable"] == ("", "a cat")  # kept, in listed order
    assert suite.references["blank"] == ("   ",)


def test_several_references_keep_their_order_and_extra_fields_are_kept(tmp_path: Path) -> None:
    references = jsonl(
        {"id": "a", "references": ["second", "first"], "input": "ticket 7", "n": 3},
        {"id": "b", "reference": "only", "source": {"k": [1, 2]}},
        {"id": "c", "reference": "plain"},
    )
    suite = load_suite(make_suite(tmp_path / "s", references=references))
    assert suite.references == {"a": ("second", "first"), "b": ("only",), "c": ("plain",)}
    assert suite.reference_extra == {
        "a": {"input": "ticket 7", "n": 3},
        "b": {"source": {"k": [1, 2]}},
    }


def test_integer_ids_are_the_same_as_their_strings(tmp_path: Path) -> None:
    references = jsonl({"id": 1, "reference": "one"}, {"id": "2", "reference": "two"})
    builds = {
        "a.jsonl": jsonl({"id": "1", "output": "x"}, {"id": 2, "output": "y"}),
        "b.jsonl": jsonl({"id": 1, "output": "x"}, {"id": -0, "output": "zero"}),
    }
    suite = load_suite(make_suite(tmp_path / "s", references=references, builds=builds))
    assert suite.references == {"1": ("one",), "2": ("two",)}
    assert suite.build("a").ids == ["1", "2"]
    assert suite.build("b").ids == ["1", "0"]


# Integers at and past the edges of 64 bits: a JSON parser that turns the bigger ones into
# floats (as orjson does) must not change what the suite says.
WIDE_INTEGERS = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, -(10**30)]


def test_integer_ids_past_64_bits_are_their_decimal_strings(tmp_path: Path) -> None:
    references = jsonl(*({"id": n, "reference": "r"} for n in WIDE_INTEGERS))
    builds = {"a.jsonl": jsonl(*({"id": n, "output": f"out {n}"} for n in WIDE_INTEGERS))}
    suite = load_suite(make_suite(tmp_path / "s", references=references, builds=builds))
    decimal = [str(n) for n in WIDE_INTEGERS]
    assert list(suite.references) == decimal
    assert suite.build("a").runs[0].outputs == {str(n): f"out {n}" for n in WIDE_INTEGERS}


def test_extra_reference_fields_keep_wide_integers_and_floats_exactly(tmp_path: Path) -> None:
    extras = [{"n": n} for n in WIDE_INTEGERS] + [{"x": 1e300}, {"x": 0.1}, {"x": -0.0}]
    references = jsonl(*({"id": f"e{i}", "reference": "r", **e} for i, e in enumerate(extras)))
    suite = load_suite(make_suite(tmp_path / "s", references=references))
    got = [suite.reference_extra[f"e{i}"] for i in range(len(extras))]
    assert repr(got) == repr(extras)  # repr: 10**30 and 1e30 are == but not the same value


def test_integer_and_string_id_in_one_file_are_duplicates(tmp_path: Path) -> None:
    error = build_error(tmp_path, jsonl({"id": 1, "output": "x"}, {"id": "1", "output": "y"}))
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl:2: duplicate id '1' (first on line 1)"


def test_text_that_looks_like_markup_or_escapes_is_data(tmp_path: Path) -> None:
    hostile = "[bold red]x[/] \x1b[31mred\x1b[0m \u202egnp.exe \u2028 line"
    builds = {
        "a.jsonl": jsonl({"id": "a", "output": hostile}),
        "b.jsonl": jsonl({"id": "a", "output": ""}),
    }
    suite = load_suite(make_suite(tmp_path / "s", builds=builds))
    assert suite.build("a").output("a") == hostile


def test_blank_lines_crlf_and_bom_are_tolerated(tmp_path: Path) -> None:
    text = '\ufeff{"id": "a", "output": "x"}\r\n\r\n   \n{"id": "b", "output": "y"} \t\r\n'
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8", newline="")
    assert read_outputs(path) == {"a": "x", "b": "y"}


def test_hidden_and_other_files_under_builds_are_ignored(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "builds" / ".DS_Store").write_bytes(b"\x00\x01junk")
    (suite / "builds" / "._1-old.jsonl").write_bytes(b"\x00\x05\x16\x07 AppleDouble")
    (suite / "builds" / "README.md").write_text("# builds\n")
    (suite / "builds" / ".git").mkdir()
    (suite / "builds" / "loop").symlink_to("loop")  # a link to itself: stat fails with ELOOP
    (suite / "builds" / "dangling").symlink_to("nowhere")
    assert [b.name for b in load_suite(suite).builds] == ["1-old", "2-new"]


def test_loading_never_writes_to_the_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", toml='name = "x"\n')

    def snapshot() -> list[tuple[str, int, int]]:
        return sorted(
            (str(p.relative_to(suite)), p.stat().st_mtime_ns, p.stat().st_size)
            for p in suite.rglob("*")
        )

    before = snapshot()
    load_suite(suite)
    assert snapshot() == before


# --- formats -------------------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[list[str]], bom: bool = False) -> None:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(("\ufeff" if bom else "") + buffer.getvalue(), encoding="utf-8", newline="")


def test_csv_references_and_builds(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", builds={}, references="", references_name="references.csv")
    write_csv(
        suite / "references.csv",
        ["id", "reference", "input"],
        [["a", "the cat, sat\non the mat", "t1"], ["b", "a dog", "t2"]],
        bom=True,
    )
    write_csv(suite / "builds" / "one.csv", ["output", "id"], [["a cat", "a"], ["", "b"]])
    (suite / "builds" / "two.jsonl").write_text(jsonl({"id": "a", "output": "x"}))
    loaded = load_suite(suite)
    assert loaded.references == {"a": ("the cat, sat\non the mat",), "b": ("a dog",)}
    assert loaded.reference_extra == {"a": {"input": "t1"}, "b": {"input": "t2"}}
    assert loaded.build("one").runs[0].outputs == {"a": "a cat", "b": ""}
    assert [b.name for b in loaded.builds] == ["one", "two"]


def test_gzip_references_and_builds(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", builds={})
    text = (suite / "references.jsonl").read_bytes()
    (suite / "references.jsonl").unlink()
    (suite / "references.jsonl.gz").write_bytes(gzip.compress(text))
    (suite / "builds" / "b.jsonl.gz").write_bytes(
        gzip.compress(jsonl({"id": "a", "output": "x"}).encode())
    )
    (suite / "builds" / "r").mkdir()
    (suite / "builds" / "r" / "run-1.jsonl.gz").write_bytes(
        gzip.compress(jsonl({"id": "b", "output": "y"}).encode())
    )
    loaded = load_suite(suite)
    assert loaded.references == {"a": ("the cat sat",), "b": ("a dog ran",)}
    assert [b.name for b in loaded.builds] == ["b", "r"]
    assert loaded.build("b").output("a") == "x" and loaded.build("r").output("b") == "y"


def test_big_file_crossing_read_blocks_keeps_line_numbers(tmp_path: Path) -> None:
    # Lines of ~3 kB so that the file spans several 1 MiB read blocks.
    filler = "w " * 1500
    records = [{"id": f"e{i}", "output": filler} for i in range(900)]
    text = jsonl(*records[:700]) + "\n" + jsonl(*records[700:]) + '{"id": "bad", "output": 5}\n'
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()))
    error = error_of(read_outputs, path)
    assert error.line == 902  # 900 records, one blank line, then the bad one
    assert str(error) == f"{path}:902: 'output' must be a string, not number"
    path.write_bytes(gzip.compress((text.rsplit("\n", 2)[0] + "\n").encode()))
    outputs = read_outputs(path)
    assert list(outputs) == [r["id"] for r in records] and outputs["e899"] == filler


def test_fingerprint_is_the_same_for_the_same_set_in_any_format_or_order(tmp_path: Path) -> None:
    items = [("a", "the cat sat"), ("b", "naïve café"), ("2", "two")]
    plain = tmp_path / "plain.jsonl"
    plain.write_text(jsonl(*({"id": k, "reference": v} for k, v in items)), encoding="utf-8")
    shuffled = tmp_path / "shuffled.jsonl"  # other order, other key order, ASCII escapes, int id
    shuffled.write_text(
        "".join(
            json.dumps(
                {"input": "x", "reference": v, "id": int(k) if k.isdigit() else k},
                ensure_ascii=True,
            )
            + "\n"
            for k, v in reversed(items)
        ),
        encoding="utf-8",
    )
    as_csv = tmp_path / "refs.csv"
    write_csv(as_csv, ["id", "reference"], [list(i) for i in items])
    zipped = tmp_path / "refs.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    prints = {reference_fingerprint(read_references(p)) for p in (plain, shuffled, as_csv, zipped)}
    assert len(prints) == 1
    base = reference_fingerprint(dict(items_to_refs(items)))
    assert prints == {base}
    # Any change in content changes it, and no two sets share an encoding.
    changed = [
        {"a": ("the cat sat",), "b": ("naïve café",), "2": ("two ",)},
        {"a": ("the cat sat",), "b": ("naïve café",)},
        {"a": ("the cat sat",), "b": ("naïve café",), "3": ("two",)},
        {"a": ("the cat sat", ""), "b": ("naïve café",), "2": ("two",)},
    ]
    assert len({base} | {reference_fingerprint(c) for c in changed}) == 5
    assert reference_fingerprint({"a": ("bc",)}) != reference_fingerprint({"ab": ("c",)})
    assert reference_fingerprint({"a": ("b", "c")}) != reference_fingerprint({"a": ("b c",)})


def items_to_refs(items: list[tuple[str, str]]) -> list[tuple[str, tuple[str]]]:
    return [(k, (v,)) for k, v in items]


def test_suite_fingerprint_matches_its_references(tmp_path: Path) -> None:
    suite = load_suite(make_suite(tmp_path / "s"))
    assert suite.fingerprint == reference_fingerprint({"b": ("a dog ran",), "a": ("the cat sat",)})


# --- suite.toml -------------------------------------------------------------------------------


def test_settings_and_field_remapping(tmp_path: Path) -> None:
    toml = """
name = "Incident summaries"
metric = "rougeLsum"
tokenizer = "rouge-score"
stem = true
[band]
k = 3
[fields]
id = "key"
reference = "summary"
output = "text"
"""
    references = jsonl(
        {"key": "a", "summary": "the cat"}, {"key": "b", "summary": "a dog", "id": "ignored"}
    )
    builds = {
        "x.jsonl": jsonl({"key": "a", "text": "cat"}, {"key": "b", "text": "dog", "output": "no"}),
        "y.csv": "key,text\na,the cat\nb,\n",
    }
    suite = load_suite(make_suite(tmp_path / "s", references=references, builds=builds, toml=toml))
    assert suite.name == "Incident summaries"
    assert suite.settings == Settings(
        name="Incident summaries",
        metric="rougeLsum",
        tokenizer="rouge-score",
        stem=True,
        k=3.0,
        fields=Fields(id="key", reference="summary", output="text"),
    )
    assert suite.references == {"a": ("the cat",), "b": ("a dog",)}
    assert suite.reference_extra == {"b": {"id": "ignored"}}
    assert suite.build("x").runs[0].outputs == {"a": "cat", "b": "dog"}
    assert suite.build("y").runs[0].outputs == {"a": "the cat", "b": ""}


def test_remapped_field_names_appear_in_errors(tmp_path: Path) -> None:
    suite = make_suite(
        tmp_path / "s",
        builds={"x.jsonl": jsonl({"id": "a", "text": "x"}, {"id": "b", "output": "y"})},
        toml='[fields]\noutput = "text"\n',
    )
    assert str(error_of(load_suite, suite)) == f"{suite}/builds/x.jsonl:2: missing 'text' field"


def test_missing_suite_toml_gives_defaults(tmp_path: Path) -> None:
    assert read_settings(tmp_path / "suite.toml") == Settings()
    assert Settings().k is None and Settings().fields == Fields()


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (
            'name = "x"\nmetric = "rougeX"\n',
            "2: unknown metric 'rougeX'; expected one of rouge1, rouge2, rougeL, rougeLsum",
        ),
        (
            'tokenizer = "nltk"\n',
            "1: unknown tokenizer 'nltk'; expected one of whitespace, rouge-score",
        ),
        ('name = "x"\n\n[band]\nk = "2"\n', "4: band.k must be a number, not string"),
        ("[band]\nk = -1.0\n", "2: band.k must be a positive number, got -1.0"),
        ("[band]\nk = nan\n", "2: band.k must be a positive number, got nan"),
        ("stem = 1\n", "1: stem must be true or false, not number"),
        ("metric = 3\n", "1: metric must be a string, not number"),
        ('name = ""\n', "1: name must not be empty"),
        (
            'metrc = "rougeL"\n',
            "1: unknown key 'metrc' (known: name, metric, tokenizer, stem, band, fields)",
        ),
        (
            "[fields]\nidd = 'x'\n",
            "2: unknown key 'fields.idd' (known: id, reference, references, output)",
        ),
        (
            'tokenizer = "whitespace"\nstem = true\n',
            '2: stem = true needs tokenizer = "rouge-score" (stemming is part of its tokenizer)',
        ),
        (
            '[fields]\nid = "x"\noutput = "x"\n',
            "3: fields.id and fields.output name the same field 'x'",
        ),
        ("band = 2\n", "1: band must be a table ([band]), not number"),
    ],
)
def test_bad_suite_toml(tmp_path: Path, toml: str, expected: str) -> None:
    path = tmp_path / "suite.toml"
    path.write_text(toml, encoding="utf-8")
    assert str(error_of(read_settings, path)) == f"{path}:{expected}"


def test_suite_toml_errors_come_through_load_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", toml='metric = "rougeL"\ntokenizer = "spacy"\n')
    error = error_of(load_suite, suite)
    assert (error.path, error.line) == (suite / "suite.toml", 2)


def test_suite_toml_not_utf8_or_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "suite.toml"
    path.write_bytes(b'name = "ok"\nmetric = "\xff"\n')
    assert str(error_of(read_settings, path)) == f"{path}:2: not valid UTF-8"
    path.unlink()
    path.mkdir()
    assert str(error_of(read_settings, path)) == f"{path}: is a directory, expected a TOML file"


def test_invalid_toml_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "suite.toml"
    path.write_text('name = "x"\n\nmetric = "rougeL" extra\n', encoding="utf-8")
    error = error_of(read_settings, path)
    assert error.line == 3
    assert str(error).startswith(f"{path}:3: invalid TOML: ")


# --- pick and build ----------------------------------------------------------------------------


@pytest.fixture
def three_builds(tmp_path: Path) -> Suite:
    record = jsonl({"id": "a", "output": "x"})
    return load_suite(make_suite(tmp_path / "s", builds={f"{n}.jsonl": record for n in "cab"}))


def test_pick_defaults_to_the_last_two_builds(three_builds: Suite) -> None:
    base, cand = three_builds.pick(None, None)
    assert (base.name, cand.name) == ("b", "c")


@pytest.mark.parametrize(
    ("baseline", "candidate", "expected"),
    [
        ("a", None, ("a", "c")),
        (None, "b", ("a", "b")),
        ("c", "a", ("c", "a")),
        ("a", "b", ("a", "b")),
    ],
)
def test_pick_by_name(
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
    assert str(error_of(three_builds.build, "x\x1b[2J")) == (
        f"{path}: no build named 'x\\x1b[2J' (builds: 'a', 'b', 'c')"
    )
    one = load_suite(
        make_suite(tmp_path / "one", builds={"only.jsonl": jsonl({"id": "a", "output": "x"})})
    )
    assert str(error_of(one.pick, None, None)) == (
        f"{tmp_path}/one/builds: a comparison needs at least two builds, found 1: 'only'"
    )
    none = load_suite(make_suite(tmp_path / "none", builds={}))
    assert none.builds == []
    assert (
        str(error_of(none.pick))
        == f"{tmp_path}/none/builds: a comparison needs at least two builds, found 0"
    )


# --- find_suites / is_suite ---------------------------------------------------------------------


def test_find_suites_lists_subdirectories_that_are_suites(tmp_path: Path) -> None:
    make_suite(tmp_path / "zeta")
    make_suite(
        tmp_path / "alpha", references="id,reference\na,x\n", references_name="references.csv"
    )
    (tmp_path / "not-a-suite" / "builds").mkdir(parents=True)  # no references file
    (tmp_path / "refs-only").mkdir()
    (tmp_path / "refs-only" / "references.jsonl").write_text(jsonl({"id": "a", "reference": "x"}))
    make_suite(tmp_path / ".hidden")
    (tmp_path / "a-file.jsonl").write_text("{}")
    assert find_suites(tmp_path) == [tmp_path / "alpha", tmp_path / "zeta"]
    assert is_suite(tmp_path / "zeta") and not is_suite(tmp_path / "not-a-suite")
    assert (
        not is_suite(tmp_path / "refs-only")
        and not is_suite(tmp_path)
        and not is_suite(tmp_path / "nope")
    )
    assert find_suites(tmp_path / "zeta") == []
    assert find_suites(tmp_path / "missing") == []


# --- one test per bad input ------------------------------------------------------------------


def test_invalid_json_names_file_line_and_column(tmp_path: Path) -> None:
    text = '{"id": "a", "output": "x"}\n\n{"id": "b", "output": }\n'
    error = build_error(tmp_path, text)
    # The third line; its 23rd character is the "}" where a value was expected.
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl:3: invalid JSON: Expecting value (column 23)"
    assert error.path == tmp_path / "s/builds/x.jsonl" and error.line == 3


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "output": "x"} {"id": "b"}', "invalid JSON: Extra data (column 28)"),
        ('{"id": "a", "output": "x"', "invalid JSON: Expecting ',' delimiter (column 26)"),
        ('{"id": "a", "output": NaN}', "invalid JSON: NaN is not a JSON value"),
        ('{"id": "a", "output": -Infinity}', "invalid JSON: -Infinity is not a JSON value"),
        ("[1, 2]", "expected a JSON object, found array"),
        ('"just a string"', "expected a JSON object, found string"),
        ("null", "expected a JSON object, found null"),
        ('{"output": "x"}', "missing 'id' field"),
        ('{"id": "a"}', "missing 'output' field"),
        ('{"id": "a", "output": null}', "'output' must be a string, not null"),
        ('{"id": "a", "output": ["x"]}', "'output' must be a string, not array"),
        ('{"id": "a", "output": 5}', "'output' must be a string, not number"),
        ('{"id": 1.5, "output": "x"}', "'id' must be a string or an integer, not number"),
        ('{"id": true, "output": "x"}', "'id' must be a string or an integer, not boolean"),
        ('{"id": null, "output": "x"}', "'id' must be a string or an integer, not null"),
        ('{"id": "", "output": "x"}', "empty 'id'"),
        (
            '{"id": "a", "output": "\\ud800 half a pair"}',
            "'output' is not valid Unicode (a lone surrogate escape)",
        ),
        ('{"id": "\\udc00", "output": "x"}', "'id' is not valid Unicode (a lone surrogate escape)"),
        pytest.param("[" * 100_000 + "]" * 100_000, "invalid JSON: nested too deeply", id="deep"),
    ],
)
def test_bad_build_lines(tmp_path: Path, line: str, message: str) -> None:
    text = (
        jsonl({"id": "first", "output": "fine"})
        + "\n"
        + line
        + "\n"
        + jsonl({"id": "z", "output": "x"})
    )
    error = build_error(tmp_path, text)
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl:3: {message}"


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    text = (
        jsonl({"id": "a0", "output": "x"}, {"id": "a1", "output": "x"})
        + "\n\n"
        + jsonl({"id": "a2", "output": "x"}, {"id": "a1", "output": "y"})
    )
    error = build_error(tmp_path, text)
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl:6: duplicate id 'a1' (first on line 2)"


def test_ids_in_messages_cannot_reach_the_terminal(tmp_path: Path) -> None:
    hostile = "a\x1b[2J\n\u202e"
    error = build_error(
        tmp_path, jsonl({"id": hostile, "output": "x"}, {"id": hostile, "output": "y"})
    )
    assert (
        str(error)
        == f"{tmp_path}/s/builds/x.jsonl:2: duplicate id 'a\\x1b[2J\\n\\u202e' (first on line 1)"
    )


def test_file_names_in_messages_are_escaped(tmp_path: Path) -> None:
    error = build_error(tmp_path, "not json\n", name="evil\x1b[31m\n.jsonl")
    assert str(error) == (
        f"{tmp_path}/s/builds/evil\\x1b[31m\\n.jsonl:1: invalid JSON: Expecting value (column 1)"
    )


def test_non_utf8_bytes_name_the_line(tmp_path: Path) -> None:
    text = jsonl({"id": "a", "output": "x"}, {"id": "b", "output": "y"}).encode()
    text += b'\n{"id": "c", "output": "caf\xe9"}\n'
    error = build_error(tmp_path, text)
    # Line 4 (after a blank line 3); byte 0xe9 is the 27th byte of that line.
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl:4: not valid UTF-8 (byte 0xe9 at column 27)"


@pytest.mark.parametrize("content", ["", "\n", "  \n\n\t\n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    error = build_error(tmp_path, content)
    assert str(error) == f"{tmp_path}/s/builds/x.jsonl: empty file (no records)"


def test_missing_references_file(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "references.jsonl").unlink()
    assert str(error_of(load_suite, suite)) == (
        f"{suite}: missing references file (expected references.jsonl, references.jsonl.gz "
        "or references.csv)"
    )
    error = error_of(read_references, tmp_path / "nope.jsonl")
    assert str(error) == f"{tmp_path}/nope.jsonl: no such file (or a broken link)"


def test_two_references_files(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "references.csv").write_text("id,reference\na,x\n")
    assert str(error_of(load_suite, suite)) == (
        f"{suite}: two references files, references.jsonl and references.csv: keep one"
    )


def test_missing_builds_directory_and_suite(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s", builds={})
    (suite / "builds").rmdir()
    assert str(error_of(load_suite, suite)) == f"{suite}/builds: missing builds directory"
    (suite / "builds").write_text("a file")
    assert (
        str(error_of(load_suite, suite))
        == f"{suite}/builds: not a directory (builds/ holds the build files)"
    )
    assert str(error_of(load_suite, tmp_path / "nope")) == f"{tmp_path}/nope: no such directory"
    assert str(error_of(load_suite, suite / "references.jsonl")) == (
        f"{suite}/references.jsonl: not a directory (a suite is a directory with references.jsonl and builds/)"
    )


def test_errors_show_the_path_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_suite(tmp_path / "s", builds={"b.jsonl": "oops\n"})
    monkeypatch.chdir(tmp_path)
    assert (
        str(error_of(load_suite, "s"))
        == "s/builds/b.jsonl:1: invalid JSON: Expecting value (column 1)"
    )
    monkeypatch.chdir(tmp_path / "s")
    assert (
        str(error_of(load_suite, "."))
        == "builds/b.jsonl:1: invalid JSON: Expecting value (column 1)"
    )


@pytest.mark.parametrize(
    "content",
    [
        b"this is not gzip at all",
        gzip.compress(jsonl(*({"id": str(i), "output": "x" * 50} for i in range(200))).encode())[
            :-30
        ],
        gzip.compress(b'{"id": "a", "output": "x"}\n')[:12] + b"\x00" * 40,
        b"",
    ],
    ids=["not-gzip", "truncated", "corrupt", "empty"],
)
def test_corrupt_gzip(tmp_path: Path, content: bytes) -> None:
    error = build_error(tmp_path, content, name="x.jsonl.gz")
    assert error.path == tmp_path / "s/builds/x.jsonl.gz" and error.line is None
    assert str(error).startswith(f"{tmp_path}/s/builds/x.jsonl.gz: ")
    if content:
        assert "not a valid gzip file" in str(error)
    else:
        assert str(error).endswith("empty file (no records)")


def test_directory_where_a_file_belongs(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "builds" / "3-dir.jsonl").mkdir()
    assert (
        str(error_of(load_suite, suite))
        == f"{suite}/builds/3-dir.jsonl: is a directory, expected a file"
    )
    (suite / "builds" / "3-dir.jsonl").rmdir()
    (suite / "references.jsonl").unlink()
    (suite / "references.jsonl").mkdir()
    assert (
        str(error_of(load_suite, suite))
        == f"{suite}/references.jsonl: is a directory, expected a file"
    )


def test_fifo_and_link_loop_with_a_build_name_are_errors_not_hangs(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    os.mkfifo(suite / "builds" / "3-pipe.jsonl")
    assert str(error_of(load_suite, suite)) == f"{suite}/builds/3-pipe.jsonl: not a regular file"
    (suite / "builds" / "3-pipe.jsonl").unlink()
    (suite / "builds" / "3-loop.jsonl").symlink_to("3-loop.jsonl")
    error = error_of(load_suite, suite)
    assert str(error).startswith(f"{suite}/builds/3-loop.jsonl: cannot read: ")


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = make_suite(tmp_path / "s")

    def denied(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    # Tests run as root here, so chmod cannot make a file unreadable: deny the open instead.
    monkeypatch.setattr(records_module, "open", denied, raising=False)
    assert (
        str(error_of(load_suite, suite))
        == f"{suite}/references.jsonl: cannot read: Permission denied"
    )


def test_two_builds_with_one_name(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "builds" / "2-new.csv").write_text("id,output\na,x\n")
    assert str(error_of(load_suite, suite)) == (
        f"{suite}/builds: two builds named '2-new': 2-new.csv and 2-new.jsonl"
    )


def test_build_directory_without_run_files(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "s")
    (suite / "builds" / "3-empty").mkdir()
    (suite / "builds" / "3-empty" / "notes.txt").write_text("nothing here")
    assert str(error_of(load_suite, suite)) == (
        f"{suite}/builds/3-empty: build directory holds no run files (*.jsonl, *.jsonl.gz or *.csv)"
    )


def test_bad_run_file_in_a_replicate_build_names_that_file(tmp_path: Path) -> None:
    runs = {"run-1.jsonl": jsonl({"id": "a", "output": "x"}), "run-2.jsonl": '{"id": "a"}\n'}
    suite = make_suite(tmp_path / "s", builds={"r": runs})
    assert (
        str(error_of(load_suite, suite))
        == f"{suite}/builds/r/run-2.jsonl:1: missing 'output' field"
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {"id": "b", "reference": "x", "references": ["y"]},
            "both 'reference' and 'references': give one of them",
        ),
        (
            {"id": "b", "references": []},
            "'references' must be a non-empty array of strings, not an empty array",
        ),
        (
            {"id": "b", "references": "x"},
            "'references' must be a non-empty array of strings, not string",
        ),
        ({"id": "b", "references": ["x", 3]}, "'references'[1] must be a string, not number"),
        ({"id": "b"}, "missing 'reference' or 'references' field"),
        ({"id": "b", "reference": None}, "'reference' must be a string, not null"),
        ({"id": "a", "reference": "again"}, "duplicate id 'a' (first on line 1)"),
    ],
)
def test_bad_reference_records(tmp_path: Path, record: dict, message: str) -> None:
    path = tmp_path / "references.jsonl"
    path.write_text(jsonl({"id": "a", "reference": "x"}, record), encoding="utf-8")
    assert str(error_of(read_references, path)) == f"{path}:2: {message}"


# --- CSV errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", ": empty file (no header row)"),
        ("\n\n", ": empty file (no header row)"),
        ("id,output\n", ": empty file (a header but no records)"),
        ("\nid,text\na,x\n", ":2: missing column 'output' (columns: 'id', 'text')"),
        ("id,output,id\na,x,y\n", ":1: duplicate column 'id' in the header"),
        # The record on line 2 spans two lines, so the short one starts on line 4.
        ('id,output\na,"two\nlines"\nb\n', ":4: expected 2 fields as in the header, found 1"),
        ('id,output\na,x\nb,"y",z\n', ":3: expected 2 fields as in the header, found 3"),
        ('id,output\na,x\nb,"y"z\n', ":3: invalid CSV: ',' expected after '\"'"),
        ('id,output\na,x\nb,"y\nc,z\n', ":3: invalid CSV: unexpected end of data"),
        ("id,output\na,x\nb,y\0\n", None),  # NUL is data since Python 3.11
        ("id,output\na,x\n\n,y\n", ":4: empty 'id'"),
        ("id,output\na,x\na,y\n", ":3: duplicate id 'a' (first on line 2)"),
    ],
)
def test_bad_csv_builds(tmp_path: Path, text: str, message: str | None) -> None:
    path = tmp_path / "b.csv"
    path.write_text(text, encoding="utf-8", newline="")
    if message is None:
        assert read_outputs(path) == {"a": "x", "b": "y\0"}
    else:
        assert str(error_of(read_outputs, path)) == f"{path}{message}"


def test_csv_references_cannot_hold_lists(tmp_path: Path) -> None:
    path = tmp_path / "references.csv"
    path.write_text("id,reference,references\na,x,y\n", encoding="utf-8")
    assert str(error_of(read_references, path)) == (
        f"{path}:1: a CSV references file takes one 'reference' column; several references per "
        "example ('references') need JSON Lines"
    )


def test_long_csv_fields_are_read(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    long = "word " * 60_000  # 300 kB, over the csv module's default 128 kB field limit
    write_csv(path, ["id", "output"], [["a", long]])
    assert read_outputs(path) == {"a": long}


# --- properties ------------------------------------------------------------------------------------

FRAGMENTS = st.sampled_from(
    ['{', '}', '[', ']', ',', ':', '"', '"id"', '"output"', '"x"', '1', '"a"', "NaN", "null",
     " ", "\\", "\\u", "d800", "\r", "true", "1.5", "\t", "é"]
)  # fmt: skip
RECORDS = st.fixed_dictionaries(
    {
        "id": st.one_of(
            st.text(max_size=3),
            st.integers(-3, 3),
            st.sampled_from(WIDE_INTEGERS),
            st.none(),
            st.booleans(),
            st.floats(),
        ),
        "output": st.one_of(st.text(max_size=5), st.none(), st.integers()),
    },
    optional={"extra": st.integers()},
)
LINES = st.one_of(
    RECORDS.map(lambda r: json.dumps(r)),
    RECORDS.map(lambda r: json.dumps(r, ensure_ascii=False)),
    st.lists(FRAGMENTS, max_size=12).map("".join),
    st.sampled_from(["", "  ", '{"id": "a", "output": "x"}', '{"id": 1, "output": ""}']),
)


def oracle(lines: list[str]) -> tuple[dict[str, str] | None, set[int]]:
    """Per-line json.loads semantics written plainly: the outputs, or the set of bad lines."""

    def no_constants(name: str) -> object:
        raise ValueError(name)

    outputs: dict[str, str] = {}
    first: dict[str, int] = {}
    bad: set[int] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, parse_constant=no_constants)
        except (ValueError, RecursionError):
            bad.add(number)
            continue
        if not isinstance(record, dict):
            bad.add(number)
            continue
        key, text = record.get("id"), record.get("output")
        if (
            isinstance(key, bool)
            or not isinstance(key, (str, int))
            or key == ""
            or not isinstance(text, str)
        ):
            bad.add(number)
            continue
        key = str(key)
        try:
            (key + text).encode("utf-8")
        except UnicodeEncodeError:
            bad.add(number)
            continue
        if key in first:
            bad.add(number)
            continue
        first[key] = number
        outputs[key] = text
    if not first and not bad:
        return None, set()  # no records at all
    return (outputs if not bad else None), bad


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(LINES, max_size=8))
def test_reader_agrees_with_a_per_line_json_oracle(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    expected, bad = oracle(lines)
    try:
        got = read_outputs(path)
    except SuiteError as error:
        assert "\n" not in str(error)
        if expected is None and not bad:
            assert str(error).endswith("empty file (no records)")
        else:
            assert expected is None, f"rejected a good file: {error}"
            assert error.line in bad, f"{error} not among the bad lines {sorted(bad)}"
        return
    assert got == expected


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300), gz=st.booleans(), kind=st.sampled_from(["jsonl", "csv"]))
def test_random_bytes_give_a_result_or_a_suite_error(
    tmp_path: Path, data: bytes, gz: bool, kind: str
) -> None:
    name = f"x.{kind}.gz" if gz and kind == "jsonl" else f"x.{kind}"
    path = tmp_path / name
    path.write_bytes(data)
    for read in (read_outputs, read_references):
        try:
            result = read(path)
        except SuiteError as error:
            assert "\n" not in str(error) and str(error).startswith(str(path))
        else:
            assert isinstance(result, dict) and result


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=200))
def test_random_bytes_inside_a_gzip_stream(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(data))
    try:
        read_outputs(path)
    except SuiteError as error:
        assert "\n" not in str(error)


# --- the core stays headless, and fast ----------------------------------------------------------


def test_suite_package_does_not_import_textual() -> None:
    code = "import sys, rouge_tui.suite; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_loads_100k_examples_times_two_builds_quickly(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = [f"w{i}" for i in range(3000)]
    suite = tmp_path / "big"
    (suite / "builds").mkdir(parents=True)
    n = 100_000

    pool = [" ".join(rng.choices(words, k=40)) for _ in range(500)]

    def text() -> str:
        return rng.choice(pool)

    (suite / "references.jsonl").write_text(
        "".join(json.dumps({"id": f"ex-{i:06d}", "reference": text()}) + "\n" for i in range(n))
    )
    for build in ("a", "b"):
        (suite / "builds" / f"{build}.jsonl").write_text(
            "".join(json.dumps({"id": f"ex-{i:06d}", "output": text()}) + "\n" for i in range(n))
        )
    start = time.process_time()
    loaded = load_suite(suite)
    elapsed = time.process_time() - start
    assert len(loaded.references) == n and [len(b.ids) for b in loaded.builds] == [n, n]
    # About 0.6 s of CPU here on 2 cores; a generous bound that still catches quadratic work.
    assert elapsed < 3.0, f"loading took {elapsed:.2f} s of CPU"
