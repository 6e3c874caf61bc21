"""The metric registry: the only list of ROUGE variants rouge-tui knows.

Each entry names the variant as rouge-score does, says how the diff view reads its
arithmetic ("LCS 17 · P 17/53 ..."), and finds the counted words of one example (`align`).
Bulk scores come from rouge-score-rs under the same name (`engine`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rouge_tui.rouge import align
from rouge_tui.rouge.tokenizers import Token, Tokenizer

__all__ = ["DEFAULT", "METRICS", "Metric", "Tokenized", "get", "tokenized"]

DEFAULT = "rougeL"  # with no flag, suite.toml or config.toml naming one


@dataclass(frozen=True)
class Tokenized:
    """A text cut by one tokenizer: its tokens (offsets into the text as written) and the
    same tokens grouped by rougeLsum's sentences (the text's non-empty lines)."""

    text: str
    tokens: list[Token]
    sentences: list[list[str]]

    @property
    def words(self) -> list[str]:
        return [token.text for token in self.tokens]


def tokenized(text: str, tokenizer: Tokenizer, stem: bool = False, by_line: bool = False) -> Tokenized:
    """``text`` cut into tokens; with ``by_line``, each line on its own, as rougeLsum does
    (rouge-score: ``text.split("\\n")``, empty lines dropped)."""
    if not by_line:
        tokens = tokenizer.tokens(text, stem)
        return Tokenized(text, tokens, [[t.text for t in tokens]])
    tokens, sentences, start = [], [], 0
    for line in text.split("\n"):
        if line:
            found = tokenizer.tokens(line, stem)
            tokens.extend(Token(t.text, t.start + start, t.end + start) for t in found)
            sentences.append([t.text for t in found])
        start += len(line) + 1
    return Tokenized(text, tokens, sentences)


@dataclass(frozen=True)
class Metric:
    """One registry entry. ``label`` opens the diff view's arithmetic line."""

    name: str
    label: str
    summary: str
    by_line: bool
    count: Callable[[Tokenized, Tokenized], align.Match]

    def match(self, reference: Tokenized, candidate: Tokenized) -> align.Match:
        """The counted words of ``candidate`` scored against ``reference``."""
        return self.count(reference, candidate)


def _ngrams(n: int) -> Callable[[Tokenized, Tokenized], align.Match]:
    return lambda ref, can: align.match_ngrams(ref.words, can.words, n)


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric("rouge1", "unigram overlap", "shared words, each counted as often as both have it", False, _ngrams(1)),
        Metric("rouge2", "bigram overlap", "shared pairs of adjacent words", False, _ngrams(2)),
        Metric(
            "rougeL",
            "LCS",
            "the longest common subsequence of words (the chapter's ROUGE-L)",
            False,
            lambda ref, can: align.match_lcs(ref.words, can.words),
        ),
        Metric(
            "rougeLsum",
            "summary LCS",
            "ROUGE-L over lines: each reference line's union LCS with every output line",
            True,
            lambda ref, can: align.match_summary(ref.sentences, can.sentences),
        ),
    )
}


def get(name: str) -> Metric:
    """The entry called ``name``; a ValueError listing the names there are."""
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; expected one of {', '.join(METRICS)}") from None


def best(scores: Sequence[float]) -> int:
    """Which of several references counts: the highest F, the first listed on ties
    (rouge-score's ``score_multi``)."""
    return max(range(len(scores)), key=scores.__getitem__)
