"""export: the review handed to whoever takes the incident next, as Markdown and HTML.

The Markdown is read back with markdown-it (the CommonMark parser Rich itself uses), an
oracle that did not write it: every fenced diff block must hold its whole text.
"""

from __future__ import annotations

import os
import re
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from suite_helpers import jsonl, make_suite

from rouge_tui.analysis.pipeline import Caches, open_analysis
from rouge_tui.analysis.settings import Settings
from rouge_tui.export import export_review
from rouge_tui.review import Review
from rouge_tui.store.paths import data_dir
from rouge_tui.suite.suite import open_suite

NOW = datetime(2026, 12, 1, 3, 14, 15, tzinfo=UTC)
# Twelve examples, moved by different amounts: x00 moves most, x11 least.
REFS = {f"x{i:02d}": " ".join(f"w{j}" for j in range(12)) for i in range(12)}
BASE = dict(REFS)
CAND = {k: " ".join(f"w{j}" for j in range(i + 1, 12)) or "gone" for i, k in enumerate(REFS)}
# ids ranked by |delta|, largest first: the candidate keeps fewer words the smaller i is not
TEN = [f"x{i:02d}" for i in range(11, 1, -1)]


def review_of(root: Path, candidate: dict[str, str] = CAND, name: str = "export me") -> Review:
    suite = make_suite(
        root,
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in BASE.items())),
         "2.jsonl": jsonl(*({"id": k, "output": v} for k, v in candidate.items()))},
        toml=f'name = "{name}"\n',
    )  # fmt: skip
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    return Review(analysis, analysis.texts.result())


def test_the_ranking_the_export_tests_rely_on(tmp_path: Path) -> None:
    figures = review_of(tmp_path / "s").analysis.figures
    assert list(figures.ids[:10]) == TEN
    assert set(figures.ids[10:]) == {"x00", "x01"}


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_exports_are_written_with_the_users_umask(mask: int, mode: int, tmp_path: Path) -> None:
    review = review_of(tmp_path / "s")
    before = os.umask(mask)
    try:
        written = export_review(review, NOW)
    finally:
        os.umask(before)
    assert [p.suffix for p in written] == [".md", ".html"]
    for path in written:
        assert path.parent == data_dir() / "reviews"
        assert stat.S_IMODE(path.stat().st_mode) == mode, path.name
    assert written[0].name.endswith("-20261201-031415.md")


def test_each_export_is_a_file_of_its_own_whatever_the_suite_is_called(tmp_path: Path) -> None:
    """A dot in the suite's name ("See et al. 2017") once cut the rest of the file name off,
    so every export of that suite overwrote the last one; two exports in one second must not
    overwrite each other either."""
    review = review_of(tmp_path / "s", name="CNN/DailyMail, See et al. 2017 outputs")
    review.set_mark(TEN[0], "regression", "the first export's note")
    first = export_review(review, NOW)
    review.set_mark(TEN[0], "fine", "the second export's note")
    second = export_review(review, NOW)
    assert len({*first, *second}) == 4
    assert [p.suffix for p in first + second] == [".md", ".html", ".md", ".html"]
    for path in first + second:
        assert path.name.startswith("CNN_DailyMail_See_et_al._2017-"), path.name
        assert "-20261201-031415" in path.name, path.name
    assert "the first export's note" in first[0].read_text(encoding="utf-8")
    assert "the second export's note" in second[0].read_text(encoding="utf-8")


def test_an_exports_name_says_the_pair_reviewed(tmp_path: Path) -> None:
    """A newcomer's exports of a -> b and of b -> c were named alike but for the time."""
    review = review_of(tmp_path / "s")
    markdown, page = export_review(review, NOW)
    for path in (markdown, page):
        # the builds, named by their files 1.jsonl and 2.jsonl (each with safe_name's hash)
        assert re.search(r"-1-[0-9a-f]{10}-to-2-[0-9a-f]{10}-20261201-031415\.(md|html)$", path.name), path.name


