"""Bulk scoring through rouge-score-rs equals rouge-score 0.1.2 for every tokenizer, metric
and stemming setting, one reference or several."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import ALL_METRICS, CHAPTER_A, CHAPTER_B, CHAPTER_REFERENCE, rouge_score, tricky_texts

from rouge_tui.rouge import engine

CONFIGS = [("whitespace", False), ("rouge-score", False), ("rouge-score", True), ("unicode", False), ("character", False)]
ORACLES = {config: rouge_score(*config) for config in CONFIGS}


def expected(config, references, output):
    return ORACLES[config].score_multi(list(references), output)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}{'-stem' if c[1] else ''}")
@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.lists(tricky_texts(), min_size=1, max_size=3), tricky_texts()), min_size=1, max_size=8))
def test_equal_to_rouge_score_on_tricky_texts(config, pairs) -> None:
    references = [tuple(refs) for refs, _ in pairs]
    outputs = [out for _, out in pairs]
    got = engine.score(references, outputs, ALL_METRICS, *config)
    for i, (refs, out) in enumerate(pairs):
        want = expected(config, refs, out)
        for j, metric in enumerate(ALL_METRICS):
            assert tuple(got[i, j]) == tuple(want[metric]), (metric, refs, out)


def test_the_chapters_pair_as_its_definition_computes_it() -> None:
    """SPEC: with lower().split() the reference has 55 tokens, A 47 (LCS 16, F 0.3137), B 58
    (LCS 46, F 0.8142); the chapter's own 0.62 is not what its definition computes."""
    got = engine.score([(CHAPTER_REFERENCE,), (CHAPTER_REFERENCE,)], [CHAPTER_A, CHAPTER_B], "rougeL", "whitespace")
    assert got[0].tolist() == [16 / 47, 16 / 55, 2 * (16 / 47) * (16 / 55) / (16 / 47 + 16 / 55)]
    assert round(got[0, 2], 4) == 0.3137 and round(got[1, 2], 4) == 0.8142
    assert got[1, 0] == 46 / 58 and got[1, 1] == 46 / 55


def test_ties_between_references_go_to_the_first_listed() -> None:
    # Against "a b" the output has P 1/4, R 1/2; against the 8-word reference P 1/2, R 1/4:
    # F is 1/3 both ways, and the first reference listed decides P and R.
    first, second = "a b", "a y b c d e f g"
    got = engine.score([(first, second), (second, first)], ["a y z w"] * 2, "rouge1", "whitespace")
    assert got[0].tolist() == [1 / 4, 1 / 2, 2 * (1 / 4) * (1 / 2) / (1 / 4 + 1 / 2)]
    assert got[1].tolist() == [1 / 2, 1 / 4, 2 * (1 / 2) * (1 / 4) / (1 / 2 + 1 / 4)]
    for row, refs in zip(got, [(first, second), (second, first)]):
        assert tuple(row) == tuple(expected(("whitespace", False), refs, "a y z w")["rouge1"])


# Words a spelling of the whitespace tokenizer's words in [a-z0-9] could confuse: "z" and its
# doubles, an escape next to letters and digits, every ASCII mark, bytes beyond ASCII.
CONFUSABLE = ["z", "zz", "zzz", "z.", ".z", "z0", "za", "z1a", "z0a", "zy", "y", ".", "..", ",",
              "a.b", "a,b", "ab", "a-b", "é", "e\u0301", "ü", "ﬁ", "中", "文", "中文", "zé",
              "Z", "ZZ", "İ", "σ", "ς", *[c for c in map(chr, range(33, 127)) if not c.isalnum()]]


def test_the_whitespace_tokenizer_keeps_every_word_apart() -> None:
    """Every pair of one-word texts scores 1 when the words are equal lowered, else 0 (the
    spelling handed to rouge-score-rs is one to one), and a text of them all, with line
    breaks, scores rougeLsum as rouge-score does."""
    refs = [(a,) for a in CONFUSABLE for _ in CONFUSABLE]
    outs = [b for _ in CONFUSABLE for b in CONFUSABLE]
    got = engine.score(refs, outs, "rouge1", "whitespace")
    want = [1.0 if a.lower() == b.lower() else 0.0 for (a,), b in zip(refs, outs)]
    assert got[:, 2].tolist() == want
    text = " ".join(CONFUSABLE) + "\n" + "z. zz\n\u2028 é,z"
    assert engine.score([(text,)] * 3, [text, "z zz", "zz z"], "rougeLsum", "whitespace").tolist() == [
        list(expected(("whitespace", False), (text,), out)["rougeLsum"]) for out in (text, "z zz", "zz z")
    ]


