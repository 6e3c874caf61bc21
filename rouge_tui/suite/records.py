"""Reading one references file or run file (JSON Lines, maybe gzipped, CSV or Parquet) into
checked records; every malformed input is a SuiteError naming the file and line (or row).

The input contract:

- JSON Lines: one object per line; blank lines skipped, CRLF accepted, a UTF-8 BOM at the
  start tolerated. Strict UTF-8 (a bad byte is named with its line and column); NaN,
  Infinity and out-of-range numbers, lone surrogate escapes (``"\\ud800"``) and nesting
  too deep are errors.
- CSV: a header row naming the columns, strict quoting. A CSV references file holds one
  reference per example (several need JSON Lines or Parquet).
- Parquet: one record a row, decoded by polars in a child process; a null is a field the
  row does not have; a place in the file is ``row N`` (the first is row 1).
- Ids are non-empty strings or integers; an integer is its decimal string, so ``1`` and
  ``"1"`` are one example (and duplicates, naming both lines). Text fields are strings;
  ``references`` is a non-empty array of strings; ``reference`` and ``references`` both in
  one record is an error.

orjson parses each line. Where it refuses one, the standard decoder reads that line to
give the exact message (or the value orjson cannot give: orjson turns an integer beyond
64 bits into a float, so a float id or a float among a reference's other fields is read
again by the standard decoder).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from rouge_tui.safetext import one_line
from rouge_tui.suite.errors import SuiteError, quoted, quoted_list, type_name
from rouge_tui.suite.files import GZIP_RATIO, MAX_BYTES, MAX_LINE, LineBlocks, read_small, size_text

if TYPE_CHECKING:
    import polars as pl

__all__ = ["Fields", "References", "Run", "json_lines", "read_references_file", "read_run", "reference_fingerprint"]


@dataclass(frozen=True)
class Fields:
    """Which record field (JSON key or CSV column) holds each part of an example."""

    id: str = "id"
    reference: str = "reference"
    references: str = "references"
    output: str = "output"
    source: str = "source"


_BOM = b"\xef\xbb\xbf"
_FIELDS = Fields()  # frozen, so one shared default is safe
_FINGERPRINT_TAG = b"rouge-tui references v1\n"
_MANY_LINES = 1 << 15  # lines in a block, 32 bytes a line or less: maybe a blank-line bomb

# A record: the line it starts on (a Parquet file's ``row N``), its parsed value, and the
# JSON line it was parsed from (None in CSV and Parquet), for the standard decoder to read
# again where orjson's value may differ.
Record = tuple[int | str, object, bytes | None]


@dataclass
class References:
    """A references file, read and checked."""

    texts: dict[str, tuple[str, ...]] = field(repr=False)  # id -> references, listed order
    sources: dict[str, str] = field(repr=False)  # id -> source document, where given
    extra: dict[str, dict] = field(repr=False)  # id -> other fields (only ids with some)
    empty: list[str] = field(repr=False)  # ids whose references are all blank
    digest: str  # sha256 of the file's bytes (`files.file_digest`)

    @cached_property
    def usable(self) -> frozenset[str]:
        """The ids with a reference that is not blank: the ones a build is scored on."""
        return frozenset(self.texts).difference(self.empty)

    @cached_property
    def fingerprint(self) -> str:
        """`reference_fingerprint` of texts, made when first asked for (`score` never asks,
        and hashing every reference is a share of its time worth saving)."""
        return reference_fingerprint(self.texts)


@dataclass(eq=False)  # identity: comparing 10^5 outputs field by field is never wanted
class Run:
    """One run file of a build: ``id -> output`` in file order."""

    path: Path
    outputs: dict[str, str] = field(repr=False)
    digest: str  # sha256 of the file's bytes (`files.file_digest`)


# --------------------------------------------------------------------------- parsing


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("a number out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite)
# Python's json.dumps writes a float that is not finite as NaN or Infinity, and harnesses
# log such metrics (lm-eval's NaN on a failed score): read as null where asked.
_NULL_CONSTANTS = json.JSONDecoder(parse_constant=lambda name: None, parse_float=_finite)


def _inside(value: object) -> Iterator[object]:
    """Every value inside a parsed JSON value, the names in its objects included."""
    stack = [value]
    while stack:
        part = stack.pop()
        yield part
        if type(part) is dict:
            stack.extend(part)
            stack.extend(part.values())
        elif type(part) is list:
            stack.extend(part)


def _lone_surrogate(value: object) -> bool:
    for part in _inside(value):
        if type(part) is str:
            try:
                part.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


def _standard(line: bytes, path: Path, number: int, decoder: json.JSONDecoder = _DECODER) -> object:
    """A line orjson refused, through the standard decoder: its value, or the SuiteError
    that says what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not valid UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1})"
        raise SuiteError(message, path, number) from None
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, number) from None
    except RecursionError:
        raise SuiteError("invalid JSON: nested too deeply", path, number) from None
    except ValueError as exc:
        raise SuiteError(f"invalid JSON: {exc}", path, number) from None
    for name, item in value.items() if type(value) is dict else ():
        if _lone_surrogate([name, item]):
            message = f"{quoted(name)} is not valid Unicode (a lone surrogate escape)"
            raise SuiteError(message, path, number)
    return value


