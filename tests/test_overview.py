"""The overview (rouge_tui/app/widgets/overview.py): its panels, verdict and history lines.

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    app_for,
    incident_deltas,
    press,
    review_screen,
    screen_text,
    settle,
    table_lines,
)
from suite_helpers import COPY_MEANS, copy_suite, jsonl, make_suite

from rouge_tui.analysis.signals import SIGNALS
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.widgets.overview import trend_levels
from rouge_tui.safetext import shorten_names

pytestmark = pytest.mark.slow


async def test_the_history_line_beside_a_comparison_keeps_its_builds_as_read_and_says_the_file_changed(
    tmp_path: Path
) -> None:
    """The candidate's file changes while the app is open; m scores the texts as read again.
    The history line's candidate mean is the comparison's (it read the file as it is now: a
    mean the overview did not show), and the change is said."""
    outputs = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(
        tmp_path / "s",
        jsonl(*({"id": i, "reference": "the cat sat on the mat"} for i in "abc")),
        {"1.jsonl": outputs({i: "the cat sat on the mat" for i in "abc"}),
         "2.jsonl": outputs({"a": "a dog", "b": "the cat sat on a mat", "c": "the cat sat on the mat"})},
    )
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        (suite / "builds" / "2.jsonl").write_text(outputs({i: "a dog" for i in "abc"}))
        await press(pilot, "m")
        for _ in range(100):
            await pilot.pause(0.05)
            if screen.trend is not None and screen.trend[0] is screen.analysis and screen.asked is None:
                break
        figures = screen.analysis.figures
        assert figures.settings.metric != "rougeL"
        means = {b.name: b.stats.mean for b in screen.trend[1]}
        assert means == {"1": figures.baseline.mean, "2": figures.candidate.mean} and figures.candidate.mean > 0
        await settle(pilot)
        said = [n.message for n in app._notifications if "changed on disk" in n.message]
        assert said and said[-1].startswith("2 changed on disk since it was read"), said
        await press(pilot, "t")  # the texts as read scored again: said once, not again
        await settle(pilot)
        assert len([n for n in app._notifications if "changed on disk" in n.message]) == len(said)
        # h says which builds are listed as read; enter on the pair shown reads it again.
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert screen_text(app).splitlines()[0].strip().startswith("2: as read, changed on disk since")
        await press(pilot, "enter")
        await settle(pilot)
        assert not isinstance(app.screen, HistoryScreen)
        assert screen.analysis.figures.candidate.mean == 0.0  # "a dog" everywhere now
        assert screen.changed_on_disk == set()


@pytest.mark.parametrize("sources", [True, False])
async def test_the_overview_shows_each_builds_copied_share_with_sources(tmp_path: Path, sources: bool) -> None:
    """SPEC: with a source, the overview shows each build's mean coverage and density (the
    values worked out by hand in suite_helpers); without one, nothing about copying."""
    app = app_for(copy_suite(tmp_path / "s", sources))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        history = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("history "))
        (cb, db), (cc, dc) = COPY_MEANS["baseline"], COPY_MEANS["candidate"]
        if sources:  # 0.90 -> 0.70 and 2.3 -> 2.1
            assert f"copied cov {cb:.2f}→{cc:.2f} dens {db:.1f}→{dc:.1f}" in history
        else:
            assert "copied" not in screen_text(app) and "cov " not in history
        # SPEC "Triage": without a source the overview says so once; a newcomer saw it only
        # in a notice, gone after seconds. (The notices are not on the screen's lines.)
        said = [line for line in screen_text(app).splitlines() if "no source: new sentences and figures are weighed" in line]
        assert len(said) == (0 if sources else 1)


async def test_the_history_line_never_shows_the_comparison_befores_means() -> None:
    """A metric switch showed the new figures under the old metric's history line (B and C
    means of rougeL beside a rouge1 comparison) until the texts came: the line now says it
    is scoring from the moment the new figures are shown."""
    from rouge_tui.analysis.pipeline import analyse
    from rouge_tui.app.messages import AnalysisReady

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        line = next(line for line in screen_text(app).splitlines() if line.startswith(" history "))
        assert "8 builds" in line
        settings = screen.analysis.settings.switched(metric="rouge1")
        other = analyse(screen.suite, settings, screen.texts)
        screen.on_analysis_ready(AnalysisReady(other, "now rouge1"))
        await pilot.pause()
        line = next(line for line in screen_text(app).splitlines() if line.startswith(" history "))
        assert "scoring every build…" in line and "B " not in line, line


def overview_lines(app) -> list[str]:
    """The overview's lines on screen."""
    from rouge_tui.app.widgets.overview import Overview

    region = app.screen.query_one(Overview).region
    return screen_text(app).splitlines()[region.y : region.bottom]


