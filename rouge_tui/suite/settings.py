"""``suite.toml``: a suite's optional settings and field names, read as data with tomllib."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rouge_tui.suite.errors import SuiteError, show_id, type_name

__all__ = ["METRICS", "TOKENIZERS", "Fields", "Settings", "read_settings"]

# The names suite.toml may use; kept here so the loader does not depend on the metrics package.
METRICS = ("rouge1", "rouge2", "rougeL", "rougeLsum")
TOKENIZERS = ("whitespace", "rouge-score")


@dataclass(frozen=True)
class Fields:
    """Which record field (JSON key or CSV column) holds each part of an example."""

    id: str = "id"
    reference: str = "reference"
    references: str = "references"
    output: str = "output"


@dataclass(frozen=True)
class Settings:
    """A suite's settings from suite.toml; ``None`` means "not set here, use the next default"."""

    name: str | None = None
    metric: str | None = None
    tokenizer: str | None = None
    stem: bool | None = None
    k: float | None = None
    fields: Fields = Fields()


# Where each accepted key lives: top level, [band] or [fields].
_TOP = ("name", "metric", "tokenizer", "stem", "band", "fields")
_BAND = ("k",)
_FIELDS = ("id", "reference", "references", "output")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)$")


def _toml_type(value: object) -> str:
    """A TOML value's type name for messages (a mapping is a table)."""
    return type_name(value, "table")


class _Reader:
    """Validates one parsed suite.toml, pointing at the key's line where it can find it."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.split("\n")

    def line_of(self, table: str | None, key: str) -> int | None:
        """Best effort: the first line assigning ``key`` (or ``table.key``), for messages."""
        names = [re.escape(key)] + ([re.escape(f"{table}.{key}")] if table else [])
        pattern = re.compile(r"""^\s*["']?(?:""" + "|".join(names) + r""")["']?\s*=""")
        for number, line in enumerate(self.lines, 1):
            if pattern.match(line):
                return number
        return None

    def fail(self, table: str | None, key: str, message: str) -> SuiteError:
        return SuiteError(message, self.path, self.line_of(table, key))

    def table(self, data: dict, table: str | None, allowed: tuple[str, ...]) -> None:
        for key in data:
            if key not in allowed:
                where = f"{table}.{key}" if table else key
                raise SuiteError(
                    f"unknown key {show_id(where)} (known: {', '.join(allowed)})",
                    self.path,
                    self.line_of(table, key),
                )

    def string(
        self, data: dict, table: str | None, key: str, choices: tuple[str, ...] = ()
    ) -> str | None:
        if key not in data:
            return None
        value = data[key]
        label = f"{table}.{key}" if table else key
        if not isinstance(value, str):
            raise self.fail(table, key, f"{label} must be a string, not {_toml_type(value)}")
        if not value.strip():
            raise self.fail(table, key, f"{label} must not be empty")
        if choices and value not in choices:
            raise self.fail(
                table,
                key,
                f"unknown {label} {show_id(value)}; expected one of {', '.join(choices)}",
            )
        return value


def read_settings(path: Path) -> Settings:
    """Read a suite.toml; a missing file gives the defaults, anything malformed a SuiteError."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except IsADirectoryError:
        raise SuiteError("is a directory, expected a TOML file", path) from None
    except OSError as exc:
        raise SuiteError(f"cannot read: {exc.strerror or exc}", path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SuiteError("not valid UTF-8", path, line) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        line = int(found.group(1)) if found else None
        if found:
            message = message[: found.start()]
        raise SuiteError(f"invalid TOML: {message}", path, line) from None

    reader = _Reader(path, text)
    reader.table(data, None, _TOP)
    name = reader.string(data, None, "name")
    metric = reader.string(data, None, "metric", METRICS)
    tokenizer = reader.string(data, None, "tokenizer", TOKENIZERS)
    stem = data.get("stem")
    if stem is not None and not isinstance(stem, bool):
        raise reader.fail(None, "stem", f"stem must be true or false, not {_toml_type(stem)}")
    if stem and tokenizer == "whitespace":
        raise reader.fail(
            None,
            "stem",
            'stem = true needs tokenizer = "rouge-score" (stemming is part of its tokenizer)',
        )

    k: float | None = None
    band = data.get("band", {})
    if not isinstance(band, dict):
        raise reader.fail(None, "band", f"band must be a table ([band]), not {_toml_type(band)}")
    reader.table(band, "band", _BAND)
    if "k" in band:
        value = band["k"]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise reader.fail("band", "k", f"band.k must be a number, not {_toml_type(value)}")
        if not (math.isfinite(value) and value > 0):
            raise reader.fail("band", "k", f"band.k must be a positive number, got {value!r}")
        k = float(value)

    table = data.get("fields", {})
    if not isinstance(table, dict):
        raise reader.fail(
            None, "fields", f"fields must be a table ([fields]), not {_toml_type(table)}"
        )
    reader.table(table, "fields", _FIELDS)
    names = {key: reader.string(table, "fields", key) for key in _FIELDS}
    fields = Fields(**{key: value for key, value in names.items() if value is not None})
    for first, second in (
        ("id", "reference"),
        ("id", "references"),
        ("id", "output"),
        ("reference", "references"),
    ):
        if getattr(fields, first) == getattr(fields, second):
            raise SuiteError(
                f"fields.{first} and fields.{second} name the same field "
                f"{show_id(getattr(fields, first))}",
                path,
                reader.line_of("fields", second) or reader.line_of("fields", first),
            )
    return Settings(name=name, metric=metric, tokenizer=tokenizer, stem=stem, k=k, fields=fields)
