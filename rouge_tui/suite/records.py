"""Reading one references file or run file (JSON Lines, maybe gzipped, CSV or Parquet) into
checked records; every malformed input is a SuiteError naming the file and line (or row).

The input contract:

- JSON Lines: one object per line; blank lines skipped, CRLF accepted, a UTF-8 BOM at the
  start tolerated. Strict UTF-8 (a bad byte is named with its line and column); NaN,
  Infinity and out-of-range numbers, lone surrogate escapes (``"\\ud800"``) and nesting
  too deep are errors.
- CSV: a header row naming the columns, strict quoting (`csv_rows`). A CSV references file
  holds one reference per example (several need JSON Lines or Parquet).
- Parquet: one record a row, decoded by polars in a child process (`parquet_rows`); a null
  is a field the row does not have; a place in the file is ``row N`` (the first is row 1).
- Ids are non-empty strings or integers; an integer is its decimal string, so ``1`` and
  ``"1"`` are one example (and duplicates, naming both lines). Text fields are strings;
  ``references`` is a non-empty array of strings; ``reference`` and ``references`` both in
  one record is an error. In a references file, a null ``reference``, ``references`` or
  ``source`` is a field not given (as in Parquet), and a blank source is no source.

orjson parses each line. Where it refuses one, the standard decoder reads that line to
give the exact message (or the value orjson cannot give: orjson turns an integer beyond
64 bits into a float, so a float id or a float among a reference's other fields is read
again by the standard decoder).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import MANY_LINES, DigestMemo, LineBlocks

if TYPE_CHECKING:  # each imported when a file of its format is read: JSON Lines needs neither
    from rouge_tui.suite.parquet_rows import ParquetRows

__all__ = ["Fields", "References", "Run", "Usable", "json_lines", "read_references_file", "read_run", "reference_fingerprint"]


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
    def usable(self) -> Usable:
        """The ids with a reference that is not blank: the ones a build is scored on."""
        return Usable(self.texts, frozenset(self.empty))

    @cached_property
    def fingerprint(self) -> str:
        """`reference_fingerprint` of texts, made when first asked for (`score` never asks,
        and hashing every reference is a share of its time worth saving)."""
        return reference_fingerprint(self.texts)


@dataclass(frozen=True, eq=False)  # identity: its dict is neither compared nor hashed
class Usable:
    """The ids of ``texts`` but ``empty``, looked up in ``texts`` itself: a set of them would
    be a second table of every id, held as long as the references."""

    texts: Mapping[str, object] = field(repr=False)
    empty: frozenset[str] = field(repr=False)

    def __contains__(self, example_id: object) -> bool:
        return example_id in self.texts and example_id not in self.empty

    def issuperset(self, ids: Iterable[str]) -> bool:
        """Whether every one of ``ids`` is usable."""
        ids = ids if isinstance(ids, Collection) else list(ids)
        return all(map(self.texts.__contains__, ids)) and self.empty.isdisjoint(ids)


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
        if len(lines) > MANY_LINES and all(not d or d.isspace() for d in set(lines)):
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
    for number, value, _line in _jsonl(LineBlocks(Path(path), hashed=False), decoder):
        yield number, value


def _source(path: Path, hashed: bool = True, memo: DigestMemo | None = None) -> LineBlocks | ParquetRows:
    """What a file's records are read from, by its name (``hashed``, ``memo``: `LineBlocks`')."""
    if path.name.endswith(".parquet"):
        from rouge_tui.suite.parquet_rows import ParquetRows

        return ParquetRows(path)
    return LineBlocks(path, hashed, memo)


def _records(
    blocks: LineBlocks | ParquetRows, required: tuple[str, ...], several: str | None
) -> Iterator[Record]:
    """A file's records in file order; a CSV header must name the ``required`` columns and,
    for references, not ``several`` (the list of references JSON Lines can hold); a Parquet
    file's columns, ``required`` but for its last, which ``several`` may stand for."""
    if not isinstance(blocks, LineBlocks):  # a Parquet file's rows
        if several is None:
            return blocks.records(required)
        return blocks.records(required[:-1], (required[-1], several))
    if blocks.path.name.endswith(".csv"):
        from rouge_tui.suite.csv_rows import csv_rows

        return csv_rows(blocks, required, several)
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


