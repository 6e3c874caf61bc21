"""Finding, reading and checking suites on disk (SPEC, "Suite on disk").

A suite is a directory with one references file (``references.jsonl``, ``.jsonl.gz``,
``.csv`` or ``.parquet``), an optional ``suite.toml`` and a ``builds/`` directory whose
entries are builds: a ``NAME.jsonl`` / ``.jsonl.gz`` / ``.csv`` / ``.parquet`` file (one run)
or a ``NAME/`` directory of replicate run files. `open_suite` lists a suite without reading a
record; `read_build` reads only the builds in use, so a broken build stops nothing else. Every file is opened
and read through `rouge_tui.files` (regular files only, bounded lines and sizes), every
problem is a one-line `rouge_tui.errors.SuiteError` naming the file and line, and the suite
directory is never written.

The package imports nothing: each name is imported from its module (`records` with `Fields`, `settings` for suite.toml and config.toml, `suite` for a suite's
layout), so that `score`, which reads two record files, loads only `records`.
"""
