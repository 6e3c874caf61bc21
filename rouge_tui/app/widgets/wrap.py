"""The diff view's word wrapping: styled stretches broken into lines of a width in terminal
cells, at newlines and between words (a sentence's `[?]` kept with its first word)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style

from rouge_tui.diff import UNSUPPORTED_TAG

__all__ = ["Line", "Styled", "breaks", "lay_out"]

Styled = tuple[str, Style]  # a stretch of one line drawn in one style
Line = list[Styled]

_FLAG = UNSUPPORTED_TAG.rstrip()  # the tag opening an unsupported sentence, as it is drawn


def breaks(paragraph: str, width: int) -> list[int]:
    """Offsets where a paragraph breaks into lines of at most ``width`` cells: after the
    last space that fits, or inside a word longer than the line. Never after a sentence's
    `[?]`: left at a line's end, a newcomer read it as the flag of the removed words before."""
    cuts, at = [], 0
    if paragraph.isascii():
        while len(paragraph) - at > width:
            space = paragraph.rfind(" ", at, at + width + 1)
            if space > at and paragraph.endswith(_FLAG, 0, space):  # the space before it, if any
                earlier = paragraph.rfind(" ", at, space - len(_FLAG))
                space = earlier if earlier > at else space
            at = space + 1 if space > at else at + width
            cuts.append(at)
        return cuts
    used, space, after_flag = 0, -1, -1
    for i, char in enumerate(paragraph):
        size = cell_len(char)
        if used + size > width and i > at:
            if space < at:  # no space but the flag's: break there, not inside a word
                space = after_flag
            at = space + 1 if space >= at else i
            cuts.append(at)
            used = cell_len(paragraph[at:i])
            space = -1
            after_flag = after_flag if after_flag >= at else -1  # the flag's, on the new line
        if char == " ":
            if paragraph.endswith(_FLAG, 0, i):
                after_flag = i
            else:
                space = i
        used += size
    return cuts


def lay_out(found: list[Styled], width: int) -> list[Line]:
    """Styled stretches broken into lines of ``width`` cells: at newlines, and at word boundaries
    inside a paragraph (the space a line breaks at is not drawn)."""
    plain = "".join(text for text, _ in found)
    bounds: list[tuple[int, int]] = []  # each line's [start, end) in the plain text
    start = 0
    for paragraph in plain.split("\n"):
        begin = start
        for cut in breaks(paragraph, max(width, 1)):
            end = start + cut
            bounds.append((begin, end - (plain[end - 1] == " ")))
            begin = end
        bounds.append((begin, start + len(paragraph)))
        start += len(paragraph) + 1
    if len(bounds) > 1 and plain.endswith("\n"):
        bounds.pop()
    lines: list[Line] = []
    j, at = 0, [0]
    for text, _ in found:
        at.append(at[-1] + len(text))
    for begin, end in bounds:
        while j < len(found) and at[j + 1] <= begin:
            j += 1
        line: Line = []
        i = j
        while i < len(found) and at[i] < end:
            a, b = max(begin, at[i]) - at[i], min(end, at[i + 1]) - at[i]
            if b > a:
                line.append((found[i][0][a:b], found[i][1]))
            i += 1
        lines.append(line)
    return lines