_KEY_END = re.compile(rb'"\s*:')  # ends every key (and maybe an escaped quote in a string)
_SPACED = re.compile(rb'"[ \t\r]')  # where a key spaced from its colon would end


def _no_repeated_key(
    line: bytes, value: dict, path: Path, number: int, decoder: json.JSONDecoder = _DECODER
) -> None:
    """A SuiteError naming the first key an object of the line repeats (the parsers keep its
    last value without a word); nothing when none does."""
    ends = len(_KEY_END.findall(line))  # no fewer than the keys written
    if ends == len(value) or ends == sum(len(part) for part in _inside(value) if type(part) is dict):
        return  # no more keys written than kept: none twice

    def once(pairs: list[tuple[str, object]]) -> dict:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise SuiteError(f"repeated key {quoted(key)} (give each field once)", path, number)
            seen.add(key)
        return dict(pairs)

    json.loads(line, object_pairs_hook=once, parse_constant=decoder.parse_constant, parse_float=_finite)


def _jsonl(blocks: LineBlocks, decoder: json.JSONDecoder = _DECODER) -> Iterator[Record]:
    path, loads, failed, spaced = blocks.path, orjson.loads, orjson.JSONDecodeError, _SPACED.search
    for first, lines in blocks:
        if first == 1:
            lines[0] = lines[0].removeprefix(_BOM)
        if lines.count(b"") == len(lines):  # nothing but empty lines (a newline bomb): C-quick
            continue
        if len(lines) > _MANY_LINES and all(not d or d.isspace() for d in set(lines)):
            continue  # blank lines only (" \n", CRLF): as quick, the few distinct ones looked at
        for number, line in enumerate(lines, first):
            if not line or line.isspace():  # before orjson, whose refusal is the slow path
                continue
            try:
                value = loads(line)
            except failed:
                value = _standard(line, path, number, decoder)
            # Each key has a colon after it: as many colons as keys kept, no key was repeated.
            # Nor, with no key spaced from its colon, as many '":' (colons in the text).
            if type(value) is dict and line.count(b":") != len(value) and (
                    line.count(b'":') != len(value) or spaced(line)):
                _no_repeated_key(line, value, path, number, decoder)
            yield number, value, line


def json_lines(path: Path, nan_as_null: bool = False) -> Iterator[tuple[int, object]]:
    """A JSON Lines file's values with their line numbers, through the same checked reading as
    a suite's own files (bounded lines, strict UTF-8, no NaN, no repeated key, gzip by name):
    for importers, whose records then have their own shape. ``nan_as_null``: ``NaN``,
    ``Infinity`` and ``-Infinity``, which Python's json writes, are read as null."""
    decoder = _NULL_CONSTANTS if nan_as_null else _DECODER
    for number, value, _line in _jsonl(LineBlocks(Path(path)), decoder):
        yield number, value