async def test_a_new_overview_panel_is_one_class_with_its_height_and_help(monkeypatch: pytest.MonkeyPatch) -> None:
    """A panel declares its least height and its help line, and is listed once: the
    overview draws it and is that much taller before the figures come, the help explains it."""
    from rich.text import Text

    from rouge_tui.app.screens import help as help_module
    from rouge_tui.app.widgets import overview as overview_module

    class Weather(overview_module.Panel):
        height = 3
        help = (("sky", "what the weather was while the builds ran"),)

        def lines(self, overview, f, width):
            return [Text(f"sky clear over {f.paired} examples")]

    panels = (*overview_module.PANELS, Weather())
    for module in (overview_module, help_module):
        monkeypatch.setattr(module, "PANELS", panels)
    app = app_for()
    async with app.run_test(size=(80, 40)) as pilot:
        # title, signal drift, two builds, verdict, signals, history: 7 lines; and the sky's 3
        assert app.screen.query_one(overview_module.Overview).min_height == 7 + 3
        await settle(pilot)
        paired = review_screen(app).analysis.figures.paired
        assert f"sky clear over {paired} examples" in "\n".join(overview_lines(app))
        await press(pilot, "question_mark")
        assert "  sky        what the weather was while the builds ran\n" in app.screen.text().plain


async def test_nothing_in_the_overview_is_cut_at_80x24(tmp_path: Path) -> None:
    """Issue 38, 7 and 8: the signal counts stopped at `trunc 26 …` (dup, len-, vol never
    seen), `copied cov 0.79…`, and a long suite name cut the signature and the references'
    hash; what does not fit now goes on to a line of its own. And the first count a reader
    makes: how many examples improved and regressed by more than 0.01."""
    from rouge_tui.analysis import signals

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        lines = overview_lines(app)
        text = "\n".join(lines)
        assert not any(line.rstrip().endswith("…") for line in lines), text
        counted = signals.counts(figures.signals)
        fired = [s for s in SIGNALS if counted[s.name]]
        assert len(fired) >= 8  # the sample fires nearly all of them
        for s in fired:
            assert re.search(rf"(?<!\S){re.escape(s.short)} {counted[s.name]}(?!\S)", text), (s.short, text)
        deltas = incident_deltas().values()
        up, down = sum(d > 0.01 for d in deltas), sum(d < -0.01 for d in deltas)
        assert f"▲ {up} up  ▼ {down} down (|Δ|>0.01)" in text, text
        assert re.search(r"copied cov \d\.\d\d→\d\.\d\d dens \d\.\d→\d\.\d", text), text
        # The table still shows the ten (the signal drift line took the rule's row).
        assert re.search(rf"^ +10 {re.escape(figures.ids[9])} ", "\n".join(table_lines(review_screen(app).table)), re.MULTILINE)
    name = "Incident summaries of the payments platform, EU"
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "x y"}),
                       {"1.jsonl": jsonl({"id": "a", "output": "x"}), "2.jsonl": jsonl({"id": "a", "output": "y"})},
                       toml=f'name = "{name}"\n')  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        text = "\n".join(overview_lines(app))
        shown = figures.signature.rsplit("|seed:", 1)[0]  # (the seed is the report's, for every run)
        assert shown in text and f"refs {figures.reference_fingerprint[:12]}" in text, text
        assert not any(line.rstrip().endswith("…") for line in overview_lines(app)), text


def test_names_are_cut_from_the_middle_keeping_what_differs() -> None:
    """Issue 11, 5."""
    a, b = shorten_names(["2-pointer-gen", "3-pointer-gen-cov"], 10)
    assert a != b and len(a) <= 10 and len(b) <= 10 and b.endswith("cov")
    a, b = shorten_names(["run-2026-11-20-night", "run-2026-11-21-night"], 10)
    assert a != b and "0" in a and "1" in b
    assert shorten_names(["short"], 10) == ["short"]
    # Two nights: the middle cut read 2026-11…_aa3f5f and 2026-11…_9f03aa (which nights?).
    assert shorten_names(["2026-11-26_aa3f5f", "2026-11-27_9f03aa"], 15) == ["…-11-26_aa3f5f", "…-11-27_9f03aa"]
    assert shorten_names(["2026-11-26_aa3f5f", "2025-01-02_aa3f5f"], 15) == ["2026-11…_aa3f5f", "2025-01…_aa3f5f"]
    # A third name that differs early does not hide how the other two differ.
    for names, width in ((["2026-10-30_bbbbbb", "2026-11-26_aa3f5f", "2026-11-27_aa3f5f"], 15),
                         (["base", "run-2026-11-26-night", "run-2026-11-27-night"], 10)):
        cut = shorten_names(names, width)
        assert len(set(cut)) == 3 and all(len(c) <= width for c in cut), cut
        assert "26" in cut[1] and "27" in cut[2], cut


