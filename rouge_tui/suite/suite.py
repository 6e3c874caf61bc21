"""Finding a suite on disk and listing its builds; reading the references and the builds
in use. Listing reads no records, so a broken build stops nothing but its own reading."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from rouge_tui.suite.errors import SuiteError, quoted, quoted_list
from rouge_tui.suite.records import References, Run, read_references_file, read_run
from rouge_tui.suite.settings import SuiteSettings, read_suite_settings

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
    """A suite directory as listed: settings read, references file found, builds listed."""

    path: Path
    name: str  # settings.name, else the directory's name
    settings: SuiteSettings
    references_path: Path
    builds: list[BuildEntry]  # ordered by name

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

        With only a candidate named, the baseline is the build just before it in name order;
        with only a baseline named, the candidate is the last build.
        """
        if len(self.builds) < 2:
            found = f"found {len(self.builds)}"
            if self.builds:
                found += ": " + quoted_list([entry.name for entry in self.builds])
            raise SuiteError(
                f"a comparison needs at least two builds, {found}", self.path / "builds"
            )
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
    stem = _stem(name)
    if stem is not None:  # a file build; a directory or FIFO by that name fails on reading
        return BuildEntry(stem, path, (path,))
    if not _is_dir(path):
        return None
    try:
        runs = tuple(path / run for run in _listing(path) if _stem(run) is not None)
    except SuiteError as exc:
        return BuildEntry(name, path, (), exc)
    if not runs:
        problem = SuiteError(
            "build directory holds no run files (*.jsonl, *.jsonl.gz, *.csv or *.parquet)", path
        )
        return BuildEntry(name, path, (), problem)
    return BuildEntry(name, path, runs)


def _list_builds(directory: Path) -> list[BuildEntry]:
    if not os.path.lexists(directory):
        raise SuiteError("missing builds directory", directory)
    if not _is_dir(directory):
        raise SuiteError("not a directory (builds/ holds the build files)", directory)
    entries: dict[str, BuildEntry] = {}
    for name in _listing(directory):
        entry = _entry(directory, name)
        if entry is None:
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
    return [entries[name] for name in sorted(entries)]


def open_suite(path: Path | str) -> Suite:
    """A suite directory listed: settings read and checked, references file found, builds
    listed (none read). Problems of the suite as a whole are a SuiteError; a problem of one
    build is kept in its entry."""
    directory = Path(path)
    if problem := directory_problem(
        directory, "not a directory (a suite is a directory with references.jsonl and builds/)"
    ):
        raise SuiteError(problem, directory)
    settings = read_suite_settings(directory / "suite.toml")
    references = _references_path(directory)
    builds = _list_builds(directory / "builds")
    name = settings.name or directory.name or directory.resolve().name
    return Suite(directory, name, settings, references, builds)


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


def find_suites(path: Path) -> list[Path]:
    """The immediate subdirectories of ``path`` that are suites, sorted by name."""
    path = Path(path)
    try:
        names = _listing(path)
    except SuiteError:
        return []
    return [path / name for name in names if is_suite(path / name)]


def read_references(suite: Suite) -> References:
    """The suite's references, read and checked (field names from its suite.toml)."""
    return read_references_file(suite.references_path, suite.settings.fields)


def read_build(suite: Suite, entry: BuildEntry) -> Build:
    """One build's runs, read and checked; its listing problem, if it has one, is raised."""
    if entry.problem is not None:
        raise entry.problem
    runs = [read_run(path, suite.settings.fields) for path in entry.run_files]
    first = runs[0].outputs
    common = set(first)
    for run in runs[1:]:
        common.intersection_update(run.outputs)
    ids = [key for key in first if key in common]
    partial = {key: None for run in runs for key in run.outputs if key not in common}
    return Build(entry.name, entry.path, runs, ids, list(partial))
