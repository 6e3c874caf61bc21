"""Tests for rouge_tui.suite.parquet_rows: a Parquet file's rows as records, read through
`records`' entries (their checks, with ``row N`` for a place), decoded in a child process
that a damaged file or a bomb cannot take this one down with, its texts held to the bounds
of a JSON Lines file.

Files are written by polars (its writer, not the reader under test) and their JSON Lines
twins by ``json``; expected values and messages are written out by hand.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_helpers import error_of, jsonl, outputs, run_file, texts, within

from rouge_tui.errors import SuiteError
from rouge_tui.suite.records import Fields, read_references_file


def write_parquet(path: Path, columns: dict, schema: dict | None = None) -> Path:
    import polars as pl

    pl.DataFrame(columns, schema=schema).write_parquet(path)
    return path


def test_a_row_without_a_source_reads_alike_in_every_format(tmp_path: Path) -> None:
    """A source left out is written as a missing key or null (JSON Lines: json, pandas,
    polars), an empty cell (CSV, which cannot leave it out) or a null (Parquet): no source
    in each, so the figures that read sources agree whatever the format."""
    from suite_helpers import write_csv

    rows = [("a", "doc a"), ("b", None), ("c", ""), ("d", "  ")]
    parquet = write_parquet(tmp_path / "references.parquet", {
        "id": [i for i, _ in rows], "reference": ["r"] * 4, "source": [None if s in ("", "  ") else s for _, s in rows],
    })
    as_null = run_file(tmp_path, jsonl(*({"id": i, "reference": "r", "source": s} for i, s in rows)), "n.jsonl")
    as_left_out = run_file(tmp_path, jsonl(*({"id": i, "reference": "r", **({"source": s} if s else {})}
                                             for i, s in rows)), "o.jsonl")
    as_cells = write_csv(tmp_path / "references.csv", ["id", "reference", "source"],
                         [[i, "r", s or ""] for i, s in rows])
    for path in (parquet, as_null, as_left_out, as_cells):
        read = read_references_file(path)
        assert (read.sources, read.texts) == ({"a": "doc a"}, dict.fromkeys("abcd", ("r",))), path.name


@pytest.mark.parametrize(("record", "expected"), [
    ({"id": "a", "reference": "r", "references": None}, ("r",)),
    ({"id": "a", "reference": None, "references": ["r", "s"]}, ("r", "s")),
])
def test_a_null_reference_field_is_a_field_not_given(tmp_path: Path, record: dict, expected: tuple) -> None:
    """What polars writes back from a Parquet file this reader takes (both columns, null in
    the one a row does not use) reads as that file does."""
    path = run_file(tmp_path, jsonl(record))
    assert texts(path) == {"a": expected}
    both_null = run_file(tmp_path, jsonl({"id": "a", "reference": None, "references": None}), "b.jsonl")
    assert str(error_of(texts, both_null)) == f"{both_null}:1: 'reference' must be a string, not null"


def test_parquet_reads_as_its_jsonl_twin(tmp_path: Path) -> None:
    """The same records as Parquet (written by polars) and as JSON Lines (by json): the same
    texts, order, sources, other fields, empties and fingerprint; digests of each file."""
    import hashlib

    refs = write_parquet(tmp_path / "references.parquet", {
        "id": ["b", "7", "a"],
        "references": [["x y", "z"], ["  "], ["one"]],
        "source": ["doc b", None, "doc a"],
        "input": ["i1", "i2", None],
    })
    twin = run_file(tmp_path, jsonl(
        {"id": "b", "references": ["x y", "z"], "source": "doc b", "input": "i1"},
        {"id": 7, "references": ["  "], "input": "i2"},
        {"id": "a", "references": ["one"], "source": "doc a"},
    ))
    read, expected = read_references_file(refs), read_references_file(twin)
    assert read.texts == {"b": ("x y", "z"), "7": ("  ",), "a": ("one",)}
    assert list(read.texts) == list(expected.texts) == ["b", "7", "a"]
    assert read.sources == expected.sources == {"b": "doc b", "a": "doc a"}
    assert read.extra == expected.extra == {"b": {"input": "i1"}, "7": {"input": "i2"}}
    assert read.empty == expected.empty == ["7"]
    assert read.fingerprint == expected.fingerprint
    assert read.digest == hashlib.sha256(refs.read_bytes()).hexdigest()
    # Integer ids are their decimal strings; one reference per row as a text column.
    run = write_parquet(tmp_path / "b.parquet", {"id": [3, 2**40, -1], "output": ["c", "", "n"]})
    assert list(outputs(run).items()) == [("3", "c"), (str(2**40), ""), ("-1", "n")]
    one = write_parquet(tmp_path / "r.parquet", {"reference": ["x"], "id": ["a"]})
    assert texts(one) == {"a": ("x",)}
    assert texts(write_parquet(  # a null is a field the row does not have
        tmp_path / "both.parquet",
        {"id": ["a", "b"], "reference": ["x", None], "references": [None, ["y", "w"]]},
    )) == {"a": ("x",), "b": ("y", "w")}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ids=st.one_of(
        st.lists(st.text(max_size=6), min_size=1, max_size=8),
        st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=8),
    ),
    texts=st.lists(st.text(max_size=12), min_size=8, max_size=8),
)
def test_parquet_and_jsonl_of_the_same_rows_read_the_same(
    tmp_path: Path, ids: list, texts: list[str]
) -> None:
    """Any rows (empty ids and duplicates included): the same outputs, or the same error at
    the same place, ``row N`` for ``line N``."""
    rows = list(zip(ids, texts))
    run_file(tmp_path, jsonl(*({"id": k, "output": v} for k, v in rows)), "twin.jsonl")
    write_parquet(tmp_path / "b.parquet", {"id": ids, "output": texts[: len(ids)]})
    try:
        expected: object = list(outputs(tmp_path / "twin.jsonl").items())
    except SuiteError as exc:
        expected = str(exc).replace(str(tmp_path / "twin.jsonl"), "").replace("(first on line ", "(first on row ")
    try:
        got: object = list(outputs(tmp_path / "b.parquet").items())
    except SuiteError as exc:
        got = str(exc).replace(str(tmp_path / "b.parquet"), "")
        if got.startswith(":row "):
            got = ":" + got[len(":row "):]
    assert got == expected


def test_parquet_remapped_fields(tmp_path: Path) -> None:
    fields = Fields(id="key", output="answer", reference="gold")
    run = write_parquet(tmp_path / "b.parquet", {"key": ["a"], "answer": ["x"], "output": [1]})
    assert outputs(run, fields) == {"a": "x"}
    refs = write_parquet(tmp_path / "r.parquet", {"key": ["a"], "gold": ["g"]})
    assert texts(refs, fields) == {"a": ("g",)}


@pytest.mark.parametrize(
    ("columns", "schema", "message"),
    [
        ({"id": ["a", "a"], "output": ["x", "y"]}, None, ":row 2: duplicate id 'a' (first on row 1)"),
        ({"id": [1, 2, 1], "output": ["x", "y", "z"]}, None, ":row 3: duplicate id '1' (first on row 1)"),
        ({"id": ["a", "b"], "output": ["x", None]}, None, ":row 2: missing 'output' field"),
        ({"id": ["a", None], "output": ["x", "y"]}, None, ":row 2: missing 'id' field"),
        ({"id": ["a", ""], "output": ["x", "y"]}, None, ":row 2: empty 'id'"),
        ({"id": [1.5], "output": ["x"]}, None, ":row 1: 'id' must be a string or an integer, not number"),
        ({"id": [True], "output": ["x"]}, None, ":row 1: 'id' must be a string or an integer, not boolean"),
        ({"id": ["a"], "output": [3]}, None, ":row 1: 'output' must be a string, not number"),
        ({"id": ["a"], "output": [["x"]]}, None, ":row 1: 'output' must be a string, not array"),
        ({"id": ["a"], "text": ["x"]}, None, ": missing column 'output' (columns: 'id', 'text')"),
        ({"output": ["x"]}, None, ": missing column 'id' (columns: 'output')"),
        ({"id": [], "output": []}, {"id": "str", "output": "str"}, ": empty file (no records)"),
    ],
)
def test_bad_parquet_runs_name_file_row_and_field(
    tmp_path: Path, columns: dict, schema: dict | None, message: str
) -> None:
    import polars as pl

    types = {"str": pl.String}
    path = write_parquet(tmp_path / "b.parquet", columns,
                         {k: types[v] for k, v in schema.items()} if schema else None)
    assert str(error_of(outputs, path)) == f"{path}{message}"


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"id": ["a"], "references": [[]]},
         ":row 1: 'references' must be a non-empty array of strings, not an empty array"),
        ({"id": ["a"], "references": [["x", None]]}, ":row 1: 'references'[1] must be a string, not null"),
        ({"id": ["a"], "reference": ["x"], "references": [["y"]]},
         ":row 1: both 'reference' and 'references': give one of them"),
        ({"id": ["a", "b"], "reference": ["x", None]}, ":row 2: missing 'reference' or 'references' field"),
        ({"id": ["a"], "reference": ["x"], "source": [3]}, ":row 1: 'source' must be a string, not number"),
        ({"id": ["a"], "text": ["x"]},
         ": missing column 'reference' or 'references' (columns: 'id', 'text')"),
    ],
)
def test_bad_parquet_references_name_file_row_and_field(
    tmp_path: Path, columns: dict, message: str
) -> None:
    path = write_parquet(tmp_path / "references.parquet", columns)
    assert str(error_of(texts, path)) == f"{path}{message}"


@pytest.mark.parametrize(
    "content",
    [b"", b"PAR1", b"PAR1" + bytes(range(256)) * 4 + b"PAR1", b"\x1b[31mred"],
    ids=["empty", "magic-only", "garbage-between-magics", "escape-sequence"],
)
def test_a_file_that_is_no_parquet_is_one_line(tmp_path: Path, content: bytes) -> None:
    path = run_file(tmp_path, content, "b.parquet")
    error = error_of(outputs, path)
    assert (error.path, error.line) == (path, None)
    assert str(error).startswith(f"{path}: not a valid Parquet file (")
    assert "\n" not in str(error) and "\x1b" not in str(error)


def test_damaged_parquet_files_are_one_line_errors(tmp_path: Path) -> None:
    """Bytes of a good file flipped at random (seeded): polars, reading them in this process,
    panicked with its message on the terminal or aborted it (a page asking for 2 EiB). Each
    is now read, or one line, and the reading process says nothing else."""
    import random
    import subprocess
    import sys

    good = io.BytesIO()
    import polars as pl

    pl.DataFrame({"id": [f"e{i}" for i in range(30)], "output": ["x y", "z", "w w w"] * 10}).write_parquet(good)
    draw = random.Random(1)
    paths = []
    for number in range(160):
        damaged = bytearray(good.getvalue())
        for _ in range(draw.randint(1, 8)):
            damaged[draw.randrange(len(damaged))] = draw.randrange(256)
        if number % 8 == 0 or number in (50, 102, 159):  # these three panicked polars 2.1
            paths.append(run_file(tmp_path, bytes(damaged), f"{number}.parquet"))
    code = (
        "import sys\nfrom rouge_tui.suite.records import read_run\nfrom rouge_tui.errors import SuiteError\n"
        "for path in sys.argv[1:]:\n"
        "    try: print('read', len(read_run(path).outputs))\n"
        "    except SuiteError as e: print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    said = done.stdout.splitlines()
    assert len(said) == len(paths)
    for path, line in zip(paths, said):
        assert line.startswith(("read ", f"{path}: not a valid Parquet file (", f"{path}:row ")), line


def test_the_parquet_decoder_is_held_to_its_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that decodes to more than the child may hold ends the child, not this process:
    here a bound below what polars needs to start at all."""
    from rouge_tui.suite import parquet_rows

    path = write_parquet(tmp_path / "b.parquet", {"id": ["a"], "output": ["x"]})
    assert outputs(path) == {"a": "x"}
    monkeypatch.setattr(parquet_rows, "DECODE_MEMORY", 64 << 20)
    assert str(error_of(outputs, path)) == f"{path}: not a valid Parquet file (the decoder failed on it)"


