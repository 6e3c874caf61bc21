"""CSV records (SPEC, "Suite on disk"): a header row naming the columns, strict quoting, one
record a row; a place in the file is the line its row starts on. A references file holds one
reference per example here (several need JSON Lines or Parquet). The records are checked by
`records`, as every format's are.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, quoted_list
from rouge_tui.files import MANY_LINES, MAX_LINE, LineBlocks

__all__ = ["csv_rows"]


def csv_rows(
    blocks: LineBlocks, required: tuple[str, ...], several: str | None
) -> Iterator[tuple[int, dict[str, str], None]]:
    """A CSV file's rows as records, ``(line the row starts on, record, None)``; its header
    must name the ``required`` columns and not ``several`` (a references file's list)."""
    path = blocks.path
    if csv.field_size_limit() < MAX_LINE:
        csv.field_size_limit(MAX_LINE)  # the default 128 KiB is less than one long output
    # strict: an unclosed quote, or text after a quoted field's closing quote, is an error, not
    # a field that swallows the next lines; a quote inside an unquoted field (ab"c) is its text,
    # as spreadsheets read it
    lines = _CsvLines()
    reader = csv.reader(lines.of(blocks), strict=True)
    columns: list[str] = []
    rows = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise SuiteError(f"invalid CSV: {exc}", path, lines.read + lines.skipped + 1) from None
        start = lines.read + lines.skipped + 1  # lines skipped now were before the row
        lines.read = reader.line_num
        if row and not columns:
            columns = _header(path, start, row, required, several)
        elif row:
            if len(row) != len(columns):
                message = f"expected {len(columns)} fields as in the header, found {len(row)}"
                raise SuiteError(message, path, start)
            rows += 1
            yield start, dict(zip(columns, row)), None
    if not columns:
        raise SuiteError("empty file (no header row)", path)
    if not rows:
        raise SuiteError("empty file (a header but no records)", path)


class _CsvLines:
    """A CSV file's lines for csv.reader, a block of empty lines (a newline bomb, CRLF or
    not) skipped whole where a record would start (inside a quoted field they are its text):
    ``read``, the reader's lines in the rows it returned (`csv_rows` sets it); ``skipped``, the
    lines skipped, which the line numbers count."""

    def __init__(self) -> None:
        self.read = 0
        self.skipped = 0

    def of(self, blocks: LineBlocks) -> Iterator[str]:
        given = 0  # lines given to the reader: all in rows it returned when equal to read
        for first, lines in blocks:
            if (given == self.read and len(lines) > MANY_LINES
                    and lines.count(b"") + lines.count(b"\r") == len(lines)):
                self.skipped += len(lines)
                continue
            for line in _csv_text(blocks, first, lines):
                given += 1
                yield line


def _csv_text(blocks: LineBlocks, first: int, lines: list[bytes]) -> io.StringIO:
    """A block's lines as text, line by line as csv.reader takes them."""
    data = b"\n".join(lines) + b"\n"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first + data.count(b"\n", 0, exc.start)
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        message = f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})"
        raise SuiteError(message, blocks.path, line) from None
    return io.StringIO(text.removeprefix("\ufeff") if first == 1 else text, newline="")


def _header(
    path: Path, line: int, row: list[str], required: tuple[str, ...], several: str | None
) -> list[str]:
    """The column names; messages show at most a few of them, each cut short, since a header
    that is not one may be anybody's first line (a secret, a password file)."""
    columns = [name.strip() for name in row]
    if several is not None and several in columns:
        message = (
            f"a CSV references file takes one {quoted(required[-1])} column; several "
            f"references per example ({quoted(several)}) need JSON Lines"
        )
        raise SuiteError(message, path, line)
    seen: set[str] = set()
    for name in columns:
        if name in seen:
            raise SuiteError(f"duplicate column {quoted(name, 20)} in the header", path, line)
        seen.add(name)
    for name in required:
        if name not in columns:
            shown = quoted_list(columns, 5, 20)
            raise SuiteError(f"missing column {quoted(name)} (columns: {shown})", path, line)
    return columns
