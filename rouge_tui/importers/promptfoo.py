"""promptfoo's ``eval -o results.json`` and ``eval -o results.jsonl``, read where they are.

Each export is read by `promptfoo_export` (what promptfoo writes, its results, its columns);
here, what rouge-tui makes of them.

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

import re
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.importers.base import (
    ImportedBuild,
    ImportedSuite,
    Importer,
    Missing,
    Where,
    check_field_paths,
    fail,
    field_value,
    get_field,
    history_order,
    make_references,
    make_run,
    parse_path,
    reference_texts,
    selector_digest,
    source_text,
)
from rouge_tui.importers.promptfoo_export import (
    canonical,
    exports,
    list_export,
    read_export,
    result_index,
    result_object,
)
from rouge_tui.safetext import one_line
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.toml import SuiteSettings

__all__ = ["IMPORTER"]

REFERENCE_ASSERTIONS = ("rouge-n", "similar", "equals")
_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")  # "{{expected}}": one var, nothing else
_NAME_PARTS = (24, 20)  # characters of the provider and of the prompt label in a name


def recognise(path: Path) -> bool:
    """A promptfoo ``.json`` export (its first bytes: ``evalId``, then ``results`` with a
    ``version``), a ``.jsonl`` export (its first line has ``promptIdx``, ``testIdx`` and
    ``provider``), or a folder holding such files."""
    try:
        return bool(exports(Path(path)))
    except OSError:
        return False


def _short(text: str, limit: int) -> str:
    """A name's part: on one line, visible, at most ``limit`` characters."""
    shown = one_line(" ".join(text.split()))
    return shown if len(shown) <= limit else shown[: limit - 1].rstrip() + "…"


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
    return _canonical(variables, "testCase.vars", where)


def _canonical(value: object, path: str, where: Where) -> str:
    """`canonical` text of a value read at ``path``; nested past what json writes, a
    SuiteError naming it (orjson reads 1,024 levels, json writes fewer)."""
    try:
        return canonical(value)
    except RecursionError:
        raise fail(where, f"{quoted(path)} is nested too deeply") from None


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
    return value if type(value) is str else _canonical(value, path, where)


def _repeats(rows: list[tuple[Where, object, str | None]], tests: list[str]) -> list[list[tuple[Where, object, str | None]]]:
    """A column's results as replicate runs: ``promptfoo eval --repeat N`` gives each test N
    results with the same vars (new testIdx each), so the n-th result of an id belongs to
    run n. Only when every id comes back equally often, each time with the same vars
    (``tests``: each row's, canonical); else the rows as one run, where a repeated id is the
    duplicate it then is (two tests given one id by [fields] id, 2 and "2", were taken for
    two runs of one)."""
    seen: dict[object, int] = {}
    first: dict[object, str] = {}
    numbered: list[int] = []
    for (_where, raw, _text), test in zip(rows, tests):
        key = str(raw) if type(raw) in (str, int) else repr(raw)
        if first.setdefault(key, test) != test:
            return [rows]
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


def _open(path: Path, settings: SuiteSettings) -> list[ImportedSuite]:
    path = Path(path)
    files = exports(path)
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
            listing = list_export(file)
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
    listed = history_order(listed)

    def read_build(build: ImportedBuild) -> list[Run]:
        if build.problem is not None:
            raise build.problem
        export = read_export(build.run_files[0])
        column = int(build.selector[0])
        rows: list[tuple[Where, object, str | None]] = []
        tests: list[str] = []
        for where, value in export.records:
            record = result_object(where, value)
            if result_index(record, "promptIdx", where) == column:
                rows.append((where, _example_id(record, where, id_path), _output(record, output_path, where)))
                tests.append(_example_id(record, where, None) if id_path is not None else str(rows[-1][1]))
        return [
            make_run([row for row in part if row[2] is not None], build.path,  # type: ignore[misc]
                     selector_digest(export.digest, *build.selector, f"repeat {number}"))
            for number, part in enumerate(_repeats(rows, tests))
        ]

    def read_references() -> References:
        rows: list[tuple[Where, object, tuple[str, ...], str | None]] = []
        newer: set[str] = set()  # ids a newer eval gave references for: those win
        for file in sorted(dates, key=lambda f: (dates[f], str(f)), reverse=True):
            export = read_export(file)
            tests: set[int] = set()
            ids: set[str] = set()
            repeated: dict[str, tuple[tuple[str, ...], str | None, object]] = {}
            for where, value in export.records:
                record = result_object(where, value)
                test = result_index(record, "testIdx", where)
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
                source = None if source_path is None else source_text(record, f"testCase.{source_path}", where)
                test_vars = _example_id(record, where, None) if id_path is not None else key
                if key is not None and repeated.setdefault(key, (texts, source, test_vars)) == (texts, source, test_vars) \
                        and key in ids:
                    continue  # a --repeat of a test already listed: the same vars, references, source
                rows.append((where, raw, texts, source))
                if key is not None:
                    ids.add(key)
            newer |= ids
        return make_references(rows, empty_where=(path, None))

    default_name = path.stem if path.is_file() else path.name
    only = descriptions.pop() if len(descriptions) == 1 else None
    name = settings.name or only or default_name
    return [ImportedSuite("promptfoo", path, name, listed, read_references, read_build,
                          named_by_path=settings.name is None and only is None)]


IMPORTER = Importer(
    "promptfoo",
    "promptfoo `eval -o results.json` / `-o results.jsonl`: a build is one provider and prompt column",
    recognise,
    _open,
)