def test_a_parquet_fifo_or_directory_is_refused_at_once(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.parquet"
    os.mkfifo(fifo)  # nobody writes: a plain open() would block forever
    error = within(5, outputs, fifo)
    assert str(error) == f"{fifo}: not a regular file (a FIFO)"
    (tmp_path / "dir.parquet").mkdir()
    assert str(error_of(outputs, tmp_path / "dir.parquet")) == (
        f"{tmp_path}/dir.parquet: is a directory, expected a file"
    )


def test_parquet_texts_are_held_to_the_line_and_file_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dictionary page repeats one text on every row at no cost in the file: the bounds
    of a JSON Lines file hold for the texts as they will be, before any becomes a str."""
    from rouge_tui.suite import parquet_rows

    long = ["w" * 1000] * 100
    long[37] += "w"
    path = write_parquet(tmp_path / "b.parquet", {"id": list(range(100)), "output": long})
    assert path.stat().st_size < 5000  # about 100 KB of text in the rows
    monkeypatch.setattr(parquet_rows, "MAX_BYTES", 50_000)
    assert str(error_of(outputs, path)) == (
        f"{path}: column 'output' holds more than 50000 bytes in all"
    )
    monkeypatch.setattr(parquet_rows, "MAX_BYTES", 200_000)
    monkeypatch.setattr(parquet_rows, "MAX_LINE", 1000)  # row 38 holds 1001 bytes
    assert str(error_of(outputs, path)) == f"{path}:row 38: 'output' holds more than 1000 bytes"
    monkeypatch.setattr(parquet_rows, "MAX_LINE", 1001)
    assert len(outputs(path)) == 100
