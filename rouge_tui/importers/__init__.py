"""Other tools' outputs, read where they are (SPEC, "Other tools' outputs (importers)").

`IMPORTERS` is the only list of importers: a name (what ``--format`` and suite.toml's
``format`` take) and the module that holds its `base.Importer`. A new format is one module
with an ``IMPORTER`` and its tests, plus its line here. Modules are imported when a format is
asked for, so `report` on a native suite loads none of them.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names alone load nothing else: --help lists them
    from rouge_tui.importers.base import Importer

__all__ = ["IMPORTERS", "NATIVE_FORMATS", "get", "recognise"]

# The names --format and suite.toml take for the native reader's own layout ("Suite on disk"):
# no importer's.
NATIVE_FORMATS = ("native", "parquet")

IMPORTERS: dict[str, str] = {
    "lm-eval": "rouge_tui.importers.lm_eval",
    "inspect": "rouge_tui.importers.inspect_ai",
    "promptfoo": "rouge_tui.importers.promptfoo",
    "helm": "rouge_tui.importers.helm",
}


def get(name: str) -> Importer:
    """The importer called ``name``; KeyError when there is none."""
    return import_module(IMPORTERS[name]).IMPORTER


def recognise(path: Path) -> list[str]:
    """The names of the formats whose files ``path`` has the shape of, in registry order (a
    format whose module is not installed yet is passed over: a dependency it lacks is not)."""
    found = []
    for name, module in IMPORTERS.items():
        try:
            importer = get(name)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        if importer.recognise(Path(path)):
            found.append(name)
    return found