def read_run(
    path: Path, fields: Fields = _FIELDS, *, like: Mapping[str, object] | None = None, hashed: bool = True,
    memo: DigestMemo | None = None,
) -> Run:
    """One run file as ``id -> output`` in file order, every record checked. ``like``: what
    was read before (the references, the build before's run): its ids, and its outputs
    where equal, are kept as its strings, so a nightly build that repeats most of the one
    before holds each text once (and comparing the two finds them the same object).
    ``hashed`` False: no ``digest`` (empty; a Parquet file's is made all the same), for
    a reader that keys nothing on the file, as `score`; ``memo``: digests known by the files'
    stamps (`files.LineBlocks`)."""
    path = Path(path)
    like = like or {}
    ahead = iter(like.items())  # in a file in the same order, each id is the next one's
    id_name, output_name = fields.id, fields.output
    blocks = _source(path, hashed, memo)
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
            again = _records(_source(path, hashed=False), (id_name, output_name), None)
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
    # A null is a field not given (as a Parquet file's): what pandas and polars write for
    # the one of the two a row does not use.
    if record.get(one) is not None and record.get(many) is not None:
        raise SuiteError(f"both {quoted(one)} and {quoted(many)}: give one of them", path, number)
    if record.get(many) is None:
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


def read_references_file(path: Path, fields: Fields = _FIELDS, *, hashed: bool = True,
                         like: Mapping[str, str] | None = None, memo: DigestMemo | None = None) -> References:
    """A references file: texts in listed order, sources, other fields, all checked
    (``hashed``, ``memo``: as `read_run`'s). ``like``: ids held already (each its own value),
    whose strings the references keep."""
    path = Path(path)
    id_name, one, many, source = fields.id, fields.reference, fields.references, fields.source
    known = {id_name, one, many, source}
    blocks = _source(path, hashed, memo)
    texts: dict[str, tuple[str, ...]] = {}
    sources: dict[str, str] = {}
    extra: dict[str, dict] = {}
    empty: list[str] = []
    for number, record, line in _records(blocks, (id_name, one), many):
        try:
            key, text = record[id_name], record[one]  # type: ignore[index]
        except (KeyError, TypeError):  # no such field, or no object
            key = text = None
        if type(key) is str and key and type(text) is str and record.get(many) is None:  # type: ignore[union-attr]
            references: tuple[str, ...] = (text,)
            blank = not text or text.isspace()
        else:
            key = _id(path, number, record, line, id_name)
            references = _texts(path, number, record, fields)  # type: ignore[arg-type]
            blank = all(not text or text.isspace() for text in references)
        if key in texts:
            again = _records(_source(path, hashed=False), (id_name, one), many)
            raise _duplicate(path, number, key, again, id_name)
        if like is not None:
            key = like.get(key, key)
        texts[key] = references
        if blank:
            empty.append(key)
        if len(record) > 2:  # type: ignore[arg-type]
            # A source that is null or blank (a CSV's empty cell) is no source.
            if record.get(source) is not None:  # type: ignore[union-attr]
                document = _text(path, number, record, source)  # type: ignore[arg-type]
                if document and not document.isspace():
                    sources[key] = document
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
    string enters length-prefixed (``len:text``), so no two sets share an encoding. The
    bytes hashed: ``rouge-tui references v1\n``, then for each id in sorted order
    ``{len(id)}:{id}{count}:`` and each of its references in listed order
    ``{len(text)}:{text}``; lengths in code points, the text UTF-8 (a lone surrogate as
    ``surrogatepass`` writes it). Marks and the review log are keyed by it: it never changes.
    """
    import hashlib  # here, not above: `score` reads references and prints none

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
