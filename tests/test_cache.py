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
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from safety_helpers import public_folder, public_state, small_suite, unprivileged
from suite_helpers import files_read, settle_files

from rouge_tui import cli
from rouge_tui.files import Stamp
from rouge_tui.store import cache
from rouge_tui.store.cache import BlobCache, key, pack, unpack
from rouge_tui.store.paths import cache_dir

# A second user needs root here (to fork one, or to chown to one).
AS_ANOTHER_USER = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")

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


# ---------------------------------------------------------------------- keys and the codec


def test_keys_tell_apart_what_an_entry_depends_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """One recipe: the cache's version, rouge-tui's, the kind, and the parts as JSON (so the
    cut between two parts, or between two lists, is part of what is hashed)."""
    made = {
        key("scores", "rougeL|tok:whitespace", "refs", [["a", "b"]]),
        key("scores", "rougeL|tok:whitespace", "refs", [["a"], ["b"]]),  # the cut between runs
        key("scores", "rougeL|tok:whitespace", "refs", [["ab"]]),
        key("scores", "rouge1|tok:whitespace", "refs", [["a", "b"]]),  # the setting
        key("scores", "rougeL|tok:whitespace", "other refs", [["a", "b"]]),  # the references
        key("pairs", "rougeL|tok:whitespace", "refs", [["a", "b"]]),  # the kind
    }
    assert len(made) == 6 and all(len(k) == 64 for k in made)
    before = key("scores", "x")
    # The recipe as documented: sha256 of the JSON list.
    assert before == hashlib.sha256(json.dumps([cache.VERSION, cli.__version__, "scores", "x"]).encode()).hexdigest()
    monkeypatch.setattr(cache, "VERSION", "rouge-tui cache 0")
    assert key("scores", "x") != before
    monkeypatch.undo()
    monkeypatch.setattr(cache, "__version__", "9.9.9")
    assert key("scores", "x") != before


def test_the_codec_is_a_json_head_then_float64s() -> None:
    data = pack({"ids": ["é", "\udcff"]}, np.array([[0.25, 1.0]]))
    size = int.from_bytes(data[:8], "little")
    assert json.loads(data[8 : 8 + size].decode("utf-8", "surrogatepass")) == {"ids": ["é", "\udcff"]}
    assert data[8 + size :] == np.array([0.25, 1.0], "<f8").tobytes()
    head, values = unpack(data)
    assert head == {"ids": ["é", "\udcff"]} and values.tolist() == [0.25, 1.0]


@pytest.mark.parametrize("data", [b"", (5).to_bytes(8, "little") + b"{oops", (2).to_bytes(8, "little") + b"[]",
                                  (2).to_bytes(8, "little") + b"{}" + b"\0" * 7, (99).to_bytes(8, "little") + b"{}",
                                  (2).to_bytes(8, "little") + b"\xff\xfe"],
                         ids=["empty", "not JSON", "not an object", "ragged values", "head past the end", "not UTF-8"])
def test_what_the_codec_did_not_write_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        unpack(data)


