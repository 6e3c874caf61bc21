"""Independent oracles for the tests: rouge-score 0.1.2 (Google's reference implementation),
rouge-score-rs's own tokenizers, and SPEC's definitions restated here, never imported from
the code under test."""

from __future__ import annotations

import string

from hypothesis import strategies as st
from rouge_score import rouge_scorer
from rouge_score_rs import tokenizers as rs_tokenizers

ALL_METRICS = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


class ChapterTokenizer:
    """The chapter's tokenizer, ``text.lower().split()``, in rouge-score's tokenizer form."""

    def tokenize(self, text: str) -> list[str]:
        return text.lower().split()


def rouge_score(tokenizer: str = "whitespace", stem: bool = False, metrics: list[str] | None = None):
    """rouge-score 0.1.2 set up as rouge-tui's tokenizer ``tokenizer`` counts.

    For ``unicode`` and ``character`` rouge-score itself has no tokenizer: its scorer runs
    with rouge-score-rs's tokenizer of that profile (the published definition of the
    profile), so the arithmetic is still rouge-score's."""
    custom = {
        "whitespace": ChapterTokenizer(),
        "rouge-score": None,
        "unicode": rs_tokenizers.UnicodeTokenizer(),
        "character": rs_tokenizers.CharacterTokenizer(),
    }[tokenizer]
    return rouge_scorer.RougeScorer(metrics or ALL_METRICS, use_stemmer=stem, tokenizer=custom)


def chapter_lcs(a: list[str], b: list[str]) -> int:
    """The chapter's textbook LCS table."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


# --- the chapter's worked example (reference/rouge-chapter.txt) -----------------------------

CHAPTER_REFERENCE = (
    "The outage began at 02:14 UTC when a configuration push removed the read replica from "
    "the connection pool. Checkout requests queued behind a single primary and timed out for "
    "41 minutes. The fix was a rollback of the config change; a guard has since been added "
    "to block pushes that reduce pool size below two."
)
CHAPTER_A = (
    "A bad config deploy at 02:14 UTC dropped the replica out of the pool, so all checkout "
    "traffic piled onto the primary and failed for roughly three quarters of an hour. "
    "Engineers reverted the deploy, and pushes that shrink the pool below two members are "
    "now rejected."
)
CHAPTER_B = (
    "The outage began at 02:14 UTC when a configuration push removed the read replica from "
    "the connection pool. Checkout requests queued behind a single primary and timed out for "
    "41 minutes. A guard has since been added to block pushes that reduce pool size below "
    "two. The incident was caused by insufficient test coverage in the deployment pipeline."
)

# --- texts that have broken tokenizers before ------------------------------------------------

PIECES = [
    "02:14", "UTC,", "İstanbul", "İ", "\u212aelvin", "café", "The", "the", "pool", "pool.",
    "push", "pushes", "running", "runs", "ran", "41", "minutes", "don't", "—", "[b]",
    "Straße", "ΟΔΟΣ", "Σ", "今天", "Правительство", "ｆｕｌｌ", "e\u0301", "x\u200by",
    "a\u00adb", "3.5%", "2026-11-20", "\x1b[31m", "\ud800", "",
]
SEPARATORS = [" ", " ", " ", "\n", "\n\n", "\r\n", " , ", "\t", "\u00a0", "\u2028", "\x1c", "\x85", "\u3000"]


@st.composite
def tricky_texts(draw: st.DrawFn, max_words: int = 30) -> str:
    parts = draw(
        st.lists(
            st.tuples(
                st.one_of(st.sampled_from(PIECES), st.text(max_size=3)),
                st.sampled_from(SEPARATORS),
            ),
            max_size=max_words,
        )
    )
    return "".join(word + sep for word, sep in parts)


plain_words = st.lists(st.sampled_from(list(string.ascii_lowercase[:6])), max_size=40)
