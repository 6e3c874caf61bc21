"""The history view (rouge_tui/app/screens/history.py): its build lines, picks and titles.

Expected figures come from rouge-score with the chapter's tokenizer (oracles.rouge_score),
not from the code under test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    SUPPORT,
    app_for,
    burst,
    footer_text,
    incident_deltas,
    lines_of,
    press,
    review_screen,
    right_after_m,
    screen_text,
    settle,
    slow_switch,
    two_suites,
)
from suite_helpers import jsonl, make_suite
from textual.widgets import OptionList

from rouge_tui.app.app import RougeApp
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.history import HistoryScreen
from rouge_tui.app.screens.review import ReviewScreen

pytestmark = pytest.mark.slow


async def test_a_choice_covered_by_a_key_of_the_same_burst_is_made_when_uncovered() -> None:
    """`enter` `?` in the history list: help opens over it before it answers; closing help
    then makes the comparison asked for (the answer is neither lost nor given to help)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        names = [b.name for b in screen.analysis.suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        await press(pilot, "k")  # the build before the candidate: compared with the one before it
        await burst(pilot, "enter", "question_mark")
        if isinstance(app.screen, HelpScreen):  # help came first: the answer waits for it
            await press(pilot, "escape")
        await settle(pilot)
        await pilot.pause(0.5)
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        pair = (screen.analysis.figures.baseline.name, screen.analysis.figures.candidate.name)
        assert pair == (names[-3], names[-2])


async def test_the_history_title_goes_on_to_a_second_line_not_off_the_edge(tmp_path: Path) -> None:
    """Issue 38, 7: at 80 columns the history's title lost its end (`· space`), the key
    that picks a build."""
    name = "Incident summaries of the payments platform, EU"
    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "x y z"}),
                       {f"{n}.jsonl": jsonl({"id": "a", "output": "x y z"[: 2 * n + 1]}) for n in range(3)},
                       toml=f'name = "{name}"\n')  # fmt: skip
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        title = " ".join(line.strip() for line in screen_text(app).splitlines()[:2])
        assert f"{name}: 3 builds · B baseline, C candidate · space picks · Δ vs the build before" in title, title
        assert "…" not in title


