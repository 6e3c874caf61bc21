"""promptfoo's ``eval -o results.json`` and ``eval -o results.jsonl``, read where they are.

What promptfoo writes (its ``src/util/output`` writer and ``src/types``): ``.json`` is one
``JSON.stringify(OutputFile, null, 2)``: ``{"evalId", "results": {"version": 3,
"timestamp", "prompts", "results": [EvaluateResult...], "stats"}, "config", ...}``; ``.jsonl``
is one stored result per line (``id``, ``evalId``, ``promptIdx``, ``testIdx``, ``testCase``,
``prompt``, ``response``, ``provider``, ...), with no eval timestamp but the one in the
``evalId`` (``eval-XYZ-2024-05-01T12:34:56``). Listing a ``.json`` reads its head and its
config, not its results (`_skim`); a ``.jsonl`` names its columns only in its lines.

- A build is one column of one eval: a ``promptIdx`` (one provider and one prompt). Its name
  is the provider (its label, else its id) and the prompt's label, with the eval's date in
  front when the suite holds several evals (a folder of results files).
- An example's id is the var ``[fields] id`` names (``"vars.id"``), else the test's vars as a
  whole, as canonical JSON text: promptfoo itself matches results across evals by vars.
- Its references: the var ``[fields] reference`` names, else the ``value`` of the test's
  ``rouge-n`` / ``similar`` / ``equals`` assertions. The source: the var ``[fields] source``
  names. id, reference and source paths are read in the test case (``testCase``); output
  (default ``response.output``, JSON text when it is no string) in the result.
- A result promptfoo marked as an error (``error`` set, no output) is left out of its build,
  so the example shows as missing there rather than scored as an empty text.
- ``eval --repeat N`` gives each test N results with the same vars: a column's N replicate
  runs (`_repeats`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import file_digest, read_head, read_small
from rouge_tui.importers.base import (
    Format,
    ImportedBuild,
    Layout,
    Missing,
    Where,
    check_field_paths,
    fail,
    field_value,
    get_field,
    make_references,
    make_run,
    parse_path,
    read_json,
    reference_texts,
    selector_digest,
)
from rouge_tui.safetext import one_line
from rouge_tui.suite.records import References, Run, json_lines
from rouge_tui.suite.settings import SuiteSettings

__all__ = ["FORMAT"]

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
REFERENCE_ASSERTIONS = ("rouge-n", "similar", "equals")
_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")  # "{{expected}}": one var, nothing else
_NAME_PARTS = (24, 20)  # characters of the provider and of the prompt label in a name


def _canonical(value: object) -> str:
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


def _exports(path: Path) -> list[Path]:
    """The results files ``path`` is: itself, or a folder's own files that are exports."""
    if path.is_dir():
        return sorted(child for child in path.iterdir() if _is_export(child))
    return [path] if _is_export(path) else []


def recognise(path: Path) -> bool:
    """A promptfoo ``.json`` export (its first bytes: ``evalId``, then ``results`` with a
    ``version``), a ``.jsonl`` export (its first line has ``promptIdx``, ``testIdx`` and
    ``provider``), or a folder holding such files."""
    try:
        return bool(_exports(Path(path)))
    except OSError:
        return False


# --------------------------------------------------------------------------- reading


@dataclass
class _Export:
    """One results file read: its records with where each is, and what names the eval."""

    path: Path
    records: list[tuple[Where, object]]
    digest: str
    created: str  # the eval's own date (ISO text), "" when it has none
    description: str | None  # config.description, where the .json export has one


def _read(path: Path) -> _Export:
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
        return _Export(path, records, file_digest(path), found.group(1) if found else "", None)
    top, digest = read_json(path, JSON_LIMIT)
    summary = top.get("results") if type(top) is dict else None
    if type(summary) is not dict:
        raise SuiteError("'results' must be an object (a promptfoo eval summary)", path)
    if summary.get("version") != 3:
        message = f"results.version {_canonical(summary.get('version'))} (rouge-tui reads version 3: export the eval again with a current promptfoo)"
        raise SuiteError(message, path, "results.version")
    results = summary.get("results")
    if type(results) is not list:
        raise SuiteError(f"must be an array, not {type_name(results)}", path, "results.results")
    if not results:
        raise SuiteError("no results in the eval", path, "results.results")
    stamp = summary.get("timestamp")
    config = top.get("config")
    description = config.get("description") if type(config) is dict else None
    return _Export(
        path,
        [((path, f"results.results[{i}]"), value) for i, value in enumerate(results)],
        digest,
        stamp if type(stamp) is str and _ISO.match(stamp) else "",
        description if type(description) is str and description.strip() else None,
    )


@dataclass(frozen=True)
class _Listing:
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


