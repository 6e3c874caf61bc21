"""A pure model of one example's diff: what each build matched, and how the outputs differ.

Two views of the same example, both drawn on the text as written (tokens keep offsets):

- *against the reference*: for each build (a `Side`), the words that count towards its score,
  and the arithmetic of that score, P, R and F equal to rouge-score's floats. The reference
  (`ReferenceView`) shows which of its words each build matched.
- *baseline vs candidate*: a word-level LCS alignment of the two outputs (`AlignedRow`s).

What is highlighted, per metric (the matching itself is `rouge_tui.metrics.alignment`):

- rougeL: the LCS rouge-score's traceback picks (its tie rule), so the highlighted candidate
  words are exactly the `matches` of P = matches / candidate_len.
- rougeLsum: rouge-score's summary-level hits (union LCS per reference sentence, clipped by
  token counts). Each hit is a reference word; on the output side it is drawn on an output word
  the union LCS paired with it, or, when that word already carries an earlier hit, on the first
  free output word with the same token (rouge-score counts tokens, not positions). The number of
  highlighted output words equals `matches`.
- rouge1: the clipped unigram overlap: for each word, its first min(count in output, count in
  reference) occurrences on each side. Highlighted output words == `matches`.
- rouge2: the clipped bigram overlap, drawn as both words of each matching bigram (first
  occurrences). `matches` counts bigrams, so highlighted words can differ from it.

Multi-reference: each side scores against the reference with its highest F (ties to the first
listed, as rouge-score's `score_multi`). The reference pane follows the candidate's choice,
marks what each build matched *in that reference*, and `ReferenceView.note` says when the
baseline's figures came from another reference.

No Textual here: the export and the CLI use `render_plain`; the app's widget draws the same
model with Rich styles.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rouge_tui.metrics import (
    METRICS,
    Alignment,
    Token,
    align_outputs,
    alignment,
    tokenize_with_offsets,
)
from rouge_tui.safetext import one_line, visible

__all__ = [
    "DIFF_METRICS",
    "AlignedRow",
    "ExampleDiff",
    "MatchedBy",
    "ReferenceView",
    "RowKind",
    "Segment",
    "Side",
    "example_diff",
    "fold_words",
    "markdown_block",
    "marked_runs",
    "output_alignment",
    "reference_runs",
    "reference_segments",
    "render_plain",
    "segments",
    "side_runs",
    "side_segments",
]

DIFF_METRICS: tuple[str, ...] = METRICS

MatchedBy = Literal["both", "baseline", "candidate", "neither"]
RowKind = Literal["equal", "delete", "insert", "replace"]

# How much of a text the renderings show; the figures always use the whole text.
DEFAULT_LIMIT = 20_000
# Equal runs longer than this many words fold to "… N unchanged words …".
FOLD_THRESHOLD = 12
FOLD_CONTEXT = 3


@dataclass
class Side:
    """One build's output scored against one reference, with the words that count marked."""

    text: str
    tokens: list[Token]
    on_lcs: set[int]  # token indices highlighted (see the module docstring, per metric)
    matches: int  # LCS length, summary-level hits, or n-gram overlap
    candidate_len: int  # tokens (rougeL/Lsum) or n-grams (rouge1/2) of the output
    reference_len: int  # the same, of the reference
    precision: float
    recall: float
    fmeasure: float
    reference_index: int  # which reference the figures are against
    metric: str = "rougeL"
    reference_on: set[int] = field(default_factory=set)  # reference token indices matched

    def arithmetic(self) -> str:
        """The score as the chapter writes it: `LCS 17 · P 17/53 = 0.32 · R 17/56 = 0.30 · F 0.31`."""
        label = {
            "rougeL": "LCS",
            "rougeLsum": "summary LCS",
            "rouge1": "unigram overlap",
            "rouge2": "bigram overlap",
        }.get(self.metric, "overlap")
        m = self.matches
        return (
            f"{label} {m} · P {m}/{self.candidate_len} = {self.precision:.2f}"
            f" · R {m}/{self.reference_len} = {self.recall:.2f} · F {self.fmeasure:.2f}"
        )


