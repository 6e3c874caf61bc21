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
  new when no reference, source or other output has the same figure text.
- copied spans: Grusky et al. 2018 (Newsroom) greedy extractive fragments of the output in
  the source, with coverage = sum |f| / |output words| and density = sum |f|^2 / |output words|.

`ground` is the reference implementation, one example at a time, for the diff view and the
report's top examples. `new_counts` is the bulk path for every paired example (the change
signals and the report's counts); it must equal `ground`, and a test says so.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

__all__ = [
    "Counterpart",
    "FigureGrounding",
    "Fragment",
    "Grounded",
    "Grounding",
    "SentenceGrounding",
    "Span",
    "copy_means",
    "coverage_density",
    "figures",
    "fragments",
    "ground",
    "ground_side",
    "lcs_length",
    "least_support",
    "new_counts",
    "sentences",
    "word_places",
    "words",
]

MIN_SUPPORT = 0.5
_SCAN_STEPS = 16  # steps of `fragments`' scan a word of an example's two texts, at most
_FEW_PLACES = 8  # a word's places in a source that `fragments` scans one by one
_BLOCK = 1 << 22  # LCS lengths held at once (16 MiB), for any number of sentences

_CLOSERS = "\"')]’”"
_CJK_ENDS = "。！？"
_CJK_CLOSERS = "」』）"
_SENTENCE_END = re.compile(
    # SPEC: a run of . ! ? and closing marks, then whitespace; CJK: a run of its stops and
    # closing marks, whatever follows. Linear on any text: a run is tried from its start only
    # (from inside it, the match would end where the whole run's does) and never given back
    # (a shorter run or fewer closing marks is followed by a mark, not whitespace).
    rf"(?<![.!?])[.!?]++[{re.escape(_CLOSERS)}]*+(?=\s)"
    rf"|[{_CJK_ENDS}]++[{re.escape(_CLOSERS + _CJK_CLOSERS)}]*+"
)
_WORD = re.compile(r"[^\W_]+")
_FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*%?")
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
            if _WORD.search(trimmed.casefold()):
                start = line_start + cut + len(piece) - len(piece.lstrip())
                found.append(Span(trimmed, start, start + len(trimmed)))
            cut = end
        line_start += len(line)
    return found


def words(text: str) -> list[str]:
    """The words of ``text`` for grounding, whatever the scoring tokenizer."""
    if text.isascii():  # the same words, 4x quicker than the regex: [A-Za-z0-9] runs
        return text.lower().translate(_ASCII_GAPS).split()
    return _WORD.findall(text.casefold())


def figures(text: str) -> list[Span]:
    """The figures of ``text``: ``02:14``, ``41``, ``3.5%``, ``1,200``, ``2026-11-20``."""
    return [Span(m[0], m.start(), m.end()) for m in _FIGURE.finditer(text)]


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
class FigureGrounding:
    span: Span
    new: bool  # no reference, source or other output has this figure


@dataclass(frozen=True, slots=True)
class Grounded:
    """What overlap cannot see in one output of an example."""

    sentences: tuple[SentenceGrounding, ...]
    figures: tuple[FigureGrounding, ...]
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
        return [f.span.text for f in self.figures if f.new]


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


def _check(min_support: float) -> None:
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
    for start, lcs in _lcs_blocks(rows, columns):
        block = slice(start, start + len(lcs))
        best[block] = lcs.argmax(axis=1)
        most[block] = lcs[np.arange(len(lcs)), best[block]]
    out: list[Counterpart | None] = []
    for ws, k, n in zip(own, best.tolist(), most.tolist()):
        out.append(Counterpart(found[k][0], found[k][1], n / len(ws)) if n else None)
    return out


def _lcs_blocks(rows: Sequence, columns: Sequence) -> Iterator[tuple[int, np.ndarray]]:
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
    """The sentences and figures of ``output`` against the references and source, and against
    the ``other`` output of the pair (named ``other_name`` in counterparts; no other output
    counts as an empty one)."""
    _check(min_support)
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
    known = {f.text for _, text in grounds for f in figures(text)}
    if other is not None:
        known.update(f.text for f in figures(other))
    figs = tuple(FigureGrounding(f, f.text not in known) for f in figures(output))
    copied = (None, None) if source is None else coverage_density(words(output), words(source))
    return Grounded(tuple(rows), figs, *copied)


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


