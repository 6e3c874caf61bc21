"""The list of suites (rouge_tui/app/screens/suites.py): one line a suite, its verdict."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from app_helpers import (
    INCIDENT,
    SUPPORT,
    press,
    review_screen,
    screen_text,
    settle,
    two_suites,
)
from suite_helpers import settle_files

from rouge_tui.app.app import RougeApp

pytestmark = pytest.mark.slow


async def test_a_folder_of_suites_lists_each_with_its_verdict(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident-summaries-with-a-long-folder-name")
    shutil.copytree(SUPPORT, folder / "support-answers")
    (folder / "broken" / "builds").mkdir(parents=True)
    (folder / "broken" / "references.jsonl").write_text("{oops\n")
    app = RougeApp(sorted(p for p in folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Incident summaries in incid" in text  # the folder, cut to leave room for the verdict
        assert "drift-down" in text and "within band" in text
        assert "broken" in text and "✗" in text
    # Each suite by its suite.toml name (SPEC "Interfaces": name, builds, latest verdict),
    # the folder it is in beside it.
    app = RougeApp(sorted(p for p in folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(160, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        line = next(line for line in lines if "Incident summaries" in line)
        assert "Incident summaries in incident-summaries-with-a-long-folder-name  8 builds · ▼ drift-down" in line
        assert any(line.lstrip(" ▶").startswith("Support answers") for line in lines)


async def test_a_suite_whose_newest_build_cannot_be_read_is_listed_as_it_opens(tmp_path: Path) -> None:
    """The review opens on the two newest builds that read when the newest cannot be (README):
    the list said only the error, a ✗ as for a suite that cannot be opened at all."""
    import shutil

    folder = tmp_path / "suites"
    shutil.copytree(INCIDENT, folder / "incident")
    newest = max((folder / "incident" / "builds").iterdir())
    newest.write_text(newest.read_text() + "[1]\n")
    shutil.copytree(SUPPORT, folder / "support")
    app = RougeApp([folder / "incident", folder / "support"], argparse.Namespace())
    async with app.run_test(size=(160, 24)) as pilot:
        await settle(pilot)
        line = next(line for line in screen_text(app).splitlines() if "Incident summaries" in line)
        assert f"8 builds · ! newest {newest.stem} unreadable · " in line and "✗" not in line
        assert "Δ " in line


async def test_the_list_of_suites_gives_the_verdict_the_opened_suite_shows_config_and_flags_too(
    tmp_path: Path, isolated_state: Path
) -> None:
    """config.toml and the flags settle the list's verdicts as they settle the opened
    suite's (the list used the built-in defaults: rougeL where config.toml said rouge1)."""
    import re

    from rouge_tui.store.paths import config_dir

    folder = two_suites(tmp_path / "suites")
    toml = folder / "incident" / "suite.toml"  # no metric of its own: config.toml's applies
    toml.write_text("".join(line for line in toml.read_text().splitlines(True) if not line.startswith("metric")))

    async def listed_then_opened(options: argparse.Namespace) -> tuple[str, float]:
        app = RougeApp(sorted(folder.iterdir()), options)
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            line = next(line for line in screen_text(app).splitlines() if "incident" in line and "Δ" in line)
            listed = re.search(r"Δ ([+-][0-9.]+)", line).group(1)
            await press(pilot, "home", "enter")
            await settle(pilot)
            return listed, review_screen(app).analysis.figures.delta_mean

    default_listed, default_opened = await listed_then_opened(argparse.Namespace())
    assert default_listed == f"{default_opened:+.4f}"
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text('metric = "rouge1"\n')
    listed, opened = await listed_then_opened(argparse.Namespace())
    assert listed == f"{opened:+.4f}" and listed != default_listed
    flagged, opened = await listed_then_opened(argparse.Namespace(metric="rouge2"))
    assert flagged == f"{opened:+.4f}" and flagged not in (listed, default_listed)
    # --baseline and --candidate too (the support suite has no such builds: it says why)
    pair = argparse.Namespace(baseline="2026-11-25_afab85", candidate="2026-11-26_aa3f5f")
    picked, opened = await listed_then_opened(pair)
    assert picked == f"{opened:+.4f}" and picked not in (listed, default_listed)