@dataclass
class ReferenceView:
    """The reference shown beside the outputs, each word marked by which build matched it."""

    text: str
    tokens: list[Token]
    matched_by: list[MatchedBy]  # per token: "both" | "baseline" | "candidate" | "neither"
    index: int = 0  # which of the example's references this is
    count: int = 1  # how many references the example has
    note: str = ""  # e.g. that the baseline's figures are against another reference


@dataclass
class ExampleDiff:
    """Everything the diff view shows for one example against its reference(s)."""

    id: str
    metric: str
    tokenizer: str
    stem: bool
    reference: ReferenceView
    baseline: Side
    candidate: Side


@dataclass
class AlignedRow:
    """One row of the outputs' alignment: a run of words, as written, on either side.

    `delete` has words only on the left (baseline), `insert` only on the right (candidate),
    `replace` on both (removed left, added right), `equal` the same words on both.
    """

    kind: RowKind
    left: str
    right: str
    left_words: int = 0
    right_words: int = 0


# --- matching ------------------------------------------------------------------------------


def _side(
    metric: str,
    references: Sequence[str],
    reference_tokens: Sequence[list[Token]],
    text: str,
    tokenizer: str,
    stem: bool,
) -> tuple[Side, list[Alignment]]:
    """The side against its best reference (highest F, ties to the first), and every alignment.

    `reference_tokens` are the references' tokens, made once for both sides.
    """
    tokens = tokenize_with_offsets(text, tokenizer, stem)
    found = [
        alignment(
            reference,
            text,
            metric,
            tokenizer,
            stem,
            reference_tokens=ref_tokens,
            candidate_tokens=tokens,
        )
        for reference, ref_tokens in zip(references, reference_tokens)
    ]
    best = 0
    for index, match in enumerate(found):
        if match.score.fmeasure > found[best].score.fmeasure:
            best = index
    match = found[best]
    precision, recall, fmeasure = match.score
    side = Side(
        text=text,
        tokens=list(match.candidate),
        on_lcs=_marked(match.candidate_hits, match.span),
        matches=match.matches,
        candidate_len=match.candidate_count,
        reference_len=match.reference_count,
        precision=precision,
        recall=recall,
        fmeasure=fmeasure,
        reference_index=best,
        metric=metric,
        reference_on=_marked(match.reference_hits, match.span),
    )
    return side, found


def _marked(starts: Sequence[int], span: int) -> set[int]:
    """Token indices covered by matches starting at `starts`, each `span` tokens long."""
    if span == 1:
        return set(starts)
    return {start + k for start in starts for k in range(span)}


def example_diff(
    example_id: str,
    references: Sequence[str],
    baseline: str,
    candidate: str,
    metric: str = "rougeL",
    tokenizer: str = "whitespace",
    stem: bool = False,
) -> ExampleDiff:
    """Score both outputs against the reference(s) and mark the words that count.

    Raises ValueError for an unknown metric or tokenizer, no references, or stemming with
    the whitespace tokenizer.
    """
    if metric not in DIFF_METRICS:
        raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(DIFF_METRICS)}")
    if not references:
        raise ValueError(f"example {example_id!r} has no reference to compare against")
    reference_tokens = [tokenize_with_offsets(text, tokenizer, stem) for text in references]
    base_side, base_all = _side(metric, references, reference_tokens, baseline, tokenizer, stem)
    cand_side, cand_all = _side(metric, references, reference_tokens, candidate, tokenizer, stem)

    shown = cand_side.reference_index
    shown_tokens = cand_all[shown].reference
    base_on = _marked(base_all[shown].reference_hits, base_all[shown].span)
    cand_on = _marked(cand_all[shown].reference_hits, cand_all[shown].span)
    matched_by: list[MatchedBy] = []
    for index in range(len(shown_tokens)):
        in_base, in_cand = index in base_on, index in cand_on
        matched_by.append(
            "both"
            if in_base and in_cand
            else "baseline"
            if in_base
            else "candidate"
            if in_cand
            else "neither"
        )
    note = ""
    if len(references) > 1:
        note = f"reference {shown + 1} of {len(references)}: the candidate's best"
        if base_side.reference_index != shown:
            note += (
                f"; the baseline scored best against reference {base_side.reference_index + 1},"
                " its figures are against that one"
            )
        else:
            note += " and the baseline's"
    view = ReferenceView(
        text=references[shown],
        tokens=list(shown_tokens),
        matched_by=matched_by,
        index=shown,
        count=len(references),
        note=note,
    )
    return ExampleDiff(
        id=example_id,
        metric=metric,
        tokenizer=tokenizer,
        stem=stem,
        reference=view,
        baseline=base_side,
        candidate=cand_side,
    )


