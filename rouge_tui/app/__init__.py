"""The Textual app. Only `rouge-tui open` imports it: the core and `report` never load Textual."""
