"""The tokenizer registry: each entry's tokens (with offsets) count what rouge-score-rs and
rouge-score count, and sit on the text as written."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import ChapterTokenizer, tricky_texts
from rouge_score import tokenizers as rouge_score_tokenizers
from rouge_score_rs import tokenizers as rs_tokenizers

from rouge_tui.rouge import TOKENIZERS
from rouge_tui.rouge.tokenizers import get

ENTRIES = list(TOKENIZERS.values())


def counted(name: str, text: str, stem: bool = False) -> list[str]:
    """What the tokenizer's own definition counts, from an independent implementation."""
    if name == "whitespace":
        return ChapterTokenizer().tokenize(text)
    if name == "rouge-score":
        return rouge_score_tokenizers.DefaultTokenizer(use_stemmer=stem).tokenize(text)
    profile = {"unicode": rs_tokenizers.UnicodeTokenizer, "character": rs_tokenizers.CharacterTokenizer}
    return profile[name]().tokenize(text)


def test_the_registry_names_four_tokenizers_with_their_signature_labels() -> None:
    assert {name: entry.label for name, entry in TOKENIZERS.items()} == {
        "whitespace": "whitespace",
        "rouge-score": "rouge-score",
        "unicode": "unicode-v1",
        "character": "character-v1",
    }
    assert [entry.name for entry in ENTRIES if entry.stems] == ["rouge-score"]


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="whitespace, rouge-score, unicode, character"):
        get("nltk")


@settings(max_examples=300, deadline=None)
@given(tricky_texts())
def test_tokens_are_what_the_definition_counts(text: str) -> None:
    for entry in ENTRIES:
        assert [t.text for t in entry.tokens(text)] == counted(entry.name, text), entry.name


@settings(max_examples=200, deadline=None)
@given(tricky_texts())
def test_stemmed_tokens_are_rouge_scores(text: str) -> None:
    tokens = get("rouge-score").tokens(text, stem=True)
    assert [t.text for t in tokens] == counted("rouge-score", text, stem=True)


@settings(max_examples=300, deadline=None)
@given(tricky_texts())
@example("\u0edc ")  # LAO HO NO: NFKC makes it two letters, two unicode-v1 tokens of one character
@example("e\u0301 caf\u00e9 Stra\u00dfe ")  # a decomposed é first: its match was café's é
def test_offsets_point_into_the_text_in_order(text: str) -> None:
    for entry in ENTRIES:
        span = (0, 0)
        for token in entry.tokens(text):
            assert 0 <= token.start <= token.end <= len(text)
            # Tokens of one written character (a ligature, a character NFKC splits) share its
            # span in the profiles of their own; otherwise each starts where the last ended.
            shared = entry.name in ("unicode", "character") and (token.start, token.end) == span
            assert token.start >= span[1] or shared, (entry.name, token)
            span = (token.start, token.end)


@settings(max_examples=300, deadline=None)
@given(tricky_texts())
def test_whitespace_and_rouge_score_offsets_cover_the_word_as_written(text: str) -> None:
    for token in get("whitespace").tokens(text):
        assert text[token.start : token.end].lower() == token.text
    for token in get("rouge-score").tokens(text):
        written = text[token.start : token.end]
        assert written.lower().startswith(token.text) or written.lower() == "i\u0307" + token.text[1:]


def test_a_comma_after_utc_is_not_highlighted_by_rouge_score() -> None:
    (token,) = get("rouge-score").tokens("UTC,")
    assert (token.text, token.start, token.end) == ("utc", 0, 3)
    (word,) = get("whitespace").tokens("UTC,")
    assert (word.text, word.start, word.end) == ("utc,", 0, 4)


def test_dotted_capital_i_and_kelvin_sign_keep_their_places() -> None:
    # "İ" lowers into "i" and a combining dot (which ends the run); the Kelvin sign into "k".
    tokens = get("rouge-score").tokens("İstanbul \u212aelvin x")
    assert [(t.text, t.start, t.end) for t in tokens] == [
        ("i", 0, 1), ("stanbul", 1, 8), ("kelvin", 9, 15), ("x", 16, 17)
    ]


