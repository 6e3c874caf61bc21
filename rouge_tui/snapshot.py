"""Analysis snapshots: a whole comparison kept in the cache, keyed by the raw bytes of its inputs.

Re-opening a big suite should not parse 300,000 JSON lines and recompute 100,000 change
signals just to show the same ranking again. After an analysis is computed, its comparison
(ranked ids, F arrays, delta, signals, build stats, interval, verdict, pairing lists, partial
ids) and the reference fingerprint are stored under a key made of the sha256 of the raw bytes
of every file the suite loader reads (suite.toml, the references, every run file of every
build), the scoring settings, the build pair and the tool version. Computing the key needs no
parsing: about 0.1 s for 90 MB.

Every build's files count, not only the pair's: a snapshot then also vouches that the whole
suite loaded cleanly, so a report that skips loading it fails exactly when a cold one would.

An entry is a magic string, a format number, the sha256 of its key and payload, then a small
JSON header and the raw arrays; a truncated, corrupt, foreign or other-key entry is ignored
(and removed) and the analysis is computed again, never trusted. Writes are atomic. Nothing
here imports Textual.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import struct
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rouge_tui import __version__
from rouge_tui.compare import BuildStats, Comparison
from rouge_tui.digests import length_prefixed
from rouge_tui.scoring import Analysis, Progress, ScoreSettings, analyse, resolve_settings
from rouge_tui.state import (
    ScoreCache,
    UserDefaults,
    atomic_write_bytes,
    cache_dir,
    load_user_defaults,
    mark_used,
    prune_store,
)
from rouge_tui.suite import Build, Run, Settings, Suite, SuiteError, load_suite, read_settings

# The loader's own listing rules, so the key covers exactly the files `load_suite` reads.
from rouge_tui.suite.loader import _is_dir, _reference_path, build_sources

__all__ = [
    "Opened",
    "Snapshot",
    "SnapshotError",
    "SnapshotStore",
    "SuiteFiles",
    "attach_texts",
    "decode_snapshot",
    "encode_snapshot",
    "list_suite",
    "open_analysis",
    "shell_suite",
    "snapshot_key",
    "unchanged",
]

MAGIC = b"rouge-tui-snapshot\x00"
FORMAT = 1
_HEAD = struct.Struct("<HQ")  # format number, header length
_ARRAYS = (("baseline_f", "<f8"), ("candidate_f", "<f8"), ("delta", "<f8"), ("signals", "u1"))

# (path, device, inode, size, mtime_ns, ctime_ns) of a file, or None when it is absent
Stamp = tuple[str, int, int, int, int, int] | None


class SnapshotError(ValueError):
    """A snapshot entry that cannot be trusted (truncated, corrupt, foreign or another key's)."""


# --------------------------------------------------------------------------- the suite's files


@dataclass
class SuiteFiles:
    """Which files `load_suite` would read for a suite, with their stat stamps.

    Made by `list_suite` without parsing any records; ``digest`` (the sha256 of every file's
    raw bytes, in a fixed order) is computed on first use and kept.
    """

    path: Path
    name: str
    settings: Settings
    references: Path
    builds: dict[str, list[Path]]  # build name -> run files, in the loader's order
    build_paths: dict[str, Path]
    stamps: list[Stamp] = field(repr=False)
    _digest: str | None = field(default=None, repr=False)

    def files(self) -> list[tuple[str, Path]]:
        """Every file the loader reads, each with a role label that enters the key."""
        found = [("suite.toml", self.path / "suite.toml"), ("references", self.references)]
        for name, runs in self.builds.items():
            found.extend((f"build\x00{name}", run) for run in runs)
        return found

    @property
    def digest(self) -> str:
        """sha256 over (role, file name, size, sha256 of the bytes) of every file."""
        if self._digest is None:
            files = self.files()
            # hashlib releases the GIL on big buffers: two files at a time use both cores.
            with ThreadPoolExecutor(max_workers=2) as pool:
                contents = list(pool.map(_file_digest, [path for _, path in files]))
            parts = [
                part
                for (role, path), content in zip(files, contents)
                for part in (role, path.name, content)
            ]
            self._digest = length_prefixed(parts, b"rouge-tui suite files v1\n")
        return self._digest


def _stamp(path: Path) -> Stamp:
    """What identifies one version of a file without reading it; None when it is absent."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(found.st_mode):
        # A directory or a FIFO where a file belongs: leave it to the loader to explain.
        raise SuiteError("not a regular file", path)
    return (
        str(path),
        found.st_dev,
        found.st_ino,
        found.st_size,
        found.st_mtime_ns,
        found.st_ctime_ns,
    )


def _file_digest(path: Path) -> str:
    """sha256 of a file's raw bytes ("absent" for a missing optional file like suite.toml)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except FileNotFoundError:
        return "absent"


def list_suite(path: str | Path) -> SuiteFiles:
    """The files of a suite and their stamps, without reading any records.

    Raises SuiteError or OSError when the directory is not a well-formed suite; callers then
    use `load_suite`, whose message says what is wrong, so errors read as they always did.
    """
    suite_dir = Path(path)
    if not _is_dir(suite_dir):
        raise SuiteError("not a directory", suite_dir)
    stamps: list[Stamp] = [_stamp(suite_dir / "suite.toml")]
    settings = read_settings(suite_dir / "suite.toml")
    references = _reference_path(suite_dir)
    sources = build_sources(suite_dir / "builds")
    builds = {name: files for name, (_, files) in sources.items()}
    build_paths = {name: path for name, (path, _) in sources.items()}
    files = SuiteFiles(
        path=suite_dir,
        name=settings.name or suite_dir.name or suite_dir.resolve().name,
        settings=settings,
        references=references,
        builds=builds,
        build_paths=build_paths,
        stamps=stamps,
    )
    files.stamps.extend(_stamp(file) for _, file in files.files()[1:])
    return files


def unchanged(files: SuiteFiles) -> bool:
    """True when the suite still lists the same files with the same stamps as when listed.

    Checked after a load, so an analysis is only stored (or a snapshot only trusted next to
    texts) when the files did not move while they were hashed and read.
    """
    try:
        again = list_suite(files.path)
    except (SuiteError, OSError):
        return False
    return again.files() == files.files() and again.stamps == files.stamps


def shell_suite(files: SuiteFiles, fingerprint: str = "") -> Suite:
    """A `Suite` with names, settings and run files but no texts: enough to pick the build
    pair, resolve settings and show a snapshot, never enough to score or diff."""
    builds = [
        Build(name, files.build_paths[name], [Run(run, {}) for run in runs], [], [])
        for name, runs in files.builds.items()
    ]
    return Suite(
        path=files.path,
        name=files.name,
        settings=files.settings,
        references={},
        reference_extra={},
        empty_reference_ids=[],
        builds=builds,
        fingerprint=fingerprint,
    )


def snapshot_key(files: SuiteFiles, baseline: str, candidate: str, settings: ScoreSettings) -> str:
    """The cache key of one analysis: files' bytes, build pair, settings and tool version."""
    return ScoreCache.key(
        "analysis-snapshot",
        str(FORMAT),
        settings.metric,
        settings.tokenizer,
        "stem" if settings.stem else "nostem",
        float(settings.k).hex(),
        baseline,
        candidate,
        files.digest,
    )


# --------------------------------------------------------------------------- the entry


@dataclass(frozen=True)
class Snapshot:
    """What is stored: the comparison and the reference fingerprint it was computed against."""

    fingerprint: str
    comparison: Comparison


def _stats_json(stats: BuildStats) -> dict[str, Any]:
    return {
        "name": stats.name,
        "runs": stats.runs,
        "n": stats.n,
        "mean": stats.mean,
        "band": list(stats.band),
        "band_source": stats.band_source,
        "run_means": list(stats.run_means),
    }


def _stats(data: dict[str, Any]) -> BuildStats:
    return BuildStats(
        name=_str(data["name"]),
        runs=_int(data["runs"]),
        n=_int(data["n"]),
        mean=_float(data["mean"]),
        band=_pair(data["band"]),
        band_source=_str(data["band_source"]),
        run_means=tuple(_float(v) for v in data["run_means"]),
    )


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise SnapshotError(f"expected a string, found {type(value).__name__}")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SnapshotError(f"expected an integer, found {type(value).__name__}")
    return value


def _float(value: object) -> float:
    if not isinstance(value, float):
        raise SnapshotError(f"expected a number, found {type(value).__name__}")
    return value


def _pair(value: object) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise SnapshotError("expected a pair of numbers")
    return (_float(value[0]), _float(value[1]))


def _strs(value: object) -> list[str]:
    if not isinstance(value, list) or not set(map(type, value)) <= {str}:
        raise SnapshotError("expected a list of strings")
    return value


def _digest(key: str, payload: bytes | memoryview) -> bytes:
    """Binds an entry to its key: the same payload under another key does not check out."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass") + b"\x00")
    digest.update(payload)
    return digest.digest()


def encode_snapshot(key: str, snapshot: Snapshot) -> bytes:
    """The entry's bytes: magic, sha256(key, payload), payload (header JSON, then arrays)."""
    c = snapshot.comparison
    header = {
        "version": __version__,
        "key": key,
        "n": len(c.ids),
        "fingerprint": snapshot.fingerprint,
        "metric": c.metric,
        "tokenizer": c.tokenizer,
        "stem": c.stem,
        "k": float(c.k),
        "baseline": _stats_json(c.baseline),
        "candidate": _stats_json(c.candidate),
        "delta_mean": float(c.delta_mean),
        "delta_interval": [float(c.delta_interval[0]), float(c.delta_interval[1])],
        "delta_interval_method": c.delta_interval_method,
        "verdict": c.verdict,
        "only_in_baseline": list(c.only_in_baseline),
        "only_in_candidate": list(c.only_in_candidate),
        "missing_reference": list(c.missing_reference),
        "partial": {name: list(ids) for name, ids in c.partial.items()},
        "ids": list(c.ids),
    }
    # ensure_ascii keeps lone surrogates (escaped) and any id round-trip exact.
    text = json.dumps(header, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    text += b" " * (-(_HEAD.size + len(text)) % 8)  # arrays start 8-aligned
    parts = [_HEAD.pack(FORMAT, len(text)), text]
    for name, dtype in _ARRAYS:
        parts.append(np.ascontiguousarray(getattr(c, name), dtype=dtype).tobytes())
    payload = b"".join(parts)
    return MAGIC + _digest(key, payload) + payload


def decode_snapshot(key: str, data: bytes) -> Snapshot:
    """The snapshot in ``data`` if it is a whole, untouched entry for ``key``; else SnapshotError."""
    head = len(MAGIC) + 32
    if len(data) < head + _HEAD.size or data[: len(MAGIC)] != MAGIC:
        raise SnapshotError("not a snapshot")
    payload = memoryview(data)[head:]
    if _digest(key, payload) != data[len(MAGIC) : head]:
        raise SnapshotError("checksum does not match (corrupt, partial or another key's)")
    fmt, size = _HEAD.unpack_from(payload)
    if fmt != FORMAT:
        raise SnapshotError(f"format {fmt}, expected {FORMAT}")
    try:
        header = json.loads(bytes(payload[_HEAD.size : _HEAD.size + size]))
        if not isinstance(header, dict) or header.get("key") != key:
            raise SnapshotError("written for another key")
        n = _int(header["n"])
        ids = _strs(header["ids"])
        if len(ids) != n:
            raise SnapshotError("id count does not match")
        offset = _HEAD.size + size
        arrays: dict[str, np.ndarray] = {}
        for name, dtype in _ARRAYS:
            width = np.dtype(dtype).itemsize * n
            if offset + width > len(payload):
                raise SnapshotError("arrays cut short")
            native = np.float64 if dtype == "<f8" else np.uint8
            arrays[name] = np.frombuffer(payload, dtype=dtype, count=n, offset=offset).astype(
                native
            )
            offset += width
        if offset != len(payload):
            raise SnapshotError("trailing bytes")
        partial = header["partial"]
        if not isinstance(partial, dict):
            raise SnapshotError("partial is not an object")
        comparison = Comparison(
            metric=_str(header["metric"]),
            tokenizer=_str(header["tokenizer"]),
            stem=bool(header["stem"]),
            k=_float(header["k"]),
            baseline=_stats(header["baseline"]),
            candidate=_stats(header["candidate"]),
            ids=ids,
            baseline_f=arrays["baseline_f"],
            candidate_f=arrays["candidate_f"],
            delta=arrays["delta"],
            signals=arrays["signals"],
            delta_mean=_float(header["delta_mean"]),
            delta_interval=_pair(header["delta_interval"]),
            delta_interval_method=_str(header["delta_interval_method"]),
            verdict=_str(header["verdict"]),
            only_in_baseline=_strs(header["only_in_baseline"]),
            only_in_candidate=_strs(header["only_in_candidate"]),
            missing_reference=_strs(header["missing_reference"]),
            partial={_str(name): _strs(ids) for name, ids in partial.items()},
        )
        return Snapshot(_str(header["fingerprint"]), comparison)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"malformed header ({type(exc).__name__})") from None


class SnapshotStore:
    """Analysis snapshots on disk under the cache directory (``snapshots/``).

    A bad entry is counted in ``rejected``, removed and reported as a miss; an unwritable
    cache directory only costs speed.
    """

    def __init__(self, root: Path | None = None):
        self.root = root if root is not None else cache_dir() / "snapshots"
        self.rejected = 0

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.snap"

    def get(self, key: str) -> Snapshot | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            found = decode_snapshot(key, data)
        except SnapshotError:
            self.rejected += 1
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        mark_used(path)
        return found

    def put(self, key: str, snapshot: Snapshot) -> None:
        path = self.path(key)
        with contextlib.suppress(OSError):
            atomic_write_bytes(path, encode_snapshot(key, snapshot))
            prune_store(self.root, ".snap", keep=path)


# --------------------------------------------------------------------------- opening


@dataclass
class Opened:
    """An analysis of a suite's build pair, from a snapshot or computed.

    ``texts``: whether ``analysis.suite`` holds the loaded texts; when False it is a
    `shell_suite` (names and settings only) and `attach_texts` loads them.
    """

    analysis: Analysis
    texts: bool
    from_snapshot: bool
    files: SuiteFiles | None = None


def open_options(options: object) -> tuple[dict[str, Any], str | None]:
    """`open_analysis`'s settings arguments from command-line options (absent ones None),
    plus ``no_cache``; and the warning a bad user config file gave (None if fine)."""
    defaults, warning = load_user_defaults()
    kwargs: dict[str, Any] = {
        name: getattr(options, name, None)
        for name in ("baseline", "candidate", "metric", "tokenizer", "stem", "k")
    }
    kwargs["defaults"] = defaults
    kwargs["no_cache"] = bool(getattr(options, "no_cache", False))
    return kwargs, warning


def open_analysis(
    path: str | Path,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    metric: str | None = None,
    tokenizer: str | None = None,
    stem: bool | None = None,
    k: float | None = None,
    defaults: UserDefaults | None = None,
    cache: ScoreCache | None = None,
    snapshots: SnapshotStore | None = None,
    progress: Progress | None = None,
    texts: bool = True,
    workers: int | None = None,
) -> Opened:
    """Pick the build pair and settings of a suite and analyse them, through the snapshots.

    On a snapshot hit nothing is parsed; the suite's texts are loaded only when ``texts``
    asks for them. On a miss (or with ``snapshots=None``) the suite is loaded and analysed
    as `analyse` does, and the result is stored when the files did not change meanwhile.
    Errors are the loader's and `resolve_settings`' own, whichever path is taken.
    """
    choices: dict[str, Any] = {
        "metric": metric,
        "tokenizer": tokenizer,
        "stem": stem,
        "k": k,
        "defaults": defaults,
    }
    files: SuiteFiles | None = None
    if snapshots is not None:
        try:
            files = list_suite(path)
            shell = shell_suite(files)
            base, cand = shell.pick(baseline, candidate)
            settings = resolve_settings(shell, **choices)
            found = snapshots.get(snapshot_key(files, base.name, cand.name, settings))
        except (SuiteError, OSError, ValueError):
            found = None  # the normal path below says what is wrong, as it always did
        if found is not None and files is not None:
            shell.fingerprint = found.fingerprint
            analysis = Analysis(shell, base, cand, settings, found.comparison)
            opened = Opened(analysis, texts=False, from_snapshot=True, files=files)
            if texts:
                opened.analysis = attach_texts(opened, cache, progress)[0]
                opened.texts = True
            return opened
    suite = load_suite(path)
    base, cand = suite.pick(baseline, candidate)
    settings = resolve_settings(suite, **choices)
    analysis = analyse(suite, base, cand, settings, cache, progress, workers)
    if snapshots is not None and files is not None and unchanged(files):
        key = snapshot_key(files, base.name, cand.name, settings)
        snapshots.put(key, Snapshot(suite.fingerprint, analysis.comparison))
    return Opened(analysis, texts=True, from_snapshot=False, files=files)


def attach_texts(
    opened: Opened, cache: ScoreCache | None = None, progress: Progress | None = None
) -> tuple[Analysis, bool]:
    """The opened analysis with the suite's texts loaded; True when it had to be recomputed.

    The snapshot's comparison is kept when the files are the ones it was keyed on (same
    stamps, same reference fingerprint); if they changed since, the pair is analysed again
    from what was loaded, so texts and figures always belong together.
    """
    analysis = opened.analysis
    if opened.texts:
        return analysis, False
    assert opened.files is not None
    suite = load_suite(opened.files.path)
    base = suite.build(analysis.baseline.name)
    cand = suite.build(analysis.candidate.name)
    if unchanged(opened.files) and suite.fingerprint == analysis.suite.fingerprint:
        return Analysis(suite, base, cand, analysis.settings, analysis.comparison), False
    return analyse(suite, base, cand, analysis.settings, cache, progress), True
