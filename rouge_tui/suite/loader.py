"""Finding and loading a suite: its settings, references and builds (each one or more runs)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from rouge_tui.forking import Forked, ForkFailed
from rouge_tui.suite.errors import SuiteError, show_id, show_names
from rouge_tui.suite.records import (
    EXTENSIONS,
    read_reference_records,
    read_run,
    split_extension,
)
from rouge_tui.suite.settings import Settings, read_settings

__all__ = [
    "Build",
    "Run",
    "Suite",
    "find_suites",
    "is_suite",
    "load_suite",
    "reference_fingerprint",
]

_REFERENCE_NAMES = tuple("references" + ext for ext in EXTENSIONS)
_FINGERPRINT_TAG = b"rouge-tui references v1\n"
# From this size of references file, it is read in a forked process beside the builds.
FORK_MIN_BYTES = 8 << 20


@dataclass(eq=False)  # identity: comparing 10^5 outputs field by field is never wanted
class Run:
    """One run of a build: ``id -> output`` in file order."""

    path: Path
    outputs: dict[str, str] = field(repr=False)
    # `records.read_run`'s digest of the file; None for runs not read from one.
    digest: str | None = None


@dataclass(eq=False)  # identity: comparing 10^5 outputs field by field is never wanted
class Build:
    """A build: one or more replicate runs of the system over the suite's inputs."""

    name: str
    path: Path
    runs: list[Run] = field(repr=False)
    ids: list[str] = field(repr=False)  # ids present in every run, in the first run's order
    # ids missing from some runs: reported, left out of paired figures
    partial_ids: list[str] = field(repr=False)

    def output(self, id: str, run: int = 0) -> str:
        """The output for ``id`` in run ``run`` (KeyError if that run lacks it)."""
        return self.runs[run].outputs[id]


@dataclass(eq=False)  # identity: comparing 10^5 outputs field by field is never wanted
class Suite:
    """A loaded suite; every file read and checked, nothing scored yet."""

    path: Path
    name: str  # settings.name, else the directory's name
    settings: Settings
    # id -> references in listed order (empty ones kept)
    references: dict[str, tuple[str, ...]] = field(repr=False)
    # id -> other fields of its record (only ids that have some)
    reference_extra: dict[str, dict] = field(repr=False)
    # ids whose references are all empty after strip
    empty_reference_ids: list[str] = field(repr=False)
    builds: list[Build] = field(repr=False)  # ordered by name
    fingerprint: str  # sha256 of the reference set's content, see reference_fingerprint

    def build(self, name: str) -> Build:
        """The build called ``name``; a SuiteError listing the available names if none is."""
        for build in self.builds:
            if build.name == name:
                return build
        raise SuiteError(
            f"no build named {show_id(name)} (builds: {show_names([b.name for b in self.builds])})",
            self.path,
        )

    def pick(
        self, baseline: str | None = None, candidate: str | None = None
    ) -> tuple[Build, Build]:
        """Baseline and candidate by name; by default the last build and the one before it.

        With only a candidate named, the baseline is the build just before it in name order;
        with only a baseline named, the candidate is the last build.
        """
        if len(self.builds) < 2:
            raise SuiteError(
                f"a comparison needs at least two builds, found {len(self.builds)}"
                + (f": {show_names([b.name for b in self.builds])}" if self.builds else ""),
                self.path / "builds",
            )
        cand = self.build(candidate) if candidate is not None else self.builds[-1]
        if baseline is not None:
            base = self.build(baseline)
        else:
            position = next(i for i, build in enumerate(self.builds) if build is cand)
            if position == 0:
                raise SuiteError(
                    f"no build comes before {show_id(cand.name)} to be the baseline; name one",
                    self.path,
                )
            base = self.builds[position - 1]
        if base is cand:
            raise SuiteError(
                f"baseline and candidate are the same build {show_id(base.name)}", self.path
            )
        return base, cand