async def test_the_history_line_shows_the_historys_means_beside_its_bars(tmp_path: Path) -> None:
    """Build 2 holds an example build 3 lacks: the build line gives 2's paired mean (a, b,
    c: (6/7 + 2/3 + 2/5) / 3 = 0.6413), the history line, whose bars draw every output, its
    history mean ((6/7 + 2/3 + 2/5 + 1) / 4 = 0.7310) and says so; 3's is (2/3 + 2/3) / 3."""
    rows = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "a b c d"} for i in "abcd")), {
        "2.jsonl": rows({"a": "a b c", "b": "a b", "c": "a", "d": "a b c d"}),
        "3.jsonl": rows({"a": "a b", "b": "a b", "c": "x"}),
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        lines = [line.plain for line in app.screen.query_one("Overview").lines(review_screen(app).analysis.figures, 98)]
        assert any("mean 0.6413" in line and "n 3" in line for line in lines), lines
        history = next(line for line in lines if line.startswith("history "))
        assert "B 0.7310  C 0.4444 (all outputs)" in history, history


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_what_moved_is_on_the_overviews_verdict_line_at_80_columns(size: tuple[int, int]) -> None:
    """Issue 14, 5: precision's and recall's paired deltas and the ten's share, in the
    overview; at 80 columns the interval's digits and the band's source give way to them,
    and whatever cannot fit is left out with a visible "…", never silently."""
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        f = review_screen(app).analysis.figures
        lines = screen_text(app).splitlines()
        at = next(n for n, line in enumerate(lines) if "drift-down" in line)
    # The verdict's parts go on to the next line where the width is short, never cut (issue 38).
    line = lines[at] + " " + lines[at + 1]
    assert f"Δ {f.delta_mean:+.4f}" in line and f"P {f.delta_precision:+.3f}" in line
    assert f"R {f.delta_recall:+.3f}" in line and f"ten {f.top_share:.0%}" in line
    assert not lines[at].rstrip().endswith("…")


def test_history_bars_scale_to_the_band_and_equal_means_draw_equal_bars() -> None:
    """Issue 38, 5: scaled min to max, two means equal to four decimals drew a cliff (█▁).
    Worked by hand (8 levels, 0-7): the scale spans at least the band's width, centred on
    the means, rounded from the baseline's mean."""
    assert trend_levels([0.36171, 0.36168], 0.04, 0.36171) == [4, 4]  # 3.5026 and 3.4974: both from 4
    assert trend_levels([0.5, 0.5, 0.5], 0.0, 0.5) == [3, 3, 3]  # no span at all: the middle
    assert trend_levels([0.30, 0.34], 0.04, 0.30) == [0, 7]  # a move of the band's whole width
    assert trend_levels([0.30, 0.31], 0.04, 0.30) == [3, 5]  # a quarter of it: 2.625 -> 3, 4.375 + 0.375 -> 5
    assert trend_levels([0.1, 0.52, 0.9], 0.04, 0.52) == [0, 4, 7]  # beyond the band: min to max; 3.675 -> 4
    assert trend_levels([], 0.04) == []


async def test_the_history_line_draws_two_nearly_equal_means_as_equal_bars(tmp_path: Path) -> None:
    """Issue 38, 5: the history line of two builds whose means differ by 0.005, well inside
    the band (about ±0.2 here), drew `█▁`; it draws two equal bars."""
    words = [f"w{n}" for n in range(10)]
    reference = " ".join(words)
    kept = [3, 5, 7, 9, 4, 6, 8, 10, 2, 5]  # how many of the reference's words each output keeps
    rows = lambda counts: jsonl(*({"id": str(i), "output": " ".join(words[:c])} for i, c in enumerate(counts)))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": str(i), "reference": reference} for i in range(10))), {
        "1.jsonl": rows(kept),
        "2.jsonl": rows([*kept[:9], 6]),  # one output keeps one word more
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        history = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("history "))
        bars = history.split("history ", 1)[1].split()[0]
        assert len(bars) == 2 and bars[0] == bars[1], history


