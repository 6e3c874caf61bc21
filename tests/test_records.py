"""Tests for rouge_tui.suite.records: one references or run file read into checked records,
and the one-line error for every bad input (what is CSV's or Parquet's own: test_csv_rows.py,
test_parquet_rows.py).

Expected values are worked out by hand from the tiny files each test writes (line numbers,
columns, orders), or come from an independent per-line ``json.loads`` oracle.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_helpers import error_of, jsonl, outputs, run_file, texts, write_csv

from rouge_tui import files as files_module
from rouge_tui.errors import SuiteError
from rouge_tui.suite.records import (
    Fields,
    json_lines,
    read_references_file,
    read_run,
    reference_fingerprint,
)

# --------------------------------------------------------------------------- what is right


def test_a_run_keeps_file_order_and_its_digest(tmp_path: Path) -> None:
    path = run_file(tmp_path, jsonl(*({"id": k, "output": k * 2} for k in "cab")))
    run = read_run(path)
    assert list(run.outputs.items()) == [("c", "cc"), ("a", "aa"), ("b", "bb")]
    assert run.path == path
    import hashlib

    assert run.digest == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_read_unhashed_gives_the_same_records_and_no_digest(tmp_path: Path) -> None:
    """``hashed=False`` (`score`, which keys nothing on its files) leaves the digest out and
    nothing else: the same records from a plain and a gzipped file, the same errors."""

    run_text = jsonl(*({"id": k, "output": k * 2} for k in "cab"))
    refs_text = jsonl({"id": "x", "reference": "r"}, {"id": "y", "references": ["s", "t"], "source": "doc"})
    for name, data in (("plain.jsonl", run_text.encode()), ("zipped.jsonl.gz", gzip.compress(run_text.encode()))):
        path = tmp_path / name
        path.write_bytes(data)
        unhashed = read_run(path, hashed=False)
        assert (list(unhashed.outputs.items()), unhashed.digest) == ([("c", "cc"), ("a", "aa"), ("b", "bb")], "")
        assert read_run(path).digest != ""
    refs = tmp_path / "refs.jsonl"
    refs.write_text(refs_text, encoding="utf-8")
    read = read_references_file(refs, hashed=False)
    assert (read.texts, read.sources, read.digest) == ({"x": ("r",), "y": ("s", "t")}, {"y": "doc"}, "")
    refs.write_text(refs_text + '{"id": "x", "reference": "again"}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        read_references_file(refs, hashed=False)
    assert str(caught.value) == f"{refs}:3: duplicate id 'x' (first on line 1)"


def test_json_lines_reads_pythons_nan_and_infinity_as_null_only_when_asked(tmp_path: Path) -> None:
    # what json.dumps writes for float("nan"), float("inf") and float("-inf")
    path = tmp_path / "samples.jsonl"
    path.write_text('{"a": NaN, "b": {"c": Infinity, "d": [-Infinity]}}\n{"a": 1.5}\n', encoding="utf-8")
    assert list(json_lines(path, nan_as_null=True)) == [(1, {"a": None, "b": {"c": None, "d": [None]}}), (2, {"a": 1.5})]
    with pytest.raises(SuiteError) as caught:
        list(json_lines(path))
    assert str(caught.value) == f"{path}:1: invalid JSON: NaN is not a JSON value"
    # the other checks hold: a repeated key, a number past a float's range
    path.write_text('{"a": NaN, "b": {"c": 1}, "a": 2}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        list(json_lines(path, nan_as_null=True))
    assert str(caught.value) == f"{path}:1: repeated key 'a' (give each field once)"
    path.write_text('{"a": NaN, "b": 1e999}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        list(json_lines(path, nan_as_null=True))
    assert str(caught.value) == f"{path}:1: invalid JSON: a number out of range"


def test_integer_ids_are_the_same_as_their_strings(tmp_path: Path) -> None:
    path = run_file(
        tmp_path,
        jsonl({"id": "1", "output": "x"}, {"id": 2, "output": "y"}, {"id": -0, "output": "zero"}),
    )
    assert list(outputs(path)) == ["1", "2", "0"]


# Integers at and past the edges of 64 bits: orjson makes floats of the bigger ones.
WIDE_INTEGERS = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, -(10**30)]


def test_integer_ids_past_64_bits_are_their_decimal_strings(tmp_path: Path) -> None:
    refs = run_file(tmp_path, jsonl(*({"id": n, "reference": "r"} for n in WIDE_INTEGERS)))
    run = run_file(
        tmp_path, jsonl(*({"id": n, "output": f"o{n}"} for n in WIDE_INTEGERS)), "r.jsonl"
    )
    decimal = [str(n) for n in WIDE_INTEGERS]
    assert list(texts(refs)) == decimal
    assert outputs(run) == {str(n): f"o{n}" for n in WIDE_INTEGERS}


def test_other_reference_fields_keep_wide_integers_and_floats_exactly(tmp_path: Path) -> None:
    extras = [{"n": n} for n in WIDE_INTEGERS] + [
        {"x": 1e300},
        {"x": 0.1},
        {"x": -0.0},
        {"deep": [{"n": 2**70}]},
    ]
    path = run_file(
        tmp_path, jsonl(*({"id": f"e{i}", "reference": "r", **e} for i, e in enumerate(extras)))
    )
    got = read_references_file(path).extra
    assert repr([got[f"e{i}"] for i in range(len(extras))]) == repr(extras)


def test_several_references_sources_and_other_fields(tmp_path: Path) -> None:
    path = run_file(
        tmp_path,
        jsonl(
            {"id": "a", "references": ["second", "first"], "input": "ticket 7", "n": 3},
            {"id": "b", "reference": "only", "source": "the document", "meta": {"k": [1, 2]}},
            {"id": "c", "reference": "plain"},
        ),
    )
    read = read_references_file(path)
    assert read.texts == {"a": ("second", "first"), "b": ("only",), "c": ("plain",)}
    assert read.sources == {"b": "the document"}
    assert read.extra == {"a": {"input": "ticket 7", "n": 3}, "b": {"meta": {"k": [1, 2]}}}


def test_empty_references_are_listed_and_kept(tmp_path: Path) -> None:
    path = run_file(
        tmp_path,
        jsonl(
            {"id": "blank", "reference": "   "},
            {"id": "none", "reference": ""},
            {"id": "all-empty", "references": ["", " \n\t"]},
            {"id": "one-usable", "references": ["", "a cat"]},
            {"id": "fine", "reference": "a cat"},
        ),
    )
    read = read_references_file(path)
    assert read.empty == ["blank", "none", "all-empty"]
    assert read.texts["one-usable"] == ("", "a cat") and read.texts["blank"] == ("   ",)


def test_the_usable_ids_are_those_with_a_reference_not_blank_and_no_second_set(tmp_path: Path) -> None:
    """SPEC: an id is usable with a reference not empty after stripping; "x" has none at
    all. Looked up in the references themselves: a set of every id (32 MB at 1M examples,
    held as long as the references) is not made."""
    path = run_file(tmp_path, jsonl({"id": "blank", "reference": " "}, {"id": "one", "references": ["", "a"]},
                                    {"id": "fine", "reference": "a cat"}))
    usable = read_references_file(path).usable
    assert [i in usable for i in ("blank", "one", "fine", "x")] == [False, True, True, False]
    assert usable.issuperset(["fine", "one"]) and usable.issuperset(iter(["one"])) and usable.issuperset([])
    assert not usable.issuperset(["fine", "blank"]) and not usable.issuperset(["x"])
    assert not isinstance(usable, (set, frozenset))


def test_text_that_looks_like_markup_or_escapes_is_data(tmp_path: Path) -> None:
    hostile = "[bold red]x[/] \x1b[31mred\x1b[0m \u202egnp.exe \u2028 line"
    assert outputs(run_file(tmp_path, jsonl({"id": "a", "output": hostile}))) == {"a": hostile}


def test_blank_lines_crlf_and_bom_are_tolerated(tmp_path: Path) -> None:
    text = '\ufeff{"id": "a", "output": "x"}\r\n\r\n   \n{"id": "b", "output": "y"} \t\r\n'
    assert outputs(run_file(tmp_path, text)) == {"a": "x", "b": "y"}


def test_remapped_fields(tmp_path: Path) -> None:
    fields = Fields(id="key", reference="summary", output="text", source="doc")
    refs = run_file(tmp_path, jsonl({"key": "a", "summary": "s", "doc": "d", "id": "other"}))
    read = read_references_file(refs, fields)
    assert (read.texts, read.sources, read.extra) == (
        {"a": ("s",)},
        {"a": "d"},
        {"a": {"id": "other"}},
    )
    run = run_file(
        tmp_path, jsonl({"key": "a", "text": "t"}, {"key": "b", "output": "no"}), "r.jsonl"
    )
    assert str(error_of(outputs, run, fields)) == f"{run}:2: missing 'text' field"


def test_csv_references_and_runs(tmp_path: Path) -> None:
    refs = write_csv(
        tmp_path / "references.csv",
        ["id", "reference", "input", "source"],
        [["a", "the cat, sat\non the mat", "t1", "doc a"], ["b", "a dog", "t2", ""]],
        bom=True,
    )
    read = read_references_file(refs)
    assert read.texts == {"a": ("the cat, sat\non the mat",), "b": ("a dog",)}
    assert read.extra == {"a": {"input": "t1"}, "b": {"input": "t2"}}
    assert read.sources == {"a": "doc a"}  # an empty cell is no source: a CSV cannot leave a field out
    run = write_csv(tmp_path / "one.csv", ["output", "id"], [["a cat", "a"], ["", "b"]])
    assert outputs(run) == {"a": "a cat", "b": ""}


def test_gzip_runs(tmp_path: Path) -> None:
    path = run_file(
        tmp_path, gzip.compress(jsonl({"id": "a", "output": "x"}).encode()), "b.jsonl.gz"
    )
    assert outputs(path) == {"a": "x"}


def test_a_big_file_across_read_blocks_keeps_line_numbers(tmp_path: Path) -> None:
    filler = "w " * 1500  # lines of ~3 kB: the file spans several 1 MiB reads
    records = [{"id": f"e{i}", "output": filler} for i in range(900)]
    text = jsonl(*records[:700]) + "\n" + jsonl(*records[700:]) + '{"id": "bad", "output": 5}\n'
    path = run_file(tmp_path, gzip.compress(text.encode()), "x.jsonl.gz")
    # 900 records, one blank line, then the bad one.
    assert str(error_of(outputs, path)) == f"{path}:902: 'output' must be a string, not number"
    path.write_bytes(gzip.compress((text.rsplit("\n", 2)[0] + "\n").encode()))
    got = outputs(path)
    assert list(got) == [r["id"] for r in records] and got["e899"] == filler


def test_a_50mb_single_line_is_read(tmp_path: Path) -> None:
    huge = "x" * 50_000_000
    path = run_file(tmp_path, jsonl({"id": "1", "output": huge}, {"id": "2", "output": "y"}))
    got = outputs(path)
    assert got["1"] == huge and got["2"] == "y"


def test_a_line_over_the_limit_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_module, "MAX_LINE", 1000)
    monkeypatch.setattr(files_module, "BLOCK", 256)  # as for the real limit: blocks are smaller
    path = run_file(tmp_path, jsonl({"id": "1", "output": "x"}, {"id": "2", "output": "y" * 1000}))
    assert str(error_of(outputs, path)) == f"{path}:2: line longer than 1000 bytes"


# --------------------------------------------------------------------------- the fingerprint


def test_the_fingerprint_keeps_its_definition() -> None:
    # Worked out from the definition: the tag, then per id in order "len:id", the count of
    # references and ":", then each reference as "len:text".
    import hashlib

    body = "1:a1:11:the cat sat" + "2:bb2:" + "0:" + "3:dög"
    expected = hashlib.sha256(b"rouge-tui references v1\n" + body.encode()).hexdigest()
    assert reference_fingerprint({"bb": ("", "dög"), "a": ("the cat sat",)}) == expected
    assert reference_fingerprint({"a": ("bc",)}) != reference_fingerprint({"ab": ("c",)})
    assert reference_fingerprint({"a": ("b", "c")}) != reference_fingerprint({"a": ("b c",)})


def _fingerprint_as_defined(texts: dict[str, tuple[str, ...]]) -> str:
    """The definition restated: the tag, then per id in sorted order "len:id", the count of
    references and ":", each reference "len:text" (lengths in code points), as UTF-8 with
    surrogates passed through, one sha256."""
    import hashlib

    body = "".join(
        f"{len(key)}:{key}{len(texts[key])}:" + "".join(f"{len(text)}:{text}" for text in texts[key])
        for key in sorted(texts)
    )
    return hashlib.sha256(b"rouge-tui references v1\n" + body.encode("utf-8", "surrogatepass")).hexdigest()


FINGERPRINT_TEXT = st.text(st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", ":", "1", "é", "\x00"])), max_size=6)


@settings(max_examples=300, deadline=None)
@given(texts=st.dictionaries(FINGERPRINT_TEXT, st.lists(FINGERPRINT_TEXT, min_size=1, max_size=3).map(tuple), max_size=12))
def test_the_fingerprint_is_its_definition(texts: dict[str, tuple[str, ...]]) -> None:
    assert reference_fingerprint(texts) == _fingerprint_as_defined(texts)


def test_the_fingerprint_is_its_definition_over_many_ids() -> None:
    # thousands of ids: one reference each, then some with several, in the same print
    texts = {f"id{i}": (f"text {i} " * (i % 7),) for i in range(9000)}
    assert reference_fingerprint(texts) == _fingerprint_as_defined(texts)
    texts.update({f"id{i}": ("a", f"b{i}", "") for i in range(5000, 5100)})
    assert reference_fingerprint(texts) == _fingerprint_as_defined(texts)
    assert reference_fingerprint({}) == _fingerprint_as_defined({})


def test_the_fingerprint_is_the_same_in_any_format_or_order(tmp_path: Path) -> None:
    items = [("a", "the cat sat"), ("b", "naïve café"), ("2", "two")]
    plain = run_file(tmp_path, jsonl(*({"id": k, "reference": v} for k, v in items)), "p.jsonl")
    shuffled = run_file(
        tmp_path,
        "".join(  # other order and key order, escapes, an int id
            json.dumps(
                {"input": "x", "reference": v, "id": int(k) if k.isdigit() else k},
                ensure_ascii=True,
            )
            + "\n"
            for k, v in reversed(items)
        ),
        "s.jsonl",
    )
    as_csv = write_csv(
        tmp_path / "refs.csv", ["id", "reference", "source"], [[k, v, "src"] for k, v in items]
    )
    zipped = run_file(tmp_path, gzip.compress(plain.read_bytes()), "z.jsonl.gz")
    prints = {read_references_file(p).fingerprint for p in (plain, shuffled, as_csv, zipped)}
    assert prints == {reference_fingerprint({k: (v,) for k, v in items})}
    assert read_references_file(plain).digest != read_references_file(zipped).digest


RECORD_IDS = st.one_of(st.text(min_size=1, max_size=5), st.integers(-50, 50))
REFERENCE_SETS = st.dictionaries(RECORD_IDS, st.text(max_size=8), min_size=1, max_size=8)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=REFERENCE_SETS, order=st.randoms(), ascii_only=st.booleans())
def test_jsonl_and_csv_of_the_same_records_read_the_same(
    tmp_path: Path, data: dict, order: object, ascii_only: bool
) -> None:
    unique = {str(k): v for k, v in data.items()}  # 1 and "1" are one id: keep one of them
    items = list(unique.items())
    order.shuffle(items)  # type: ignore[attr-defined]
    as_jsonl = run_file(
        tmp_path,
        "".join(
            json.dumps({"reference": v, "id": k}, ensure_ascii=ascii_only) + "\n" for k, v in items
        ),
    )
    as_csv = write_csv(tmp_path / "r.csv", ["id", "reference"], [[k, v] for k, v in items])
    from_jsonl, from_csv = read_references_file(as_jsonl), read_references_file(as_csv)
    assert from_jsonl.texts == from_csv.texts == {k: (v,) for k, v in items}
    assert list(from_jsonl.texts) == list(from_csv.texts) == [k for k, _ in items]
    expected = reference_fingerprint({k: (v,) for k, v in sorted(unique.items())})
    assert from_jsonl.fingerprint == from_csv.fingerprint == expected


# --------------------------------------------------------------------------- one bad input each


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "output": "x"} {"id": "b"}', "invalid JSON: Extra data (column 28)"),
        ('{"id": "a", "output": "x"', "invalid JSON: Expecting ',' delimiter (column 26)"),
        ('{"id": "a", "output": }', "invalid JSON: Expecting value (column 23)"),
        ('{"id": "a", "output": NaN}', "invalid JSON: NaN is not a JSON value"),
        ('{"id": "a", "output": -Infinity}', "invalid JSON: -Infinity is not a JSON value"),
        ('{"id": "a", "output": "x", "n": 1e400}', "invalid JSON: a number out of range"),
        ("[1, 2]", "expected a JSON object, found array"),
        ('"just a string"', "expected a JSON object, found string"),
        ("null", "expected a JSON object, found null"),
        ('{"output": "x"}', "missing 'id' field"),
        ('{"id": "a"}', "missing 'output' field"),
        ('{"id": "a", "output": null}', "'output' must be a string, not null"),
        ('{"id": "a", "output": ["x"]}', "'output' must be a string, not array"),
        ('{"id": "a", "output": 5}', "'output' must be a string, not number"),
        ('{"id": 1.5, "output": "x"}', "'id' must be a string or an integer, not number"),
        ('{"id": 1e30, "output": "x"}', "'id' must be a string or an integer, not number"),
        ('{"id": true, "output": "x"}', "'id' must be a string or an integer, not boolean"),
        ('{"id": null, "output": "x"}', "'id' must be a string or an integer, not null"),
        ('{"id": "", "output": "x"}', "empty 'id'"),
        ('{"id": -Infinity, "output": "x"}', "invalid JSON: -Infinity is not a JSON value"),
        pytest.param(
            '{"id": "1", "output": "' + "x" * 50_000_000,
            "invalid JSON: Unterminated string starting at (column 23)",
            id="50mb-unterminated",
        ),
        (
            '{"id": "a", "output": "\\ud800 half a pair"}',
            "'output' is not valid Unicode (a lone surrogate escape)",
        ),
        ('{"id": "\\udc00", "output": "x"}', "'id' is not valid Unicode (a lone surrogate escape)"),
        (
            '{"id": "a", "output": "x", "note": ["\\udc00"]}',
            "'note' is not valid Unicode (a lone surrogate escape)",
        ),
        (
            '{"id": "a", "output": "a\x00b"}',
            "invalid JSON: Invalid control character at (column 25)",
        ),
        pytest.param("[" * 100_000 + "]" * 100_000, "invalid JSON: nested too deeply", id="deep"),
        pytest.param(
            '{"id": "a", "output": "x", "n": ' + "[" * 2000 + "]" * 2000 + "}",
            "invalid JSON: nested too deeply",
            id="deep-inside",
        ),
    ],
)
def test_bad_run_lines(tmp_path: Path, line: str, message: str) -> None:
    text = (
        jsonl({"id": "first", "output": "fine"})
        + "\n"
        + line
        + "\n"
        + jsonl({"id": "z", "output": "x"})
    )
    path = run_file(tmp_path, text)
    assert str(error_of(outputs, path)) == f"{path}:3: {message}"


def test_non_utf8_bytes_name_line_and_column(tmp_path: Path) -> None:
    text = jsonl({"id": "a", "output": "x"}, {"id": "b", "output": "y"}).encode()
    path = run_file(tmp_path, text + b'\n{"id": "c", "output": "caf\xe9"}\n')
    # Line 4 (after a blank line 3); byte 0xe9 is the 27th byte of that line.
    assert str(error_of(outputs, path)) == f"{path}:4: not valid UTF-8 (byte 0xe9 at column 27)"
    path = run_file(tmp_path, b"id,output\na,x\nb,caf\xe9\n", "x.csv")
    assert str(error_of(outputs, path)) == f"{path}:3: not valid UTF-8 (byte 0xe9 at column 6)"


@pytest.mark.parametrize("content", ["", "\n", "  \n\n\t\n", "\r\n\r\n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    path = run_file(tmp_path, content)
    assert str(error_of(outputs, path)) == f"{path}: empty file (no records)"


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    text = (
        jsonl({"id": "a0", "output": "x"}, {"id": "a1", "output": "x"})
        + "\n\n"
        + jsonl({"id": "a2", "output": "x"}, {"id": "a1", "output": "y"})
    )
    path = run_file(tmp_path, text)
    assert str(error_of(outputs, path)) == f"{path}:6: duplicate id 'a1' (first on line 2)"
    path = run_file(tmp_path, jsonl({"id": 1, "output": "x"}, {"id": "1", "output": "y"}))
    assert str(error_of(outputs, path)) == f"{path}:2: duplicate id '1' (first on line 1)"
    path = run_file(
        tmp_path, jsonl({"id": 2**64, "reference": "x"}, {"id": str(2**64), "reference": "y"})
    )
    assert (
        str(error_of(texts, path))
        == f"{path}:2: duplicate id '18446744073709551616' (first on line 1)"
    )


def test_ids_in_messages_are_escaped_and_cut_short(tmp_path: Path) -> None:
    hostile = "a\x1b[2J\n\u202e"
    path = run_file(tmp_path, jsonl({"id": hostile, "output": "x"}, {"id": hostile, "output": "y"}))
    assert str(error_of(outputs, path)) == (
        f"{path}:2: duplicate id 'a\\x1b[2J\\n\\u202e' (first on line 1)"
    )
    long = "\x1b" + "x" * 5000
    path = run_file(tmp_path, jsonl({"id": long, "output": "x"}, {"id": long, "output": "y"}))
    message = str(error_of(outputs, path))
    assert message == f"{path}:2: duplicate id '\\x1b{'x' * 35}…' (first on line 1)"


def test_file_names_in_messages_are_escaped(tmp_path: Path) -> None:
    path = run_file(tmp_path, "not json\n", "evil\x1b[31m\n.jsonl")
    assert str(error_of(outputs, path)) == (
        f"{tmp_path}/evil\\x1b[31m\\n.jsonl:1: invalid JSON: Expecting value (column 1)"
    )


@pytest.mark.parametrize(
    "content",
    [
        b"this is not gzip at all",
        gzip.compress(jsonl(*({"id": str(i), "output": "x" * 50} for i in range(200))).encode())[
            :-30
        ],
        gzip.compress(b'{"id": "a", "output": "x"}\n')[:12] + b"\x00" * 40,
    ],
    ids=["not-gzip", "truncated", "corrupt"],
)
def test_corrupt_gzip(tmp_path: Path, content: bytes) -> None:
    path = run_file(tmp_path, content, "x.jsonl.gz")
    error = error_of(outputs, path)
    assert (error.path, error.line) == (path, None)
    assert str(error).startswith(f"{path}: not a valid gzip file: ")
    path.write_bytes(b"")
    assert str(error_of(outputs, path)) == f"{path}: empty file (no records)"


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
        ({"reference": "x"}, "missing 'id' field"),
        ({"id": "b", "reference": None}, "'reference' must be a string, not null"),
        ({"id": "b", "reference": "x", "source": 3}, "'source' must be a string, not number"),
        ({"id": "a", "reference": "again"}, "duplicate id 'a' (first on line 1)"),
    ],
)
def test_bad_reference_records(tmp_path: Path, record: dict, message: str) -> None:
    path = run_file(tmp_path, jsonl({"id": "a", "reference": "x"}, record))
    assert str(error_of(texts, path)) == f"{path}:2: {message}"


# --------------------------------------------------------------------------- properties

FRAGMENTS = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        '"',
        '"id"',
        '"output"',
        '"x"',
        "1",
        '"a"',
        "NaN",
        "null",
        " ",
        "\\",
        "\\u",
        "d800",
        "\r",
        "true",
        "1.5",
        "\t",
        "é",
        "18446744073709551616",
    ]
)
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

    found: dict[str, str] = {}
    bad: set[int] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip(" \t\r"):
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
        try:
            json.dumps(record, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate anywhere in the record
            bad.add(number)
            continue
        key = str(key)
        if key in found:
            bad.add(number)
            continue
        found[key] = text
    if not found and not bad:
        return None, set()  # no records at all
    return (found if not bad else None), bad


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(LINES, max_size=8))
def test_the_reader_agrees_with_a_per_line_json_oracle(tmp_path: Path, lines: list[str]) -> None:
    path = run_file(tmp_path, "\n".join(lines) + "\n")
    expected, bad = oracle(lines)
    try:
        got = outputs(path)
    except SuiteError as error:
        assert "\n" not in str(error)
        if expected is None and not bad:
            assert str(error).endswith("empty file (no records)")
        else:
            assert expected is None, f"rejected a good file: {error}"
            assert error.line == min(bad), f"{error} is not the first bad line {sorted(bad)}"
        return
    assert got == expected


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300), gz=st.booleans(), kind=st.sampled_from(["jsonl", "csv"]))
def test_random_bytes_give_a_result_or_a_suite_error(
    tmp_path: Path, data: bytes, gz: bool, kind: str
) -> None:
    path = run_file(tmp_path, data, f"x.{kind}.gz" if gz and kind == "jsonl" else f"x.{kind}")
    for read in (outputs, texts):
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
    path = run_file(tmp_path, gzip.compress(data), "x.jsonl.gz")
    try:
        outputs(path)
    except SuiteError as error:
        assert "\n" not in str(error)


@pytest.mark.parametrize(("line", "key"), [
    ('{"id": "a", "output": "x", "id": "b"}', "id"),
    ('{"id": "a", "output": "one", "output": "two"}', "output"),
    ('{"id" : "a" , "output" : "x" ,"output":"y"}', "output"),  # spaces before the colons
    ('{"id": "a", "output": "x: y \\": z", "meta": {"k": 1, "k": 2}}', "k"),  # nested
    ('{"\\u0069d": "a", "output": "x", "id": "b"}', "id"),  # the same key, escaped once
])
def test_a_repeated_key_is_an_error_naming_file_line_and_key(tmp_path: Path, line: str, key: str) -> None:
    """Issue 39, weak spot: a record with a repeated key took its last value without a word
    (Python's json and orjson both do); which one was meant, nobody can tell."""
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "z", "output": "fine: yes"}\n\n' + line + "\n", encoding="utf-8")
    assert str(error_of(read_run, path)) == f"{path}:3: repeated key '{key}' (give each field once)"


