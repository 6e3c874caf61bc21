"""One example's diff, as data: what each build matched in the reference, and how the two
outputs differ word by word. The app's diff view, the exported review and the HTML page all
draw this model; it imports no Textual and no Rich.

- Against the reference (`example_diff`): each build's output (a `Side`) with its counted
  words (`rouge.align`: exactly the words in its P/R/F arithmetic) and the reference with
  each word styled by which build matched it. With several references a side is scored
  against the one with its highest F (the first on ties); the reference shown is the
  candidate's, and a note says when the baseline's figures came from another.
- Baseline vs candidate (`word_diff`): a word-level LCS of the two outputs (words as
  written, split on whitespace), as pieces of each text that are unchanged, removed or added,
  whitespace and line breaks kept, so the diff reads like prose. Like a person's diff, not a
  bare LCS: an added or removed run slides to sentence ends (`alignment`), a short shared
  run between longer changes is folded into them, and two outputs that share little are
  shown as one replaced whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rouge_tui.analysis import grounding
from rouge_tui.analysis.settings import Settings
from rouge_tui.rouge import METRICS, TOKENIZERS, Token, tokenized
from rouge_tui.rouge.align import Match, lcs_pairs
from rouge_tui.rouge.metrics import best

__all__ = [
    "OTHER_TEXT",
    "PLAIN_TEXT",
    "SHARED_CLAUSE",
    "SHARE_LITTLE",
    "SHOWN",
    "ExampleDiff",
    "Piece",
    "ReferenceView",
    "Side",
    "alignment",
    "by_line",
    "cut_texts",
    "example_diff",
    "fold",
    "styled_pieces",
    "word_diff",
]

# The merged word diff's pieces that are not the candidate's text (`annotate`'s ``skip``).
OTHER_TEXT = frozenset({"removed", "gap"})
# The pieces shown as plain text, without a tag or a style of their own.
PLAIN_TEXT = frozenset({"same", "gap"})
# Around removed and added words wherever colour may be missing (terminal, HTML, Markdown).
BRACKETS = {"removed": ("[-", "-]"), "added": ("{+", "+}")}

MatchedBy = Literal["both", "baseline", "candidate", "neither"]

# Unchanged stretches longer than this many words fold to "… N unchanged words …" (`f`),
# keeping FOLD_CONTEXT words at each end.
FOLD_WORDS = 12
FOLD_CONTEXT = 3


@dataclass(frozen=True)
class Piece:
    """A stretch of a text drawn one way: ``kind`` says how (unchanged, removed, added; or
    counted / not for a side; who matched it for the reference; ``fold`` for a fold note)."""

    kind: str
    text: str


def by_line(pieces: Sequence[Piece]) -> list[Piece]:
    """``pieces`` with each bracketed run cut at its line breaks, the breaks plain: its markers
    close before a break and open again after it (a closing ``+}`` began the next line of an
    export, where it read as the text's own)."""
    out: list[Piece] = []
    for piece in pieces:
        if piece.kind not in BRACKETS or "\n" not in piece.text:
            out.append(piece)
            continue
        for number, part in enumerate(piece.text.split("\n")):
            if number:
                out.append(Piece("same", "\n"))
            if part:
                out.append(Piece(piece.kind, part))
    return out


@dataclass
class Side:
    """One build's output scored against one reference, its counted words picked out."""

    build: str
    text: str
    tokens: list[Token]
    match: Match
    metric: str
    reference: int  # which of the example's references the figures are against

    def arithmetic(self) -> str:
        """The score as the chapter writes it: ``LCS 17 · P 17/53 = 0.32 · R 17/56 = 0.30 ·
        F 0.31``; the highlighted words are the matched count."""
        m = self.match
        return (
            f"{METRICS[self.metric].label} {m.matches} · P {m.matches}/{m.candidate_len} = "
            f"{m.precision:.2f} · R {m.matches}/{m.reference_len} = {m.recall:.2f} · "
            f"F {m.fmeasure:.2f}"
        )

    def pieces(self) -> list[Piece]:
        return styled_pieces(self.text, self.tokens, {i: "counted" for i in self.match.candidate_on})


