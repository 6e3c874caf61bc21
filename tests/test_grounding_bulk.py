"""grounding_bulk: `new_counts`, tested only through itself, against the reference
(`ground_side` and `least_support`, SPEC's definitions restated) on random texts, and against
counts worked out by hand. The paths it takes inside (tiny chunks, hash clashes, too many
distinct words) are forced by lowering its limits, never by calling its privates."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest
from grounding_helpers import FRESH, REFERENCE, SOURCE, SUMMARY_A, SUMMARY_B, examples, texts
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rouge_tui.analysis import grounding_bulk
from rouge_tui.analysis.grounding import ground_side, least_support
from rouge_tui.analysis.grounding_bulk import new_counts


def reference_counts(candidates, baselines, references, sources, min_support):
    """What `new_counts` must give: the reference, one example at a time."""
    sides = [ground_side(c, r, s, b, min_support=min_support)
             for c, b, r, s in zip(candidates, baselines, references, sources)]
    return ([len(x.new_sentences) for x in sides], [len(x.new_figures) for x in sides],
            [least_support(x) for x in sides])


def check_bulk(candidates, baselines, references, sources, min_support):
    got = new_counts(candidates, baselines, references, sources, min_support)
    expected = reference_counts(candidates, baselines, references, sources, min_support)
    assert got[0].tolist() == expected[0]
    assert got[1].tolist() == expected[1]
    assert got[2].tolist() == pytest.approx(expected[2], abs=1e-12)


long_texts = st.lists(st.sampled_from(["a", "b", "the", "cat", "x", "y", "z", "12", ". ", "\n"]),
                      max_size=300).map(" ".join)
suites = st.lists(
    st.tuples(texts | long_texts, texts | long_texts, st.lists(texts | long_texts, max_size=3).map(
        tuple), st.none() | texts, st.booleans()),
    max_size=12,
)


def check_suite(suite, min_support):
    """``suite``: (candidate, baseline, references, source, the baseline is the candidate)."""
    check_bulk([c for c, *_ in suite], [c if same else b for c, b, _, _, same in suite],
               [r for _, _, r, _, _ in suite], [s for _, _, _, s, _ in suite], min_support)


# -- the reference on random texts -----------------------------------------------------------


@given(suites, st.sampled_from([0.5, 0.3, 0.75, 1.0]))
@settings(max_examples=300, deadline=None)
def test_the_bulk_path_equals_the_reference_one(suite, min_support):
    check_suite(suite, min_support)


@given(suites)
@settings(max_examples=150, deadline=None)
def test_the_bulk_path_equals_the_reference_one_across_chunks_and_hash_clashes(suite):
    """Tiny chunks, tables of two slots tried twice (words find no slot and their examples
    take the reference path), and a closing mark stepped over one byte at most before the
    search for the end of the run: the counts must not change."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grounding_bulk, "_CHUNK_CHARS", 64)
        patch.setattr(grounding_bulk, "_CHUNK_EXAMPLES", 3)
        patch.setattr(grounding_bulk, "_TABLE_BITS", 1)
        patch.setattr(grounding_bulk, "_ROUNDS", 2)
        patch.setattr(grounding_bulk, "_CLOSING_STEPS", 1)
        check_suite(suite, 0.5)


@given(suites)
@example([("y.", "x x x.", ("z.",), None, False), ("x x x.", "x.", ("x.",), None, False)])
@settings(max_examples=100, deadline=None)
def test_the_bulk_path_equals_the_reference_one_when_every_hash_is_equal(suite):
    """Every word's hash 0: each word seems to equal the first one kept, and only comparing
    the words themselves finds that they are not (their examples take the reference path:
    both the one of the word looked up and the one of the word it was taken for, whose
    sentences would otherwise match the other's texts)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_K1", "_K2", "_K3"):
            patch.setattr(grounding_bulk, name, np.uint64(0))
        check_suite(suite, 0.5)


@given(suites)
@settings(max_examples=100, deadline=None)
def test_the_bulk_path_leaves_examples_with_too_many_distinct_words(suite):
    """A sentence's words become characters, one code point per distinct word of the
    candidates that share a rapidfuzz call: when they have more distinct words than code
    points, they take the reference path, all of them (here the limit is lowered to 3 words)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grounding_bulk, "_MAX_CODE", 3)
        check_suite(suite, 0.5)


@given(suites.filter(lambda suite: len(suite) > 1), st.data())
@settings(max_examples=100, deadline=None)
def test_each_slice_of_the_examples_counts_as_in_the_whole(suite, data):
    """The pipeline may count a slice of the examples at a time (in several processes): an
    example's counts are its own, whatever else is counted with it."""
    start = data.draw(st.integers(0, len(suite) - 1))
    end = data.draw(st.integers(start + 1, len(suite)))
    columns = ([c for c, *_ in suite], [c if same else b for c, b, _, _, same in suite],
               [r for _, _, r, _, _ in suite], [s for _, _, _, s, _ in suite])
    whole = new_counts(*columns)
    part = new_counts(*(column[start:end] for column in columns))
    for got, expected in zip(part, whole):
        assert got.tolist() == expected[start:end].tolist()