async def test_enter_is_in_the_footer_of_the_history_and_of_the_list_of_suites(tmp_path: Path) -> None:
    """The lists' own enter binding hid the screen's from the footer: the key that compares
    (or opens) was only in the help."""

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        footer = footer_text(app)
        assert "⏎ compare" in footer and footer.index("⏎ compare") < footer.index("space pick")
        # keys queued together: enter compares the row the keys before it moved to (a
        # priority binding of the screen took the row before they moved)
        names = [b.name for b in review_screen(app).suite.builds]
        await burst(pilot, "up", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-3], names[-2])
    folder = two_suites(tmp_path / "suites")
    app = RougeApp(sorted(folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "⏎ open" in screen_text(app).splitlines()[-1]
        await burst(pilot, "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.suite.name == "Support answers"


async def test_history_lists_a_broken_build_and_picks_any_pair(tmp_path: Path) -> None:
    """Issue 11, 4: a bad line in a build not compared blocks nothing; the builds picker
    lists it with its file:line error."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "the cat sat", "b": "a dog ran"}) + "{broken\n")
    (suite / "builds" / "3.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    app = app_for(suite, baseline="1", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")
        await press(pilot, "h")
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "2.jsonl:3" in text
        await press(pilot, "home", "space", "down", "down", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")
        await press(pilot, "h", "home", "down", "enter")
        await settle(pilot)
        assert any("2.jsonl:3" in n.message for n in app._notifications), [n.message for n in app._notifications]


@pytest.mark.parametrize(("suite", "lines"), [
    (INCIDENT, [" baseline  2026-11-26_aa3f5f ", " candidate 2026-11-27_9f03aa "]),  # one run each
    (SUPPORT, [" baseline  2026-11-24_1a2b3c  mean ", " candidate 2026-11-28_5d6e7f  mean "]),  # and runs 3
])
async def test_the_build_lines_at_80_columns_give_the_names_room(suite: Path, lines: list[str]) -> None:
    """A newcomer read "baseline  …-11-26_aa3f5f" and could not tell the year: "runs 1" on
    both lines took the room. The runs are shown when a build has several, and the names of
    the replicate sample are whole too (they were cut to "…-11-24_1a2b3c")."""
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        on_screen = screen_text(app).splitlines()
        at = next(k for k, line in enumerate(on_screen) if line.startswith(" baseline "))
        shown = on_screen[at : at + 2]  # (under the title and the signals' lines)
        for line, part in zip(shown, lines):
            assert part in line, shown
        assert ("runs" in shown[0]) == (suite == SUPPORT), shown
        assert all(line.rstrip().endswith(" runs 3") for line in shown) == (suite == SUPPORT), shown


@pytest.mark.parametrize("names", [
    ("2026-11-26_nightly-payments-summariser-eu-west_aa3f5f", "2026-11-27_nightly-payments-summariser-eu-west_9f03aa"),
    ("夜間ビルド-2026-11-26-決済サマリー-欧州西部-改善版-第二十三回-再実行-aa3f5f", "short"),  # two cells a character
])
async def test_build_names_too_long_for_the_line_go_on_lines_of_their_own_never_cut(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    """README: what does not fit the width goes on to a line of its own, never cut. A name
    too long for its build's line is on a line of its own (folded where it is wider than the
    screen), its mean, band and n on the line under it."""
    from rich.cells import cell_len

    suite = make_suite(tmp_path / "s", jsonl({"id": "a", "reference": "x y"}, {"id": "b", "reference": "x z"}),
                       {f"{names[0]}.jsonl": jsonl({"id": "a", "output": "x"}, {"id": "b", "output": "x"}),
                        f"{names[1]}.jsonl": jsonl({"id": "a", "output": "y"}, {"id": "b", "output": "x z"})})
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        text = screen_text(app)
        assert "…" not in text.split(" ten ")[0], text  # nothing cut in the overview
        lines = text.splitlines()
        for role, stats in (("baseline ", figures.baseline), ("candidate", figures.candidate)):
            at = next(k for k, line in enumerate(lines) if line.startswith(f" {role} "))
            block = [line[11:].rstrip() for line in lines[at:at + 3]]
            name = stats.name
            if cell_len(name) <= 80 - 12:
                assert block[0] == name, block
                figures_line = lines[at + 1]
            else:  # folded: the pieces, in order, are the whole name
                assert block[0] + block[1] == name, block
                figures_line = lines[at + 2]
            assert f"  mean {stats.mean:.4f}  band [{stats.band[0]:.4f}, {stats.band[1]:.4f}]  n {stats.n}" in figures_line


async def test_a_broken_newest_build_opens_on_the_newest_pair_that_reads(tmp_path: Path) -> None:
    """A newcomer's suite: the night's build has a bad line and the one before is empty; the
    app refused to open at all (a bad build is the likely reason for the alert). Now it
    shows the two newest builds that read, says why, and h lists the broken ones."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    (suite / "builds" / "3.jsonl").write_text("")
    (suite / "builds" / "4.jsonl").write_text(rows("output", {"a": "the cat sat"}) + "{broken\n")
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.return_code is None and isinstance(app.screen, ReviewScreen)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "2")
        said = [n.message for n in app._notifications if n.severity == "warning"]
        assert any("3.jsonl: empty file (no records)" in m and "showing 1 → 2" in m for m in said), said
        # The warning fades; the overview keeps saying it, so 1 → 2 never reads as the
        # night's verdict (a newcomer read "within band" and went back to bed). Through m too.
        app.clear_notifications()
        await settle(pilot)
        assert "! newest pair unreadable: 3 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "m")
        await settle(pilot)
        assert review_screen(app).analysis.settings.metric != "rougeL"
        assert "newest pair unreadable: 3 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "h")
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "4.jsonl:2" in text and "3.jsonl" in text


def pointed_rows(app) -> list[str]:
    return [row for row in screen_text(app).splitlines() if row.startswith(" ▶ ")]


async def test_the_history_and_suites_lists_point_at_the_cursors_row(tmp_path: Path) -> None:
    """A newcomer could not tell which build space would pick: only colour marked the row
    (nothing under NO_COLOR or in a plain capture). The row starts with ▶, as the review
    table's does, alone, and follows the cursor."""
    import shutil

    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        names = [b.name for b in app.screen.suite.builds]
        assert [row.split()[2] for row in pointed_rows(app)] == [names[-1]]  # "▶ C name"
        await press(pilot, "k", "k", "space")
        await settle(pilot)
        assert [row.split()[2] for row in pointed_rows(app)] == [names[-3]]  # "▶ 1 name": picked
    for name in ("one", "two", "three"):
        shutil.copytree(INCIDENT, tmp_path / name)
    app = RougeApp([tmp_path / n for n in ("one", "two", "three")], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert len(pointed_rows(app)) == 1 and "in one" in pointed_rows(app)[0]
        await press(pilot, "j", "j")
        await settle(pilot)
        assert len(pointed_rows(app)) == 1 and "in three" in pointed_rows(app)[0]


async def test_the_unreadable_notice_names_the_build_and_belongs_to_the_pair_shown(tmp_path: Path) -> None:
    """A review of the notice: it stayed on after another pair was compared in h (even a
    mended one), said "an older pair" when the broken build was the baseline (1 → 3 shown),
    and cut the references' notice beside it. It names the build, shows only on the pair
    opened in its place, and both notices show whole."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    refs = suite / "references.jsonl"
    refs.write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    for name, outputs in (("1", {"a": "the cat", "b": "a dog"}), ("3", {"a": "cat sat", "b": "dog"})):
        (suite / "builds" / f"{name}.jsonl").write_text(rows("output", outputs))
    (suite / "builds" / "2.jsonl").write_text("{broken\n")
    app = app_for(suite)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "3")  # the newest build is in it
        assert "! newest pair unreadable: 2 (h)" in screen_text(app).splitlines()[0]
        await press(pilot, "h")
        await settle(pilot)
        assert "✗" in screen_text(app) and "end ⏎" not in screen_text(app).splitlines()[0]  # no way to 2 → 3
    refs.write_text(rows("reference", {"a": "the cat sat down", "b": "a dog ran"}))  # refs changed since
    app = app_for(suite)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        title = screen_text(app).splitlines()[0]
        assert "refs changed since" in title and "newest pair unreadable: 2 (h)" in title, title
        (suite / "builds" / "2.jsonl").write_text(rows("output", {"a": "the cat sat", "b": "a dog"}))
        await press(pilot, "h")
        await settle(pilot)
        assert screen_text(app).splitlines()[0].startswith(" not the newest pair · end ⏎ compares the newest two ·")
        await press(pilot, "end", "enter")  # 2 → 3, mended: the newest pair, read
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("2", "3")
        title = screen_text(app).splitlines()[0]
        assert "unreadable" not in title and "refs changed since" in title, title


async def test_the_history_cursor_stops_at_the_first_and_the_last_build() -> None:
    """Up on the first build went to the last (the list wrapped round): up and k now stop
    at the first build, down and j at the last, as in the review table."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        builds = app.screen.query_one(OptionList)
        last = len(app.screen.suite.builds) - 1
        assert builds.highlighted == last  # the candidate, the last build of the sample
        await press(pilot, "down", "j")
        assert builds.highlighted == last
        await press(pilot, "home", "up", "k")
        assert builds.highlighted == 0
        await press(pilot, "down")
        assert builds.highlighted == 1


async def test_after_comparing_older_builds_the_history_says_the_way_back_and_it_works() -> None:
    """A newcomer compared two older builds in h and found no way back to the pair the alert
    was about (escape stays on the pair compared). The history's title now says it while
    another pair is shown, and end then enter compares the newest two again."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = [b.name for b in review_screen(app).suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        assert "end ⏎" not in screen_text(app).splitlines()[0]  # the newest pair is shown
        told: list[str] = []
        real = review_screen(app).notify
        review_screen(app).notify = lambda message, **kwargs: (told.append(message), real(message, **kwargs))
        await press(pilot, "home", "down", "space", "down", "space", "enter")
        # Said at once, while the old pair's figures stay up (a newcomer waited 2.5 s on a big
        # suite with only the status line changing)
        assert told[:1] == [f"comparing {names[1]} → {names[2]}…"], told
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[1], names[2])
        await press(pilot, "h")
        await settle(pilot)
        assert screen_text(app).splitlines()[0].startswith(" not the newest pair · end ⏎ compares the newest two ·")
        await press(pilot, "space")  # a build picked: still not the newest pair on screen, and said
        assert screen_text(app).splitlines()[0].startswith(" not the newest pair · picked "), screen_text(app)
        await press(pilot, "space")  # (unpicked again)
        await press(pilot, "end", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-2], names[-1])


async def test_history_reads_again_a_build_mended_since_it_was_listed_unreadable(tmp_path: Path) -> None:
    """Build 2 has a bad line when the overview scores the history; it is mended; h reads it
    again, and it can be compared (it used to stay listed unreadable and refused)."""
    suite = tmp_path / "suite"
    (suite / "builds").mkdir(parents=True)
    rows = lambda key, texts: "".join(json.dumps({"id": i, key: t}) + "\n" for i, t in texts.items())
    (suite / "references.jsonl").write_text(rows("reference", {"a": "the cat sat", "b": "a dog ran"}))
    (suite / "builds" / "1.jsonl").write_text(rows("output", {"a": "the cat", "b": "a dog"}))
    good = rows("output", {"a": "the cat sat", "b": "a dog ran"})
    (suite / "builds" / "2.jsonl").write_text(good + "{broken\n")
    (suite / "builds" / "3.jsonl").write_text(rows("output", {"a": "cat", "b": "dog ran"}))
    app = app_for(suite, baseline="1", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = review_screen(app)
        assert screen.trend is not None and screen.trend[1][1].stats is None  # listed unreadable
        (suite / "builds" / "2.jsonl").write_text(good)
        await press(pilot, "h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        assert app.screen.builds[1].stats is not None and app.screen.builds[1].stats.mean == 1.0
        assert "2.jsonl:3" not in screen_text(app)
        await press(pilot, "home", "down", "enter")  # 2 against 1
        await settle(pilot)
        figures = screen.analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == ("1", "2")


def history_suite(root: Path, toml: str | None = None) -> Path:
    """Three builds of three examples whose references are all "a b c d"; build 1 has two
    identical runs (a zero-width band). rougeL F: "a b c d" 1, "a b c" 6/7, "a b" 2/3,
    "a" 2/5, "x" 0."""
    rows = lambda texts: jsonl(*({"id": i, "output": t} for i, t in texts.items()))
    first = rows({"a": "a b c d", "b": "a b", "c": "a"})
    return make_suite(root, jsonl(*({"id": i, "reference": "a b c d"} for i in "abc")), {
        "1": {"run-1.jsonl": first, "run-2.jsonl": first},
        "2.jsonl": rows({"a": "a b c", "b": "a b", "c": "a"}),
        "3.jsonl": rows({"a": "a b", "b": "a b", "c": "x"}),
    }, toml)  # fmt: skip


def history_lines(app: RougeApp) -> dict[str, str]:
    """Each build's line in the history view, by build name."""
    builds = app.screen.query_one(OptionList)
    names = [b.name for b in app.screen.suite.builds]
    return {name: builds.get_option_at_index(i).prompt.plain for i, name in enumerate(names)}


async def test_history_counts_the_marks_made_on_any_pair_with_that_candidate(tmp_path: Path) -> None:
    """Two marks made on (1, 3), one on (2, 3) in the app: build 3's line counts three."""
    from rouge_tui.analysis.pipeline import Caches, open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.review import Review
    from rouge_tui.suite.suite import open_suite

    suite = history_suite(tmp_path / "s")
    analysis = open_analysis(open_suite(suite), Settings(), "1", "3", caches=Caches.default())
    earlier = Review(analysis, analysis.texts.result())
    earlier.set_mark("a", "fine", "")
    earlier.set_mark("c", "regression", "")
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "h")
        await settle(pilot)
        lines = history_lines(app)
        assert lines["3"].split()[-1] == "3" and lines["3"].split()[-2] in "▼▲●"  # the marks column
        assert lines["2"].split()[-1] in "▼▲●" and lines["1"].split()[-1].endswith("]")  # none


async def test_history_verdicts_follow_the_comparisons_rule_min_delta(tmp_path: Path) -> None:
    """1 to 2 moves the mean by (6/7 - 1) / 3 = -0.048: outside build 1's zero-width band,
    within min_delta 0.05. The comparison says within band; so does build 2's line."""
    app = app_for(history_suite(tmp_path / "s", "[band]\nmin_delta = 0.05\n"), baseline="1", candidate="2")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert review_screen(app).analysis.figures.verdict == "within-band"
        await press(pilot, "h")
        await settle(pilot)
        line = history_lines(app)["2"]
        assert "-0.0476 ●" in line and "▼" not in line


async def test_h_opens_with_the_builds_the_overview_scored_and_scores_only_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overview's history line was made from every build for this comparison: h shows
    those builds at once (no second scoring); with none for this comparison, it scores them,
    and the lines are the same. Build 3 against 2 by hand: F (2/3 + 2/3 + 0) / 3 = 0.4444,
    the paired delta (0.4444 - (6/7 + 2/3 + 2/5) / 3) = -0.1968."""
    from rouge_tui.app.screens import history as history_view

    calls = []
    real = history_view.trend
    monkeypatch.setattr(history_view, "trend", lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    app = app_for(history_suite(tmp_path / "s"), baseline="2", candidate="3")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert review_screen(app).trend is not None
        await press(pilot, "h")
        known = history_lines(app)
        assert calls == [] and isinstance(app.screen, HistoryScreen)
        assert " 0.4444 [" in known["3"] and "-0.1968" in known["3"]
        await press(pilot, "escape")
        review_screen(app).trend = None  # as before the overview's line is made
        await press(pilot, "h")
        await settle(pilot)
        assert calls == [1] and history_lines(app) == known


async def test_history_verdicts_follow_the_comparisons_rule_band_from_history(tmp_path: Path) -> None:
    """With [band] source = "history", build 3's band is its mean 4/9 ± 2 · sd(31/45,
    202/315, 4/9: the means of builds 1-3) = [0.18, 0.71]; build 4's mean 2/15 lies below it
    (drift-down), though inside build 3's own analytic band [0, 0.89]."""
    suite = history_suite(tmp_path / "s", '[band]\nsource = "history"\n')
    (suite / "builds" / "4.jsonl").write_text(jsonl(*({"id": i, "output": t} for i, t in zip("abc", ("a", "x", "x")))))
    app = app_for(suite)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.band_source, figures.verdict) == ("history", "drift-down")
        await press(pilot, "h")
        await settle(pilot)
        assert "-0.3111 ▼" in history_lines(app)["4"]


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (60, 20, "from 80")])
async def test_history_fits_80_columns_one_line_a_build_under_its_column_header(size) -> None:
    """At 60 columns (and after a resize from 80 to 60) the band column goes: each line was
    wrapped in two."""
    app = app_for()
    async with app.run_test(size=(80, 24) if len(size) == 3 else size) as pilot:
        await settle(pilot)
        await press(pilot, "a", "h")
        await settle(pilot)
        if len(size) == 3:
            await pilot.resize_terminal(*size[:2])
            await settle(pilot)
        rows = screen_text(app).splitlines()
        names = [b.name for b in app.screen.suite.builds]
        top = app.screen.query_one("#history-columns").region.y  # under the title's line or two
        header, rows = rows[top], rows[top - 1 : app.screen.query_one("KeyBar").region.y]
        band = ["band"] if size[0] == 80 else []
        assert header.split() == ["build", "runs", "n", "mean", *band, "paired", "Δ", "marks"]
        assert rows[2 : 2 + len(names)] == [row for row in rows[2:] if row.strip()]  # nothing wrapped
        for name, row in zip(names, rows[2:]):
            assert name in row or "…" in row
            assert row.index(f"{app.screen.builds[names.index(name)].stats.mean:.4f}") == header.index("mean")
            assert max(map(len, rows)) <= size[0]
        candidate = rows[2 + len(names) - 1]
        assert candidate.startswith(" ▶ C") and candidate.rstrip().endswith(" 1")  # the cursor's row
        assert len(candidate.rstrip()) == len(header.rstrip())  # the count under "marks"
        assert candidate.index("-0.0352 ▼") == header.index("paired Δ")


