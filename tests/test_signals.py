"""The change-signal registry and each rule, on hand-made pairs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rouge_tui.analysis import signals
from rouge_tui.analysis.signals import SIGNALS, Pairs, counts, find, labels, names


def flags(base: str, cand: str) -> list[str]:
    """The signals of one pair whose reference is its candidate and one sentence more (so that
    nothing it says lacks a counterpart, and it copies no reference: these tests are about the
    shape of the outputs)."""
    return names(int(find(Pairs(["x"], [base], [cand], [(cand + "\nAnd one more.",)]))[0]))


def test_the_registry_is_the_one_list_with_unique_names_and_labels() -> None:
    assert [s.name for s in SIGNALS][:5] == ["empty", "truncated", "duplicated", "longer", "shorter"]
    assert len({s.name for s in SIGNALS}) == len({s.short for s in SIGNALS}) == len(SIGNALS)
    assert all(s.summary and s.version >= 1 for s in SIGNALS)
    assert signals.versions().startswith("empty:1,truncated:1")


def test_the_same_output_fires_nothing() -> None:
    text = "Header\nHeader\nshort"
    assert flags(text, text) == []


def test_empty() -> None:
    assert flags("some output", "  \n") == ["empty"]
    assert flags("", "") == []


def test_truncated_as_a_prefix_or_at_most_half() -> None:
    base = "The outage began at 02:14 UTC when a configuration push removed the replica."
    assert "truncated" in flags(base, base[:40])
    assert "truncated" in flags(base, "Something else entirely.")  # 24 chars <= half of 76
    assert "truncated" not in flags(base, base[:60] + " different")


def test_duplicated_line_that_the_baseline_did_not_have() -> None:
    assert flags("Summary\nbody", "Summary\nSummary\nbody") == ["duplicated"]
    assert "duplicated" not in flags("Summary\nSummary\nbody", "Summary\nSummary\nbody, changed")
    assert "duplicated" not in flags("a", "Summary\n\n\nbody")  # blank lines are not repeats


def test_length_shift_needs_a_quarter_and_thirty_characters() -> None:
    base = "x" * 100
    assert flags(base, "x" * 130) == ["longer"]
    assert flags(base, "x" * 129) == []
    assert "shorter" in flags(base, "y" * 70)
    assert flags("x" * 10, "x" * 39) == []  # +29: a big share but under 30 characters


def test_bits_counts_and_labels() -> None:
    pairs = Pairs(["a", "b", "c"], ["one", "x" * 100, "same"], ["", "x" * 40, "same"], [("one",), ("x" * 40 + " y",), ("same",)])
    found = find(pairs)
    assert names(int(found[0])) == ["empty"]
    assert labels(int(found[1])) == ["trunc", "len-"]
    assert counts(found) == {"empty": 1, "truncated": 1, "duplicated": 0, "longer": 0, "shorter": 1,
                             "new-sentence": 0, "new-figure": 0, "volatile": 0, "reference-copy": 0}
    assert found.dtype == np.uint32


def test_labels_put_the_ones_to_read_first() -> None:
    """The movers table's cell: a new sentence or figure first (where the cell is cut, the
    app's `fit.whole` keeps whole labels: tests/test_fit.py)."""
    bit = {s.name: i for i, s in enumerate(SIGNALS)}
    flags = sum(1 << bit[name] for name in ("shorter", "new-sentence", "new-figure"))
    assert labels(flags) == ["+sent", "+fig", "len-"]
    trunc = sum(1 << bit[name] for name in ("truncated", "shorter", "new-sentence"))
    assert labels(trunc) == ["+sent", "trunc", "len-"]


def test_new_sentence_and_new_figure_through_the_registry() -> None:
    """The chapter's pair: B's closing sentence is new; a changed figure is new, a figure
    the source has is not."""
    from oracles import CHAPTER_A, CHAPTER_B, CHAPTER_REFERENCE

    source = CHAPTER_REFERENCE + " Ticket OPS-4411 was filed at 02:31."
    cand = CHAPTER_B.replace("41 minutes", "45 minutes") + " The ticket was filed at 02:31."
    pairs = Pairs(["inc-0042"], [CHAPTER_A], [cand], [(CHAPTER_REFERENCE,)], [source])
    assert names(int(find(pairs)[0])) == ["longer", "new-sentence", "new-figure"]
    assert pairs.grounded[0].tolist() == [1] and pairs.grounded[1].tolist() == [1]  # 45, not 02:31