@pytest.mark.parametrize("line", [
    '{"id": "a", "output": "Root cause: a push. Fix: a rollback \\": not a key"}',
    '{"id" : "a",\t"output"\t:\t"x"}',
    '{"id": "a", "output": "x", "meta": {"id": 1, "output": {"id": 2}}}',  # the same names, apart
])
def test_colons_and_the_same_names_in_other_objects_are_no_repeated_key(tmp_path: Path, line: str) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert list(read_run(path).outputs) == ["a"]


# --------------------------------------------------------------------------- the first bad line
# A file is read a block of lines at a time (`files.BLOCK` bytes); what is named must not
# depend on where a block starts. Records here are padded to LINE bytes, so that a file of
# BLOCK // LINE lines fills a block and the lines after it are read in the next.

LINE = 1024  # bytes in each padded record's line, its newline included
BLOCK_END = files_module.BLOCK // LINE  # the last line of the first block


def _filler(count: int, field: str = "output", source: bool = False) -> list[str]:
    """``count`` good records, ids e0, e1, ..., each line LINE bytes (``source``: every
    record but each third with a source)."""
    lines = []
    for i in range(count):
        record = {"id": f"e{i}", field: "", **({"source": "s"} if source and i % 3 else {})}
        record[field] = f"text {i}".ljust(LINE - 1 - len(json.dumps(record)))
        lines.append(json.dumps(record))
        assert len(lines[-1]) == LINE - 1
    return lines


