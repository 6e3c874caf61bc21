"""`rouge-tui import`: suites read through any format written out in the native layout
("Suite on disk"), for archiving or to edit by hand.

The paths' order is the history order, the last path's last build the candidate: native
builds are ordered by name, so each build's name gets a zero-padded position in front
(``01-``). Names are made safe as file names; the inputs are only read; the output folder
is written whole beside itself and then renamed into place, so a failed import leaves
nothing half-written, and a folder that exists and holds anything is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.suite import Suite, open_suite, read_build, read_references
from rouge_tui.suite.toml import SuiteSettings

__all__ = ["import_suites", "safe_file_name"]

_NAME_BYTES = 120  # a build name's file name, well inside every file system's 255 bytes


def safe_file_name(name: str) -> str:
    """``name`` as a file name that means no more than it says: no ``/`` or ``\\``, no
    control or format character (a bidi override, a line break), no leading dot, at most
    `_NAME_BYTES` bytes of UTF-8; "build" when nothing is left."""
    kept = "".join(
        "_" if char in "/\\" or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp") else char
        for char in name
    ).lstrip(".").strip()
    while len(kept.encode("utf-8")) > _NAME_BYTES:
        kept = kept[:-1]
    return kept or "build"


def _merge(merged: dict[str, dict], references: References, where: Path) -> None:
    """Add one path's references; an id already there with other texts is a SuiteError."""
    for key, texts in references.texts.items():
        record: dict = {"id": key}
        record.update({"reference": texts[0]} if len(texts) == 1 else {"references": list(texts)})
        if key in references.sources:
            record["source"] = references.sources[key]
        if key in merged and merged[key] != record:
            raise SuiteError(f"id {quoted(key)} has other references (or source) here than in an earlier path", where)
        merged[key] = record


def _lines(records: Sequence[dict]) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode("utf-8")


def _run_lines(run: Run) -> bytes:
    return _lines([{"id": key, "output": text} for key, text in run.outputs.items()])


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, but for DEL, which TOML wants escaped."""
    return json.dumps(text).replace("\x7f", "\\u007f")


def _suite_toml(name: str, settings: SuiteSettings) -> str:
    """suite.toml for the written suite: its name and the settings the harness's folder
    scored with (so the native suite gives the same figures), never its format or [fields]
    (the native files use the native field names)."""
    top = [f"name = {_toml_string(name)}"]
    top += [f"{key} = {_toml_string(value)}" for key, value in (("metric", settings.metric), ("tokenizer", settings.tokenizer))
            if value is not None]
    if settings.stem is not None:
        top.append(f"stem = {'true' if settings.stem else 'false'}")
    band = [f"{key} = {value!r}" for key, value in (("k", settings.k), ("min_delta", settings.min_delta)) if value is not None]
    if settings.band_source is not None:
        band.append(f"source = {_toml_string(settings.band_source)}")
    tables = [("band", band), ("grounding", [] if settings.min_support is None else [f"min_support = {settings.min_support!r}"]),
              ("alarm", [] if settings.alarm is None else [f"signals = [{', '.join(map(_toml_string, settings.alarm))}]"])]
    return "\n".join([*top, *(f"[{table}]\n" + "\n".join(lines) for table, lines in tables if lines)]) + "\n"


def _out_problem(out: Path) -> str | None:
    if not os.path.lexists(out):
        return None
    if not out.is_dir() or out.is_symlink():
        return "exists and is not a folder: name a new folder for the suite"
    if any(os.scandir(out)):
        return "exists and is not empty: name a new folder for the suite"
    return None


def import_suites(paths: Sequence[Path], format: str, out: Path, name: str | None = None) -> Suite:
    """Read every build at ``paths`` (through ``format``; ``name`` picks a suite where a path
    holds several) and write them, with the references, as a native suite at ``out``; the
    native suite, opened. Every problem is one SuiteError, and leaves nothing at ``out``."""
    out = Path(out)
    if problem := _out_problem(out):
        raise SuiteError(problem, out)
    if not out.parent.is_dir():  # else the error names the temporary folder made in it
        raise SuiteError("no such folder to make the suite in", out.parent)
    for path in paths:  # a folder written inside an input changes it
        if Path(path).is_dir() and out.resolve().is_relative_to(Path(path).resolve()):
            raise SuiteError(f"inside {path}, which is only read: name a folder outside the inputs", out)
    suites = [open_suite(Path(path), format, name) for path in paths]
    # A suite is one task, its name its identity (marks, the log): paths of two tasks are not
    # one suite. A name made from a path (no harness wrote one) tells nothing apart.
    named = [suite for suite in suites if suite.imported is None or not suite.imported.named_by_path]
    for suite in named[1:]:
        if suite.name != named[0].name:
            raise SuiteError(f"holds the suite {quoted(suite.name)}, not {quoted(named[0].name)} as "
                             f"{named[0].path} does: import one suite at a time", suite.path)
    references: dict[str, dict] = {}
    for suite in suites:
        _merge(references, read_references(suite), suite.path)
    entries = [(suite, entry) for suite in suites for entry in suite.builds]
    if not entries:
        raise SuiteError("no builds to import", Path(paths[-1]))
    width = len(str(len(entries)))
    folder = Path(tempfile.mkdtemp(prefix=".rouge-tui-import-", dir=out.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        folder.chmod(0o777 & ~umask)  # as mkdir would make it (mkdtemp's is private)
        (folder / "builds").mkdir()
        (folder / "references.jsonl").write_bytes(_lines(list(references.values())))
        (folder / "suite.toml").write_text(_suite_toml(suites[-1].name, suites[-1].settings), encoding="utf-8")
        for number, (suite, entry) in enumerate(entries, 1):
            runs = read_build(suite, entry).runs
            stem = f"{number:0{width}d}-{safe_file_name(entry.name)}"
            if len(runs) == 1:
                (folder / "builds" / f"{stem}.jsonl").write_bytes(_run_lines(runs[0]))
                continue
            (folder / "builds" / stem).mkdir()
            digits = len(str(len(runs)))
            for run_number, run in enumerate(runs, 1):
                (folder / "builds" / stem / f"run-{run_number:0{digits}d}.jsonl").write_bytes(_run_lines(run))
        if problem := _out_problem(out):  # made meanwhile
            raise SuiteError(problem, out)
        os.replace(folder, out)  # an empty folder there is replaced
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return open_suite(out)
