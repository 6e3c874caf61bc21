"""The settings one analysis runs under, resolved once: flags over suite.toml over the user's
config.toml over the defaults, checked against the registries."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from rouge_tui import __version__
from rouge_tui.errors import SuiteError
from rouge_tui.rouge import METRICS, TOKENIZERS, metrics, tokenizers
from rouge_tui.rouge.tokenizers import STEMMERS, cannot_stem
from rouge_tui.suite.toml import K_RANGE, MAX_K

__all__ = ["Settings", "UsageError", "for_suite", "resolve"]


class UsageError(ValueError):
    """A request that cannot be honoured (an unknown name, stemming without a stemmer); the
    CLI's exit status 2."""


@dataclass(frozen=True)
class Settings:
    metric: str = metrics.DEFAULT
    tokenizer: str = tokenizers.DEFAULT
    stem: bool = False
    k: float = 2.0
    band_source: str = "auto"
    min_delta: float = 0.0
    min_support: float = 0.5
    alarm: tuple[str, ...] | None = None  # the signals that may raise the alarm; None: the registry's
    # Stemming as the flags or suite.toml asked for it, whatever the tokenizer: the app's `t`
    # cycle turns it back on at a tokenizer that stems. Not part of what a score depends on.
    stem_asked: bool = field(default=False, compare=False, repr=False)

    @property
    def signature(self) -> str:
        """Metric, tokenizer, stemming and tool version in one string: two figures are
        comparable only when their signatures match."""
        label = TOKENIZERS[self.tokenizer].label
        from rouge_tui.analysis.paired import (
            SEED,  # the paired test's: a rerun gives the same bytes
        )

        return f"{self.metric}|tok:{label}|stem:{'yes' if self.stem else 'no'}|v:{__version__}|seed:{SEED}"

    @property
    def scoring(self) -> str:
        """What a score depends on besides its texts (part of each build's table key)."""
        from rouge_tui.rouge.engine import ENGINE  # numpy comes with it: not for --help

        return f"{self.metric}|tok:{TOKENIZERS[self.tokenizer].label}|stem:{self.stem}|{ENGINE}"

    def switched(self, *, metric: str | None = None, tokenizer: str | None = None) -> Settings:
        """The same settings with another metric or tokenizer (the app's ``m`` and ``t``);
        stemming, as asked for, where the new tokenizer stems."""
        tokenizer = tokenizer or self.tokenizer
        return replace(
            self,
            metric=metric or self.metric,
            tokenizer=tokenizer,
            stem=(self.stem or self.stem_asked) and TOKENIZERS[tokenizer].stems,
        )


def _first(*values):
    """The first of ``values`` given; config.toml's bad value (a SuiteError) raised when it
    is the one used."""
    value = next((v for v in values if v is not None), None)
    if isinstance(value, SuiteError):
        raise value
    return value


def resolve(suite, user, *, metric=None, tokenizer=None, stem=None, k=None) -> Settings:
    """``suite`` is a suite's SuiteSettings and ``user`` the UserDefaults (both from
    rouge_tui.suite); the keyword arguments are the flags (None: not given).

    Stemming asked for by a flag with a tokenizer that does not stem is an error; a suite's
    ``stem = true`` simply does not apply once a flag picks such a tokenizer."""
    defaults = Settings()
    flags_tokenizer = tokenizer
    metric = _first(metric, suite.metric, user.metric, defaults.metric)
    tokenizer = _first(tokenizer, suite.tokenizer, user.tokenizer, defaults.tokenizer)
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    if tokenizer not in TOKENIZERS:
        raise UsageError(
            f"unknown tokenizer {tokenizer!r}; expected one of {', '.join(TOKENIZERS)}"
        )
    stems = TOKENIZERS[tokenizer].stems
    if stem and (why := cannot_stem(tokenizer)):
        raise UsageError(why)
    if stem is None and suite.stem and suite.tokenizer is None and flags_tokenizer is None and not stems:
        # suite.toml's stem = true, with the tokenizer left to config.toml or the default:
        # silently unstemmed scores would not be the suite's.
        where = "config.toml's" if user.tokenizer else "the default"
        place = f"{suite.stem_where}: " if suite.stem_where else ""  # the file and line, where known
        raise UsageError(
            f"{place}suite.toml's stem = true needs a tokenizer that stems ({STEMMERS}), not {where} "
            f"'{tokenizer}': set tokenizer in suite.toml, or pass --tokenizer"
        )
    asked = bool(suite.stem) if stem is None else stem
    if stem is None:
        stem = asked and stems
    k = _first(k, suite.k, user.k, defaults.k)
    if not (math.isfinite(k) and 0 < k <= MAX_K):
        raise UsageError(f"band k must be {K_RANGE}, got {k!r}")
    return Settings(
        metric=metric,
        tokenizer=tokenizer,
        stem=bool(stem),
        k=float(k),
        band_source=_first(suite.band_source, defaults.band_source),
        min_delta=float(_first(suite.min_delta, defaults.min_delta)),
        min_support=float(_first(suite.min_support, defaults.min_support)),
        alarm=None if suite.alarm is None else _alarm(suite.alarm, suite.alarm_where),
        stem_asked=asked,
    )


def _alarm(names: tuple[str, ...], where: str | None) -> tuple[str, ...]:
    """suite.toml's [alarm] signals, checked against the signal registry."""
    from rouge_tui.analysis.signals import SIGNALS

    known = [s.name for s in SIGNALS if s.banded]
    for name in names:
        if name not in known:
            why = " (its rate has no band: it is measured over the history itself)" if name == "volatile" else ""
            raise UsageError(f"{where or 'suite.toml'}: [alarm] signals: unknown signal {name!r}{why}; "
                             f"expected some of {', '.join(known)}")
    return tuple(dict.fromkeys(names))


def for_suite(suite, flags: object = None) -> Settings:
    """`resolve` with the user's config.toml and the flags in ``flags`` (an argparse
    namespace; a missing or None attribute: not given): the one way the report, the review
    and the list of suites settle a suite's settings. A bad config.toml is a SuiteError
    naming its line."""
    from rouge_tui.store.paths import config_dir
    from rouge_tui.suite.toml import read_user_defaults

    user = read_user_defaults(config_dir() / "config.toml")
    given = {name: getattr(flags, name, None) for name in ("metric", "tokenizer", "stem", "k")}
    return resolve(suite, user, **given)
