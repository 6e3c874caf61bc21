"""grounding: SPEC's "What overlap cannot see", checked against hand-worked cases and against
oracles restated here (a textbook LCS table, the Newsroom fragment scan as published)."""

from __future__ import annotations

import re
import sys

import pytest
from grounding_helpers import (
    COPIED,
    FRESH,
    INVENTED,
    REFERENCE,
    SOURCE,
    SUMMARY_A,
    SUMMARY_B,
    examples,
    texts,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from rouge_tui.analysis.grounding import (
    Span,
    copy_means,
    coverage_density,
    fragments,
    ground,
    ground_side,
    lcs_length,
    least_support,
    numbers,
    sentences,
    words,
)


def oracle_lcs(a: list[str], b: list[str]) -> int:
    """The chapter's table."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


def oracle_support(sentence: str, text: str) -> float:
    """SPEC: the largest LCS(words(s), words(t)) / len(words(s)) over the sentences t of T."""
    own = re.findall(r"[^\W_]+", sentence.casefold())
    return max((oracle_lcs(own, re.findall(r"[^\W_]+", t.text.casefold())) / len(own)
                for t in sentences(text)), default=0.0)


# -- the chapter's pair --------------------------------------------------------------------


def test_the_invented_closing_sentence_is_the_only_new_sentence():
    g = ground(SUMMARY_B, [REFERENCE], SOURCE, SUMMARY_A)
    assert [s.span.text for s in g.candidate.sentences] == COPIED + [INVENTED]
    assert g.new_sentences == [INVENTED]
    assert g.unsupported == [INVENTED]
    assert g.new_figures == []  # 02:14 and 41 are the reference's


def test_the_three_copied_sentences_have_support_one_in_the_source():
    side = ground_side(SUMMARY_B, [], SOURCE)
    for row in side.sentences[:3]:
        assert row.counterpart.where == "source"
        assert row.counterpart.support == 1.0
        assert row.counterpart.sentence.text in SOURCE
        assert SOURCE[row.counterpart.sentence.start:row.counterpart.sentence.end] == (
            row.counterpart.sentence.text)
    assert side.sentences[3].counterpart.support < 0.5
    assert side.sentences[3].unsupported


def test_summary_a_a_correct_paraphrase_is_unsupported_by_overlap():
    """The chapter's point: overlap cannot tell a paraphrase from an invention."""
    side = ground_side(SUMMARY_A, [REFERENCE], SOURCE)
    assert len(side.sentences) == 2
    assert all(row.unsupported for row in side.sentences)
    # "at 02 14 utc ... the replica ... the pool": 8 of the first sentence's 32 words.
    assert side.sentences[0].counterpart.support == oracle_support(
        side.sentences[0].span.text, REFERENCE) == 8 / 32


def test_the_baseline_side_marks_its_own_unsupported_sentences():
    g = ground(SUMMARY_B, [REFERENCE], SOURCE, SUMMARY_A)
    assert g.baseline.unsupported == [s.span.text for s in g.baseline.sentences]
    assert g.baseline.sentences[0].in_other.where == "candidate"
    assert g.candidate.sentences[0].in_other.where == "baseline"


def test_a_changed_figure_is_new_and_a_figure_from_the_source_is_not():
    changed = SUMMARY_B.replace("41 minutes", "45 minutes")
    assert ground(changed, [REFERENCE], SOURCE, SUMMARY_A).new_figures == ["45"]
    from_source = ground(SUMMARY_B + " It began 20 minutes in.", [REFERENCE],
                         SOURCE.replace("outage.", "outage, 20 minutes in."), SUMMARY_A)
    assert from_source.new_figures == []


def test_copied_spans_of_the_chapter_pair():
    b = words(SUMMARY_B)
    assert len(b) == 19 + 13 + 15 + 12
    # The first two sentences (19 + 13 words) lie side by side in the source, then the guard
    # clause (15 words); of the closing sentence only "the", "was", "by", "the", one at a time.
    assert [f.length for f in fragments(b, words(SOURCE))] == [32, 15, 1, 1, 1, 1]
    coverage, density = coverage_density(b, words(SOURCE))
    assert coverage == 51 / 59
    assert density == (32 * 32 + 15 * 15 + 4) / 59
    g = ground(SUMMARY_B, [REFERENCE], SOURCE)
    assert (g.coverage, g.density) == (coverage, density)
    assert ground(SUMMARY_B, [REFERENCE]).coverage is None


def test_best_counterpart_names_the_reference_it_came_from():
    g = ground_side("Checkout requests queued behind a single primary.", ["Nothing here.", REFERENCE])
    row = g.sentences[0]
    assert row.counterpart.where == "reference 2"
    assert row.counterpart.sentence.text == COPIED[1]
    assert row.counterpart.support == 1.0
    assert ground_side("zebra", [REFERENCE]).sentences[0].counterpart is None


def test_ties_go_to_the_first_text_listed():
    row = ground_side("Cats sleep.", ["Cats sleep.", "Cats sleep."], "Cats sleep.").sentences[0]
    assert row.counterpart.where == "reference 1"


def test_edge_cases_of_the_arguments():
    assert ground("", [REFERENCE]).candidate.sentences == ()
    assert ground("", [REFERENCE]).new_sentences == []
    assert ground_side(SUMMARY_B, REFERENCE) == ground_side(SUMMARY_B, [REFERENCE])
    # No baseline counts as an empty one: the new sentences are then the unsupported ones.
    assert ground(SUMMARY_B, [REFERENCE]).new_sentences == [INVENTED]
    assert ground(SUMMARY_B, [REFERENCE]).baseline is None
    assert ground(SUMMARY_B, []).unsupported == [s.span.text for s in
                                                ground(SUMMARY_B, []).candidate.sentences]


# -- numbers (SPEC's figures) --------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("at 02:14 UTC", ["02:14"]),
    ("for 41 minutes", ["41"]),
    ("3.5% of requests", ["3.5%"]),
    ("1,200 users", ["1,200"]),
    ("on 2026-11-20", ["2026-11-20"]),
    ("v2 shipped", ["2"]),  # SPEC's regex has no word boundary: a version's digit counts
    ("e.g. this", []),
    ("1..2, 3.", ["1", "2", "3"]),  # a figure's joins are single marks between digits
    ("50%% and 4/5 and 10:30:15", ["50%", "4/5", "10:30:15"]),
])
def test_numbers(text, expected):
    assert [f.text for f in numbers(text)] == expected