def _csv(blocks: LineBlocks, required: tuple[str, ...], several: str | None) -> Iterator[Record]:
    path = blocks.path
    if csv.field_size_limit() < MAX_LINE:
        csv.field_size_limit(MAX_LINE)  # the default 128 KiB is less than one long output
    # strict: a stray or unclosed quote is an error, not a field that swallows the next lines
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
    ``read``, the reader's lines in the rows it returned (`_csv` sets it); ``skipped``, the
    lines skipped, which the line numbers count."""

    def __init__(self) -> None:
        self.read = 0
        self.skipped = 0

    def of(self, blocks: LineBlocks) -> Iterator[str]:
        given = 0  # lines given to the reader: all in rows it returned when equal to read
        for first, lines in blocks:
            if (given == self.read and len(lines) > _MANY_LINES
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


class ParquetRows:
    """A Parquet file's rows as records, read whole through `files` (a regular file, bounded)
    and decoded by polars in a child process; iterate once. ``digest``: then
    `files.file_digest`'s value."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.digest = ""

    def records(self, required: tuple[str, ...], either: tuple[str, ...] = ()) -> Iterator[Record]:
        """The rows, nulls left out, as ``(f"row {n}", record, None)``; the columns must
        include every one of ``required`` and one of ``either`` (when given)."""
        frame = self._frame()
        columns = frame.columns
        missing = [name for name in required if name not in columns]
        if either and not any(name in columns for name in either):
            missing.append(" or ".join(map(quoted, either)))
        else:
            missing = [quoted(name) for name in missing]
        if missing:
            shown = quoted_list(columns, 5, 20)
            raise SuiteError(f"missing column {missing[0]} (columns: {shown})", self.path)
        if not frame.height:
            raise SuiteError("empty file (no records)", self.path)
        for number, row in enumerate(frame.iter_rows(named=True), 1):
            yield f"row {number}", {k: v for k, v in row.items() if v is not None}, None

    def _frame(self) -> pl.DataFrame:
        data = read_small(self.path, MAX_BYTES)
        self.digest = hashlib.sha256(data).hexdigest()
        import polars as pl

        frame = pl.read_ipc_stream(io.BytesIO(self._decoded(data)))
        # Held to what a JSON Lines file may hold before any text is made a Python str: a
        # dictionary page can repeat one long text on every row.
        for name, dtype in frame.schema.items():
            if dtype == pl.String:
                sizes = frame[name].str.len_bytes()
            elif dtype == pl.List(pl.String):
                sizes = frame[name].list.eval(pl.element().str.len_bytes()).list.sum()
            elif dtype == pl.Binary:
                sizes = frame[name].bin.size()
            else:
                continue
            if (sizes.max() or 0) > MAX_LINE:
                row = f"row {sizes.arg_max() + 1}"
                message = f"{quoted(name)} holds more than {size_text(MAX_LINE)}"
                raise SuiteError(message, self.path, row)
            if (sizes.sum() or 0) > MAX_BYTES:
                message = f"column {quoted(name)} holds more than {size_text(MAX_BYTES)} in all"
                raise SuiteError(message, self.path)
        return frame

    def _decoded(self, data: bytes) -> bytes:
        """The file decoded by polars in a child process, as an Arrow IPC stream that polars
        itself wrote. In this process a damaged file can abort it: a flipped byte in a
        page header asks for 2 EiB and Rust aborts, others panic with a backtrace on the
        terminal (tests/test_records.py::test_damaged_parquet_files_are_one_line_errors)."""
        import subprocess  # here: JSON Lines and CSV never start a process

        try:
            memory = max(DECODE_MEMORY, GZIP_RATIO * len(data))  # a bomb ends the child only
            done = subprocess.run(
                [sys.executable, "-I", "-c", _DECODE, str(memory)], input=data, capture_output=True,
                check=False, env={**os.environ, "RUST_BACKTRACE": "0"},
            )
        except OSError as exc:
            raise SuiteError(f"cannot decode Parquet: {exc.strerror or exc}", self.path) from None
        if done.returncode == 0:
            return done.stdout
        said = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = "the decoder failed on it"  # a panic, an abort, memory: polars gave no reason
        if done.returncode == 3 and said:
            reason = said[-1].strip()
        raise SuiteError(f"not a valid Parquet file ({one_line(reason, 120)})", self.path)


