"""Pause Python's cyclic garbage collector around bulk work that builds many small objects.

Parsing 10^5 JSON records or tokenising millions of words creates containers that trigger
collections which find nothing to free (about a fifth of the time); nothing made there is
cyclic garbage, so the collector can wait until the work is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block, restoring its previous state."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_starting = False


def pause_for_startup() -> None:
    """Hold the collector while the app starts: importing Textual and the first analysis
    make hundreds of thousands of objects, and collections over them (~0.05 s of CPU)
    compete with the analysis for the cores. `end_startup` resumes it."""
    global _starting
    if gc.isenabled():
        gc.disable()
        _starting = True


def end_startup() -> None:
    """Resume the collector held by `pause_for_startup` (if it was), with what start-up
    made moved out of its reach (`gc.freeze`): those objects live as long as the app, and
    later collections need not walk them again."""
    global _starting
    if _starting:
        _starting = False
        gc.freeze()
        gc.enable()


# The app's third collector threshold: a full (gen-2) pass after this many gen-1 passes
# (Python's default is 10). A full pass walks every tracked object, Textual's included, and
# took 0.1-0.15 s here: with the default, one came every other diff opened or stepped.
FULL_PASS_AFTER = 100


def hold_full_passes() -> tuple[int, int, int]:
    """Make full collections rarer (`FULL_PASS_AFTER`); returns the thresholds to restore."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], max(before[2], FULL_PASS_AFTER))
    return before
