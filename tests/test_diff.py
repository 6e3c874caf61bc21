"""The diff model against rouge-score 0.1.2 (the oracle) and the chapter's hand-checked counts."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from rouge_tui.diff import (
    DIFF_METRICS,
    AlignedRow,
    example_diff,
    fold_words,
    markdown_block,
    output_alignment,
    render_plain,
    segments,
    side_segments,
)
from rouge_tui.metrics.tokenize import Token, tokenize_with_offsets

# The chapter's worked example, copied from reference/rouge-chapter.txt (hard-wrapped there).
REFERENCE = """The outage began at 02:14 UTC when a configuration push removed the read
replica from the connection pool. Checkout requests queued behind a single
primary and timed out for 41 minutes. The fix was a rollback of the config
change; a guard has since been added to block pushes that reduce pool size
below two."""
SUMMARY_A = """A bad config deploy at 02:14 UTC dropped the replica out of the pool, so all
checkout traffic piled onto the primary and failed for roughly three quarters
of an hour. Engineers reverted the deploy, and pushes that shrink the pool
below two members are now rejected."""
SUMMARY_B = """The outage began at 02:14 UTC when a configuration push removed the read
replica from the connection pool. Checkout requests queued behind a single
primary and timed out for 41 minutes. A guard has since been added to block
pushes that reduce pool size below two. The incident was caused by
insufficient test coverage in the deployment pipeline."""


class _Whitespace:
    """The chapter's tokenizer, handed to rouge-score so it stays the oracle for the arithmetic."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


def oracle(metric: str, tokenizer: str, stem: bool = False) -> rouge_scorer.RougeScorer:
    if tokenizer == "whitespace":
        return rouge_scorer.RougeScorer([metric], tokenizer=_Whitespace())
    return rouge_scorer.RougeScorer([metric], use_stemmer=stem)


def oracle_tokens(text: str, tokenizer: str, stem: bool = False) -> list[str]:
    return oracle("rougeL", tokenizer, stem)._tokenizer.tokenize(text)


def lsum_reference_hits(reference: str, candidate: str, tokenizer: str, stem: bool) -> list[str]:
    """The reference tokens rouge-score's `_summary_level_lcs` counts as hits, in order.

    Built from rouge-score's own `lcs_ind` / `_find_union`, replaying its clipping loop.
    """
    tok = oracle("rougeL", tokenizer, stem)._tokenizer

    def sents(text: str) -> list[list[str]]:
        return [tok.tokenize(s) for s in text.split("\n") if len(s)]

    ref_s, can_s = sents(reference), sents(candidate)
    if not ref_s or not can_s:
        return []
    left_r = Counter(t for s in ref_s for t in s)
    left_c = Counter(t for s in can_s for t in s)
    hits = []
    for r in ref_s:
        union = rouge_scorer._find_union([rouge_scorer.lcs_ind(r, c) for c in can_s])
        for t in (r[i] for i in union):
            if left_c[t] > 0 and left_r[t] > 0:
                hits.append(t)
                left_c[t] -= 1
                left_r[t] -= 1
    return hits


