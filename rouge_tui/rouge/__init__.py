"""ROUGE for rouge-tui: the tokenizer and metric registries, bulk scoring through
rouge-score-rs (`engine`), and the alignment that says which words count (`align`).

No I/O and no Textual here."""

from rouge_tui.rouge.metrics import METRICS, Metric, Tokenized, tokenized
from rouge_tui.rouge.tokenizers import TOKENIZERS, Token, Tokenizer

__all__ = ["METRICS", "TOKENIZERS", "Metric", "Token", "Tokenized", "Tokenizer", "tokenized"]
