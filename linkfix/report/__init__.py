"""Report formats: a registry of `name -> format(report, **options) -> str`.

Each format lives in its own module and registers itself here; `FORMATS` is what the CLI and
config validation offer. A format's module is imported the first time that format is used, so
writing JSON does not load the HTML report's jinja2 or JUnit's ElementTree at every start.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from ..config.model import FORMAT_NAMES
from ..model import Report

Formatter = Callable[[Report], str]
Streamer = Callable[[Report], Iterator[bytes]]  # the file's UTF-8 bytes, piece by piece

F = TypeVar("F")
# A registered function keeps its own signature (the text format's `color=` option).
FormatterT = TypeVar("FormatterT", bound=Formatter)
StreamerT = TypeVar("StreamerT", bound=Streamer)

#: Format name (the config's `FORMAT_NAMES`) -> the module (in this package) that registers it.
MODULES: dict[str, str] = {name: {"json": "json_format"}.get(name, name) for name in FORMAT_NAMES}
#: The formats that list every link, a working one too; the others list the problems and count
#: the rest, so that a run writing only those need not keep every link's result (issue 26).
LISTS_EVERY_LINK = frozenset({"json", "junit"})


class _Registry(Mapping[str, F], Generic[F]):
    """Functions by format name, filled by the format modules as they are imported.

    Looking a name up imports that format's module only; iterating imports every module, so
    that `STREAMERS` lists exactly the formats that registered a streamer.
    """

    def __init__(self, *, every_format: bool) -> None:
        self._functions: dict[str, F] = {}
        # FORMATS holds every name of MODULES (tests check that each module registers it), so
        # it can be listed without importing anything.
        self._every_format = every_format

    def add(self, name: str, function: F) -> None:
        self._functions[name] = function

    def __getitem__(self, name: str) -> F:
        if name not in self._functions and name in MODULES:
            importlib.import_module(f"{__name__}.{MODULES[name]}")
        return self._functions[name]

    def __iter__(self) -> Iterator[str]:
        if self._every_format:
            return iter(MODULES)
        for name in MODULES:
            self.get(name)
        return iter(list(self._functions))

    def __len__(self) -> int:
        return sum(1 for _ in self)


FORMATS: _Registry[Formatter] = _Registry(every_format=True)
# Formats that can also be produced piece by piece, so a large report is written to a file
# without first being built in memory as one string.
STREAMERS: _Registry[Streamer] = _Registry(every_format=False)


def register(name: str) -> Callable[[FormatterT], FormatterT]:
    def add(function: FormatterT) -> FormatterT:
        FORMATS.add(name, function)
        return function

    return add


def register_stream(name: str) -> Callable[[StreamerT], StreamerT]:
    def add(function: StreamerT) -> StreamerT:
        STREAMERS.add(name, function)
        return function

    return add