def test_numbers_keep_offsets_into_the_text_as_written():
    assert numbers("at 02:14 UTC") == [Span("02:14", 3, 8)]


# -- sentences and words -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
    ("no final punctuation", ["no final punctuation"]),
    ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
    ("(It failed.) Next.", ["(It failed.)", "Next."]),
    ("[Done!] Go?! Now.\u2019 Yes.\u201d Ok", ["[Done!]", "Go?!", "Now.\u2019", "Yes.\u201d", "Ok"]),
    ("3.5% of users. v2.1 shipped", ["3.5% of users.", "v2.1 shipped"]),
    ("First line\nSecond line", ["First line", "Second line"]),
    ("a\r\nb\rc\u2028d", ["a", "b", "c", "d"]),
    ("Hello. ... !!! World", ["Hello.", "World"]),  # pieces with no word are dropped
    ("a.\u00a0b", ["a.", "b"]),  # any whitespace after the stop
    ("a.b c", ["a.b c"]),
    ("snake_case. _ . x", ["snake_case.", "x"]),  # an underscore is not a word
])
def test_sentence_cuts(text, expected):
    assert [s.text for s in sentences(text)] == expected


def test_abbreviations_cut_like_any_full_stop():
    """SPEC's rule reads punctuation, not meaning: "e.g." and "Dr." end a sentence."""
    text = "See e.g. the log. Dr. Smith agreed."
    assert [s.text for s in sentences(text)] == ["See e.g.", "the log.", "Dr.", "Smith agreed."]


@pytest.mark.parametrize(("text", "expected"), [
    ("我们走吧。他说好。", ["我们走吧。", "他说好。"]),
    ("「好。」他说", ["「好。」", "他说"]),
    ("真的吗？！是的", ["真的吗？！", "是的"]),
    ("\u201c我们走吧。\u201d然后", ["\u201c我们走吧。\u201d", "然后"]),
    ("日本語です。 English here. 终。", ["日本語です。", "English here.", "终。"]),
])
def test_cjk_full_stops_end_a_sentence_without_a_space(text, expected):
    assert [s.text for s in sentences(text)] == expected


