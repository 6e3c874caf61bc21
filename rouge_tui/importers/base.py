"""What every importer shares: the shape of what it finds (`ImportedSuite`), field paths,
and the checked making of references and runs from another tool's records.

An importer reads its harness's files where they are and hands back the suite the rest of
rouge-tui knows: references, builds in history order (each one run or several replicate
runs), sources. Nothing here parses a format; each format is one module of this package.
Every problem is one `SuiteError` naming the file and the line (or the archive member) and
the field path, raised only when the build it belongs to is read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import file_digest, read_small
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.toml import SuiteSettings

__all__ = [
    "ImportedBuild", "ImportedSuite", "Importer", "Missing", "Unread", "Where", "check_field_paths", "fail",
    "field_text", "field_value", "get_field", "history_order", "id_text", "make_references", "make_run", "model_name",
    "parse_json", "parse_path", "read_json", "reference_texts", "selector_digest", "source_text", "unicode_text",
]

# Where a record was found: (file, line number or archive member). Errors are written
# ``file:line: field: message`` or ``file:member: field: message``.
Where = tuple[Path, "int | str | None"]


class Missing(LookupError):
    """A field path leads nowhere in a record (`get_field`); ``at`` is the part that failed."""

    def __init__(self, at: str) -> None:
        super().__init__(at)
        self.at = at


def parse_path(dotted: str) -> tuple[str | int, ...]:
    """``"filtered_resps.0"`` -> ``("filtered_resps", 0)``: dot-separated keys, a part made of
    digits only is a list index (a dict key of digits is still found by `get_field`)."""
    parts: list[str | int] = []
    for part in dotted.split("."):
        if not part:
            raise ValueError(f"empty part in the field path {quoted(dotted)}")
        parts.append(int(part) if part.isdigit() else part)
    return tuple(parts)


def get_field(record: object, dotted: str | Sequence[str | int]) -> object:
    """The value at a field path (`parse_path`); `Missing` naming the first part that is not
    there (a key absent, an index past the list's end, a step into a string or number)."""
    parts = parse_path(dotted) if isinstance(dotted, str) else tuple(dotted)
    value = record
    walked: list[str] = []
    for part in parts:
        walked.append(str(part))
        if isinstance(value, dict):
            key = str(part)
            if key not in value:
                raise Missing(".".join(walked))
            value = value[key]
        elif isinstance(value, list) and isinstance(part, int):
            if part >= len(value):
                raise Missing(".".join(walked))
            value = value[part]
        else:
            raise Missing(".".join(walked))
    return value


def check_field_paths(fields: dict[str, str], path: Path) -> None:
    """suite.toml's ``[fields]`` paths, each parsed (`parse_path`) before a file is read; a
    `SuiteError` naming the key of one that is no field path."""
    for key, dotted in fields.items():
        try:
            parse_path(dotted)
        except ValueError as exc:
            raise SuiteError(f"[fields] {key}: {exc}", path) from None


def fail(where: Where, message: str) -> SuiteError:
    """The error for a record found at ``where``: ``file:line: message``."""
    path, at = where
    return SuiteError(message, path, at)


def field_value(record: object, dotted: str | Sequence[str | int], where: Where) -> object:
    """The value at a field path (`get_field`); a `SuiteError` naming the part that is missing."""
    try:
        return get_field(record, dotted)
    except Missing as exc:
        raise fail(where, f"missing field {quoted(exc.at)}") from None


def field_text(record: object, dotted: str, where: Where, *, default: str | None = None) -> str:
    """The string at ``dotted`` in ``record``; a missing field is ``default`` when one is
    given, else (and any value that is no string) a `SuiteError` naming the field path."""
    try:
        value = get_field(record, dotted)
    except Missing as exc:
        if default is not None:
            return default
        raise fail(where, f"missing field {quoted(exc.at)}") from None
    if type(value) is not str:
        raise fail(where, f"{quoted(dotted)} must be a string, not {type_name(value)}")
    return value


def source_text(record: object, dotted: str, where: Where) -> str | None:
    """The source at ``dotted``: a missing field or a null is no source, as in a references
    file (a blank one `make_references` drops); any other value that is no string a
    `SuiteError` naming the field path. Every importer's source is read here."""
    try:
        value = get_field(record, dotted)
    except Missing:
        return None
    if value is None:
        return None
    if type(value) is not str:
        raise fail(where, f"{quoted(dotted)} must be a string, not {type_name(value)}")
    return value


def reference_texts(value: object, name: str, where: Where) -> tuple[str, ...]:
    """The references a field holds: one (a string) or several (a non-empty array of
    strings); else a `SuiteError` naming the field."""
    if type(value) is str:
        return (value,)
    if type(value) is list and value and all(type(item) is str for item in value):
        return tuple(value)
    raise fail(where, f"{quoted(name)} must be a string or an array of strings, not {type_name(value)}")


def read_json(path: Path, limit: int) -> tuple[object, str]:
    """A whole JSON file (at most ``limit`` bytes), parsed (`parse_json`), and the sha256 of
    its bytes; a `SuiteError` naming the line where it is not JSON."""
    try:
        data = read_small(Path(path), limit)
    except FileNotFoundError:
        raise SuiteError("no such file", path) from None
    return parse_json(data, path), hashlib.sha256(data).hexdigest()


def parse_json(data: bytes, path: Path, member: str | None = None) -> object:
    """JSON bytes parsed: a file's, or an archive ``member``'s. A file written by Python's
    json (HELM, a results file, an Inspect log) may spell a NaN or infinite float as ``NaN``
    / ``Infinity``, which orjson refuses: such bytes are read with the standard json module,
    which takes them (they land in fields an importer does not read, or that it checks).
    A `SuiteError` names the file and line where they are not JSON (a member: the member,
    the line said in the message)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        message, line, details = f"invalid JSON: {exc.msg}", exc.lineno, [f"column {exc.colno}"]
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message, details = "not valid UTF-8", [f"byte 0x{data[exc.start]:02x}"]
    except RecursionError:
        message, line, details = "invalid JSON: nested too deeply", None, []
    except ValueError as exc:  # an integer of more digits than int() takes from text
        message, line, details = f"invalid JSON: {exc}", None, []
    if member is not None and line is not None:
        details.insert(0, f"line {line}")
    text = f"{message} ({', '.join(details)})" if details else message
    raise SuiteError(text, path, line if member is None else member) from None


def unicode_text(text: str, name: str, where: Where) -> str:
    """``text`` when it is valid Unicode; else a `SuiteError` naming ``name``. orjson refuses a
    lone surrogate escape (``"\\ud800"``), but the standard decoder, which reads what orjson
    refuses (`parse_json`), keeps it: and nothing after could write it (a suite, a report)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise fail(where, f"{name} is not valid Unicode (a lone surrogate escape)") from None
    return text


def _key(value: object, name: str, where: Where) -> str:
    """An id as rouge-tui keeps it: a non-empty string, or an integer as its decimal text."""
    if type(value) is str and value:
        return unicode_text(value, quoted(name), where)
    if type(value) is int:
        return str(value)
    if value == "":
        raise fail(where, f"empty {quoted(name)}")
    raise fail(where, f"{quoted(name)} must be a string or an integer, not {type_name(value)}")


def loose_key(raw: object) -> str:
    """An id as `make_references` will key it (an integer as its decimal text), for an
    importer that picks among rows before they are checked: what is no id there is refused
    there, with its message."""
    return raw if type(raw) is str else str(raw) if type(raw) is int else repr(raw)


def id_text(value: object, name: str, where: Where) -> str:
    """`_key` for importers that make an id of several parts (lm-eval's doc and filter):
    the part checked as an id is, its error naming the field ``name``."""
    return _key(value, name, where)


def _place(where: Where) -> str:
    _path, at = where
    return f"line {at}" if isinstance(at, int) else f"member {quoted(str(at), 80)}" if at else "the file"


def make_references(
    rows: Iterable[tuple[Where, object, Sequence[str], str | None]], id_name: str = "id",
    empty_where: Where | None = None,
) -> References:
    """References from an importer's rows ``(where, id, references, source or None)``, checked
    as a references file is: ids unique (a repeat names where the first was), at least one
    reference each, every reference a string; ``empty_where`` is named when there are no rows
    at all. Their digest is of what they hold, not of the file they came from: a harness
    writes them into every run's file, and a new run with the same ones must leave the
    earlier builds' cached scores in use."""
    texts: dict[str, tuple[str, ...]] = {}
    sources: dict[str, str] = {}
    first: dict[str, Where] = {}
    empty: list[str] = []
    for where, raw, references, source in rows:
        key = _key(raw, id_name, where)
        if key in texts:
            raise fail(where, f"duplicate id {quoted(key)} (first at {_place(first[key])})")
        if not references:
            raise fail(where, f"no reference for id {quoted(key)}")
        for position, text in enumerate(references):
            if type(text) is not str:
                raise fail(where, f"reference {position} of {quoted(key)} must be a string, not {type_name(text)}")
            unicode_text(text, f"reference {position} of {quoted(key)}", where)
        if source is not None:
            unicode_text(source, f"the source of {quoted(key)}", where)
        texts[key] = tuple(references)
        first[key] = where
        if all(not text or text.isspace() for text in references):
            empty.append(key)
        if source and not source.isspace():  # a blank source is no source, as in a native suite
            sources[key] = source
    if not texts:
        raise SuiteError("no examples found", *(empty_where or (None, None)))
    return References(texts, sources, {}, empty, _content_digest(texts, sources))


def _content_digest(texts: dict[str, tuple[str, ...]], sources: dict[str, str]) -> str:
    """What references hold, in their order, hashed: every id, text and source length-prefixed."""
    digest = hashlib.sha256(b"rouge-tui imported references v1\n")
    for key, references in texts.items():
        source = sources.get(key)
        parts = [key, str(len(references)), *references, "" if source is None else "s" + source]
        for part in parts:
            digest.update(f"{len(part)}:{part}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def make_run(rows: Iterable[tuple[Where, object, str]], path: Path, digest: str, id_name: str = "id") -> Run:
    """One run from an importer's rows ``(where, id, output)``, checked as a run file is: ids
    unique (a repeat names where the first was), outputs strings, at least one row."""
    outputs: dict[str, str] = {}
    first: dict[str, Where] = {}
    for where, raw, text in rows:
        key = _key(raw, id_name, where)
        if key in outputs:
            raise fail(where, f"duplicate id {quoted(key)} (first at {_place(first[key])})")
        if type(text) is not str:
            raise fail(where, f"output of {quoted(key)} must be a string, not {type_name(text)}")
        outputs[key] = unicode_text(text, f"output of {quoted(key)}", where)
        first[key] = where
    if not outputs:
        raise SuiteError("no examples found", path)
    return Run(path, outputs, digest)


# A build name's model part: with a space and the date to the minute, 40 characters, what
# the report's and the diff's columns show of a name whole.
MODEL_WIDTH = 23


def model_name(model: str) -> str:
    """A model's name as build names show it: ``model`` (already its last part, no
    organisation) cut in its middle past `MODEL_WIDTH`, so that its size and its version, at
    either end, both stay."""
    if len(model) <= MODEL_WIDTH:
        return model
    head = (MODEL_WIDTH - 1) // 2
    return model[:head] + "…" + model[len(model) - (MODEL_WIDTH - 1 - head):]


class Unread(dict):
    """The builds whose references did not read, where another build's stood in (so that
    the others still compare): each one's error, under its path and the digest of the file
    its references came from, raised when that build is read: a build used is never scored
    against another build's references without a word."""

    def keep(self, build: Path, file: Path, error: SuiteError) -> None:
        with contextlib.suppress(SuiteError):  # a file that cannot even be hashed fails as read
            self[(build, file_digest(file))] = error

    def check(self, build: Path, digest: str) -> None:
        """Raise the error kept for ``build`` whose file has ``digest`` now, if any."""
        if (build, digest) in self:
            raise self[(build, digest)]


def selector_digest(file_digest: str, *selector: str) -> str:
    """The digest of one build's (or one run's) part of a file that holds several: the file's
    bytes (`files.file_digest`) and what picks the part out, so that two builds read from one
    promptfoo export never share a cache entry, and an edit of the file changes both."""
    digest = hashlib.sha256(b"rouge-tui import v1\n" + file_digest.encode())
    for part in selector:
        digest.update(f"{len(part)}:{part}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@dataclass(frozen=True)
class ImportedBuild:
    """One build an importer listed, nothing read: its name (model and date, or provider and
    prompt: short enough to tell apart at 80 columns), the files its bytes come from (one per
    replicate run where the runs are files; the same file repeated where they are epochs of
    one log), and when in history it was made (the harness's own date, ISO text; "" unknown)."""

    name: str
    path: Path  # the build's file or folder, for messages
    run_files: tuple[Path, ...]
    created: str = ""
    problem: SuiteError | None = None  # what makes this build (only) unreadable
    selector: tuple[str, ...] = ()  # what picks this build out of files that hold several


def history_order(builds: Iterable[ImportedBuild]) -> list[ImportedBuild]:
    """``builds`` in history order: by the harness's date, then by name. A file that could
    not be read has no date of the harness's: among dated builds it goes where it was last
    written (its modification time), so a log cut off as it was written is the newest, and a
    report says its error (exit 2, README) rather than comparing the two before it, while one
    that broke months ago stays back there; where its time cannot be read, last."""
    builds = list(builds)
    dated = any(build.created for build in builds)

    def when(build: ImportedBuild) -> tuple[bool, str]:
        if build.created or not dated or build.problem is None:
            return False, build.created
        try:
            written = datetime.fromtimestamp(build.path.stat().st_mtime, UTC).isoformat(timespec="seconds")
        except (OSError, OverflowError, ValueError):
            return True, ""
        return False, written

    return sorted(builds, key=lambda build: (*when(build), build.name, str(build.path)))


def told_apart(names: list[str], places: list[str]) -> list[str]:
    """``names`` with each one that more builds share (two evals in one minute, two models
    alike in the characters a name keeps) followed by its build's place, `` (results-2.json)``,
    for every build of the name: the figures, marks and --baseline go by a build's name, and
    two builds under one shared them. By place, not by number in history: a build added
    later renumbered the rest, and marks and scripts went to another build. Where the
    places are alike too, their number among them as well."""
    counts = Counter(names)
    named = [f"{name} ({place})" if counts[name] > 1 else name for name, place in zip(names, places)]
    again = Counter(named)
    taken = set(named)
    out = []
    for name in named:
        if again[name] > 1:
            number = 1
            while f"{name} #{number}" in taken:
                number += 1
            name = f"{name} #{number}"
            taken.add(name)
        out.append(name)
    return out


@dataclass
class ImportedSuite:
    """A suite in another tool's files, as an importer found it: listed, nothing read.

    ``builds`` are in history order (the harness's date, then the name). ``read_references``
    and ``read_build`` read and check; a problem there is a `SuiteError` raised only then.
    ``stored``, where the harness kept its own per-example ROUGE: (build name) -> {id: F},
    for `report` to say how many of ours agree (never shown as rouge-tui's)."""

    format: str
    path: Path
    name: str  # the task or eval the harness wrote (suite.toml's name wins over it)
    builds: list[ImportedBuild]
    read_references: Callable[[], References] = field(repr=False)
    read_build: Callable[[ImportedBuild], list[Run]] = field(repr=False)
    stored: Callable[[ImportedBuild], dict[str, float]] | None = field(default=None, repr=False)
    # The name is the path's (a promptfoo export with no description): it says nothing of
    # which task the outputs are of, so `import` does not tell suites apart by it.
    named_by_path: bool = False


@dataclass(frozen=True)
class Importer:
    """One importer in the registry (`rouge_tui.importers.IMPORTERS`).

    ``recognise(path)`` says, from the files' own shape and cheaply (a listing, a file's first
    bytes, a zip's member names), whether ``path`` is this format: never by a guess that could
    mis-read another layout. ``open(path, settings)`` lists the suites at ``path`` (an
    lm-eval output folder with several tasks is several suites), reading nothing more than
    naming and ordering need."""

    name: str
    summary: str  # one line for --help and the README
    recognise: Callable[[Path], bool]
    open: Callable[[Path, SuiteSettings], list[ImportedSuite]]
