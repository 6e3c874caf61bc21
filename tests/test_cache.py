"""store/cache: what was scored before is reused only when it checks out, and never grows
without bound.

Tampered files are made here from the format as the module's docstring states it (magic,
HMAC-SHA256 of key and payload under the 32 bytes of the store's ``key`` file, payload), so
a test can also write a file that is sealed but wrong inside. The oracle for every report is the same report run with ``--no-cache``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from safety_helpers import public_folder, public_state, small_suite, unprivileged

from rouge_tui import cli
from rouge_tui.store import cache
from rouge_tui.store.cache import BlobCache, ScoreCache, example_key, references_key
from rouge_tui.store.paths import cache_dir

# A second user needs root here (to fork one, or to chown to one).
AS_ANOTHER_USER = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")

SCORING = "rougeL|tok:whitespace|stem:False|test"


def keys_of(*names: str) -> list[bytes]:
    ref = references_key(SCORING, ("the reference",))
    return [example_key(ref, name) for name in names]


def values(*rows: tuple[float, float, float]) -> np.ndarray:
    return np.asarray(rows, dtype=np.float64)


def secret_of(root: Path) -> bytes:
    """The store's secret as documented: 32 bytes in its private ``key`` file, made here
    when the store has none yet."""
    path = root / "key"
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(32))
        path.chmod(0o600)
    return path.read_bytes()


def sealed(magic: bytes, key: bytes, payload: bytes, root: Path) -> bytes:
    """A cache file of the store at ``root`` as the format is documented: it passes the
    seal whatever it holds."""
    return magic + hmac.new(secret_of(root), key + b"\0" + payload, "sha256").digest() + payload


def scores_file(root: Path) -> Path:
    (found,) = list(root.glob("*.bin"))
    return found


# ---------------------------------------------------------------------- ScoreCache


def test_scores_round_trip_and_a_miss_is_nan(tmp_path: Path) -> None:
    store = ScoreCache(tmp_path)
    store.put(SCORING, keys_of("a", "b"), values((0.0, 0.25, 1.0), (0.5, 0.5, 0.5)))
    got = store.get(SCORING, keys_of("b", "zz", "a"))
    assert got[0].tolist() == [0.5, 0.5, 0.5]
    assert np.isnan(got[1]).all()
    assert got[2].tolist() == [0.0, 0.25, 1.0]
    assert np.isnan(store.get("another scoring", keys_of("a"))).all()  # per scoring setting
    assert store.rejected == 0


def test_a_second_put_adds_to_the_first(tmp_path: Path) -> None:
    store = ScoreCache(tmp_path)
    store.put(SCORING, keys_of("a"), values((0.1, 0.2, 0.3)))
    store.put(SCORING, keys_of("b"), values((0.4, 0.5, 0.6)))
    assert ScoreCache(tmp_path).get(SCORING, keys_of("a", "b")).tolist() == [
        [0.1, 0.2, 0.3],
        [0.4, 0.5, 0.6],
    ]


def test_a_store_that_read_its_file_sees_what_another_wrote_since(tmp_path: Path) -> None:
    reader, writer = ScoreCache(tmp_path), ScoreCache(tmp_path)
    writer.put(SCORING, keys_of("a"), values((0.1, 0.2, 0.3)))
    assert reader.get(SCORING, keys_of("a")).tolist() == [[0.1, 0.2, 0.3]]
    writer.put(SCORING, keys_of("b"), values((0.4, 0.5, 0.6)))  # a new file in its place
    assert reader.get(SCORING, keys_of("a", "b")).tolist() == [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]
    # Rewritten in place, same size, its times set back: still read again, and rejected.
    path = scores_file(tmp_path)
    before = path.stat()
    raw = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.seek(len(raw) - 1)
        handle.write(bytes([raw[-1] ^ 1]))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert np.isnan(reader.get(SCORING, keys_of("a", "b"))).all()
    assert reader.rejected == 1
    path.unlink()
    assert np.isnan(reader.get(SCORING, keys_of("a"))).all()  # removed: nothing remembered


def test_a_scoring_pass_lets_go_of_the_file_it_kept(tmp_path: Path) -> None:
    """The file a pass read stays in memory only for the pass (a full one is 320 MB, which
    an app left open would hold for nothing)."""
    from suite_helpers import make_suite

    from rouge_tui.analysis.history import trend
    from rouge_tui.analysis.pipeline import Caches
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.suite.suite import open_suite, read_references

    suite = open_suite(make_suite(tmp_path / "s"))
    store = ScoreCache(tmp_path / "scores")
    caches = Caches(store, BlobCache("figures", tmp_path / "figures"))
    for _ in range(2):  # the second pass reads the file the first wrote, and keeps it
        trend(suite, read_references(suite), Settings(), caches)
        assert store._loaded is None
    assert store.get(Settings().scoring, keys_of("a")).shape == (1, 3)  # and reads it again when asked
    assert store._loaded is not None


def test_keys_tell_apart_what_a_score_depends_on() -> None:
    ref = references_key(SCORING, ("a b", "c"))
    assert len(example_key(ref, "x")) == 16
    different = {
        example_key(ref, "x"),
        example_key(ref, "y"),  # the output
        example_key(references_key(SCORING, ("a b c",)), "x"),  # the references
        example_key(references_key(SCORING, ("a", "b c")), "x"),  # the cut between them
        example_key(references_key(SCORING, ("a b", "c", "")), "x"),
        example_key(references_key("rouge1|tok:whitespace|stem:False|test", ("a b", "c")), "x"),
    }
    assert len(different) == 6
    assert example_key(references_key(SCORING, ("a b", "c")), "x") == example_key(ref, "x")


def _payload(keys: list[bytes], rows: np.ndarray) -> bytes:
    """A scores payload laid out as documented: keys (16 bytes each), then 3 float64s each."""
    return b"".join(keys) + np.asarray(rows, dtype="<f8").tobytes()


def _sorted(keys: list[bytes], rows: np.ndarray) -> tuple[list[bytes], np.ndarray]:
    order = sorted(range(len(keys)), key=lambda i: int.from_bytes(keys[i][:8], "little"))
    return [keys[i] for i in order], rows[order]


TAMPERED = {
    "flip the last byte": lambda raw, other, root: raw[:-1] + bytes([raw[-1] ^ 1]),
    "truncate": lambda raw, other, root: raw[: len(raw) // 2],
    "cut one byte": lambda raw, other, root: raw[:-1],
    "empty": lambda raw, other, root: b"",
    "foreign magic": lambda raw, other, root: b"x" * len(ScoreCache.MAGIC) + raw[len(ScoreCache.MAGIC):],
    "earlier format": lambda raw, other, root: raw.replace(b"scores 3\n", b"scores 2\n", 1),
    "another setting's file": lambda raw, other, root: other,
    "a blob's file": lambda raw, other, root: sealed(BlobCache.MAGIC, SCORING.encode(), raw[51:], root),
}


@pytest.mark.parametrize("how", sorted(TAMPERED))
def test_a_tampered_scores_file_is_rejected_and_rebuilt(how: str, tmp_path: Path) -> None:
    other_root = tmp_path / "other"
    ScoreCache(other_root).put("rouge1|other", keys_of("a"), values((0.9, 0.9, 0.9)))
    store = ScoreCache(tmp_path / "scores")
    store.put(SCORING, keys_of("a", "b"), values((0.1, 0.2, 0.3), (0.4, 0.5, 0.6)))
    path = scores_file(tmp_path / "scores")
    path.write_bytes(TAMPERED[how](path.read_bytes(), scores_file(other_root).read_bytes(), tmp_path / "scores"))
    assert np.isnan(store.get(SCORING, keys_of("a", "b"))).all()
    assert store.rejected == 1
    store.put(SCORING, keys_of("b"), values((0.4, 0.5, 0.6)))  # scored again, file rebuilt
    fresh = ScoreCache(tmp_path / "scores")
    assert fresh.get(SCORING, keys_of("b")).tolist() == [[0.4, 0.5, 0.6]]
    assert np.isnan(fresh.get(SCORING, keys_of("a"))).all()  # nothing from the bad file
    assert fresh.rejected == 0


INSIDE = {
    "F above 1": values((0.5, 0.5, 1.0000000000000002)),
    "negative precision": values((-0.0001, 0.5, 0.5)),
    "NaN": values((0.5, float("nan"), 0.5)),
    "infinity": values((0.5, 0.5, float("inf"))),
}


@pytest.mark.parametrize("how", sorted(INSIDE))
def test_a_sealed_file_with_a_value_outside_0_1_is_rejected(how: str, tmp_path: Path) -> None:
    keys, rows = _sorted(keys_of("a", "b"), np.vstack([values((0.1, 0.2, 0.3)), INSIDE[how]]))
    path = tmp_path / ScoreCache(tmp_path)._path(SCORING).name
    path.write_bytes(sealed(ScoreCache.MAGIC, SCORING.encode(), _payload(keys, rows), tmp_path))
    store = ScoreCache(tmp_path)
    assert np.isnan(store.get(SCORING, keys_of("a", "b"))).all()
    assert store.rejected == 1


def test_the_sealed_format_as_documented_is_read(tmp_path: Path) -> None:
    """The other side of the two tests above: the same hand-made file with good values is
    trusted, so what rejects them is the values, not the making."""
    keys, rows = _sorted(keys_of("a", "b"), values((0.1, 0.2, 0.3), (0.0, 1.0, 0.5)))
    path = tmp_path / ScoreCache(tmp_path)._path(SCORING).name
    path.write_bytes(sealed(ScoreCache.MAGIC, SCORING.encode(), _payload(keys, rows), tmp_path))
    store = ScoreCache(tmp_path)
    assert store.get(SCORING, keys_of("a", "b")).tolist() == [[0.1, 0.2, 0.3], [0.0, 1.0, 0.5]]
    assert store.rejected == 0


def test_a_sealed_file_of_a_ragged_length_is_rejected(tmp_path: Path) -> None:
    keys, rows = _sorted(keys_of("a", "b"), values((0.1, 0.2, 0.3), (0.4, 0.5, 0.6)))
    path = tmp_path / ScoreCache(tmp_path)._path(SCORING).name
    path.write_bytes(sealed(ScoreCache.MAGIC, SCORING.encode(), _payload(keys, rows) + b"\0", tmp_path))
    store = ScoreCache(tmp_path)
    assert np.isnan(store.get(SCORING, keys_of("a", "b"))).all()
    assert store.rejected == 1


def test_a_sealed_file_with_unsorted_keys_is_rejected(tmp_path: Path) -> None:
    """Keys are unsigned: a descending pair must count as unsorted, not wrap around."""
    keys, rows = _sorted(keys_of("a", "b", "c"), values(*[(0.1, 0.2, 0.3)] * 3))
    path = tmp_path / ScoreCache(tmp_path)._path(SCORING).name
    path.write_bytes(sealed(ScoreCache.MAGIC, SCORING.encode(), _payload(keys[::-1], rows), tmp_path))
    store = ScoreCache(tmp_path)
    assert np.isnan(store.get(SCORING, keys_of("a", "b", "c"))).all()
    assert store.rejected == 1


def _writer(root: str, worker: int, go) -> None:
    store = ScoreCache(Path(root))
    go.wait(30)
    for batch in range(20):
        names = [f"w{worker}-{batch}-{i}" for i in range(5)]
        store.put(SCORING, keys_of(*names), np.full((5, 3), worker / 10))


@pytest.mark.slow
def test_writers_in_several_processes_lose_no_entry(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    go = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, go)) for w in range(4)]
    for proc in procs:
        proc.start()
    go.set()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    store = ScoreCache(tmp_path)
    for worker in range(4):
        names = [f"w{worker}-{b}-{i}" for b in range(20) for i in range(5)]
        assert (store.get(SCORING, keys_of(*names)) == worker / 10).all(), worker
    assert store.rejected == 0


def test_a_file_past_max_scores_starts_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_SCORES", 10)
    store = ScoreCache(tmp_path)
    store.put(SCORING, keys_of(*"abcdefgh"), np.full((8, 3), 0.5))
    store.put(SCORING, keys_of("i", "j"), np.full((2, 3), 0.25))  # 10: still fits
    assert not np.isnan(store.get(SCORING, keys_of(*"abcdefghij"))).any()
    store.put(SCORING, keys_of("k"), np.full((1, 3), 0.75))  # 11: the file starts again
    assert np.isnan(store.get(SCORING, keys_of(*"abcdefghij"))).all()
    assert store.get(SCORING, keys_of("k")).tolist() == [[0.75, 0.75, 0.75]]
    assert scores_file(tmp_path).stat().st_size == len(ScoreCache.MAGIC) + 32 + 40


# ---------------------------------------------------------------------- BlobCache


def test_blobs_round_trip(tmp_path: Path) -> None:
    blobs = BlobCache("figures", tmp_path)
    key = hashlib.sha256(b"one").hexdigest()
    assert blobs.get(key) is None
    blobs.put(key, b"\x00payload\xff" * 100)
    assert BlobCache("figures", tmp_path).get(key) == b"\x00payload\xff" * 100


def test_a_blob_under_another_key_is_rejected_and_removed(tmp_path: Path) -> None:
    blobs = BlobCache("figures", tmp_path)
    first, second = (hashlib.sha256(x).hexdigest() for x in (b"one", b"two"))
    blobs.put(first, b"figures of the first comparison")
    moved = blobs._path(second)
    moved.parent.mkdir(parents=True, exist_ok=True)
    moved.write_bytes(blobs._path(first).read_bytes())  # a whole, valid file, wrong place
    assert blobs.get(second) is None
    assert not moved.exists()
    assert blobs.get(first) == b"figures of the first comparison"


@pytest.mark.parametrize("how", ["flip the last byte", "truncate", "empty", "foreign magic"])
def test_a_tampered_blob_is_rejected(how: str, tmp_path: Path) -> None:
    blobs = BlobCache("figures", tmp_path)
    key = hashlib.sha256(b"one").hexdigest()
    blobs.put(key, b"figures")
    path = blobs._path(key)
    path.write_bytes(TAMPERED[how](path.read_bytes(), b"", tmp_path))
    assert blobs.get(key) is None


def _aged(path: Path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


def test_blobs_are_bounded_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blobs = BlobCache("figures", tmp_path)
    payload = b"x" * 1000
    entry = len(BlobCache.MAGIC) + 32 + len(payload)
    monkeypatch.setattr(cache, "LIMIT", 4 * entry + 1)  # room for four entries
    keys = [hashlib.sha256(bytes([i])).hexdigest() for i in range(5)]
    for age, key in zip((400, 300, 200, 100), keys):
        blobs.put(key, payload)
        _aged(blobs._path(key), age)
    assert blobs.get(keys[0]) == payload  # the oldest written, used just now
    # A fifth entry passes the bound: the least recently used go until 3/4 of it is left
    # (3 entries): keys[1] and keys[2] go; keys[3], keys[0] (used) and keys[4] (new) stay.
    blobs.put(keys[4], payload)
    left = {key for key in keys if blobs._path(key).exists()}
    assert left == {keys[0], keys[3], keys[4]}


def test_the_entry_just_written_is_kept_even_past_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "LIMIT", 100)  # smaller than any one entry
    blobs = BlobCache("figures", tmp_path)
    old, new = (hashlib.sha256(x).hexdigest() for x in (b"old", b"new"))
    blobs.put(old, b"o" * 200)
    _aged(blobs._path(old), 60)
    blobs.put(new, b"n" * 200)
    assert not blobs._path(old).exists()
    assert blobs.get(new) == b"n" * 200
    store = ScoreCache(tmp_path / "scores")  # the scores file, too, survives its own prune
    store.put(SCORING, keys_of("a"), values((0.5, 0.5, 0.5)))
    assert store.get(SCORING, keys_of("a")).tolist() == [[0.5, 0.5, 0.5]]


def test_pruning_removes_temporary_files_of_killed_writers_only_when_stale(tmp_path: Path) -> None:
    folder = tmp_path / "ab"
    folder.mkdir()
    stale = folder / ".abcd.bin.k2j4.tmp"
    fresh = folder / ".abce.bin.x9q1.tmp"
    entry = folder / "abcd.bin"
    for path in (stale, fresh, entry):
        path.write_bytes(b"half")
    _aged(stale, cache.STALE_TEMP + 60)
    _aged(fresh, cache.STALE_TEMP - 60)  # a writer that may still be writing
    assert cache.prune(tmp_path) == 0  # far under the bound: no entry goes
    assert not stale.exists()
    assert fresh.exists() and entry.exists()


# ---------------------------------------------------------------------- through the CLI


def _report(suite: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = cli.main(["report", str(suite), "--format", "json", *extra])
    return code, capsys.readouterr().out


def _cache_files() -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(cache_dir().rglob("*.bin"))}


CORRUPTIONS = {
    "flip the last byte": lambda raw, other: raw[:-1] + bytes([raw[-1] ^ 0x01]),
    "truncate": lambda raw, other: raw[: len(raw) // 2],
    "partial write (empty)": lambda raw, other: b"",
    "foreign magic": lambda raw, other: b"x" * 17 + raw[17:],
    "another entry's file": lambda raw, other: other,
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_a_corrupt_cache_gives_the_same_report_and_is_rebuilt(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    assert _cache_files() == {}  # --no-cache wrote nothing
    assert _report(suite, capsys) == expected
    entries = _cache_files()
    # the scores file, the figures, the two builds' history entries and the pair's signal counts
    assert len(entries) == 5
    paths = list(entries)
    for index, path in enumerate(paths):
        path.write_bytes(CORRUPTIONS[how](entries[path], entries[paths[index - 1]]))
    assert _report(suite, capsys) == expected
    assert _cache_files() == entries  # every entry rebuilt, as it was


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    blocker = cache_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"a file where the cache directory belongs")
    assert _report(suite, capsys) == expected
    assert _report(suite, capsys) == expected
    assert blocker.read_bytes() == b"a file where the cache directory belongs"


def _report_here(suite: str, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["report", suite, "--format", "json", *extra])
    return code, out.getvalue()


def test_a_read_only_cache_folder_only_costs_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    with public_folder() as root:
        suite = small_suite(root / "suite")
        public_state(root / "xdg", monkeypatch)
        folder = cache_dir()
        folder.mkdir(parents=True)
        if os.geteuid() == 0:
            os.chown(folder, 65534, 65534)
        folder.chmod(0o555)  # nobody's own folder, and the mode binds its owner
        expected = unprivileged(_report_here, str(suite), "--no-cache")
        warnings = json.loads(expected[1])["warnings"]
        assert [w for w in warnings if "references alone" not in w] == []  # (no source: said)
        assert unprivileged(_report_here, str(suite)) == expected
        assert unprivileged(_report_here, str(suite)) == expected
        assert list(folder.iterdir()) == []


# ---------------------------------------------------------------------- state files, not code


def _regular(root: Path) -> bool:
    return all(p.is_file() and not p.is_symlink() for p in root.rglob("*.bin"))


def test_a_fifo_where_a_cache_entry_belongs_is_a_miss_not_a_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from suite_helpers import within

    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    _report(suite, capsys)
    entries = _cache_files()
    assert len(entries) == 5  # the scores file, the figures, the two builds' entries, the pair's counts
    for path in entries:
        path.unlink()
        os.mkfifo(path)  # nothing ever writes into it: opening it to read would wait forever
    assert within(30, _report, suite, capsys) == expected
    assert _regular(cache_dir())  # every FIFO replaced by its entry again
    assert _cache_files() == entries


def test_a_sparse_cache_file_of_1_2_gb_is_refused_fast_and_small(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tracemalloc

    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    _report(suite, capsys)
    entries = _cache_files()
    for path in entries:
        os.truncate(path, 1_200_000_000)  # 0 bytes on disk, 1.2 GB of zeros to a reader
    tracemalloc.start()
    try:
        assert _report(suite, capsys) == expected
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak  # no entry read whole: each is refused by its size
    assert _cache_files() == entries  # and rebuilt as it was


def _scoring() -> str:
    from rouge_tui.analysis.settings import Settings

    return Settings().scoring


def _new_warnings(got: tuple[int, str], expected: tuple[int, str]) -> list[str]:
    """The warnings ``got`` has beyond ``expected``'s, once the two reports are otherwise
    the same (exit status and every other field)."""
    import json

    mine, theirs = json.loads(got[1]), json.loads(expected[1])
    before = theirs.pop("warnings")
    new = [w for w in mine.pop("warnings") if w not in before]
    assert (got[0], mine) == (expected[0], theirs)
    return new


def _forged_scores(suite: Path, seal: Callable[[bytes, bytes], bytes]) -> tuple[Path, bytes]:
    """A scores file that says every example of ``suite``'s builds scored 0.99, its keys made
    as `example_key` documents them from the suite's public texts, sealed by ``seal``."""
    import json

    scoring = _scoring()
    references = {r["id"]: r["reference"] for r in map(json.loads, (suite / "references.jsonl").open())}
    keys = []
    for build in sorted((suite / "builds").glob("*.jsonl")):
        for record in map(json.loads, build.open()):
            keys.append(example_key(references_key(scoring, (references[record["id"]],)), record["output"]))
    keys, rows = _sorted(keys, np.full((len(keys), 3), 0.99))
    return ScoreCache()._path(scoring), seal(scoring.encode(), _payload(keys, rows))