def test_sentence_offsets_are_into_the_text_as_written():
    assert sentences(" Hi there.  Bye ") == [Span("Hi there.", 1, 10), Span("Bye", 12, 15)]
    assert sentences("One.\r\nTwo") == [Span("One.", 0, 4), Span("Two", 6, 9)]


def test_words_are_casefolded_runs_of_letters_and_digits():
    assert words("Don't STOP\u2014the_end 3.5% na\u00efve Stra\u00dfe") == [
        "don", "t", "stop", "the", "end", "3", "5", "na\u00efve", "strasse"]


SPEC_WORD = re.compile(r"[^\W_]+")  # SPEC "Words": casefolded, maximal runs of [^\W_]


@given(st.text(alphabet=st.characters(max_codepoint=127)) | st.text())
@settings(max_examples=500, deadline=None)
def test_words_are_specs_for_ascii_and_any_text(text):
    assert words(text) == SPEC_WORD.findall(text.casefold())


def test_min_support_must_be_a_share():
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(ValueError, match="min_support"):
            ground("a", ["a"], min_support=bad)


def test_least_support_is_the_best_support_of_the_least_supported_new_sentence():
    # By hand: "one two zebra yak." shares "one two" with the reference (2 of 4 words) and
    # "zebra" with the other output (1 of 4); "cat." shares nothing. At 0.75 both are new: the
    # least of their best supports is cat's 0. Without "cat." it is max(0.5, 0.25).
    reference, other = "one two three four", "zebra"
    side = ground_side("one two zebra yak. cat.", [reference], None, other, min_support=0.75)
    assert least_support(side) == 0.0
    side = ground_side("one two zebra yak.", [reference], None, other, min_support=0.75)
    assert least_support(side) == 0.5
    assert least_support(ground_side("one two zebra yak.", [reference], None, other)) == 1.0  # none new


def test_min_support_sets_the_share_of_words_a_counterpart_needs():
    reference = "one two three four"
    assert ground("one two zebra yak.", [reference], min_support=0.5).new_sentences == []
    assert ground("one two zebra yak.", [reference], min_support=0.75).new_sentences == [
        "one two zebra yak."]


# -- copied spans: Grusky et al. 2018 -----------------------------------------------------


