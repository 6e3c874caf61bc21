"""Reading one references file or build file (JSONL, JSONL.gz or CSV) into checked records.

Every malformed input becomes a :class:`SuiteError` naming the file and line; nothing else
escapes. JSON Lines are read in blocks and parsed with orjson or the standard library
decoder's C scanner (see :func:`_parse_lines`); when a block does not parse cleanly, a
careful per-line pass finds the first bad line and says what is wrong with it.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, compress
from operator import itemgetter
from pathlib import Path
from typing import BinaryIO

import orjson

from rouge_tui.digests import length_prefixed
from rouge_tui.gcpause import collector_paused
from rouge_tui.suite.errors import SuiteError, show_id, type_name
from rouge_tui.suite.settings import Fields

__all__ = [
    "EXTENSIONS",
    "read_outputs",
    "read_reference_records",
    "read_references",
    "split_extension",
]

_DEFAULT_FIELDS = Fields()  # immutable, so one shared default is safe

# Accepted file name endings, longest first so ".jsonl.gz" wins over a bare ".gz" test.
EXTENSIONS = (".jsonl.gz", ".jsonl", ".csv")

# A JSON \u escape of a surrogate: the only way a lone surrogate can enter a decoded string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def split_extension(name: str) -> tuple[str, str] | None:
    """``("x", ".jsonl.gz")`` for ``"x.jsonl.gz"``; None if the name has no accepted extension."""
    for ext in EXTENSIONS:
        if name.endswith(ext) and len(name) > len(ext):
            return name[: -len(ext)], ext
    return None


# JSON Lines are read in blocks of about this many bytes, each cut at a line end, so a big
# file never exists as bytes, text and parsed records all at once.
_BLOCK = 1 << 20


def _open(path: Path) -> BinaryIO:
    """Open a regular file for binary reading (through gzip for ``.gz``), or a SuiteError."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise SuiteError("no such file (or a broken link)", path) from None
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None
    if stat.S_ISDIR(mode):
        raise SuiteError("is a directory, expected a file", path)
    if not stat.S_ISREG(mode):
        # A FIFO or device would block or never end: never open one.
        raise SuiteError("not a regular file", path)
    try:
        if path.name.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")  # closed by the callers' with blocks
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None


def _read_failure(path: Path, exc: BaseException) -> SuiteError:
    """The message for an error met while reading (decompression errors surface here)."""
    if isinstance(exc, (gzip.BadGzipFile, EOFError, zlib.error)):
        return SuiteError(f"not a valid gzip file: {exc}", path)
    if isinstance(exc, OSError):
        return SuiteError(f"cannot read: {exc.strerror or exc}", path)
    return SuiteError(f"cannot read: {exc}", path)


def read_bytes(path: Path) -> bytes:
    """The whole file's bytes (decompressed for ``.gz``), or a SuiteError naming the file."""
    handle = _open(path)
    try:
        with handle:
            return handle.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise _read_failure(path, exc) from None


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in blocks of whole lines (each ends with a newline, but maybe the last)."""
    handle = _open(path)
    with handle:
        while True:
            try:
                block = handle.read(_BLOCK)
                if block and not block.endswith(b"\n"):
                    block += handle.readline()
            except (OSError, EOFError, zlib.error) as exc:
                raise _read_failure(path, exc) from None
            if not block:
                return
            yield block


def _decode(block: bytes, path: Path, first_line: int) -> str:
    """Strict UTF-8; a bad byte is reported with its line and column."""
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        column = exc.start - (block.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SuiteError(
            f"not valid UTF-8 (byte 0x{block[exc.start]:02x} at column {column})", path, line
        ) from None


@dataclass
class _Records:
    """Parsed records of one file and the line on which each starts."""

    path: Path
    values: list[object]
    numbers: list[int]
    # True when a string may hold a lone surrogate (from a \uD800-style escape).
    maybe_surrogates: bool = False
    # For CSV: the header's column names and line (missing-field messages say "column").
    columns: list[str] | None = None
    header_line: int | None = None
    # sha256 of the bytes parsed (after gunzip): the same bytes always parse the same.
    content: str = ""

    def line(self, index: int) -> int:
        """The 1-based line on which record ``index`` starts."""
        return self.numbers[index]

    def fail(self, index: int, message: str) -> SuiteError:
        return SuiteError(message, self.path, self.numbers[index])


class _ConstantError(ValueError):
    """NaN, Infinity and -Infinity are not JSON, though Python's decoder accepts them."""


