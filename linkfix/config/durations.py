"""Durations: the one reader of every duration key (`timeout: 10s`, `max_cache_age: 1d`,
`confirm_days: 36h`, `hosts.<host>.request_interval: 500ms`), and how a message says one.

A duration key takes a number in its own unit (seconds; days for `confirm_days`) or a string
with a unit: ms, s, m, h, d, w. Which keys are durations, and in what unit a bare number counts,
is declared once, on their types (`DURATION_UNIT` in `Meta.extra`, see types.py).
"""

from __future__ import annotations

import re

from ..errors import ConfigError

DURATION_UNIT = "duration_unit"  # the Meta.extra key saying a number type is a duration, and its unit
DURATION_PATTERN = r"^\s*(\d+(?:\.\d+)?)\s*(ms|[smhdw]?)\s*$"
UNIT_SECONDS = {"": 1.0, "ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_DURATION = re.compile(DURATION_PATTERN)


def read_duration(text: str | float, unit: str = "s") -> float | None:
    """`text` as a number of `unit`s (s or d): a bare number is already in `unit`; '12h' is
    converted. None when it reads as neither."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    m = _DURATION.match(str(text))
    if not m:
        return None
    seconds = float(m.group(1)) * UNIT_SECONDS[m.group(2) or unit]
    return seconds / UNIT_SECONDS[unit]


def parse_duration(text: str | float, key: str, unit: str = "s") -> float:
    """`read_duration`, or ConfigError naming `key`."""
    amount = read_duration(text, unit)
    if amount is None:
        plain = "a number of days" if unit == "d" else "a number of seconds"
        raise ConfigError(f"{key}: cannot read duration {text!r} (use {plain}, or e.g. 500ms, 10s, 30m, 12h, 2d)")
    return amount


def say_duration(seconds: float) -> str:
    """A duration in the unit a person would say it in: '20 h', '3 d', '40 s'."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{max(seconds, 0):.0f} s"
