"""Parquet records (SPEC, "Suite on disk"): one record a row, decoded by polars in a child
process; a null is a field the row does not have; a place in the file is ``row N`` (the first
is row 1). The records are checked by `records`, as every format's are.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rouge_tui.errors import SuiteError, quoted, quoted_list
from rouge_tui.files import GZIP_RATIO, MAX_BYTES, MAX_LINE, read_small, size_text
from rouge_tui.safetext import one_line

if TYPE_CHECKING:
    import polars as pl

__all__ = ["DECODE_MEMORY", "ParquetRows"]


class ParquetRows:
    """A Parquet file's rows as records, read whole through `files` (a regular file, bounded)
    and decoded by polars in a child process; iterate once. ``digest``: then
    `files.file_digest`'s value."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.digest = ""

    def records(
        self, required: tuple[str, ...], either: tuple[str, ...] = ()
    ) -> Iterator[tuple[str, dict, None]]:
        """The rows, nulls left out, as ``(f"row {n}", record, None)``; the columns must
        include every one of ``required`` and one of ``either`` (when given)."""
        frame = self._frame()
        columns = frame.columns
        missing = [name for name in required if name not in columns]
        if either and not any(name in columns for name in either):
            missing.append(" or ".join(map(quoted, either)))
        else:
            missing = [quoted(name) for name in missing]
        if missing:
            shown = quoted_list(columns, 5, 20)
            raise SuiteError(f"missing column {missing[0]} (columns: {shown})", self.path)
        if not frame.height:
            raise SuiteError("empty file (no records)", self.path)
        for number, row in enumerate(frame.iter_rows(named=True), 1):
            yield f"row {number}", {k: v for k, v in row.items() if v is not None}, None

    def _frame(self) -> pl.DataFrame:
        data = read_small(self.path, MAX_BYTES)
        self.digest = hashlib.sha256(data).hexdigest()
        import polars as pl

        frame = pl.read_ipc_stream(io.BytesIO(self._decoded(data)))
        # Held to what a JSON Lines file may hold before any text is made a Python str: a
        # dictionary page can repeat one long text on every row.
        for name, dtype in frame.schema.items():
            if dtype == pl.String:
                sizes = frame[name].str.len_bytes()
            elif dtype == pl.List(pl.String):
                sizes = frame[name].list.eval(pl.element().str.len_bytes()).list.sum()
            elif dtype == pl.Binary:
                sizes = frame[name].bin.size()
            else:
                continue
            if (sizes.max() or 0) > MAX_LINE:
                row = f"row {sizes.arg_max() + 1}"
                message = f"{quoted(name)} holds more than {size_text(MAX_LINE)}"
                raise SuiteError(message, self.path, row)
            if (sizes.sum() or 0) > MAX_BYTES:
                message = f"column {quoted(name)} holds more than {size_text(MAX_BYTES)} in all"
                raise SuiteError(message, self.path)
        return frame

    def _decoded(self, data: bytes) -> bytes:
        """The file decoded by polars in a child process, as an Arrow IPC stream that polars
        itself wrote. In this process a damaged file can abort it: a flipped byte in a
        page header asks for 2 EiB and Rust aborts, others panic with a backtrace on the
        terminal (tests/test_parquet_rows.py::test_damaged_parquet_files_are_one_line_errors)."""
        import subprocess  # here: JSON Lines and CSV never start a process

        try:
            memory = max(DECODE_MEMORY, GZIP_RATIO * len(data))  # a bomb ends the child only
            done = subprocess.run(
                [sys.executable, "-I", "-c", _DECODE, str(memory)], input=data, capture_output=True,
                check=False, env={**os.environ, "RUST_BACKTRACE": "0"},
            )
        except OSError as exc:
            raise SuiteError(f"cannot decode Parquet: {exc.strerror or exc}", self.path) from None
        if done.returncode == 0:
            return done.stdout
        said = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = "the decoder failed on it"  # a panic, an abort, memory: polars gave no reason
        if done.returncode == 3 and said:
            reason = said[-1].strip()
        raise SuiteError(f"not a valid Parquet file ({one_line(reason, 120)})", self.path)


# Decodes a Parquet file from stdin to an Arrow IPC stream on stdout; polars' refusal is its
# last stderr line, with status 3. Only polars' own output is read back in the parent. Its address space is held
# to DECODE_MEMORY, or GZIP_RATIO times the file's size (a gzip file's bound) when more.
DECODE_MEMORY = 8 << 30  # polars reserves 1.5-1.9 GB of addresses with 2-64 threads
_DECODE = """
import io, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2)
try:
    with open("/proc/self/oom_score_adj", "w") as adj:  # the first to go when memory runs out
        adj.write("1000")
except OSError:
    pass
import polars as pl
try:
    frame = pl.read_parquet(io.BytesIO(sys.stdin.buffer.read()))
except pl.exceptions.PolarsError as exc:  # polars' own refusal, said: status 3
    print((str(exc).strip() or type(exc).__name__).splitlines()[0], file=sys.stderr)
    sys.exit(3)
frame.write_ipc_stream(sys.stdout.buffer)
"""