# The bulk path: every paired example of a build at once, in numpy. It must equal
# len(ground_side(candidate, references, source, baseline).new_sentences) and ...new_figures
# for every example (tests/test_grounding.py checks it on random texts).
#
# A chunk of examples is read at a time: its candidates, then its references, sources and
# baselines, each set as the UTF-8 bytes of the texts casefolded, with every byte that is not
# part of a word replaced by its character's class, so that sentence cuts, words and figures
# are found by comparing bytes. A word's key is its bytes (exact up to 16 bytes; longer words
# are numbered through a dictionary). LCS lengths come from rapidfuzz (`_best_lcs`), each
# sentence given as a string with one character per word (`_codes`).

# Classes of the bytes that are not part of a word; word bytes keep their values, all >= 48.
# A character beyond ASCII that is not a word character has its class on its first byte and
# _TAIL on the others. The first five are the ones that can cut a sentence; the figure marks
# (. , : / - %) have classes of their own.
_SEP, _NL, _CJK_TERM, _DOT, _BANG, _SPACE, _CLOSE, _OTHER, _TAIL = range(1, 10)
_COMMA, _COLON, _SLASH, _DASH, _PERCENT = range(10, 15)
_CHUNK_CHARS = 1 << 18  # characters of output per chunk: the arrays stay in the cache
_CHUNK_EXAMPLES = 1 << 13  # and examples, so the sort key keeps enough bits for the hash
_HASH_BITS = 64  # at most this many bits of a word's hash in the sort key (tests lower it)
_PAIRS = 1024  # sentence pairs per rapidfuzz call for small examples (fewer calls, less CPU)
_MAX_CODE = 0x10FFFF  # the last code point: an example with more distinct words is left (tests lower it)
_K1, _K2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F)
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # k low bytes
_FIGURE_JOINS = (_DOT, _COMMA, _COLON, _SLASH, _DASH)


_PUNCTUATION = {"\x00": _SEP, ".": _DOT, "!": _BANG, "?": _BANG, ",": _COMMA, ":": _COLON,
          "/": _SLASH, "-": _DASH, "%": _PERCENT}


def _class_of(char: str) -> int:
    """The class of a character (0 for a word character)."""
    if char in _PUNCTUATION:
        return _PUNCTUATION[char]
    if _WORD.fullmatch(char):
        return 0
    if char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":  # str.splitlines' line boundaries
        return _NL
    if char.isspace():
        return _SPACE
    if char in _CLOSERS:
        return _CLOSE
    if char in _CJK_ENDS:
        return _CJK_TERM
    return _OTHER


# ASCII letters lowered, digits kept, the rest by class; bytes beyond ASCII are kept for now
# (_classify sorts them out).
_BYTE_CLASSES = bytes([ord(c.lower()) if c.isalnum() else _class_of(c)
                       for c in map(chr, range(128))] + list(range(128, 256)))
_CHARACTER_CLASSES: dict[int, int] = {}  # code point -> _class_of, for the characters seen


def _classify(a: np.ndarray) -> bool:
    """Write the class of every character beyond ASCII that is not a word character over its
    UTF-8 bytes in ``a`` (casefold() never makes or unmakes a space, a line break, a digit or
    a mark of the sentence rule or the figures: a test checks every code point). True when
    one is a decimal digit other than 0-9."""
    lead = np.flatnonzero(a >= 0xC0)
    first = a[lead].astype(np.int64)
    size = 2 + (first >= 0xE0) + (first >= 0xF0)
    code = first & (0x7F >> size)
    for k in (1, 2, 3):
        more = size > k
        code[more] = code[more] << 6 | (a[lead[more] + k] & 0x3F)
    seen = np.unique(code).tolist()
    for c in seen:
        if c not in _CHARACTER_CLASSES:
            _CHARACTER_CLASSES[c] = _class_of(chr(c))
    kind = np.array([_CHARACTER_CLASSES[c] for c in seen], np.uint8)[np.searchsorted(seen, code)]
    other = kind > 0
    lead, size = lead[other], size[other]
    a[lead] = kind[other]
    for k in (1, 2, 3):
        a[lead[size > k] + k] = _TAIL
    return any(chr(c).isdecimal() for c in seen)


