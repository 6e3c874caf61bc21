"""Tests for rouge_tui.suite.toml: suite.toml and the user's config.toml, every bad value
named with its file and line, and settings files that are not files refused at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from suite_helpers import error_of, within

from rouge_tui.errors import SuiteError
from rouge_tui.suite.records import Fields
from rouge_tui.suite.toml import (
    SuiteSettings,
    UserDefaults,
    read_suite_settings,
    read_user_defaults,
)


def toml_file(tmp_path: Path, text: str, name: str = "suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_files_give_no_settings(tmp_path: Path) -> None:
    assert read_suite_settings(tmp_path / "suite.toml") == SuiteSettings()
    assert read_user_defaults(tmp_path / "config.toml") == UserDefaults()
    assert (
        SuiteSettings().fields
        == Fields()
        == Fields("id", "reference", "references", "output", "source")
    )


def test_every_suite_setting(tmp_path: Path) -> None:
    path = toml_file(
        tmp_path,
        """
name = "Incident summaries"
format = "parquet"
metric = "rougeLsum"
tokenizer = "rouge-score"
stem = true
[band]
k = 3
source = "history"
min_delta = 0.01
[grounding]
min_support = 1
[fields]
id = "key"
reference = "summary"
output = "summary"
source = "document"
""",
    )
    assert read_suite_settings(path) == SuiteSettings(
        name="Incident summaries",
        format="parquet",
        metric="rougeLsum",
        tokenizer="rouge-score",
        stem=True,
        k=3.0,
        band_source="history",
        min_delta=0.01,
        min_support=1.0,
        fields=Fields(id="key", reference="summary", output="summary", source="document"),
    )


def test_dotted_keys_and_inline_tables(tmp_path: Path) -> None:
    path = toml_file(tmp_path, "band.k = 1.5\ngrounding = { min_support = 0.25 }\n")
    assert read_suite_settings(path) == SuiteSettings(k=1.5, min_support=0.25)


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (
            'name = "x"\nmetric = "rougeX"\n',
            "2: unknown metric 'rougeX' (did you mean 'rougeL'?); expected one of rouge1, rouge2, rougeL, rougeLsum",
        ),
        (
            'tokenizer = "nltk"\n',
            (
                "1: unknown tokenizer 'nltk'; "
                "expected one of whitespace, rouge-score, unicode, character"
            ),
        ),
        ('name = "x"\n\n[band]\nk = "2"\n', "4: band.k must be a number, not string"),
        ("[band]\nk = -1.0\n", "2: band.k must be a positive number up to 100, got -1.0"),
        ("[band]\nk = 0\n", "2: band.k must be a positive number up to 100, got 0"),
        ("[band]\nk = nan\n", "2: band.k must be a positive number up to 100, got nan"),
        ("[band]\nk = inf\n", "2: band.k must be a positive number up to 100, got inf"),
        ("[band]\nk = 1e308\n", "2: band.k must be a positive number up to 100, got 1e+308"),
        ("[band]\nk = true\n", "2: band.k must be a number, not boolean"),
        (
            '[band]\nsource = "bootstrap"\n',
            "2: unknown band.source 'bootstrap'; expected one of auto, history",
        ),
        ("[band]\nmin_delta = -0.5\n", "2: band.min_delta must be a number >= 0, got -0.5"),
        (
            "[grounding]\nmin_support = 0\n",
            "2: grounding.min_support must be a number in (0, 1], got 0",
        ),
        (
            "[grounding]\nmin_support = 1.5\n",
            "2: grounding.min_support must be a number in (0, 1], got 1.5",
        ),
        ("[grounding]\nsupport = 0.5\n", "2: unknown key 'grounding.support' (known: min_support)"),
        ("stem = 1\n", "1: stem must be true or false, not number"),
        ("metric = 3\n", "1: metric must be a string, not number"),
        ('name = ""\n', "1: name must not be empty"),
        (
            'metrc = "rougeL"\n',
            (
                "1: unknown key 'metrc' "
                "(known: name, format, metric, tokenizer, stem, band, grounding, fields, alarm)"
            ),
        ),
        (
            '\nformat = "lm-evl"\n',
            ("2: unknown format 'lm-evl' (did you mean 'lm-eval'?); expected one of native, parquet, "
             "lm-eval, inspect, promptfoo, helm"),
        ),
        ("format = 1\n", "1: format must be a string, not number"),
        (  # another tool's fields are paths (list indexes and all); a native one's, names
            'format = "inspect"\n[fields]\nid = "sample..id"\n',
            "3: fields.id: empty part in the field path 'sample..id'",
        ),
        (
            "[fields]\nidd = 'x'\n",
            "2: unknown key 'fields.idd' (known: id, reference, references, output, source)",
        ),
        (
            'tokenizer = "whitespace"\nstem = true\n',
            "2: stem = true needs a tokenizer that stems (rouge-score), not 'whitespace'",
        ),
        (
            'tokenizer = "unicode"\n\nstem = true\n',
            "3: stem = true needs a tokenizer that stems (rouge-score), not 'unicode'",
        ),
        (
            '[fields]\nid = "x"\noutput = "x"\n',
            "3: fields.id and fields.output name the same field 'x'",
        ),
        (
            '[fields]\nreference = "source"\n',
            "2: fields.reference and fields.source name the same field 'source'",
        ),
        ("band = 2\n", "1: band must be a table ([band]), not number"),
        # [band] source and [fields] source: each message names its own table's line.
        (
            '[band]\nsource = "auto"\n[fields]\nsource = 3\n',
            "4: fields.source must be a string, not number",
        ),
        (
            '[fields]\nsource = "doc"\n[band]\nsource = 3\n',
            "4: band.source must be a string, not number",
        ),
        (
            'name = "\\u001b[2J"\nmetric = "\\u001b]0;x"\n',
            "2: unknown metric '\\x1b]0;x'; expected one of rouge1, rouge2, rougeL, rougeLsum",
        ),
    ],
)
def test_bad_suite_toml(tmp_path: Path, toml: str, expected: str) -> None:
    path = toml_file(tmp_path, toml)
    assert str(error_of(read_suite_settings, path)) == f"{path}:{expected}"


def test_not_utf8_a_directory_and_invalid_toml(tmp_path: Path) -> None:
    path = tmp_path / "suite.toml"
    path.write_bytes(b'name = "ok"\nmetric = "\xff"\n')
    assert str(error_of(read_suite_settings, path)) == f"{path}:2: not valid UTF-8"
    path.write_text('name = "x"\n\nmetric = "rougeL" extra\n')
    error = error_of(read_suite_settings, path)
    assert error.line == 3 and str(error).startswith(f"{path}:3: invalid TOML: ")
    # Never closed: tomllib says "(at end of document)", and the line went unsaid.
    path.write_text('metric = "rouge1"\nk = [1\n')
    assert str(error_of(read_suite_settings, path)) == f"{path}:2: invalid TOML: Unclosed array at the end of the file"
    path.unlink()
    path.mkdir()
    assert str(error_of(read_suite_settings, path)) == f"{path}: is a directory, expected a file"


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    """Some editors start a UTF-8 file with a BOM: it was 'invalid TOML: Invalid statement'
    on line 1 (the JSON Lines files already read past one)."""
    path = tmp_path / "suite.toml"
    path.write_bytes(b'\xef\xbb\xbfname = "x"\nmetric = "rouge2"\n')
    got = read_suite_settings(path)
    assert (got.name, got.metric) == ("x", "rouge2")
    path.write_bytes(b'\xef\xbb\xbfname = "x"\nmetric = "rouge9"\n')
    assert str(error_of(read_suite_settings, path)).startswith(f"{path}:2: ")


def test_a_broken_link_is_an_error_not_missing(tmp_path: Path) -> None:
    (tmp_path / "suite.toml").symlink_to(tmp_path / "elsewhere.toml")
    assert str(error_of(read_suite_settings, tmp_path / "suite.toml")) == (
        f"{tmp_path}/suite.toml: a broken link (its target does not exist)"
    )


def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = toml_file(tmp_path, "name = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert str(error_of(read_suite_settings, path)) == f"{path}: invalid TOML: nested too deeply"


def test_a_huge_settings_file_is_refused(tmp_path: Path) -> None:
    path = toml_file(tmp_path, "# " + "x" * (1 << 20) + "\n")
    assert str(error_of(read_suite_settings, path)) == f"{path}: too big (over 1 MiB)"


@pytest.mark.parametrize("name", ["suite.toml", "config.toml"])
def test_a_fifo_settings_file_is_an_error_not_a_hang(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    os.mkfifo(path)  # nobody writes: a plain open() blocks forever
    read = read_suite_settings if name == "suite.toml" else read_user_defaults
    error = within(5, read, path)
    assert isinstance(error, SuiteError), error
    assert str(error) == f"{path}: not a regular file (a FIFO)"


@pytest.mark.parametrize("name", ["suite.toml", "config.toml"])
def test_a_settings_file_linked_to_dev_zero(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.symlink_to("/dev/zero")  # once ate 6.9 GB in 15 s
    read = read_suite_settings if name == "suite.toml" else read_user_defaults
    error = within(5, read, path)
    assert isinstance(error, SuiteError), error
    assert str(error) == f"{path}: not a regular file (a character device)"


# --------------------------------------------------------------------------- config.toml


def test_user_defaults(tmp_path: Path) -> None:
    path = toml_file(
        tmp_path, 'metric = "rouge1"\ntokenizer = "unicode"\nk = 2\ntheme = "nord"\n', "config.toml"
    )
    assert read_user_defaults(path) == UserDefaults("rouge1", "unicode", 2.0, "nord")


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (
            'theme = "x"\nmetric = "rougeQ"\n',
            "2: unknown metric 'rougeQ' (did you mean 'rougeL'?); expected one of rouge1, rouge2, rougeL, rougeLsum",
        ),
        ("k = -2\n", "1: k must be a positive number up to 100, got -2"),
        ('k = "2"\n', "1: k must be a number, not string"),
        ('theme = ""\n', "1: theme must not be empty"),
        ("[band]\nk = 2\n", "1: unknown key 'band' (known: metric, tokenizer, k, theme)"),
    ],
)
def test_a_bad_config_toml_value_names_config_toml(
    tmp_path: Path, toml: str, expected: str
) -> None:
    path = toml_file(tmp_path, toml, "config.toml")
    assert str(error_of(_used_defaults, path)) == f"{path}:{expected}"


def _used_defaults(path: Path) -> None:
    """config.toml read, then each of its values used as the settings and the app use them."""
    from rouge_tui.analysis.settings import resolve
    from rouge_tui.suite.toml import SuiteSettings

    user = read_user_defaults(path)
    resolve(SuiteSettings(), user)
    if isinstance(user.theme, SuiteError):
        raise user.theme


@pytest.mark.parametrize("toml", ['metric = "rougeQ"\n', 'tokenizer = "bogus"\n', 'k = "x"\n', "k = 0\n"])
def test_a_bad_config_toml_value_is_an_error_only_where_it_is_used(tmp_path: Path, toml: str) -> None:
    """SPEC: bad input is an error only when it is used; a flag or the suite's suite.toml
    that sets the value leaves config.toml's unused."""
    from rouge_tui.analysis.settings import resolve
    from rouge_tui.suite.toml import SuiteSettings

    path = toml_file(tmp_path, toml, "config.toml")
    user = read_user_defaults(path)
    key = toml.split(" ")[0]
    given = {"metric": "rouge1", "tokenizer": "unicode", "k": 3.0}[key]
    assert getattr(resolve(SuiteSettings(**{key: given}), user), key) == given
    assert getattr(resolve(SuiteSettings(), user, **{key: given}), key) == given
    error = error_of(resolve, SuiteSettings(), user)
    assert (error.path, error.line) == (path, 1)