def _with_bad_lines(good: list[str], first: str, at: int, later: str, gap: int) -> list[str]:
    """``good`` with ``first`` put in as line ``at`` and ``later`` ``gap`` lines after it."""
    lines = good[: at - 1] + [first] + good[at - 1 : at - 2 + gap] + [later] + good[at - 2 + gap :]
    assert lines[at - 1] == first and lines[at - 1 + gap] == later
    return lines


def _block_of(path: Path, number: int) -> int:
    """Which block of the file (0, 1, ...) line ``number`` is read in: the tests' own check
    that their lines fall where meant."""
    starts = [first for first, _ in files_module.LineBlocks(path, hashed=False)]
    return sum(1 for start in starts if start <= number) - 1


# (what is on the first bad line, its message); the filler's e1 is on line 2
RUN_FIRSTS = [
    ('{"id": "x", "output": 5}', "'output' must be a string, not number"),
    ('{"id": "", "output": "x"}', "empty 'id'"),
    ('{"id": 1.5, "output": "x"}', "'id' must be a string or an integer, not number"),
    ('["not", "an", "object"]', "expected a JSON object, found array"),
    ('{"id": "e1", "output": "again"}', "duplicate id 'e1' (first on line 2)"),
    ('{"id": "x", "output": "y", "output": "z"}', "repeated key 'output' (give each field once)"),
]
LATERS = [
    '{"id": "late", "output": ',  # not JSON
    '{"id": "late", "output": "y", "id": "z"}',  # a repeated key
    '{"id": "e2", "output": "again"}',  # an id given before
    '{"id": "late", "output": null}',  # a bad record
    "",  # a blank line
]
# (the first bad line, lines from it to the later one): near, far, and either side of the
# first block's end
PLACES = [(300, 1), (300, 200), (BLOCK_END, 3)]