def _skim(data: bytes) -> _Listing | None:
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
    return _Listing(
        stamp if type(stamp) is str and _ISO.match(stamp) else "",
        description if type(description) is str and description.strip() else None,
        columns,
    )


def _list(path: Path) -> _Listing:
    """The listing of a results file: skimmed where promptfoo's layout allows, else read."""
    if path.suffix == ".json":
        try:
            skimmed = _skim(read_small(path, JSON_LIMIT))
        except FileNotFoundError:
            raise SuiteError("no such file", path) from None
        if skimmed is not None:
            return skimmed
    export = _read(path)
    return _Listing(export.created, export.description, _columns(export))


def _record(where: Where, value: object) -> dict:
    if type(value) is not dict:
        raise fail(where, f"a result must be an object, not {type_name(value)}")
    return value


def _index(record: dict, name: str, where: Where) -> int:
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


def _short(text: str, limit: int) -> str:
    """A name's part: on one line, visible, at most ``limit`` characters."""
    shown = one_line(" ".join(text.split()))
    return shown if len(shown) <= limit else shown[: limit - 1].rstrip() + "…"


def _columns(export: _Export) -> dict[int, tuple[str, str]]:
    """promptIdx -> (provider, prompt label), in column order; the first result of a column
    names it."""
    columns: dict[int, tuple[str, str]] = {}
    for where, value in export.records:
        record = _record(where, value)
        column = _index(record, "promptIdx", where)
        if column not in columns:
            columns[column] = _column(record, where)
    return dict(sorted(columns.items()))


# --------------------------------------------------------------------------- the examples


def _in_test(record: dict, path: str, where: Where) -> object:
    """The value at ``path`` in the result's test case; a SuiteError naming it when absent."""
    return field_value(record, ("testCase", *parse_path(path)), where)


def _example_id(record: dict, where: Where, id_path: str | None) -> object:
    if id_path is not None:
        return _in_test(record, id_path, where)
    variables = _in_test(record, "vars", where)
    if type(variables) is not dict:
        raise fail(where, f"'testCase.vars' must be an object, not {type_name(variables)}")
    return _canonical(variables)


def _asserted(record: dict, where: Where, test_where: Where) -> tuple[str, ...]:
    """The references a test's rouge-n / similar / equals assertions compare against."""
    try:
        assertions = get_field(record, "testCase.assert")
    except Missing:
        assertions = []
    if type(assertions) is not list:
        raise fail(where, f"'testCase.assert' must be an array, not {type_name(assertions)}")
    found: list[str] = []
    for position, assertion in enumerate(assertions):
        kind = assertion.get("type") if type(assertion) is dict else None
        if type(kind) is not str or kind.split(":")[0] not in REFERENCE_ASSERTIONS:
            continue
        name = f"testCase.assert.{position}.value"
        for text in reference_texts(assertion.get("value"), name, where):
            found.append(_rendered(record, text, name, where))
    if not found:
        raise fail(test_where, (
            "no reference: no 'rouge-n', 'similar' or 'equals' assertion with a value in "
            "testCase.assert; name the var that holds it in suite.toml "
            "([fields] reference = \"vars.expected\")"))
    return tuple(found)


def _rendered(record: dict, text: str, name: str, where: Where) -> str:
    """An assertion's value as promptfoo compares it: ``{{var}}`` is that var's text; any
    other template or a ``file://`` value is one rouge-tui does not render."""
    whole = _VAR.fullmatch(text.strip())
    if whole:
        value = _in_test(record, f"vars.{whole.group(1)}", where)
        if type(value) is not str:
            raise fail(where, f"'testCase.vars.{whole.group(1)}' must be a string, not {type_name(value)}")
        return value
    if "{{" in text or "{%" in text or text.startswith("file://"):
        raise fail(where, (
            f"{quoted(name)} is a template or a file ({quoted(text)}), which rouge-tui does "
            "not render; name the var that holds the reference in suite.toml "
            "([fields] reference = \"vars.expected\")"))
    return text


def _output(record: dict, path: str, where: Where) -> str | None:
    """A result's output: the text, JSON text for any other value; None for a result
    promptfoo marked as an error and holds no output for."""
    try:
        value = get_field(record, path)
    except Missing as exc:
        if record.get("error"):
            return None
        raise fail(where, f"missing field {quoted(exc.at)}") from None
    if value is None:
        if record.get("error"):
            return None
        raise fail(where, f"{quoted(path)} is null and the result holds no error")
    return value if type(value) is str else _canonical(value)


