"""rouge-tui: review drift in an LLM system's outputs with ROUGE."""

__version__ = "0.1.0"