def test_two_exports_at_the_same_moment_get_a_file_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Weak spot of issue 39: two exports in the same second, running at once (`e` twice),
    both found the name free and wrote the same files. Both reach their first write before
    either makes it (a barrier); each ends with a Markdown file and a page of its own."""
    import threading

    from rouge_tui import export

    review = review_of(tmp_path / "s")
    both = threading.Barrier(2, timeout=10)
    real = export.atomic_write
    met = threading.local()

    def meet_first(path: Path, data: bytes, *args: object, **kwargs: object) -> None:
        if path.suffix == ".md" and not getattr(met, "done", False):
            met.done = True
            both.wait()
        real(path, data, *args, **kwargs)

    monkeypatch.setattr(export, "atomic_write", meet_first)
    written: list[list[Path]] = []
    threads = [threading.Thread(target=lambda: written.append(export_review(review, NOW))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(written) == 2 and len({*written[0], *written[1]}) == 4
    assert sorted(p.name for p in (data_dir() / "reviews").iterdir()) == sorted(p.name for p in written[0] + written[1])
    for markdown, page in written:
        assert "drift" in markdown.read_text(encoding="utf-8") and "<html" in page.read_text(encoding="utf-8")


def test_every_one_of_the_ten_is_listed_and_marked_ones_too(tmp_path: Path) -> None:
    review = review_of(tmp_path / "s")
    review.set_mark(TEN[0], "regression", "the first note\nwith a second line")
    review.set_mark(TEN[3], "fine", "")
    review.set_mark("x00", "unsure", "outside the ten, still exported")
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    headings = [line for line in markdown.splitlines() if line.startswith("### ")]
    listed = {line.split(". ", 1)[1].split(":")[0]: line for line in headings[-11:]}
    assert set(listed) == {*TEN, "x00"}
    for rank, example in enumerate(TEN, 1):
        assert listed[example].startswith(f"### {rank}. ")
    assert listed[TEN[0]].endswith(": regression")
    assert listed[TEN[3]].endswith(": fine")
    assert listed["x00"].endswith(": unsure")
    not_reviewed = [e for e in TEN if e not in (TEN[0], TEN[3])]
    assert all(listed[e].endswith(": not reviewed") for e in not_reviewed)
    assert "> the first note\n> with a second line" in markdown
    assert "> outside the ten, still exported" in markdown
    assert "## Reviewed examples" in markdown and "_Exported 2026-12-01 03:14 UTC._" in markdown
    # the page carries the same marks and notes
    assert page.count("not reviewed") == len(not_reviewed)
    assert "the first note\nwith a second line" in page and "outside the ten, still exported" in page


def _fences(markdown: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(markdown) if t.type == "fence"]


def test_no_backtick_run_in_the_text_can_close_the_diff_block(tmp_path: Path) -> None:
    hostile = {**CAND, "x11": "w0 ``` w1 ```` w2\n````\n```text w3 `````` w4"}
    review = review_of(tmp_path / "s", hostile)
    markdown = export_review(review, NOW)[0].read_text(encoding="utf-8")
    fences = _fences(markdown)
    assert len(fences) == 10  # one block per example in the comparison, none split
    (block,) = [f for f in fences if "w0" in f and "``````" in f]
    # the whole diff is inside, down to its last line: the word diff, with the candidate's
    # runs of 3 to 6 backticks and its line that starts with a fence
    assert "baseline → candidate" in block
    assert "{+w0 ``` w1 ```` w2+}\n{+````+}\n{+```text w3 `````` w4+}" in block  # (each line its markers)


def test_a_changed_run_of_several_lines_is_marked_on_each_line(tmp_path: Path) -> None:
    """A newcomer's export read "[?] {+Summary:" and then "+}[?] {+Summary:+}" on the next
    line: a run's closing marker began the line after it, where it read as the text's own.
    Each line of a changed run has its own markers, in the Markdown, the page and the app."""
    review = review_of(tmp_path / "s", {**CAND, "x11": "w0 w1\nSummary:\nSummary: w2"})
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    (block,) = [f for f in _fences(markdown) if "Summary:" in f]
    lines = block.split("baseline → candidate", 1)[1].splitlines()[1:]
    assert lines and not any(line.startswith(("+}", "-]")) for line in lines), lines
    assert all(line.count("{+") == line.count("+}") and line.count("[-") == line.count("-]") for line in lines), lines
    spans = re.findall(r'<span class="(?:added|removed)">(.*?)</span>', page, flags=re.DOTALL)
    assert spans and not any("\n" in span for span in spans), spans


def test_an_empty_output_says_so_in_the_markdown_as_on_the_page(tmp_path: Path) -> None:
    """A newcomer: an empty candidate was a blank line in the exported Markdown and "(empty
    output)" on the page; a blank line read as nothing to see."""
    review = review_of(tmp_path / "s", {**CAND, "x11": "", "x10": "  \n "})
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    said = [f for f in _fences(markdown) if "candidate (2" in f]
    empty = [f.split("candidate (2")[1].split("\n")[1] for f in said]  # the line under the candidate's
    assert empty.count("(empty output)") == 1 and empty.count("(only whitespace)") == 1, empty
    assert page.count("(empty output)") == 1 and page.count("(only whitespace)") == 1