def check_invariants(
    reference: str, baseline: str, candidate: str, metric: str, tokenizer: str, stem: bool = False
) -> None:
    """Highlight counts equal the matches in P and R, and P/R/F equal rouge-score's floats."""
    diff = example_diff("x", [reference], baseline, candidate, metric, tokenizer, stem)
    scorer = oracle(metric, tokenizer, stem)
    for text, side in ((baseline, diff.baseline), (candidate, diff.candidate)):
        want = scorer.score(reference, text)[metric]
        assert (side.precision, side.recall, side.fmeasure) == (
            want.precision,
            want.recall,
            want.fmeasure,
        )
        assert [t.text for t in side.tokens] == oracle_tokens(text, tokenizer, stem)
        for k, token in enumerate(side.tokens):
            assert text[token.start : token.end], k  # offsets point at real characters
        if metric in ("rougeL", "rougeLsum"):
            assert len(side.on_lcs) == side.matches
            assert len(side.reference_on) == side.matches
            ref_tokens = diff.reference.tokens
            on_words = [side.tokens[k].text for k in sorted(side.on_lcs)]
            ref_words = [ref_tokens[k].text for k in sorted(side.reference_on)]
            if metric == "rougeL":
                # rouge-score's own traceback picks exactly these reference positions...
                want_ref = rouge_scorer.lcs_ind(
                    oracle_tokens(reference, tokenizer, stem), oracle_tokens(text, tokenizer, stem)
                )
                assert sorted(side.reference_on) == want_ref
                # ...and the highlighted output words are the same subsequence.
                assert on_words == ref_words
            else:
                hits = lsum_reference_hits(reference, text, tokenizer, stem)
                assert ref_words == hits
                assert Counter(on_words) == Counter(hits)
        elif metric == "rouge1":
            assert len(side.on_lcs) == side.matches
    # The reference view marks exactly what each side matched in it.
    by = diff.reference.matched_by
    base_on, cand_on = diff.baseline.reference_on, diff.candidate.reference_on
    for k, mark in enumerate(by):
        assert mark == (
            "both"
            if k in base_on and k in cand_on
            else "baseline"
            if k in base_on
            else "candidate"
            if k in cand_on
            else "neither"
        )


# --- the chapter ---------------------------------------------------------------------------


def test_chapter_example_counts_whitespace_rougeL() -> None:
    diff = example_diff("inc", [REFERENCE], SUMMARY_A, SUMMARY_B, "rougeL", "whitespace")
    a, b = diff.baseline, diff.candidate
    assert (len(a.on_lcs), a.candidate_len, a.reference_len) == (16, 47, 55)
    assert (len(b.on_lcs), b.candidate_len, b.reference_len) == (46, 58, 55)
    assert round(a.fmeasure, 4) == 0.3137
    assert round(b.fmeasure, 4) == 0.8142
    assert a.arithmetic() == "LCS 16 · P 16/47 = 0.34 · R 16/55 = 0.29 · F 0.31"
    assert b.arithmetic() == "LCS 46 · P 46/58 = 0.79 · R 46/55 = 0.84 · F 0.81"
    # The verbatim splice: B's first 46 words are the LCS, its invented ending is not.
    assert b.on_lcs == set(range(46))
    check_invariants(REFERENCE, SUMMARY_A, SUMMARY_B, "rougeL", "whitespace")


