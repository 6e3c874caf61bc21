"""Finding, reading and checking suites on disk (SPEC, "Suite on disk").

A suite is a directory with one references file (``references.jsonl``, ``.jsonl.gz`` or
``.csv``), an optional ``suite.toml`` and a ``builds/`` directory whose entries are builds:
a ``NAME.jsonl`` / ``NAME.jsonl.gz`` / ``NAME.csv`` file (one run) or a ``NAME/`` directory
of replicate run files. `open_suite` lists a suite without reading a record; `read_build`
reads only the builds in use, so a broken build stops nothing else. Every file is opened
and read through `files` (regular files only, bounded lines and sizes), every problem is a
one-line `SuiteError` naming the file and line, and the suite directory is never written.
"""

from rouge_tui.suite.errors import SuiteError
from rouge_tui.suite.files import MAX_LINE, file_digest, read_small
from rouge_tui.suite.records import (
    References,
    Run,
    read_references_file,
    read_run,
    reference_fingerprint,
)
from rouge_tui.suite.settings import (
    Fields,
    SuiteSettings,
    UserDefaults,
    read_suite_settings,
    read_user_defaults,
)
from rouge_tui.suite.suite import (
    EXTENSIONS,
    Build,
    BuildEntry,
    Suite,
    find_suites,
    is_suite,
    open_suite,
    read_build,
    read_references,
)

__all__ = [
    "EXTENSIONS",
    "MAX_LINE",
    "Build",
    "BuildEntry",
    "Fields",
    "References",
    "Run",
    "Suite",
    "SuiteError",
    "SuiteSettings",
    "UserDefaults",
    "file_digest",
    "find_suites",
    "is_suite",
    "open_suite",
    "read_build",
    "read_references",
    "read_references_file",
    "read_run",
    "read_small",
    "read_suite_settings",
    "read_user_defaults",
    "reference_fingerprint",
]
