"""State: atomic writes, safe file names, marks that survive, a cache that is never trusted."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from rouge_tui import state


def test_dirs_follow_xdg(isolated_state: Path):
    assert str(state.data_dir()).startswith(str(isolated_state))
    assert str(state.cache_dir()).startswith(str(isolated_state))
    assert str(state.config_dir()).startswith(str(isolated_state))


def test_atomic_write_replaces_whole_file(tmp_path: Path):
    target = tmp_path / "sub" / "f.json"
    state.atomic_write_text(target, "one")
    state.atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


def test_failed_write_keeps_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "f.json"
    state.atomic_write_text(target, "precious")

    def boom(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        state.atomic_write_text(target, "new")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # temp file removed


@pytest.mark.parametrize("name", ["..", "../../etc/passwd", "a/b", "\x1b]2;x\x07", "x" * 500, "", ".hidden"])
def test_safe_name_cannot_escape(name: str):
    safe = state.safe_name(name)
    assert "/" not in safe and "\\" not in safe
    assert not safe.startswith(".")
    assert safe.isascii() and safe.isprintable()
    assert len(safe) <= 80


def test_safe_name_keeps_distinct_names_distinct():
    assert state.safe_name("a/b") != state.safe_name("a_b")


def test_marks_round_trip_and_merge_between_stores():
    one = state.MarkStore("suite", "fp", "base", "cand")
    two = state.MarkStore("suite", "fp", "base", "cand")
    one.load()
    two.load()
    assert one.set("e1", "fine", "looks right", "h1") is None
    assert two.set("e2", "regression", "", "h2") is None
    fresh = state.MarkStore("suite", "fp", "base", "cand").load()
    assert {k: v.mark for k, v in fresh.items()} == {"e1": "fine", "e2": "regression"}
    assert fresh["e1"].note == "looks right"


def test_same_example_last_writer_wins_and_is_told():
    one = state.MarkStore("suite", "fp", "base", "cand")
    two = state.MarkStore("suite", "fp", "base", "cand")
    one.load()
    two.load()
    one.set("e1", "fine", "", "h")
    notice = two.set("e1", "regression", "", "h")
    assert notice is not None and "fine" in notice
    assert state.MarkStore("suite", "fp", "base", "cand").load()["e1"].mark == "regression"


def test_marks_keyed_by_content_not_path():
    a = state.MarkStore("suite", "fp1", "base", "cand")
    b = state.MarkStore("suite", "fp2", "base", "cand")
    assert a.path != b.path
    a.set("e1", "fine", "", "h")
    assert b.load() == {}


def test_corrupt_marks_file_is_set_aside_not_dropped():
    store = state.MarkStore("suite", "fp", "base", "cand")
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text("{not json")
    assert store.load() == {}
    assert store.warning and "kept it as" in store.warning
    kept = [p for p in store.path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(kept) == 1 and kept[0].read_text() == "{not json"


def test_note_without_mark_is_unsure():
    store = state.MarkStore("s", "fp", "b", "c")
    store.set("e", None, "check the header", "h")
    assert store.load()["e"].mark == "unsure"


def test_cache_round_trip_and_rejects_corruption(tmp_path: Path):
    cache = state.ScoreCache(tmp_path)
    key = cache.key("rougeL", "whitespace", "fp", "run")
    values = np.array([0.0, 0.25, 1.0])
    cache.put(key, values)
    assert cache.get(key, 3).tolist() == [0.0, 0.25, 1.0]
    assert cache.get(key, 4) is None  # wrong count: not trusted (and removed)
    cache.put(key, values)
    path = next(tmp_path.rglob("*.bin"))
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    assert cache.get(key, 3) is None
    assert cache.rejected >= 1


def test_cache_truncated_entry_is_rebuilt(tmp_path: Path):
    cache = state.ScoreCache(tmp_path)
    key = cache.key("x")
    cache.put(key, np.array([0.5, 0.5]))
    path = next(tmp_path.rglob("*.bin"))
    path.write_bytes(path.read_bytes()[:-3])
    assert cache.get(key, 2) is None
    assert not path.exists()


def test_cache_key_depends_on_version_and_settings(monkeypatch: pytest.MonkeyPatch):
    a = state.ScoreCache.key("rougeL", "fp")
    assert a != state.ScoreCache.key("rouge1", "fp")
    monkeypatch.setattr(state, "__version__", "9.9.9")
    assert a != state.ScoreCache.key("rougeL", "fp")


def test_unwritable_cache_only_costs_speed(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    cache = state.ScoreCache(blocker / "scores")
    cache.put(cache.key("x"), np.array([0.1]))  # no exception
    assert cache.get(cache.key("x"), 1) is None


def _aged(path: Path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


def test_cache_is_bounded_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = state.ScoreCache(tmp_path)
    entry = 8 * 1000 + len(state._CACHE_MAGIC) + 32  # bytes of an entry of 1,000 scores
    monkeypatch.setattr(state, "CACHE_LIMIT", 4 * entry + 1)  # room for four entries
    keys = [cache.key("run", str(i)) for i in range(4)]
    for age, key in zip((400, 300, 200, 100), keys):
        cache.put(key, np.full(1000, 0.5))
        _aged(cache._path(key), age)
    assert cache.get(keys[0], 1000) is not None  # the oldest, used just now
    # A fifth entry passes the bound: the least recently used go until 3/4 of it is left.
    cache.put(cache.key("run", "4"), np.full(1000, 0.25))
    left = {key for key in keys if cache._path(key).exists()}
    assert left == {keys[0], keys[3]}
    assert cache.get(cache.key("run", "4"), 1000).tolist() == [0.25] * 1000


def test_an_entry_just_written_is_kept_even_past_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = state.ScoreCache(tmp_path)
    monkeypatch.setattr(state, "CACHE_LIMIT", 100)  # smaller than any entry
    cache.put(cache.key("a"), np.full(50, 0.5))
    _aged(cache._path(cache.key("a")), 60)
    cache.put(cache.key("b"), np.full(50, 0.5))
    assert not cache._path(cache.key("a")).exists()
    assert cache.get(cache.key("b"), 50) is not None


def test_pruning_removes_temporary_files_of_killed_writers_only_when_stale(tmp_path: Path):
    folder = tmp_path / "ab"
    folder.mkdir()
    stale = folder / ".abcd.bin.k2j4.tmp"
    fresh = folder / ".abce.bin.x9q1.tmp"
    for path in (stale, fresh):
        path.write_bytes(b"half")
    _aged(stale, state.STALE_TEMP_SECONDS + 60)
    entry = folder / "abcd.bin"
    entry.write_bytes(b"whole")
    assert state.prune_store(tmp_path, ".bin") == 0  # far under the bound
    assert not stale.exists()
    assert fresh.exists() and entry.exists()


def test_user_defaults(isolated_state: Path):
    assert state.load_user_defaults() == (state.UserDefaults(), None)
    path = state.config_dir() / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('metric = "rouge1"\nk = 3\n')
    defaults, warning = state.load_user_defaults()
    assert defaults.metric == "rouge1" and defaults.k == 3.0 and warning is None
    path.write_text("metric = [")
    defaults, warning = state.load_user_defaults()
    assert defaults == state.UserDefaults() and "ignored" in warning


def test_marks_file_is_plain_json():
    store = state.MarkStore("s", "fp", "b", "c")
    store.set("e", "fine", "n", "h")
    data = json.loads(store.path.read_text())
    assert data["marks"]["e"]["mark"] == "fine"


def test_run_digest_tells_every_cut_of_the_same_text_apart() -> None:
    """The score cache's key for a run: the same ids and outputs give the same digest; moving
    a character between an id and an output, or between two examples, never does."""
    from rouge_tui.scoring import run_digest

    runs = [
        {"ab": "c"},
        {"a": "bc"},
        {"a": "b", "c": "d"},
        {"a": "bcd"},
        {"a": "", "": "bcd"},
        {"a": "bcd", "": ""},
        {"é": "\ud800x"},
        {},
    ]
    digests = [run_digest(run) for run in runs]
    assert len(set(digests)) == len(runs)
    assert run_digest({"a": "b", "c": "d"}) == digests[2]
    assert run_digest({"c": "d", "a": "b"}) != digests[2]  # file order counts