def newsroom_fragments(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """Newsroom's `Fragments._match` as published: for each summary position, scan the whole
    text from its start; at a match extend it, keep it when strictly longer than the best, and
    continue the scan where the match ended; else step one. Then skip past the best match."""
    matches = []
    i = 0
    while i < len(a):
        best, best_length = None, 0
        j = 0
        while j < len(b):
            if a[i] == b[j]:
                i_end, j_end = i, j
                while i_end < len(a) and j_end < len(b) and b[j_end] == a[i_end]:
                    i_end += 1
                    j_end += 1
                if i_end - i > best_length:
                    best, best_length = (i, j, i_end - i), i_end - i
                j = j_end
            else:
                j += 1
        if best:
            matches.append(best)
            i += best_length
        else:
            i += 1
    return matches


word_lists = st.lists(st.sampled_from("abcde"), max_size=40)


@given(word_lists, word_lists)
@settings(max_examples=500, deadline=None)
def test_fragments_are_newsrooms(output, source):
    assert [(f.output, f.source, f.length) for f in fragments(output, source)] == (
        newsroom_fragments(output, source))


def test_fragments_resume_after_each_match_as_newsroom_does():
    # From output position 0 the scan meets "a b a b" at 0, resumes at 4 and so never tries
    # the longer "a b a b c" at 2: the greedy fragment is 4 long, then "c" alone.
    output, source = list("ababc"), list("abababc")
    assert [f.length for f in fragments(output, source)] == [4, 1]


@given(word_lists, word_lists)
@settings(max_examples=300, deadline=None)
def test_coverage_is_a_share_and_density_at_least_coverage(output, source):
    coverage, density = coverage_density(output, source)
    assert 0.0 <= coverage <= 1.0
    assert density >= coverage
    if not output:
        assert (coverage, density) == (0.0, 0.0)


def test_copy_means_average_the_examples_that_have_a_source():
    [means] = copy_means([["a b", "a b", "x"]], ["a b", "a", None])
    assert means == ((1.0 + 0.5) / 2, (2.0 + 0.5) / 2)
    assert copy_means([["a"]], [None]) == [None]


def test_copy_means_of_several_builds_are_each_builds_own():
    # By hand, source "the cat sat on the mat": build 1's "the cat sat" is one fragment of
    # 3 (coverage 1, density 3); build 2 repeats it for the first example (the same figures)
    # and gives "a dog" for the second, whose source "a dog" covers it (1, 2) where build 1's
    # "dog a" is two fragments of one (1, 1).
    sources = ["the cat sat on the mat", "a dog", None]
    build_1 = ["the cat sat", "dog a", "ignored"]
    build_2 = ["the cat sat", "a dog", "ignored too"]
    assert copy_means([build_1, build_2], sources) == [((1 + 1) / 2, (3 + 1) / 2), ((1 + 1) / 2, (3 + 2) / 2)]
    assert copy_means([build_2, build_1], sources) == copy_means([build_2], sources) + copy_means([build_1], sources)


# -- LCS and support on random texts -------------------------------------------------------


@given(word_lists, word_lists)
@settings(max_examples=300, deadline=None)
def test_lcs_length_is_the_textbook_table(a, b):
    assert lcs_length(a, b) == oracle_lcs(a, b)


@given(texts)
@settings(max_examples=300, deadline=None)
def test_a_sentence_cut_out_is_one_sentence_again(text):
    for s in sentences(text):
        assert text[s.start:s.end] == s.text
        assert [x.text for x in sentences(s.text)] == [s.text]


@given(texts)
@settings(max_examples=300, deadline=None)
def test_support_is_one_for_any_sentence_copied_from_the_text(text):
    for s in sentences(text):
        row = ground_side(s.text, [text]).sentences[0]
        assert row.counterpart.support == 1.0 == oracle_support(s.text, text)


@given(examples, FRESH)
@settings(max_examples=200, deadline=None)
def test_a_sentence_of_words_no_text_has_is_one_more_new_sentence(example, fresh):
    candidate, baseline, references, source = example
    assert "zq" not in (candidate + baseline + "".join(references) + (source or "")).casefold()
    before = ground_side(candidate, references, source, baseline).new_sentences
    after = ground_side(candidate + "\n" + fresh, references, source, baseline).new_sentences
    assert after == before + [fresh]


# -- pathological text: time and memory stay bounded ------------------------------------------


def spec_sentences(text: str) -> list[tuple[str, int, int]]:
    """SPEC's "Sentences", restated as a scan: cut at line ends, and after a run of . ! ? with
    any closing marks right after, when whitespace follows (after a run of 。！？ and its
    closing marks, whatever follows); pieces trimmed, those with no word dropped."""
    closers, cjk_closers = "\"')]\u2019\u201d", "\"')]\u2019\u201d\u300d\u300f\uff09"
    found = []
    offset = 0
    for line in text.splitlines(keepends=True):
        cuts, i = [], 0
        while i < len(line):
            for stops, marks, needs_space in ((".!?", closers, True),
                                              ("\u3002\uff01\uff1f", cjk_closers, False)):
                if line[i] in stops:
                    j = i
                    while j < len(line) and line[j] in stops:
                        j += 1
                    while j < len(line) and line[j] in marks:
                        j += 1
                    if not needs_space or (j < len(line) and line[j].isspace()):
                        cuts.append(j)
                    i = j
                    break
            else:
                i += 1
        for start, end in zip([0, *cuts], [*cuts, len(line)]):
            piece = line[start:end]
            if re.search(r"[^\W_]", piece):
                lead = len(piece) - len(piece.lstrip())
                found.append((piece.strip(), offset + start + lead, offset + start + lead + len(piece.strip())))
        offset += len(line)
    return found


@given(texts | st.text(alphabet=".!?\"')]\u2019\u201d\u3002\uff01\uff1f\u300d \n\tab"))
@settings(max_examples=500, deadline=None)
def test_sentences_are_specs_definition(text):
    assert [(s.text, s.start, s.end) for s in sentences(text)] == spec_sentences(text)


@pytest.mark.parametrize("run", [".", "!?", ".)", ".\u2019"])
def test_a_megabyte_run_of_stops_is_cut_in_well_under_a_second(run):
    """Issue 39, 7: the sentence regex backtracked on a run of . ! or ? with no whitespace
    after it: 40,000 characters took 20 s, a megabyte would take hours."""
    import time

    text = "A claim " + run * ((1 << 20) // len(run)) + "x. Next one"
    start = time.perf_counter()
    found = sentences(text)
    assert time.perf_counter() - start < 0.5
    assert [s.text for s in found] == [text[:-len(" Next one")], "Next one"]


_PEAK = """
import resource, sys
from rouge_tui.analysis import grounding
from rouge_tui.analysis.grounding import ground
cdist, largest = grounding.process.cdist, [0]
def measured(*args, **kwargs):  # rapidfuzz's, noting the largest matrix it gives
    found = cdist(*args, **kwargs)
    largest[0] = max(largest[0], found.nbytes)
    return found
grounding.process.cdist = measured
n = int(sys.argv[1])
output = " ".join(f"w{i} x{i % 7}." for i in range(n))
reference = " ".join(f"w{i + 1} y{i % 5}." for i in range(n))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
side = ground(output, [reference], None, reference).candidate
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown >> 10, largest[0] >> 20, len(side.sentences), sum(s.new for s in side.sentences))
"""


def test_grounding_two_texts_of_thousands_of_sentences_holds_no_full_matrix():
    """Issue 39, 9: grounding filled a sentences x sentences matrix: an output and a reference
    of 30,000 short sentences peaked at about 7 GB. Here 4,000 against 4,000 and the same
    again as the baseline: full matrices of 64 and 128 MB; the blocks hold 16 MB. The peak
    RSS is noisy (Python's own objects take most of it): the largest matrix is checked too."""
    import subprocess

    result = subprocess.run([sys.executable, "-c", _PEAK, "4000"], capture_output=True,
                            text=True, timeout=120, check=True)
    grown, largest, found, new = map(int, result.stdout.split())
    assert found == 4000
    assert largest < 16, f"a matrix of {largest} MB"
    # "wK xJ." shares wK with the reference's sentence "wK yJ'." (1 of 2 words: support 0.5),
    # but for "w0 x0.": no text has w0
    assert new == 1
    assert grown < 48, f"{grown} MB more at the peak"


@given(st.lists(st.sampled_from("ab"), max_size=32), st.lists(st.sampled_from("abc"), max_size=32))
@settings(max_examples=1000, deadline=None)
def test_fragments_are_newsrooms_on_repetitive_text(output, source):
    """Words of more than 8 places take the path that scans only where the output's next word
    follows them. Newsroom's scan takes at most |source| steps an output position, so two
    texts of 32 words stay within the bound of 16 steps a word: the fragments are Newsroom's."""
    assert [(f.output, f.source, f.length) for f in fragments(output, source)] == (
        newsroom_fragments(output, source))


@pytest.mark.parametrize(("block", "coverage", "density"), [
    ("a b", 1 / 2, 1 / 2),  # each "a" the first source word's, alone
    ("a a b", 2 / 3, 4 / 3),  # each "a a" the source's first two: the first of equals
    ("a a a b", 3 / 4, 9 / 4),
])
def test_copied_spans_of_a_76_kb_repetitive_suite_in_well_under_a_second(block, coverage, density):
    """Issue 39, 8: a source of "a a a ..." and an output "a b a b ..." (a 76 KB suite) took
    53-60 s: every "a" of the output scanned every "a" of the source. The figures are worked
    by hand from Newsroom's scan: from an "a", the first match is the longest there is."""
    import time

    source = words("a " * 19_000)
    output = words((block + " ") * (38_000 // len(block + " ")))
    start = time.perf_counter()
    found = coverage_density(output, source)
    assert time.perf_counter() - start < 2
    assert found == pytest.approx((coverage, density))
    start = time.perf_counter()
    assert copy_means([[" ".join(output)]], ["a " * 19_000]) == [pytest.approx((coverage, density))]
    assert time.perf_counter() - start < 2
