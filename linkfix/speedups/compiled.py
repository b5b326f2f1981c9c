"""The `compiled` trick (see linkfix.speedups): what Python compiles in every run, kept between
runs as it keeps compiled modules (issue 26). Unlike the store (linkfix.store: inert data, never
executed), this file holds code: Python's own compilations, which the command runs.

A one-page check spent about a third of its CPU compiling things no run changes:
- regular expressions (~360: Python-Markdown's, pymdown-extensions' delimiter processors build
  large ones in every process, markdown-it's, linkfix's own; 0.12 s). `re` compiles in two
  steps: parsing and code generation in Python (the cost), then `_sre.compile` of the code,
  which is quick. The first step's result depends only on the pattern, its flags and the
  interpreter, so it is kept and the second step is all a later run does;
- the methods `dataclasses` writes as source and compiles for each class (~250 functions for
  ~50 classes: 0.06 s); their code objects are kept, keyed by that source.

What is kept, and where:
- one file in linkfix's own `__pycache__`, named by the interpreter (its cache tag,
  `_sre.MAGIC` and version), as the bytecode beside it is: what can write there can change
  linkfix's code already, so reading it trusts nothing new; `_sre.compile` validates the code
  it is given all the same (a bad entry raises, and the run compiles as if there were none);
- it is written where bytecode is (not under `PYTHONDONTWRITEBYTECODE` / `-B`, not where the
  directory cannot be written), once at exit and only when the run compiled something new;
- at most MAX_ENTRIES of each (the first ones seen: a run's own patterns, from a project's
  config, cannot crowd out what every run compiles), and nothing over MAX_SOURCE_LENGTH;
- only what one of the last KEEP_RUNS writing runs used. Some patterns differ from run to run
  (markdown-it-py 4 builds one from a frozenset, whose order follows the per-process string hash
  seed): kept for ever, each run would add its own, and the file grew by ~20 kB a run and was
  rewritten by every one.

Only the `linkfix` command installs it (`linkfix.__main__`); importing linkfix changes nothing,
and with LINKFIX_PLAIN=1 the command does not install it either.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re._compiler's own second step
import atexit
import builtins
import contextlib
import logging
import marshal
import os
import sys
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]  # the two steps re itself runs
from types import CodeType
from typing import Any

log = logging.getLogger(__name__)

MAX_ENTRIES = 4000
MAX_SOURCE_LENGTH = 20_000  # characters (or bytes) of one pattern or method source
# An entry no run used among the last KEEP_RUNS that wrote the file is dropped: enough for a user
# who alternates between a few kinds of run (a hook, a site check, the plugin) to keep them all.
KEEP_RUNS = 20
# The CPython versions whose re._compiler.compile CompiledCache.compile mirrors step by step.
MIRRORED_VERSIONS = ((3, 11), (3, 13))
_DEBUG = 128  # re.DEBUG: prints while compiling, so never served from the file


def cache_file() -> Path:
    tag = sys.implementation.cache_tag or sys.implementation.name
    return Path(__file__).resolve().parent.parent / "__pycache__" / f"compiled.{tag}-{_sre.MAGIC}-{sys.hexversion:x}.marshal"


class CompiledCache:
    """`re._compiler.compile` with its first step (parse, code) read from `path` when kept
    there, and `exec` for `dataclasses` with the code of the methods' source kept there."""

    def __init__(self, path: Path, original: Any = _compiler.compile) -> None:
        self.path = path
        self.original = original  # re._compiler.compile: what serves what is not kept
        self.entries: dict[tuple[Any, int], tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]] = {}
        self.methods: dict[str, CodeType] = {}
        self.added = 0
        # The number of the writing run that last used each entry (this one is `run`), and what this run used.
        self.last_used: dict[Any, int] = {}
        self.run = 1
        self.used: set[Any] = set()
        try:
            kept = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):  # none yet, or unreadable: compiled as usual
            kept = None
        if isinstance(kept, dict) and isinstance(kept.get("patterns"), dict) and isinstance(kept.get("methods"), dict) \
                and isinstance(kept.get("last_used"), dict) and isinstance(kept.get("run"), int):
            self.entries, self.methods = kept["patterns"], kept["methods"]
            self.last_used, self.run = kept["last_used"], kept["run"] + 1

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        if type(pattern) not in (str, bytes) or not isinstance(flags, int) or flags & _DEBUG:  # kept as marshal keeps them
            return self.original(pattern, flags)
        flags = int(flags)  # a RegexFlag is an int to re, not to marshal
        key = (pattern, flags)
        kept = self.entries.get(key)
        if kept is not None:
            self.used.add(key)
            try:
                return _sre.compile(pattern, kept[0], kept[1], kept[2], kept[3], kept[4])
            except Exception:  # a file not made by this interpreter after all: forget it
                self.entries.clear()
                return self.original(pattern, flags)
        parsed = _parser.parse(pattern, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]  # the two steps of re._compiler.compile (3.11 to 3.13)
        groupindex = parsed.state.groupdict
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, dict(groupindex), tuple(indexgroup))
        if len(self.entries) < MAX_ENTRIES and len(pattern) <= MAX_SOURCE_LENGTH:
            self.entries[key] = entry
            self.used.add(key)
            self.added += 1
        return _sre.compile(pattern, *entry)

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """`exec` as `dataclasses` calls it on the source of a class's methods."""
        if type(source) is not str:
            return builtins.exec(source, globals, locals)
        code = self.methods.get(source)
        if code is None:
            # As exec compiles a string: no __future__ flags of this module (dont_inherit).
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if len(self.methods) < MAX_ENTRIES and len(source) <= MAX_SOURCE_LENGTH:
                self.methods[source] = code
                self.added += 1
        self.used.add(source)
        return builtins.exec(code, globals, locals)

    def save(self) -> None:
        """Write the entries when this run added some (atomically: a torn file is never read)."""
        if not self.added or sys.dont_write_bytecode:
            return
        for key in self.used:
            self.last_used[key] = self.run
        oldest = self.run - KEEP_RUNS
        kept = {name: {key: value for key, value in entries.items() if self.last_used.get(key, 0) > oldest}
                for name, entries in (("patterns", self.entries), ("methods", self.methods))}
        last_used = {key: self.last_used[key] for entries in kept.values() for key in entries}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp.write_bytes(marshal.dumps({**kept, "last_used": last_used, "run": self.run}))
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only install: compiled again next time, as without the file
            log.debug("compiled patterns and methods not kept (%s)", exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
        except (KeyboardInterrupt, SystemExit):
            # Stopped while writing at exit (Ctrl-C, a CI job cancelled): the run's work is done and
            # its exit status set; what is lost is a file that only saves the next run some time.
            # No traceback, and no temporary file left beside the bytecode.
            with contextlib.suppress(OSError):
                tmp.unlink()


def install() -> CompiledCache | None:
    """Serve `re`'s and `dataclasses`' compilations from the kept file for the rest of this
    process (and write the new ones at exit). None where `re` is not the one this was written for,
    or where the speed tricks are off (LINKFIX_PLAIN)."""
    from . import ON

    if not ON:
        return None
    if sys.implementation.name != "cpython" or not MIRRORED_VERSIONS[0] <= sys.version_info[:2] <= MIRRORED_VERSIONS[1]:
        return None  # another interpreter's re may compile in other steps: compiled as usual
    if not callable(getattr(_compiler, "compile", None)) or not callable(getattr(_compiler, "_code", None)) \
            or not callable(getattr(_parser, "parse", None)):
        return None
    import dataclasses

    cache = CompiledCache(cache_file(), _compiler.compile)
    _compiler.compile = cache.compile
    # dataclasses calls the builtin by its name: a module global of that name comes first.
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache
