"""rouge-tui: review drift in an LLM system's outputs with ROUGE."""

import os as _os

# rouge-tui never multiplies matrices, but numpy's OpenBLAS starts a thread per core when
# numpy is imported, which cost 0.05-0.1 s of CPU here: on a two-core machine, taken from
# the scoring. A user's own setting wins.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
