"""Tokenizers against rouge-score 0.1.2's and the chapter's definition, offsets included."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem import porter
from rouge_score import tokenize as rs_tokenize
from rouge_score import tokenizers as rs_tokenizers

from rouge_tui.metrics.tokenize import (
    StemmerUnavailable,
    Token,
    make_batch_tokenizer,
    make_tokenizer,
    sentence_spans,
    sentence_tokens,
    sentences,
    tokenize,
    tokenize_with_offsets,
)

ROOT = Path(__file__).resolve().parent.parent

# Pieces that have tripped tokenizers: clock times, trailing punctuation, characters whose
# lowercase is longer ('İ') or ASCII (the Kelvin sign), final sigma, ligatures, Unicode
# whitespace, CRLF and blank lines, markup-looking text, words the stemmer changes
# (three-letter words are never stemmed, though Porter would turn 'was' into 'wa').
PIECES = [
    "02:14",
    "UTC,",
    "İ",
    "İstanbul",
    "xİy",
    "\u212a",
    "\u212aelvin",
    "café",
    "naïve",
    "ΣΑΣ ",
    "ΟΔΟΣ",
    "ﬁne",
    "ß",
    "Ǆ",
    "\r\n",
    "\n",
    "\n\n",
    " ",
    "\t",
    "\u00a0",
    "\u2028",
    "\x1c",
    "\x85",
    "[bold red]",
    "don't",
    "U.S.",
    "co-operate",
    "—",
    "41",
    "running",
    "Runs",
    "was",
    "has",
    "its",
    "generously",
    "agreed",
    "the",
    "a",
    "outage",
    "configuration",
]

texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=25).map("".join)

CONFIGS = [("whitespace", False), ("rouge-score", False), ("rouge-score", True)]

_porter = porter.PorterStemmer()


def oracle(text: str, tokenizer: str, stem: bool) -> list[str]:
    """The definitions: the chapter's lower().split(), or rouge-score's own tokenizer."""
    if tokenizer == "whitespace":
        return text.lower().split()
    return rs_tokenizers.DefaultTokenizer(use_stemmer=stem).tokenize(text)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_fast_tokenizers_equal_their_definitions(text: str) -> None:
    for tokenizer, stem in CONFIGS:
        assert tokenize(text, tokenizer, stem) == oracle(text, tokenizer, stem)
        assert make_tokenizer(tokenizer, stem)(text) == oracle(text, tokenizer, stem)
    assert tokenize(text, "rouge-score") == rs_tokenize.tokenize(text, None)


@settings(max_examples=200, deadline=None)
@given(st.lists(texts, max_size=6))
def test_batch_tokenizers_equal_their_definitions_text_by_text(batch: list[str]) -> None:
    for tokenizer, stem in CONFIGS:
        got = list(make_batch_tokenizer(tokenizer, stem)(batch))
        assert got == [oracle(text, tokenizer, stem) for text in batch]


@settings(max_examples=200, deadline=None)
@given(texts)
def test_offset_tokens_equal_fast_tokens(text: str) -> None:
    for tokenizer, stem in CONFIGS:
        tokens = tokenize_with_offsets(text, tokenizer, stem)
        assert [t.text for t in tokens] == tokenize(text, tokenizer, stem)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_whitespace_offsets_cover_the_words_as_written(text: str) -> None:
    tokens = tokenize_with_offsets(text, "whitespace")
    position = 0
    for token in tokens:
        assert text[token.start : token.end].lower() == token.text
        # Nothing but whitespace is skipped between tokens.
        assert text[position : token.start].strip() == ""
        position = token.end
    assert text[position:].strip() == ""


@settings(max_examples=200, deadline=None)
@given(texts)
def test_rouge_score_offsets_point_at_the_original_characters(text: str) -> None:
    plain = tokenize_with_offsets(text, "rouge-score")
    stemmed = tokenize_with_offsets(text, "rouge-score", stem=True)
    previous_end = 0
    for token in plain:
        written = text[token.start : token.end]
        # The token is made of exactly the [a-z0-9] characters its span lowercases to,
        # and the span starts and ends on characters that contribute to it.
        assert "".join(re.findall("[a-z0-9]", written.lower())) == token.text
        assert re.search("[a-z0-9]", text[token.start].lower())
        assert re.search("[a-z0-9]", text[token.end - 1].lower())
        assert token.start >= previous_end - 1  # only an 'İ' may be shared by two tokens
        previous_end = token.end
    # Stemming keeps each token's span and applies NLTK's Porter stemmer to long words.
    expected = [
        (_porter.stem(t.text) if len(t.text) > 3 else t.text, t.start, t.end) for t in plain
    ]
    assert [(t.text, t.start, t.end) for t in stemmed] == expected


def test_utc_with_comma_is_highlighted_without_the_comma() -> None:
    text = "The outage began at 02:14 UTC, when a push"
    by_text = {t.text: t for t in tokenize_with_offsets(text, "rouge-score")}
    utc = by_text["utc"]
    assert text[utc.start : utc.end] == "UTC"
    assert text[by_text["02"].start : by_text["14"].end] == "02:14"
    words = {t.text: t for t in tokenize_with_offsets(text, "whitespace")}
    assert text[words["utc,"].start : words["utc,"].end] == "UTC,"


def test_dotted_capital_i_and_kelvin_sign() -> None:
    text = "İstanbul \u212aelvin xİy"
    # rouge-score itself splits 'İ' (lowercase 'i' + combining dot) and keeps the Kelvin 'k'.
    assert rs_tokenize.tokenize(text, None) == ["i", "stanbul", "kelvin", "xi", "y"]
    tokens = tokenize_with_offsets(text, "rouge-score")
    assert [(t.text, text[t.start : t.end]) for t in tokens] == [
        ("i", "İ"),
        ("stanbul", "stanbul"),
        ("kelvin", "\u212aelvin"),
        ("xi", "xİ"),
        ("y", "y"),
    ]
    # After an 'İ' lowercase is one character longer: offsets must not drift.
    assert tokens[2] == Token("kelvin", 9, 15)
    words = tokenize_with_offsets(text, "whitespace")
    assert [text[t.start : t.end] for t in words] == text.split()


def test_stemming_with_whitespace_is_an_error() -> None:
    with pytest.raises(ValueError, match="stemming"):
        make_tokenizer("whitespace", stem=True)
    with pytest.raises(ValueError, match="stemming"):
        tokenize_with_offsets("text", "whitespace", stem=True)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        make_tokenizer("spacy")


def test_missing_nltk_raises_stemmer_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    # The package exports a `tokenize` function, so reach the module through sys.modules.
    monkeypatch.setattr(sys.modules["rouge_tui.metrics.tokenize"], "_stemmer", None)
    monkeypatch.setitem(sys.modules, "nltk.stem", None)  # makes the import fail
    with pytest.raises(StemmerUnavailable) as info:
        make_tokenizer("rouge-score", stem=True)
    assert isinstance(info.value, RuntimeError)
    assert str(info.value) == 'stemming needs NLTK: pip install "rouge-tui[stem]"'
    # Without stemming NLTK is not needed.
    assert tokenize("Running dogs", "rouge-score") == ["running", "dogs"]


def test_stemming_loads_nltk_without_scipy_or_sklearn(tmp_path: Path) -> None:
    # Stand-ins for scipy and scikit-learn that leave a mark when imported (and have no
    # submodules, so an import of scipy.stats through them fails as a missing one would).
    for name in ("scipy", "sklearn"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"import pathlib\npathlib.Path({str(tmp_path / (name + '.imported'))!r}).touch()\n"
        )
    code = (
        "import sys\n"
        "from rouge_tui.metrics import tokenize\n"
        "print(tokenize('Running flies agreed', 'rouge-score', stem=True))\n"
        "print(sorted(n for n in ('scipy', 'sklearn') if n in sys.modules))\n"
        "import scipy, sklearn  # still importable afterwards\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["['run', 'fli', 'agre']", "[]"]
    # Only the imports after stemming reached them: NLTK did not.
    assert (tmp_path / "scipy.imported").exists() and (tmp_path / "sklearn.imported").exists()


def test_stemming_still_loads_an_nltk_that_needs_what_was_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = sys.modules["rouge_tui.metrics.tokenize"]
    monkeypatch.setattr(module, "_stemmer", None)
    calls: list[tuple[str, ...]] = []
    real = module._import_porter

    def importer(hide):
        calls.append(tuple(hide))
        if hide:
            raise ImportError("this NLTK imports scipy without a fallback")
        return real(hide)

    monkeypatch.setattr(module, "_import_porter", importer)
    assert tokenize("Running flies", "rouge-score", stem=True) == ["run", "fli"]
    assert calls == [("scipy", "sklearn"), ()]


def test_importing_the_core_loads_neither_nltk_nor_textual() -> None:
    code = (
        "import sys, rouge_tui.metrics as m;"
        "m.Scorer(['rougeL', 'rougeLsum']).score('a b', 'b a');"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('nltk', 'textual', 'numpy')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@settings(max_examples=200, deadline=None)
@given(texts)
def test_sentences_are_rouge_scores_newline_split(text: str) -> None:
    # rouge-score's get_sents with split_summaries=False.
    expected = [x for x in text.split("\n") if len(x)]
    assert sentences(text) == expected
    assert [text[a:b] for a, b in sentence_spans(text)] == expected
    for tokenizer, stem in CONFIGS:
        per_sentence = sentence_tokens(text, tokenizer, stem)
        assert [[t.text for t in s] for s in per_sentence] == [
            oracle(s, tokenizer, stem) for s in expected
        ]
        # Offsets are into the whole text and stay inside their sentence.
        for (a, b), tokens in zip(sentence_spans(text), per_sentence, strict=True):
            assert all(a <= t.start < t.end <= b for t in tokens)
        flat = [t for s in per_sentence for t in s]
        assert flat == tokenize_with_offsets(text, tokenizer, stem)


def test_crlf_and_blank_lines() -> None:
    text = "First line.\r\n\r\nSecond line\n\nthird"
    assert sentences(text) == ["First line.\r", "\r", "Second line", "third"]
    tokens = sentence_tokens(text, "rouge-score")
    assert [[t.text for t in s] for s in tokens] == [
        ["first", "line"],
        [],
        ["second", "line"],
        ["third"],
    ]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(PIECES),
            st.text(st.characters(blacklist_categories=()), max_size=6),  # surrogates too
        ),
        max_size=20,
    ).map("".join)
)
def test_rouge_score_tokens_are_the_alnum_runs_of_the_lowered_text(text: str) -> None:
    """The byte-translating tokenizer gives exactly rouge-score's runs of [a-z0-9]."""
    assert tokenize(text, "rouge-score") == re.findall("[a-z0-9]+", text.lower())


def test_a_token_is_a_value_equal_only_to_a_token() -> None:
    import pickle

    token = Token("utc", 20, 23)
    assert (token.text, token.start, token.end) == ("utc", 20, 23)
    assert token == Token("utc", 20, 23)
    assert token != Token("utc", 20, 24)
    # As the frozen dataclass it replaced: not equal to a plain tuple of its fields, hashed
    # as one, not ordered, not assignable, its fields named in its repr.
    assert token != ("utc", 20, 23)
    assert ("utc", 20, 23) != token
    assert (token == ("utc", 20, 23)) is False
    assert (("utc", 20, 23) == token) is False
    assert hash(token) == hash(("utc", 20, 23))
    assert len({token, Token("utc", 20, 23), Token("utc", 0, 3)}) == 2
    assert repr(token) == "Token(text='utc', start=20, end=23)"
    with pytest.raises(TypeError):
        _ = token < Token("utc", 21, 24)
    with pytest.raises(AttributeError):
        token.text = "gmt"  # type: ignore[misc]
    copied = pickle.loads(pickle.dumps(token))
    assert copied == token and type(copied) is Token