@pytest.mark.parametrize("later", LATERS)
@pytest.mark.parametrize(("first", "message"), RUN_FIRSTS)
@pytest.mark.parametrize(("at", "gap"), PLACES)
def test_the_first_bad_line_of_a_run_is_named_whatever_is_wrong_after_it(
    tmp_path: Path, first: str, message: str, later: str, at: int, gap: int
) -> None:
    """Line ``at`` is the first bad one, ``gap`` lines before a line bad in another way (or
    blank), in the same block of the file or the next: the first in file order is named."""
    lines = _with_bad_lines(_filler(at + gap + 10), first, at, later, gap)
    path = run_file(tmp_path, "\n".join(lines) + "\n")
    if at == BLOCK_END:
        assert (_block_of(path, at), _block_of(path, at + gap)) == (0, 1)
    assert str(error_of(outputs, path)) == f"{path}:{at}: {message}"


REFERENCE_FIRSTS = [
    ('{"id": "x", "reference": "r", "source": 5}', "'source' must be a string, not number"),
    ('{"id": "x", "references": []}', "'references' must be a non-empty array of strings, not an empty array"),
    ('{"id": "x", "reference": "r", "references": ["r"]}', "both 'reference' and 'references': give one of them"),
    ('{"id": "e1", "reference": "again"}', "duplicate id 'e1' (first on line 2)"),
    ('{"id": "x", "reference": 5}', "'reference' must be a string, not number"),
]
REFERENCE_LATERS = [
    '{"id": "late", "reference": ',  # not JSON
    '{"id": "late", "reference": "y", "id": "z"}',  # a repeated key
    '{"id": "e2", "reference": "again", "source": "s"}',  # an id given before
    '{"id": "late", "reference": "y", "source": ["s"]}',  # a bad source
]


