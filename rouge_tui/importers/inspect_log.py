"""One Inspect AI log file read (`inspect_ai` makes suites of them): its header and its
samples, from a ``.eval`` zip or a ``.json`` EvalLog.

Read without importing inspect_ai, whose maintainers call the ``.eval`` layout versioned but
not frozen (inspect_ai#5066). A ``.eval`` is a zip holding ``header.json`` (a finished log) or
``_journal/start.json`` (one still running or cut short), and a member for each sample and
epoch: ``samples/{id}_epoch_{n}.json``, or in the chunked shape a folder
``samples/{id}_epoch_{n}/`` whose ``sample.json`` holds all but the messages, events and
``metadata.json``. Members are deflated, or zstd-compressed (zip method 93, inspect_ai's
default since 0.3.206; before Python 3.14 read through backports.zstd, imported when met).
A ``.json`` log is the whole EvalLog in one object, ``version``, ``status`` and ``eval`` first.
Every member is read bounded, alone and together, as a gzip file is (`rouge_tui.files`).
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import sys
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import GZIP_FREE, GZIP_RATIO, open_binary, read_head, size_text
from rouge_tui.importers.base import (
    Missing,
    Where,
    fail,
    field_text,
    get_field,
    parse_json,
    read_json,
)

__all__ = ["Head", "is_json_log", "is_log", "log_head", "read_member", "samples"]

MEMBER_LIMIT = 1 << 30  # bytes one zip member may decompress to (a sample with all its events)
JSON_LIMIT = 1 << 30  # bytes of a .json log, read whole
HEAD_BYTES = 64 << 10  # of a .json log, where its version, status and eval are looked for
READ = 1 << 20  # bytes asked of a member per read

ZIP_ZSTD = 93  # zip's method number for zstd (APPNOTE 4.4.5), unknown to Python 3.11's zipfile
HEADER = "header.json"
START = "_journal/start.json"
# A sample's member, monolith (.json) or chunked (/sample.json); the id as the name writes it.
_SAMPLE = re.compile(r"samples/(.+)_epoch_([0-9]{1,9})(\.json|/sample\.json)", re.DOTALL)
_SPACE = re.compile(r"[ \t\r\n]*")


# --------------------------------------------------------------------------- zip members


def _zstd() -> ModuleType:
    """compression.zstd, or before Python 3.14 its backport: imported when a zstd member is
    met, so that listing formats never fails for want of it."""
    if sys.version_info >= (3, 14):
        from compression import zstd
    else:
        from backports import zstd
    return zstd


def _too_much(size: int, packed: int) -> str | None:
    """What is wrong with a member that decompresses to ``size`` bytes from ``packed``, or
    None: bounded like a gzip file (files.py), with a ceiling of its own."""
    if size > MEMBER_LIMIT:
        return f"decompresses to over {size_text(MEMBER_LIMIT)}"
    if size > GZIP_FREE and size > GZIP_RATIO * packed:
        return f"decompresses to over {GZIP_RATIO} times its size (a zip bomb?)"
    return None


def _zip(raw: BinaryIO, path: Path) -> tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """The archive and its members by name: the last of a name wins, as inspect_ai's readers
    take a sample run again after its first try (a zip appended to keeps both)."""
    try:
        archive = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise SuiteError(f"not a zip file, as a .eval log is ({exc})", path) from None
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None
    return archive, {info.filename: info for info in archive.infolist()}


def read_member(archive: zipfile.ZipFile, raw: BinaryIO, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A member's bytes, decompressed and bounded: its declared size is checked before a
    byte is read, the bytes as they come (a size can lie), then its CRC-32."""
    where: Where = (path, info.filename)
    if info.flag_bits & 1:
        raise fail(where, "encrypted (Inspect never encrypts a log)")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZIP_ZSTD):
        raise fail(where, f"compression method {info.compress_type} (Inspect writes deflate or zstd)")
    if why := _too_much(info.file_size, info.compress_size):
        raise fail(where, why)
    broken: tuple[type[Exception], ...] = (zipfile.BadZipFile, zlib.error, EOFError)
    if info.compress_type == ZIP_ZSTD:
        broken += (_zstd().ZstdError,)
    parts: list[bytes] = []
    size = 0
    try:
        with _opened(archive, raw, info, where) as stream:
            while chunk := stream.read(READ):
                size += len(chunk)
                if why := _too_much(size, info.compress_size):
                    raise fail(where, why)
                parts.append(chunk)
    except broken as exc:
        raise fail(where, f"damaged ({exc})") from None
    except OSError as exc:
        raise fail(where, f"cannot read: {exc.strerror or exc}") from None
    data = b"".join(parts)
    if info.compress_type == ZIP_ZSTD and (size != info.file_size or zlib.crc32(data) != info.CRC):
        raise fail(where, "damaged (its size or CRC-32 is not the zip directory's)")
    return data


