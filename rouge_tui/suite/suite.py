"""Finding a suite on disk and listing its builds; reading the references and the builds
in use. Listing reads no records, so a broken build stops nothing but its own reading.

A suite is the native layout ("Suite on disk"), or another tool's files as an importer
lists them (`rouge_tui.importers`: an `ImportedSuite`); the rest of rouge-tui sees the same `Suite`
either way. The native path imports no importer."""

from __future__ import annotations

import errno
import os
import shlex
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rouge_tui.errors import SuiteError, quoted, quoted_list
from rouge_tui.files import DigestMemo, file_digest
from rouge_tui.importers import NATIVE_FORMATS
from rouge_tui.suite.records import References, Run, read_references_file, read_run
from rouge_tui.suite.toml import SuiteSettings, read_suite_settings

if TYPE_CHECKING:
    from rouge_tui.importers.base import ImportedBuild, ImportedSuite

# Accepted file name endings, longest first so ".jsonl.gz" is tried before ".jsonl".
EXTENSIONS = (".jsonl.gz", ".jsonl", ".csv", ".parquet")
_REFERENCE_NAMES = tuple("references" + ext for ext in EXTENSIONS)


def _stem(name: str) -> str | None:
    """``"x"`` for ``"x.jsonl.gz"``; None for a name without an accepted extension."""
    for ext in EXTENSIONS:
        if name.endswith(ext) and len(name) > len(ext):
            return name[: -len(ext)]
    return None


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:  # missing, a broken link, a loop
        return False


def _listing(directory: Path) -> list[str]:
    """Entry names, sorted, hidden ones (``.DS_Store``, ``._x.jsonl``) left out."""
    try:
        names = os.listdir(directory)
    except OSError as exc:
        raise SuiteError(f"cannot list: {exc.strerror or exc}", directory) from None
    return sorted(name for name in names if not name.startswith("."))


@dataclass(frozen=True)
class BuildEntry:
    """A build as listed under builds/, nothing read yet."""

    name: str  # file name without its extension, or the directory's name
    path: Path
    run_files: tuple[Path, ...]  # one file, or the directory's run files sorted by name
    problem: SuiteError | None = None  # what makes this build (only) unreadable
    imported: ImportedBuild | None = field(default=None, repr=False)  # the importer's, for its layout
    # In a folder of runs, the files named like a run and not one (`_looks_like_one`), said, not compared.
    passed_over: tuple[str, ...] = field(default=(), compare=False)


@dataclass(eq=False)  # identity: comparing 10^5 outputs field by field is never wanted
class Build:
    """A build read: one or more replicate runs of the system over the suite's inputs."""

    name: str
    path: Path
    runs: list[Run] = field(repr=False)
    ids: list[str] = field(repr=False)  # ids present in every run, in the first run's order
    partial: list[str] = field(repr=False)  # ids missing from some runs: left out of pairs


@dataclass
class Suite:
    """A suite as listed: settings read, references file found, builds listed."""

    path: Path
    name: str  # settings.name, else the directory's name (the importer's, imported)
    settings: SuiteSettings
    references_path: Path  # an imported suite: the path it was opened from
    builds: list[BuildEntry]  # in history order: by name (native), else the importer's order
    imported: ImportedSuite | None = field(default=None, repr=False)  # None: the native layout
    # Each imported build's run digests once read (an importer's digests are known only then)
    _digests: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)
    # Its files' digests by `files.Stamp`: this process's, or the cache's (`KeptDigestMemo`)
    digest_memo: DigestMemo = field(default_factory=DigestMemo, repr=False, compare=False)
    passed_over: list[str] = field(default_factory=list, repr=False, compare=False)  # builds/ files like a build, not one

    @property
    def strays(self) -> list[str]:
        """The files of builds/ and of its folders of runs named like a build or a run and
        not read as one (``c.JSONL``, ``d.json``, ``run-4.JSONL``), as ``builds/…`` paths, as
        the listing found them: a report compared the two builds it found, exit 0, with no
        word of them. A README or notes beside them are no stray."""
        return [*(f"builds/{name}" for name in self.passed_over),
                *(f"builds/{entry.path.name}/{name}" for entry in self.builds for name in entry.passed_over)]

    @property
    def named(self) -> bool:
        """Whether the name is the suite's identity (marks, the review log) wherever it lives:
        suite.toml's name, or the task or eval name a harness wrote."""
        return self.settings.name is not None or self.imported is not None

    def build(self, name: str) -> BuildEntry:
        """The build called ``name``; a SuiteError listing the names there are if none is."""
        for entry in self.builds:
            if entry.name == name:
                return entry
        names = quoted_list([entry.name for entry in self.builds])
        raise SuiteError(f"no build named {quoted(name)} (builds: {names})", self.path)

    def pick(
        self, baseline: str | None = None, candidate: str | None = None
    ) -> tuple[BuildEntry, BuildEntry]:
        """Baseline and candidate by name; by default the last build and the one before it.

        With only a candidate named, the baseline is the build just before it in history
        order; with only a baseline named, the candidate is the last build.
        """
        if len(self.builds) < 2:
            found = f"found {len(self.builds)}"
            if self.builds:
                found += ": " + quoted_list([entry.name for entry in self.builds])
            # an imported suite has no builds/: its builds are the harness's files at its path
            where = self.path if self.imported is not None else self.path / "builds"
            if self.imported is None and (others := _not_builds(where)):
                found += (f"; not builds: {quoted_list(others, 3)} (a build is a .jsonl, .jsonl.gz, .csv "
                          "or .parquet file, or a folder of them)")
            raise SuiteError(f"a comparison needs at least two builds, {found}", where)
        cand = self.build(candidate) if candidate is not None else self.builds[-1]
        if baseline is not None:
            base = self.build(baseline)
        else:
            position = self.builds.index(cand)
            if position == 0:
                raise SuiteError(
                    f"no build comes before {quoted(cand.name)} to be the baseline; name one",
                    self.path,
                )
            base = self.builds[position - 1]
        if base is cand:
            raise SuiteError(
                f"baseline and candidate are the same build {quoted(base.name)}", self.path
            )
        return base, cand