def test_unicode_profile_offsets_on_folded_and_wide_text() -> None:
    text = "Straße ＦＵＬＬ done"
    tokens = get("unicode").tokens(text)
    assert [(t.text, text[t.start : t.end]) for t in tokens] == [
        ("strasse", "Straße"), ("full", "ＦＵＬＬ"), ("done", "done")
    ]


@given(st.lists(tricky_texts(max_words=8), max_size=6))
@settings(max_examples=200, deadline=None)
def test_whitespace_spelling_keeps_words_apart_and_equal_words_alike(texts: list[str]) -> None:
    """The spelled texts rouge-score-rs scores: one spelled word per word, equal exactly
    when the words are equal, and the same lines."""
    spelled = get("whitespace").spell(texts)
    assert len(spelled) == len(texts)
    words = [w for t in texts for w in t.lower().split()]
    codes = [w for t in spelled for w in t.split()]
    assert len(codes) == len(words)
    assert all(code.isascii() and code.isalnum() and code.islower() or code.isdigit() for code in codes)
    assert len(set(zip(words, codes))) == len(set(words)) == len(set(codes))
    for text, spell in zip(texts, spelled):
        lines = [line.lower().split() for line in text.split("\n") if line]
        spelled_lines = [line.split() for line in spell.split("\n") if line]
        assert [len(line) for line in lines] == [len(line) for line in spelled_lines]


def test_whitespace_spelling_splits_at_every_space_python_knows() -> None:
    """Every code point str.split() splits at (all of Unicode searched, not a list) parts two
    words in the spelled text, as in the text."""
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    texts = [f"a{space}b" for space in spaces]
    spelled = get("whitespace").spell(texts)
    assert [len(t.split()) for t in texts] == [2] * len(spaces)
    assert [len(t.split()) for t in spelled] == [2] * len(spaces)


def test_rouge_score_drops_most_letters_of_a_russian_text() -> None:
    entry = get("rouge-score")
    assert entry.dropped_share("Правительство объявило меры 2026") == pytest.approx(25 / 29)
    assert entry.dropped_share("plain ascii text") == 0.0
    assert get("unicode").dropped_share("Правительство") == 0.0


def test_decomposed_and_composing_characters_keep_their_own_offsets() -> None:
    """Decomposed text (macOS writes "é" as e and a combining acute) and Hangul jamo are each
    one written character to NFC; their tokens point at them, not at a later word with the
    same letters (the decomposed é's token was placed on café's, and the rest after it)."""
    text = "e\u0301 caf\u00e9 \u1100\u1161\u11a8 x"
    unicode = [(t.text, text[t.start:t.end]) for t in get("unicode").tokens(text)]
    assert unicode == [("\u00e9", "e\u0301"), ("caf\u00e9", "caf\u00e9"), ("\uac01", "\u1100\u1161\u11a8"), ("x", "x")]
    character = [(t.start, t.end) for t in get("character").tokens(text)]
    assert character == [(0, 2), (3, 4), (4, 5), (5, 6), (6, 7), (8, 11), (12, 13)]


def test_half_width_kana_and_compatibility_jamo_keep_their_own_offsets() -> None:
    """NFKC composes these across written characters (a half-width kana and its voicing
    mark, compatibility jamo into a syllable): each token points at what it came from, and
    the ones after it are placed too (they all lost their offsets after the first)."""
    text = "\uff83\uff9e\uff70\uff80\u79fb\u884c \u3131\u314f abc"  # ﾃﾞｰﾀ移行 ㄱㅏ abc
    character = [(t.text, text[t.start:t.end]) for t in get("character").tokens(text)]
    assert character == [("\u30c7", "\uff83\uff9e"), ("\u30fc", "\uff70"), ("\u30bf", "\uff80"), ("\u79fb", "\u79fb"),
                         ("\u884c", "\u884c"), ("\uac00", "\u3131\u314f"), ("a", "a"), ("b", "b"), ("c", "c")]
    unicode = [(t.text, text[t.start:t.end]) for t in get("unicode").tokens(text)]
    assert unicode[0] == ("\u30c7\u30fc\u30bf", "\uff83\uff9e\uff70\uff80") and unicode[-2:] == [("\uac00", "\u3131\u314f"), ("abc", "abc")]
