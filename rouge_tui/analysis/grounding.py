"""What overlap cannot see: sentences with no counterpart, new figures, copied spans.

The definitions are SPEC's section "What overlap cannot see", restated here in code:

- sentences: a text is cut at newlines (the line boundaries of ``str.splitlines``, so CRLF is
  one), and after a run of ``.``, ``!`` or ``?`` with any closing marks ``" ' ) ] ’ ”`` right
  after, followed by whitespace. Each piece is trimmed of whitespace (the offsets are the
  trimmed piece's, into the text as written); pieces with no word are dropped. An abbreviation
  ends a sentence like any other full stop ("e.g. this" and "Dr. Smith" are cut after the
  stop): SPEC's rule reads punctuation, not meaning, and a short piece still finds its
  counterpart when the reference has the same abbreviation.
- SPEC is silent on Chinese and Japanese: a run of the full stop ``。``, ``！`` or ``？`` (with
  any closing marks, SPEC's or ``」 』 ）``) ends a sentence even with no whitespace after it,
  because those languages put no space between sentences; without this rule a whole Chinese
  paragraph would be one sentence and a new claim inside it would have a counterpart in any
  reference that shares half its characters' words.
- words: the text casefolded, then maximal runs of Unicode letters and digits (``[^\\W_]+``).
- support of a sentence s by a text T: the largest LCS(words(s), words(t)) / len(words(s))
  over the sentences t of T (0 when T has none). s has a counterpart in T when its support is
  at least ``min_support``.
- unsupported: no counterpart in the references (any of them) nor the source. new: no
  counterpart there nor in the other output (for the candidate: the baseline; SPEC's new
  sentence). Each sentence and figure counts once per occurrence.
- figures: maximal matches of ``\\d+(?:[.,:/-]\\d+)*%?`` in the text as written; a figure is
  new when no reference, source or other output has the same figure text. In the code they
  are *numbers* (`numbers`, `NumberGrounding`), apart from `Figures`, every number of a
  comparison; SPEC's word stays where other tools read it (``new_figures``).
- copied spans: Grusky et al. 2018 (Newsroom) greedy extractive fragments of the output in
  the source, with coverage = sum |f| / |output words| and density = sum |f|^2 / |output words|.

`ground` is the reference implementation, one example at a time, for the diff view and the
report's top examples. `rouge_tui.analysis.grounding_bulk.new_counts` is the bulk path for
every paired example (the change signals and the report's counts); it must equal
`ground_side` and `least_support`, and its tests say so.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

__all__ = [
    "CJK_ENDS",
    "CLOSERS",
    "MIN_SUPPORT",
    "WORD",
    "Counterpart",
    "Fragment",
    "Grounded",
    "Grounding",
    "NumberGrounding",
    "SentenceGrounding",
    "Span",
    "check_min_support",
    "copy_means",
    "coverage_density",
    "fragments",
    "ground",
    "ground_side",
    "lcs_blocks",
    "lcs_length",
    "least_support",
    "numbers",
    "sentences",
    "word_places",
    "words",
]

MIN_SUPPORT = 0.5
_SCAN_STEPS = 16  # steps of `fragments`' scan a word of an example's two texts, at most
_FEW_PLACES = 8  # a word's places in a source that `fragments` scans one by one
_BLOCK = 1 << 22  # LCS lengths held at once (16 MiB), for any number of sentences

# SPEC's closing marks after a stop, the CJK stops and what a word is: public, because the bulk
# path (grounding_bulk) reads texts by the same rules.
CLOSERS = "\"')]’”"
CJK_ENDS = "。！？"
_CJK_CLOSERS = "」』）"
_SENTENCE_END = re.compile(
    # SPEC: a run of . ! ? and closing marks, then whitespace; CJK: a run of its stops and
    # closing marks, whatever follows. Linear on any text: a run is tried from its start only
    # (from inside it, the match would end where the whole run's does) and never given back
    # (a shorter run or fewer closing marks is followed by a mark, not whitespace). The one
    # class of every stop comes first, so that re skips in C to the next stop instead of
    # trying the pattern at each character: a long output with few stops holds the GIL, and
    # with it the app's keys, for that much less.
    rf"[.!?{CJK_ENDS}](?:(?<=[.!?])(?<![.!?].)[.!?]*+[{re.escape(CLOSERS)}]*+(?=\s)"
    rf"|(?<=[{CJK_ENDS}])[{CJK_ENDS}]*+[{re.escape(CLOSERS + _CJK_CLOSERS)}]*+)"
)
WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*%?")
# Every ASCII character that is not a letter or a digit, as a space (for `words`).
_ASCII_GAPS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a text: its text and its offsets into the text as written."""

    text: str
    start: int
    end: int


