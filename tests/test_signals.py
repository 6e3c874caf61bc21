"""The change-signal registry and each rule, on hand-made pairs."""

from __future__ import annotations

import numpy as np

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
