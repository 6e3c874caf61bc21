"""Tests for rouge_tui.suite.csv_rows: a CSV file's rows as records, read through `records`'
entries: the header's checks, strict quoting, line numbers of rows that span lines, headers
that are somebody's secret, and blocks of empty lines skipped without a line number changed.

Files are written by hand or by Python's csv module (the reader's oracle where one is
needed); expected values and messages are written out by hand.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_helpers import error_of, outputs, run_file, texts, within, write_csv

from rouge_tui import files as files_module
from rouge_tui.suite.records import read_run


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
        ("id,output\na,x\n\n,y\n", ":4: empty 'id'"),
        ("id,output\na,x\na,y\n", ":3: duplicate id 'a' (first on line 2)"),
        # The first bad line is named, whatever is wrong with the lines after it.
        ('id,output\na,x\na,y\nb,"y"z\n', ":3: duplicate id 'a' (first on line 2)"),
        ("id,output\na,x\n,y\nb,y,z\n", ":3: empty 'id'"),
    ],
)
def test_bad_csv_runs(tmp_path: Path, text: str, message: str) -> None:
    path = run_file(tmp_path, text, "b.csv")
    assert str(error_of(outputs, path)) == f"{path}{message}"


def test_csv_nul_is_data_and_long_fields_are_read(tmp_path: Path) -> None:
    assert outputs(run_file(tmp_path, "id,output\na,x\nb,y\0\n", "b.csv")) == {"a": "x", "b": "y\0"}
    long = "word " * 60_000  # 300 kB, over the csv module's default 128 kB field limit
    assert outputs(write_csv(tmp_path / "l.csv", ["id", "output"], [["a", long]])) == {"a": long}


def test_csv_references_cannot_hold_lists(tmp_path: Path) -> None:
    path = run_file(tmp_path, "id,reference,references\na,x,y\n", "references.csv")
    assert str(error_of(texts, path)) == (
        f"{path}:1: a CSV references file takes one 'reference' column; several references per "
        "example ('references') need JSON Lines"
    )


def test_a_csv_header_that_is_a_secret_is_not_printed(tmp_path: Path) -> None:
    """references.csv -> /proc/self/environ printed the first line, tokens and all."""
    secret = "SECRET_TOKEN=ghp_" + "A1b2C3d4" * 5
    target = tmp_path / "environ"
    target.write_bytes(f"{secret}\0HOME=/root\0PATH=/usr/bin,/bin\0,x,y,z,w,v".encode())
    link = tmp_path / "references.csv"
    link.symlink_to(target)
    message = str(error_of(texts, link))
    assert secret not in message and "A1b2C3d4A1b2" not in message
    # At most five columns, each cut to 20 characters, escaped, then a count of the rest.
    assert message == (
        f"{link}:1: missing column 'id' (columns: 'SECRET_TOKEN=ghp_A1…', "
        "'/bin\\x00', 'x', 'y', 'z' and 2 more)"
    )


def test_a_header_of_a_million_columns_is_checked_in_linear_time(tmp_path: Path) -> None:
    header = ",".join(f"c{i}" for i in range(1_000_000))
    path = run_file(tmp_path, header + ",id\n" + "x," * 1_000_000 + "a\n", "wide.csv")
    message = str(within(10, error_of, outputs, path))  # a quadratic check took hours
    assert message == (
        f"{path}:1: missing column 'output' (columns: 'c0', 'c1', 'c2', 'c3', 'c4' and 999996 more)"
    )


def test_a_password_file_as_csv_shows_a_short_excerpt_only(tmp_path: Path) -> None:
    shadow = "root:$6$saltsalt$" + "h" * 86 + ":19000:0:99999:7:::"
    path = run_file(tmp_path, shadow + "\ndaemon:*:19000:0:99999:7:::\n", "references.csv")
    message = str(error_of(texts, path))
    assert "h" * 20 not in message and "daemon" not in message
    assert message == f"{path}:1: missing column 'id' (columns: 'root:$6$saltsalt$hh…')"


def test_a_100_mb_csv_of_empty_lines_is_an_error_in_seconds(tmp_path: Path) -> None:
    """Issue 39, 16, as CSV: 100 MB of "\\r\\n" (or "\\n") took 15-19 s of csv.reader's empty
    rows to reach "no header row"."""
    import time

    for name, blank in (("crlf.csv", b"\r\n"), ("lf.csv", b"\n")):
        path = tmp_path / name
        with open(path, "wb") as handle:
            handle.writelines(blank * ((1 << 20) // len(blank)) for _ in range(100))
        start = time.monotonic()
        assert str(error_of(read_run, path)) == f"{path}: empty file (no header row)"
        assert time.monotonic() - start < 4


_CSV_PIECES = st.lists(st.one_of(
    st.tuples(st.just("blank"), st.integers(1, 40), st.sampled_from(["\n", "\r\n"])),
    st.tuples(st.just("row"), st.integers(0, 3), st.just("")),
    st.tuples(st.just("quoted"), st.integers(0, 40), st.sampled_from(["\n", "\r\n"])),
), max_size=25)


@given(_CSV_PIECES)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_skipped_blocks_of_empty_csv_lines_change_no_record_and_no_line_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pieces
) -> None:
    """Blocks of empty lines are skipped whole where a record would start, never inside a
    quoted field (where they are its text). Tiny blocks, so most runs fill some: the records
    and the line number of an error are Python's csv module's, reading the whole file."""
    from rouge_tui.suite import csv_rows

    monkeypatch.setattr(files_module, "BLOCK", 16)
    monkeypatch.setattr(csv_rows, "MANY_LINES", 2)
    parts = ["id,output\n"]
    for i, (kind, size, end) in enumerate(pieces):
        if kind == "blank":
            parts.append(end * size)
        elif kind == "row":
            parts.append(f"e{i},{'w' * size}\n")
        else:
            parts.append(f'e{i},"a{end * size}b"\n')
    text = "".join(parts) + "bad\n"
    path = tmp_path / "run.csv"
    path.write_bytes(text.encode())
    reader = csv.reader(io.StringIO(text, newline=""))
    expected, start = {}, 1
    for row in reader:
        if row == ["bad"]:
            break
        if row and row != ["id", "output"]:
            expected[row[0]] = row[1]
        start = reader.line_num + 1
    assert str(error_of(read_run, path)) == f"{path}:{start}: expected 2 fields as in the header, found 1"
    path.write_bytes(text.removesuffix("bad\n").encode())
    if expected:
        assert read_run(path).outputs == expected
