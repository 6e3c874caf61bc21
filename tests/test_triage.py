"""Triage (SPEC "Triage: what overlap cannot see decides too"): signal bands from the earlier
build pairs, the alarm they raise, and the flagged in their reading order."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from suite_helpers import jsonl, make_suite

from rouge_tui.analysis import signals, triage
from rouge_tui.analysis.triage import PairCounts
from rouge_tui.cli import main


def history(*counts: int, paired: int = 100, signal: str = "new-figure") -> list[PairCounts]:
    return [PairCounts(f"b{k}", f"b{k + 1}", paired, {signal: c}) for k, c in enumerate(counts)]


def drifts(earlier: list[PairCounts], count: int, paired: int = 100, signal: str = "new-figure") -> bool:
    rate = triage.rates({signal: count}, paired, earlier, [signal])
    return next(r for r in rate if r.signal == signal).drift


# -- the band's rule, on hand-built histories ----------------------------------------------


def test_a_jump_crosses_the_band_and_a_steady_rate_does_not():
    # The README's rule by hand: the highest earlier share of this pair's 100 examples, plus
    # three square roots of it, plus three.
    assert drifts(history(0, 3, 1, 2), 50)  # 3 + 3*sqrt(3) + 3 = 11.2: 50 is far beyond
    assert drifts(history(27, 34, 30, 31, 29), 87)  # 34 + 3*5.83 + 3 = 54.5
    assert not drifts(history(17, 26, 20, 22, 19), 20)
    assert not drifts(history(35, 45, 40, 38, 42), 45)  # every nightly pair 40 ± 5


def test_the_band_edge_worked_out_by_hand():
    # 0-3 earlier: the top is 3 + 3*sqrt(3) + 3 = 11.196 outputs of 100.
    assert not drifts(history(0, 3), 11)
    assert drifts(history(0, 3), 12)
    band, reason = triage.band(history(0, 3), "new-figure", 100)
    assert band == (0.0, pytest.approx((6 + 3 * math.sqrt(3)) / 100)) and reason == ""


def test_a_signal_that_never_fired_drifts_at_its_fourth_output():
    never = history(0, 0, 0, 0, 0)
    assert not drifts(never, 3)
    assert drifts(never, 4)
    assert not drifts(never, 0)


def test_rates_are_shares_so_a_bigger_pair_needs_more():
    # 2 of 100 earlier is 2%: at 1,000 examples expect 20, so 40 is within 20 + 3*4.47 + 3 = 36.4? no: beyond.
    assert not drifts(history(2, 2, paired=100), 36, paired=1000)
    assert drifts(history(2, 2, paired=100), 37, paired=1000)


def test_too_little_history_gives_no_band_and_says_why():
    band, reason = triage.band(history(3), "new-figure", 100)
    assert band is None and "fewer than 2 earlier build pairs" in reason
    # "with figures" read as new figures (a newcomer's pass): these are the pairs counted
    assert reason.endswith("earlier build pairs counted") and "figures" not in reason
    assert not drifts(history(3), 90)
    unreadable = [PairCounts("a", "b", 0, {}, "b.jsonl:3: invalid JSON"), *history(1)]
    assert triage.band(unreadable, "new-figure", 100)[0] is None


def test_only_signals_allowed_to_raise_the_alarm_drift():
    earlier = history(0, 0)
    (rate,) = [r for r in triage.rates({"new-figure": 50}, 100, earlier, ["empty"]) if r.signal == "new-figure"]
    assert rate.band is not None and rate.rate > rate.band[1] and not rate.drift


def test_every_signal_but_volatile_is_banded_and_the_default_alarm_is_specs():
    banded = [r.signal for r in triage.rates({}, 10, history(0, 0), signals.ALARM)]
    assert "volatile" not in banded and len(banded) == len(signals.SIGNALS) - 1
    assert set(signals.ALARM) == {"empty", "truncated", "duplicated", "new-figure", "new-sentence", "reference-copy"}


def test_the_drift_in_words():
    drift = triage.rates({"new-figure": 87}, 100, history(27, 34), ["new-figure"])
    (said,) = [triage.drift_words(r.to_json()) for r in drift if r.drift]
    assert said == "▲ new figures: 87 outputs (earlier pairs 27-34)"


# -- the reading order ---------------------------------------------------------------------


def bits(*names: str) -> int:
    return sum(1 << [s.name for s in signals.SIGNALS].index(name) for name in names)


def test_the_flagged_read_new_figures_first_then_new_sentences_by_least_support():
    flags = np.array([bits("new-figure"),  # 0: one of the ten, read already
                      bits("new-sentence"), bits("truncated"), bits("new-figure"), bits("new-sentence"),
                      bits("new-figure", "new-sentence"), 0, bits("empty")], np.uint32)
    new_figures = np.array([1, 0, 0, 1, 0, 3, 0, 0])
    least = np.array([1, 0.4, 1, 1, 0.1, 0.2, 1, 1])
    order = triage.reading_order(flags, ["new-figure", "new-sentence", "truncated"], new_figures, least, skip=1)
    assert order == [5, 3, 4, 1, 2]  # 3 figures, 1 figure; support 0.1, 0.4; then truncated
    assert triage.reading_order(flags, ["new-sentence"], new_figures, least, skip=1, limit=2) == [4, 5]
    assert triage.reading_order(flags, [], new_figures, least, skip=0) == []


def test_flagged_first_sorts_the_table():
    flags = np.array([0, bits("empty"), bits("new-sentence"), 0, bits("new-figure")], np.uint32)
    assert triage.flagged_first(flags, ["empty", "new-figure", "new-sentence"]).tolist() == [4, 2, 1, 0, 3]
    # The flagged list first, in its reading order; then the parts; then the rest.
    assert triage.flagged_first(flags, ["empty", "new-figure", "new-sentence"], [2, 1]).tolist() == [2, 1, 4, 0, 3]


def test_the_flagged_first_sort_begins_with_the_walks_flagged(tmp_path: Path):
    """A newcomer's "flagged first" began with the ten most-moved (a drifting signal fired on
    them too), none of them on the flagged list the walk and the report read next: SPEC, the
    sort puts the flagged at the top of the table."""
    from rouge_tui.analysis.pipeline import Caches, open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.suite.suite import open_suite

    figures = open_analysis(open_suite(chapter_suite(tmp_path / "s")), Settings(k=50), caches=Caches.none()).figures
    # By the suite's making: the INVENTED outputs each add one sentence and one new figure,
    # so the flagged past the ten are those of them ranked past ten, by rank (one new figure
    # each: the reading order's ties go by rank).
    invented = {f"ex-{k:02d}" for k in range(INVENTED)}
    past_ten = [row for row, example in enumerate(figures.ids) if example in invented and row >= 10]
    assert past_ten
    order = figures.order("flagged").tolist()
    assert order[: len(past_ten)] == past_ten
    assert sorted(order) == list(range(figures.paired))


# -- through the report --------------------------------------------------------------------

REFERENCES = [f"the service in region {k} restarted and traffic recovered after the cache was warmed"
              for k in range(40)]
INVENTED = 14  # more than the ten most-moved can hold


def build(variant: int, invented: int = 0) -> str:
    """One build: every output near its reference, a word changed in a few that move with
    ``variant``, and the first ``invented`` ending on a root cause nobody wrote."""
    records = []
    for k, reference in enumerate(REFERENCES):
        words = reference.split()
        if (k + variant) % 5 == 0:
            words[3] = "zone"
        text = " ".join(words) + "."
        if k < invented:
            text += f" The root cause was a faulty switch in rack {40 + k}."
        records.append({"id": f"ex-{k:02d}", "output": text})
    return jsonl(*records)


def chapter_suite(root: Path, builds: int = 6, toml: str = "[band]\nk = 50\n") -> Path:
    """Nightly builds with a few words moving, the last with INVENTED invented closing sentences."""
    refs = jsonl(*({"id": f"ex-{k:02d}", "reference": r} for k, r in enumerate(REFERENCES)))
    names = {f"2026-11-{k + 1:02d}.jsonl": build(k, invented=INVENTED if k == builds - 1 else 0) for k in range(builds)}
    return make_suite(root, refs, names, toml)


def report_json(suite: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["report", str(suite), "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_an_invented_sentence_rouge_cannot_see_raises_the_alarm(tmp_path: Path, capsys):
    code, data = report_json(chapter_suite(tmp_path / "s"), capsys)
    assert data["verdict"] == "within-band"  # ROUGE's verdict stays ROUGE's
    assert code == 1
    drift = {d["signal"]: d for d in data["signal_drift"]}
    assert set(drift) == {"new-sentence", "new-figure"}
    assert drift["new-figure"]["count"] == INVENTED and drift["new-figure"]["rate"] == INVENTED / 40
    assert [h["count"] for h in drift["new-figure"]["history"]] == [0, 0, 0, 0]
    assert drift["new-figure"]["band"][1] == pytest.approx(3 / 40)
    flagged = [row["id"] for row in data["flagged"]]
    invented = {f"ex-{k:02d}" for k in range(INVENTED)}
    top = {row["id"] for row in data["top"]}
    assert len(invented - top) >= 4 and set(flagged) == invented - top
    assert all(row["new_figures"] for row in data["flagged"])
    assert set(data["flagged"][0]) >= {"id", "baseline", "candidate", "delta", "signals", "unsupported",
                                       "new_sentences", "new_figures"}


@pytest.mark.parametrize("top", [3, 10, 25])
def test_the_flagged_are_the_reading_order_past_the_rows_top_lists(tmp_path: Path, capsys, top: int):
    """With --top 3 the invented outputs ranked 4th to 10th were in neither list; with --top
    25 some were in both (and drawn twice in the HTML)."""
    _, data = report_json(chapter_suite(tmp_path / "s"), capsys, "--top", str(top))
    listed = {row["id"] for row in data["top"]}
    flagged = [row["id"] for row in data["flagged"]]
    assert not listed & set(flagged)
    invented = {f"ex-{k:02d}" for k in range(INVENTED)}
    # every invented output is read: in top, or among the flagged (ten at most)
    assert invented <= listed | set(flagged) or len(flagged) == 10
    assert len(flagged) == min(10, len(invented - listed))


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_says_the_signal_drift(tmp_path: Path, capsys, fmt: str):
    suite = chapter_suite(tmp_path / "s")
    capsys.readouterr()
    assert main(["report", str(suite), "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert f"new figures: {INVENTED} outputs (earlier pairs 0)" in out
    assert "flagged" in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_the_verdict_line_says_the_signal_alarm_beside_rouges_within_band(tmp_path: Path, capsys, fmt: str):
    """A newcomer read "verdict ● within band" first, in green, on a report that exited 1 on
    two signal drifts (their lines came five lines later). ROUGE's verdict stays, the JSON's
    too; the line says the alarm after it, and only where a signal drifts."""
    suite = chapter_suite(tmp_path / "s")
    capsys.readouterr()
    assert main(["report", str(suite), "--format", fmt]) == 1
    out = capsys.readouterr().out
    verdict = next(re.sub("<[^>]+>", "", line) for line in out.splitlines() if "within band" in line)  # (html: its tags)
    assert "● within band, signal alarm" in verdict, verdict
    if fmt == "html":  # in the alarm's colour, and the reason after a colon (it ran on into it: a review)
        assert '</span>, <span class="verdict drift-down">signal alarm</span>: candidate mean ' in out
    assert report_json(suite, capsys)[1]["verdict"] == "within-band"
    quiet = chapter_suite(tmp_path / "quiet", toml="[band]\nk = 50\n[alarm]\nsignals = []\n")
    capsys.readouterr()
    assert main(["report", str(quiet), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "● within band" in out and "signal alarm" not in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_the_compared_pairs_history_row_says_the_signal_alarm(tmp_path: Path, capsys, fmt: str):
    """A newcomer on call: report --history said "within band" on the alarmed build's row,
    beside a verdict "within band, signal alarm" and an exit of 1; scanning the history for
    when it began, the rows read alike. The compared pair's row says the alarm (the text
    table, "!" and a line under it: in words the verdict folded at 80 columns); the other
    rows have no signals of their own, and the JSON's verdict stays ROUGE's."""
    suite = chapter_suite(tmp_path / "s")
    capsys.readouterr()
    assert main(["report", str(suite), "--format", fmt, "--history"]) == 1
    out = capsys.readouterr().out
    lines = out.replace("<tr>", "\n<tr>").splitlines()
    rows = {day: next(line for line in lines if re.match(rf"( |\| |<tr><td>)2026-11-0{day}\b", line)) for day in range(2, 7)}
    alarmed = rows.pop(6)
    if fmt == "text":
        assert alarmed.endswith("within band !"), alarmed
        assert "! 2026-11-06: within band, signal alarm (the pair compared: its verdict above)" in lines
    else:
        assert "within band, signal alarm" in re.sub("<[^>]+>", "", alarmed), alarmed
    assert all("within band" in row and "alarm" not in row and not row.endswith("!") for row in rows.values()), rows
    history = report_json(suite, capsys, "--history")[1]["history"]
    assert [h["verdict"] for h in history[1:]] == ["within-band"] * 5


def test_the_alarm_signals_setting_turns_it_off_or_picks(tmp_path: Path, capsys):
    off = chapter_suite(tmp_path / "off", toml="[band]\nk = 50\n[alarm]\nsignals = []\n")
    code, data = report_json(off, capsys)
    assert (code, data["signal_drift"], data["flagged"]) == (0, [], [])
    # and why there is no band says so, not "too little history" (five earlier pairs here)
    assert {r["no_band"] for r in data["signal_rates"]} == {"no band: no signal may raise the alarm ([alarm] signals = [])"}
    figures_only = chapter_suite(tmp_path / "fig", toml='[band]\nk = 50\n[alarm]\nsignals = ["new-figure"]\n')
    code, data = report_json(figures_only, capsys)
    assert code == 1 and [d["signal"] for d in data["signal_drift"]] == ["new-figure"]


def test_a_signal_the_alarm_cannot_use_names_the_file_and_line(tmp_path: Path, capsys):
    suite = chapter_suite(tmp_path / "s", toml='[band]\nk = 50\n[alarm]\nsignals = ["volatile"]\n')
    capsys.readouterr()
    assert main(["report", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "suite.toml:4" in err and "volatile" in err and len(err.strip().splitlines()) == 1


def test_too_little_history_shows_the_count_and_why_there_is_no_band(tmp_path: Path, capsys):
    code, data = report_json(chapter_suite(tmp_path / "s", builds=2), capsys)
    assert code == 0 and data["signal_drift"] == []
    assert data["signals"]["new-figure"] == INVENTED
    rate = next(r for r in data["signal_rates"] if r["signal"] == "new-figure")
    assert rate["band"] is None and "fewer than 2 earlier build pairs" in rate["no_band"]


def test_with_bands_and_no_drift_the_report_says_none_is_above_its_band(tmp_path: Path, capsys):
    """A newcomer read "signals within their bands" (the app) for a rate far under its band,
    earlier pairs having changed every output, and the text report said nothing of the
    bands at all. The alarm looks above a band only (SPEC), so each says that, in words."""
    suite = chapter_suite(tmp_path / "s", builds=6)
    (suite / "builds" / "2026-11-06.jsonl").write_text(build(5))  # the last night: no invention
    code, data = report_json(suite, capsys)
    assert code == 0 and data["signal_drift"] == [] and all(r["band"] for r in data["signal_rates"])
    for fmt in ("text", "markdown"):
        capsys.readouterr()
        main(["report", str(suite), "--format", fmt])
        out = capsys.readouterr().out
        assert "no signal above its band (from 4 earlier build pairs)" in out, out
        assert "within their bands" not in out
    # a signal above its band that may not raise the alarm is above it all the same
    loud = chapter_suite(tmp_path / "loud", toml='[band]\nk = 50\n[alarm]\nsignals = ["empty"]\n')
    code, data = report_json(loud, capsys)
    assert code == 0 and data["signal_drift"] == []
    assert any(r["rate"] > r["band"][1] for r in data["signal_rates"] if r["signal"] == "new-figure")
    for fmt in ("text", "markdown"):
        capsys.readouterr()
        main(["report", str(loud), "--format", fmt])
        assert "no signal above its band" not in capsys.readouterr().out


def test_an_earlier_build_that_cannot_be_read_is_named_where_it_narrows_the_bands(tmp_path: Path, capsys):
    """A newcomer's unreadable build, two before the pair compared, turned the alarm off (a
    report exit 1 became 0, "fewer than 2 earlier build pairs with figures") and nothing said
    which build or why; left out of a band that still stands, it narrowed it unseen."""
    suite = chapter_suite(tmp_path / "s", builds=6)
    bad = suite / "builds" / "2026-11-02.jsonl"
    bad.write_text(bad.read_text() + "[1]\n")
    code, data = report_json(suite, capsys)
    said = [w for w in data["warnings"] if w.startswith("the signal bands leave out")]
    assert said == [f"the signal bands leave out {a} -> {b}: {bad}:41: expected a JSON object, found array"
                    for a, b in (("2026-11-01", "2026-11-02"), ("2026-11-02", "2026-11-03"))]
    assert code == 1  # two earlier pairs are left: a band all the same
    code, data = report_json(suite, capsys, "--baseline", "2026-11-03", "--candidate", "2026-11-06")
    assert code == 0 and data["signal_drift"] == []  # no earlier pair read: no band, no alarm
    assert len([w for w in data["warnings"] if "leave out" in w]) == 2


def test_no_earlier_pair_is_counted_when_no_band_could_come_of_it(tmp_path: Path, capsys, monkeypatch):
    """Two earlier pairs make a band: with one, or with no signal allowed to raise the alarm,
    counting the earlier pairs (grounding each) would buy nothing."""
    counted = []
    count_new = signals.Pairs.count_new
    monkeypatch.setattr(signals.Pairs, "count_new", lambda self: counted.append(1) or count_new(self))
    report_json(chapter_suite(tmp_path / "three", builds=3), capsys, "--no-cache")
    assert len(counted) == 1  # the pair compared only
    counted.clear()
    report_json(chapter_suite(tmp_path / "off", toml="[alarm]\nsignals = []\n"), capsys, "--no-cache")
    assert len(counted) == 1


def test_without_a_source_it_is_said_once(tmp_path: Path, capsys):
    _, data = report_json(chapter_suite(tmp_path / "s"), capsys)
    said = [w for w in data["warnings"] if "references alone" in w]
    assert len(said) == 1


def test_a_new_build_counts_one_new_pair_not_the_whole_history(tmp_path: Path, capsys, monkeypatch):
    suite = chapter_suite(tmp_path / "s", builds=6)
    counted = []
    count_new = signals.Pairs.count_new
    monkeypatch.setattr(signals.Pairs, "count_new", lambda self: counted.append(1) or count_new(self))
    report_json(suite, capsys)
    assert len(counted) == 5  # the pair compared and the four before it
    (suite / "builds" / "2026-11-07.jsonl").write_text(build(6))
    counted.clear()
    report_json(suite, capsys)
    assert len(counted) == 1  # the new pair only: the earlier ones, the last included, are cached
    counted.clear()
    _, cold = report_json(suite, capsys, "--no-cache")
    _, warm = report_json(suite, capsys)
    assert len(counted) == 6 and cold["signal_rates"] == warm["signal_rates"]  # five earlier pairs now


# -- replicate runs ------------------------------------------------------------------------


def replicate_suite(root: Path) -> Path:
    """Two builds of two runs each. ``moves`` moved by the same in both runs; ``noisy`` moved
    only in run 2 of the candidate, where it also ends on an invented figure; the rest never
    move."""
    refs = {"moves": "the deploy finished and the queue drained at noon",
            "noisy": "the cache was warmed and the errors stopped",
            **{f"calm-{k}": f"nothing happened on shift {k} at all" for k in range(6)}}
    base = {key: text for key, text in refs.items()}
    cand_1 = {**base, "moves": "the deploy finished and the queue drained"}
    cand_2 = {**cand_1, "noisy": "the cache was warmed. The cause was rack 42."}

    def run(outputs: dict[str, str]) -> str:
        return jsonl(*({"id": k, "output": v} for k, v in outputs.items()))

    return make_suite(root, jsonl(*({"id": k, "reference": v} for k, v in refs.items())), {
        "1-base": {"run-1.jsonl": run(base), "run-2.jsonl": run(base)},
        "2-cand": {"run-1.jsonl": run(cand_1), "run-2.jsonl": run(cand_2)},
    })


def test_replicate_runs_fire_in_any_run_and_say_in_how_many(tmp_path: Path, capsys):
    suite = replicate_suite(tmp_path / "s")
    _, data = report_json(suite, capsys)
    rows = {row["id"]: row for row in data["top"]}
    noisy = rows["noisy"]
    assert "new-figure" in noisy["signals"] and noisy["signal_runs"]["new-figure"] == 1
    assert noisy["shown_run"] == 2  # the whole move is in run 2
    assert noisy["new_figures"] == ["42"]  # said from that run's text, not run 1's
    assert noisy["runs"]["baseline"] == [1.0, 1.0] and noisy["runs"]["candidate"][0] == 1.0
    assert rows["moves"]["shown_run"] == 1  # equal moves: the first run
    capsys.readouterr()
    main(["report", str(suite)])
    assert "new-figure 1/2" in capsys.readouterr().out


def test_beyond_its_own_noise_ranks_a_steady_move_above_a_noisy_one(tmp_path: Path, capsys):
    from rouge_tui.analysis.pipeline import open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.suite.suite import open_suite

    figures = open_analysis(open_suite(replicate_suite(tmp_path / "s")), Settings()).figures
    assert figures.ids[:2] == ["noisy", "moves"]  # noisy moved most on average
    assert "noise" in figures.sorts()
    by_noise = [figures.ids[row] for row in figures.order("noise")]
    assert by_noise[:2] == ["moves", "noisy"]  # moves moved alike in both runs: no noise
    # Noise by hand: the candidate's runs of noisy differ by |delta run 2| = 2 * 0.2; the
    # baseline's agree: the root mean square of the two sample sds.
    noisy = figures.ids.index("noisy")
    run_delta = figures.run_f["candidate"][1, noisy] - figures.run_f["candidate"][0, noisy]
    assert figures.noise()[noisy] == pytest.approx(math.sqrt((run_delta ** 2 / 2) / 2))


def test_the_triage_and_the_runs_come_back_from_the_cache_as_they_were(tmp_path: Path):
    from rouge_tui.analysis.figures import Figures
    from rouge_tui.analysis.pipeline import open_analysis
    from rouge_tui.analysis.settings import Settings
    from rouge_tui.suite.suite import open_suite

    for suite in (replicate_suite(tmp_path / "r"), chapter_suite(tmp_path / "c")):
        figures = open_analysis(open_suite(suite), Settings()).figures
        back = Figures.from_bytes(figures.to_bytes())
        assert back.rates == figures.rates and back.flagged == figures.flagged
        assert back.flagged_details == figures.flagged_details
        assert back.run_f.keys() == figures.run_f.keys()
        assert all(np.array_equal(back.run_f[k], figures.run_f[k]) for k in figures.run_f)
        assert (back.runs_fired is None) == (figures.runs_fired is None)
        if figures.runs_fired is not None:
            assert np.array_equal(back.runs_fired, figures.runs_fired)
    assert figures.flagged and back.drifting  # the chapter suite's