@pytest.mark.parametrize("later", REFERENCE_LATERS)
@pytest.mark.parametrize(("first", "message"), REFERENCE_FIRSTS)
@pytest.mark.parametrize(("at", "gap"), PLACES)
def test_the_first_bad_line_of_references_is_named_whatever_is_wrong_after_it(
    tmp_path: Path, first: str, message: str, later: str, at: int, gap: int
) -> None:
    # records with a source among those without, as a references file may have
    lines = _with_bad_lines(_filler(at + gap + 10, "reference", source=True), first, at, later, gap)
    path = run_file(tmp_path, "\n".join(lines) + "\n")
    if at == BLOCK_END:
        assert (_block_of(path, at), _block_of(path, at + gap)) == (0, 1)
    assert str(error_of(texts, path)) == f"{path}:{at}: {message}"


def test_references_of_every_shape_are_read_as_written(tmp_path: Path) -> None:
    path = run_file(tmp_path, jsonl(
        {"id": "a", "reference": "x"},
        {"id": "b", "reference": " \n", "source": "doc b"},
        {"id": "c", "references": ["p", ""]},
        {"id": "d", "reference": "", "n": 2**70, "f": 1.5},
        {"id": 5, "reference": "five", "source": "s5"},
        {"id": "e", "reference": "y", "source": "doc e", "meta": {"k": [1]}},
        {"id": "f", "references": [" ", ""], "source": "doc f"},
        {"id": "g", "reference": "z"},
    ))
    read = read_references_file(path)
    assert list(read.texts.items()) == [
        ("a", ("x",)), ("b", (" \n",)), ("c", ("p", "")), ("d", ("",)), ("5", ("five",)),
        ("e", ("y",)), ("f", (" ", "")), ("g", ("z",)),
    ]
    assert list(read.sources.items()) == [("b", "doc b"), ("5", "s5"), ("e", "doc e"), ("f", "doc f")]
    assert list(read.extra.items()) == [("d", {"n": 2**70, "f": 1.5}), ("e", {"meta": {"k": [1]}})]
    assert read.empty == ["b", "d", "f"]


