"""A note changed by two sessions at once, merged: each side's edits made together, word by
word, where they do not touch; else both texts kept, ours first. The rule of every save of
marks (`rouge_tui.store.marks`) and of the note editor."""

from __future__ import annotations

import re

KEPT = "\n\n(kept from another session) "  # between a note typed here and another's


def note_said(seen: str, mine: str, theirs: str, note: str) -> str:
    """What became of a note saved here (``mine``) where another session's is ``theirs``, both
    having started from ``seen``: it is ``note`` now (`merged_note`), in words for the one
    who saved it."""
    if note == theirs and mine == seen:
        return "another session changed this note since: theirs is kept (yours was not changed)"
    if note == theirs:  # (yours emptied it: the other's text is not thrown away for that)
        return "another session changed this note too: theirs is kept, your change of it is not made"
    if note == both_notes(mine, theirs):
        return "another session changed this note too: both texts are kept in it"
    return "another session changed this note too: both changes are in it"


def both_notes(mine: str, theirs: str) -> str:
    """A note saved here over ``theirs``, which another session wrote and this one had not
    seen: both texts, this session's first, for nothing a user wrote is lost."""
    if not theirs.strip() or mine == theirs or mine.endswith(KEPT + theirs):
        return mine
    if not mine.strip():
        return theirs
    return f"{mine}{KEPT}{theirs}"


def merged_note(seen: str, mine: str, theirs: str) -> str:
    """A note as saved here (``mine``) over ``theirs`` on disk, both sides having started from
    ``seen``: a side that did not change it gives way to the other; changed on both, both
    changes, where they touch different places of it (`_both_edits`), else both texts."""
    if mine == seen or theirs == mine:
        return theirs
    if theirs == seen:
        return mine
    if not seen.strip():  # two notes, not two edits of one
        return both_notes(mine, theirs)
    merged = _both_edits(seen, mine, theirs)
    return merged if merged is not None else both_notes(mine, theirs)


_WORDS = re.compile(r"\s+|\S+")  # a note's words and the spaces between: what edits are made of
_MOST_COMPARED = 1_000_000  # word pairs difflib may weigh for one merge (well under a second)


def _edits(opcodes: list[tuple[str, int, int, int, int]], words: list[str]) -> list[tuple[int, int, int, int]]:
    """The edits of ``opcodes`` (difflib's, over ``words``): two with nothing but spaces of
    ``words`` between them are one. A space is no place to hold an edit by: "note. " with
    "  [A adds this]" added on one side and "  [B adds that]" on the other matched the
    space inside each addition, and the two were cut there and spliced, "[B  [A adds that]"."""
    out: list[list[int]] = []
    joined = False  # an edit, then nothing but spaces: the next edit is part of it
    for tag, start, end, low, high in opcodes:
        if tag == "equal":
            joined = joined and all(word.isspace() for word in words[start:end])
        elif joined:
            out[-1][1], out[-1][3] = end, high
        else:
            out.append([start, end, low, high])
            joined = True
    return [(start, end, low, high) for start, end, low, high in out]


def _both_edits(seen: str, mine: str, theirs: str) -> str | None:
    """``seen`` with the edits of both ``theirs`` (saved first) and ``mine``, word by word,
    where no two touch: two insertions at one place alone go in side by side, theirs first,
    on lines of their own unless a space parts them. None where edits overlap or meet (made
    letter by letter, "counts 10" edited to "counts 12" and to "counts 101" became "counts
    121"): a join of the two whole texts would repeat what they share each time (two
    sessions adding a line at the end of one note, round after round, doubled it)."""
    from difflib import SequenceMatcher

    words, sides = _WORDS.findall(seen), (_WORDS.findall(theirs), _WORDS.findall(mine))
    # What all three share at each end is no edit's: an addition at the end of a long note
    # compares nothing else (difflib is quadratic: 5 s at 24 KB, past a hang-up's grace).
    head = 0
    while head < len(words) and all(head < len(side) and side[head] == words[head] for side in sides):
        head += 1
    tail = 0
    while tail < len(words) - head and all(tail < len(side) - head and side[-1 - tail] == words[-1 - tail]
                                           for side in sides):
        tail += 1
    middle = words[head:len(words) - tail]
    if len(middle) * max(len(side) - head - tail for side in sides) > _MOST_COMPARED:
        return None  # edits all through a long note: both texts kept, at once
    found = {  # an edit both sides made is made once (the first side's)
        (head + start, head + end, "".join(side[head + low:head + high])): number
        for number, side in reversed(list(enumerate(sides)))
        for start, end, low, high in _edits(SequenceMatcher(
            None, middle, side[head:len(side) - tail], autojunk=False).get_opcodes(), middle)
    }
    edits = sorted((start, end, number, text) for (start, end, text), number in found.items())
    out, at, last = [], 0, None
    for start, end, _, text in edits:
        inserts_beside = last == (start, start) and start == end  # two insertions at one place
        if start < at or (last is not None and start == at and not inserts_beside):
            return None  # within, or against, a stretch the other side changed
        out.append("".join(words[at:start]))
        if inserts_beside and not (out[-2][-1:].isspace() or text[:1].isspace()):
            out.append("\n")  # no space between them
        out.append(text)
        at, last = end, (start, end)
    out.append("".join(words[at:]))
    return "".join(out)