def test_the_export_escapes_untrusted_text(tmp_path: Path) -> None:
    hostile = {**CAND, "x11": "\x1b]0;pwned\x07 <script>alert(1)</script> w0"}
    review = review_of(tmp_path / "s", hostile)
    review.set_mark("x11", "regression", "note with \x1b[2J and <b>")
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    for text in (markdown, page):
        assert "\x1b" not in text
        assert "\x07" not in text
    assert "<script>" not in page
    assert "&lt;script&gt;" in page and "note with \\x1b[2J and &lt;b&gt;" in page
    # in Markdown the texts are code or escaped: rendered, no tag of theirs survives
    html = MarkdownIt("commonmark").render(markdown)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_build_name_with_a_tab_or_newline_is_one_escaped_line_in_the_markdown(tmp_path: Path) -> None:
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
        {"1.jsonl": jsonl(*({"id": k, "output": v} for k, v in BASE.items())),
         "2\tnight\nof.jsonl": jsonl(*({"id": k, "output": v} for k, v in CAND.items()))},
    )  # fmt: skip
    analysis = open_analysis(open_suite(suite), Settings(), caches=Caches.default())
    markdown = export_review(Review(analysis, analysis.texts.result()), NOW)[0].read_text(encoding="utf-8")
    headers = [line for line in markdown.splitlines() if line.startswith("candidate (")]
    assert len(headers) == 10 and all(line.startswith("candidate (2\\tnight\\nof): ") for line in headers), headers[:2]
    assert "\t" not in markdown


def test_with_replicate_runs_the_export_says_which_run_it_shows(tmp_path: Path) -> None:
    """A newcomer read identical baseline and candidate texts beside a delta of -0.019 in the
    export of the replicate-run sample, with no word of runs: the texts are run 1's, the
    figures the mean over the runs. It says so now; a one-run suite says nothing of runs."""
    support = Path(__file__).resolve().parent.parent / "sample_suites" / "support-answers"
    analysis = open_analysis(open_suite(support), Settings(), caches=Caches.default())
    markdown, page = (p.read_text(encoding="utf-8") for p in export_review(Review(analysis, analysis.texts.result()), NOW))
    heads = [line for line in markdown.splitlines() if line.startswith(("baseline (", "candidate ("))]
    shown = len(heads) // 2
    assert shown >= 10 and all(re.search(r", run [123] of 3\): ", line) for line in heads), heads[:2]
    assert markdown.count("(F: the mean over each build's runs)") == shown
    # Every run's F, and the run shown is the one the texts below are of (SPEC "Triage").
    runs = re.findall(r"F by run: baseline (\S+) (\S+) (\S+); candidate (\S+) (\S+) (\S+) \(shown: run (\d)", markdown)
    said = re.findall(r"^candidate \(.*, run (\d) of 3\)", markdown, re.MULTILINE)
    assert len(runs) == shown and [r[-1] for r in runs] == said
    for *scores, run in runs:  # the run shown moved most (the first of equals)
        moves = [abs(float(scores[3 + r]) - float(scores[r])) for r in range(3)]
        assert int(run) - 1 == moves.index(max(moves))
    assert page.count(" of 3") >= 20 and page.count("F by run: ") == shown
    one_run = export_review(review_of(tmp_path / "s"), NOW)[0].read_text(encoding="utf-8")
    assert "run 1 of" not in one_run and "mean over each build's runs" not in one_run