def _references_path(directory: Path) -> Path:
    found = [directory / name for name in _REFERENCE_NAMES if os.path.lexists(directory / name)]
    if not found:
        raise SuiteError(
            "missing references file (expected references.jsonl, references.jsonl.gz, "
            "references.csv or references.parquet)",
            directory,
        )
    if len(found) > 1:
        raise SuiteError(
            f"two references files, {found[0].name} and {found[1].name}: keep one", directory
        )
    return found[0]


def _entry(directory: Path, name: str) -> BuildEntry | None:
    """The build an entry of builds/ is, or None when it is no build (notes, a README)."""
    path = directory / name
    folder = _is_dir(path)
    stem = _stem(name)
    if stem is not None and not folder:  # a file build; a FIFO by that name fails on reading
        return BuildEntry(stem, path, (path,))
    # A folder is a build of replicate runs whatever its name: `import` names one after its
    # build, and a prompt file's label made it "… prompts.csv".
    if not folder:
        return None
    try:
        names = _listing(path)
    except SuiteError as exc:
        return BuildEntry(name, path, (), exc)
    runs = tuple(path / run for run in names if _stem(run) is not None)
    if not runs:
        problem = SuiteError(
            "build directory holds no run files (*.jsonl, *.jsonl.gz, *.csv or *.parquet)", path
        )
        return BuildEntry(name, path, (), problem)
    return BuildEntry(name, path, runs, passed_over=tuple(run for run in names if _looks_like_one(path, run)))


# Endings of a file meant as a build or a run and not read as one: said, not passed over.
_NEAR = (*EXTENSIONS, ".json", ".json.gz", ".ndjson", ".ndjson.gz", ".tsv", ".jsonl.bz2", ".jsonl.xz", ".jsonl.zst")


def _looks_like_one(folder: Path, name: str) -> bool:
    """Whether ``folder``'s ``name`` is a file named like a build or a run that is not read
    as one (a name that differs by case, a stray export)."""
    return _stem(name) is None and name.lower().endswith(_NEAR) and not _is_dir(folder / name)


def _not_builds(directory: Path) -> list[str]:
    """The files in builds/ that are no build (a name that differs by case, a stray export):
    said when too few builds are left to compare, where one of them was meant."""
    try:
        return [name for name in _listing(directory) if _entry(directory, name) is None]
    except SuiteError:
        return []


def _list_builds(directory: Path) -> tuple[list[BuildEntry], list[str]]:
    """The builds listed, in name order, and the files passed over that look like one (`_looks_like_one`)."""
    if not os.path.lexists(directory):
        raise SuiteError("missing builds directory", directory)
    if not _is_dir(directory):
        raise SuiteError("not a directory (builds/ holds the build files)", directory)
    entries: dict[str, BuildEntry] = {}
    passed_over = []
    for name in _listing(directory):
        entry = _entry(directory, name)
        if entry is None:
            if _looks_like_one(directory, name):
                passed_over.append(name)
            continue
        if entry.name in entries:  # x.jsonl and x.csv: neither is read, both are listed
            first = entries[entry.name]
            problem = SuiteError(
                f"two builds named {quoted(entry.name)}: {quoted(first.path.name)} and "
                f"{quoted(name)}",
                directory,
            )
            entry = BuildEntry(entry.name, first.path, first.run_files + entry.run_files, problem)
        entries[entry.name] = entry
    return [entries[name] for name in sorted(entries)], passed_over


