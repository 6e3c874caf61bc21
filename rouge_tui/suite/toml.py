"""``suite.toml`` (a suite's settings and field names) and the user's ``config.toml``,
read as data with tomllib and checked against the registries; a bad value names its line."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rouge_tui import importers
from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.files import read_small
from rouge_tui.importers import NATIVE_FORMATS
from rouge_tui.rouge import METRICS, TOKENIZERS
from rouge_tui.rouge.tokenizers import cannot_stem
from rouge_tui.suite.records import Fields

# The band's k, in standard errors or deviations: beyond this, the band holds any mean and
# its edges print as hundreds of digits (k = 1e308 once did).
MAX_K = 100.0
K_RANGE = f"a positive number up to {MAX_K:g}"
BAND_SOURCES = ("auto", "history")  # [band] source: replicate runs, else analytic; or history
__all__ = ["BAND_SOURCES", "K_RANGE", "MAX_K", "SuiteSettings", "UserDefaults", "read_suite_settings", "read_user_defaults"]

_TOML_LIMIT = 1 << 20
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)$")
_TOML_END = re.compile(r"\s*\(at end of document\)$")
_LONG_INTEGER = re.compile(r"[0-9_]{1000,}")  # far past any setting, short of int()'s limit
_HEADER = re.compile(r"""\s*\[\s*["']?([^\]"']+)["']?\s*\]""")


@dataclass(frozen=True)
class SuiteSettings:
    """A suite's settings from suite.toml; ``None``: not set there (the caller's defaults)."""

    name: str | None = None
    format: str | None = None  # the layout's format: native, parquet or an importer's name
    metric: str | None = None
    tokenizer: str | None = None
    stem: bool | None = None
    k: float | None = None
    band_source: str | None = None
    min_delta: float | None = None
    min_support: float | None = None
    fields: Fields = field(default_factory=Fields)
    # The [fields] written in suite.toml, by name: an importer's own defaults give way only to
    # these (its harness's field paths are not the native "id" / "output").
    fields_given: dict[str, str] = field(default_factory=dict, compare=False)
    alarm: tuple[str, ...] | None = None  # [alarm] signals, checked against the registry later
    alarm_where: str | None = field(default=None, compare=False)  # where it is set, for that check
    stem_where: str | None = field(default=None, compare=False)  # where stem is set (file:line)


@dataclass(frozen=True)
class UserDefaults:
    """The user's defaults from config.toml; ``None``: not set there; a SuiteError: set to
    a bad value, an error only where that value is used (a flag or suite.toml may set it)."""

    metric: str | SuiteError | None = None
    tokenizer: str | SuiteError | None = None
    k: float | SuiteError | None = None
    theme: str | SuiteError | None = None


class _Table:
    """One TOML table of a parsed file, checked key by key; errors point at the key's line."""

    def __init__(self, path: Path, lines: list[str], data: dict, name: str | None) -> None:
        self.path, self.lines, self.data, self.name = path, lines, data, name

    def line_of(self, key: str) -> int | None:
        """Best effort: the line setting ``key`` in this table (else the table's own line)."""
        plain = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")
        dotted = re.compile(rf"""\s*["']?{re.escape(f"{self.name}.{key}")}["']?\s*=""")
        table_line = None
        current = None
        for number, text in enumerate(self.lines, 1):
            header = _HEADER.match(text)
            if header:
                current = header.group(1).strip()
                if self.name is None and current.split(".")[0].strip("\"' ") == key:
                    return number  # the key is a table: its header
                table_line = number if current == self.name else table_line
                continue
            if current == self.name and plain.match(text):
                return number
            if current is None and self.name and dotted.match(text):
                return number
        return table_line

    def label(self, key: str) -> str:
        return f"{self.name}.{key}" if self.name else key

    def fail(self, key: str, message: str) -> SuiteError:
        return SuiteError(message, self.path, self.line_of(key))

    def only(self, *known: str) -> None:
        for key in self.data:
            if key not in known:
                raise self.fail(
                    key, f"unknown key {quoted(self.label(key))} (known: {', '.join(known)})"
                )

    def table(self, key: str) -> _Table:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(
                key, f"{key} must be a table ([{key}]), not {type_name(value, 'table')}"
            )
        return _Table(self.path, self.lines, value, key)

    def string(self, key: str, choices: list[str] | None = None) -> str | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if not isinstance(value, str):
            raise self.fail(
                key, f"{self.label(key)} must be a string, not {type_name(value, 'table')}"
            )
        if not value.strip():
            raise self.fail(key, f"{self.label(key)} must not be empty")
        if choices is not None and value not in choices:
            import difflib  # a typo's only: not imported by a suite without one

            close = difflib.get_close_matches(value, choices, n=1)  # a typo's likely fix first
            hint = f" (did you mean {quoted(close[0])}?)" if close else ""
            raise self.fail(
                key,
                f"unknown {self.label(key)} {quoted(value)}{hint}; expected one of {', '.join(choices)}",
            )
        return value

    def number(self, key: str, fits: Callable[[float], bool], wanted: str) -> float | None:
        """A finite number for which ``fits`` holds (``wanted`` says which, in messages)."""
        if key not in self.data:
            return None
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(
                key, f"{self.label(key)} must be a number, not {type_name(value, 'table')}"
            )
        try:  # an integer of 309 digits or more is past every float
            number = float(value)
        except OverflowError:
            raise self.fail(key, f"{self.label(key)} must be {wanted}, got an integer of "
                                 f"{len(str(abs(value)))} digits") from None
        if not (math.isfinite(number) and fits(number)):
            raise self.fail(key, f"{self.label(key)} must be {wanted}, got {value!r}")
        return number