@given(examples, FRESH)
@settings(max_examples=200, deadline=None)
def test_a_sentence_of_words_no_text_has_is_one_more_new_sentence(example, fresh):
    candidate, baseline, references, source = example
    assert "zq" not in (candidate + baseline + "".join(references) + (source or "")).casefold()
    counts = new_counts([candidate, candidate + "\n" + fresh], [baseline] * 2, [references] * 2,
                        [source] * 2)[0]
    assert counts[1] == counts[0] + 1


# -- texts whose sentences, words and numbers are hard to read in bytes ---------------------

CASES = [
    "One. Two! Three? Four", 'He said "stop." Then left.', "[Done!] Go?! Now.\u2019 Yes.\u201d Ok",
    "Now.\u2019\u201d) Next", "a.\u00a0b", "a\r\nb\rc\u2028d\x85e", "\u300c\u597d\u3002\u300d\u4ed6",
    "\u771f\u7684\u5417\uff1f\uff01\u662f", "\u3002\u201d.\u3002x", "x\x00y. z\x01\x02",
    "Stra\u00dfe \u0130stanbul STRASSE", "a verylongwordindeedmorethan16 b", "\ud800x. y",
    "at 02:14, 3.5% of 1,200 on 2026-11-20 (v2) 1..2 4/5-6 7%%", "\u0663.5 and 3.5",
    "Go." + ")" * 12 + " Next.\u2019\u201d" * 3 + " on",  # more closing marks than are stepped over
]


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("min_support", [0.5, 1.0])
def test_the_bulk_path_equals_the_reference_on_hard_texts(text, min_support):
    """Each case as the candidate against every case as its reference, the other way round,
    and alone (each of its sentences and numbers new)."""
    candidates = [text] * len(CASES) + CASES + [text]
    references = [(other,) for other in CASES] + [(text,)] * len(CASES) + [()]
    check_bulk(candidates, [""] * len(candidates), references, [None] * len(candidates), min_support)


@pytest.mark.parametrize(("candidate", "reference", "min_support", "expected"), [
    # A CJK full stop ends a sentence with no space after it: the second is new (no word shared).
    ("我们走吧。他说好。", "我们走吧。", 0.5, (1, 0, 0.0)),
    # Closing marks stay with their sentence.
    ('He said "stop." Then left.', 'He said "stop."', 0.5, (1, 0, 0.0)),
    # Each of str.splitlines' line boundaries ends a sentence: a b d e are new, c is not.
    ("a\r\nb\rc\u2028d\x85e", "c", 0.5, (4, 0, 0.0)),
    # A NUL inside a text is not a boundary between texts: "x\x00y." is "x y.", then "z".
    ("x\x00y. z", "x y.", 0.5, (1, 0, 0.0)),
    # Words of 9, 16 and 17 bytes that differ in their last byte are different words: 2 of 3
    # words, 1 of 2, 1 of 2.
    ("a abcdefghijklmnopq b.", "a abcdefghijklmnopr b.", 1.0, (1, 0, 2 / 3)),
    ("x abcdefghijklmnop.", "x abcdefghijklmnoq.", 1.0, (1, 0, 1 / 2)),
    ("x abcdefghi.", "x abcdefghj.", 1.0, (1, 0, 1 / 2)),
    ("a abcdefghijklmnopq b.", "A ABCDEFGHIJKLMNOPQ B.", 1.0, (0, 0, 1.0)),  # casefolded
    # Numbers 02:14 3.5% 1,200 2 (of v2) 1 2 against 02:14 1.2 2: 3.5%, 1,200 and 1 are new;
    # one sentence of 11 words (at 02 14 3 5 of 1 200 v2 1 2), of which 02 14 1 2 in order.
    ("at 02:14, 3.5% of 1,200 (v2) 1..2", "02:14 and 1.2 and 2", 0.5, (1, 3, 4 / 11)),
    # An Arabic-Indic digit is a digit: ٣.5 is a number the reference lacks (it has 5 and 3.5);
    # 5 and 3 5 are 4 of the 5 words ٣ 5 and 3 5.
    ("\u0663.5 and 3.5", "5 and 3.5", 0.5, (0, 1, 1.0)),
])
def test_the_bulk_path_on_hand_worked_texts(candidate, reference, min_support, expected):
    counts = new_counts([candidate], [""], [(reference,)], [None], min_support)
    assert (counts[0][0], counts[1][0]) == expected[:2]
    assert counts[2][0] == pytest.approx(expected[2], abs=1e-12)


def test_the_bulk_path_counts_empty_and_unchanged_outputs():
    # An empty candidate has nothing new; "Fresh words here 7." is a new sentence (support 0)
    # with a new number against an empty baseline; an output equal to its baseline has none.
    counts = new_counts(["", "Fresh words here 7.", "same"], ["x", "", "same"], [("x",)] * 3)
    assert [c.tolist() for c in counts] == [[0, 1, 0], [0, 1, 0], [1.0, 0.0, 1.0]]