def test_reference_copy_fires_where_the_candidate_became_a_reference_as_written() -> None:
    """A job that writes the reference where the output goes, or a reference leaked into the
    prompt: F 1, which overlap reads as the best of improvements."""
    ref = ("The outage began at 02:14 UTC when a configuration push removed the primary replica.\n"
           "Payments failed for 41 minutes until the on-call engineer rolled it back.")  # 27 words
    other = "Payments failed for 41 minutes."
    cases = [  # (baseline, candidate, references, fires)
        ("The outage began at 02:14.", ref, (ref,), True),
        ("The outage began at 02:14.", "\n  " + ref + "\n", (ref,), True),  # surrounding whitespace aside
        ("The outage began at 02:14.", ref, (other, ref), True),  # any of its references
        ("The outage began at 02:14.", ref.replace("\n", " "), (ref,), False),  # as written: a line break is not a space
        ("The outage began at 02:14.", ref.lower(), (ref,), False),
        (ref + " ", ref, (ref,), False),  # the baseline was a copy already: no change
        ("something", "", ("",), False),  # an empty output is not a copy of an empty reference
        ("Berlin", "Paris", ("Paris",), False),  # a short answer may well match its reference
        ("x", " ".join(["word"] * 20), (" ".join(["word"] * 20),), True),  # 20 words: a copy
        ("x", " ".join(["word"] * 19), (" ".join(["word"] * 19),), False),
    ]
    pairs = Pairs([str(k) for k in range(len(cases))], [b for b, *_ in cases], [c for _, c, *_ in cases],
                  [r for *_, r, _ in cases])
    bit = [s.name for s in SIGNALS].index("reference-copy")
    assert [bool(f >> bit & 1) for f in find(pairs).tolist()] == [fires for *_, fires in cases]
    assert labels(1 << bit) == ["=ref"]


# --------------------------------------------------------------------------- the rules as defined

_PIECES = ["a", "b", "Summary", "41", " ", "  ", "\n", "\r\n", "\r", "\t", ".", "x" * 30]


def _defined(base: str, cand: str, references: tuple[str, ...]) -> set[str]:
    """The shape signals of one pair, restated from SPEC "The comparison" and each signal's
    summary, one example at a time: nothing fires on two equal outputs; lengths are of the
    stripped texts."""
    if base == cand:
        return set()
    b, c = base.strip(), cand.strip()
    found = set()
    if not c and b:
        found.add("empty")
    if c and len(c) < len(b) and (2 * len(c) <= len(b) or base.rstrip().startswith(cand.rstrip())):
        found.add("truncated")

    def repeats(text: str) -> bool:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return len(set(lines)) < len(lines)

    if "\n" in cand and repeats(cand) and not repeats(base):
        found.add("duplicated")
    moved = len(c) - len(b)
    if c and abs(moved) >= 30 and 4 * abs(moved) >= len(b):
        found.add("longer" if moved > 0 else "shorter")

    def copies(text: str) -> bool:
        return len(text.split()) >= 20 and any(text.strip() == r.strip() for r in references)

    if copies(cand) and not copies(base):
        found.add("reference-copy")
    return found


@st.composite
def _example(draw: st.DrawFn) -> tuple[str, str, tuple[str, ...]]:
    text = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)
    long = st.lists(st.sampled_from(["a", "b", "Summary"]), min_size=18, max_size=22).map(" ".join)
    references = tuple(draw(st.lists(st.one_of(text, long), min_size=1, max_size=3)))
    base = draw(text)
    cand = draw(st.one_of(
        text,
        st.just(base),
        st.integers(0, len(base)).map(lambda k: base[:k]),  # a prefix
        text.map(lambda more: base + more),
        text.map(lambda more: base[: len(base) // 3] + more),
        st.sampled_from(references).map(lambda r: "\n " + r + " "),  # a reference, whitespace aside
        st.sampled_from(references),
    ))
    if draw(st.booleans()):  # the candidate's or the baseline's first line, repeated
        line = draw(st.sampled_from([*(base or "x").splitlines(), "Summary"]))
        cand = line + "\n" + cand if draw(st.booleans()) else cand
        base = line + "\n" + base if draw(st.booleans()) else base
    return base, cand, references


@given(st.lists(_example(), min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_the_rules_over_columns_equal_their_definitions_example_by_example(
        examples: list[tuple[str, str, tuple[str, ...]]]) -> None:
    """The rules read whole columns (C-level maps, the examples a rule needs picked out); each
    example's signals must be what the definitions say of it alone."""
    pairs = Pairs([str(k) for k in range(len(examples))], [b for b, _, _ in examples], [c for _, c, _ in examples],
                  [r for _, _, r in examples])
    shape = {s.name for s in SIGNALS if not s.grounded and s.name != "volatile"}
    found = find(pairs, grounded=False).tolist()
    assert [set(names(f)) & shape for f in found] == [_defined(*example) for example in examples]
