"""review.Review: how each mark shows on the comparison in front of the reader, and the
table's filter (find_rows).

Every case is set up on disk and reopened, as a person closing the app and coming back
would; the expected marks, reasons and rows are the ones the test planted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from safety_helpers import ROOT, xdg_env
from suite_helpers import jsonl, make_suite, settle_files

from rouge_tui import cli
from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.review import Review, find_rows
from rouge_tui.suite.suite import open_suite

REFERENCES = {
    "t1": "the outage began at 02:14 UTC when a push removed the replica",
    "t2": "a dog ran in the park today",
    "e1": "rain is expected in the north",
    "o1": "Fine weather is expected",
    "o2": "the cat sat on the mat",
}
BASELINE = {
    "t1": "the outage began at 02:14 UTC when a push removed the replica",
    "t2": "a dog ran in the park today",
    "e1": "rain in the north",
    "o1": "fine weather expected",
    "o2": "the cat sat",
}
CANDIDATE = {
    "t1": "the outage began at 02:14",  # a strict prefix: truncated
    "t2": "a dog",  # a strict prefix: truncated
    "e1": "",  # empty (not truncated)
    "o1": "FINE weather is EXPECTED",
    "o2": "the cat sat on the mat",
}
TRUNCATED = {"t1", "t2"}


def outputs(texts: dict[str, str]) -> str:
    return jsonl(*({"id": k, "output": v} for k, v in texts.items()))


def write_suite(root: Path, *, name: str | None = "reviewed", **builds: dict[str, str]) -> Path:
    builds = builds or {"1-base": BASELINE, "2-cand": CANDIDATE}
    return make_suite(
        root,
        jsonl(*({"id": k, "reference": v} for k, v in REFERENCES.items())),
        {f"{build}.jsonl": outputs(texts) for build, texts in builds.items()},
        toml=None if name is None else f'name = "{name}"\n',
    )


def review(path: Path, baseline: str | None = None, candidate: str | None = None) -> Review:
    analysis = open_analysis(open_suite(path), Settings(), baseline, candidate, caches=Caches.default())
    return Review(analysis, analysis.texts.result())


def shown(found: Review) -> dict[str, tuple]:
    return {
        key: (s.word, s.note, s.stale, s.reason, s.carried_from) for key, s in found.shown().items()
    }


def edit(path: Path, replace: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    assert replace[0] in text
    path.write_text(text.replace(*replace, 1), encoding="utf-8")


# ---------------------------------------------------------------------- how marks show


def test_marks_made_here_show_as_made_here_after_reopening(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "s")
    first = review(path)
    assert first.set_mark("t1", "regression", "cut at 02:14") is None
    assert first.set_mark("o2", "fine") is None
    assert shown(review(path)) == {
        "t1": ("regression", "cut at 02:14", False, "", None),
        "o2": ("fine", "", False, "", None),
    }


def test_a_mark_whose_outputs_changed_since_shows_stale_with_the_reason(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "s")
    review(path).set_mark("t1", "regression", "cut")
    review(path).set_mark("o2", "fine", "")
    edit(path / "builds" / "2-cand.jsonl", ("the outage began at 02:14", "the outage began at 02:15"))
    assert shown(review(path)) == {
        "t1": ("regression", "cut", True, "the outputs changed since", None),
        "o2": ("fine", "", False, "", None),  # its outputs did not change
    }


def test_a_mark_on_an_example_no_longer_in_both_builds_still_shows(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "s")
    review(path).set_mark("o2", "fine", "kept")
    cand = path / "builds" / "2-cand.jsonl"
    cand.write_text(outputs({k: v for k, v in CANDIDATE.items() if k != "o2"}))
    assert shown(review(path))["o2"] == ("fine", "kept", True, "not in both builds any more", None)


def test_marks_of_examples_that_are_no_row_are_counted_apart(tmp_path: Path) -> None:
    """The app's status line once said "6 marked" over a comparison whose rows held 4 marks:
    the other two were of examples no longer in both builds."""
    path = write_suite(tmp_path / "s")
    for example in ("o2", "t1", "e1"):
        review(path).set_mark(example, "fine", "")
    assert review(path).outside() == 0
    cand = path / "builds" / "2-cand.jsonl"
    cand.write_text(outputs({k: v for k, v in CANDIDATE.items() if k not in ("o2", "e1")}))
    again = review(path)
    assert len(again.shown()) == 3 and again.outside() == 2
    assert set(again.analysis.figures.ids) == {"t1", "t2", "o1"}


@pytest.mark.parametrize("name", ["reviewed", None], ids=["named", "unnamed"])
def test_marks_made_against_earlier_references_still_show_stale(
    name: str | None, tmp_path: Path
) -> None:
    """Issue 12, item 7: change one word of one reference, reopen: every mark and note
    still shows, stale, with the reason."""
    path = write_suite(tmp_path / "s", name=name)
    first = review(path)
    first.set_mark("t1", "regression", "cut at 02:14")
    first.set_mark("o2", "fine", "complete now")
    old = first.texts.references.fingerprint
    edit(path / "references.jsonl", ("sat on the mat", "sat on the rug"))
    again = review(path)
    assert again.texts.references.fingerprint != old
    reason = f"made against earlier references ({old[:12]})"
    assert shown(again) == {
        "t1": ("regression", "cut at 02:14", True, reason, None),
        "o2": ("fine", "complete now", True, reason, None),
    }
    # a new mark against the new references replaces the earlier one for that example
    again.set_mark("o2", "unsure", "check the rug")
    assert shown(review(path)) == {
        "t1": ("regression", "cut at 02:14", True, reason, None),
        "o2": ("unsure", "check the rug", False, "", None),
    }


def test_clearing_a_mark_made_against_earlier_references_clears_it(tmp_path: Path) -> None:
    """A pass on marks: x then y on a mark shown stale (made against earlier references) said
    "the regression mark and its note cleared", and the row and the file still held it: the
    clear looked under these references' slot. It clears the mark shown; a new mark made
    here since is what a second clear takes."""
    path = write_suite(tmp_path / "s")
    first = review(path)
    first.set_mark("t1", "regression", "cut at 02:14")
    first.set_mark("o2", "fine", "complete now")
    edit(path / "references.jsonl", ("sat on the mat", "sat on the rug"))
    again = review(path)
    cleared = again.clear("t1")
    assert cleared is not None and (cleared.word, cleared.note) == ("regression", "cut at 02:14")
    assert set(shown(review(path))) == {"o2"}  # gone from the file, not only from this view
    assert again.clear("t1") is None


def test_following_a_re_read_with_moved_references_keeps_a_mark_that_could_not_be_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app reads the pair shown again (a file changed): the review now judges marks on
    the texts read again; with other references its marks are theirs, and a mark whose
    save failed before is still there, saved by the next save, as made against the earlier
    references (what the user wrote is never lost)."""
    import errno

    path = write_suite(tmp_path / "s")
    first = review(path)
    old = first.texts.references.fingerprint

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        with pytest.raises(OSError):
            first.set_mark("t1", "regression", "cut at 02:14")
    edit(path / "references.jsonl", ("sat on the mat", "sat on the rug"))
    analysis = open_analysis(open_suite(path), Settings(), caches=Caches.default())
    first.follow(analysis, analysis.texts.result())
    assert first.texts.references.fingerprint != old
    reason = f"made against earlier references ({old[:12]})"
    assert shown(first) == {"t1": ("regression", "cut at 02:14", True, reason, None)}
    first.set_mark("o2", "fine")  # the next save writes both
    assert shown(review(path)) == {
        "t1": ("regression", "cut at 02:14", True, reason, None),
        "o2": ("fine", "", False, "", None),
    }