async def test_the_history_title_gives_a_long_suite_name_whole_when_it_fits(tmp_path: Path) -> None:
    """The name was cut to 30 characters even at 120 columns."""
    import shutil

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    name = "Incident summaries of the payments platform"  # 43 characters
    toml = suite / "suite.toml"
    toml.write_text(toml.read_text().replace('name = "Incident summaries"', f'name = "{name}"'))
    for size in ((120, 30), (80, 24)):  # at 80, the rest of the title on a second line
        app = app_for(suite)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "h")
            await settle(pilot)
            title = lines_of(app, "#history-title")
            assert f" {name}: 8 builds" in title, title
            assert title.lstrip().startswith(name[:25])


async def test_the_history_views_deltas_are_paired_and_the_compared_rows_is_the_overviews() -> None:
    """A number on screen belongs to the comparison on screen: the compared pair's row shows
    the overview's delta, and every other row the mean paired delta of its two builds (the
    whole-build means differ from it: -0.0362 against -0.0352 on the compared pair)."""
    import math

    from app_helpers import oracle_f, read_jsonl

    refs = {r["id"]: r["reference"] for r in read_jsonl(INCIDENT / "references.jsonl")}
    first, second = (
        {r["id"]: r["output"] for r in read_jsonl(INCIDENT / "builds" / name)}
        for name in ("2026-11-21_92175c.jsonl", "2026-11-22_c66672.jsonl")
    )
    shared = [i for i in first if i in second and refs.get(i, "").strip()]
    by_hand = math.fsum(oracle_f(refs[i], second[i]) - oracle_f(refs[i], first[i]) for i in shared) / len(shared)
    overview = math.fsum(incident_deltas().values()) / len(incident_deltas())
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        text = screen_text(app)
    row = next(line for line in text.splitlines() if "2026-11-22" in line)
    assert f"{by_hand:+.4f}" in row, row
    row = next(line for line in text.splitlines() if "2026-11-27" in line)
    assert f"{overview:+.4f}" in row and "▼" in row, row