@pytest.mark.parametrize(("field", "read"), [("output", outputs), ("reference", texts)])
def test_ids_given_twice_name_both_lines_however_far_apart(tmp_path: Path, field: str, read) -> None:
    good = _filler(BLOCK_END + 10, field)
    # (the line of the id given again, the line it was first on): far apart, near, next to
    # each other, and either side of the first block's end
    for at, again in ((599, 400), (599, 3), (401, 400), (2, 1), (BLOCK_END + 2, BLOCK_END - 1)):
        lines = [*good[: at - 1], json.dumps({"id": f"e{again - 1}", field: "x"}), *good[at - 1 :]]
        path = run_file(tmp_path, "\n".join(lines) + "\n")
        if at > BLOCK_END:
            assert (_block_of(path, again), _block_of(path, at)) == (0, 1)
        assert str(error_of(read, path)) == f"{path}:{at}: duplicate id 'e{again - 1}' (first on line {again})"
    # and an integer id the same as a string one, 500 lines on
    path = run_file(tmp_path, jsonl({"id": "7", field: "x"}, *({"id": f"e{i}", field: "t"} for i in range(500)),
                                    {"id": 7, field: "x"}))
    assert str(error_of(read, path)) == f"{path}:502: duplicate id '7' (first on line 1)"