def _public_seal(key: bytes, payload: bytes) -> bytes:
    """The seal anyone can compute (sha256 of key and payload), as entries once had."""
    return ScoreCache.MAGIC + hashlib.sha256(key + b"\0" + payload).digest() + payload


def _plant(path: str, data: bytes) -> str:
    """Another user drops a file in place (a temporary file renamed over the entry)."""
    try:
        tmp = f"{path}.planted"
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return "planted"


@AS_ANOTHER_USER
def test_a_group_member_cannot_forge_a_score_under_umask_002(monkeypatch: pytest.MonkeyPatch) -> None:
    """The red team's attack: the victim's umask lets its group into the cache folders; a
    member (here nobody, in root's group) drops a scores file saying 0.99 everywhere."""
    with public_folder() as root:
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            monkeypatch.setenv(var, str(root / "xdg" / var.lower()))
        decoy, suite = small_suite(root / "decoy", "decoy"), small_suite(root / "suite")
        (suite / "builds" / "b.jsonl").write_text('{"id": "1", "output": "x"}\n{"id": "2", "output": "y"}\n'
                                                  '{"id": "3", "output": "z"}\n')
        mask = os.umask(0o002)
        try:
            expected = _report_here(str(suite), "--no-cache")
            assert expected[0] == 1  # drift-down
            _report_here(str(decoy))  # the cache folders exist, with a scores file
            path, forged = _forged_scores(suite, _public_seal)
            assert path.exists()
            said = unprivileged(_plant, str(path), forged, gid=0)
            got = _report_here(str(suite))
        finally:
            os.umask(mask)
        assert said == "refused: Permission denied"
        assert got == expected
        folders = [cache_dir(), *(p for p in cache_dir().rglob("*") if p.is_dir())]
        assert {oct(p.stat().st_mode & 0o777) for p in folders} == {oct(0o700)}
        assert {oct(p.stat().st_mode & 0o777) for p in cache_dir().rglob("*") if p.is_file()} == {oct(0o600)}