@dataclass
class _Words:
    """What the bulk path reads of many texts: each word's key (``lo``, ``hi``); per sentence,
    its first word, its length and its example (in the texts' order); and each figure as bytes,
    with its example."""

    lo: np.ndarray
    hi: np.ndarray
    start: np.ndarray
    length: np.ndarray
    example: np.ndarray
    figures: list[bytes]
    figure_example: np.ndarray


def _read(texts: Sequence[str], examples: np.ndarray, numbers: dict[bytes, int]) -> _Words:
    """The sentences, words and figures of ``texts``; text k belongs to example
    ``examples[k]``; words longer than 16 bytes are numbered in ``numbers``. Must equal
    [words(s.text) for s in sentences(text)] and figures(text) for each text."""
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:  # \x00 separates; \x01 is the same to every rule
        texts = [t.replace("\x00", "\x01") for t in texts]
        joined = "\x00".join(texts)
    ascii = joined.isascii()
    if not ascii:  # casefold() is slow beyond ASCII: only the texts that need it
        joined = "\x00".join(t if t.isascii() else t.casefold() for t in texts)
    raw = joined.encode("utf-8", "surrogatepass").translate(_BYTE_CLASSES)
    a = np.zeros(len(raw) + 17, np.uint8)  # a byte before, 16 after for the key windows
    a[0] = _OTHER
    a[1:-16] = np.frombuffer(raw, np.uint8)
    other_digits = not ascii and _classify(a)
    is_word = a >= 48
    edges = np.flatnonzero(is_word[1:] != is_word[:-1]) + 1
    starts, ends = edges[0::2], edges[1::2]
    # Cuts: separators, line breaks, CJK stops, and the ends of the runs of . ! ? and closing
    # marks that whitespace follows. (Only the words on each side of a cut matter here, so a
    # cut may sit anywhere between the stop and the next word.)
    special = np.flatnonzero((a - np.uint8(_SEP)) < 5)
    kind = a[special]
    seps = special[kind == _SEP]
    after = special[kind >= _DOT] + 1
    opened = np.flatnonzero((a != _CLOSE) & (a != _TAIL))  # past the closing marks at once
    after = opened[np.searchsorted(opened, after)]
    after = after[(a[after] == _SPACE) | (a[after] == _NL) | (a[after] == _SEP)]
    cuts = np.concatenate((seps, special[(kind == _NL) | (kind == _CJK_TERM)], after))
    bounds = np.sort(np.concatenate(([0, len(starts)], np.searchsorted(starts, cuts))))
    bounds = bounds[np.r_[True, bounds[1:] != bounds[:-1]]]
    first, length = bounds[:-1], np.diff(bounds)
    example = examples[np.searchsorted(seps, starts[first])]
    # Keys: the word's bytes, read eight at a time through an unaligned view.
    size = ends - starts
    window = np.ndarray((len(a) - 7,), dtype="<u8", buffer=a, strides=(1,))
    lo = window[starts] & _LOW[np.minimum(size, 8)]
    hi = np.zeros_like(lo)
    longer = np.flatnonzero(size > 8)
    hi[longer] = window[starts[longer] + 8] & _LOW[np.minimum(size[longer] - 8, 8)]
    longest = np.flatnonzero(size > 16)
    if len(longest):  # numbered; 0xFF is never in UTF-8, so no such hi is another word's
        lo[longest] = [numbers.setdefault(raw[s - 1:e - 1], len(numbers))
                       for s, e in zip(starts[longest].tolist(), ends[longest].tolist())]
        hi[longest] = ~np.uint64(0)
    # Figures: chains of digit runs joined by single marks, and a % right after.
    if other_digits:
        found = [(k, m[0].encode().translate(_BYTE_CLASSES))
                 for k, t in enumerate(texts) for m in _FIGURE.finditer(t)]
        figure_text = np.array([k for k, _ in found], np.int64)
        figures = [f for _, f in found]
    else:
        digit = (a - np.uint8(48)) < 10
        edges = np.flatnonzero(digit[1:] != digit[:-1]) + 1
        start, end = edges[0::2], edges[1::2]
        if len(start):
            chained = (start[1:] == end[:-1] + 1) & np.isin(a[end[:-1]], _FIGURE_JOINS)
            start, end = start[np.r_[True, ~chained]], end[np.r_[~chained, True]]
            end += a[end] == _PERCENT
        figure_text = np.searchsorted(seps, start)
        figures = [raw[i - 1:j - 1] for i, j in zip(start.tolist(), end.tolist())]
    return _Words(lo, hi, first, length, example, figures, examples[figure_text])