@pytest.mark.parametrize("metric", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize(
    "tokenizer,stem", [("whitespace", False), ("rouge-score", False), ("rouge-score", True)]
)
def test_chapter_example_every_metric(metric: str, tokenizer: str, stem: bool) -> None:
    check_invariants(REFERENCE, SUMMARY_A, SUMMARY_B, metric, tokenizer, stem)


def test_rouge1_arithmetic_and_rouge2_words() -> None:
    # hand-worked: reference "pool size below two", output "shrink the pool below two members"
    diff = example_diff(
        "f", ["pool size below two"], "x", "shrink the pool below two members", "rouge1"
    )
    assert diff.candidate.arithmetic() == (
        "unigram overlap 3 · P 3/6 = 0.50 · R 3/4 = 0.75 · F 0.60"
    )
    diff = example_diff(
        "f", ["pool size below two"], "x", "shrink the pool below two members", "rouge2"
    )
    # only the bigram "below two" is shared: 1 of 5 output bigrams, 1 of 3 reference bigrams
    assert diff.candidate.arithmetic() == (
        "bigram overlap 1 · P 1/5 = 0.20 · R 1/3 = 0.33 · F 0.25"
    )
    assert diff.candidate.on_lcs == {3, 4}
    assert diff.reference.matched_by == ["neither", "neither", "candidate", "candidate"]


# --- offsets -------------------------------------------------------------------------------


def test_highlight_drawn_on_text_as_written_without_punctuation() -> None:
    reference = "The outage began at 02:14 UTC when"
    output = "It started 02:14 UTC, then"
    diff = example_diff("utc", [reference], "nothing alike", output, "rougeL", "rouge-score")
    shown = [
        output[t.start : t.end]
        for k, t in enumerate(diff.candidate.tokens)
        if k in diff.candidate.on_lcs
    ]
    assert shown == ["02", "14", "UTC"]
    pieces, left_out = side_segments(diff.candidate)
    assert left_out == 0
    assert "".join(p.text for p in pieces) == output
    marked = [p.text for p in pieces if p.mark == "match"]
    assert marked == ["02", "14 UTC"]  # the colon and the comma are not highlighted
    # whitespace mode keeps the comma: the token is "utc," and does not match "utc"
    diff = example_diff("utc", [reference], "nothing alike", output, "rougeL", "whitespace")
    shown = [
        output[t.start : t.end]
        for k, t in enumerate(diff.candidate.tokens)
        if k in diff.candidate.on_lcs
    ]
    assert shown == ["02:14"]


def test_segments_limit_and_merging() -> None:
    text = "aa bb, cc\ndd"
    tokens = [Token("aa", 0, 2), Token("bb", 3, 5), Token("cc", 7, 9), Token("dd", 10, 12)]
    pieces, left = segments(text, tokens, ["m", "m", "m", "m"])
    assert [(p.text, p.mark) for p in pieces] == [
        ("aa bb", "m"),
        (", ", None),
        ("cc", "m"),
        ("\n", None),
        ("dd", "m"),
    ]
    pieces, left = segments(text, tokens, ["m", None, "m", "m"], limit=4)
    assert "".join(p.text for p in pieces) == "aa b"
    assert left == len(text) - 4


# --- invariants on generated texts ---------------------------------------------------------

VOCAB = [
    "the",
    "The",
    "pool",
    "pool,",
    "below",
    "two.",
    "02:14",
    "UTC,",
    "utc",
    "a",
    "A",
    "push",
    "pushes",
    "pushing",
    "config",
    "İstanbul",
    "\u212aelvin",
    "don't",
    "--",
    "42",
    "x[/]y",
    "[bold]",
    "rolled-back",
    "rollback",
]
SEPARATORS = [" ", " ", " ", " ", "\n", "\r\n", "\n\n", "  ", "\t", ", "]


def random_text(rng: random.Random, words: int) -> str:
    parts = []
    for _ in range(words):
        parts.append(rng.choice(VOCAB))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts)


@pytest.mark.parametrize("metric", ["rougeL", "rougeLsum", "rouge1", "rouge2"])
@pytest.mark.parametrize(
    "tokenizer,stem", [("whitespace", False), ("rouge-score", False), ("rouge-score", True)]
)
def test_invariants_generated(metric: str, tokenizer: str, stem: bool) -> None:
    rng = random.Random(f"{metric}{tokenizer}{stem}")
    for _ in range(25):
        reference = random_text(rng, rng.randint(0, 40))
        check_invariants(
            reference,
            random_text(rng, rng.randint(0, 40)),
            random_text(rng, rng.randint(0, 40)),
            metric,
            tokenizer,
            stem,
        )


texts = st.lists(st.tuples(st.sampled_from(VOCAB), st.sampled_from(SEPARATORS)), max_size=30).map(
    lambda parts: "".join(w + s for w, s in parts)
)
free_text = st.text(alphabet=st.sampled_from(list("ab c\n.:İ\u212a1")), max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reference=texts | free_text,
    baseline=texts | free_text,
    candidate=texts | free_text,
    metric=st.sampled_from(["rougeL", "rougeLsum"]),
    tokenizer=st.sampled_from(["whitespace", "rouge-score"]),
)
def test_invariants_hypothesis(
    reference: str, baseline: str, candidate: str, metric: str, tokenizer: str
) -> None:
    check_invariants(reference, baseline, candidate, metric, tokenizer)