def _reject_constant(name: str) -> object:
    raise _ConstantError(f"{name} is not a JSON value")


_STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _parse_lines(lines: list[str]) -> list[object] | None:
    """Each line as one JSON value; None when any line needs the careful path."""
    values = _parse_flat(lines)
    return values if values is not None else _parse_scanned(lines)


_PLAIN = frozenset((str, int))


def _parse_flat(lines: list[str]) -> list[object] | None:
    """The usual lines (objects of strings and integers) through orjson, about twice as fast
    as the standard scanner; None for anything else.

    orjson and the standard decoder agree on strings and on integers that fit in 64 bits;
    they part on bigger integers (orjson makes a float of them), lone surrogate escapes and
    out-of-range floats. So a block is taken from orjson only when every line is an object
    whose values are all strings and integers (a bigger integer shows as a float and sends
    the block to the standard decoder); anything else, errors included, goes there too.
    """
    try:
        values = list(map(orjson.loads, lines))
        kinds = set(map(type, chain.from_iterable(map(dict.values, values))))  # type: ignore[arg-type]
    except (orjson.JSONDecodeError, TypeError):
        return None
    return values if kinds <= _PLAIN else None


def _parse_scanned(lines: list[str]) -> list[object] | None:
    """Each line through the standard decoder's C scanner with no per-line Python wrapper
    (about twice as fast as ``json.loads`` per line); None when any line needs the careful
    path: a parse error, leading whitespace, or anything after the value."""
    scan = _STRICT_DECODER.scan_once
    try:
        results = [scan(line, 0) for line in lines]
    except (StopIteration, ValueError, RecursionError):
        return None
    if list(map(itemgetter(1), results)) != list(map(len, lines)):
        return None
    return list(map(itemgetter(0), results))


def _parse_line(text: str) -> object:
    """One line by itself; raises ValueError with a one-line reason."""
    try:
        return _STRICT_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {exc}") from None


def parse_jsonl(path: Path) -> _Records:
    """Read and parse a JSON Lines file, skipping blank lines; a bad line is a SuiteError."""
    with collector_paused():
        return _parse_jsonl(path)


def _parse_jsonl(path: Path) -> _Records:
    values: list[object] = []
    numbers: list[int] = []
    surrogates = False
    before = 0  # lines in the blocks already read
    content = hashlib.sha256()
    for block in _blocks(path):
        content.update(block)
        text = _decode(block, path, before + 1)
        if before == 0:
            text = text.removeprefix("\ufeff")
        if not surrogates and _SURROGATE_ESCAPE.search(text):
            surrogates = True
        lines = text.split("\n")  # not splitlines(): U+2028 may sit inside a JSON string
        if not lines[-1]:
            lines.pop()  # the block ends with a newline
        if "" not in lines and not any(map(str.isspace, lines)):
            kept = lines
            kept_numbers: Sequence[int] = range(before + 1, before + 1 + len(lines))
        else:
            kept = [line for line in lines if line and not line.isspace()]
            kept_numbers = [
                before + 1 + i for i, line in enumerate(lines) if line and not line.isspace()
            ]
        if "\r" in text:  # CRLF line ends: trailing JSON whitespace is allowed anyway
            kept = [line.rstrip(" \t\r") for line in kept]
        parsed = _parse_lines(kept) if kept else []
        if parsed is None:
            parsed = []
            for number, line in zip(kept_numbers, kept):
                try:
                    parsed.append(_parse_line(line))
                except ValueError as exc:
                    raise SuiteError(str(exc), path, number) from None
        values.extend(parsed)
        numbers.extend(kept_numbers)
        before += len(lines)
    if not values:
        raise SuiteError("empty file (no records)", path)
    return _Records(
        path, values, numbers, maybe_surrogates=surrogates, content=content.hexdigest()
    )


def _raise_csv_field_limit() -> None:
    """Outputs can be long (1 MB lines happen); the csv module's default cap is 128 KiB."""
    wanted = min(sys.maxsize, 2**31 - 1)
    if csv.field_size_limit() < wanted:
        csv.field_size_limit(wanted)