def _best_lcs(pattern: _Words, target: _Words, examples: int) -> tuple[np.ndarray, np.ndarray]:
    """For each sentence of ``pattern``, its longest LCS with a sentence of ``target`` of the same
    example (both read in examples ascending); and the examples left to the reference path (see
    `_codes`)."""
    best = np.zeros(len(pattern.length), np.int64)
    if not len(best):
        return best, np.zeros(0, np.int64)
    codes, left = _codes(pattern, target, examples)
    # Every sentence as a string of its words' codes: one decode, then a split at the 1s put
    # after each sentence.
    length = np.concatenate((pattern.length, target.length))
    spaced = np.ones(len(codes) + len(length), np.uint32)
    spaced[np.arange(len(codes)) + np.repeat(np.arange(len(length)), length)] = codes
    strings = spaced.tobytes().decode("utf-32-le", "surrogatepass").split("\x01")
    own, others = strings[:len(pattern.length)], strings[len(pattern.length):-1]
    own_bounds = np.searchsorted(pattern.example, np.arange(examples + 1)).tolist()
    other_bounds = np.searchsorted(target.example, np.arange(examples + 1)).tolist()
    # Several small examples to one call (each call has its own cost): the pairs across two
    # examples are worked out too, and not read.
    pairs = int(np.dot(np.diff(own_bounds), np.diff(other_bounds)))
    together = max(1, int((_PAIRS * examples / max(pairs, 1)) ** 0.5))
    for e in range(0, examples, together):
        f = min(e + together, examples)
        p, q = slice(own_bounds[e], own_bounds[f]), slice(other_bounds[e], other_bounds[f])
        if p.start < p.stop and q.start < q.stop:
            for start, lcs in _lcs_blocks(own[p], others[q]):
                rows = slice(p.start + start, p.start + start + len(lcs))
                if together > 1:  # only a sentence's own example counts
                    lcs[pattern.example[rows, None] != target.example[None, q]] = 0
                best[rows] = lcs.max(axis=1)
    return best, left


def _codes(pattern: _Words, target: _Words, examples: int) -> tuple[np.ndarray, np.ndarray]:
    """Each word's code, the pattern's words then the target's: within an example, the pattern's
    distinct words are numbered 2, 3, ... and a target word takes the number of the pattern
    word it equals, 0 if none (1 ends a sentence). So an example's sentences become strings
    with a character per word, one byte each for most examples (fewer than 254 distinct
    words), which rapidfuzz's LCSseq compares faster than wider strings. And the examples
    left to the reference path: two different words of the example whose hashes clash in
    the sort key, or more distinct words than there are code points."""
    npw = len(pattern.lo)
    ex = np.concatenate((np.repeat(pattern.example, pattern.length),
                         np.repeat(target.example, target.length)))
    lo = np.concatenate((pattern.lo, target.lo))
    hi = np.concatenate((pattern.hi, target.hi))
    # Sort on (example, hash of the key, position), the position in the low bits: an example's
    # equal keys are neighbours, its pattern words first. The hash only orders; keys are
    # compared exactly.
    n = len(lo)
    p, e = max(n - 1, 1).bit_length(), max(examples - 1, 1).bit_length()
    h = min(64 - p - e, _HASH_BITS)
    v = ((lo * _K1) ^ (hi * _K2)) >> np.uint64(64 - h) << np.uint64(p)
    v |= ex.astype(np.uint64) << np.uint64(h + p)
    v |= np.arange(n, dtype=np.uint64)
    v.sort()
    order = (v & np.uint64((1 << p) - 1)).astype(np.intp)
    v >>= np.uint64(p)
    starts = np.ones(n, bool)
    np.not_equal(v[1:], v[:-1], out=starts[1:])
    firsts = np.flatnonzero(starts)
    sizes = np.diff(firsts, append=n)
    lo, hi = lo[order], hi[order]
    differ = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    numbered = order[firsts] < npw  # the group has pattern words: its first is one
    group_example = (v[firsts] >> np.uint64(h)).astype(np.intp)
    counts = np.bincount(group_example[numbered], minlength=examples)
    number = np.cumsum(numbered) - (np.cumsum(counts) - counts)[group_example] + 1
    clash = (v[1:][differ & ~starts[1:]] >> np.uint64(h)).astype(np.intp)
    left = np.union1d(clash, group_example[numbered & (number > _MAX_CODE)])
    codes = np.empty(n, np.uint32)
    codes[order] = np.repeat(np.where(numbered, np.minimum(number, _MAX_CODE), 0).astype(np.uint32), sizes)
    return codes, left