def _distinct(text: str) -> str:
    """An equal string that is another object."""
    return "".join(list(text))


def test_a_run_read_like_another_keeps_its_strings_in_and_out_of_step(tmp_path: Path) -> None:
    """``like``: where an id comes in the place it has in ``like``, like's id string; wherever
    an output is equal to the one like has for its id, like's output string (the same
    objects, `is`); elsewhere the file's own."""
    count = 700
    ids = [f"e{i}" for i in range(count)]
    written = [f"text {i}" if i % 10 else f"changed {i}" for i in range(count)]
    order = list(range(count))
    order[300], order[301] = 301, 300  # two ids swapped: out of step there
    lines = [{"id": ids[i], "output": written[i]} for i in order] + [{"id": "new", "output": "n"}]
    path = run_file(tmp_path, jsonl(*lines))
    like = {_distinct(ids[i]): _distinct(f"text {i}") for i in range(count)}
    before = dict(like)
    like_id = {key: key for key in like}
    run = read_run(path, like=like)
    assert like == before  # read, never changed
    assert list(run.outputs.items()) == [(r["id"], r["output"]) for r in lines]
    for place, (key, text) in enumerate(run.outputs.items()):
        in_step = place < count and place not in (300, 301)
        assert (key is like_id.get(key)) == in_step, key
        assert (text is like.get(key)) == (text == like.get(key)) == (place < count and order[place] % 10 != 0), key
    plain = read_run(path)  # no like: the file's own strings
    assert not any(key is like_id.get(key) or text is like.get(key) for key, text in plain.outputs.items())


def test_a_bad_csv_record_is_named_before_a_bad_row_after_it(tmp_path: Path) -> None:
    for read, head in ((outputs, b"id,output\n"), (texts, b"id,reference\n")):
        path = run_file(tmp_path, head + b"a,x\n,y\nb,z\nc,d,e\n", "x.csv")
        assert str(error_of(read, path)) == f"{path}:3: empty 'id'"