@dataclass
class ReferenceView:
    text: str
    tokens: list[Token]
    matched_by: list[MatchedBy]
    index: int  # which of the example's references this is
    count: int  # how many it has
    note: str = ""

    def pieces(self) -> list[Piece]:
        return styled_pieces(
            self.text, self.tokens,
            {i: kind for i, kind in enumerate(self.matched_by) if kind != "neither"},
        )


@dataclass
class ExampleDiff:
    id: str
    reference: ReferenceView
    baseline: Side
    candidate: Side


def styled_pieces(text: str, tokens: Sequence[Token], kinds: dict[int, str]) -> list[Piece]:
    """``text`` cut into pieces: each token in ``kinds`` its own piece of its kind, the
    text between them plain (``same``). Adjacent tokens of one kind join with what lies
    between them, so a stretch of counted words is one piece."""
    pieces: list[Piece] = []
    at = 0
    for index, token in enumerate(tokens):
        kind = kinds.get(index)
        if kind is None or token.end <= at:
            continue
        start = max(token.start, at)
        if pieces and pieces[-1].kind == kind and not text[at:start].strip("\t "):
            pieces[-1] = Piece(kind, pieces[-1].text + text[at : token.end])
        else:
            if start > at:
                pieces.append(Piece("same", text[at:start]))
            pieces.append(Piece(kind, text[start : token.end]))
        at = token.end
    if at < len(text):
        pieces.append(Piece("same", text[at:]))
    return pieces


def _side(build: str, text: str, references: Sequence[str], settings: Settings) -> tuple[Side, list]:
    """The side scored against each reference; the one of highest F (first on ties)."""
    metric = METRICS[settings.metric]
    tokenizer = TOKENIZERS[settings.tokenizer]
    own = tokenized(text, tokenizer, settings.stem, metric.by_line)
    refs = [tokenized(r, tokenizer, settings.stem, metric.by_line) for r in references]
    matches = [metric.match(ref, own) for ref in refs]
    chosen = best([m.fmeasure for m in matches])
    side = Side(build, text, own.tokens, matches[chosen], settings.metric, chosen)
    return side, [refs, matches]


def example_diff(
    example_id: str,
    references: Sequence[str],
    baseline: str,
    candidate: str,
    settings: Settings,
    builds: tuple[str, str] = ("baseline", "candidate"),
) -> ExampleDiff:
    """The example against its reference(s), under ``settings``' metric and tokenizer."""
    base, (refs, base_matches) = _side(builds[0], baseline, references, settings)
    cand, (_, cand_matches) = _side(builds[1], candidate, references, settings)
    shown = cand.reference
    by_base = base_matches[shown].reference_on
    by_cand = cand_matches[shown].reference_on
    matched_by: list[MatchedBy] = [
        "both" if i in by_base and i in by_cand
        else "baseline" if i in by_base
        else "candidate" if i in by_cand
        else "neither"
        for i in range(len(refs[shown].tokens))
    ]
    note = ""
    if base.reference != shown:
        note = (
            f"the baseline scores best against reference {base.reference + 1} of "
            f"{len(references)}; its words shown here are those it shares with this one"
        )
    view = ReferenceView(references[shown], refs[shown].tokens, matched_by, shown, len(references), note)
    return ExampleDiff(example_id, view, base, cand)


# --------------------------------------------------------------------------- word diff

_WORD = re.compile(r"\S+")