async def test_the_history_views_header_shows_what_was_picked_at_80_columns() -> None:
    """The picked builds were the end of a line cut at 80 columns: they come first now, in the
    history's order (the newer was picked first: it is still the candidate)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "up", "space", "up", "space")
        await settle(pilot)
        head = screen_text(app).splitlines()[0]
    assert "picked 2026-11-25_afab85 → 2026-11-26_aa3f5f (enter compares them)" in head, head


async def test_the_history_title_counts_a_wide_suite_name_in_cells(tmp_path: Path) -> None:
    """Five CJK characters are ten cells: the title then has no room for 'Δ vs the build
    before', which was added (counted as five) and cut."""
    import shutil

    from rich.cells import cell_len

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    toml = suite / "suite.toml"
    toml.write_text(toml.read_text().replace('name = "Incident summaries"', 'name = "事故の要約"'))
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        title = lines_of(app, "#history-title")  # what does not fit goes on to a second line
        assert "· space picks · Δ vs the build before" in " ".join(line.strip() for line in title.splitlines()), title
        assert all(cell_len(line) <= 80 for line in title.splitlines())


async def test_the_history_views_title_says_space_picks_at_80_columns() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        assert "· space picks" in screen_text(app).splitlines()[0]


async def test_two_builds_picked_newest_first_compare_the_older_as_the_baseline() -> None:
    """A newcomer picked the candidate, then the build before it, and got the regression as
    drift-up; the history's order now says which is the baseline. A third pick replaces the
    first of the two picked."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = [b.name for b in review_screen(app).suite.builds]
        await press(pilot, "h")
        await settle(pilot)
        await press(pilot, "end", "space", "up", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[-2], names[-1])
        assert figures.verdict == "drift-down"
        await press(pilot, "h")
        await settle(pilot)
        # picked: the last, the first, then the third: the first and the third are compared
        await press(pilot, "end", "space", "home", "space", "down", "down", "space", "enter")
        await settle(pilot)
        figures = review_screen(app).analysis.figures
        assert (figures.baseline.name, figures.candidate.name) == (names[0], names[2])


async def test_a_build_that_cannot_be_read_stays_on_its_line_and_cannot_be_picked(tmp_path: Path) -> None:
    """A build directory with no run files: its error wrapped out of the history's table
    to column 0 at 80 columns, and picking it only failed later. Its line is now cut to
    the screen, and space or enter on it says the whole error and picks nothing."""
    import shutil

    from rich.cells import cell_len

    suite = tmp_path / "s"
    shutil.copytree(INCIDENT, suite)
    (suite / "builds" / "2026-11-25z_empty").mkdir()
    app = app_for(suite)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = review_screen(app).analysis
        await press(pilot, "h")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        broken = [i for i, line in enumerate(lines) if "2026-11-25z_empty" in line]
        assert len(broken) == 1 and lines[broken[0]].rstrip().endswith("…")
        assert "2026-11-26" in lines[broken[0] + 1] and all(cell_len(line.rstrip()) <= 80 for line in lines)
        history = app.screen
        names = [b.name for b in history.suite.builds]
        history.query_one(OptionList).highlighted = names.index("2026-11-25z_empty")
        for key in ("space", "enter"):
            await press(pilot, key)
            assert app.screen is history and history.picked == []
            said = [n.message for n in app._notifications if n.message.startswith("2026-11-25z_empty cannot be compared:")]
            assert said and said[-1].endswith("build directory holds no run files (*.jsonl, *.jsonl.gz, *.csv or *.parquet)")
        await press(pilot, "escape")
        assert review_screen(app).analysis is shown


async def test_the_history_says_its_metric_and_that_its_figures_are_over_all_outputs() -> None:
    """Issue 38, 10: the history view said neither which metric it showed nor that its n,
    mean and band are over all of a build's outputs, while the overview's are over the ids
    the pair shares (Δ here is paired too)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        about = next(line for line in screen_text(app).splitlines() if "each build's own outputs" in line)
        assert "rougeL (whitespace)" in about and "paired" in about, about
        await press(pilot, "q", "m")
        await settle(pilot)
        metric = review_screen(app).analysis.settings.metric
        assert metric != "rougeL"
        await press(pilot, "h")
        await settle(pilot)
        assert f"{metric} (whitespace)" in next(line for line in screen_text(app).splitlines() if "build's own" in line)


