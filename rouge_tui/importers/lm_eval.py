"""lm-evaluation-harness ``--log_samples`` output, read where it lies (SPEC, "Other tools'
outputs (importers)").

The harness writes ``<output_path>/<model_dir>/results_<date>.json`` and, beside it, one
``samples_<task>_<date>.jsonl`` per task: one line per (doc, filter), the target written as
Python's ``str()`` of whatever the task's ``doc_to_target`` gave. ``<model_dir>`` is the model
argument with ``/`` (and ``:"<>|\\?*[]``) made ``__``; ``<date>`` is the run's
``datetime.now().isoformat()`` with ``:`` made ``-``, the same in every file of one run.

A suite is one task; a build is one run of it (a model folder and a date); an id is the
``doc_id``, followed by ``|`` and the filter's name when the file holds several filters
(gsm8k's ``strict-match`` and ``flexible-extract``), so each filter's answer is an example
of its own, scored against the same target. References are the targets of the newest run
that reads.
"""

from __future__ import annotations

import ast
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import file_digest
from rouge_tui.importers.base import (
    ImportedBuild,
    ImportedSuite,
    Importer,
    Missing,
    Where,
    field_text,
    get_field,
    history_order,
    id_text,
    make_references,
    make_run,
    model_name,
    parse_path,
    selector_digest,
    source_text,
)
from rouge_tui.suite.records import References, Run, json_lines
from rouge_tui.suite.toml import SuiteSettings

__all__ = ["IMPORTER"]

# evaluation_tracker.py: datetime.now().isoformat().replace(":", "-"); isoformat leaves the
# microseconds out when they are zero.
_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{1,6})?"
# The task is what lies between the first "_" and the date (utils.get_file_task_name).
_SAMPLES = re.compile(rf"samples_(.+)_({_DATE})\.jsonl(?:\.gz)?")
# results_<date>.json, or <stem>_<date>.json when --output_path named a .json file.
_RESULTS = re.compile(rf".+_({_DATE})\.json")

_ID = "doc_id"
_OUTPUT = "filtered_resps.0"
_TARGET = "target"
_STORED = "rougeL"  # lm-eval's own per-example figure, where a task's metric wrote one
# str() of a list or tuple of strings starts so; any other target is the text itself.
_LISTED = re.compile(r"[\[(]['\"]")


# --------------------------------------------------------------------------- listing


def _folders(path: Path) -> list[Path]:
    """``path`` and its subfolders: an output folder holds model folders, which hold runs."""
    try:
        with os.scandir(path) as entries:
            inside = sorted(Path(e.path) for e in entries if _is_dir(e))
    except OSError as exc:
        raise SuiteError(f"cannot list: {exc.strerror or exc}", path) from None
    return [path, *inside]


def _is_dir(entry: os.DirEntry) -> bool:
    """Whether ``entry`` is a folder; a link that loops is not (`is_dir` raises for it, and a
    stray one hid every run of the folder it was in, so a report compared older runs)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _names(folder: Path) -> list[str]:
    """What is in ``folder`` besides folders: a FIFO or a broken link named as a run is listed
    too, and said to be one when read, never read while listing."""
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if not _is_dir(e))
    except OSError:
        return []  # a subfolder we may not read holds no run we can list


def _runs(folder: Path) -> Iterator[tuple[str, str, Path]]:
    """``(task, date, samples file)`` for each samples file with its run's results beside."""
    names = _names(folder)
    dates = {m.group(1) for name in names if (m := _RESULTS.fullmatch(name))}
    for name in names:
        if (m := _SAMPLES.fullmatch(name)) and m.group(2) in dates:
            yield m.group(1), m.group(2), folder / name


def recognise(path: Path) -> bool:
    """A folder (or a folder of model folders) with a ``samples_<task>_<date>.jsonl`` and the
    same run's ``results_<date>.json`` beside it: names only, nothing read."""
    path = Path(path)
    if not path.is_dir():
        return False
    try:
        return any(True for folder in _folders(path) for _ in _runs(folder))
    except SuiteError:
        return False


