"""store/log: the review log that lets a later report say the frozen references moved.

The end-to-end cases (a real edit of references.jsonl, two unnamed suites in folders of the
same name) run through the CLI in tests/test_cli.py; here the log itself, under faults.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from test_paths import FAULTS, inject

from rouge_tui.store import log as log_module
from rouge_tui.store import paths
from rouge_tui.store.log import ReviewLog


def entry(fingerprint: str, baseline: str = "b1", candidate: str = "b2", **more: object) -> dict:
    return {"fingerprint": fingerprint, "baseline": baseline, "candidate": candidate, **more}


def test_each_distinct_review_is_recorded_once() -> None:
    log = ReviewLog("suite")
    log.record(entry("a"))
    log.record(entry("a"))  # the same review again
    log.record(entry("a", candidate="b3"))
    log.record(entry("a"))  # not the last one: a new review of an old pair
    assert [(e["fingerprint"], e["candidate"]) for e in ReviewLog("suite").entries()] == [
        ("a", "b2"), ("a", "b3"), ("a", "b2"),
    ]  # fmt: skip
    assert all(e["time"] for e in log.entries())
    assert log.warning is None


def test_no_change_while_the_references_stay() -> None:
    log = ReviewLog("suite")
    assert log.reference_change("a", ("b1", "b2")) is None  # no log yet
    log.record(entry("a"))
    assert log.reference_change("a", ("b1", "b2")) is None


def test_a_change_is_said_and_persists_while_builds_scored_before_are_compared() -> None:
    log = ReviewLog("suite")
    log.record(entry("old", time_note="first"))
    change = log.reference_change("new", ("b1", "b2"))
    assert change is not None and (change.previous, change.current) == ("old", "new")
    message = change.message()
    assert message.startswith("references changed since ")
    assert "fingerprint old -> new" in message
    log.record(entry("new"))
    # the newest review used these references, but b1 and b2 were scored against others
    again = log.reference_change("new", ("b1", "b2"))
    assert again is not None and again.previous == "old"
    # a pair never scored against the old references, after the newest review used the new
    assert log.reference_change("new", ("b3", "b4")) is None
    # the newest review used other references than these: said whatever the pair
    log.record(entry("newer", "b5", "b6"))
    assert log.reference_change("new", ("b7", "b8")).previous == "newer"


def test_a_build_name_that_is_not_utf8_round_trips_in_the_log() -> None:
    log = ReviewLog("suite")
    log.record(entry("a", "a", "b\udcff"))
    log.record(entry("a", "a", "b\udcff"))  # read back, the same review: not recorded twice
    fresh = ReviewLog("suite")
    assert [e["candidate"] for e in fresh.entries()] == ["b\udcff"]
    assert fresh.warning is None
    assert fresh.reference_change("z", ("a", "b\udcff")).previous == "a"
    fresh.path.read_bytes().decode("utf-8")


def test_the_log_keeps_the_newest_entries_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_module, "LIMIT", 5)
    log = ReviewLog("suite")
    for i in range(8):
        log.record(entry("a", candidate=f"c{i}"))
    assert [e["candidate"] for e in log.entries()] == ["c3", "c4", "c5", "c6", "c7"]


def test_suites_of_other_identities_keep_other_logs() -> None:
    one, two = ReviewLog("suite at /a/suite"), ReviewLog("suite at /b/suite")
    assert one.path != two.path and one.path.parent == two.path.parent
    one.record(entry("a"))
    assert two.entries() == [] and two.reference_change("z", ("b1", "b2")) is None


def test_a_suite_in_a_new_folder_is_compared_with_its_reviews_anywhere_then_its_own() -> None:
    first = ReviewLog("suite", "/a/suite")
    first.record(entry("a", place="/a/suite"))
    moved = ReviewLog("suite", "/b/suite")
    assert moved.reference_change("a", ("b1", "b2")) is None  # moved, references the same
    assert moved.reference_change("z", ("b1", "b2")).previous == "a"  # moved and changed
    moved.record(entry("z", place="/b/suite"))
    assert moved.reference_change("z", ("b1", "b2")) is None  # its own reviews now
    assert first.reference_change("a", ("b1", "b2")) is None  # and /a/suite keeps its own
    assert ReviewLog("suite").reference_change("a", ("b5", "b6")).previous == "z"  # no place: all


def test_a_change_seen_from_a_new_folder_says_which_folder_was_reviewed() -> None:
    """A newcomer's first report of an edited copy said "references changed since" a time
    that was another folder's review, and nothing said so: the warning now names it."""
    ReviewLog("suite", "/a/suite").record(entry("a", place="/a/suite"))
    copy = ReviewLog("suite", "/b/suite")
    change = copy.reference_change("z", ("b1", "b2"))
    assert change is not None and change.elsewhere == "/a/suite"
    assert "(a review of this suite's name in /a/suite):" in change.message()
    copy.record(entry("z", place="/b/suite"))
    copy.record(entry("z", candidate="b3", place="/b/suite"))
    own = copy.reference_change("y", ("b1", "b2"))  # its own reviews now: no folder named
    assert own is not None and own.previous == "z" and own.elsewhere is None
    assert "review of this suite's name" not in own.message()
    # a folder name is shown on one line, its controls made visible
    odd = ReviewLog("suite", "/c").reference_change("q")
    assert odd is not None and odd.elsewhere == "/b/suite"
    hostile = ReviewLog("other", "/d")
    hostile.record(entry("a", place="/e/\x1b[31mred\nline"))
    said = ReviewLog("other", "/f").reference_change("q").message()
    assert "\x1b" not in said and "\n" not in said
    deep = "/" + "/".join(["very-long-folder-name"] * 5) + "/copy-b"  # a long path keeps its end
    ReviewLog("deep", "/g").record(entry("a", place=deep))
    said = ReviewLog("deep", "/h").reference_change("q").message()
    assert "…" in said and "/copy-b)" in said and len(said) < len(deep) + 150