def test_a_carried_mark_is_exported_as_carried_with_the_pair_it_came_from(tmp_path: Path) -> None:
    """Builds 3 and 4 repeat 1 and 2 byte for byte: a mark made on (1, 2) is carried to
    (3, 4), and the export of (3, 4) says so, with its note, never as a mark made there."""
    outputs = {name: jsonl(*({"id": k, "output": v} for k, v in texts.items()))
               for name, texts in (("1", BASE), ("2", CAND), ("3", BASE), ("4", CAND))}  # fmt: skip
    path = make_suite(tmp_path / "s", jsonl(*({"id": k, "reference": v} for k, v in REFS.items())),
                      {f"{name}.jsonl": text for name, text in outputs.items()}, toml='name = "carried"\n')  # fmt: skip
    first = open_analysis(open_suite(path), Settings(), "1", "2", caches=Caches.default())
    Review(first, first.texts.result()).set_mark(TEN[0], "regression", "cut short")
    here = open_analysis(open_suite(path), Settings(), "3", "4", caches=Caches.default())
    markdown, page = (p.read_text(encoding="utf-8") for p in export_review(Review(here, here.texts.result()), NOW))
    heading = next(line for line in markdown.splitlines() if line.startswith(f"### 1. {TEN[0]}:"))
    assert heading == f"### 1. {TEN[0]}: regression (carried from 1 → 2)"
    assert "> cut short" in markdown
    assert "regression (carried from 1 → 2)" in page and "cut short" in page


@pytest.mark.slow
def test_the_exported_page_renders_in_a_real_browser_and_its_text_stays_text(tmp_path: Path) -> None:
    """Issue 11, 15, for the app's export (test_report checks `report --format html`): the
    page a reviewer hands on renders in headless Chromium with nothing logged, and suite text
    and notes with tags in them are text, never elements."""
    import html
    import re

    from test_report import _in_chromium

    hostile = {**CAND, "x11": '"><img src=x onerror=alert(1)> <script>alert(2)</script> w0'}
    review = review_of(tmp_path / "s", hostile)
    review.set_mark("x11", "regression", "<svg onload=alert(3)> see the ticket")
    _, page = export_review(review, NOW)
    dom, log = _in_chromium(page, tmp_path)
    assert "<body" in dom and "export me" in dom
    tags = set(re.findall(r"<([a-zA-Z][\w-]*)", dom))
    assert not tags & {"script", "img", "svg", "iframe"}, tags
    assert not re.search(r"<[^>]*\son\w+=", dom)
    shown = html.unescape(re.sub(r"<[^>]+>", "", dom))
    assert '"><img src=x onerror=alert(1)>' in shown and "<script>alert(2)</script>" in shown
    assert "<svg onload=alert(3)> see the ticket" in shown
    assert "CONSOLE" not in log and "Uncaught" not in log