def test_report_json_shows_marks_made_against_earlier_references(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path / "s")
    first = review(path)
    first.set_mark("t1", "regression", "cut at 02:14")
    old = first.texts.references.fingerprint
    edit(path / "references.jsonl", ("sat on the mat", "sat on the rug"))
    cli.main(["report", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["reference_fingerprint"] != old
    assert data["marks"] == {
        "t1": {
            "mark": "regression",
            "note": "cut at 02:14",
            "stale": True,
            "stale_reason": f"made against earlier references ({old[:12]})",
        }
    }


def test_another_unnamed_suite_in_a_folder_of_the_same_name_shows_none_of_these_marks(
    tmp_path: Path,
) -> None:
    one = write_suite(tmp_path / "one" / "suite", name=None)
    two = write_suite(tmp_path / "two" / "suite", name=None)
    edit(two / "references.jsonl", ("sat on the mat", "sat on the rug"))
    review(one).set_mark("t1", "regression", "one's mark")
    assert review(two).shown() == {}
    assert set(review(one).shown()) == {"t1"}


# ---------------------------------------------------------------------- carried marks


def _copied_pair(tmp_path: Path, change: dict[str, str] | None = None) -> Path:
    """Builds 1-base, 2-cand and the same two again as 3-base and 4-cand (the same change
    seen again), with ``change`` applied to 4-cand."""
    return write_suite(
        tmp_path / "s",
        **{"1-base": BASELINE, "2-cand": CANDIDATE, "3-base": BASELINE,
           "4-cand": {**CANDIDATE, **(change or {})}},
    )  # fmt: skip


def test_a_mark_carries_to_another_pair_where_both_outputs_are_byte_identical(tmp_path: Path) -> None:
    path = _copied_pair(tmp_path, {"o2": "the cat sat on the mat."})  # one byte more
    first = review(path, "1-base", "2-cand")
    first.set_mark("t1", "regression", "cut at 02:14")
    first.set_mark("o2", "fine", "complete")
    assert shown(review(path, "3-base", "4-cand")) == {
        "t1": ("regression", "cut at 02:14", False, "", ("1-base", "2-cand")),
        # o2's candidate differs by one byte: not the same change, not carried
    }
    data = review(path, "3-base", "4-cand").marks_json()
    assert data == {"t1": {"mark": "regression", "note": "cut at 02:14", "stale": False,
                           "carried_from": {"baseline": "1-base", "candidate": "2-cand"}}}  # fmt: skip


def test_a_new_mark_replaces_the_carried_one_for_this_pair_only(tmp_path: Path) -> None:
    path = _copied_pair(tmp_path)
    review(path, "1-base", "2-cand").set_mark("t1", "regression", "cut at 02:14")
    here = review(path, "3-base", "4-cand")
    assert here.get("t1").carried_from == ("1-base", "2-cand")
    here.set_mark("t1", "fine", "intended: a shorter summary")
    assert shown(review(path, "3-base", "4-cand"))["t1"] == (
        "fine", "intended: a shorter summary", False, "", None
    )
    assert shown(review(path, "1-base", "2-cand"))["t1"] == (
        "regression", "cut at 02:14", False, "", None
    )


def test_a_word_alone_on_a_carried_mark_starts_an_own_mark_without_its_note(tmp_path: Path) -> None:
    path = _copied_pair(tmp_path)
    review(path, "1-base", "2-cand").set_mark("t1", "regression", "the first pair's note")
    review(path, "3-base", "4-cand").set_mark("t1", "unsure")
    assert shown(review(path, "3-base", "4-cand"))["t1"] == ("unsure", "", False, "", None)


def test_clear_removes_this_pairs_mark_and_returns_it(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "s")
    here = review(path)
    here.set_mark("t1", "regression", "cut")
    removed = here.clear("t1")
    assert removed is not None and removed.note == "cut"
    assert review(path).shown() == {}
    assert here.clear("t1") is None  # nothing left to clear


def test_a_copy_of_the_suite_elsewhere_shows_the_same_marks(tmp_path: Path) -> None:
    """Marks belong to the content: the same named suite copied to another folder."""
    path = write_suite(tmp_path / "s")
    review(path).set_mark("t1", "regression", "cut")
    copy = tmp_path / "elsewhere" / "s"
    shutil.copytree(path, copy)
    assert shown(review(copy)) == {"t1": ("regression", "cut", False, "", None)}


MARK_IN_A_PROCESS = """
import sys
from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.review import Review
from rouge_tui.suite.suite import open_suite
path, baseline, candidate, *marks = sys.argv[1:]
analysis = open_analysis(open_suite(path), Settings(), baseline, candidate, caches=Caches.default())
review = Review(analysis, analysis.texts.result())
for example_id, word, note in zip(marks[::3], marks[1::3], marks[2::3]):
    review.set_mark(example_id, word, note)
"""


def test_carried_marks_across_separate_processes(tmp_path: Path) -> None:
    """SPEC "Marks carry over", each step its own process sharing only the XDG dirs: marks
    made on (a, c) show carried on (b, c) where b's and c's outputs are a's and c's bytes
    (t1), not where b's output has one byte more (o2); a mark on (b, c) then replaces the
    carried one there, and (a, c) keeps its own."""
    one_more = {**BASELINE, "o2": BASELINE["o2"] + "."}
    path = write_suite(tmp_path / "s", a=BASELINE, b=one_more, c=CANDIDATE)
    env = xdg_env(tmp_path / "xdg", PYTHONPATH=str(ROOT))

    def mark(baseline: str, *marks: str) -> None:
        done = subprocess.run([sys.executable, "-c", MARK_IN_A_PROCESS, str(path), baseline, "c", *marks],
                              env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr

    def marks(baseline: str) -> dict:
        done = subprocess.run([sys.executable, "-m", "rouge_tui", "report", str(path), "--format", "json",
                               "--baseline", baseline, "--candidate", "c"],
                              env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode in (0, 1), done.stderr
        return json.loads(done.stdout)["marks"]

    mark("a", "t1", "regression", "cut at 02:14", "o2", "fine", "complete now")
    assert marks("b") == {"t1": {"mark": "regression", "note": "cut at 02:14", "stale": False,
                                 "carried_from": {"baseline": "a", "candidate": "c"}}}  # fmt: skip
    mark("b", "t1", "fine", "intended: shorter")
    assert marks("b") == {"t1": {"mark": "fine", "note": "intended: shorter", "stale": False}}
    assert marks("a") == {
        "o2": {"mark": "fine", "note": "complete now", "stale": False},
        "t1": {"mark": "regression", "note": "cut at 02:14", "stale": False},
    }


# ---------------------------------------------------------------------- find_rows


def ids_found(found: Review, query: str) -> tuple[set[str], str]:
    rows, how = find_rows(found, query)
    figures = found.analysis.figures
    return {figures.ids[row] for row in rows.tolist()}, how


def test_find_rows_by_signal_name_and_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_suite(tmp_path / "s")
    here = review(path)
    cli.main(["report", str(path), "--format", "json"])
    counts = json.loads(capsys.readouterr().out)["signals"]
    for query in ("trunc", "truncated", "TRUNC", " trunc "):
        found, how = ids_found(here, query)
        assert found == TRUNCATED and how == "signal truncated", query
    assert counts["truncated"] == len(TRUNCATED)
    assert ids_found(here, "empty") == ({"e1"}, "signal empty")


def test_find_rows_by_id_and_text_ignoring_case(tmp_path: Path) -> None:
    here = review(write_suite(tmp_path / "s"))
    assert ids_found(here, "T1") == ({"t1"}, "text")  # part of an id
    assert ids_found(here, "02:14 utc") == ({"t1"}, "text")  # only in the baseline's output
    assert ids_found(here, "weather is expected") == ({"o1"}, "text")  # only in the candidate's
    assert ids_found(here, "nowhere at all") == (set(), "text")


def test_find_rows_by_mark_word_and_marked(tmp_path: Path) -> None:
    here = review(write_suite(tmp_path / "s"))
    here.set_mark("t1", "regression", "")
    here.set_mark("t2", "regression", "")
    here.set_mark("o2", "fine", "")
    here.set_mark("e1", None, "a note alone")  # unsure
    assert ids_found(here, "regression") == ({"t1", "t2"}, "mark regression")
    assert ids_found(here, "regr") == ({"t1", "t2"}, "mark regression")
    assert ids_found(here, "fine") == ({"o2"}, "mark fine")
    assert ids_found(here, "unsure") == ({"e1"}, "mark unsure")
    assert ids_found(here, "unsu") == ({"e1"}, "mark unsure")  # as a narrow table shows it
    assert ids_found(here, "marked") == ({"t1", "t2", "o2", "e1"}, "any mark")


def test_a_quoted_query_is_text_even_when_it_is_a_mark_or_a_signal_word(tmp_path: Path) -> None:
    here = review(write_suite(tmp_path / "s"))
    here.set_mark("t1", "fine", "")
    assert ids_found(here, '"fine"') == ({"o1"}, "text")  # "fine weather", in any case
    assert ids_found(here, '"trunc"') == (set(), "text")
    assert ids_found(here, "fine") == ({"t1"}, "mark fine")


def test_find_rows_stops_when_cancelled(tmp_path: Path) -> None:
    here = review(write_suite(tmp_path / "s"))
    rows, how = find_rows(here, "the", cancelled=lambda: True)
    assert how == "text" and rows.tolist() == []


def test_marks_on_a_build_whose_file_name_is_not_utf8_come_back(tmp_path: Path) -> None:
    path = write_suite(tmp_path / "s")
    builds = os.fsencode(path / "builds")
    os.rename(builds + b"/2-cand.jsonl", builds + b"/2-cand\xff.jsonl")
    first = review(path)
    assert first.candidate == "2-cand\udcff"
    assert first.set_mark("t1", "regression", "cut") is None
    assert first.set_mark("o2", "fine", "") is None  # the second save reads the first back
    again = review(path)
    assert again.warning is None
    assert shown(again) == {
        "t1": ("regression", "cut", False, "", None),
        "o2": ("fine", "", False, "", None),
    }


# ---------------------------------------------------------------------- the one way in


def test_open_review_reads_the_texts_only_for_marks_to_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With figures in the cache, `open_review` gives them without reading the texts (the
    app's first frame, a report with no marks); marks to judge are judged against the texts
    read then, and the app's opening (``marks=False``) leaves even that for later."""
    from rouge_tui.analysis import pipeline
    from rouge_tui.review import Request, open_review

    path = write_suite(tmp_path / "s")
    first = open_review(Request(path))  # fills the cache
    # Two outputs cut short and one emptied: the candidate's mean falls out of the band.
    assert first.marks() == {} and (first.analysis.figures.verdict, first.exit_code) == ("drift-down", 1)
    reads: list[str] = []
    real = pipeline.read_texts
    monkeypatch.setattr(pipeline, "read_texts", lambda *args, **kwargs: reads.append("read") or real(*args, **kwargs))

    opened = open_review(Request(path))
    assert opened.marks() == {} and reads == []  # no marks: nothing to read
    assert opened.analysis.figures.verdict == first.analysis.figures.verdict
    Review(opened.analysis, opened.texts()).set_mark("t1", "regression", "cut short")
    assert reads == ["read"]

    app_like = open_review(Request(path), marks=False)
    assert reads == ["read"]  # the figures only
    assert app_like.marks()["t1"]["mark"] == "regression" and reads == ["read", "read"]
    reported = open_review(Request(path))  # a report: its marks judged as it opens
    assert reads == ["read"] * 3 and reported.marks()["t1"]["note"] == "cut short"


def test_a_request_without_the_cache_reads_and_writes_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Request(cache=False)`` (--no-cache) opens the same review and leaves the cache
    folder as it found it: empty, even of the digests of files old enough to keep."""
    from rouge_tui.review import Request, open_review
    from rouge_tui.store.paths import cache_dir

    path = write_suite(tmp_path / "s", **{"0-earlier": BASELINE, "1-base": BASELINE, "2-cand": CANDIDATE})
    settle_files(monkeypatch)
    bare = open_review(Request(path, cache=False))
    assert len(bare.history()) == 3  # the earlier build hashed, the memo saved
    assert not cache_dir().exists() or not any(p.is_file() for p in cache_dir().rglob("*"))
    cached = open_review(Request(path))
    assert any(p.is_file() for p in (cache_dir() / "digests").rglob("*.bin"))
    assert bare.analysis.figures.verdict == cached.analysis.figures.verdict
    assert bare.analysis.figures.ids == cached.analysis.figures.ids