def test_a_number_of_the_baseline_is_not_new():
    # 7 is the first baseline's, not the second's; "7 apples." shares 1 of its 2 words with
    # either baseline: not new at 0.5.
    counts = new_counts(["7 apples.", "7 apples."], ["7 pears.", "8 apples."], [(), ()])
    assert [c.tolist() for c in counts] == [[0, 0], [0, 1], [1.0, 1.0]]


def test_min_support_must_be_a_share():
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(ValueError, match="min_support"):
            new_counts(["a"], ["b"], [("a",)], min_support=bad)


def test_the_bulk_path_counts_words_whose_codes_pass_the_surrogates():
    """60,000 distinct words: their codes run past U+D800-U+DFFF (and past one byte). Half of
    them in order are a counterpart (support 0.5); one fewer is not; all of them backwards
    share one word in order with the candidate (every word a code of its own, those in the
    surrogates too)."""
    vocabulary = [f"w{k}" for k in range(60_000)]
    candidate = " ".join(vocabulary)
    half = " ".join(vocabulary[30_000:])
    counts = new_counts([candidate, candidate, "a b", candidate], ["x", "x", "y", "x"],
                        [(half,), (" ".join(vocabulary[30_001:]),), ("a",), (" ".join(vocabulary[::-1]),)])
    assert counts[0].tolist() == [0, 1, 0, 1]
    assert counts[2][3] == 1 / 60_000


def test_the_bulk_path_on_the_chapter_pair():
    counts = new_counts([SUMMARY_B, SUMMARY_A, SUMMARY_B], [SUMMARY_A, SUMMARY_B, SUMMARY_B],
                        [(REFERENCE,), (REFERENCE,), REFERENCE], [SOURCE, SOURCE, None])
    assert counts[0].tolist() == [1, 2, 0]  # B against A; A against B; B unchanged
    assert counts[1].tolist() == [0, 0, 0]


def test_the_bulk_path_with_no_examples():
    counts = new_counts([], [], [])
    assert counts[0].dtype.kind == "i" and len(counts[0]) == len(counts[1]) == 0
    assert isinstance(counts[0], np.ndarray)


def test_casefold_keeps_every_mark_the_sentence_rule_and_the_bulk_path_read():
    """The bulk path casefolds before it cuts and finds numbers; it may, because no character's
    casefold makes or unmakes a space, a line break, a separator, a stop, a closing mark, a
    digit or a number's mark."""
    marks = set(".!?\"')]\u2019\u201d\u3002\uff01\uff1f\u300d\u300f\uff09\x00\x01,:/-%0123456789")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        if char.isspace() or char in marks:
            assert folded == char, hex(code)
        else:
            assert not any(c.isspace() or c in marks for c in folded), hex(code)


# -- pathological text: time and memory stay bounded ------------------------------------------


@pytest.mark.parametrize("run", [".", "!?", ".)", ".\u2019", "." + ")" * 40])
def test_a_megabyte_run_of_stops_is_counted_in_under_a_second(run):
    """Issue 39, 7: a run of . ! or ? with no whitespace after it, a megabyte long, where the
    sentence regex once backtracked for hours. (A second, not half: a process's first arrays
    of megabytes cost it page faults that the reference's cut, which allocates less, does not.)"""
    text = "A claim " + run * ((1 << 20) // len(run)) + "x. Next one"
    start = time.perf_counter()
    counts = new_counts([text], ["Other words"], [("Next one",)])
    assert time.perf_counter() - start < 1
    assert [c.tolist() for c in counts][:2] == [[1], [0]]


_PEAK = """
import resource, sys
from rouge_tui.analysis.grounding_bulk import new_counts
n = int(sys.argv[1])
output = " ".join(f"w{i} x{i % 7}." for i in range(n))
reference = " ".join(f"w{i + 1} y{i % 5}." for i in range(n))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
counts = new_counts([output], [reference], [(reference,)])
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown >> 10, int(counts[0][0]))
"""


def test_the_bulk_path_on_two_texts_of_thousands_of_sentences_holds_no_full_matrix():
    """Issue 39, 9: as the reference (tests/test_grounding.py), 4,000 sentences against 4,000
    in the reference and the same again as the baseline: full matrices of 64 and 128 MB; the
    blocks hold 16 MB."""
    import subprocess

    result = subprocess.run([sys.executable, "-c", _PEAK, "4000"], capture_output=True,
                            text=True, timeout=120, check=True)
    grown, new = map(int, result.stdout.split())
    # "wK xJ." shares wK with the reference's sentence "wK yJ'." (1 of 2 words: support 0.5),
    # but for "w0 x0.": no text has w0
    assert new == 1
    assert grown < 48, f"{grown} MB more at the peak"