def _words(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


# Two outputs share little when fewer than SHARE_LITTLE of the shorter one's words lie on kept
# runs and no kept run has SHARED_CLAUSE words: they are shown as replaced whole, as difflib's
# Differ does below its similarity cutoff (a leading `The` and a closing `.` kept between two
# different texts are not an edit anyone made).
SHARE_LITTLE = 0.5
SHARED_CLAUSE = 4
# A word that ends a sentence or a clause: a change that can slide ends just after one.
_SENTENCE_END = re.compile(r"[.!?][\"')\]’”]*$")
_CLAUSE_END = re.compile(r"[,;:]$")


def _boundary(words: Sequence[str], at: int) -> int:
    """How good a place it is for a change to start or end: before word ``at``."""
    if at <= 0 or at >= len(words):
        return 3
    if _SENTENCE_END.search(words[at - 1]):
        return 2
    return 1 if _CLAUSE_END.search(words[at - 1]) else 0


def alignment(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """The (old index, new index) pairs the word diff keeps: their LCS, then cleaned up as
    diff-match-patch's semantic cleanup does, in words: an added or removed run that could
    stand one or more words earlier or later moves to where it best starts and ends a
    sentence (`operation . {+he was sentenced .+}`, not `operation {+. he was sentenced+} .`);
    a shared run no longer (in characters) than the change on each side of it becomes part
    of that change; and when the two share little (SHARE_LITTLE), nothing is kept."""
    # Runs: [same?, old start, old end, new start, new end], same and changed alternating.
    runs: list[list] = []
    i = j = 0
    for oi, nj in [*lcs_pairs(old, new), (len(old), len(new))]:
        if oi > i or nj > j:
            runs.append([False, i, oi, j, nj])
        if oi < len(old):
            if runs and runs[-1][0]:
                runs[-1][2] += 1
                runs[-1][4] += 1
            else:
                runs.append([True, oi, oi + 1, nj, nj + 1])
        i, j = oi + 1, nj + 1
    _slide(runs, old, new)
    runs = _fold_short_runs(runs, old, new)
    kept = [(run[1] + k, run[3] + k) for run in runs if run[0] for k in range(run[2] - run[1])]
    longest = max((run[2] - run[1] for run in runs if run[0]), default=0)
    if len(kept) < SHARE_LITTLE * min(len(old), len(new)) and longest < SHARED_CLAUSE:
        return []
    return kept


def _slide(runs: list[list], old: Sequence[str], new: Sequence[str]) -> None:
    """Each purely added or removed run between two shared runs moved to the position,
    among those that give the same texts, whose ends lie best (`_boundary`)."""
    for k in range(1, len(runs) - 1):
        before, change, after = runs[k - 1], runs[k], runs[k + 1]
        if change[0] or (change[1] < change[2] and change[3] < change[4]):
            continue
        words, lo, hi = (old, 1, 2) if change[1] < change[2] else (new, 3, 4)
        best, best_score = 0, _boundary(words, change[lo]) + _boundary(words, change[hi])
        shift = 0  # leftwards while the run's last word is the shared word before it
        while before[2] - before[1] + shift > 0 and words[change[hi] - 1 + shift] == words[change[lo] - 1 + shift]:
            shift -= 1
            score = _boundary(words, change[lo] + shift) + _boundary(words, change[hi] + shift)
            if score > best_score:
                best, best_score = shift, score
        shift = 0  # rightwards while its first word is the shared word after it
        while after[2] - after[1] - shift > 0 and words[change[lo] + shift] == words[change[hi] + shift]:
            shift += 1
            score = _boundary(words, change[lo] + shift) + _boundary(words, change[hi] + shift)
            if score > best_score:
                best, best_score = shift, score
        if best:
            for index in (lo, hi):
                change[index] += best
            before[2] += best
            before[4] += best
            after[1] += best
            after[3] += best


# Words of a shared run at most, to be absorbed into the changes around it: README's "a
# short word shared between two changes"; longer, a newcomer read an unchanged eight-word
# sentence as removed and added again. (Not `FOLD_WORDS`, the display's fold: named so, it
# took that one's place, and a shared run of four words folded to "… -2 unchanged words …".)
ABSORB_WORDS = 3


def _fold_short_runs(runs: list[list], old: Sequence[str], new: Sequence[str]) -> list[list]:
    """Shared runs of at most `ABSORB_WORDS` words between two changes, each change at least as
    long (in characters, the larger of its two sides), folded into one change with them;
    until none is left."""

    def chars(words: Sequence[str], start: int, end: int) -> int:
        return sum(len(w) for w in words[start:end])

    def size(run: list) -> int:
        return max(chars(old, run[1], run[2]), chars(new, run[3], run[4]))

    changed = True
    while changed:
        changed = False
        out: list[list] = []
        for k, run in enumerate(runs):
            fold_in = (
                run[0] and 0 < k < len(runs) - 1 and run[2] - run[1] <= ABSORB_WORDS
                and chars(old, run[1], run[2]) <= min(size(runs[k - 1]), size(runs[k + 1]))
            )
            if out and not out[-1][0] and (fold_in or not run[0]):
                out[-1][2], out[-1][4] = run[2], run[4]
                changed |= fold_in
            else:
                out.append([False if fold_in else run[0], *run[1:]])
        runs = out
    return runs


def word_diff(baseline: str, candidate: str) -> tuple[list[Piece], list[Piece], list[Piece]]:
    """The two outputs' word `alignment` as pieces: the baseline's (``same`` / ``removed``),
    the candidate's (``same`` / ``added``), and one merged text that reads like a word diff:
    the candidate's text and whitespace, with each removed run just before the added run
    that replaces it (or where it stood), then a ``gap`` space to part it from what follows.
    Without the pieces of `OTHER_TEXT`, the merged text is the candidate's, character for
    character (its grounding tags go in at the candidate's offsets)."""
    old, new = _words(baseline), _words(candidate)
    pairs = alignment([w.text for w in old], [w.text for w in new])
    kept_old = {i for i, _ in pairs}
    kept_new = {j for _, j in pairs}
    base_pieces = styled_pieces(baseline, old, {i: "removed" for i in range(len(old)) if i not in kept_old})
    cand_pieces = styled_pieces(candidate, new, {j: "added" for j in range(len(new)) if j not in kept_new})
    merged: list[Piece] = []

    def add(kind: str, text: str) -> None:
        if text:
            if merged and merged[-1].kind == kind:
                merged[-1] = Piece(kind, merged[-1].text + text)
            else:
                merged.append(Piece(kind, text))

    at = i = j = 0  # at: how far into the candidate's text the merged text has come
    for oi, nj in [*pairs, (len(old), len(new))]:
        removed, added = old[i:oi], new[j:nj]
        if removed:
            following = added[0].start if added else (new[nj].start if nj < len(new) else len(candidate))
            add("same", candidate[at:following])
            at = following
            if following and not candidate[following - 1].isspace():  # removed after the last word
                add("gap", " ")
            add("removed", baseline[removed[0].start : removed[-1].end])
            add("gap", " " if added or nj < len(new) else "")  # not the candidate's text
        if added:
            add("same", candidate[at : added[0].start])
            add("added", candidate[added[0].start : added[-1].end])
            at = added[-1].end
        if nj < len(new):
            add("same", candidate[at : new[nj].end])
            at = new[nj].end
        i, j = oi + 1, nj + 1
    add("same", candidate[at:])
    return base_pieces, cand_pieces, merged


def fold(pieces: Sequence[Piece]) -> list[Piece]:
    """Unchanged pieces of more than FOLD_WORDS words shown as their first and last
    FOLD_CONTEXT words around a ``fold`` piece that says how many were left out."""
    out: list[Piece] = []
    for piece in pieces:
        found = list(_WORD.finditer(piece.text)) if piece.kind == "same" else []
        if len(found) <= FOLD_WORDS:
            out.append(piece)
            continue
        head_end = found[FOLD_CONTEXT - 1].end()
        tail_start = found[-FOLD_CONTEXT].start()
        out.append(Piece("same", piece.text[:head_end] + " "))
        out.append(Piece("fold", f"… {len(found) - 2 * FOLD_CONTEXT} unchanged words …"))
        out.append(Piece("same", " " + piece.text[tail_start:]))
    return out


def empty_output(text: str) -> str | None:
    """What to show for an output with nothing to read (a blank pane looks like a drawing
    fault); None for one with words."""
    if text.strip():
        return None
    return "(empty output)" if not text else "(only whitespace)"


# --------------------------------------------------------------------------- grounding tags

UNSUPPORTED_TAG = "[?] "
LEGEND = "[?] no counterpart in the reference or source — read it  «N» in no other text"


def grounding_tags(side, shown: int | None = None) -> list[tuple[int, int, str, str]]:
    """Where a side's tags go (rouge_tui.analysis.grounding.Grounded): before each sentence with
    no counterpart, and around each new figure; (offset, 0 closes / 1 opens, kind, text).
    With ``shown``, only the tags of a text cut to its first ``shown`` characters (a sentence
    that starts there, a figure wholly there)."""
    limit = float("inf") if shown is None else shown
    tags = [(s.span.start, 1, "flag", UNSUPPORTED_TAG) for s in side.sentences
             if s.unsupported and s.span.start < limit]
    for number in side.numbers:
        if number.new and number.span.end <= limit:
            tags += [(number.span.start, 1, "newfig", "«"), (number.span.end, 0, "newfig", "»")]
    return sorted(tags)


def annotate(pieces: Sequence[Piece], tags: Sequence[tuple[int, int, str, str]], skip: frozenset[str] = frozenset()) -> list[Piece]:
    """``pieces`` with tag pieces put in at text offsets (counted through the pieces whose
    kind is not in ``skip``: the merged word diff's removed words are the other text's)."""
    out: list[Piece] = []
    at, k = 0, 0
    for piece in pieces:
        if piece.kind in skip:
            out.append(piece)
            continue
        end, cut = at + len(piece.text), 0
        while k < len(tags) and (tags[k][0] < end or (tags[k][0] == end and tags[k][1] == 0)):
            offset = tags[k][0] - at
            if offset > cut:
                out.append(Piece(piece.kind, piece.text[cut:offset]))
                cut = offset
            out.append(Piece(tags[k][2], tags[k][3]))
            k += 1
        if cut < len(piece.text):
            out.append(Piece(piece.kind, piece.text[cut:]))
        at = end
    out += [Piece(kind, text) for _, _, kind, text in tags[k:]]
    return out


# --------------------------------------------------------------------------- long texts

SHOWN = 100_000  # characters of one text a diff aligns and shows; the rest is left out


def cut_texts(named: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Each ``(name, text)``'s text cut to its first `SHOWN` characters, and a note for each
    text that was cut, saying where. The diff view, the export and the HTML report align at
    most this much of a text (aligning 200,000 distinct words held gigabytes); grounding
    and figures still read the whole texts."""
    # Which numbers are of what: the LCS line under a side counts what is aligned (a
    # newcomer read a recall of 0.00 there, of 1.00 in the title, under "figures for the whole").
    notes = [f"the {name} is {len(text):,} characters: too long to align in full; the first "
             f"{SHOWN:,} are aligned and shown, and its LCS line counts them alone; the scores of the example "
             "and the tags are for the whole text"
             for name, text in named if len(text) > SHOWN]
    return [text[:SHOWN] for _, text in named], notes


@dataclass(frozen=True)
class ExampleReady:
    """One example of a comparison made ready to draw: its diff, the two outputs as drawn
    (a huge text cut), what the cuts left out, and its grounding (made on the whole texts,
    as the table's counts are: the tags agree with them)."""

    diff: ExampleDiff
    outputs: tuple[str, str]
    notes: list[str]
    grounding: grounding.Grounding


def prepare_example(texts, example_id: str, run: int, settings: Settings, names: tuple[str, str]) -> ExampleReady:
    """Example ``example_id`` of ``texts`` (a comparison's `Texts`) in ``run`` of each build,
    under ``settings``; ``names``: the two builds' names as the diff heads them."""
    references = texts.references.texts[example_id]
    baseline, candidate = texts.outputs(example_id, run)
    source = texts.references.sources.get(example_id)
    found = grounding.ground(candidate, references, source, baseline, settings.min_support)
    cut, notes = cut_texts([("baseline", baseline), ("candidate", candidate),
                            *((f"reference {i + 1}", r) for i, r in enumerate(references))])
    baseline, candidate, references = cut[0], cut[1], cut[2:]
    diff = example_diff(example_id, references, baseline, candidate, settings, names)
    return ExampleReady(diff, (baseline, candidate), notes, found)


def run_scores(texts, example_id: str, settings: Settings) -> tuple[list[float], list[float]]:
    """Example ``example_id``'s F in every run of the baseline and of the candidate (the
    table's scores are their means)."""
    from rouge_tui.rouge import engine

    refs = texts.references.texts[example_id]
    scores = []
    for build in (texts.baseline, texts.candidate):
        outputs = [run.outputs[example_id] for run in build.runs]
        scores.append(engine.score([refs] * len(outputs), outputs, settings.metric, settings.tokenizer, settings.stem)[:, 2].tolist())
    return scores[0], scores[1]