def reference_fingerprint(references: dict[str, tuple[str, ...]]) -> str:
    """sha256 hex over the ``(id, references)`` pairs in id order.

    Canonical, so the same reference set gives the same print whatever its file format,
    record order, key order or JSON escaping; extra fields (like ``input``) do not count.
    Each string enters length-prefixed (``len:text``), so no two sets share an encoding.
    """
    digest = hashlib.sha256(_FINGERPRINT_TAG)
    parts: list[str] = []
    for key in sorted(references):
        texts = references[key]
        if len(texts) == 1:
            parts.append(f"{len(key)}:{key}1:{len(texts[0])}:{texts[0]}")
        else:
            parts.append(f"{len(key)}:{key}{len(texts)}:")
            parts.extend(f"{len(text)}:{text}" for text in texts)
        if len(parts) >= 4096:
            digest.update("".join(parts).encode("utf-8", "surrogatepass"))
            parts.clear()
    digest.update("".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat`` (following links) or None for a missing path, a broken link or a loop."""
    try:
        return os.stat(path)
    except OSError:
        return None


def _is_dir(path: Path) -> bool:
    found = _stat(path)
    return found is not None and stat.S_ISDIR(found.st_mode)


def _listing(directory: Path) -> list[str]:
    """Entry names of a directory, sorted, hidden ones (``.DS_Store``, ``._x.jsonl``) left out."""
    try:
        names = os.listdir(directory)
    except OSError as exc:
        raise SuiteError(f"cannot list: {exc.strerror or exc}", directory) from None
    return sorted(name for name in names if not name.startswith("."))


def _reference_path(suite_dir: Path) -> Path:
    found = [suite_dir / name for name in _REFERENCE_NAMES if os.path.lexists(suite_dir / name)]
    if not found:
        raise SuiteError(
            "missing references file (expected references.jsonl, references.jsonl.gz "
            "or references.csv)",
            suite_dir,
        )
    if len(found) > 1:
        raise SuiteError(
            f"two references files, {found[0].name} and {found[1].name}: keep one", suite_dir
        )
    return found[0]


def _make_build(name: str, path: Path, runs: list[Run]) -> Build:
    first = runs[0].outputs
    if len(runs) == 1:
        return Build(name, path, runs, list(first), [])
    common = set(first)
    for run in runs[1:]:
        common.intersection_update(run.outputs)
    ids = [key for key in first if key in common]
    partial: dict[str, None] = {}
    for run in runs:
        for key in run.outputs:
            if key not in common:
                partial[key] = None
    return Build(name, path, runs, ids, list(partial))


def build_sources(builds_dir: Path) -> dict[str, tuple[Path, list[Path]]]:
    """The builds under ``builds_dir`` by name, sorted: (the build's path, its run files).

    The one definition of which files make a build; ``load_suite`` reads them and the
    analysis snapshot hashes exactly them.
    """
    found = _stat(builds_dir)
    if found is None:
        raise SuiteError("missing builds directory", builds_dir)
    if not stat.S_ISDIR(found.st_mode):
        raise SuiteError("not a directory (builds/ holds the build files)", builds_dir)
    sources: dict[str, tuple[Path, list[Path]]] = {}
    for entry in _listing(builds_dir):
        path = builds_dir / entry
        split = split_extension(entry)
        if split is not None:
            # A file build; a directory (or a FIFO, a broken link) here is reported on read.
            name, files = split[0], [path]
        elif _is_dir(path):
            runs = [path / run for run in _listing(path) if split_extension(run) is not None]
            if not runs:
                raise SuiteError(
                    "build directory holds no run files (*.jsonl, *.jsonl.gz or *.csv)", path
                )
            name, files = entry, runs
        else:
            continue  # README, notes and other files are not builds
        if name in sources:
            raise SuiteError(
                f"two builds named {show_id(name)}: {sources[name][0].name} and {entry}", builds_dir
            )
        sources[name] = (path, files)
    return {name: sources[name] for name in sorted(sources)}


def _read_builds(
    sources: dict[str, tuple[Path, list[Path]]], settings: Settings
) -> list[Build]:
    builds = []
    for name, (path, files) in sources.items():
        runs = [Run(file, *read_run(file, settings.fields)) for file in files]
        builds.append(_make_build(name, path, runs))
    return builds


def _read_references(
    path: Path, settings: Settings
) -> tuple[dict[str, tuple[str, ...]], dict[str, dict], list[str], str]:
    """References, their records' other fields, the blank ones and the fingerprint."""
    references, extra = read_reference_records(path, settings.fields)
    empty = [key for key, texts in references.items() if not any(map(str.strip, texts))]
    return references, extra, empty, reference_fingerprint(references)


def load_suite(path: str | Path) -> Suite:
    """Read and check a whole suite directory; any problem is a one-line SuiteError.

    Errors are reported in reading order: the references first, then the builds. On a big
    suite the references are read (and fingerprinted) in a forked process while this one
    reads the builds (`forking`); if that process fails, they are read here, so the error
    is the one a plain read gives.
    """
    suite_dir = Path(path)
    found = _stat(suite_dir)
    if found is None:
        raise SuiteError("no such directory", suite_dir)
    if not stat.S_ISDIR(found.st_mode):
        raise SuiteError(
            "not a directory (a suite is a directory with references.jsonl and builds/)", suite_dir
        )
    settings = read_settings(suite_dir / "suite.toml")
    reference_path = _reference_path(suite_dir)
    try:
        sources: dict[str, tuple[Path, list[Path]]] | None = build_sources(suite_dir / "builds")
    except SuiteError as exc:
        sources, later = None, exc  # reported after the references', as in reading order
    job = None
    found = _stat(reference_path)
    if sources and found is not None and found.st_size >= FORK_MIN_BYTES:
        job = Forked.start(_read_references, reference_path, settings)
    try:
        builds: list[Build] = []
        if sources is not None:
            try:
                builds = _read_builds(sources, settings)
            except SuiteError as exc:
                later = exc
                sources = None
        references = None
        if job is not None:
            with contextlib.suppress(ForkFailed):
                references = job.result()
        if references is None:
            references = _read_references(reference_path, settings)
    finally:
        if job is not None:
            job.cancel()
    if sources is None:
        raise later
    references_, extra, empty, fingerprint = references
    return Suite(
        path=suite_dir,
        name=settings.name or suite_dir.name or suite_dir.resolve().name,
        settings=settings,
        references=references_,
        reference_extra=extra,
        empty_reference_ids=empty,
        builds=builds,
        fingerprint=fingerprint,
    )


def is_suite(path: Path) -> bool:
    """True when ``path`` is a directory with a references file and a builds/ directory."""
    path = Path(path)
    if not _is_dir(path) or not _is_dir(path / "builds"):
        return False
    return any(_stat(path / name) is not None for name in _REFERENCE_NAMES)


def find_suites(path: Path) -> list[Path]:
    """The immediate subdirectories of ``path`` that are suites, sorted by name."""
    path = Path(path)
    try:
        names = _listing(path)
    except SuiteError:
        return []
    return [path / name for name in names if is_suite(path / name)]