async def test_a_tiny_delta_interval_is_not_shown_as_zeros_at_80_columns(tmp_path: Path) -> None:
    """Issue 38, 10: `95% [-0.000, -0.000]` at 80 columns read as no change at all. One of
    2,000 outputs loses a word (F 1 -> 6/7): the mean delta is -1/14,000 with a standard
    error of about 0.00007, so both ends are under 0.0005 from zero, one on each side."""
    ids = [f"e{n:04}" for n in range(2000)]
    rows = lambda first: jsonl(*({"id": i, "output": first if i == ids[0] else "a b c d"} for i in ids))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": i, "reference": "a b c d"} for i in ids)), {
        "1.jsonl": rows("a b c d"), "2.jsonl": rows("a b c"),
    })  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        low, high = figures.delta_interval
        assert -0.0005 < low < 0 < high < 0.0005  # the premise, from the figures
        line = next(line for line in screen_text(app).splitlines() if "95% " in line)
        # The paired bootstrap's ends, by hand: a resample draws the one moved output K times,
        # K ~ Poisson(1) near enough; P(K >= 3) = 8% and P(K >= 4) = 1.9%, so the 2.5th
        # percentile is 3 draws, -3/14,000; P(K = 0) = 37%, so the 97.5th is exactly zero.
        low, high = figures.delta_test["interval"]
        assert (round(low * 14_000), high) == (-3, 0.0), (low, high)
        assert "95% [-0.0002, +0.0000]" in line, line
        # Recall falls by 1/4 in one output of 2,000 (-0.000125); precision stays 3/3: zero.
        assert "R -<0.001" in line and "P +0.000" in line, line


async def test_an_older_pair_says_so_in_the_overview_until_the_newest_is_back() -> None:
    """Issue 38, 10: with an older pair compared from the history, only the build names
    said it was not the newest pair (the one an alert is about). The overview's first line
    says so, until `h` `end` `enter` brings the newest pair back."""
    names = sorted(p.name.removesuffix(".jsonl") for p in (INCIDENT / "builds").iterdir())
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "not the newest pair" not in screen_text(app).splitlines()[0]
        await press(pilot, "h", "k", "k", "enter")
        await settle(pilot)
        assert review_screen(app).pair_shown() == (names[-4], names[-3])
        assert "! not the newest pair (h, end ⏎: the newest)" in screen_text(app).splitlines()[0]
        await press(pilot, "h", "end", "enter")
        await settle(pilot)
        assert review_screen(app).pair_shown() == (names[-2], names[-1])
        assert "not the newest pair" not in screen_text(app).splitlines()[0]


async def test_the_compared_pairs_bars_read_their_height_not_upside_down() -> None:
    """A helper's pass: the pair's bars were drawn in reverse video, which turns a bar's cell
    upside down: the baseline's full bar an empty cell, the drifted candidate's lowest bar a
    near-full block, so the drop read as the highest build. They are underlined now, in
    the text's colour, never reversed; the others are not underlined."""
    from rouge_tui.app.widgets.overview import SPARKS, Overview, TrendPanel

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        overview = review_screen(app).query_one(Overview)
        figures = review_screen(app).analysis.figures
        line = TrendPanel().lines(overview, figures, 78)[0]
        plain = line.plain
        start = len("history ")
        bars = plain[start:].split()[0]
        assert len(bars) == 8 and set(bars) <= set(SPARKS)
        styles = [line.get_style_at_offset(app.console, start + k) for k in range(len(bars))]
        assert [bool(style.underline) for style in styles] == [False] * 6 + [True, True]  # B and C, the last two
        assert not any(style.reverse for style in styles)
        assert bars[-1] == SPARKS[0] and bars[-2] == SPARKS[-1]  # C's drop is the lowest bar, B among the highest


async def test_without_bands_or_a_source_the_alarm_line_is_one_line(tmp_path: Path) -> None:
    """A newcomer's 100k suite at 80x24: "signal bands: none (…)" and the whole no-source
    sentence took two lines, and the tenth most-moved row went off the screen. Where the
    sentence does not fit beside the bands' line, "no source" does, and ? says it whole."""
    from rouge_tui.analysis import signals
    from rouge_tui.app.widgets.overview import AlarmPanel, Overview

    rows = lambda words: jsonl(*({"id": str(k), "output": " ".join(["a", "b", "c"][: words + k % 2])} for k in range(12)))
    suite = make_suite(tmp_path / "s", jsonl(*({"id": str(k), "reference": "a b c d"} for k in range(12))),
                       {"1.jsonl": rows(1), "2.jsonl": rows(2)})
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert signals.NO_SOURCE in figures.warnings and not figures.drifting
        said = AlarmPanel().lines(review_screen(app).query_one(Overview), figures, 78)
        assert [line.plain for line in said] == [
            "signal bands: none (fewer than 2 earlier build pairs counted)  no source"], said
        assert ("no source", signals.NO_SOURCE_SHORT) in AlarmPanel.help