async def test_the_historys_line_of_what_its_figures_are_is_whole_at_80_columns() -> None:
    """A newcomer's pass at 80 columns, rougeLsum with rouge-score's tokenizer and stemming:
    the line saying what the figures are was cut at "Δ:" (README: never cut), and the marks
    column counted marks of any pair with that candidate without a word. The line goes on
    to a second one, and says what the marks are."""
    app = app_for(INCIDENT, metric="rougeLsum", tokenizer="rouge-score", stem=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        about = app.screen.query_one("#history-about")
        assert about.size.height == 2
        lines = screen_text(app).splitlines()
    at = next(k for k, line in enumerate(lines) if "rougeLsum (rouge-score, stem)" in line)
    said = " ".join(line.strip() for line in lines[at:at + 2])
    assert said.endswith("Δ: paired ids, then ● ▼ ▲ its verdict · marks: on pairs to it"), said


async def test_pairs_switched_to_and_from_leave_no_comparisons_texts_behind() -> None:
    """A newcomer's 100k suite grew 100-125 MB with each pair switched to in h, past 1.4 GB:
    the app kept every review opened (for its unsaved marks), each with its texts. It keeps
    their mark stores alone."""
    import gc

    from rouge_tui.analysis.pipeline import Texts

    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for keys in (("h", "k", "enter"), ("h", "end", "enter")) * 3:
            await press(pilot, *keys)
            await settle(pilot)
        shown = review_screen(app).analysis.figures
        assert (shown.baseline.name, shown.candidate.name) == ("2026-11-26_aa3f5f", "2026-11-27_9f03aa")
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, Texts)]
        assert len(alive) <= 2, len(alive)  # the pair shown, and maybe the one before it
        assert len(app.stores) <= 1


