"""One promptfoo export read (`promptfoo` makes a suite of them): recognised by its first
bytes, its results with where each is, and the listing that names its columns.

What promptfoo writes (its ``src/util/output`` writer and ``src/types``): ``.json`` is one
``JSON.stringify(OutputFile, null, 2)``: ``{"evalId", "results": {"version": 3,
"timestamp", "prompts", "results": [EvaluateResult...], "stats"}, "config", ...}``; ``.jsonl``
is one stored result per line (``id``, ``evalId``, ``promptIdx``, ``testIdx``, ``testCase``,
``prompt``, ``response``, ``provider``, ...), with no eval timestamp but the one in the
``evalId`` (``eval-XYZ-2024-05-01T12:34:56``). Listing a ``.json`` reads its head and its
config, not its results (`_skim`); a ``.jsonl`` names its columns only in its lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import file_digest, read_head, read_small
from rouge_tui.importers.base import Missing, Where, fail, get_field, read_json
from rouge_tui.suite.records import json_lines

__all__ = [
    "Export", "Listing", "canonical", "exports", "list_export", "read_export", "result_index", "result_object",
]

# promptfoo writes a .json export with one JSON.stringify, and V8's strings stop at 2^29-24
# code units: no export it can write is larger than this.
JSON_LIMIT = 2 << 30
_PEEK = 1 << 16
_JSON_HEAD = re.compile(
    rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"evalId"\s*:\s*(?:null|"(?:[^"\\]|\\.)*")\s*,'
    rb'\s*"results"\s*:\s*\{\s*"version"\s*:\s*\d'
)
_LINE_KEYS = ("promptIdx", "testIdx", "provider")
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")  # results.timestamp: toISOString()
_EVAL_DATE = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)$")  # createEvalId's suffix


def canonical(value: object) -> str:
    """JSON text with sorted keys and no spaces: the same value gives the same text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- recognising


def _is_json_export(path: Path) -> bool:
    return path.suffix == ".json" and _JSON_HEAD.match(read_head(path, _PEEK)) is not None