def _opened(
    archive: zipfile.ZipFile, raw: BinaryIO, info: zipfile.ZipInfo, where: Where
) -> io.BufferedIOBase:
    """A member as a stream: zipfile's own for stored and deflate (CRC checked there); for
    zstd its raw bytes through a zstd reader, which goes on across frames (inspect_ai cuts a
    big member into several) where Python 3.14's zipfile stops at the first."""
    if info.compress_type != ZIP_ZSTD:
        return archive.open(info)
    raw.seek(info.header_offset)
    head = raw.read(30)  # the local file header: its name and extra field lengths at 26
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        raise fail(where, "damaged (no local header where the zip directory says)")
    name_length, extra_length = struct.unpack("<HH", head[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    packed = raw.read(info.compress_size)
    if len(packed) < info.compress_size:
        raise fail(where, "damaged (the file ends inside it)")
    return _zstd().ZstdFile(io.BytesIO(packed))


def _object(data: bytes, where: Where, what: str) -> dict:
    value = parse_json(data, *where)
    if type(value) is not dict:
        raise fail(where, f"{what} must be a JSON object, not {type_name(value)}")
    return value


# --------------------------------------------------------------------------- one log


@dataclass(frozen=True)
class Head:
    """What naming and ordering need of a log: from ``eval`` in its header."""

    task: str
    model: str
    created: str  # ISO text, in UTC where the log gave an offset: text order is time order
    epochs: int


def _top_level(head: bytes) -> dict[str, object]:
    """The top-level keys of a JSON object's first bytes, each with its value where that
    ends within them (else None), in order; nothing when they are not an object's start."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    found: dict[str, object] = {}
    if not text.startswith("{"):
        return found
    decode = json.JSONDecoder().raw_decode
    at = 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        try:
            key, at = decode(text, at)
        except (ValueError, RecursionError):  # not JSON here, or nested past the decoder's depth
            return found
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if type(key) is not str or not text.startswith(":", at):
            return found
        found[key] = None
        try:
            found[key], at = decode(text, _SPACE.match(text, at + 1).end())  # type: ignore[union-attr]
        except (ValueError, RecursionError):
            return found
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(",", at):
            return found
        at += 1


def is_json_log(path: Path) -> bool:
    """A ``.json`` whose first bytes are an object with ``eval`` and ``version`` or
    ``samples`` at its top (an EvalLog as inspect_ai writes it)."""
    keys = _top_level(read_head(path, HEAD_BYTES))
    return "eval" in keys and ("version" in keys or "samples" in keys)


def _is_eval_log(path: Path) -> bool:
    with open_binary(path) as raw:
        _archive, members = _zip(raw, path)
    return HEADER in members or START in members


def is_log(path: Path) -> bool:
    """An Inspect log by its shape: a ``.eval`` zip with a header or a journal's start, or a
    ``.json`` EvalLog (`is_json_log`); False for anything unreadable."""
    try:
        if path.suffix == ".eval":
            return _is_eval_log(path)
        return path.suffix == ".json" and is_json_log(path)
    except (SuiteError, OSError):
        return False


def _when(created: str, where: Where) -> str:
    try:
        moment = datetime.fromisoformat(created)
    except ValueError:
        raise fail(where, f"'eval.created' is not an ISO date: {quoted(created)}") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.isoformat(timespec="seconds")


def log_head(path: Path) -> Head:
    """A log's task, model, date and epochs, from its header alone."""
    if path.suffix == ".eval":
        with open_binary(path) as raw:
            archive, members = _zip(raw, path)
            name = HEADER if HEADER in members else START if START in members else None
            if name is None:
                raise SuiteError(f"no {HEADER} nor {START} in it (not an Inspect log?)", path)
            where: Where = (path, name)
            header = _object(read_member(archive, raw, members[name], path), where, "the header")
    else:
        where = (path, None)
        header = {"eval": _top_level(read_head(path, HEAD_BYTES)).get("eval")}
        if type(header["eval"]) is not dict:  # longer than the first bytes: the whole log
            header = _log_object(path)
    try:
        epochs = get_field(header, "eval.config.epochs")
    except Missing:
        epochs = 1
    return Head(
        task=field_text(header, "eval.task", where),
        model=field_text(header, "eval.model", where),
        created=_when(field_text(header, "eval.created", where), where),
        epochs=epochs if type(epochs) is int and epochs > 0 else 1,
    )


def _order(name_id: str) -> tuple[int, int, str]:
    """Integer ids in their numbers' order (without int(), which refuses 5,000 digits),
    then the others in code point order."""
    if name_id.isascii() and name_id.isdigit():
        return (0, len(name_id.lstrip("0")), name_id)
    return (1, 0, name_id)


def _eval_samples(path: Path, metadata: bool, first_epoch: bool) -> Iterator[tuple[Where, dict]]:
    """A ``.eval`` log's samples in id and epoch order (the id as its member's name writes
    it), with ``metadata.json`` put back into a chunked one when ``metadata`` is asked for;
    only each id's lowest epoch with ``first_epoch``. All the members read are bounded
    together too, like one gzip file: many members of the same few packed bytes (entries
    that overlap) are a bomb even when each is small."""
    with open_binary(path) as raw:
        archive, members = _zip(raw, path)
        packed = os.fstat(raw.fileno()).st_size
        total = 0

        def read(name: str, what: str) -> dict:
            nonlocal total
            data = read_member(archive, raw, members[name], path)
            total += len(data)
            if total > GZIP_FREE and total > GZIP_RATIO * packed:
                message = f"its members decompress to over {GZIP_RATIO} times its size (a zip bomb?)"
                raise SuiteError(message, path)
            return _object(data, (path, name), what)

        found: dict[tuple[str, int], str] = {}
        for name in members:
            if (match := _SAMPLE.fullmatch(name)) is not None:
                key = (match[1], int(match[2]))
                if key not in found or match[3] == ".json":  # one shape a sample: monolith first
                    found[key] = name
        chosen = sorted(found, key=lambda key: (_order(key[0]), key[1]))
        if first_epoch:
            lowest: dict[str, int] = {}
            for name_id, epoch in chosen:
                lowest.setdefault(name_id, epoch)
            chosen = [(name_id, epoch) for name_id, epoch in chosen if lowest[name_id] == epoch]
        for key in chosen:
            name = found[key]
            where: Where = (path, name)
            record = read(name, "a sample")
            extra = name.removesuffix("sample.json") + "metadata.json"
            if metadata and name.endswith("/sample.json") and extra in members:
                record["metadata"] = read(extra, "a sample's metadata")
            yield where, record


def _log_object(path: Path) -> dict:
    """A whole ``.json`` log."""
    log, _digest = read_json(path, JSON_LIMIT)
    if type(log) is not dict:
        raise SuiteError(f"an Inspect log must be a JSON object, not {type_name(log)}", path)
    return log


def _json_samples(path: Path) -> Iterator[tuple[Where, dict]]:
    log = _log_object(path)
    listed = log.get("samples", [])
    if type(listed) is not list:
        raise fail((path, None), f"'samples' must be an array, not {type_name(listed)}")
    for number, record in enumerate(listed):
        where: Where = (path, f"samples.{number}")
        if type(record) is not dict:
            raise fail(where, f"a sample must be a JSON object, not {type_name(record)}")
        yield where, record


def samples(path: Path, metadata: bool, first_epoch: bool) -> Iterator[tuple[Where, dict]]:
    """A log's samples, each with where it is: a ``.eval``'s in id and epoch order (only each
    id's lowest epoch with ``first_epoch``; a chunked sample's metadata put back with
    ``metadata``), a ``.json``'s in the log's order."""
    if path.suffix == ".eval":
        return _eval_samples(path, metadata, first_epoch)
    return _json_samples(path)