async def test_h_right_after_m_shows_the_history_of_the_metric_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer pressed m then h on a 100k suite: the history came at once, titled and
    figured in the metric being replaced, and stayed so once the switch was done (a number on
    screen belongs to the comparison on screen). h now waits for the comparison asked for, as
    a diff does. (The switch made as slow as theirs: 2 s.)"""
    slow_switch(monkeypatch)
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await right_after_m(pilot, "h", lambda: isinstance(app.screen, HistoryScreen)
                            and review_screen(app).analysis.settings.metric == "rougeLsum")
        assert isinstance(app.screen, HistoryScreen)
        shown = review_screen(app).analysis
        assert shown.settings.metric == "rougeLsum"
        about = app.screen.query_one("#history-about").content.plain
        assert about.startswith("rougeLsum (whitespace)"), about


async def test_a_move_too_small_for_four_decimals_keeps_its_row_in_line() -> None:
    """A review: the sample's 2026-11-25 moved 2e-05 from the build before, written
    "+<0.0001", one cell longer than a delta, and its row's verdict and marks went one column
    right of the others'. Every row's verdict is under the others'."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await settle(pilot)
        rows = [row for row in history_lines(app).values() if any(symbol in row for symbol in "●▼▲")]
    assert any("+<0.0001" in row for row in rows), rows
    assert len({max(row.rfind(symbol) for symbol in "●▼▲") for row in rows}) == 1, rows


async def test_the_compared_pairs_row_says_its_signal_alarm(tmp_path: Path) -> None:
    """A newcomer on call: h showed the alarmed build's row as "-0.0841 ●", like every quiet
    night before it, while the overview said "within band, signal alarm". The compared
    pair's row has "!" after its verdict, in the same ten cells, and the line above says what
    it means; a quiet comparison's rows have none."""
    from test_triage import chapter_suite

    for name, toml, alarm in (("alarm", "[band]\nk = 50\n", True),
                              ("quiet", "[band]\nk = 50\n[alarm]\nsignals = []\n", False)):
        app = app_for(chapter_suite(tmp_path / name, toml=toml))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await press(pilot, "h")
            await settle(pilot)
            text = screen_text(app)
            rows = [line for line in text.splitlines() if "2026-11-0" in line and "●" in line]
            assert len(rows) == 5, text
            assert [row.rstrip().endswith(" ●!") for row in rows] == [False] * 4 + [alarm], rows
            assert ("then ● ▼ ▲ its verdict (! a signal alarm)" in " ".join(text.split())) == alarm, text