async def test_the_list_of_suites_keeps_to_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-cache reads and writes no cache, in the list of suites too (it scored every suite
    through the cache whatever the flag said); without the flag, the list fills it, the
    digests of its files included."""

    from rouge_tui.store.paths import cache_dir

    folder = two_suites(tmp_path / "suites")
    settle_files(monkeypatch)

    async def cached_after_listing(options: argparse.Namespace) -> list[Path]:
        app = RougeApp(sorted(folder.iterdir()), options)
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            assert sum("Δ" in line for line in screen_text(app).splitlines()) == 2  # both compared
        return [path for path in cache_dir().rglob("*") if path.is_file()] if cache_dir().exists() else []

    assert await cached_after_listing(argparse.Namespace(no_cache=True)) == []
    assert any(path.parent.parent.name == "digests" for path in await cached_after_listing(argparse.Namespace()))


async def test_the_suites_list_tells_six_copies_apart_one_line_each(tmp_path: Path) -> None:
    """Issue 38, 10: six suites of one name were listed alike, each folder wrapped onto a
    second line. Each is one line at 80 columns, with its verdict and the part of its
    folder's name that tells it apart."""
    import shutil

    folders = [f"incident-summaries-copy-{n}-from-the-nightly-box" for n in range(6)]
    for folder in folders:
        shutil.copytree(INCIDENT, tmp_path / folder)
    app = RougeApp([tmp_path / f for f in folders], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(100):  # the summaries come one suite at a time
            if "…" not in screen_text(app).splitlines()[6]:
                break
            await pilot.pause(0.1)
        rows = screen_text(app).splitlines()[1:-1]
        assert [row for row in rows if row.strip()] == rows[:6], rows  # six lines, nothing wrapped
        for n, row in enumerate(rows[:6]):
            assert "Incident summaries" in row and f"copy-{n}" in row and "▼ drift-down Δ -0.0352" in row, row


async def test_a_harness_folder_with_two_tasks_lists_both_and_opens_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An lm-eval-like output folder with two tasks is two suites in the list, each by its
    task's name, with its builds and verdict; enter opens the one under the cursor."""
    from toy_format import install, write_toy

    from rouge_tui.suite.suite import list_suites

    install(monkeypatch)
    folder = write_toy(write_toy(tmp_path / "harness", task="qa"), task="summ")
    app = RougeApp(list_suites(folder), argparse.Namespace())
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert any(line.lstrip(" ▶").startswith("qa in harness  3 builds · ") for line in lines), lines
        assert any(line.lstrip(" ▶").startswith("summ in harness  3 builds · ") for line in lines), lines
        await press(pilot, "end", "enter")
        await settle(pilot)
        analysis = review_screen(app).analysis
        assert analysis.suite.name == "summ"
        assert (analysis.figures.baseline.name, analysis.figures.candidate.name) == ("alpha@2026-01-02", "mid@2026-01-03")


async def test_escape_back_to_the_list_is_in_the_footer_where_it_goes_back(tmp_path: Path) -> None:
    """A newcomer: escape went back to the list of suites but the footer did not say so, and
    help listed "esc back" for a suite opened alone, where it did nothing. The footer shows
    it where it does something: back to the list, or a filter cleared."""

    from app_helpers import app_for, footer_text

    folder = two_suites(tmp_path / "suites")
    app = RougeApp(sorted(folder.iterdir()), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert "esc back" in footer_text(app)
        await press(pilot, "escape")
        await settle(pilot)
        assert "Support answers" in screen_text(app) and "Incident summaries" in screen_text(app)
    alone = app_for(folder / "incident")
    async with alone.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "esc back" not in footer_text(alone)
        await press(pilot, "slash", *"trunc", "enter")
        await settle(pilot)
        assert "esc back" in footer_text(alone)
        await press(pilot, "escape")
        await settle(pilot)
        assert "esc back" not in footer_text(alone)


async def test_a_suite_whose_alarm_a_signal_raised_says_so_in_the_list(tmp_path: Path) -> None:
    """A newcomer's folder of suites listed CNN/DM as "● within band" while its report exited
    1 on two signal drifts (SPEC "Triage": the alarm listens to the signals too). With ROUGE
    within its band and a signal drifting, the line says so after ROUGE's verdict."""
    import shutil

    from test_triage import chapter_suite

    folder = tmp_path / "suites"
    chapter_suite(folder / "invented")
    shutil.copytree(SUPPORT, folder / "support")
    app = RougeApp([folder / "invented", folder / "support"], argparse.Namespace())
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
    invented = next(line for line in lines if "invented" in line)
    assert "6 builds · ● within band, signal alarm Δ " in invented, invented
    support = next(line for line in lines if "Support answers" in line)
    assert "alarm" not in support and "● within band Δ " in support


async def test_at_80_columns_a_long_named_suite_shows_its_alarm_whole(tmp_path: Path) -> None:
    """A newcomer's CNN/DM copy read "CNN/DailyMail, See et al. 2017 outputs in cnndm…vented
    10 builds · ● with…" at 80 columns: the words saying the alarm fired were cut, and it
    looked as quiet as the suite under it. A line that does not fit puts its builds and
    verdict on a line of their own; one that fits stays one line."""
    import shutil

    from test_triage import chapter_suite

    folder = tmp_path / "suites"
    chapter_suite(folder / "cnndm-invented-copy", toml='name = "CNN/DailyMail, See et al. 2017 outputs"\n[band]\nk = 50\n')
    shutil.copytree(SUPPORT, folder / "support")
    app = RougeApp([folder / "cnndm-invented-copy", folder / "support"], argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(100):  # the summaries come one suite at a time
            if "…" not in " ".join(line.strip()[-1:] for line in screen_text(app).splitlines()[1:5]):
                break
            await pilot.pause(0.1)
        lines = screen_text(app).splitlines()
    first = next(n for n, line in enumerate(lines) if "CNN/DailyMail, See et al. 2017 outputs" in line)
    assert "6 builds · ● within band, signal alarm Δ " in lines[first + 1], lines
    assert all(len(line) <= 80 for line in lines)
    support = next(line for line in lines if "Support answers" in line)
    assert "● within band Δ " in support  # one line: it fits


async def test_a_folder_that_fits_its_line_is_not_cut_for_another_suites_verdict() -> None:
    """A newcomer on call: the bundled folder of suites at 80 columns read "Incident summaries
    in incident…ummaries  8 builds · ▼ drift-down Δ -0.0352", the folder cut for the longest
    verdict, another suite's, where its own line had room for it whole."""
    app = RougeApp(sorted([INCIDENT, SUPPORT]), argparse.Namespace())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        line = next(line for line in lines if "Incident summaries" in line)
        assert "Incident summaries in incident-summaries  8 builds · ▼ drift-down Δ " in line, line
        assert len(line.rstrip()) <= 80