# --- the outputs against each other --------------------------------------------------------


def _run_text(text: str, tokens: Sequence[Token], start: int, stop: int) -> str:
    """Tokens [start, stop) as written: from the first token to the next run (or the end).

    The first run also takes any text before the first token, so the rows together show all
    of the text; whitespace at either end is trimmed.
    """
    begin = 0 if start == 0 else tokens[start].start
    end = tokens[stop].start if stop < len(tokens) else len(text)
    return text[begin:end].strip()


def output_alignment(
    baseline: str, candidate: str, tokenizer: str = "whitespace", stem: bool = False
) -> list[AlignedRow]:
    """Word-level LCS alignment of the two outputs, as rows of runs of words as written.

    Runs of equal words are grouped; a removed run next to an added run forms one `replace`
    row. The LCS is rouge-score's traceback (deterministic), over the tokenizer's words.
    """
    a = tokenize_with_offsets(baseline, tokenizer, stem)
    b = tokenize_with_offsets(candidate, tokenizer, stem)
    pairs = [(op[1], op[2]) for op in align_outputs(a, b) if op[0] == "equal"]

    rows: list[AlignedRow] = []

    def changed(i0: int, i1: int, j0: int, j1: int) -> None:
        if i1 > i0 and j1 > j0:
            kind: RowKind = "replace"
        elif i1 > i0:
            kind = "delete"
        elif j1 > j0:
            kind = "insert"
        else:
            return
        rows.append(
            AlignedRow(
                kind,
                _run_text(baseline, a, i0, i1) if i1 > i0 else "",
                _run_text(candidate, b, j0, j1) if j1 > j0 else "",
                i1 - i0,
                j1 - j0,
            )
        )

    i = j = 0
    k = 0
    while k < len(pairs):
        pi, pj = pairs[k]
        changed(i, pi, j, pj)
        length = 1
        while k + length < len(pairs) and pairs[k + length] == (pi + length, pj + length):
            length += 1
        rows.append(
            AlignedRow(
                "equal",
                _run_text(baseline, a, pi, pi + length),
                _run_text(candidate, b, pj, pj + length),
                length,
                length,
            )
        )
        i, j = pi + length, pj + length
        k += length
    changed(i, len(a), j, len(b))
    return rows


# --- drawing helpers shared by the plain rendering and the widget --------------------------


@dataclass(frozen=True)
class Segment:
    """A piece of the original text and its mark (None: not marked). Not yet made visible."""

    text: str
    mark: str | None


_INLINE_SPACE = re.compile(r"[ \t]+")