def test_rougeLsum_reuses_a_token_taken_by_an_earlier_hit() -> None:
    # Both reference sentences pair with the same output word "a"; the output has another
    # "a" elsewhere, so rouge-score counts two hits and two distinct output words light up.
    reference = "a\na"
    output = "a b a"
    diff = example_diff("r", [reference], "", output, "rougeLsum", "whitespace")
    assert diff.candidate.matches == 2
    assert diff.candidate.on_lcs == {0, 2}
    check_invariants(reference, "", output, "rougeLsum", "whitespace")


# --- multi-reference -----------------------------------------------------------------------


def test_multi_reference_each_side_picks_its_best_and_the_view_says_so() -> None:
    references = ["the cat sat on the mat", "a dog ran in the park", "the cat sat on the mat"]
    baseline = "a dog ran in a park"
    candidate = "the cat sat on a mat"
    diff = example_diff("m", references, baseline, candidate, "rougeL", "whitespace")
    for text, side in ((baseline, diff.baseline), (candidate, diff.candidate)):
        want = oracle("rougeL", "whitespace").score_multi(references, text)["rougeL"]
        assert side.fmeasure == want.fmeasure
    assert diff.baseline.reference_index == 1
    assert diff.candidate.reference_index == 0  # ties go to the first listed
    assert diff.reference.index == 0
    assert diff.reference.text == references[0]
    assert "baseline scored best against reference 2" in diff.reference.note
    # the baseline's marks in the shown reference are its matches against *that* reference
    # (the baseline shares no word with reference 1, so nothing there is marked as its)
    assert diff.reference.matched_by == [
        "candidate",
        "candidate",
        "candidate",
        "candidate",
        "neither",
        "candidate",
    ]


def test_no_reference_and_unknown_metric_are_errors() -> None:
    with pytest.raises(ValueError):
        example_diff("x", [], "a", "b")
    with pytest.raises(ValueError):
        example_diff("x", ["a"], "a", "b", metric="rouge3")
    with pytest.raises(ValueError):
        example_diff("x", ["a"], "a", "b", tokenizer="whitespace", stem=True)


# --- the outputs' alignment ----------------------------------------------------------------


