"""Inspect AI logs (SPEC, "Other tools' outputs (importers)"): ``.eval`` zips and ``.json``.

One log file is read by `inspect_log` (its header, its samples); here, what a sample's
fields hold and the suites a set of logs makes. A build is one log file, its epochs
replicate runs; a folder of logs of several tasks is several suites, one per ``eval.task``.
The references are the newest log's targets (that log's outputs taken on the same pass);
listing reads each log's header and nothing more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import file_digest
from rouge_tui.importers.base import (
    ImportedBuild,
    ImportedSuite,
    Importer,
    Missing,
    Unread,
    Where,
    fail,
    field_text,
    field_value,
    get_field,
    history_order,
    loose_key,
    make_references,
    make_run,
    model_name,
    reference_texts,
    selector_digest,
    source_text,
    unicode_text,
)
from rouge_tui.importers.inspect_log import Head, is_json_log, is_log, log_head, samples
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.toml import SuiteSettings

__all__ = ["IMPORTER"]

_COMPLETION = "output.completion"  # since inspect_ai 0.3.154
_CONTENT = "output.choices.0.message.content"  # before it: the first choice's text parts


# --------------------------------------------------------------------------- a sample's parts


def _epoch(record: dict, where: Where) -> int:
    epoch = field_value(record, "epoch", where)
    if type(epoch) is not int:
        raise fail(where, f"'epoch' must be a whole number, not {type_name(epoch)}")
    return epoch


def _targets(record: dict, dotted: str, where: Where) -> tuple[str, ...]:
    """A sample's references: its target, a string or a list of strings."""
    texts = reference_texts(field_value(record, dotted, where), dotted, where)
    for position, text in enumerate(texts):
        unicode_text(text, quoted(dotted if len(texts) == 1 else f"{dotted}.{position}"), where)
    return texts


def _output(record: dict, dotted: str, where: Where) -> str:
    """A sample's output: the field suite.toml names; else ``output.completion``; else (logs
    before inspect_ai 0.3.154) the text parts of the first choice's message, joined by
    newlines as inspect_ai's ``ChatMessage.text`` joins them. No choice at all is an empty
    output, as inspect_ai reads it (a sample that ended in an error or a limit)."""
    if dotted:
        return unicode_text(field_text(record, dotted, where), quoted(dotted), where)
    try:
        completion = get_field(record, _COMPLETION)
    except Missing:
        pass
    else:
        if type(completion) is not str:
            raise fail(where, f"{quoted(_COMPLETION)} must be a string, not {type_name(completion)}")
        return unicode_text(completion, quoted(_COMPLETION), where)
    try:
        content = get_field(record, _CONTENT)
    except Missing:
        return ""
    if type(content) is str:
        return unicode_text(content, quoted(_CONTENT), where)
    if type(content) is not list:
        raise fail(where, f"{quoted(_CONTENT)} must be a string or a list of parts, not {type_name(content)}")
    texts: list[str] = []
    for position, part in enumerate(content):
        at = f"{_CONTENT}.{position}"
        if type(part) is not dict:
            raise fail(where, f"{quoted(at)} must be an object, not {type_name(part)}")
        if part.get("type") == "text":
            texts.append(unicode_text(field_text(record, f"{at}.text", where), quoted(f"{at}.text"), where))
    return "\n".join(texts)


def _source(record: dict, dotted: str, where: Where) -> str | None:
    if not dotted:
        return None
    text = source_text(record, dotted, where)
    return None if text is None else unicode_text(text, quoted(dotted), where)


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
    unread: Unread = field(default_factory=Unread)  # logs whose targets did not read

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
                self.unread.keep(build.path, build.path, exc)
        raise failed[0]  # a suite listed has a build: none read, the newest one's error

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
        for where, record in samples(path, _in_metadata(*read), first_epoch=not keep):
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
            key = loose_key(raw)
            lowest[key] = min(lowest.get(key, epoch), epoch)
        chosen = ((where, raw, texts, source) for epoch, where, raw, texts, source in rows
                  if lowest[loose_key(raw)] == epoch)
        references = make_references(chosen, fields.id, empty_where=(path, None))
        self.kept = {(path, file_hash): (outputs, failed)} if keep else {}
        return references

    def runs(self, build: ImportedBuild) -> list[Run]:
        """One run per epoch, in epoch order."""
        if build.problem is not None:
            raise build.problem
        path, fields = build.path, self.fields
        file_hash = file_digest(path)
        self.unread.check(path, file_hash)  # its targets did not read: used, it fails
        if (path, file_hash) in self.kept:
            by_epoch, failed = self.kept.pop((path, file_hash))
            if failed is not None:
                raise failed
        else:
            by_epoch = {}
            for where, record in samples(path, _in_metadata(fields.id, fields.output), first_epoch=False):
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


def _names(heads: list[tuple[Path, Head]]) -> list[str]:
    """Each log's build name, model and date in UTC: to the minute, to the second where two
    share a minute, then numbered. The model is its last part (``openai/gpt-4o`` ->
    ``gpt-4o``), cut as `base.model_name` cuts it (lm-eval's names are cut so too)."""

    def label(head: Head, length: int) -> str:
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
        if path.suffix == ".eval" or (path.suffix == ".json" and is_json_log(path)):
            return [path]
        raise SuiteError("not an Inspect log (a .eval zip or a .json EvalLog)", path)
    try:
        entries = sorted(path.iterdir())
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None
    found = [
        entry for entry in entries
        if not entry.name.startswith(".") and entry.is_file()
        and (entry.suffix == ".eval" or (entry.suffix == ".json" and is_log(entry)))
    ]
    if not found:
        raise SuiteError("no Inspect logs in this folder (.eval or .json)", path)
    return found


def open_logs(path: Path, settings: SuiteSettings) -> list[ImportedSuite]:
    """The suites at ``path``, one per task: each log's header read, nothing more."""
    path = Path(path)
    heads: list[tuple[Path, Head]] = []
    broken: list[ImportedBuild] = []
    for log in _logs(path):
        try:
            heads.append((log, log_head(log)))
        except SuiteError as exc:
            broken.append(ImportedBuild(log.name, log, (log,), "", exc))
    heads.sort(key=lambda item: (item[1].created, item[0].name))
    tasks = sorted({head.task for _log, head in heads}) or [path.stem]
    fields = _Fields.of(settings)
    suites: list[ImportedSuite] = []
    for task in tasks:
        mine = [(log, head) for log, head in heads if head.task == task]
        builds = broken + [
            ImportedBuild(name, log, (log,) * head.epochs, head.created)
            for name, (log, head) in zip(_names(mine), mine)
        ]
        builds = history_order(builds)
        reader = _Reader(builds, fields)
        suites.append(ImportedSuite(
            format=IMPORTER.name,
            path=path,
            name=settings.name if settings.name and len(tasks) == 1 else task,
            builds=builds,
            read_references=reader.references,
            read_build=reader.runs,
        ))
    return suites


def recognise(path: Path) -> bool:
    """A ``.eval`` zip holding an Inspect header, a ``.json`` EvalLog, or a folder holding
    one (looked for in name order, stopping at the first)."""
    path = Path(path)
    try:
        if path.is_dir():
            return any(is_log(entry) for entry in sorted(path.iterdir())
                       if not entry.name.startswith(".") and entry.suffix in (".eval", ".json"))
    except OSError:
        return False
    return is_log(path)


IMPORTER = Importer(
    name="inspect",
    summary="Inspect AI logs: .eval zips (zstd or deflate) and .json, one build per log",
    recognise=recognise,
    open=open_logs,
)