NOT_A_SUITE = "not a directory (a suite is a directory with references.jsonl and builds/)"


@dataclass(frozen=True)
class SuiteRef:
    """Where a suite is: a path, the format that reads it (None: found by its shape) and,
    where an importer finds several suites at one path, the one's name."""

    path: Path
    format: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.path.name or str(self.path)

    def __str__(self) -> str:
        return str(self.path) if self.name is None else f"{self.path} ({self.name})"


def open_suite(path: Path | str | SuiteRef, format: str | None = None, name: str | None = None) -> Suite:
    """A suite listed: settings read and checked, references found, builds listed (none
    read). ``format`` (``--format``) beats suite.toml's; with neither, a native suite is
    one, else the importers that recognise the files' shape say which (several: name one).
    ``name`` picks one where an importer finds several suites at ``path``. Problems of the
    suite as a whole are a SuiteError; a problem of one build is kept in its entry."""
    if isinstance(path, SuiteRef):
        path, format, name = path.path, format or path.format, name or path.name
    target = Path(path)
    settings = _settings_at(target)
    format = format or settings.format
    if format in NATIVE_FORMATS or (format is None and is_suite(target)):
        return _named(_open_native(target, settings), name)
    if format is None:
        format = _only_format(target)
        if format is None:  # nothing recognises it: what a native suite lacks, as ever
            if name is not None and len(children := named_children(target, name)) == 1:
                return children[0]  # a folder of suites, one named (as the app lists them)
            return _named(_open_native(target, settings), name)
    return _open_imported(target, settings, format, name)


def named_children(folder: Path, name: str) -> list[Suite]:
    """The native suites in subfolders of ``folder`` named ``name`` (the folder's name when
    its suite.toml gives none), else the one in the subfolder called ``name`` (the app lists
    a suite by both: "Incident summaries in incident-…"): what `--suite-name` picks in a
    folder of suites, when it is one; none where ``folder`` cannot be listed."""
    try:
        subfolders = [folder / sub for sub in _listing(folder)]
    except SuiteError:
        return []
    named, in_folder = [], []
    for path in subfolders:
        try:
            suite = open_suite(path) if is_suite(path) else None
        except SuiteError:  # a broken one is no other's business
            continue
        if suite is not None and suite.name == name:
            named.append(suite)
        elif suite is not None and path.name == name:
            in_folder.append(suite)
    return named or in_folder


def _named(suite: Suite, name: str | None) -> Suite:
    """``suite``, when ``name`` (``--suite-name``) is None or its name: a native folder holds
    one suite, and a name it does not have is refused as a harness's folder refuses it."""
    if name is not None and name != suite.name:
        raise SuiteError(f"no suite named {quoted(name)} here (suites: {quoted_list([suite.name])})", suite.path)
    return suite


def _settings_at(target: Path) -> SuiteSettings:
    """suite.toml's settings where ``target`` is a folder (a file, another tool's log, has
    none); a path that is neither a SuiteError."""
    problem = directory_problem(target, NOT_A_SUITE)
    if problem == NOT_A_SUITE:
        return SuiteSettings()
    if problem:
        raise SuiteError(problem, target)
    return read_suite_settings(target / "suite.toml")


def _open_native(directory: Path, settings: SuiteSettings) -> Suite:
    if not _is_dir(directory):
        raise SuiteError(NOT_A_SUITE, directory)
    references = _references_path(directory)
    builds, passed_over = _list_builds(directory / "builds")
    name = settings.name or directory.name or directory.resolve().name
    return Suite(directory, name, settings, references, builds, passed_over=passed_over)


def _only_format(target: Path) -> str | None:
    """The one format whose files ``target`` has the shape of; None: none; several, a
    SuiteError asking for --format."""
    from rouge_tui import importers

    found = importers.recognise(target)
    if len(found) > 1:
        raise SuiteError(f"reads as several formats ({', '.join(found)}): name one with --layout NAME "
                         "or suite.toml's format", target)
    return found[0] if found else None