def parse_csv(path: Path, required: tuple[str, ...]) -> _Records:
    """Read and parse CSV with a header row naming the columns; errors name the record's
    first line."""
    data = read_bytes(path)
    content = hashlib.sha256(data).hexdigest()
    text = _decode(data, path, 1).removeprefix("\ufeff")
    del data
    _raise_csv_field_limit()
    # strict: a stray or unclosed quote is an error, not a field that swallows the next lines.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    header: list[str] = []
    try:
        for header in reader:
            if header:
                break
            start = reader.line_num + 1
    except csv.Error as exc:
        raise SuiteError(f"invalid CSV: {exc}", path, start) from None
    if not header:
        raise SuiteError("empty file (no header row)", path)
    header_line = start
    columns = [name.strip() for name in header]
    seen: set[str] = set()
    for name in columns:
        if name in seen:
            raise SuiteError(f"duplicate column {show_id(name)} in the header", path, start)
        seen.add(name)
    for name in required:
        if name not in seen:
            raise SuiteError(
                f"missing column {show_id(name)} "
                f"(columns: {', '.join(show_id(c) for c in columns)})",
                path,
                start,
            )
    width = len(columns)
    values: list[object] = []
    numbers: list[int] = []
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise SuiteError(f"invalid CSV: {exc}", path, start) from None
        if row:
            if len(row) != width:
                raise SuiteError(
                    f"expected {width} fields as in the header, found {len(row)}", path, start
                )
            values.append(dict(zip(columns, row)))
            numbers.append(start)
        start = reader.line_num + 1
    if not values:
        raise SuiteError("empty file (a header but no records)", path)
    return _Records(
        path, values, numbers, columns=columns, header_line=header_line, content=content
    )


def read_records(path: Path, required: tuple[str, ...]) -> _Records:
    """Read and parse one file by its extension (``.csv`` or JSON Lines, maybe gzipped)."""
    if path.name.endswith(".csv"):
        return parse_csv(path, required)
    return parse_jsonl(path)


# --- checking records -----------------------------------------------------------------


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _missing(records: _Records, name: str) -> str:
    kind = "column" if records.columns is not None else "field"
    return f"missing {show_id(name)} {kind}"


def _record_id(records: _Records, index: int, record: object, name: str) -> str:
    """The checked id of one record: a non-empty string, or an integer as its decimal string."""
    if type(record) is not dict:
        raise records.fail(index, f"expected a JSON object, found {type_name(record)}")
    if name not in record:
        raise records.fail(index, _missing(records, name))
    value = record[name]
    if type(value) is int:
        return str(value)
    if type(value) is not str:
        raise records.fail(
            index, f"{show_id(name)} must be a string or an integer, not {type_name(value)}"
        )
    if not value:
        raise records.fail(index, f"empty {show_id(name)}")
    if records.maybe_surrogates and _lone_surrogate(value):
        raise records.fail(index, f"{show_id(name)} is not valid Unicode (a lone surrogate escape)")
    return value


def _record_text(records: _Records, index: int, record: dict, name: str) -> str:
    if name not in record:
        raise records.fail(index, _missing(records, name))
    value = record[name]
    if type(value) is not str:
        raise records.fail(index, f"{show_id(name)} must be a string, not {type_name(value)}")
    if records.maybe_surrogates and _lone_surrogate(value):
        raise records.fail(index, f"{show_id(name)} is not valid Unicode (a lone surrogate escape)")
    return value


def _duplicate(records: _Records, index: int, key: str, name: str) -> SuiteError:
    for first, record in enumerate(records.values):
        if _record_id(records, first, record, name) == key:
            break
    return records.fail(index, f"duplicate id {show_id(key)} (first on line {records.line(first)})")


def _columns(records: _Records, *names: str) -> tuple[list, ...] | None:
    """The named fields of every record as lists, when every record is an object holding them
    all as strings; None when anything needs the record-by-record checks (or may hold a lone
    surrogate). Runs in C-level loops: the common case costs a few ms per 100,000 records."""
    if records.maybe_surrogates:
        return None
    try:
        columns = tuple(list(map(itemgetter(name), records.values)) for name in names)
    except (KeyError, TypeError, IndexError):
        return None
    for column in columns:
        if set(map(type, column)) != {str}:
            return None
    return columns


def outputs_from_records(records: _Records, fields: Fields) -> dict[str, str]:
    """``id -> output`` in file order; every record checked."""
    id_name, text_name = fields.id, fields.output
    columns = _columns(records, id_name, text_name)
    if columns is not None:
        keys, texts = columns
        outputs = dict(zip(keys, texts))
        if len(outputs) == len(keys) and "" not in outputs:
            return outputs
    outputs = {}
    for index, record in enumerate(records.values):
        key = _record_id(records, index, record, id_name)
        text = _record_text(records, index, record, text_name)  # type: ignore[arg-type]
        if key in outputs:
            raise _duplicate(records, index, key, id_name)
        outputs[key] = text
    return outputs