def segments(
    text: str, tokens: Sequence[Token], marks: Sequence[str | None], limit: int | None = None
) -> tuple[list[Segment], int]:
    """Cut `text` into marked and unmarked pieces by token offsets.

    `marks[k]` is token k's mark. Spaces between two tokens with the same mark take that mark
    too (so an underline runs on across a phrase); punctuation and line breaks do not.
    With `limit`, only the first `limit` characters are cut; returns the pieces and how many
    characters were left out. The marked pieces are `marked_runs`; the rest lies between.
    """
    runs, left_out = marked_runs(text, tokens, marks, limit)
    end_at = len(text) - left_out
    pieces: list[Segment] = []
    at = 0
    for start, end, mark in runs:
        if start > at:
            pieces.append(Segment(text[at:start], None))
        pieces.append(Segment(text[start:end], mark))
        at = end
    if end_at > at:
        pieces.append(Segment(text[at:end_at], None))
    return pieces, left_out


Run = tuple[int, int, str]  # (start, end, mark): a marked piece, by its offsets in the text


def marked_runs(
    text: str, tokens: Sequence[Token], marks: Sequence[str | None], limit: int | None = None
) -> tuple[list[Run], int]:
    """The marked pieces of `segments(text, tokens, marks, limit)` as offsets into `text`,
    and how many characters were left out; the unmarked pieces are what lies between.

    No piece object per run (a long output has thousands): a run of tokens with one mark
    goes on across the inline spaces between them.
    """
    end_at = len(text) if limit is None else min(len(text), limit)
    runs: list[Run] = []
    inline_space = _INLINE_SPACE.fullmatch
    run_start, run_mark, at = 0, None, 0
    for (_, start, end), mark in zip(tokens, marks):
        if start >= end_at:
            break
        if mark != run_mark or (
            mark is not None and start > at and not inline_space(text, at, start)
        ):
            if run_mark is not None:
                runs.append((run_start, at, run_mark))
            run_start, run_mark = start, mark
        at = end  # only the last token read can end past `end_at`: cut below
    if run_mark is not None:
        runs.append((run_start, min(at, end_at), run_mark))
    return runs, len(text) - end_at


def _side_marks(side: Side) -> list[str | None]:
    """"match" for each of a side's tokens that counts towards its score, else None."""
    marks: list[str | None] = [None] * len(side.tokens)
    for k in side.on_lcs:
        marks[k] = "match"
    return marks


def _reference_marks(view: ReferenceView) -> list[str | None]:
    """Which build matched each reference token ("both", "baseline", "candidate"), or None."""
    return [None if by == "neither" else by for by in view.matched_by]


def side_runs(side: Side, limit: int | None = DEFAULT_LIMIT) -> tuple[list[Run], int]:
    """`side_segments`' marked pieces as `marked_runs`."""
    return marked_runs(side.text, side.tokens, _side_marks(side), limit)


def reference_runs(view: ReferenceView, limit: int | None = DEFAULT_LIMIT) -> tuple[list[Run], int]:
    """`reference_segments`' marked pieces as `marked_runs`."""
    return marked_runs(view.text, view.tokens, _reference_marks(view), limit)


def side_segments(side: Side, limit: int | None = DEFAULT_LIMIT) -> tuple[list[Segment], int]:
    """A side's text cut into pieces, marked "match" where the word counts towards its score."""
    return segments(side.text, side.tokens, _side_marks(side), limit)


def reference_segments(
    view: ReferenceView, limit: int | None = DEFAULT_LIMIT
) -> tuple[list[Segment], int]:
    """The reference cut into pieces marked "both", "baseline" or "candidate" (or unmarked)."""
    return segments(view.text, view.tokens, _reference_marks(view), limit)


def fold_words(text: str, words: int, context: int = FOLD_CONTEXT) -> str:
    """`text` with its middle replaced by `… N unchanged words …`, keeping `context` words.

    Words here are whitespace-separated pieces as written (what a reader sees).
    """
    pieces = text.split()
    hidden = len(pieces) - 2 * context
    if hidden <= 0:
        return text
    head = " ".join(pieces[:context])
    tail = " ".join(pieces[-context:]) if context else ""
    unit = "word" if hidden == 1 else "words"
    middle = f"… {hidden} unchanged {unit} …"
    return " ".join(part for part in (head, middle, tail) if part)