def _imported_suites(target: Path, settings: SuiteSettings, format: str) -> list[ImportedSuite]:
    from rouge_tui import importers
    from rouge_tui.importers.base import parse_path

    for key, dotted in settings.fields_given.items():  # the native layout takes them whole
        try:
            parse_path(dotted)
        except ValueError as exc:
            raise SuiteError(f"fields.{key}: {exc}", target / "suite.toml") from None
    suites = importers.get(format).open(target, settings)
    if not suites:
        raise SuiteError(f"no {format} suite found here", target)
    return suites


NAME_SHOWN = 200  # characters of a suite's name in a message that asks for one


def _open_imported(target: Path, settings: SuiteSettings, format: str, name: str | None) -> Suite:
    suites = _imported_suites(target, settings, format)
    # The names whole (up to NAME_SHOWN): the user copies one into --suite-name.
    if name is not None:
        picked = [suite for suite in suites if suite.name == name]
        if not picked:
            names = quoted_list([suite.name for suite in suites], limit=NAME_SHOWN)
            raise SuiteError(f"no suite named {quoted(name, NAME_SHOWN)} here (suites: {names})", target)
        suites = picked[:1]
    if len(suites) > 1:
        names = quoted_list([suite.name for suite in suites], limit=NAME_SHOWN)
        raise SuiteError(f"holds {len(suites)} suites ({names}): name one with --suite-name NAME", target)
    suite = suites[0]
    from rouge_tui.importers.base import told_apart

    names = told_apart([b.name for b in suite.builds], [b.path.name for b in suite.builds])
    builds = [BuildEntry(name, b.path, b.run_files, b.problem, b) for name, b in zip(names, suite.builds)]
    return Suite(target, settings.name or suite.name, settings, suite.path, builds, suite)


def list_suites(path: Path | str, format: str | None = None) -> list[SuiteRef]:
    """The suites at ``path``: itself (a native suite, or one or more an importer finds
    there), else its immediate subfolders that are (natives sorted by name, each harness
    folder's suites as its importer lists them). ``format`` (``--format``) picks which of
    them are read, and how. A subfolder of a harness's shape that cannot be opened is
    listed, its problem said when it is opened."""
    path = Path(path)
    here = _suites_here(path, format, strict=True)
    if here:
        return here
    try:
        names = _listing(path)
    except SuiteError:
        return []
    found = [ref for name in names for ref in _suites_here(path / name, format, strict=False)]
    if not found and format is not None and format not in NATIVE_FORMATS:
        _imported_suites(path, _settings_at(path), format)  # the format's own word for what it did not find
    return found


def _suites_here(path: Path, format: str | None, strict: bool) -> list[SuiteRef]:
    """The suites ``path`` itself is ([] none): a native suite, or what the format its
    suite.toml names, or the one format that recognises it (``format``, where given: it
    must recognise it or be suite.toml's) lists there. ``strict`` (the path given): its
    problems raised; else (a subfolder) one that cannot be told is no suite, and one of a
    harness's shape that cannot be opened is listed alone."""
    if format is None and is_suite(path):
        return [SuiteRef(path)]
    try:
        settings = _settings_at(path)
    except SuiteError:
        if strict:
            raise
        return []
    chosen = format or settings.format
    if chosen in NATIVE_FORMATS:
        return [SuiteRef(path, chosen)] if is_suite(path) else []
    try:
        if chosen is None:
            chosen = _only_format(path)
        elif chosen != settings.format and not _recognises(chosen, path):
            return []
        if chosen is None:
            return []
        suites = _imported_suites(path, settings, chosen)
    except SuiteError:
        if strict:
            raise
        return [SuiteRef(path, chosen)]
    if len(suites) == 1:
        return [SuiteRef(path, chosen)]
    return [SuiteRef(path, chosen, suite.name) for suite in suites]


def _recognises(format: str, path: Path) -> bool:
    from rouge_tui import importers

    return importers.get(format).recognise(path)