def _references_fast(
    records: _Records, fields: Fields
) -> tuple[dict[str, tuple[str, ...]], dict[str, dict]] | None:
    """The common case (one ``reference`` string per record) in bulk; None for the checks."""
    columns = _columns(records, fields.id, fields.reference)
    if columns is None:
        return None
    keys, texts = columns
    references = dict(zip(keys, zip(texts)))
    if len(references) != len(keys) or "" in references:
        return None
    extra: dict[str, dict] = {}
    wide = list(map((2).__lt__, map(len, records.values)))  # type: ignore[arg-type]
    if any(wide):
        known = {fields.id, fields.reference, fields.references}
        for key, record in zip(compress(keys, wide), compress(records.values, wide)):
            if fields.references in record:  # type: ignore[operator]
                return None
            extra[key] = {n: v for n, v in record.items() if n not in known}  # type: ignore[union-attr]
    return references, extra


def read_reference_records(
    path: Path, fields: Fields = _DEFAULT_FIELDS
) -> tuple[dict[str, tuple[str, ...]], dict[str, dict]]:
    """References (``id -> texts`` in listed order) and each record's other fields.

    A record has either a ``reference`` string or a ``references`` non-empty list of strings
    (field names as remapped by ``fields``); both at once is ambiguous and an error. Only ids
    whose records carry other fields appear in the second dict.
    """
    records = read_records(path, (fields.id, fields.reference))
    id_name, one, many = fields.id, fields.reference, fields.references
    known = {id_name, one, many}
    if records.columns is not None and many in records.columns:
        raise SuiteError(
            f"a CSV references file takes one {show_id(one)} column; "
            f"several references per example ({show_id(many)}) need JSON Lines",
            path,
            records.header_line,
        )
    fast = _references_fast(records, fields)
    if fast is not None:
        return fast
    references: dict[str, tuple[str, ...]] = {}
    extra: dict[str, dict] = {}
    for index, record in enumerate(records.values):
        key = _record_id(records, index, record, id_name)
        assert type(record) is dict  # checked by _record_id
        if one in record and many in record:
            raise records.fail(index, f"both {show_id(one)} and {show_id(many)}: give one of them")
        if one in record:
            texts: tuple[str, ...] = (_record_text(records, index, record, one),)
        elif many in record:
            value = record[many]
            if type(value) is not list or not value:
                kind = "an empty array" if value == [] else type_name(value)
                raise records.fail(
                    index, f"{show_id(many)} must be a non-empty array of strings, not {kind}"
                )
            for position, item in enumerate(value):
                if type(item) is not str:
                    raise records.fail(
                        index,
                        f"{show_id(many)}[{position}] must be a string, not {type_name(item)}",
                    )
                if records.maybe_surrogates and _lone_surrogate(item):
                    raise records.fail(index, f"{show_id(many)}[{position}] is not valid Unicode")
            texts = tuple(value)
        else:
            raise records.fail(index, f"missing {show_id(one)} or {show_id(many)} field")
        if key in references:
            raise _duplicate(records, index, key, id_name)
        references[key] = texts
        if len(record) > 2:
            others = {name: value for name, value in record.items() if name not in known}
            if others:
                extra[key] = others
    return references, extra


def read_outputs(path: Path, fields: Fields = _DEFAULT_FIELDS) -> dict[str, str]:
    """One build (run) file as ``id -> output`` in file order, checked; errors name the line.

    Integer ids become their decimal strings, so ``1`` and ``"1"`` name the same example.
    """
    return read_run(path, fields)[0]


def read_run(path: Path, fields: Fields = _DEFAULT_FIELDS) -> tuple[dict[str, str], str]:
    """`read_outputs`, and a digest of what decides them: the bytes parsed, the parser and
    the two field names. Equal digests mean equal outputs (for one version of this code),
    so the score cache can key a run on it; it costs a hash of the bytes as they are read,
    where hashing the parsed outputs would cost a join and an encode of every text."""
    path = Path(path)
    records = read_records(path, (fields.id, fields.output))
    outputs = outputs_from_records(records, fields)
    parser = "csv" if records.columns is not None else "jsonl"
    parts = (parser, fields.id, fields.output, records.content)
    return outputs, length_prefixed(parts, b"rouge-tui run file v1\n")


def read_references(path: Path, fields: Fields = _DEFAULT_FIELDS) -> dict[str, tuple[str, ...]]:
    """A references file as ``id -> references`` (in listed order), checked."""
    return read_reference_records(Path(path), fields)[0]