def test_an_entry_sealed_without_the_stores_secret_is_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whoever manages to write into the folder (root, a backup restored from elsewhere)
    still cannot make an entry: the seal needs the secret only the user can read."""
    suite = small_suite(tmp_path / "suite")
    (suite / "builds" / "b.jsonl").write_text('{"id": "1", "output": "x"}\n')
    expected = _report(suite, capsys, "--no-cache")
    _report(suite, capsys)
    for path in cache_dir().rglob("*.bin"):
        path.unlink()  # no figures to find: the scores are read
    path, forged = _forged_scores(suite, _public_seal)
    path.write_bytes(forged)
    assert _report(suite, capsys) == expected


@AS_ANOTHER_USER
def test_a_cache_folder_of_another_user_is_refused_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder shared with another user, who planted links in it: one to the victim's
    private data folder where the figures go, one where the scores file's lock goes."""
    with public_folder() as root:
        suite = small_suite(root / "suite")
        monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
        private = root / "private"
        private.mkdir(mode=0o700)
        expected = _report_here(str(suite), "--no-cache")
        shared = cache_dir()
        (shared / "scores").mkdir(parents=True)
        lock = ScoreCache()._path(_scoring())
        (lock.parent / (lock.name + ".lock")).symlink_to(private / "planted-lock")
        (shared / "figures").symlink_to(private)
        for path in [root / "cache", *(root / "cache").rglob("*")]:
            os.lchown(path, 65534, 65534)
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o777)
        for _ in range(2):
            (warning,) = _new_warnings(_report_here(str(suite)), expected)
            assert "cache is not used" in warning and "belongs to another user (uid 65534)" in warning
        assert list(private.iterdir()) == []  # nothing written through a link
        assert sorted(p.name for p in shared.rglob("*")) == sorted(["scores", lock.name + ".lock", "figures"])


def test_links_planted_in_the_users_own_cache_folder_are_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cache_dir() / "scores").mkdir(parents=True)
    lock = ScoreCache()._path(_scoring())
    (lock.parent / (lock.name + ".lock")).symlink_to(elsewhere / "planted-lock")
    (cache_dir() / "figures").symlink_to(elsewhere)
    for _ in range(2):
        (warning,) = _new_warnings(_report(suite, capsys), expected)
        assert "cache is not used" in warning and "figures is a link" in warning
    assert list(elsewhere.iterdir()) == []  # nothing written, nor a lock made, through a link




def test_a_secret_others_could_read_is_replaced_and_its_entries_rebuilt(tmp_path: Path) -> None:
    key = hashlib.sha256(b"one").hexdigest()
    BlobCache("figures", tmp_path).put(key, b"figures")
    secret = tmp_path / "key"
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    known = secret.read_bytes()
    secret.chmod(0o644)  # someone may have read it: what it sealed is not trusted
    fresh = BlobCache("figures", tmp_path)
    assert fresh.get(key) is None
    fresh.put(key, b"figures again")
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.read_bytes() != known
    assert BlobCache("figures", tmp_path).get(key) == b"figures again"