def _parse(path: Path) -> _Table | None:
    """The file's top table; None when there is no file."""
    try:
        raw = read_small(path, _TOML_LIMIT)
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a BOM, as some editors write it
    except UnicodeDecodeError as exc:
        raise SuiteError("not valid UTF-8", path, raw.count(b"\n", 0, exc.start) + 1) from None
    import tomllib  # only where there is a file: not for `score`, nor a suite without one

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        line = int(found.group(1)) if found else None
        if found:
            message = message[: found.start()]
        elif end := _TOML_END.search(message):  # (an array or string never closed) its last line
            line = text.rstrip("\n").count("\n") + 1
            message = message[: end.start()] + " at the end of the file"
        raise SuiteError(f"invalid TOML: {message}", path, line) from None
    except RecursionError:
        raise SuiteError("invalid TOML: nested too deeply", path) from None
    except ValueError:  # int() past sys.get_int_max_str_digits(): tomllib says no line
        long = _LONG_INTEGER.search(text)
        line = text.count("\n", 0, long.start()) + 1 if long else None
        raise SuiteError("invalid TOML: an integer with too many digits", path, line) from None
    return _Table(path, text.split("\n"), data, None)


def read_suite_settings(path: Path) -> SuiteSettings:
    """A suite.toml; no file gives the defaults, anything malformed a SuiteError."""
    top = _parse(Path(path))
    if top is None:
        return SuiteSettings()
    top.only("name", "format", "metric", "tokenizer", "stem", "band", "grounding", "fields", "alarm")
    format = top.string("format")
    if format is not None and format not in NATIVE_FORMATS:
        format = top.string("format", [*NATIVE_FORMATS, *importers.IMPORTERS])
    tokenizer = top.string("tokenizer", list(TOKENIZERS))
    stem = top.data.get("stem")
    if stem is not None and not isinstance(stem, bool):
        raise top.fail("stem", f"stem must be true or false, not {type_name(stem, 'table')}")
    if stem and tokenizer is not None and (why := cannot_stem(tokenizer, "stem = true")):
        raise top.fail("stem", why)
    band = top.table("band")
    band.only("k", "source", "min_delta")
    grounding = top.table("grounding")
    grounding.only("min_support")
    alarm = top.table("alarm")
    alarm.only("signals")
    signals = alarm.data.get("signals")
    if signals is not None and not (isinstance(signals, list) and all(isinstance(s, str) for s in signals)):
        raise alarm.fail("signals", "alarm.signals must be a list of signal names, such as [\"new-figure\"]")
    table = top.table("fields")
    names = ("id", "reference", "references", "output", "source")
    table.only(*names)
    given = {key: table.string(key) for key in names}
    fields = Fields(**{key: value for key, value in given.items() if value is not None})
    # output and reference may share a name: they live in different files.
    for first, second in (
        ("id", "reference"), ("id", "references"), ("id", "output"), ("id", "source"),
        ("reference", "references"), ("reference", "source"), ("references", "source"),
    ):  # fmt: skip
        if getattr(fields, first) == getattr(fields, second):
            raise table.fail(
                second if second in table.data else first,
                f"fields.{first} and fields.{second} name the same field "
                f"{quoted(getattr(fields, first))}",
            )
    if format is not None and format not in NATIVE_FORMATS:
        from rouge_tui.importers.base import parse_path

        for key, dotted in given.items():  # field paths: the native layout takes names whole
            try:
                parse_path(dotted) if dotted is not None else None
            except ValueError as exc:
                raise table.fail(key, f"fields.{key}: {exc}") from None
    return SuiteSettings(
        name=top.string("name"),
        format=format,
        metric=top.string("metric", list(METRICS)),
        tokenizer=tokenizer,
        stem=stem,
        k=band.number("k", lambda k: 0 < k <= MAX_K, K_RANGE),
        band_source=band.string("source", list(BAND_SOURCES)),
        min_delta=band.number("min_delta", lambda d: d >= 0, "a number >= 0"),
        min_support=grounding.number("min_support", lambda s: 0 < s <= 1, "a number in (0, 1]"),
        fields=fields,
        fields_given={key: value for key, value in given.items() if value is not None},
        alarm=None if signals is None else tuple(signals),
        alarm_where=None if signals is None else f"{path}:{alarm.line_of('signals')}",
        stem_where=None if stem is None else f"{path}:{top.line_of('stem')}",
    )


def read_user_defaults(path: Path, themes: Sequence[str] | None = None) -> UserDefaults:
    """The user's config.toml; no file gives no defaults. A file that does not parse, or an
    unknown key, is a SuiteError naming the file and line; a bad value is that SuiteError
    in its place, raised where the value is used (the app shows it rather than guessing
    what was meant). ``themes``: the names a theme may have (the app's; None: any)."""
    top = _parse(Path(path))
    if top is None:
        return UserDefaults()
    top.only("metric", "tokenizer", "k", "theme")

    def held(read: Callable[[], object]) -> object:
        try:
            return read()
        except SuiteError as exc:
            return exc

    return UserDefaults(
        metric=held(lambda: top.string("metric", list(METRICS))),
        tokenizer=held(lambda: top.string("tokenizer", list(TOKENIZERS))),
        k=held(lambda: top.number("k", lambda k: 0 < k <= MAX_K, K_RANGE)),
        theme=held(lambda: top.string("theme", None if themes is None else list(themes))),
    )