# --- plain text ----------------------------------------------------------------------------

_PLAIN_MARKS = {
    "match": ("[[", "]]"),
    "both": ("[[", "]]"),
    "baseline": ("{{", "}}"),
    "candidate": ("<<", ">>"),
}


def _plain_text(pieces: list[Segment], left_out: int, width: int) -> list[str]:
    marked = "".join(
        _PLAIN_MARKS[p.mark][0] + visible(p.text) + _PLAIN_MARKS[p.mark][1]
        if p.mark
        else visible(p.text)
        for p in pieces
    )
    lines: list[str] = []
    for line in marked.split("\n"):
        wrapped = textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
        lines.extend("  " + part for part in wrapped or [""])
    while lines and not lines[-1].strip():
        lines.pop()
    if left_out:
        lines.append(f"  … {left_out} more characters not shown (the figures use all of them)")
    return lines


def _clip(text: str, budget: int) -> tuple[str, int]:
    """`text` cut to `budget` characters (saying how many were cut), and the budget left."""
    if len(text) <= budget:
        return text, budget - len(text)
    return f"{text[:budget]} … {len(text) - budget} more characters", 0


def _plain_row(prefix: str, text: str, width: int) -> list[str]:
    wrapped = textwrap.wrap(
        visible(text.replace("\n", " ")),
        width,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [f"{prefix} {part}" for part in wrapped or [""]]


def render_plain(
    diff: ExampleDiff,
    rows: list[AlignedRow],
    *,
    width: int = 100,
    limit: int | None = DEFAULT_LIMIT,
    fold: int = FOLD_THRESHOLD,
) -> str:
    """The diff as plain text for a Markdown code block (see `markdown_block`).

    Words that count towards a side's score are `[[marked]]`; the reference marks words both
    builds matched `[[so]]`, the baseline only `{{so}}`, the candidate only `<<so>>`. Then
    the outputs' alignment: `=` unchanged (long runs folded), `-` removed, `+` added.
    Control characters are shown as escapes; each text is cut at `limit` characters.
    """
    stem = "stemming" if diff.stem else "no stemming"
    out = [
        f"example {one_line(diff.id)} · {diff.metric} · tokenizer {diff.tokenizer} · {stem}",
        "",
    ]
    ref = diff.reference
    heading = "reference" if ref.count == 1 else f"reference {ref.index + 1} of {ref.count}"
    out.append(f"{heading}  ([[both]] {{{{baseline only}}}} <<candidate only>> plain: neither)")
    if ref.note:
        out.append(f"  ({ref.note})")
    out += _plain_text(*reference_segments(ref, limit), width)
    for name, side in (("baseline", diff.baseline), ("candidate", diff.candidate)):
        out.append("")
        against = ""
        if ref.count > 1:
            against = f" (against reference {side.reference_index + 1})"
        out.append(f"{name}{against}: {side.arithmetic()}")
        out += _plain_text(*side_segments(side, limit), width)
    out.append("")
    out.append("baseline vs candidate (word-level LCS; = unchanged, - removed, + added)")
    budget = limit
    for number, row in enumerate(rows):
        if budget is not None and budget <= 0:
            out.append(f"  … {len(rows) - number} more rows not shown")
            break
        if row.kind == "equal":
            text = fold_words(row.left, row.left_words) if row.left_words > fold else row.left
            parts = [("=", text)]
        else:
            parts = [(p, t) for p, t in (("-", row.left), ("+", row.right)) if t]
        for prefix, text in parts:
            if budget is not None:
                text, budget = _clip(text, budget)
            out += _plain_row(prefix, text, width)
    if not rows:
        out.append("  (both outputs are empty)")
    return "\n".join(out) + "\n"


def markdown_block(text: str) -> str:
    """`text` in a fenced code block whose fence no run of backticks in `text` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}text\n{body}{fence}\n"
