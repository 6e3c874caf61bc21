"""Inspect AI logs (SPEC, "Other tools' outputs (importers)"): ``.eval`` zips and ``.json``.

Read without importing inspect_ai, whose maintainers call the ``.eval`` layout versioned but
not frozen (inspect_ai#5066). A ``.eval`` is a zip holding ``header.json`` (a finished log) or
``_journal/start.json`` (one still running or cut short), and a member for each sample and
epoch: ``samples/{id}_epoch_{n}.json``, or in the chunked shape a folder
``samples/{id}_epoch_{n}/`` whose ``sample.json`` holds all but the messages, events and
``metadata.json``. Members are deflated, or zstd-compressed (zip method 93, inspect_ai's
default since 0.3.206; before Python 3.14 read through backports.zstd, imported when met).
A ``.json`` log is the whole EvalLog in one object, ``version``, ``status`` and ``eval`` first.

A build is one log file, its epochs replicate runs; a folder of logs of several tasks is
several suites, one per ``eval.task``. The references are the newest log's targets (that
log's outputs taken on the same pass); listing reads each log's header and nothing more.
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
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import (
    GZIP_FREE,
    GZIP_RATIO,
    file_digest,
    open_binary,
    read_head,
    size_text,
)
from rouge_tui.importers.base import (
    Format,
    ImportedBuild,
    Layout,
    Missing,
    Where,
    fail,
    field_text,
    field_value,
    get_field,
    make_references,
    make_run,
    model_name,
    parse_json,
    read_json,
    reference_texts,
    selector_digest,
)
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.settings import SuiteSettings

__all__ = ["FORMAT"]

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

_COMPLETION = "output.completion"  # since inspect_ai 0.3.154
_CONTENT = "output.choices.0.message.content"  # before it: the first choice's text parts


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


def _member(archive: zipfile.ZipFile, raw: BinaryIO, info: zipfile.ZipInfo, path: Path) -> bytes:
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
class _Head:
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
        except ValueError:
            return found
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if type(key) is not str or not text.startswith(":", at):
            return found
        found[key] = None
        try:
            found[key], at = decode(text, _SPACE.match(text, at + 1).end())  # type: ignore[union-attr]
        except ValueError:
            return found
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(",", at):
            return found
        at += 1


def _is_json_log(path: Path) -> bool:
    """A ``.json`` whose first bytes are an object with ``eval`` and ``version`` or
    ``samples`` at its top (an EvalLog as inspect_ai writes it)."""
    keys = _top_level(read_head(path, HEAD_BYTES))
    return "eval" in keys and ("version" in keys or "samples" in keys)


def _is_eval_log(path: Path) -> bool:
    with open_binary(path) as raw:
        _archive, members = _zip(raw, path)
    return HEADER in members or START in members


def _is_log(path: Path) -> bool:
    try:
        if path.suffix == ".eval":
            return _is_eval_log(path)
        return path.suffix == ".json" and _is_json_log(path)
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


def _head(path: Path) -> _Head:
    """A log's task, model, date and epochs, from its header alone."""
    if path.suffix == ".eval":
        with open_binary(path) as raw:
            archive, members = _zip(raw, path)
            name = HEADER if HEADER in members else START if START in members else None
            if name is None:
                raise SuiteError(f"no {HEADER} nor {START} in it (not an Inspect log?)", path)
            where: Where = (path, name)
            header = _object(_member(archive, raw, members[name], path), where, "the header")
    else:
        where = (path, None)
        header = {"eval": _top_level(read_head(path, HEAD_BYTES)).get("eval")}
        if type(header["eval"]) is not dict:  # longer than the first bytes: the whole log
            header = _log_object(path)
    try:
        epochs = get_field(header, "eval.config.epochs")
    except Missing:
        epochs = 1
    return _Head(
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
            data = _member(archive, raw, members[name], path)
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
    samples = log.get("samples", [])
    if type(samples) is not list:
        raise fail((path, None), f"'samples' must be an array, not {type_name(samples)}")
    for number, record in enumerate(samples):
        where: Where = (path, f"samples.{number}")
        if type(record) is not dict:
            raise fail(where, f"a sample must be a JSON object, not {type_name(record)}")
        yield where, record


# --------------------------------------------------------------------------- a sample's parts


def _unicode(text: str, dotted: str, where: Where) -> str:
    """``text`` when it is valid Unicode (the standard decoder keeps a lone surrogate escape,
    which nothing after could write)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise fail(where, f"{quoted(dotted)} is not valid Unicode (a lone surrogate escape)") from None
    return text


def _epoch(record: dict, where: Where) -> int:
    epoch = field_value(record, "epoch", where)
    if type(epoch) is not int:
        raise fail(where, f"'epoch' must be a whole number, not {type_name(epoch)}")
    return epoch


def _targets(record: dict, dotted: str, where: Where) -> tuple[str, ...]:
    """A sample's references: its target, a string or a list of strings."""
    texts = reference_texts(field_value(record, dotted, where), dotted, where)
    for position, text in enumerate(texts):
        _unicode(text, dotted if len(texts) == 1 else f"{dotted}.{position}", where)
    return texts


def _output(record: dict, dotted: str, where: Where) -> str:
    """A sample's output: the field suite.toml names; else ``output.completion``; else (logs
    before inspect_ai 0.3.154) the text parts of the first choice's message, joined by
    newlines as inspect_ai's ``ChatMessage.text`` joins them. No choice at all is an empty
    output, as inspect_ai reads it (a sample that ended in an error or a limit)."""
    if dotted:
        return _unicode(field_text(record, dotted, where), dotted, where)
    try:
        completion = get_field(record, _COMPLETION)
    except Missing:
        pass
    else:
        if type(completion) is not str:
            raise fail(where, f"{quoted(_COMPLETION)} must be a string, not {type_name(completion)}")
        return _unicode(completion, _COMPLETION, where)
    try:
        content = get_field(record, _CONTENT)
    except Missing:
        return ""
    if type(content) is str:
        return _unicode(content, _CONTENT, where)
    if type(content) is not list:
        raise fail(where, f"{quoted(_CONTENT)} must be a string or a list of parts, not {type_name(content)}")
    texts: list[str] = []
    for position, part in enumerate(content):
        at = f"{_CONTENT}.{position}"
        if type(part) is not dict:
            raise fail(where, f"{quoted(at)} must be an object, not {type_name(part)}")
        if part.get("type") == "text":
            texts.append(_unicode(field_text(record, f"{at}.text", where), f"{at}.text", where))
    return "\n".join(texts)


def _source(record: dict, dotted: str, where: Where) -> str | None:
    if not dotted:
        return None
    try:
        value = get_field(record, dotted)
    except Missing:
        return None  # as in a references file: an example may have no source
    if type(value) is not str:
        raise fail(where, f"{quoted(dotted)} must be a string, not {type_name(value)}")
    return _unicode(value, dotted, where)


def _loose_key(raw: object) -> str:
    """An id as `make_references` will key it, to pick each id's lowest epoch (what is no
    id there is refused there, with its message)."""
    return raw if type(raw) is str else str(raw) if type(raw) is int else repr(raw)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Fields:
    """The field paths a suite reads: Inspect's, or what suite.toml's [fields] wrote."""

    id: str
    reference: str
    output: str  # "" is Inspect's own: output.completion, else the first choice's text
    source: str  # "" none

    @classmethod
    def of(cls, settings: SuiteSettings) -> _Fields:
        given = settings.fields_given
        reference = given.get("reference") or given.get("references") or "target"
        return cls(given.get("id", "id"), reference, given.get("output", ""), given.get("source", ""))


def _in_metadata(*dotted: str) -> bool:
    """Whether a field path reads a sample's metadata (a chunked sample keeps it apart)."""
    return any(path.split(".", 1)[0] == "metadata" for path in dotted)


def _samples(path: Path, metadata: bool, first_epoch: bool) -> Iterator[tuple[Where, dict]]:
    if path.suffix == ".eval":
        return _eval_samples(path, metadata, first_epoch)
    return _json_samples(path)


Outputs = dict[int, list[tuple[Where, object, str]]]  # epoch -> (where, id, output) in order


@dataclass
class _Reader:
    """One suite's reads: references from the newest log that reads, runs from any. Where
    that log has one epoch, the pass that reads its references takes its outputs too and
    keeps them for its build (the candidate unless flags say otherwise), so the log is read
    once; an output's error is kept with them, raised only when the build is read."""

    builds: list[ImportedBuild]
    fields: _Fields
    kept: dict[tuple[Path, str], tuple[Outputs, SuiteError | None]] = field(default_factory=dict)

    def references(self) -> References:
        """The newest log's references; where its samples do not read, the newest's that do
        (the broken log's error is raised when it is used, as any log's)."""
        failed: list[SuiteError] = []
        for build in reversed(self.builds):
            try:
                if build.problem is not None:
                    raise build.problem
                return self._references_of(build)
            except SuiteError as exc:
                failed.append(exc)
        raise failed[0]  # a layout has a build: none read, the newest one's error

    def _references_of(self, build: ImportedBuild) -> References:
        """Each sample's target (and source), each id's from its lowest epoch (the target is
        the sample's, whatever the epoch)."""
        path, fields = build.path, self.fields
        keep = len(build.run_files) == 1
        file_hash = file_digest(path)
        read = (fields.id, fields.reference, fields.source) + ((fields.output,) if keep else ())
        rows = []
        outputs: Outputs = {}
        failed: SuiteError | None = None
        for where, record in _samples(path, _in_metadata(*read), first_epoch=not keep):
            raw, epoch = field_value(record, fields.id, where), _epoch(record, where)
            rows.append((epoch, where, raw, _targets(record, fields.reference, where),
                         _source(record, fields.source, where)))
            if keep and failed is None:
                try:
                    outputs.setdefault(epoch, []).append((where, raw, _output(record, fields.output, where)))
                except SuiteError as exc:
                    failed = exc
        lowest: dict[str, int] = {}
        for epoch, _where, raw, _texts, _text_source in rows:
            key = _loose_key(raw)
            lowest[key] = min(lowest.get(key, epoch), epoch)
        chosen = ((where, raw, texts, source) for epoch, where, raw, texts, source in rows
                  if lowest[_loose_key(raw)] == epoch)
        references = make_references(chosen, fields.id, empty_where=(path, None))
        self.kept = {(path, file_hash): (outputs, failed)} if keep else {}
        return references

    def runs(self, build: ImportedBuild) -> list[Run]:
        """One run per epoch, in epoch order."""
        if build.problem is not None:
            raise build.problem
        path, fields = build.path, self.fields
        file_hash = file_digest(path)
        if (path, file_hash) in self.kept:
            by_epoch, failed = self.kept.pop((path, file_hash))
            if failed is not None:
                raise failed
        else:
            by_epoch = {}
            for where, record in _samples(path, _in_metadata(fields.id, fields.output), first_epoch=False):
                raw = field_value(record, fields.id, where)
                by_epoch.setdefault(_epoch(record, where), []).append(
                    (where, raw, _output(record, fields.output, where))
                )
        if not by_epoch:
            raise SuiteError("no samples in this log", path)
        return [
            make_run(rows, path, selector_digest(file_hash, "epoch", str(epoch), fields.id, fields.output), fields.id)
            for epoch, rows in sorted(by_epoch.items())
        ]


# --------------------------------------------------------------------------- listing


def _names(heads: list[tuple[Path, _Head]]) -> list[str]:
    """Each log's build name, model and date in UTC: to the minute, to the second where two
    share a minute, then numbered. The model is its last part (``openai/gpt-4o`` ->
    ``gpt-4o``), cut as `base.model_name` cuts it (lm-eval's names are cut so too)."""

    def label(head: _Head, length: int) -> str:
        return f"{model_name(head.model.rsplit('/', 1)[-1] or head.model)} {head.created[:length]}"

    minutes = [label(head, 16) for _path, head in heads]
    names = [
        label(head, 19) if minutes.count(minute) > 1 else minute
        for minute, (_path, head) in zip(minutes, heads)
    ]
    seen: Counter[str] = Counter()
    numbered = []
    for name in names:
        seen[name] += 1
        numbered.append(f"{name} #{seen[name]}" if names.count(name) > 1 else name)
    return numbered


def _logs(path: Path) -> list[Path]:
    """The logs at ``path``: the file itself, or a folder's ``.eval`` files (a broken one is a
    build that says so) and the ``.json`` files shaped as an EvalLog; not its subfolders."""
    if not path.is_dir():
        if not path.exists():
            raise SuiteError("no such file or folder", path)
        if path.suffix == ".eval" or (path.suffix == ".json" and _is_json_log(path)):
            return [path]
        raise SuiteError("not an Inspect log (a .eval zip or a .json EvalLog)", path)
    try:
        entries = sorted(path.iterdir())
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None
    found = [
        entry for entry in entries
        if not entry.name.startswith(".") and entry.is_file()
        and (entry.suffix == ".eval" or (entry.suffix == ".json" and _is_log(entry)))
    ]
    if not found:
        raise SuiteError("no Inspect logs in this folder (.eval or .json)", path)
    return found


def open_logs(path: Path, settings: SuiteSettings) -> list[Layout]:
    """The suites at ``path``, one per task: each log's header read, nothing more."""
    path = Path(path)
    heads: list[tuple[Path, _Head]] = []
    broken: list[ImportedBuild] = []
    for log in _logs(path):
        try:
            heads.append((log, _head(log)))
        except SuiteError as exc:
            broken.append(ImportedBuild(log.name, log, (log,), "", exc))
    heads.sort(key=lambda item: (item[1].created, item[0].name))
    tasks = sorted({head.task for _log, head in heads}) or [path.stem]
    fields = _Fields.of(settings)
    layouts: list[Layout] = []
    for task in tasks:
        mine = [(log, head) for log, head in heads if head.task == task]
        builds = broken + [
            ImportedBuild(name, log, (log,) * head.epochs, head.created)
            for name, (log, head) in zip(_names(mine), mine)
        ]
        builds.sort(key=lambda build: (build.created, build.name))
        reader = _Reader(builds, fields)
        layouts.append(Layout(
            format=FORMAT.name,
            path=path,
            name=settings.name if settings.name and len(tasks) == 1 else task,
            builds=builds,
            read_references=reader.references,
            read_build=reader.runs,
        ))
    return layouts


def recognise(path: Path) -> bool:
    """A ``.eval`` zip holding an Inspect header, a ``.json`` EvalLog, or a folder holding
    one (looked for in name order, stopping at the first)."""
    path = Path(path)
    try:
        if path.is_dir():
            return any(_is_log(entry) for entry in sorted(path.iterdir())
                       if not entry.name.startswith(".") and entry.suffix in (".eval", ".json"))
    except OSError:
        return False
    return _is_log(path)


FORMAT = Format(
    name="inspect",
    summary="Inspect AI logs: .eval zips (zstd or deflate) and .json, one build per log",
    recognise=recognise,
    open=open_logs,
)
