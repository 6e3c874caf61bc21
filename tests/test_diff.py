"""The diff model: counted words equal the arithmetic, the word diff covers both texts."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import CHAPTER_A, CHAPTER_B, CHAPTER_REFERENCE, tricky_texts

from rouge_tui.analysis.settings import Settings
from rouge_tui.diff import (
    OTHER_TEXT,
    Piece,
    alignment,
    annotate,
    example_diff,
    fold,
    styled_pieces,
    word_diff,
)
from rouge_tui.rouge import Token, engine


def test_the_chapters_pair_reads_like_its_arithmetic() -> None:
    diff = example_diff("inc-0042", [CHAPTER_REFERENCE], CHAPTER_A, CHAPTER_B, Settings())
    assert diff.baseline.arithmetic() == "LCS 16 · P 16/47 = 0.34 · R 16/55 = 0.29 · F 0.31"
    assert diff.candidate.arithmetic() == "LCS 46 · P 46/58 = 0.79 · R 46/55 = 0.84 · F 0.81"
    counted = [p.text for p in diff.candidate.pieces() if p.kind == "counted"]
    assert sum(len(text.split()) for text in counted) == 46
    assert "The incident was caused by" not in " ".join(counted)


@settings(max_examples=150, deadline=None)
@given(st.lists(tricky_texts(), min_size=1, max_size=3), tricky_texts(), tricky_texts(),
       st.sampled_from(["rouge1", "rouge2", "rougeL", "rougeLsum"]),
       st.sampled_from([("whitespace", False), ("rouge-score", True), ("unicode", False)]))
def test_sides_score_as_the_engine_does(references, baseline, candidate, metric, tok) -> None:
    settings_ = Settings(metric=metric, tokenizer=tok[0], stem=tok[1])
    diff = example_diff("x", references, baseline, candidate, settings_)
    want = engine.score([tuple(references)] * 2, [baseline, candidate], metric, tok[0], tok[1])
    for side, row in ((diff.baseline, want[0]), (diff.candidate, want[1])):
        m = side.match
        assert (m.precision, m.recall, m.fmeasure) == tuple(row)
        if metric != "rouge2":
            assert len(m.candidate_on) == m.matches


@settings(max_examples=300, deadline=None)
@given(tricky_texts(), tricky_texts())
def test_word_diff_pieces_rebuild_both_texts(baseline: str, candidate: str) -> None:
    base, cand, merged = word_diff(baseline, candidate)
    assert "".join(p.text for p in base) == baseline
    assert "".join(p.text for p in cand) == candidate
    assert {p.kind for p in base} <= {"same", "removed"} and {p.kind for p in cand} <= {"same", "added"}
    # The merged text holds every word of the candidate in order, and every removed word.
    kept = "".join(p.text for p in merged if p.kind != "removed")
    assert kept.split() == candidate.split()
    # Without the pieces that are not the candidate's, it is the candidate, character for
    # character (the grounding marks go in at the candidate's offsets).
    assert "".join(p.text for p in merged if p.kind not in OTHER_TEXT) == candidate
    removed = [w for p in merged if p.kind == "removed" for w in p.text.split()]
    assert removed == [w for p in base if p.kind == "removed" for w in p.text.split()]
    # A removed run stands apart from the word before it (it read "timeout.[-Also:").
    shown = ""
    for p in merged:
        assert p.kind != "removed" or not shown or shown[-1].isspace(), (shown, p.text)
        shown += p.text


def test_word_diff_hand_worked() -> None:
    _, _, merged = word_diff("the pool was drained", "the pool was full")
    assert [(p.kind, p.text) for p in merged] == [("same", "the pool was "), ("removed", "drained"), ("gap", " "), ("added", "full")]
    _, _, merged = word_diff("the pool was drained. Page on-call", "the pool was drained.")
    assert [(p.kind, p.text) for p in merged] == [("same", "the pool was drained."), ("gap", " "), ("removed", "Page on-call")]


@settings(max_examples=200, deadline=None)
@given(tricky_texts(), tricky_texts(), st.data())
def test_a_mark_in_the_merged_diff_stands_before_the_candidates_text_at_its_offset(
    baseline: str, candidate: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(candidate)))
    merged = annotate(word_diff(baseline, candidate)[2], [(at, 1, "flag", "[?]")], skip=OTHER_TEXT)
    flag = [k for k, p in enumerate(merged) if p.kind == "flag"]
    assert len(flag) == 1
    before = "".join(p.text for p in merged[: flag[0]] if p.kind not in OTHER_TEXT)
    assert before == candidate[:at]


def test_the_chapters_closing_sentence_is_flagged_where_it_starts_in_the_word_diff() -> None:
    # Baseline A to candidate B removes five runs before B's closing sentence: a space put
    # after each of them once moved the flag five characters early ("belo[?]w").
    closing = CHAPTER_B.index("The incident was caused")
    merged = annotate(word_diff(CHAPTER_A, CHAPTER_B)[2], [(closing, 1, "flag", "[?]")], skip=OTHER_TEXT)
    shown = "".join(p.text for p in merged)
    assert "two. [?]The incident was caused by" in shown


def test_styled_pieces_join_stretches_of_one_kind() -> None:
    text = "a b c d"
    tokens = [Token(w, i * 2, i * 2 + 1) for i, w in enumerate("abcd")]
    pieces = styled_pieces(text, tokens, {0: "counted", 1: "counted", 3: "counted"})
    assert [(p.kind, p.text) for p in pieces] == [("counted", "a b"), ("same", " c "), ("counted", "d")]


def test_fold_keeps_three_words_each_side_and_counts_the_rest() -> None:
    words = " ".join(f"w{i}" for i in range(20))
    folded = fold(word_diff(words, words + " end")[2])
    assert [p.kind for p in folded] == ["same", "fold", "same", "added"]
    assert folded[1].text == "… 14 unchanged words …"
    assert folded[0].text.split() == ["w0", "w1", "w2"] and folded[2].text.split() == ["w17", "w18", "w19"]
    assert fold(word_diff("a b", "a c")[2]) == word_diff("a b", "a c")[2]


def _shown(merged) -> str:
    marks = {"removed": "[-{}-]", "added": "{{+{}+}}"}
    return "".join(marks.get(p.kind, "{}").format(p.text) for p in merged)


def test_an_appended_sentence_keeps_its_full_stop() -> None:
    # CNN/DM-style text, punctuation as its own word: the bare LCS paired the baseline's
    # full stop with the candidate's last one (`operation {+. he was sentenced+} .`).
    base = "police said the man was arrested after the operation ."
    cand = base + " he was sentenced to five years ."
    assert _shown(word_diff(base, cand)[2]) == base + " {+he was sentenced to five years .+}"
    inserted = "He said it. They came back. She left."
    assert _shown(word_diff("He said it. She left.", inserted)[2]) == "He said it. {+They came back.+} She left."


def test_two_unrelated_outputs_are_one_removed_run_and_one_added_run() -> None:
    base = "the cut of the film was shown for a week , the studio said ."
    cand = "the morning show , was corrected for a new audience , and a critic wrote about it ."
    _, _, merged = word_diff(base, cand)
    assert [(p.kind, p.text) for p in merged] == [("removed", base), ("gap", " "), ("added", cand)]


def test_a_short_shared_word_between_two_changes_joins_them() -> None:
    # "to" (2 letters) between "rose"/"fell" and "5%"/"3%": one change, as a person writes it.
    _, _, merged = word_diff("the rate rose to 5% on Monday", "the rate fell to 3% on Monday")
    assert _shown(merged) == "the rate [-rose to 5%-] {+fell to 3%+} on Monday"
    # A shared run longer than the changes around it stays shared.
    _, _, merged = word_diff("a rate rose in the western region today", "a rate fell in the western region now")
    assert _shown(merged) == "a rate [-rose-] {+fell+} in the western region [-today-] {+now+}"
    # And one of more than a few words, however long the changes around it (a newcomer read
    # an unchanged eight-word sentence between two rewritten ones as removed and added).
    # (the sample's inc-0230)
    import json
    from pathlib import Path

    builds = Path(__file__).resolve().parent.parent / "sample_suites" / "incident-summaries" / "builds"
    base, cand = (next(json.loads(line)["output"] for line in (builds / f"{name}.jsonl").open()
                       if json.loads(line)["id"] == "inc-0230") for name in ("2026-11-26_aa3f5f", "2026-11-27_9f03aa"))
    _, _, merged = word_diff(base, cand)
    unchanged = " ".join(piece.text for piece in merged if piece.kind == "same")
    assert "Disk alerts now fire at 80% instead of 95%." in unchanged, _shown(merged)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "the", ",", ".", "b", "c."]), max_size=12),
       st.lists(st.sampled_from(["a", "the", ",", ".", "b", "c."]), max_size=12))
def test_the_alignment_is_a_common_subsequence(old: list[str], new: list[str]) -> None:
    pairs = alignment(old, new)
    assert all(old[i] == new[j] for i, j in pairs)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(pairs))
    if old == new:
        assert len(pairs) == len(old)


def test_a_shared_clause_stays_shared_between_two_rewritten_sentences() -> None:
    # Less than half shared, but a whole clause: it stays, between the changes around it.
    base = "At 08:09 the job hung. Migrations now run with a lock timeout. Add a runbook entry."
    cand = "The incident started when a migration took a lock. Migrations now run with a lock timeout."
    assert _shown(word_diff(base, cand)[2]) == (
        "[-At 08:09 the job hung.-] {+The incident started when a migration took a lock.+} "
        "Migrations now run with a lock timeout. [-Add a runbook entry.-]"
    )
    # A leading word and a closing full stop are all two other texts share: replaced whole.
    _, _, merged = word_diff("The cut was shown for a week .", "The morning show was corrected for good .")
    assert [p.kind for p in merged] == ["removed", "gap", "added"]


@pytest.mark.parametrize("words", range(1, 30))
def test_the_display_folds_only_a_shared_stretch_of_more_than_twelve_words(words: int) -> None:
    """A review: the word diff's own threshold (a shared run of three words at most goes into
    the change around it) was named as the display's fold and replaced it, so a shared run of
    four words folded to "… -2 unchanged words …", six to "… 0 unchanged words …". README:
    `f` folds unchanged stretches of more than twelve words, three kept at each end."""
    text = " ".join(f"w{k}" for k in range(words)) + " "
    folded = fold([Piece("same", text), Piece("added", "new")])
    if words <= 12:
        assert folded == [Piece("same", text), Piece("added", "new")]
    else:
        said = [p.text for p in folded if p.kind == "fold"]
        assert said == [f"… {words - 6} unchanged words …"]
        shown = "".join(p.text for p in folded if p.kind == "same").split()
        assert shown == [f"w{k}" for k in (0, 1, 2, words - 3, words - 2, words - 1)]