def test_long_texts_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "CHUNK", 7)
    rng = random.Random(5)
    words = ["the", "pool", "push", "replica", "timed", "out", "minutes", "config", "change", "guard"]
    refs = [(" ".join(rng.choice(words) for _ in range(rng.randint(0, 60))),) for _ in range(30)]
    outs = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 60))) for _ in range(30)]
    seen = []
    got = engine.score(refs, outs, "rougeLsum", "rouge-score", True, lambda done, total: seen.append((done, total)))
    oracle = rouge_score("rouge-score", True, ["rougeLsum"])
    assert [tuple(row) for row in got] == [tuple(oracle.score(r[0], o)["rougeLsum"]) for r, o in zip(refs, outs)]
    assert seen == [(7, 30), (14, 30), (21, 30), (28, 30), (30, 30)]


def test_rougelsum_refuses_a_pair_of_lines_past_its_table_and_names_the_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """rouge-score-rs fills (n + 1) x (m + 1) cells per pair of lines: past MOST_LSUM_CELLS a
    pair is a ValueError naming its example (110,000 words a side aborted the process); a
    pair just inside the limit, or as long but cut into lines, scores as rouge-score does."""
    long_line = " ".join(f"w{i % 7}" for i in range(100))
    short_line = " ".join(f"w{i % 7}" for i in range(98))
    lines = "\n".join([long_line[:150], long_line[150:]])
    for tokenizer, stem in CONFIGS:
        n = len(ORACLES[(tokenizer, stem)]._tokenizer.tokenize(long_line))  # 100 words, 200 characters
        monkeypatch.setattr(engine, "MOST_LSUM_CELLS", (n + 1) * (n + 1) - 1)
        with pytest.raises(ValueError, match=rf"example 'x\\x1b': rougeLsum cannot score a line of {n} tokens against a reference line of {n} "):
            engine.score([("a",), (long_line,)], ["a", long_line], "rougeLsum", tokenizer, stem, ids=["ok", "x\x1b"])
        with pytest.raises(ValueError, match="pair 1: "):
            engine.score([("a", long_line)], [long_line], ["rouge1", "rougeLsum"], tokenizer, stem)
        assert engine.score([(long_line,)], [long_line], "rougeL", tokenizer, stem).tolist() == [[1.0, 1.0, 1.0]]
        for ref, out in ((long_line, short_line), (long_line, lines)):
            got = engine.score([(ref,)], [out], "rougeLsum", tokenizer, stem)
            assert tuple(got[0]) == tuple(expected((tokenizer, stem), (ref,), out)["rougeLsum"])


def test_rougelsum_refuses_an_example_whose_lines_together_take_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pair of lines within MOST_LSUM_CELLS, but all of them past
    MOST_LSUM_EXAMPLE_CELLS ((tokens + lines) a side, multiplied): refused, named; the
    bound is the engine's TooLong, a ValueError."""
    text = "\n".join(" ".join(f"w{(i + j) % 7}" for j in range(10)) for i in range(10))  # 100 in 10 lines
    monkeypatch.setattr(engine, "MOST_LSUM_CELLS", 20 * 20)
    monkeypatch.setattr(engine, "MOST_LSUM_EXAMPLE_CELLS", 110 * 110 - 1)
    with pytest.raises(engine.TooLong, match=r"example 'e': rougeLsum cannot score 100 tokens in 10 lines against 100 in 10"):
        engine.score([(text,)], [text], "rougeLsum", "whitespace", ids=["e"])
    monkeypatch.setattr(engine, "MOST_LSUM_EXAMPLE_CELLS", 110 * 110)
    assert engine.score([(text,)], [text], "rougeLsum", "whitespace").tolist() == [[1.0, 1.0, 1.0]]
    assert issubclass(engine.TooLong, ValueError)


def test_most_per_character_bounds_every_code_points_tokens() -> None:
    """The guard's bound: no code point makes more tokens than its tokenizer's
    ``most_per_character``, and the bound is met (so it is the least that holds)."""
    from rouge_tui.rouge import TOKENIZERS

    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for entry in TOKENIZERS.values():
        native = entry.native()
        most = max(map(len, map(native.tokenize, entry.spell(every))))
        assert most == entry.most_per_character, entry.name


def test_stemming_without_a_stemmer_is_refused() -> None:
    with pytest.raises(ValueError, match="stemming"):
        engine.score([("a",)], ["a"], "rougeL", "whitespace", stem=True)


def test_no_pairs() -> None:
    assert engine.score([], [], "rougeL", "whitespace").shape == (0, 3)
    assert np.array_equal(engine.score([], [], ["rouge1", "rouge2"], "unicode"), np.zeros((0, 2, 3)))