def _created(date: str) -> str:
    """The file name's date as ISO text: ``2026-11-20T10-02-33.5`` -> ``2026-11-20T10:02:33.5``."""
    day, clock = date.split("T")
    return f"{day}T{clock.replace('-', ':', 2)}"


def _short(model: str) -> str:
    """``meta-llama__Llama-3.1-8B-Instruct`` -> ``Llama-3.1-8B-Instruct``: the part after the
    organisation (or a local checkpoint's last folder), cut from the middle to fit a column
    (a model's size and its version, at either end, both stay)."""
    return model_name(model.rsplit("__", 1)[-1] or model)


def _build_names(runs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A name for each ``(model folder, created)``: the model's short name (its folder's whole
    name where two folders share it) and the date to the minute (to the second, then whole,
    where one model has two runs that close)."""
    models = sorted({model for model, _ in runs})
    shorts = Counter(_short(model) for model in models)
    label = {model: _short(model) if shorts[_short(model)] == 1 else model for model in models}
    names = {}
    for model, created in runs:
        same = [other for m, other in runs if m == model]
        for cut in (16, 19, None):
            if sum(other[:cut] == created[:cut] for other in same) == 1:
                break
        names[model, created] = f"{label[model]} {created[:cut]}"
    return names


def open_suites(path: Path, settings: SuiteSettings) -> list[ImportedSuite]:
    """One suite per task found at ``path`` (an output folder, or one model's folder), its
    builds in history order: the run's date, then the name. Reads no samples file."""
    path = Path(path)
    for key, dotted in settings.fields_given.items():
        try:
            parse_path(dotted)
        except ValueError as exc:
            raise SuiteError(f"fields.{key}: {exc}", path) from None
    found: dict[str, list[tuple[str, str, Path]]] = {}
    for folder in _folders(path):
        model = (folder if folder != path else path.resolve()).name
        for task, date, file in _runs(folder):
            found.setdefault(task, []).append((model, _created(date), file))
    if not found:
        message = "no lm-evaluation-harness samples_<task>_<date>.jsonl with its results_<date>.json here"
        raise SuiteError(message, path)
    suites = []
    for task in sorted(found):
        runs = found[task]
        names = _build_names([(model, created) for model, created, _ in runs])
        builds = history_order(ImportedBuild(names[model, created], file, (file,), created) for model, created, file in runs)
        name = settings.name if settings.name and len(found) == 1 else task
        suites.append(_suite(path, name, builds, settings.fields_given))
    return suites


# --------------------------------------------------------------------------- reading


def _value(record: dict, dotted: str, where: Where) -> object:
    """The value at a field path, or a `SuiteError` naming the path and what is wrong there."""
    try:
        return get_field(record, dotted)
    except Missing as exc:
        steps = parse_path(exc.at)
        above = get_field(record, steps[:-1])  # the walk got this far
        if not isinstance(above, dict):  # a list past its end is missing; else the wrong type
            wanted = "a list" if isinstance(steps[-1], int) else "an object"
            if not isinstance(above, list) or wanted == "an object":
                inside = ".".join(map(str, steps[:-1]))
                raise SuiteError(f"{quoted(inside)} must be {wanted}, not {type_name(above)}", *where) from None
        raise SuiteError(f"missing field {quoted(exc.at)}", *where) from None


def _output(record: dict, dotted: str, where: Where) -> str:
    """The response at ``dotted``; a list there (a filter that keeps several answers, or
    ``filtered_resps`` one level deeper) gives its first item."""
    value = _value(record, dotted, where)
    if isinstance(value, list):
        dotted = f"{dotted}.0"
        value = _value(record, dotted, where)
    if type(value) is not str:
        raise SuiteError(f"{quoted(dotted)} must be a string, not {type_name(value)}", *where)
    return value


def _target(text: str) -> tuple[str, ...]:
    """References from lm-eval's ``str(target)``: a list or tuple of strings is several where
    ``str()`` of it gives the text back, byte for byte; any other text is one, however it
    looks (a task whose answers are JSON arrays writes ``["Paris", "Lyon"]``, which str()
    of a list never writes). Read with `ast.literal_eval`, data only."""
    if not _LISTED.match(text):
        return (text,)
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return (text,)
    if isinstance(value, (list, tuple)) and all(type(item) is str for item in value) and str(value) == text:
        return tuple(value)
    return (text,)


def _references(record: dict, dotted: str | None, where: Where) -> tuple[str, ...]:
    """The target (`_target`), or the field suite.toml's [fields] names: text, or a list."""
    if dotted is None:
        return _target(field_text(record, _TARGET, where))
    value = _value(record, dotted, where)
    if type(value) is str:
        return (value,)
    if type(value) is list:
        return tuple(value)  # make_references says which item is no string
    raise SuiteError(f"{quoted(dotted)} must be a string or a list of strings, not {type_name(value)}", *where)


def _stored(record: dict, where: Where) -> float | None:
    """lm-eval's own per-example rougeL where it is a number; a corpus-level metric writes
    (reference, prediction) there, which is no score."""
    value = record.get(_STORED)
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    return None


def _keyed(path: Path, id_field: str, take: Callable[[dict, Where], object]) -> list[tuple[Where, str, object]]:
    """``(where, id, take(record))`` for each line of a samples file, in file order. The id is
    the doc's, with ``|filter`` after it when the file holds more than one filter (one line
    per doc and filter: the doc's id alone would repeat). The harness's json.dumps writes a
    float that is not finite as NaN (a failed metric, a doc's missing number): null here."""
    rows = []
    filters = set()
    for line, record in json_lines(path, nan_as_null=True):
        where: Where = (path, line)
        if type(record) is not dict:
            raise SuiteError(f"expected a JSON object, found {type_name(record)}", path, line)
        key = id_text(_value(record, id_field, where), id_field, where)
        name = field_text(record, "filter", where, default="")
        rows.append((where, key, name, take(record, where)))
        filters.add(name)
    several = len(filters) > 1
    return [(where, f"{key}|{name}" if several else key, value) for where, key, name, value in rows]


def _suite(path: Path, name: str, builds: list[ImportedBuild], given: dict[str, str]) -> ImportedSuite:
    id_field = given.get("id", _ID)
    output = given.get("output", _OUTPUT)
    reference = given.get("references", given.get("reference"))
    source = given.get("source")

    def example(record: dict, where: Where) -> tuple[str, tuple[str, ...], str | None]:
        """A line's output, references and source: a run reads only when all of them do, so
        the run the references come from is always one that reads."""
        text = None if source is None else source_text(record, source, where)
        return _output(record, output, where), _references(record, reference, where), text

    def read_references() -> References:
        """The newest run's targets; where its file does not read, the newest run's that does
        (the broken run's error is raised when it is used, as any run's)."""
        failed: list[SuiteError] = []
        for build in reversed(builds):
            try:
                rows = _keyed(build.path, id_field, example)
                return make_references(
                    ((where, key, texts, text) for where, key, (_, texts, text) in rows),  # type: ignore[misc]
                    id_field, (build.path, None),
                )
            except SuiteError as exc:
                failed.append(exc)
        raise failed[0]  # a suite listed has a build: none read, the newest one's error

    def read_build(build: ImportedBuild) -> list[Run]:
        rows = _keyed(build.path, id_field, lambda record, where: example(record, where)[0])
        digest = selector_digest(file_digest(build.path), "run", id_field, output)
        return [make_run(rows, build.path, digest, id_field)]  # type: ignore[arg-type]

    def stored(build: ImportedBuild) -> dict[str, float]:
        rows = _keyed(build.path, id_field, _stored)
        return {key: value for _, key, value in rows if value is not None}  # type: ignore[misc]

    return ImportedSuite("lm-eval", path, name, builds, read_references, read_build, stored)


IMPORTER = Importer(
    "lm-eval",
    "lm-evaluation-harness --log_samples: samples_<task>_<date>.jsonl beside results_<date>.json",
    recognise,
    open_suites,
)