# Decodes a Parquet file from stdin to an Arrow IPC stream on stdout; polars' refusal is its
# last stderr line, with status 3. Only polars' own output is read back in the parent. Its address space is held
# to DECODE_MEMORY, or GZIP_RATIO times the file's size (a gzip file's bound) when more.
DECODE_MEMORY = 8 << 30  # polars reserves 1.5-1.9 GB of addresses with 2-64 threads
_DECODE = """
import io, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2)
try:
    with open("/proc/self/oom_score_adj", "w") as adj:  # the first to go when memory runs out
        adj.write("1000")
except OSError:
    pass
import polars as pl
try:
    frame = pl.read_parquet(io.BytesIO(sys.stdin.buffer.read()))
except pl.exceptions.PolarsError as exc:  # polars' own refusal, said: status 3
    print((str(exc).strip() or type(exc).__name__).splitlines()[0], file=sys.stderr)
    sys.exit(3)
frame.write_ipc_stream(sys.stdout.buffer)
"""


def _source(path: Path) -> LineBlocks | ParquetRows:
    """What a file's records are read from, by its name."""
    return ParquetRows(path) if path.name.endswith(".parquet") else LineBlocks(path)


def _records(
    blocks: LineBlocks | ParquetRows, required: tuple[str, ...], several: str | None
) -> Iterator[Record]:
    """A file's records in file order; a CSV header must name the ``required`` columns and,
    for references, not ``several`` (the list of references JSON Lines can hold); a Parquet
    file's columns, ``required`` but for its last, which ``several`` may stand for."""
    if isinstance(blocks, ParquetRows):
        if several is None:
            return blocks.records(required)
        return blocks.records(required[:-1], (required[-1], several))
    if blocks.path.name.endswith(".csv"):
        return _csv(blocks, required, several)
    return _jsonl(blocks)


# --------------------------------------------------------------------------- checking
# The readers test the usual record inline (an object, a non-empty string id, string
# texts); anything else goes through these checks, which raise the exact error.


def _text(path: Path, number: int | str, record: dict, name: str) -> str:
    if name not in record:
        raise SuiteError(f"missing {quoted(name)} field", path, number)
    value = record[name]
    if type(value) is not str:
        raise SuiteError(f"{quoted(name)} must be a string, not {type_name(value)}", path, number)
    return value


def _id(path: Path, number: int | str, record: object, line: bytes | None, name: str) -> str:
    """A record's id: a non-empty string, or an integer as its decimal text."""
    if type(record) is not dict:
        raise SuiteError(f"expected a JSON object, found {type_name(record)}", path, number)
    if name not in record:
        raise SuiteError(f"missing {quoted(name)} field", path, number)
    value = record[name]
    if type(value) is str and value:
        return value
    if type(value) is float and line is not None:  # orjson's float for an integer past 64 bits?
        value = _DECODER.decode(line.decode("utf-8"))[name]
    if type(value) is int:
        return str(value)
    if value == "":
        raise SuiteError(f"empty {quoted(name)}", path, number)
    message = f"{quoted(name)} must be a string or an integer, not {type_name(value)}"
    raise SuiteError(message, path, number)


def _duplicate(
    path: Path, number: int | str, key: str, again: Iterator[Record], name: str
) -> SuiteError:
    """Read the file again to the first record with ``key``: only errors pay for the line
    numbers, and every record before ``number`` passed the checks."""
    with contextlib.closing(again):  # type: ignore[type-var]
        for earlier, record, line in again:
            found = record[name]  # type: ignore[index]
            if (found if type(found) is str else _id(path, earlier, record, line, name)) == key:
                where = f"line {earlier}" if type(earlier) is int else earlier
                message = f"duplicate id {quoted(key)} (first on {where})"
                return SuiteError(message, path, number)
    return SuiteError(f"duplicate id {quoted(key)}", path, number)


def read_run(path: Path, fields: Fields = _FIELDS, like: Mapping[str, object] | None = None) -> Run:
    """One run file as ``id -> output`` in file order, every record checked. ``like``: what
    was read before (the references, the build before's run): its ids, and its outputs
    where equal, are kept as its strings, so a nightly build that repeats most of the one
    before holds each text once (and comparing the two finds them the same object)."""
    path = Path(path)
    like = like or {}
    ahead = iter(like.items())  # in a file in the same order, each id is the next one's
    id_name, output_name = fields.id, fields.output
    blocks = _source(path)
    outputs: dict[str, str] = {}
    for number, record, line in _records(blocks, (id_name, output_name), None):
        try:
            key, text = record[id_name], record[output_name]  # type: ignore[index]
        except (KeyError, TypeError):  # no such field, or no object
            key = text = None
        if type(key) is not str or not key or type(text) is not str:
            key = _id(path, number, record, line, id_name)
            text = _text(path, number, record, output_name)  # type: ignore[arg-type]
        if key in outputs:
            again = _records(_source(path), (id_name, output_name), None)
            raise _duplicate(path, number, key, again, id_name)
        known, before = next(ahead, (None, None))
        if known == key:
            key = known
        else:
            before = like.get(key)
        outputs[key] = before if before == text else text
    if not outputs:
        raise SuiteError("empty file (no records)", path)
    return Run(path, outputs, blocks.digest)