def _is_jsonl_export(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    head = read_head(path, 1 << 20).removeprefix(b"\xef\xbb\xbf").lstrip()
    line, ended, _rest = head.partition(b"\n")
    if ended:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return type(value) is dict and all(key in value for key in _LINE_KEYS)
    # A first line past the peek (a long output): its indexes come before the test case.
    return line.startswith(b"{") and all(f'"{key}":'.encode() in line for key in _LINE_KEYS[:2])


def _is_export(path: Path) -> bool:
    try:
        return path.is_file() and (_is_json_export(path) or _is_jsonl_export(path))
    except (OSError, SuiteError):
        return False


def exports(path: Path) -> list[Path]:
    """The results files ``path`` is: itself, or a folder's own files that are exports."""
    if path.is_dir():
        return sorted(child for child in path.iterdir() if _is_export(child))
    return [path] if _is_export(path) else []


# --------------------------------------------------------------------------- reading


@dataclass
class Export:
    """One results file read: its records with where each is, and what names the eval."""

    path: Path
    records: list[tuple[Where, object]]
    digest: str
    created: str  # the eval's own date (ISO text), "" when it has none
    description: str | None  # config.description, where the .json export has one


def read_export(path: Path) -> Export:
    """A results file, parsed and its outer shape checked (the results themselves: when used)."""
    if path.suffix == ".jsonl":
        try:
            records: list[tuple[Where, object]] = [((path, n), value) for n, value in json_lines(path)]
        except SuiteError as exc:
            if "Extra data" not in exc.message:
                raise
            hint = "two results on one line, as older promptfoo versions wrote .jsonl exports: export the eval again"
            raise SuiteError(f"{exc.message}; {hint}", exc.path, exc.line) from None
        if not records:
            raise SuiteError("no results in the file", path)
        first = records[0][1]
        eval_id = first.get("evalId") if type(first) is dict else None
        found = _EVAL_DATE.search(eval_id) if type(eval_id) is str else None
        return Export(path, records, file_digest(path), found.group(1) if found else "", None)
    top, digest = read_json(path, JSON_LIMIT)
    summary = top.get("results") if type(top) is dict else None
    if type(summary) is not dict:
        raise SuiteError("'results' must be an object (a promptfoo eval summary)", path)
    if summary.get("version") != 3:
        message = f"results.version {canonical(summary.get('version'))} (rouge-tui reads version 3: export the eval again with a current promptfoo)"
        raise SuiteError(message, path, "results.version")
    results = summary.get("results")
    if type(results) is not list:
        raise SuiteError(f"must be an array, not {type_name(results)}", path, "results.results")
    if not results:
        raise SuiteError("no results in the eval", path, "results.results")
    stamp = summary.get("timestamp")
    config = top.get("config")
    description = config.get("description") if type(config) is dict else None
    return Export(
        path,
        [((path, f"results.results[{i}]"), value) for i, value in enumerate(results)],
        digest,
        stamp if type(stamp) is str and _ISO.match(stamp) else "",
        description if type(description) is str and description.strip() else None,
    )


@dataclass(frozen=True)
class Listing:
    """What names and orders one eval's builds: its date, its description, its columns
    (promptIdx -> provider, prompt label)."""

    created: str
    description: str | None
    columns: dict[int, tuple[str, str]]


def _value_at(data: bytes, key: bytes, start: int, end: int) -> object:
    """The JSON value of the first ``key`` line in ``data[start:end]``; `Missing` when none."""
    found = data.find(key, start, end)
    if found < 0:
        raise Missing(key.decode())
    text = data[found + len(key): end].decode("utf-8")
    return json.JSONDecoder().raw_decode(text)[0]


def _skim(data: bytes) -> Listing | None:
    """The listing of a ``.json`` export laid out as promptfoo writes it (``JSON.stringify(x,
    null, 2)``), read from its head and its config without parsing ``results.results``: in
    that layout a raw line break is only ever whitespace between values, so a line that
    starts with two spaces and a key is a key of the top object, with four one of
    ``results`` or ``config``. None where the file is laid out otherwise, or the head is not
    what promptfoo writes: the whole file is parsed then, and says what is wrong."""
    results = data.find(b'\n  "results": {')
    array = data.find(b'\n    "results": [', results)
    if results < 0 or array < 0:
        return None
    try:
        version = _value_at(data, b'\n    "version": ', results, array)
        stamp = _value_at(data, b'\n    "timestamp": ', results, array)
        prompts = _value_at(data, b'\n    "prompts": ', results, array)
        config = data.find(b'\n  "config": {', array)
        description = None
        if config >= 0:
            following = data.find(b'\n  "', config + 1)
            try:
                description = _value_at(data, b'\n    "description": ', config, len(data) if following < 0 else following)
            except Missing:
                pass
    except (Missing, ValueError):  # json's errors and UnicodeDecodeError are ValueErrors
        return None
    if version != 3 or type(prompts) is not list or not prompts:
        return None
    columns: dict[int, tuple[str, str]] = {}
    for column, prompt in enumerate(prompts):
        provider = prompt.get("provider") if type(prompt) is dict else None
        label = prompt.get("label") if type(prompt) is dict else None
        if type(provider) is not str or not provider or type(label) is not str:
            return None
        columns[column] = (provider, label)
    return Listing(
        stamp if type(stamp) is str and _ISO.match(stamp) else "",
        description if type(description) is str and description.strip() else None,
        columns,
    )


def list_export(path: Path) -> Listing:
    """The listing of a results file: skimmed where promptfoo's layout allows, else read."""
    if path.suffix == ".json":
        try:
            skimmed = _skim(read_small(path, JSON_LIMIT))
        except FileNotFoundError:
            raise SuiteError("no such file", path) from None
        if skimmed is not None:
            return skimmed
    export = read_export(path)
    return Listing(export.created, export.description, _columns(export))


# --------------------------------------------------------------------------- a result's column


def result_object(where: Where, value: object) -> dict:
    """A result as read (`Export.records`), checked to be an object."""
    if type(value) is not dict:
        raise fail(where, f"a result must be an object, not {type_name(value)}")
    return value


def result_index(record: dict, name: str, where: Where) -> int:
    """A result's ``promptIdx`` (its column) or ``testIdx`` (its test), checked."""
    value = record.get(name)
    if type(value) is not int or value < 0:
        shown = "missing" if name not in record else f"a {type_name(value)}"
        raise fail(where, f"{quoted(name)} must be a whole number >= 0, not {shown}")
    return value


def _text_at(record: dict, path: str, where: Where) -> str | None:
    try:
        value = get_field(record, path)
    except Missing:
        return None
    if value is not None and type(value) is not str:  # null: a provider with no label
        raise fail(where, f"{quoted(path)} must be a string, not {type_name(value)}")
    return value


def _column(record: dict, where: Where) -> tuple[str, str]:
    """What names a result's column: its provider (label, else id) and its prompt's label."""
    provider = _text_at(record, "provider.label", where) or _text_at(record, "provider.id", where)
    if not provider:
        raise fail(where, "missing field 'provider.id'")
    label = _text_at(record, "prompt.label", where) or _text_at(record, "prompt.raw", where)
    if label is None:
        raise fail(where, "missing field 'prompt.label'")
    return provider, label


def _columns(export: Export) -> dict[int, tuple[str, str]]:
    """promptIdx -> (provider, prompt label), in column order; the first result of a column
    names it."""
    columns: dict[int, tuple[str, str]] = {}
    for where, value in export.records:
        record = result_object(where, value)
        column = result_index(record, "promptIdx", where)
        if column not in columns:
            columns[column] = _column(record, where)
    return dict(sorted(columns.items()))
