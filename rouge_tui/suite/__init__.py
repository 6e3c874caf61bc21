"""Finding, reading and checking suites on disk (see SPEC, "Suite on disk").

A suite is a directory with one references file (``references.jsonl``, ``.jsonl.gz`` or
``.csv``), an optional ``suite.toml`` and a ``builds/`` directory whose entries are builds:
a ``NAME.jsonl`` / ``NAME.jsonl.gz`` / ``NAME.csv`` file (one run) or a ``NAME/`` directory
of replicate run files. Builds are ordered by name (plain string order), runs by file name.

Decisions worth knowing:

- Ids are strings. An integer id in JSON is taken as its decimal string, so ``1`` and ``"1"``
  name the same example (and are duplicates in one file); any other id type (float,
  boolean, null, array, object) and the empty string are errors. CSV ids are the cell text.
- Text fields must be strings; ``references`` a non-empty array of strings. An empty output
  is valid (it scores 0). A record with both ``reference`` and ``references`` is an error.
- Blank lines in JSON Lines are skipped; a UTF-8 BOM at the start of a file is tolerated;
  ``NaN``/``Infinity`` and lone surrogate escapes (``"\\ud800"``) are rejected, since they
  are not JSON text / not Unicode.
- Hidden entries (names starting with ``.``, such as ``.DS_Store`` or macOS ``._x.jsonl``
  shadow files) and files without an accepted extension are ignored under ``builds/``.
- Empty references are kept in ``Suite.references`` and listed in ``empty_reference_ids``;
  an id missing from some runs of a build is listed in ``Build.partial_ids``. Both are left
  out of paired figures by the comparison.
- ``Settings`` fields are ``None`` when suite.toml does not set them, so the caller's own
  defaults (user config, then built-in) apply.
- Every problem is a :class:`SuiteError` whose text is one line, ``PATH:LINE: message``,
  with untrusted names escaped. The suite directory is only ever read.
"""

from rouge_tui.suite.errors import SuiteError
from rouge_tui.suite.loader import (
    Build,
    Run,
    Suite,
    find_suites,
    is_suite,
    load_suite,
    reference_fingerprint,
)
from rouge_tui.suite.records import EXTENSIONS, read_outputs, read_references
from rouge_tui.suite.settings import METRICS, TOKENIZERS, Fields, Settings, read_settings

__all__ = [
    "EXTENSIONS",
    "METRICS",
    "TOKENIZERS",
    "Build",
    "Fields",
    "Run",
    "Settings",
    "Suite",
    "SuiteError",
    "find_suites",
    "is_suite",
    "load_suite",
    "read_outputs",
    "read_references",
    "read_settings",
    "reference_fingerprint",
]