def _texts(path: Path, number: int | str, record: dict, fields: Fields) -> tuple[str, ...]:
    """A record's references: its ``reference``, or its ``references`` in listed order."""
    one, many = fields.reference, fields.references
    if one in record and many in record:
        raise SuiteError(f"both {quoted(one)} and {quoted(many)}: give one of them", path, number)
    if one in record or many not in record:
        if one not in record:
            raise SuiteError(f"missing {quoted(one)} or {quoted(many)} field", path, number)
        return (_text(path, number, record, one),)
    value = record[many]
    if type(value) is not list or not value:
        kind = "an empty array" if value == [] else type_name(value)
        message = f"{quoted(many)} must be a non-empty array of strings, not {kind}"
        raise SuiteError(message, path, number)
    for position, item in enumerate(value):
        if type(item) is not str:
            message = f"{quoted(many)}[{position}] must be a string, not {type_name(item)}"
            raise SuiteError(message, path, number)
    return tuple(value)


def read_references_file(path: Path, fields: Fields = _FIELDS) -> References:
    """A references file: texts in listed order, sources, other fields, all checked."""
    path = Path(path)
    id_name, one, many, source = fields.id, fields.reference, fields.references, fields.source
    known = {id_name, one, many, source}
    blocks = _source(path)
    texts: dict[str, tuple[str, ...]] = {}
    sources: dict[str, str] = {}
    extra: dict[str, dict] = {}
    empty: list[str] = []
    for number, record, line in _records(blocks, (id_name, one), many):
        try:
            key, text = record[id_name], record[one]  # type: ignore[index]
        except (KeyError, TypeError):  # no such field, or no object
            key = text = None
        if type(key) is str and key and type(text) is str and many not in record:  # type: ignore[operator]
            references: tuple[str, ...] = (text,)
            blank = not text or text.isspace()
        else:
            key = _id(path, number, record, line, id_name)
            references = _texts(path, number, record, fields)  # type: ignore[arg-type]
            blank = all(not text or text.isspace() for text in references)
        if key in texts:
            again = _records(_source(path), (id_name, one), many)
            raise _duplicate(path, number, key, again, id_name)
        texts[key] = references
        if blank:
            empty.append(key)
        if len(record) > 2:  # type: ignore[arg-type]
            if source in record:  # type: ignore[operator]
                sources[key] = _text(path, number, record, source)  # type: ignore[arg-type]
            others = {k: v for k, v in record.items() if k not in known}  # type: ignore[union-attr]
            if others and line is not None and float in map(type, _inside(others)):
                exact = _DECODER.decode(line.decode("utf-8"))  # integers past 64 bits, exactly
                others = {k: v for k, v in exact.items() if k not in known}
            if others:
                extra[key] = others
    if not texts:
        raise SuiteError("empty file (no records)", path)
    return References(texts, sources, extra, empty, blocks.digest)


def reference_fingerprint(texts: dict[str, tuple[str, ...]]) -> str:
    """sha256 hex over the ``(id, references)`` pairs in id order.

    Canonical, so the same reference set gives the same print whatever its file format,
    record order, key order or JSON escaping; sources and other fields do not count. Each
    string enters length-prefixed (``len:text``), so no two sets share an encoding.
    """
    digest = hashlib.sha256(_FINGERPRINT_TAG)
    parts: list[str] = []
    for key in sorted(texts):
        references = texts[key]
        parts.append(f"{len(key)}:{key}{len(references)}:")
        for text in references:
            parts.append(f"{len(text)}:{text}")
        if len(parts) >= 4096:
            digest.update("".join(parts).encode("utf-8", "surrogatepass"))
            parts.clear()
    digest.update("".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
