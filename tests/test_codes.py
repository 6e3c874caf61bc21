"""Token codes made in numpy (`metrics.codes`) against the tokenizers' definitions.

The property that scoring needs: within a batch, every text has one code per token, and two
codes are equal exactly when their tokens are.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import tokenizers as rs_tokenizers

from rouge_tui.metrics import batch, codes
from rouge_tui.metrics.codes import _dense, token_codes
from rouge_tui.metrics.rouge import Scorer
from tests.test_tokenize import texts as unicode_texts

TOKENIZERS = ("whitespace", "rouge-score")
# rouge-score 0.1.2's own tokenizers, built once (the stemmed one builds NLTK's stemmer).
ROUGE_SCORE = {stem: rs_tokenizers.DefaultTokenizer(use_stemmer=stem) for stem in (False, True)}


def definition(text: str, tokenizer: str, stem: bool = False) -> list[str]:
    """The chapter's lower().split(), or rouge-score 0.1.2's own tokenizer."""
    if tokenizer == "whitespace":
        return text.lower().split()
    return ROUGE_SCORE[stem].tokenize(text)


def assert_codes_match(
    batch_texts: list[str], tokenizer: str, got: list[str], stem: bool = False
) -> None:
    """One code per token, and code <-> token one to one over the whole batch."""
    assert len(got) == len(batch_texts)
    token_of: dict[str, str] = {}
    code_of: dict[str, str] = {}
    for text, text_codes in zip(batch_texts, got, strict=True):
        tokens = definition(text, tokenizer, stem)
        assert len(text_codes) == len(tokens), (text, tokens)
        for code, token in zip(text_codes, tokens, strict=True):
            assert token_of.setdefault(code, token) == token
            assert code_of.setdefault(token, code) == code
    assert not any(0xD800 <= ord(code) <= 0xDFFF for code in token_of)


# ASCII with every kind of byte the whitespace tokenizer cares about: the separators it
# knows (\t \n \v \f \r, \x1c-\x1f, space), NUL and other control bytes inside tokens,
# capitals, punctuation, and words around the 8- and 16-byte lengths where keys change.
ASCII_PIECES = [
    " ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x01", "\x07", "\x7f",
    "a", "A", "ab", "abcdefg", "abcdefgh", "abcdefghi", "ABCDEFGHIJKLMNO", "abcdefghijklmnop",
    "abcdefghijklmnopq", "abcdefgh\x00", "abcdefg\x00", "a\x00", "02:14", "U.S.", "x" * 40,
]


def texts_of(pieces: list[str], max_codepoint: int) -> st.SearchStrategy[str]:
    """Texts of up to 20 parts, each one of `pieces` or a short random string."""
    part = st.one_of(
        st.sampled_from(pieces), st.text(st.characters(max_codepoint=max_codepoint), max_size=6)
    )
    return st.lists(part, max_size=20).map("".join)


ascii_texts = texts_of(ASCII_PIECES, 127)


@settings(max_examples=300, deadline=None)
@given(st.lists(ascii_texts, max_size=8))
def test_ascii_batches_get_codes_equal_exactly_where_tokens_are(batch_texts: list[str]) -> None:
    for tokenizer in TOKENIZERS:
        got = token_codes(batch_texts, tokenizer)
        assert got is not None  # ASCII always takes the numpy path
        assert_codes_match(batch_texts, tokenizer, got)


# Words the Porter stemmer changes, leaves, or turns into what rouge-score's filter drops
# (none of its stems of [a-z0-9] words are dropped today, but the step is there), around
# the 3-character limit under which words are not stemmed.
STEM_PIECES = [
    " ", "\n", ".", "-", "running", "runs", "ran", "run", "agreed", "agreement", "ties",
    "tie", "flies", "sky", "skies", "generalizations", "oed", "ing", "sing", "news",
    "caresses", "ponies", "02:14", "2014s", "abcdefghijklmnopqrs", "Connected", "CONNECTING",
    "relational", "caf\u00e9s", "x" * 20 + "ing",
]
stem_texts = texts_of(STEM_PIECES, 0x17F)


@settings(max_examples=200, deadline=None)
@given(st.lists(stem_texts, max_size=8))
def test_stemmed_codes_are_equal_exactly_where_rouge_scores_stems_are(
    batch_texts: list[str],
) -> None:
    got = token_codes(batch_texts, "rouge-score", stem=True)
    assert got is not None
    assert_codes_match(batch_texts, "rouge-score", got, stem=True)


def test_stemming_merges_words_and_drops_what_the_filter_drops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = ["Runs running run", "the runner RUNS ties tie", "", "  -  "]
    got = token_codes(texts, "rouge-score", stem=True)
    assert got is not None
    assert [len(codes) for codes in got] == [3, 5, 0, 0]
    runs_, running, run = got[0]
    the, runner, runs_too, ties, tie = got[1]
    assert runs_ == running == run == runs_too  # run, run, run, run: one stem, one code
    assert runner != run  # runner stays runner
    assert ties == tie != the  # ties -> tie
    # A stem the validity filter refuses is dropped with its token, as rouge-score does.
    tokenizers = sys.modules["rouge_tui.metrics.tokenize"]  # the package exports a function so named
    monkeypatch.setattr(tokenizers, "_token_cache", {})
    monkeypatch.setattr(tokenizers, "_stem_cache", {"running": None})
    monkeypatch.setattr(codes, "_WORD_FORMS", {})
    monkeypatch.setattr(codes, "_FORM_IDS", {})
    dropped = token_codes(texts, "rouge-score", stem=True)
    assert dropped is not None
    assert [len(codes) for codes in dropped] == [2, 5, 0, 0]
    with pytest.raises(ValueError):
        token_codes(["x"], "whitespace", stem=True)


def test_stemmed_codes_stay_exact_when_the_forms_are_forgotten_between_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codes, "_WORD_FORMS", {})
    monkeypatch.setattr(codes, "_FORM_IDS", {})
    monkeypatch.setattr(codes, "_FORMS_LIMIT", 1)
    # The third batch starts past the limit: words seen before and new ones must not share
    # the ids handed out afresh.
    batches = [["zeta running"], ["omega runs"], ["kappa zeta omega", "running ran"]]
    for batch_texts in batches * 2:
        got = token_codes(batch_texts, "rouge-score", stem=True)
        assert got is not None
        assert_codes_match(batch_texts, "rouge-score", got, stem=True)
    assert len(codes._FORM_IDS) <= 5  # cleared before a batch once past the limit


@settings(max_examples=300, deadline=None)
@given(st.lists(unicode_texts, max_size=8))
def test_any_text_gets_codes_or_is_left_to_the_tokenizer(batch_texts: list[str]) -> None:
    for tokenizer in TOKENIZERS:
        got = token_codes(batch_texts, tokenizer)
        if got is None:
            # Only whitespace batches with text outside ASCII (after lowering) step aside.
            assert tokenizer == "whitespace"
            assert not "".join(text.lower() for text in batch_texts).isascii()
        else:
            assert_codes_match(batch_texts, tokenizer, got)


def test_prefixes_and_lengths_around_the_key_widths_stay_apart() -> None:
    words = []
    for size in range(1, 34):
        words += ["a" * size, "a" * (size - 1) + "b", "b" + "a" * (size - 1)]
        words += ["a" * (size - 1) + "\x00", "\x00" * size]
    batch_texts = [" ".join(words), " ".join(reversed(words)), "\n".join(words[::3])]
    for tokenizer in TOKENIZERS:
        got = token_codes(batch_texts, tokenizer)
        assert got is not None
        assert_codes_match(batch_texts, tokenizer, got)
    whitespace = token_codes(batch_texts, "whitespace")
    assert whitespace is not None
    assert len(set(whitespace[0])) == len(set(words))  # NUL makes words of its own


def test_codes_step_over_the_surrogates_when_there_are_many_tokens() -> None:
    # More distinct tokens than there are code points below U+D800.
    words = [f"w{i}" for i in range(60_000)]
    batch_texts = [" ".join(words[i : i + 1000]) for i in range(0, len(words), 1000)]
    batch_texts.append(" ".join(words[::-7]))
    got = token_codes(batch_texts, "whitespace")
    assert got is not None
    assert max(map(ord, "".join(got))) >= 0xE000
    assert_codes_match(batch_texts, "whitespace", got)


def test_whitespace_outside_ascii_is_left_to_the_tokenizer() -> None:
    assert token_codes(["plain", "caf\u00e9"], "whitespace") is None
    # Lowering first: the Kelvin sign lowers to an ASCII k, and rouge-score sees it so.
    got = token_codes(["\u212aelvin caf\u00e9 \u0130stanbul"], "rouge-score")
    assert got is not None
    assert_codes_match(["\u212aelvin caf\u00e9 \u0130stanbul"], "rouge-score", got)
    with pytest.raises(ValueError):
        token_codes(["x"], "porter")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0, 1, 2**63, 2**64 - 1, 0x9E3779B97F4A7C15]),
            st.integers(0, 2**64 - 1),
            st.integers(0, 40),
        ),
        max_size=300,
    )
)
def test_dense_codes_are_equal_exactly_where_keys_are(values: list[int]) -> None:
    keys = np.array(values, dtype=np.uint64)
    found, count = _dense(keys)
    assert count == len(set(values))
    assert sorted(set(found.tolist())) == list(range(count))
    seen: dict[int, int] = {}
    for value, code in zip(values, found.tolist(), strict=True):
        assert seen.setdefault(value, code) == code
    assert len(seen) == len(set(seen.values()))


def test_keys_crowding_one_slot_are_all_found() -> None:
    # Keys that differ only in their low bits share the top bits the hash reads for small
    # tables: long probe runs, every key still found.
    keys = np.array([k % 37 for k in range(2000)], dtype=np.uint64) << np.uint64(40)
    found, count = _dense(keys)
    assert count == 37
    assert [found[i] == found[i % 37] for i in range(2000)] == [True] * 2000


@pytest.mark.parametrize("metric", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize("tokenizer,stem", [*((t, False) for t in TOKENIZERS), ("rouge-score", True)])
def test_scores_are_the_same_when_a_batch_is_left_to_the_tokenizer(
    monkeypatch: pytest.MonkeyPatch, metric: str, tokenizer: str, stem: bool
) -> None:
    references = [
        ["the cat sat on the mat\nand ran", "a cat on a mat"],
        ["Incident at 02:14 UTC.\n\nRunning checks\n"],
    ]
    candidates = ["the cat sat\nruns", "cat mat the", "incident 02:14\nchecks run", "at utc at\n"]
    groups = [0, 0, 1, 1]
    scorer = Scorer([metric], tokenizer=tokenizer, stem=stem)
    expected = [
        scorer.score_multi(references[g], c)[metric].fmeasure for c, g in zip(candidates, groups)
    ]
    fast = batch.fmeasures(metric, tokenizer, stem, references, candidates, groups)
    monkeypatch.setattr(codes, "_MAX_CODES", 2)  # too many distinct tokens: per text
    assert token_codes(candidates, tokenizer, stem) is None
    slow = batch.fmeasures(metric, tokenizer, stem, references, candidates, groups)
    assert fast.tolist() == slow.tolist() == expected
    assert len(set(expected)) > 1  # the texts tell the pairs apart