def test_a_note_of_two_lines_is_two_lines_in_the_markdown_not_an_escape(tmp_path: Path) -> None:
    """Issue 38, 9: the table cell read `…source.\\nSecond line`. A cell holds one line: it
    shows the first, and the whole note stands below the table, a quoted line for each."""
    review = review_of(tmp_path / "s")
    review.set_mark(TEN[0], "regression", "Copied from the source.\nSecond line")
    markdown = export_review(review, NOW)[0].read_text(encoding="utf-8")
    assert "\\n" not in markdown and "<br" not in markdown
    row = next(line for line in markdown.splitlines() if line.startswith(f"| 1 | {TEN[0]} |"))
    assert row.endswith("| Copied from the source. (whole note below) |"), row
    below = markdown[markdown.index("### Notes of several lines") : markdown.index("## Reviewed examples")]
    assert f"- **1. {TEN[0]}**\n\n  > Copied from the source.\n  > Second line\n" in below
    # read back as Markdown: the two lines are one quote, in one list item
    tokens = MarkdownIt("commonmark").parse(below)
    quoted = [t.content for t in tokens if t.type == "inline" and "Second line" in t.content]
    assert quoted == ["Copied from the source.\nSecond line"]


def test_the_html_export_says_what_the_candidate_says_as_the_markdown_does(tmp_path: Path) -> None:
    """Issue 38, 9: the Markdown had the section, the HTML page did not."""
    heading = "What the candidate says that its reference, source and baseline do not"
    invented = "The outage was caused by a solar flare at 02:14."
    review = review_of(tmp_path / "s", {**CAND, TEN[0]: f"{CAND[TEN[0]]}. {invented}"})
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    assert f"### {heading}" in markdown and invented in markdown
    section = page[page.index(f"<h3>{heading}</h3>"):]
    assert f"new sentence: {invented}" in section.split("</ul></li>")[0]
    assert "new figure: 02:14" in section  # one figure, said so


def test_two_suites_of_one_name_export_under_prefixes_of_their_own(tmp_path: Path) -> None:
    """Issue 38, 9: copies of a suite in two folders wrote exports of one prefix, told apart
    by the second they were made in."""
    first = export_review(review_of(tmp_path / "a", name="same name"), NOW)
    second = export_review(review_of(tmp_path / "b", name="same name"), NOW)
    prefixes = {path.name.split("-20261201-")[0] for path in first + second}
    assert len(prefixes) == 2 and all(p.startswith("same_name-") for p in prefixes), prefixes
    # the same suite again: the same prefix
    again = export_review(review_of(tmp_path / "a", name="same name"), NOW)
    assert again[0].name.split("-20261201-")[0] == first[0].name.split("-20261201-")[0]


def test_a_text_past_the_diff_limit_is_cut_and_the_export_says_where(tmp_path: Path, capsys) -> None:
    """Issue 39, 10: the export and `report --format html` diffed whole texts (the app's
    diff view cuts at 100,000 characters): 200,000 distinct words in one output took 3 GB.
    The same limit now, and a line saying where the text was cut."""
    from rouge_tui.diff import SHOWN

    long = " ".join(f"w{j}" for j in range(12)) + " " + " ".join(f"v{j}" for j in range(SHOWN // 6))
    assert len(long) > SHOWN
    long += " zzpastthecut"
    review = review_of(tmp_path / "s", {**CAND, "x11": long})
    markdown, page = (path.read_text(encoding="utf-8") for path in export_review(review, NOW))
    note = (f"the candidate is {len(long):,} characters: too long to align in full; the first "
            f"{SHOWN:,} are aligned and shown, and its LCS line counts them alone; the scores of the example "
            "and the tags are for the whole text")
    assert f"_Cut: {note}._" in markdown
    assert f"Cut: {note}." in page
    assert markdown.count("_Cut: ") == 1 and page.count("Cut: the ") == 1
    (block,) = [f for f in _fences(markdown) if "v0" in f]
    assert "zzpastthecut" not in block and "zzpastthecut" not in page
    assert f"v{SHOWN // 6 - 200}" not in block  # the last words before it too: past the cut
    # report --format html draws the same examples
    from rouge_tui.cli import main

    assert main(["report", str(tmp_path / "s"), "--format", "html"]) in (0, 1)
    html = capsys.readouterr().out
    assert f"Cut: {note}." in html and "zzpastthecut" not in html