def _repeats(rows: list[tuple[Where, object, str | None]]) -> list[list[tuple[Where, object, str | None]]]:
    """A column's results as replicate runs: ``promptfoo eval --repeat N`` gives each test N
    results with the same vars (new testIdx each), so the n-th result of an id belongs to
    run n. Only when every id comes back equally often; else the rows as one run, where a
    repeated id is the duplicate it then is."""
    seen: dict[object, int] = {}
    numbered: list[int] = []
    for _where, raw, _text in rows:
        key = str(raw) if type(raw) in (str, int) else repr(raw)
        numbered.append(seen.get(key, 0))
        seen[key] = numbered[-1] + 1
    counts = set(seen.values())
    if len(counts) != 1 or counts == {1}:
        return [rows]
    parts: list[list[tuple[Where, object, str | None]]] = [[] for _ in range(counts.pop())]
    for number, row in zip(numbered, rows):
        parts[number].append(row)
    return parts


# --------------------------------------------------------------------------- the suite


def _member(where: Where, part: str) -> Where:
    path, at = where
    return (path, f"{at}.{part}") if isinstance(at, str) else where


def _open(path: Path, settings: SuiteSettings) -> list[Layout]:
    path = Path(path)
    files = _exports(path)
    if not files:
        raise SuiteError("no promptfoo results file (.json or .jsonl export) found", path)
    fields = settings.fields_given
    check_field_paths(fields, path)
    id_path = fields.get("id")
    reference_path = fields.get("reference") or fields.get("references")
    source_path = fields.get("source")
    output_path = fields.get("output", "response.output")
    dates: dict[Path, str] = {}  # the readable files and their evals' dates
    listed: list[ImportedBuild] = []
    descriptions: set[str | None] = set()
    several = len(files) > 1
    for file in files:
        try:
            listing = _list(file)
        except SuiteError as exc:
            listed.append(ImportedBuild(file.stem, file, (file,), "", exc))
            descriptions.add(None)
            continue
        dates[file] = listing.created
        descriptions.add(listing.description)
        date = listing.created[:16].replace("T", " ")
        names: set[str] = set()
        for column, (provider, label) in listing.columns.items():
            name = f"{_short(provider, _NAME_PARTS[0])} · {_short(label, _NAME_PARTS[1])}"
            if several and date:
                name = f"{date} {name}"
            elif several:
                name = f"{_short(file.stem, 20)} {name}"
            if name in names:
                name = f"{name} #{column}"
            names.add(name)
            listed.append(ImportedBuild(name, file, (file,), listing.created, selector=(str(column),)))
    listed.sort(key=lambda build: (build.created, build.name))

    def read_build(build: ImportedBuild) -> list[Run]:
        if build.problem is not None:
            raise build.problem
        export = _read(build.run_files[0])
        column = int(build.selector[0])
        rows: list[tuple[Where, object, str | None]] = []
        for where, value in export.records:
            record = _record(where, value)
            if _index(record, "promptIdx", where) == column:
                rows.append((where, _example_id(record, where, id_path), _output(record, output_path, where)))
        return [
            make_run([row for row in part if row[2] is not None], build.path,  # type: ignore[misc]
                     selector_digest(export.digest, *build.selector, f"repeat {number}"))
            for number, part in enumerate(_repeats(rows))
        ]

    def read_references() -> References:
        rows: list[tuple[Where, object, tuple[str, ...], str | None]] = []
        newer: set[str] = set()  # ids a newer eval gave references for: those win
        for file in sorted(dates, key=lambda f: (dates[f], str(f)), reverse=True):
            export = _read(file)
            tests: set[int] = set()
            ids: set[str] = set()
            repeated: dict[str, tuple[tuple[str, ...], str | None]] = {}
            for where, value in export.records:
                record = _record(where, value)
                test = _index(record, "testIdx", where)
                if test in tests:
                    continue  # the same test in another column
                tests.add(test)
                raw = _example_id(record, where, id_path)
                key = str(raw) if type(raw) in (str, int) else None  # else: make_references says why
                if key in newer:
                    continue
                test_where = _member(where, "testCase")
                if reference_path is not None:
                    texts = reference_texts(_in_test(record, reference_path, where), f"testCase.{reference_path}", where)
                else:
                    texts = _asserted(record, where, test_where)
                source = None
                if source_path is not None:
                    source = _in_test(record, source_path, where)
                    if type(source) is not str:
                        raise fail(where, f"'testCase.{source_path}' must be a string, not {type_name(source)}")
                if key is not None and repeated.setdefault(key, (texts, source)) == (texts, source) and key in ids:
                    continue  # a --repeat of a test already listed: the same vars, references, source
                rows.append((where, raw, texts, source))
                if key is not None:
                    ids.add(key)
            newer |= ids
        return make_references(rows, empty_where=(path, None))

    default_name = path.stem if path.is_file() else path.name
    only = descriptions.pop() if len(descriptions) == 1 else None
    name = settings.name or only or default_name
    return [Layout("promptfoo", path, name, listed, read_references, read_build)]


FORMAT = Format(
    "promptfoo",
    "promptfoo `eval -o results.json` / `-o results.jsonl`: a build is one provider and prompt column",
    recognise,
    _open,
)
