"""How rouge-tui writes a signed figure (a delta, an interval's ends), in the app and in every
report alike."""

from __future__ import annotations

__all__ = ["interval_text", "signed"]


def signed(value: float, digits: int = 4) -> str:
    """``value`` with its sign in ``digits`` decimals; one too small to show is not written
    as zeros (`-0.000` read as no change at all) but as ``-<0.001`` or ``+<0.001``: its sign
    and its size. Every delta the app and the reports show is written so: one number, one
    spelling (a newcomer read -0.0000 in the report where the app said -<0.0001)."""
    shown = f"{value + 0.0:+.{digits}f}"  # (+ 0.0: a negative zero is zero)
    if value and float(shown) == 0:
        return f"{shown[0]}<{10.0**-digits:.{digits}f}"
    return shown


def interval_text(low: float, high: float, digits: int) -> str:
    """An interval in ``digits`` decimals, each end as `signed` writes it."""
    return f"[{signed(low, digits)}, {signed(high, digits)}]"