TAMPERED = {
    "flip the last byte": lambda raw, other, root: raw[:-1] + bytes([raw[-1] ^ 1]),
    "truncate": lambda raw, other, root: raw[: len(raw) // 2],
    "empty": lambda raw, other, root: b"",
    "foreign magic": lambda raw, other, root: b"x" * len(BlobCache.MAGIC) + raw[len(BlobCache.MAGIC):],
}


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
    for age, name in zip((400, 300, 200, 100), keys):
        blobs.put(name, payload)
        _aged(blobs._path(name), age)
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
    # the two builds' tables of scores, the figures and the pair's signal counts
    assert len(entries) == 4
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
    assert len(entries) == 4  # the two builds' tables, the figures, the pair's counts
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


def _forged_tables(suite: Path, seal: Callable[[bytes, bytes], bytes]) -> list[tuple[Path, bytes]]:
    """For each build of ``suite`` (one run, no suite.toml), a table saying every example
    scored 0.99, at the path and under the key the docstrings give (`key`: the setting, the
    references' sha256, the field names, each run's sha256), made from the suite's public
    bytes and sealed by ``seal``."""
    from rouge_tui.suite.records import Fields

    refs = hashlib.sha256((suite / "references.jsonl").read_bytes()).hexdigest()
    out = []
    for build in sorted((suite / "builds").glob("*.jsonl")):
        ids = [json.loads(line)["id"] for line in build.read_text().splitlines()]
        name = key("scores", _scoring(), refs, repr(Fields()), [hashlib.sha256(build.read_bytes()).hexdigest()])
        payload = pack({"ids": ids, "runs": 1}, np.full((len(ids), 3), 0.99))
        out.append((cache_dir() / "scores" / name[:2] / f"{name}.bin", seal(name.encode(), payload)))
    return out


def _public_seal(key: bytes, payload: bytes) -> bytes:
    """The seal anyone can compute (sha256 of key and payload), as entries once had."""
    return BlobCache.MAGIC + hashlib.sha256(key + b"\0" + payload).digest() + payload


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
    member (here nobody, in root's group) drops score tables saying 0.99 everywhere."""
    with public_folder() as root:
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            monkeypatch.setenv(var, str(root / "xdg" / var.lower()))
        decoy, suite = small_suite(root / "decoy", "decoy"), small_suite(root / "suite")
        for folder in (decoy, suite):  # the same bytes under another name: the same tables
            (folder / "builds" / "b.jsonl").write_text('{"id": "1", "output": "x"}\n{"id": "2", "output": "y"}\n'
                                                       '{"id": "3", "output": "z"}\n')
        mask = os.umask(0o002)
        try:
            expected = _report_here(str(suite), "--no-cache")
            assert expected[0] == 1  # drift-down
            _report_here(str(decoy))  # the suite's tables exist, its figures do not
            forged = _forged_tables(suite, _public_seal)
            assert all(path.exists() for path, _ in forged)
            said = {unprivileged(_plant, str(path), data, gid=0) for path, data in forged}
            got = _report_here(str(suite))
        finally:
            os.umask(mask)
        assert said == {"refused: Permission denied"}
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
        path.unlink()  # no figures to find: the tables are read
    for path, forged in _forged_tables(suite, lambda name, payload: sealed(BlobCache.MAGIC, name, payload,
                                                                           cache_dir() / "scores")):
        path.write_bytes(forged)
    trusted = _report(suite, capsys)  # sealed with the secret: taken (what is refused below is the seal)
    assert json.loads(trusted[1])["baseline"]["mean"] == 0.99 != json.loads(expected[1])["baseline"]["mean"]
    for path in cache_dir().rglob("*.bin"):
        path.unlink()
    for path, forged in _forged_tables(suite, _public_seal):
        path.write_bytes(forged)
    assert _report(suite, capsys) == expected


@AS_ANOTHER_USER
def test_a_cache_folder_of_another_user_is_refused_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder shared with another user, who planted links in it: one to the victim's
    private data folder where the figures go, one where a build's table of scores goes."""
    with public_folder() as root:
        suite = small_suite(root / "suite")
        monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
        private = root / "private"
        private.mkdir(mode=0o700)
        expected = _report_here(str(suite), "--no-cache")
        shared = cache_dir()
        table = _forged_tables(suite, _public_seal)[0][0]
        table.parent.mkdir(parents=True)
        table.symlink_to(private / "planted-table")
        (shared / "figures").symlink_to(private)
        for path in [root / "cache", *(root / "cache").rglob("*")]:
            os.lchown(path, 65534, 65534)
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o777)
        for _ in range(2):
            (warning,) = _new_warnings(_report_here(str(suite)), expected)
            assert "cache is not used" in warning and "belongs to another user (uid 65534)" in warning
        assert list(private.iterdir()) == []  # nothing written through a link
        assert sorted(p.name for p in shared.rglob("*")) == sorted(["scores", table.parent.name, table.name, "figures"])


def test_links_planted_in_the_users_own_cache_folder_are_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = small_suite(tmp_path / "suite")
    expected = _report(suite, capsys, "--no-cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    table = _forged_tables(suite, _public_seal)[0][0]
    table.parent.mkdir(parents=True)
    table.symlink_to(elsewhere / "planted-table")
    (cache_dir() / "figures").symlink_to(elsewhere)
    for _ in range(2):
        (warning,) = _new_warnings(_report(suite, capsys), expected)
        assert "cache is not used" in warning and "figures is a link" in warning
    assert list(elsewhere.iterdir()) == []  # nothing written through a link
    assert not table.is_symlink()  # the link itself replaced by the table




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


# ---------------------------------------------------------------------- kept digests


def test_a_reopened_report_reads_no_file_of_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = small_suite(tmp_path / "suite")
    settle_files(monkeypatch)
    expected = _report(suite, capsys, "--no-cache")
    assert _report(suite, capsys) == expected
    reads = files_read(monkeypatch, suite)
    assert _report(suite, capsys) == expected
    assert reads == []


def test_a_reopened_report_with_its_history_reads_no_file_of_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's reopened `report --history` on 100k took 0.9 s against 0.22 s without it:
    every text was read, for rows then found kept. Their bytes known by the files' stamps,
    the kept rows need none."""
    suite = small_suite(tmp_path / "suite")
    settle_files(monkeypatch)
    expected = _report(suite, capsys, "--no-cache", "--history")
    assert _report(suite, capsys, "--history") == expected
    reads = files_read(monkeypatch, suite)
    assert _report(suite, capsys, "--history") == expected
    assert reads == []
    build = suite / "builds" / "a.jsonl"  # a build rewritten: its row made again, from its bytes
    build.write_text(build.read_text().replace("cat", "dog"))
    fresh = _report(suite, capsys, "--no-cache", "--history")
    assert fresh != expected and _report(suite, capsys, "--history") == fresh


def test_a_digest_kept_by_an_earlier_process_is_checked_by_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a digest this process made moments before is taken without hashing: one kept
    by an earlier process (a file system whose stamps do not move on a write: README) is
    checked by the read, so the texts after cached figures are the bytes their key names
    (a review of the diff)."""
    from rouge_tui.files import LineBlocks

    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"id": "1", "output": "a b c"}\n')
    settle_files(monkeypatch)
    store = _memo(tmp_path / "cache")
    stamp = Stamp.of(path, os.stat(path))
    earlier = cache.KeptDigestMemo(store, "/suite")
    earlier[stamp] = "f" * 64  # what a stamp that did not move would lend
    assert earlier.hashed_here(stamp) == "f" * 64
    earlier.save()
    now = cache.KeptDigestMemo(store, "/suite")
    assert now[stamp] == "f" * 64 and now.hashed_here(stamp) is None
    blocks = LineBlocks(path, memo=now)
    list(blocks)
    assert blocks.digest == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_first_open_hashes_each_file_of_the_suite_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first open hashes the files to look their figures up; reading them then takes
    those digests by the files' stamps. The same report as with no cache."""
    suite = small_suite(tmp_path / "suite")
    settle_files(monkeypatch)
    expected = _report(suite, capsys, "--no-cache")
    hashed = _bytes_hashed(monkeypatch)
    assert _report(suite, capsys) == expected
    sizes = {p.name: p.stat().st_size for p in (suite / "references.jsonl", *(suite / "builds").iterdir())}
    assert hashed == sizes


def _bytes_hashed(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The bytes `rouge_tui.files` hashes from now on, by the name of the file read last
    (the only hashing there is of a file's bytes as they are read)."""
    real, real_read = hashlib.sha256, os.read
    by_name: dict[str, int] = {}
    last = [""]

    class Counted:
        def __init__(self) -> None:
            self._sha = real()

        def update(self, data: bytes) -> None:
            by_name[last[0]] = by_name.get(last[0], 0) + len(data)
            self._sha.update(data)

        def hexdigest(self) -> str:
            return self._sha.hexdigest()

    def sha256(*args: object, **kwargs: object) -> object:
        mine = sys._getframe(1).f_globals["__name__"] == "rouge_tui.files"
        return Counted() if mine and not args and not kwargs else real(*args, **kwargs)

    def read(fd: int, size: int) -> bytes:
        last[0] = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        return real_read(fd, size)

    monkeypatch.setattr(hashlib, "sha256", sha256)
    monkeypatch.setattr(os, "read", read)
    return by_name


def test_a_build_rewritten_to_the_same_size_is_scored_as_it_now_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mtime put back, the size the same: the ctime the write set tells the bytes apart."""
    suite = small_suite(tmp_path / "suite")
    settle_files(monkeypatch)
    first = _report(suite, capsys)
    reads = files_read(monkeypatch, suite)
    assert _report(suite, capsys) == first
    assert reads == []  # the build's digest was kept
    build = suite / "builds" / "b.jsonl"
    old, before = build.read_bytes(), os.stat(build)
    new = old.replace(b"cat", b"dog") if b"cat" in old else old.replace(b"the", b"one")
    assert new != old and len(new) == len(old)
    with open(build, "r+b") as handle:
        handle.write(new)
    os.utime(build, ns=(before.st_atime_ns, before.st_mtime_ns))
    expected = _report(suite, capsys, "--no-cache")
    assert json.loads(expected[1])["candidate"] != json.loads(first[1])["candidate"]  # the rewrite moves it
    assert _report(suite, capsys) == expected


def _memo(root: Path) -> BlobCache:
    return BlobCache("digests", root)


def test_kept_digests_round_trip_one_row_a_path_the_last_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache.KeptDigestMemo, "LIMIT", 3)
    store = _memo(tmp_path / "digests")
    kept = cache.KeptDigestMemo(store, "/suite")
    for number in range(5):
        kept[Stamp(f"/suite/{number}.jsonl", 1, number, 10, 20, 30)] = f"{number:064x}"
    kept[Stamp("/suite/4.jsonl", 1, 9, 11, 21, 31)] = "a" * 64  # 4.jsonl rewritten: its earlier row goes
    kept.save()
    again = cache.KeptDigestMemo(store, "/suite")
    assert again == {Stamp("/suite/2.jsonl", 1, 2, 10, 20, 30): f"{2:064x}",
                     Stamp("/suite/3.jsonl", 1, 3, 10, 20, 30): f"{3:064x}",
                     Stamp("/suite/4.jsonl", 1, 9, 11, 21, 31): "a" * 64}
    assert cache.KeptDigestMemo(store, "/another suite") == {}


@pytest.mark.parametrize("payload", [
    b"not json", b"{}", b'[["/a", 1, 2, 3, 4, 5]]', b'[["/a", 1, 2, 3, 4, "5", "' + b"a" * 64 + b'"]]',
    b'[["/a", 1, 2, 3, 4, 5, "' + b"A" * 64 + b'"]]', b'[["/a", 1, 2, 3, 4, 5, "' + b"a" * 63 + b'"]]',
    b'[["/a", 1, 2, 3, 4, 5.0, "' + b"a" * 64 + b'"]]', b'[[1, 1, 2, 3, 4, 5, "' + b"a" * 64 + b'"]]',
    b"[" * 100_000,
])
def test_a_kept_digests_entry_of_another_shape_is_an_empty_memo(payload: bytes, tmp_path: Path) -> None:
    store = _memo(tmp_path / "digests")
    store.put(key("digests", "/suite"), payload)
    assert cache.KeptDigestMemo(store, "/suite") == {}