def directory_problem(path: Path, not_one: str = "not a directory") -> str | None:
    """What keeps ``path`` from being a folder rouge-tui can read in, in words (None: nothing):
    missing, a broken link, a link loop, not a directory (``not_one``), or not to be
    reached or entered (a folder of mode 000 holds a suite nobody may read, not none)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of symbolic links"
        if exc.errno == errno.ENOENT:
            return "a broken link (its target does not exist)" if os.path.islink(path) else "no such directory"
        return f"cannot reach: {exc.strerror or exc}"
    if not stat.S_ISDIR(mode):
        return not_one
    try:
        os.stat(os.path.join(path, "."))  # the folder may be entered (its x bit, for us)
    except OSError as exc:
        return f"cannot enter the folder: {exc.strerror or exc}"
    return None


def is_suite(path: Path) -> bool:
    """True when ``path`` is a directory with a references file and a builds/ directory."""
    path = Path(path)
    if not _is_dir(path) or not _is_dir(path / "builds"):
        return False
    return any(os.path.lexists(path / name) for name in _REFERENCE_NAMES)


def read_references(suite: Suite, like: Mapping[str, str] | None = None) -> References:
    """The suite's references, read and checked (field names from its suite.toml); ``like``:
    ids held already, whose strings they keep (`read_references_file`)."""
    if suite.imported is not None:
        return suite.imported.read_references()
    return read_references_file(suite.references_path, suite.settings.fields, like=like, memo=suite.digest_memo)


def _runs(suite: Suite, entry: BuildEntry, like: Sequence[Mapping[str, object]] = ()) -> list[Run]:
    if entry.problem is not None:
        raise entry.problem
    if suite.imported is None:
        return [read_run(path, suite.settings.fields, like=like[min(r, len(like) - 1)] if like else None,
                         memo=suite.digest_memo) for r, path in enumerate(entry.run_files)]
    runs = suite.imported.read_build(entry.imported)
    if not runs:
        raise SuiteError("no runs in this build", entry.path)
    suite._digests[entry.name] = [run.digest for run in runs]
    return runs


def read_build(suite: Suite, entry: BuildEntry, like: Sequence[Mapping[str, object]] = ()) -> Build:
    """One build's runs, read and checked; its listing problem, if it has one, is raised.
    ``like``: what was read before, a mapping a run (the last for the runs past it), whose
    ids and equal outputs the runs keep (`read_run`)."""
    runs = _runs(suite, entry, like)
    first = runs[0].outputs
    if len(runs) == 1:  # the usual build: one run, every id in it
        return Build(entry.name, entry.path, runs, list(first), [])
    common = set(first)
    for run in runs[1:]:
        common.intersection_update(run.outputs)
    ids = [key for key in first if key in common]
    partial = {key: None for run in runs for key in run.outputs if key not in common}
    return Build(entry.name, entry.path, runs, ids, list(partial))


def build_digests(suite: Suite, entry: BuildEntry, fresh: bool = False) -> list[str]:
    """Each run's digest as the build's bytes are now: what its `Run` digests are once read,
    for cache keys looked up before reading. A native run file's bytes are digested (no
    record read), or known by its `files.Stamp` (``suite.digest_memo``), which a change to
    the file moves; an imported build's digests are the importer's (they pick one build out
    of a file that may hold several), known once it has been read here, else (or
    ``fresh``: to tell whether it changed) read for them. A SuiteError when unreadable."""
    if suite.imported is None:
        return [file_digest(path, suite.digest_memo) for path in entry.run_files]
    if fresh or entry.name not in suite._digests:
        _runs(suite, entry)
    return list(suite._digests[entry.name])


def references_digest(suite: Suite) -> str:
    """What `read_references` would give as the references' digest, without reading the
    native file's records."""
    if suite.imported is None:
        return file_digest(suite.references_path, suite.digest_memo)
    return read_references(suite).digest


class NewestUnreadable(SuiteError):
    """The newest pair, which the reader did not pick, cannot be read (the night's build is
    often the broken one): ``instead``, the two newest builds that can be (None: no two),
    the way on, which the message gives as flags to type; ``reason``, what went wrong;
    ``build``, the build that cannot be read."""

    def __init__(self, exc: SuiteError, instead: tuple[str, str] | None, build: str) -> None:
        way = (f"{_flag('baseline', instead[0])} {_flag('candidate', instead[1])} compares the two newest "
               "builds that can be read" if instead else "no other two builds of the suite can be read")
        super().__init__(f"{exc.message} ({way})", exc.path, exc.line)
        self.reason = str(exc)
        self.instead = instead
        self.build = build


def readable_pair(suite: Suite, broken: BuildEntry) -> tuple[str, str] | None:
    """The two newest builds but ``broken`` that read without error, older first: each is
    read whole to know (only when the newest pair cannot be)."""
    found: list[str] = []
    for entry in reversed(suite.builds):
        if entry is broken or entry.problem is not None:
            continue
        try:
            read_build(suite, entry)
        except SuiteError:
            continue
        found.append(entry.name)
        if len(found) == 2:
            return found[1], found[0]
    return None


def _flag(name: str, build: str) -> str:
    """``--name build`` as a shell takes it (``--name=-x`` where argparse would take ``-x``
    for a flag)."""
    value = shlex.quote(build)
    return f"--{name}={value}" if value.startswith("-") else f"--{name} {value}"
