"""Report formats: a registry of `name -> format(report, **options) -> str`.

Each format lives in its own module and registers itself here; `FORMATS` is what the CLI and
config validation offer.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..model import Report

Formatter = Callable[[Report], str]
Streamer = Callable[[Report], Iterator[str]]

FORMATS: dict[str, Formatter] = {}
# Formats that can also be produced piece by piece, so a large report is written to a file
# without first being built in memory as one string.
STREAMERS: dict[str, Streamer] = {}


def register(name: str) -> Callable[[Formatter], Formatter]:
    def add(function: Formatter) -> Formatter:
        FORMATS[name] = function
        return function

    return add


def register_stream(name: str) -> Callable[[Streamer], Streamer]:
    def add(function: Streamer) -> Streamer:
        STREAMERS[name] = function
        return function

    return add


# Import the format modules for their registration side effect.
from . import text as _text  # noqa: E402,F401
from . import json_format as _json  # noqa: E402,F401
from . import markdown as _markdown  # noqa: E402,F401
from . import github as _github  # noqa: E402,F401
from . import junit as _junit  # noqa: E402,F401
from . import sarif as _sarif  # noqa: E402,F401
from . import html as _html  # noqa: E402,F401