def test_bad_toml_in_config_names_config_toml_and_line(tmp_path: Path) -> None:
    path = toml_file(tmp_path, 'metric = "rougeL"\ntheme = \n', "config.toml")
    error = error_of(read_user_defaults, path)
    assert (error.path, error.line) == (path, 2)
    assert str(error).startswith(f"{path}:2: invalid TOML: ")


@pytest.mark.parametrize("digits", [400, 5_000])
@pytest.mark.parametrize(("name", "read", "toml"), [
    ("suite.toml", read_suite_settings, 'name = "x"\n\n[band]\nk = {}\n'),
    ("suite.toml", read_suite_settings, 'name = "x"\n[band]\nsource = "auto"\nmin_delta = {}\n'),
    ("config.toml", _used_defaults, 'metric = "rougeL"\n\n\nk = {}\n'),
])
def test_an_integer_of_hundreds_or_thousands_of_digits_names_file_and_line(
    tmp_path: Path, name: str, read, toml: str, digits: int
) -> None:
    """Issue 39, 15: 400 digits ended in "internal error (OverflowError ...)", 5,000 in
    Python's int-conversion message; both must name the file and the line."""
    path = toml_file(tmp_path, toml.format("9" * digits), name)
    error = error_of(read, path)
    assert (error.path, error.line) == (path, 4)
    assert str(error).startswith(f"{path}:4: ")
    assert len(str(error)) < 200  # the number itself is not printed