def new_counts(
    candidates: Sequence[str],
    baselines: Sequence[str],
    references: Sequence[Sequence[str] | str],
    sources: Sequence[str | None] | None = None,
    min_support: float = MIN_SUPPORT,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many new sentences and new figures each candidate has against its references, source
    and baseline, and the least support of its new sentences (1.0 with none: the triage reads
    the least supported first). Must equal, for every example i, the lengths of
    ``new_sentences`` and ``new_figures`` of ``ground_side(candidates[i], references[i],
    sources[i], baselines[i])`` and `least_support` of it."""
    _check(min_support)
    n = len(candidates)
    sources = [None] * n if sources is None else sources
    references = [(r,) if isinstance(r, str) else r for r in references]
    new_sentences = np.zeros(n, np.int64)
    new_figures = np.zeros(n, np.int64)
    least = np.ones(n, np.float64)
    # An output equal to its baseline has nothing new: every sentence and figure is there.
    changed = np.flatnonzero(np.fromiter(map(operator.ne, candidates, baselines), bool, n))
    # A chunk of examples at a time, similar lengths together (a chunk's examples share
    # rapidfuzz calls as their mean size allows).
    size = (np.fromiter(map(len, candidates), np.int64, n)
            + np.fromiter(map(len, baselines), np.int64, n))[changed]
    order = changed[np.argsort(size, kind="stable")]
    total = np.cumsum(np.sort(size))
    bounds = np.unique(np.concatenate((
        [0, len(order)],
        np.arange(0, len(order), _CHUNK_EXAMPLES),
        np.searchsorted(total, np.arange(_CHUNK_CHARS, total[-1] if len(total) else 0,
                                         _CHUNK_CHARS)),
    ))).tolist()
    for start, end in itertools.pairwise(bounds):
        ids = order[start:end].tolist()
        sentence_counts, figure_counts, chunk_least, left = _chunk_counts(
            ids, candidates, baselines, references, sources, min_support)
        new_sentences[ids] = sentence_counts
        new_figures[ids] = figure_counts
        least[ids] = chunk_least
        for e in left.tolist():
            i = ids[e]
            side = ground_side(candidates[i], references[i], sources[i], baselines[i], min_support=min_support)
            new_sentences[i] = len(side.new_sentences)
            least[i] = least_support(side)
    return new_sentences, new_figures, least


def least_support(side: Grounded) -> float:
    """The least support of a side's new sentences, by the references, the source or the other
    output, whichever gives most (1.0 when it has none)."""
    def support(found: Counterpart | None) -> float:
        return found.support if found else 0.0

    return min((max(support(row.counterpart), support(row.in_other)) for row in side.sentences if row.new),
               default=1.0)


def _chunk_counts(ids, candidates, baselines, references, sources, min_support):
    """New sentences and new figures per example of one chunk, and the examples whose new
    sentences are left to ``ground_side``."""
    k = len(ids)
    numbers: dict[bytes, int] = {}
    output = _read([candidates[i] for i in ids], np.arange(k), numbers)
    texts: list[str] = []  # each example's references, source and baseline, in turn
    owners: list[int] = []
    for e, i in enumerate(ids):
        grounds = [*references[i], baselines[i]] if sources[i] is None else [
            *references[i], sources[i], baselines[i]]
        texts += grounds
        owners += [e] * len(grounds)
    others = _read(texts, np.array(owners, np.int64), numbers)
    best, left = _best_lcs(output, others, k)
    known = set(zip(others.figure_example.tolist(), others.figures))
    new = [e for e, f in zip(output.figure_example.tolist(), output.figures) if (e, f) not in known]
    support = best / output.length
    fresh = support < min_support
    least = np.ones(k, np.float64)
    np.minimum.at(least, output.example[fresh], support[fresh])
    return (np.bincount(output.example[fresh], minlength=k),
            np.bincount(np.array(new, np.int64), minlength=k), least, left)
