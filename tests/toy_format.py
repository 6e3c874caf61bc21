"""A toy harness format for the tests of what surrounds the importers (opening, listing, the
CLI, `import`): no real harness's, so that those tests hold whichever importers exist.

A toy output folder holds, per task, ``refs~TASK.jsonl`` (``{"doc": {"n": 1}, "gold": ...}``,
gold a string or a list) and its builds' files ``out~TASK~DATE~MODEL.jsonl`` (``{"doc": {"n":
1}, "resp": ["text"]}``), replicate runs as ``out~TASK~DATE~MODEL~RUN.jsonl`` (MODEL %-quoted,
so that a name may hold a ``/``). A build is a (date, model); history order is the date, then the model (not the name: ``MODEL@DATE``). A
file name with too few parts is a build that cannot be read. Install it with `install`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from rouge_tui.errors import SuiteError
from rouge_tui.files import file_digest
from rouge_tui.importers.base import (
    Format,
    ImportedBuild,
    Layout,
    field_text,
    get_field,
    make_references,
    make_run,
    selector_digest,
)
from rouge_tui.suite.records import json_lines
from rouge_tui.suite.settings import SuiteSettings

DEFAULTS = {"id": "doc.n", "reference": "gold", "output": "resp.0", "source": "doc.text"}


def recognise(path: Path) -> bool:
    try:
        return any(name.startswith("refs~") and name.endswith(".jsonl") for name in os.listdir(path))
    except OSError:
        return False


def _fields(settings: SuiteSettings) -> dict[str, str]:
    return {**DEFAULTS, **settings.fields_given}


def open_(path: Path, settings: SuiteSettings) -> list[Layout]:
    names = sorted(os.listdir(path))
    tasks = [name[len("refs~"):-len(".jsonl")] for name in names if name.startswith("refs~") and name.endswith(".jsonl")]
    return [_layout(path, task, names, _fields(settings)) for task in tasks]


def _layout(path: Path, task: str, names: list[str], fields: dict[str, str]) -> Layout:
    builds: dict[tuple[str, str], list[Path]] = {}
    broken: list[ImportedBuild] = []
    for name in names:
        parts = name.removesuffix(".jsonl").split("~")
        if parts[0] != "out" or len(parts) < 2 or parts[1] != task:
            continue
        if len(parts) < 4:
            problem = SuiteError("a toy build file names its task, date and model", path / name)
            broken.append(ImportedBuild(name, path / name, (path / name,), "", problem))
            continue
        builds.setdefault((parts[2], unquote(parts[3])), []).append(path / name)
    listed = [ImportedBuild(f"{model}@{date}", files[0], tuple(files), date, None, (model, date))
              for (date, model), files in sorted(builds.items())]

    def read_references():
        refs = path / f"refs~{task}.jsonl"
        rows = []
        for line, record in json_lines(refs):
            where = (refs, line)
            gold = get_field(record, fields["reference"])
            texts = gold if isinstance(gold, list) else [field_text(record, fields["reference"], where)]
            source = field_text(record, fields["source"], where, default="") or None
            rows.append((where, get_field(record, fields["id"]), texts, source))
        return make_references(rows, empty_where=(refs, None))

    def read_build(build: ImportedBuild):
        runs = []
        for file in build.run_files:
            rows = [((file, line), get_field(record, fields["id"]), field_text(record, fields["output"], (file, line)))
                    for line, record in json_lines(file)]
            runs.append(make_run(rows, file, selector_digest(file_digest(file), *build.selector)))
        return runs

    return Layout("toy", path, task, [*listed, *broken], read_references, read_build)


FORMAT = Format("toy", "a toy harness of the tests", recognise, open_)


def install(monkeypatch: pytest.MonkeyPatch, *more: str) -> None:
    """The registry with the toy format in it (and ``more`` names of this same module, for
    a path two formats recognise)."""
    from rouge_tui import importers

    monkeypatch.setitem(sys.modules, "toy_format", sys.modules[__name__])
    monkeypatch.setattr(importers, "FORMATS", {"toy": "toy_format", **{name: "toy_format" for name in more}})


def write_toy(folder: Path, task: str = "summ", builds: dict[tuple[str, str], dict] | None = None,
              refs: dict | None = None) -> Path:
    """A toy output folder: ``refs`` id -> gold; ``builds`` (date, model) -> {id: text}, or
    -> [{id: text}, ...] for replicate runs. By default three builds whose names sort apart
    from their dates."""
    folder.mkdir(parents=True, exist_ok=True)
    refs = refs if refs is not None else {1: "the cat sat on the mat", 2: ["a dog ran far", "the dog ran"], 3: "rain fell all day"}
    (folder / f"refs~{task}.jsonl").write_text(
        "".join(json.dumps({"doc": {"n": key, "text": f"doc {key}"}, "gold": gold}) + "\n" for key, gold in refs.items()))
    if builds is None:
        builds = {
            ("2026-01-01", "zeta"): {1: "the cat sat on a mat", 2: "a dog ran", 3: "rain fell all day"},
            ("2026-01-02", "alpha"): {1: "the cat sat", 2: "the dog ran far", 3: "rain all day"},
            ("2026-01-03", "mid"): {1: "a cat", 2: "dogs", 3: "sun shone"},
        }
    for (date, model), outputs in builds.items():
        runs = outputs if isinstance(outputs, list) else [outputs]
        for number, run in enumerate(runs, 1):
            suffix = f"~{number:02d}" if isinstance(outputs, list) else ""
            (folder / f"out~{task}~{date}~{quote(model, safe='@:')}{suffix}.jsonl").write_text(
                "".join(json.dumps({"doc": {"n": key}, "resp": [text]}) + "\n" for key, text in run.items()))
    return folder
