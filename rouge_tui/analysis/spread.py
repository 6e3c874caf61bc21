"""Grounding on every core: `new_counts` with the changed examples shared out between child
processes when there are enough of them to pay for the children's start.

The bulk grounding (`grounding_bulk.new_counts`) is Python and numpy, one core at a time, and
with every output changed it is most of a report's time. The examples are independent, so
they are cut into one slice a core (by size, so the slices take about as long); the last is
grounded here, each other one by ``python -P -m rouge_tui.analysis.spread`` (its texts as a
pickle on stdin, the three counts back on stdout), and the counts are put back in place: the
same numbers as one
`new_counts` over all of them. A child that cannot start or fails leaves its slice to this
process, so nothing depends on a child but the time; nothing waits for the children at exit
(a report given up leaves no work behind it: each is killed).
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence

import numpy as np

__all__ = ["CORES", "SLICE_CHARS", "new_counts"]

try:
    CORES = len(os.sched_getaffinity(0))  # the cores this process may run on, not the machine's
except AttributeError:  # not on Linux
    CORES = os.cpu_count() or 1

# The least text (outputs, references and sources, in characters) a child is given: below
# it, a child's start (an interpreter, numpy, rapidfuzz) weighs more than the half of the
# work it takes away (benchmarks/README.md, "Grounding on every core").
SLICE_CHARS = 12_000_000

Counts = tuple[np.ndarray, np.ndarray, np.ndarray]

_CHILDREN: set[subprocess.Popen] = set()
_LOCK = threading.Lock()


def new_counts(
    candidates: Sequence[str],
    baselines: Sequence[str],
    references: Sequence[Sequence[str]],
    sources: Sequence[str | None],
    min_support: float,
    cores: int | None = None,
) -> Counts:
    """`grounding_bulk.new_counts` of these examples, the same arrays, shared between this
    thread and up to ``cores`` - 1 (default: `CORES`) child processes when the changed
    examples hold at least two slices' text."""
    from rouge_tui.analysis import grounding_bulk

    n = len(candidates)
    changed = [i for i, (c, b) in enumerate(zip(candidates, baselines)) if c != b]
    sizes = np.fromiter((len(candidates[i]) + len(baselines[i]) + sum(map(len, references[i]))
                         + len(sources[i] or "") for i in changed), np.int64, len(changed))
    total = int(sizes.sum())
    parts = min(cores or CORES, total // SLICE_CHARS, len(changed))
    if parts < 2:
        return grounding_bulk.new_counts(candidates, baselines, references, sources, min_support)
    # Contiguous slices of about equal text: the k-th ends where the running size passes k/parts.
    ends = np.searchsorted(np.cumsum(sizes), [total * k // parts for k in range(1, parts)], side="right")
    slices = [changed[a:b] for a, b in zip([0, *ends.tolist()], [*ends.tolist(), len(changed)]) if a < b]

    def ground(ids: list[int], here: bool = False) -> Counts:
        args = ([candidates[i] for i in ids], [baselines[i] for i in ids], [references[i] for i in ids],
                [sources[i] for i in ids], min_support)
        return (None if here else _in_child(args)) or grounding_bulk.new_counts(*args)

    # A daemon thread a child (nothing joins them at exit, as an executor's would be); the
    # last slice is this thread's own, grounded while the children work.
    found: list[Counts | BaseException | None] = [None] * len(slices)

    def run(k: int) -> None:
        try:
            found[k] = ground(slices[k])
        except BaseException as exc:  # noqa: BLE001 - raised below, in the caller's thread
            found[k] = exc

    threads = [threading.Thread(target=run, args=(k,), name="spread", daemon=True) for k in range(len(slices) - 1)]
    for thread in threads:
        thread.start()
    found[-1] = ground(slices[-1], here=True)
    out: Counts = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n, np.float64))
    for k, ids in enumerate(slices):
        if k < len(threads):
            threads[k].join()
        result = found[k]
        if isinstance(result, BaseException):
            raise result
        for whole, part in zip(out, result):
            whole[ids] = part
    return out


def _in_child(args: tuple) -> Counts | None:
    """``grounding_bulk.new_counts(*args)`` in a child process; None when the child could not
    start or did not give three arrays of the slice's length (the caller does it here)."""
    data = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        # -P: no current directory on sys.path; the rest of the environment is the parent's,
        # so the child runs the same rouge_tui (an install, or PYTHONPATH's tree).
        child = subprocess.Popen([sys.executable, "-P", "-m", __name__], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None
    with _LOCK:
        _CHILDREN.add(child)
    try:
        out, _ = child.communicate(data)
    except OSError:
        child.kill()
        child.wait()
        return None
    finally:
        with _LOCK:
            _CHILDREN.discard(child)
    if child.returncode != 0:
        return None
    try:
        found = pickle.loads(out)  # our own child's answer, over its own pipe
    except Exception:  # noqa: BLE001 - a child killed mid-write: do it here
        return None
    n = len(args[0])
    if not (isinstance(found, tuple) and len(found) == 3
            and all(isinstance(a, np.ndarray) and a.shape == (n,) for a in found)):
        return None
    return found


@atexit.register
def _kill_children() -> None:
    """Leave no child grounding for a report that is gone (Ctrl-C, the app's quit)."""
    with _LOCK:
        children = list(_CHILDREN)
    for child in children:
        child.kill()


def _child() -> None:
    from rouge_tui.analysis import grounding_bulk

    args = pickle.loads(sys.stdin.buffer.read())  # from the parent that started us
    found = grounding_bulk.new_counts(*args)
    sys.stdout.buffer.write(pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    _child()