def sentences(text: str) -> list[Span]:
    """The sentences of ``text``, as SPEC cuts them (see the module's docstring)."""
    found = []
    line_start = 0
    for line in text.splitlines(keepends=True):
        cut = 0
        for end in [m.end() for m in _SENTENCE_END.finditer(line)] + [len(line)]:
            piece = line[cut:end]
            trimmed = piece.strip()
            if WORD.search(trimmed.casefold()):
                start = line_start + cut + len(piece) - len(piece.lstrip())
                found.append(Span(trimmed, start, start + len(trimmed)))
            cut = end
        line_start += len(line)
    return found


def words(text: str) -> list[str]:
    """The words of ``text`` for grounding, whatever the scoring tokenizer."""
    if text.isascii():  # the same words, 4x quicker than the regex: [A-Za-z0-9] runs
        return text.lower().translate(_ASCII_GAPS).split()
    return WORD.findall(text.casefold())


def numbers(text: str) -> list[Span]:
    """The numbers of ``text`` (SPEC's figures): ``02:14``, ``41``, ``3.5%``, ``1,200``, ``2026-11-20``."""
    return [Span(m[0], m.start(), m.end()) for m in _NUMBER.finditer(text)]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of a longest common subsequence of two word lists."""
    ids: dict[str, int] = {}
    return int(LCSseq.similarity([ids.setdefault(w, len(ids)) for w in a],
                                 [ids.setdefault(w, len(ids)) for w in b]))


@dataclass(frozen=True, slots=True)
class Fragment:
    """A copied span: ``length`` words from word ``output`` of the output, found at word
    ``source`` of the source."""

    output: int
    source: int
    length: int


def word_places(source: Sequence[str]) -> dict[str, list[int]]:
    """Where each word of ``source`` stands, for `fragments`."""
    at: defaultdict[str, list[int]] = defaultdict(list)
    for j, word in enumerate(source):
        at[word].append(j)
    return at


def fragments(
    output: Sequence[str], source: Sequence[str], at: dict[str, list[int]] | None = None
) -> list[Fragment]:
    """Grusky et al.'s greedy extractive fragments of ``output`` in ``source`` (word lists;
    ``at``: the source's `word_places`, when already made).

    As the Newsroom code does it: from each output position, scan the source left to right;
    at each match, extend it as far as it goes, keep it if it is the longest so far (the first
    of equal lengths), and resume the scan after it. Then move the output position past the
    longest match, or one word on when there was none.

    Two things keep repetitive text (a source of ``a a a ...``, an output ``a b a b ...``)
    from costing |output| x |source|. A match of one word neither beats the first match nor
    makes the scan skip a place of the word, so past a word's first place only the places
    where the output's next word follows it are scanned (the same fragments). And an example
    whose scan has taken `_SCAN_STEPS` steps a word of the two texts (no prose comes near:
    it takes a word repeated thousands of times, each time followed by the same words) takes,
    from each further position on, the first match of length two or more, else the first
    match: a bound on time, the same fragments on any text that stays within it.
    """
    at = word_places(source) if at is None else at
    after: dict[str, dict[str, list[int]]] = {}  # word -> next word -> the word's places
    budget = _SCAN_STEPS * (len(output) + len(source))
    found = []
    i = 0
    while i < len(output):
        places = at.get(output[i])
        if not places:
            i += 1
            continue
        best = Fragment(i, places[0], 1)
        if len(places) > _FEW_PLACES and i + 1 < len(output):  # the places the next word follows
            if output[i] not in after:
                follow = after[output[i]] = defaultdict(list)
                for j in places:
                    if j + 1 < len(source):
                        follow[source[j + 1]].append(j)
            places = after[output[i]].get(output[i + 1], ())
        resume = 0
        for j in places:
            if j < resume:
                continue
            k = 1
            while i + k < len(output) and j + k < len(source) and output[i + k] == source[j + k]:
                k += 1
            if k > best.length:
                best = Fragment(i, j, k)
            resume = j + k
            budget -= k
            if budget < 0 and k > 1:
                break
        found.append(best)
        i += best.length
    return found


def coverage_density(
    output: Sequence[str], source: Sequence[str], at: dict[str, list[int]] | None = None
) -> tuple[float, float]:
    """Coverage and density of the output's words in the source's (0 for an output with none)."""
    if not output:
        return 0.0, 0.0
    lengths = [f.length for f in fragments(output, source, at)]
    return sum(lengths) / len(output), sum(n * n for n in lengths) / len(output)


def copy_means(
    builds: Sequence[Sequence[str]], sources: Sequence[str | None]
) -> list[tuple[float, float] | None]:
    """Each build's mean coverage and density over the examples that have a source (None if
    none has); ``builds[b][i]`` is build b's output for the example of ``sources[i]``.

    Each source is read once for all the builds, and an output the build before gave too is
    not read again (nightly builds mostly repeat).
    """
    per: list[list[tuple[float, float]]] = [[] for _ in builds]
    for example, source in enumerate(sources):
        if source is None:
            continue
        source_words = words(source)
        at = word_places(source_words)
        previous, found = None, (0.0, 0.0)
        for values, outputs in zip(per, builds):
            if outputs[example] != previous:
                previous = outputs[example]
                found = coverage_density(words(previous), source_words, at)
            values.append(found)
    return [
        (sum(c for c, _ in values) / len(values), sum(d for _, d in values) / len(values)) if values else None
        for values in per
    ]


@dataclass(frozen=True, slots=True)
class Counterpart:
    """The sentence of another text that supports a sentence best: which text ("reference 1",
    "source", "baseline", ...), the sentence there, and the support."""

    where: str
    sentence: Span
    support: float


@dataclass(frozen=True, slots=True)
class SentenceGrounding:
    """One sentence of an output: its best counterpart in the references and source, its best
    counterpart in the other output (None where no word is shared), and the two verdicts."""

    span: Span
    counterpart: Counterpart | None
    in_other: Counterpart | None
    unsupported: bool  # no counterpart in the references or source: "read it"
    new: bool  # and none in the other output either


@dataclass(frozen=True, slots=True)
class NumberGrounding:
    span: Span
    new: bool  # no reference, source or other output has this number


@dataclass(frozen=True, slots=True)
class Grounded:
    """What overlap cannot see in one output of an example."""

    sentences: tuple[SentenceGrounding, ...]
    numbers: tuple[NumberGrounding, ...]
    coverage: float | None  # None without a source
    density: float | None

    @property
    def unsupported(self) -> list[str]:
        return [s.span.text for s in self.sentences if s.unsupported]

    @property
    def new_sentences(self) -> list[str]:
        return [s.span.text for s in self.sentences if s.new]

    @property
    def new_figures(self) -> list[str]:
        return [f.span.text for f in self.numbers if f.new]


@dataclass(frozen=True, slots=True)
class Grounding:
    """One example: the candidate output against the references, source and baseline, and the
    baseline output against the references, source and candidate (None without a baseline)."""

    candidate: Grounded
    baseline: Grounded | None

    @property
    def unsupported(self) -> list[str]:
        return self.candidate.unsupported

    @property
    def new_sentences(self) -> list[str]:
        return self.candidate.new_sentences

    @property
    def new_figures(self) -> list[str]:
        return self.candidate.new_figures

    @property
    def coverage(self) -> float | None:
        return self.candidate.coverage

    @property
    def density(self) -> float | None:
        return self.candidate.density


def check_min_support(min_support: float) -> None:
    """A ValueError unless ``min_support`` is a share in (0, 1] (both paths take it)."""
    if not 0.0 < min_support <= 1.0:
        raise ValueError(f"min_support must be in (0, 1], not {min_support!r}")


def _best_counterparts(
    own: list[list[str]], texts: Sequence[tuple[str, str]]
) -> list[Counterpart | None]:
    """For each word list of ``own``, the sentence of ``texts`` ((name, text) pairs) with the
    largest LCS, the first of equals; None where no sentence shares a word."""
    found = [(name, span, words(span.text)) for name, text in texts for span in sentences(text)]
    if not own or not found:
        return [None] * len(own)
    ids: dict[str, int] = {}
    rows = [[ids.setdefault(w, len(ids)) for w in ws] for ws in own]
    columns = [[ids.setdefault(w, len(ids)) for w in ws] for _, _, ws in found]
    best = np.empty(len(rows), np.intp)
    most = np.empty(len(rows), np.int64)
    for start, lcs in lcs_blocks(rows, columns):
        block = slice(start, start + len(lcs))
        best[block] = lcs.argmax(axis=1)
        most[block] = lcs[np.arange(len(lcs)), best[block]]
    out: list[Counterpart | None] = []
    for ws, k, n in zip(own, best.tolist(), most.tolist()):
        out.append(Counterpart(found[k][0], found[k][1], n / len(ws)) if n else None)
    return out


def lcs_blocks(rows: Sequence, columns: Sequence) -> Iterator[tuple[int, np.ndarray]]:
    """The LCS lengths of every row against every column (word lists or strings), a block of
    rows at a time: ``(first row, its block's matrix)``. At most `_BLOCK` lengths are held at
    once, so two texts of 30,000 sentences each need no 3.6 GB matrix."""
    step = max(1, _BLOCK // max(len(columns), 1))
    for start in range(0, len(rows), step):
        yield start, process.cdist(rows[start:start + step], columns,
                                   scorer=LCSseq.similarity, dtype=np.int32)


def ground_side(
    output: str,
    references: Sequence[str] | str,
    source: str | None = None,
    other: str | None = None,
    *,
    min_support: float = MIN_SUPPORT,
    other_name: str = "baseline",
) -> Grounded:
    """The sentences and numbers of ``output`` against the references and source, and against
    the ``other`` output of the pair (named ``other_name`` in counterparts; no other output
    counts as an empty one)."""
    check_min_support(min_support)
    if isinstance(references, str):
        references = (references,)
    grounds = [(f"reference {k}", text) for k, text in enumerate(references, 1)]
    if source is not None:
        grounds.append(("source", source))
    spans = sentences(output)
    own = [words(span.text) for span in spans]
    counterparts = _best_counterparts(own, grounds)
    in_other = _best_counterparts(own, [(other_name, other)] if other is not None else [])

    def has(c: Counterpart | None) -> bool:
        return c is not None and c.support >= min_support

    rows = []
    for span, c, o in zip(spans, counterparts, in_other):
        unsupported = not has(c)
        rows.append(SentenceGrounding(span, c, o, unsupported, unsupported and not has(o)))
    known = {f.text for _, text in grounds for f in numbers(text)}
    if other is not None:
        known.update(f.text for f in numbers(other))
    found = tuple(NumberGrounding(f, f.text not in known) for f in numbers(output))
    copied = (None, None) if source is None else coverage_density(words(output), words(source))
    return Grounded(tuple(rows), found, *copied)


def ground(
    candidate: str,
    references: Sequence[str] | str,
    source: str | None = None,
    baseline: str | None = None,
    min_support: float = MIN_SUPPORT,
) -> Grounding:
    """What overlap cannot see in one example, for the diff view and the report: both sides,
    each against the references, the source and the other side."""
    return Grounding(
        ground_side(candidate, references, source, baseline, min_support=min_support),
        None if baseline is None else ground_side(
            baseline, references, source, candidate, min_support=min_support,
            other_name="candidate"),
    )


def least_support(side: Grounded) -> float:
    """The least support of a side's new sentences, by the references, the source or the other
    output, whichever gives most (1.0 when it has none)."""
    def support(found: Counterpart | None) -> float:
        return found.support if found else 0.0

    return min((max(support(row.counterpart), support(row.in_other)) for row in side.sentences if row.new),
               default=1.0)