def chapter_lcs(a: list[str], b: list[str]) -> int:
    """The chapter's textbook table: the oracle for the alignment's length."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


def check_alignment(baseline: str, candidate: str, tokenizer: str) -> list[AlignedRow]:
    rows = output_alignment(baseline, candidate, tokenizer)
    tok = oracle("rougeL", tokenizer)._tokenizer.tokenize
    left = [r.left for r in rows if r.kind != "insert"]
    right = [r.right for r in rows if r.kind != "delete"]
    # the rows together hold both outputs' word sequences, in order, as written
    assert tok(" ".join(left)) == tok(baseline)
    assert tok(" ".join(right)) == tok(candidate)
    for row in rows:
        assert (row.left_words, row.right_words) == (len(tok(row.left)), len(tok(row.right)))
        if row.kind == "equal":
            assert tok(row.left) == tok(row.right) and row.left_words > 0
        elif row.kind == "delete":
            assert row.left_words > 0 and row.right == ""
        elif row.kind == "insert":
            assert row.right_words > 0 and row.left == ""
        else:
            assert row.left_words > 0 and row.right_words > 0
    # unchanged words are a longest common subsequence; runs are maximal
    equal = sum(r.left_words for r in rows if r.kind == "equal")
    assert equal == chapter_lcs(tok(baseline), tok(candidate))
    for one, two in itertools.pairwise(rows):
        assert not (one.kind == "equal" and two.kind == "equal")
        assert one.kind == "equal" or two.kind == "equal"
    return rows


def test_alignment_chapter() -> None:
    rows = check_alignment(SUMMARY_A, SUMMARY_B, "whitespace")
    assert rows[0] == AlignedRow("replace", "A bad config deploy", "The outage began", 4, 3)
    assert rows[1] == AlignedRow("equal", "at 02:14 UTC", "at 02:14 UTC", 3, 3)
    assert rows[-1].kind == "replace"
    assert rows[-1].right.endswith("deployment pipeline.")
    check_alignment(SUMMARY_A, SUMMARY_B, "rouge-score")


def test_alignment_empty_sides() -> None:
    assert output_alignment("", "", "whitespace") == []
    assert output_alignment("a b", "", "whitespace") == [AlignedRow("delete", "a b", "", 2, 0)]
    assert output_alignment("", " a b ", "whitespace") == [AlignedRow("insert", "", "a b", 0, 2)]


def test_alignment_keeps_punctuation_between_runs_in_rouge_score_mode() -> None:
    rows = output_alignment('"Rollback," they said.', "rollback they shouted", "rouge-score")
    assert rows == [
        AlignedRow("equal", '"Rollback," they', "rollback they", 2, 2),
        AlignedRow("replace", "said.", "shouted", 1, 1),
    ]


@settings(max_examples=150, deadline=None)
@given(
    baseline=texts | free_text,
    candidate=texts | free_text,
    tokenizer=st.sampled_from(["whitespace", "rouge-score"]),
)
def test_alignment_hypothesis(baseline: str, candidate: str, tokenizer: str) -> None:
    check_alignment(baseline, candidate, tokenizer)


def test_fold_words() -> None:
    text = " ".join(f"w{k}" for k in range(40))
    assert fold_words(text, 40) == "w0 w1 w2 … 34 unchanged words … w37 w38 w39"
    assert fold_words("a b c", 3) == "a b c"


# --- plain rendering -----------------------------------------------------------------------

HOSTILE = "x [/] y [bold red]no[/] \x1b]2;title\x07 \u202egnp.exe \x1b[31mred\x1b[0m\r\n"


def test_render_plain_has_the_arithmetic_and_escapes_control_characters() -> None:
    diff = example_diff("id\x1b[2J", [REFERENCE + HOSTILE], SUMMARY_A, SUMMARY_B + HOSTILE)
    rows = output_alignment(SUMMARY_A, SUMMARY_B + HOSTILE, "whitespace")
    text = render_plain(diff, rows)
    assert "baseline: LCS 16 · P 16/47 = 0.34" in text
    assert diff.candidate.arithmetic() in text
    assert f"candidate: {diff.candidate.arithmetic()}" in text
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "\r" not in text
    assert "\\x1b]2;title\\x07" in text
    assert "\\u202egnp.exe" in text
    assert "[bold red]no[/]" in text  # markup is just text here
    assert "id\\x1b[2J" in text
    assert "- A bad config deploy" in text and "+ The outage began" in text
    # the reference marks: words only the candidate matched, e.g. "outage"
    assert "<<The outage began>>" in text


def test_render_plain_caps_a_huge_output_but_counts_it_all() -> None:
    huge = "word " * 20_000
    diff = example_diff("big", ["word word"], "word", huge)
    rows = output_alignment("word", huge, "whitespace")
    text = render_plain(diff, rows, limit=1000)
    assert len(text) < 20_000
    assert "more characters not shown" in text
    assert diff.candidate.candidate_len == 20_000


def test_markdown_block_fence_cannot_be_closed_by_the_text() -> None:
    block = markdown_block("a\n```\nb ````` c")
    first = block.splitlines()[0]
    assert first == "``````text"
    assert block.rstrip("\n").endswith("\n``````")


def test_the_diff_model_does_not_load_textual() -> None:
    # The export and the headless report use this module; Textual costs ~0.2 s to import.
    code = "import sys, rouge_tui.diff; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# A text, a seed for its tokens' marks, a limit on what is shown, a tokenizer.
SEGMENT_CASES = {
    "text": texts | free_text,
    "seed": st.integers(0, 1000),
    "limit": st.none() | st.integers(0, 60),
    "tokenizer": st.sampled_from(["whitespace", "rouge-score"]),
}


def marked_tokens(text: str, tokenizer: str, seed: int) -> tuple[list, list[str | None]]:
    """The text's tokens, each given a mark (or none) at random."""
    tokens = tokenize_with_offsets(text, tokenizer)
    rng = random.Random(seed)
    return tokens, [rng.choice([None, "a", "b"]) for _ in tokens]


