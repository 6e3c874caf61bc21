"""analysis/settings.resolve: flags over suite.toml over config.toml over the defaults, each
checked; and what a setting names (signature, scoring key, switching)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rouge_tui.analysis.settings import Settings, UsageError, resolve
from rouge_tui.suite.toml import (
    SuiteSettings,
    UserDefaults,
    read_suite_settings,
    read_user_defaults,
)

NONE = SuiteSettings()
NOBODY = UserDefaults()


def test_the_defaults_are_specs() -> None:
    got = resolve(NONE, NOBODY)
    assert got == Settings("rougeL", "whitespace", False, 2.0, "auto", 0.0, 0.5)
    assert got.signature == "rougeL|tok:whitespace|stem:no|v:0.1.0|seed:0"


@pytest.mark.parametrize(
    "flags, suite, user, expected",
    [
        # metric: flag > suite > user > default
        ({"metric": "rouge1"}, {"metric": "rouge2"}, {"metric": "rougeLsum"}, "rouge1"),
        ({}, {"metric": "rouge2"}, {"metric": "rougeLsum"}, "rouge2"),
        ({}, {}, {"metric": "rougeLsum"}, "rougeLsum"),
        ({}, {}, {}, "rougeL"),
    ],
)
def test_metric_precedence(flags: dict, suite: dict, user: dict, expected: str) -> None:
    assert resolve(SuiteSettings(**suite), UserDefaults(**user), **flags).metric == expected


@pytest.mark.parametrize(
    "flags, suite, user, expected",
    [
        ({"tokenizer": "unicode"}, {"tokenizer": "character"}, {"tokenizer": "rouge-score"}, "unicode"),
        ({}, {"tokenizer": "character"}, {"tokenizer": "rouge-score"}, "character"),
        ({}, {}, {"tokenizer": "rouge-score"}, "rouge-score"),
        ({}, {}, {}, "whitespace"),
    ],
)
def test_tokenizer_precedence(flags: dict, suite: dict, user: dict, expected: str) -> None:
    assert resolve(SuiteSettings(**suite), UserDefaults(**user), **flags).tokenizer == expected


@pytest.mark.parametrize(
    "flags, suite, user, expected",
    [({"k": 1.5}, {"k": 3.0}, {"k": 4.0}, 1.5), ({}, {"k": 3.0}, {"k": 4.0}, 3.0),
     ({}, {}, {"k": 4.0}, 4.0), ({}, {}, {}, 2.0)],
)  # fmt: skip
def test_k_precedence(flags: dict, suite: dict, user: dict, expected: float) -> None:
    assert resolve(SuiteSettings(**suite), UserDefaults(**user), **flags).k == expected


def test_precedence_from_real_files(tmp_path: Path) -> None:
    """The same precedence when the settings come from suite.toml and config.toml on disk."""
    (tmp_path / "suite.toml").write_text(
        'metric = "rouge2"\ntokenizer = "rouge-score"\nstem = true\n'
        "[band]\nk = 3\nmin_delta = 0.001\nsource = \"history\"\n[grounding]\nmin_support = 0.7\n"
    )
    (tmp_path / "config.toml").write_text('metric = "rouge1"\ntokenizer = "unicode"\nk = 5\n')
    suite = read_suite_settings(tmp_path / "suite.toml")
    user = read_user_defaults(tmp_path / "config.toml")
    assert resolve(suite, user) == Settings("rouge2", "rouge-score", True, 3.0, "history", 0.001, 0.7)
    flagged = resolve(suite, user, metric="rougeLsum", k=1.0)
    assert (flagged.metric, flagged.tokenizer, flagged.stem, flagged.k) == ("rougeLsum", "rouge-score", True, 1.0)
    # a config.toml alone (no suite.toml): the user's defaults
    alone = resolve(SuiteSettings(), user)
    assert (alone.metric, alone.tokenizer, alone.k) == ("rouge1", "unicode", 5.0)


@pytest.mark.parametrize("tokenizer", ["whitespace", "unicode", "character"])
def test_stem_with_a_tokenizer_that_does_not_stem_is_a_usage_error(tokenizer: str) -> None:
    with pytest.raises(UsageError, match=f"--stem needs a tokenizer that stems .*not '{tokenizer}'"):
        resolve(NONE, NOBODY, tokenizer=tokenizer, stem=True)
    with pytest.raises(UsageError):  # the tokenizer from the suite, the flag asks to stem
        resolve(SuiteSettings(tokenizer=tokenizer), NOBODY, stem=True)


def test_stem_from_a_flag_with_the_rouge_score_tokenizer() -> None:
    assert resolve(NONE, NOBODY, tokenizer="rouge-score", stem=True).stem is True
    assert resolve(SuiteSettings(tokenizer="rouge-score"), NOBODY, stem=True).stem is True


def test_a_suites_stem_does_not_apply_once_a_flag_picks_whitespace() -> None:
    suite = SuiteSettings(tokenizer="rouge-score", stem=True)
    assert resolve(suite, NOBODY).stem is True
    for tokenizer in ("whitespace", "unicode", "character"):
        got = resolve(suite, NOBODY, tokenizer=tokenizer)  # no error: the suite's stem lapses
        assert (got.tokenizer, got.stem) == (tokenizer, False)
        assert "stem:no" in got.signature


def test_a_suites_stem_with_no_tokenizer_of_its_own_needs_one_that_stems() -> None:
    """suite.toml's stem = true with no tokenizer key: the default (or config.toml's) does
    not stem, and the report ran silently with stem:no; now a usage error saying what to
    set, unless config.toml or a flag picks a tokenizer that stems (or a flag picks one that
    does not: the suite's stem lapses, as with a tokenizer key)."""
    suite = SuiteSettings(stem=True)
    with pytest.raises(UsageError, match=r"suite.toml's stem = true needs a tokenizer that stems \(rouge-score\), not the default 'whitespace'"):
        resolve(suite, NOBODY)
    with pytest.raises(UsageError, match="not config.toml's 'unicode'"):
        resolve(suite, UserDefaults(tokenizer="unicode"))
    assert resolve(suite, UserDefaults(tokenizer="rouge-score")).stem is True
    assert resolve(suite, NOBODY, tokenizer="rouge-score").stem is True
    assert resolve(suite, NOBODY, tokenizer="whitespace").stem is False
    assert resolve(suite, NOBODY, stem=False).stem is False


@pytest.mark.parametrize("k", [0.0, -1.0, math.nan, math.inf, -math.inf, 100.5, 1e308])
def test_a_bad_k_is_a_usage_error(k: float) -> None:
    with pytest.raises(UsageError, match="band k must be a positive number up to 100"):
        resolve(NONE, NOBODY, k=k)
    with pytest.raises(UsageError):
        resolve(NONE, UserDefaults(k=k))


def test_unknown_names_are_usage_errors_listing_the_registry() -> None:
    with pytest.raises(UsageError, match="unknown metric 'bleu'; expected one of rouge1, rouge2, rougeL, rougeLsum"):
        resolve(NONE, NOBODY, metric="bleu")
    with pytest.raises(UsageError, match="unknown tokenizer 'nltk'; expected one of whitespace"):
        resolve(NONE, NOBODY, tokenizer="nltk")


def test_band_and_grounding_come_from_the_suite() -> None:
    got = resolve(SuiteSettings(band_source="history", min_delta=1e-6, min_support=0.8), NOBODY)
    assert (got.band_source, got.min_delta, got.min_support) == ("history", 1e-6, 0.8)


def test_the_scoring_key_and_the_signature_name_what_a_score_depends_on() -> None:
    base = resolve(NONE, NOBODY)
    others = [
        resolve(NONE, NOBODY, metric="rouge1"),
        resolve(NONE, NOBODY, tokenizer="unicode"),
        resolve(NONE, NOBODY, tokenizer="rouge-score"),
        resolve(NONE, NOBODY, tokenizer="rouge-score", stem=True),
    ]
    assert len({s.scoring for s in [base, *others]}) == 5
    assert len({s.signature for s in [base, *others]}) == 5
    assert resolve(NONE, NOBODY, k=9.0).scoring == base.scoring  # k changes no score
    assert others[1].signature == "rougeL|tok:unicode-v1|stem:no|v:0.1.0|seed:0"
    assert others[3].signature == "rougeL|tok:rouge-score|stem:yes|v:0.1.0|seed:0"


def test_switching_stems_where_the_new_tokenizer_stems_and_stemming_was_asked_for() -> None:
    stemmed = resolve(NONE, NOBODY, tokenizer="rouge-score", stem=True)
    assert stemmed.switched(tokenizer="whitespace").stem is False
    assert stemmed.switched(metric="rouge2") == Settings("rouge2", "rouge-score", True)
    # The app's `t` cycle comes back to the tokenizer that stems: so does the stemming the
    # flag or the suite asked for (the screen agrees with `report` again); never unasked.
    cycle = stemmed
    for tokenizer in ("whitespace", "unicode", "character", "rouge-score"):
        cycle = cycle.switched(tokenizer=tokenizer)
        assert cycle.stem is (tokenizer == "rouge-score")
    suite = SuiteSettings(tokenizer="rouge-score", stem=True)
    assert resolve(suite, NOBODY, tokenizer="whitespace").switched(tokenizer="rouge-score").stem is True
    unstemmed = resolve(SuiteSettings(tokenizer="rouge-score"), NOBODY)
    assert unstemmed.switched(tokenizer="whitespace").switched(tokenizer="rouge-score").stem is False
    assert resolve(suite, NOBODY, stem=False).switched(tokenizer="whitespace").switched(tokenizer="rouge-score").stem is False