def test_reviews_from_before_folders_were_recorded_count_as_this_folders() -> None:
    """A review found the warning dropped after one run: b1 and b2 were scored against other
    references in a review recorded before the log said where, and said no more."""
    log = ReviewLog("suite", "/a/suite")
    log.record(entry("old"))  # as an earlier version wrote it: no place
    log.record(entry("new", place="/a/suite"))
    again = log.reference_change("new", ("b1", "b2"))
    assert again is not None and again.previous == "old"


def test_a_busy_copy_elsewhere_never_pushes_out_a_folders_own_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_module, "LIMIT", 5)
    original, copy = ReviewLog("suite", "/a/suite"), ReviewLog("suite", "/b/suite")
    original.record(entry("a", place="/a/suite"))
    for i in range(12):
        copy.record(entry("b", candidate=f"c{i}", place="/b/suite"))
    assert original.reference_change("a", ("b1", "b2")) is None  # its own review is still there
    assert [e["candidate"] for e in copy.entries() if e.get("place") == "/b/suite"] == [f"c{i}" for i in range(7, 12)]


def test_the_log_keeps_the_folders_reviewed_last_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Weak spot of issue 39: a CI job that clones into a fresh folder each run grew the log
    without end (200,000 entries: 84 MB, each report 0.15 -> 1.4 s). Only the newest
    `FOLDERS` folders' reviews are kept, each folder's newest `LIMIT`."""
    monkeypatch.setattr(log_module, "LIMIT", 2)
    monkeypatch.setattr(log_module, "FOLDERS", 3)
    for run in range(7):  # seven CI runs, each in a folder of its own, two reviews each
        log = ReviewLog("suite", f"/ci/run-{run}/suite")
        for candidate in ("b2", "b3", "b4"):
            log.record(entry("a", candidate=candidate, place=f"/ci/run-{run}/suite"))
    kept = [(e["place"], e["candidate"]) for e in ReviewLog("suite").entries()]
    assert kept == [(f"/ci/run-{run}/suite", c) for run in (4, 5, 6) for c in ("b3", "b4")]
    # an old folder reviewed again is one of the newest again, and its review is compared
    # with the newest reviews of the name anywhere, as any folder seen for the first time
    back = ReviewLog("suite", "/ci/run-0/suite")
    assert back.reference_change("z", ("b1", "b2")).elsewhere == "/ci/run-6/suite"
    back.record(entry("z", place="/ci/run-0/suite"))
    assert [e["place"] for e in ReviewLog("suite").entries()] == [
        "/ci/run-5/suite", "/ci/run-5/suite", "/ci/run-6/suite", "/ci/run-6/suite", "/ci/run-0/suite",
    ]  # fmt: skip


CORRUPT = {
    "broken": b"[1, 2",
    "empty": b"",
    "a list": b"[]",
    "no entries": b'{"suite": "s"}',
    "entries not a list": b'{"entries": {"a": 1}}',
    "deep nesting": b'{"entries": ' + b"[" * 100_000,
    "not utf-8": b'{"entries": ["\xff"]}',
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_log_is_set_aside_with_a_warning(name: str) -> None:
    log = ReviewLog("suite")
    log.path.parent.mkdir(parents=True, exist_ok=True)
    log.path.write_bytes(CORRUPT[name])
    assert log.entries() == []
    assert log.warning is not None and "unreadable" in log.warning and "kept it as" in log.warning
    (kept,) = [p for p in log.path.parent.iterdir() if ".corrupt-" in p.name]
    assert kept.read_bytes() == CORRUPT[name] and str(kept) in log.warning
    log.record(entry("a"))  # a new log; the one set aside is never touched
    assert [e["fingerprint"] for e in ReviewLog("suite").entries()] == ["a"]
    assert kept.read_bytes() == CORRUPT[name]


def test_entries_that_are_not_reviews_are_skipped() -> None:
    log = ReviewLog("suite")
    log.path.parent.mkdir(parents=True, exist_ok=True)
    log.path.write_text(json.dumps({"entries": [1, {"fingerprint": 2}, entry("a"), "x"]}))
    assert [e["fingerprint"] for e in log.entries()] == ["a"]
    assert log.warning is None


def _lock_fails(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


@pytest.mark.parametrize("fault", [*FAULTS, "lock-EROFS"])
def test_a_failed_record_keeps_the_log_and_only_warns(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = ReviewLog("suite")
    log.record(entry("f1"))
    before = log.path.read_bytes()
    with monkeypatch.context() as patch:
        if fault == "lock-EROFS":
            patch.setattr(log_module, "locked", _lock_fails)
        else:
            inject(patch, fault)
        log.record(entry("f2", candidate="c"))  # no exception: the record is all it costs
    assert log.warning is not None and log.warning.startswith("could not record the review in ")
    assert log.path.read_bytes() == before
    assert sorted(p.name for p in log.path.parent.iterdir()) == sorted(
        [log.path.name, log.path.name + ".lock"]
    )


def test_a_file_where_the_data_directory_belongs_only_warns(tmp_path: Path) -> None:
    blocker = paths.data_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_bytes(b"x")
    log = ReviewLog("suite")
    log.record(entry("a"))
    assert log.warning is not None and "could not record the review" in log.warning
    assert blocker.read_bytes() == b"x"


def test_report_sets_aside_a_deeply_nested_log_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 12, item 3, for the log: report crashed with a RecursionError (exit 1)."""
    from safety_helpers import small_suite

    from rouge_tui import cli

    suite = small_suite(tmp_path / "suite", name="nested log")
    code = cli.main(["report", str(suite), "--format", "json"])
    capsys.readouterr()
    log = ReviewLog("nested log")
    deep = b'{"entries": ' + b"[" * 100_000
    log.path.write_bytes(deep)
    assert cli.main(["report", str(suite), "--format", "json"]) == code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (warning,) = [w for w in json.loads(captured.out)["warnings"] if "references alone" not in w]
    assert warning.startswith(f"review log {log.path} was unreadable (not valid JSON (nested too deeply))")
    (kept,) = [p for p in log.path.parent.iterdir() if ".corrupt-" in p.name]
    assert kept.read_bytes() == deep
    assert [e["fingerprint"] for e in ReviewLog("nested log").entries()] != []  # a new log


def test_an_imported_suites_log_is_its_task_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A harness's task is the suite's identity: two tasks at one path keep two logs, and
    one task's log follows its name to another folder (as a suite.toml name does)."""
    from toy_format import install, write_toy

    from rouge_tui.suite.suite import open_suite

    install(monkeypatch)
    folder = write_toy(write_toy(tmp_path / "a", task="qa"), task="summ")
    qa, summ = (ReviewLog.of(open_suite(folder, name=task)) for task in ("qa", "summ"))
    assert qa.path != summ.path and qa.path == ReviewLog("qa").path and summ.path == ReviewLog("summ").path
    assert ReviewLog.of(open_suite(write_toy(tmp_path / "b", task="qa"))).path == qa.path