@settings(max_examples=200, deadline=None)
@given(**SEGMENT_CASES)
def test_segments_cover_the_text_and_carry_each_token_mark(
    text: str, seed: int, limit: int | None, tokenizer: str
) -> None:
    tokens, marks = marked_tokens(text, tokenizer, seed)
    pieces, left_out = segments(text, tokens, marks, limit)
    shown = text if limit is None else text[:limit]
    assert "".join(p.text for p in pieces) == shown
    assert left_out == len(text) - len(shown)
    assert all(p.text for p in pieces)
    assert all(a.mark != b.mark for a, b in itertools.pairwise(pieces))
    # the mark of every character, from the pieces
    per_char = [p.mark for p in pieces for _ in p.text]
    for token, mark in zip(tokens, marks):
        for k in range(token.start, min(token.end, len(shown))):
            assert per_char[k] == mark
    inside = {k for t in tokens for k in range(t.start, t.end)}
    for k, mark in enumerate(per_char):
        if k not in inside and mark is not None:
            assert text[k] in " \t"  # only spaces between two like-marked words take a mark


@settings(max_examples=100, deadline=None)
@given(
    reference=texts | free_text,
    candidate=texts | free_text,
    metric=st.sampled_from(DIFF_METRICS),
    tokenizer=st.sampled_from(["whitespace", "rouge-score"]),
)
def test_alignment_of_tokens_made_beforehand_is_the_alignment(
    reference: str, candidate: str, metric: str, tokenizer: str
) -> None:
    from rouge_tui.metrics import alignment

    given_tokens = alignment(
        reference,
        candidate,
        metric,
        tokenizer,
        reference_tokens=tokenize_with_offsets(reference, tokenizer),
        candidate_tokens=tokenize_with_offsets(candidate, tokenizer),
    )
    assert given_tokens == alignment(reference, candidate, metric, tokenizer)


@settings(max_examples=300, deadline=None)
@given(**SEGMENT_CASES)
def test_marked_runs_are_the_marked_segments(
    text: str, seed: int, limit: int | None, tokenizer: str
) -> None:
    from rouge_tui.diff import marked_runs

    tokens, marks = marked_tokens(text, tokenizer, seed)
    pieces, left_out = segments(text, tokens, marks, limit)
    expected, at = [], 0
    for piece in pieces:
        if piece.mark is not None:
            expected.append((at, at + len(piece.text), piece.mark))
        at += len(piece.text)
    assert marked_runs(text, tokens, marks, limit) == (expected, left_out)


def test_marked_runs_hand_checked() -> None:
    from rouge_tui.diff import marked_runs

    text = "aa bb\ncc, dd  ee"
    tokens = tokenize_with_offsets(text, "rouge-score")
    # aa bb: one run across the space; cc after a newline and dd after a comma start new
    # runs; dd and ee join across two spaces; a different mark starts its own run.
    assert marked_runs(text, tokens, ["m", "m", "m", "m", "m"]) == (
        [(0, 5, "m"), (6, 8, "m"), (10, 16, "m")],
        0,
    )
    assert marked_runs(text, tokens, ["m", None, "m", "n", "n"], limit=12) == (
        [(0, 2, "m"), (6, 8, "m"), (10, 12, "n")],
        4,
    )
