"""The analysis: settings resolved once, pairing, bands, verdict, ranking, the change-signal
registry and the pipeline from a suite on disk to a comparison (`pipeline.open_analysis`).
No Textual here."""
