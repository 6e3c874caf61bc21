"""Tests for the helpers rouge_tui.importers.base gives every importer: `read_json` (a whole
JSON file, checked), `reference_texts` (one reference or several), `field_value` (a field
path's value) and `check_field_paths` (suite.toml's [fields]). Expected values and messages
are written out by hand."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest
from suite_helpers import error_of

from rouge_tui.importers.base import (
    check_field_paths,
    field_value,
    parse_json,
    read_json,
    reference_texts,
)


def test_read_json_gives_the_value_and_the_digest_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'{"a": [1, "x"]}')
    assert read_json(path, 100) == ({"a": [1, "x"]}, hashlib.sha256(b'{"a": [1, "x"]}').hexdigest())


def test_read_json_takes_what_pythons_json_writes_for_nan_and_infinity(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.write_text('[{"mean": NaN, "logprob": -Infinity, "x": 1}]')
    (value,), _digest = read_json(path, 100)
    assert math.isnan(value["mean"]) and value["logprob"] == -math.inf and value["x"] == 1


def test_read_json_errors_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": 1,\n  "b": oops\n}')
    assert str(error_of(read_json, path, 100)) == f"{path}:3: invalid JSON: Expecting value (column 8)"
    path.write_bytes(b'{\n"a": "\xff"}')
    assert str(error_of(read_json, path, 100)) == f"{path}:2: not valid UTF-8 (byte 0xff)"
    assert str(error_of(read_json, path, 4)) == f"{path}: too big (over 4 bytes)"
    assert str(error_of(read_json, tmp_path / "absent.json", 4)) == f"{tmp_path}/absent.json: no such file"


def test_read_json_of_a_number_past_what_int_takes_or_too_deep_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(b'{"a": 1' + b"0" * 5000 + b"}")
    assert str(error_of(read_json, path, 10_000)).startswith(f"{path}: invalid JSON: Exceeds the limit (4300 digits)")
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    assert str(error_of(read_json, path, 300_000)) == f"{path}: invalid JSON: nested too deeply"


def test_parse_json_of_a_member_says_the_line_in_its_message() -> None:
    where = (Path("log.eval"), "samples/1_epoch_1.json")
    assert parse_json(b'{"a": NaN}', *where)["a"] != 0
    assert str(error_of(parse_json, b'{\n  "a": oops}', *where)) == (
        "log.eval:samples/1_epoch_1.json: invalid JSON: Expecting value (line 2, column 8)"
    )
    assert str(error_of(parse_json, b'{\n\n"a": "\xff"}', *where)) == (
        "log.eval:samples/1_epoch_1.json: not valid UTF-8 (line 3, byte 0xff)"
    )


@pytest.mark.parametrize(("value", "texts"), [("one", ("one",)), (["one", "two"], ("one", "two"))])
def test_reference_texts_one_or_several(value: object, texts: tuple[str, ...]) -> None:
    assert reference_texts(value, "vars.expected", (Path("f.json"), "results.results[0]")) == texts


@pytest.mark.parametrize(("value", "kind"), [(3, "number"), ([], "array"), (["a", 1], "array"), (None, "null")])
def test_reference_texts_refuses_anything_else(value: object, kind: str) -> None:
    error = error_of(reference_texts, value, "vars.expected", (Path("f.json"), "results.results[0]"))
    assert str(error) == f"f.json:results.results[0]: 'vars.expected' must be a string or an array of strings, not {kind}"


def test_field_value_names_the_first_part_that_is_missing() -> None:
    record = {"input": {"text": "x", "ids": [7, 8]}}
    where = (Path("log.json"), 3)
    assert field_value(record, "input.ids.1", where) == 8
    assert field_value(record, ("input", "text"), where) == "x"
    assert str(error_of(field_value, record, "input.ids.2", where)) == "log.json:3: missing field 'input.ids.2'"
    assert str(error_of(field_value, record, "input.text.more", where)) == (
        "log.json:3: missing field 'input.text.more'"
    )
    member = (Path("log.eval"), "samples/1_epoch_1.json")
    assert str(error_of(field_value, record, "target", member)) == (
        "log.eval:samples/1_epoch_1.json: missing field 'target'"
    )


def test_check_field_paths_names_the_key_of_a_path_that_is_none() -> None:
    check_field_paths({"id": "vars.id", "output": "response.output.0"}, Path("evals"))
    assert str(error_of(check_field_paths, {"id": "vars.id", "source": "vars..doc"}, Path("evals"))) == (
        "evals: [fields] source: empty part in the field path 'vars..doc'"
    )


def test_a_blank_source_is_no_source_as_in_a_native_suite(tmp_path: Path) -> None:
    """A harness that writes "" (or spaces) for an example without its document: no source,
    as a native suite reads it, so the suite and its `rouge-tui import` read alike (a
    review of the diff found them apart)."""
    from rouge_tui.importers.base import make_references

    rows = [((tmp_path, 1), "a", ["r"], "doc a"), ((tmp_path, 2), "b", ["r"], ""), ((tmp_path, 3), "c", ["r"], "  "),
            ((tmp_path, 4), "d", ["r"], None)]
    read = make_references(rows)
    assert read.sources == {"a": "doc a"} and list(read.texts) == ["a", "b", "c", "d"]
