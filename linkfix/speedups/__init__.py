"""The speed tricks, in one place, and the one switch that turns every one of them off.

    LINKFIX_PLAIN=1 linkfix check ...     # the same run, with the plain code only

Each trick below does what the plain code it stands in for does, only faster: a run gives the
same report with or without them. The plain code is kept, imported and tested: `.ci/run` runs
`PLAIN_SUITE` (the tests of what the tricks touch) a second time with `LINKFIX_PLAIN=1`, so a
trick that stops matching its plain version, or a plain version left to rot, fails CI. Turn them
off to tell whether a wrong result comes from a trick, on an interpreter or a library version a
trick was not written against, or to measure what the tricks buy (`benchmarks/speed.py
--plain`).

The switch is read once, when linkfix is imported: `LINKFIX_PLAIN` set to anything but "", "0",
"false", "no" or "off" (any case) turns the tricks off for the whole process and the extraction
workers it starts (they inherit the environment).

What each trick is, where it lives, and what it bought when it was added (the figures'
measurements are in docs/figures.md, issue 26 and the speed sections after it). All three
together, against all off (`benchmarks/speed.py --plain`, 2026-12-02): a one-page hook run
0.255 -> 0.200 s of CPU, an offline check of 3,000 small markdown pages 3.34 -> 2.21 s, a built
site (python3.11-doc) within 3%.

- `compiled` (`speedups/compiled.py`): the `linkfix` command keeps what Python compiles in every
  run — the code of ~360 regular expressions and of the ~250 methods `dataclasses` writes for
  linkfix's classes — in a file beside linkfix's bytecode, and serves it to later runs. To do so
  it replaces `re._compiler.compile` (mirroring CPython 3.11-3.13's steps) and the module global
  `exec` that `dataclasses` calls, for the command's process only, and it `exec`s code objects
  read back with `marshal` (trusted as linkfix's `.pyc` files are: see docs/security.md). Bought:
  ~0.18 s of CPU on every run (0.12 s patterns, 0.06 s methods), a third of a one-page check's.
  Plain: `re` and `dataclasses` compile as they always do; nothing is read or written.
- `markdown` (`formats/markdown/fastpath.py`, `tracking.parse_link_destination`): hand-written
  rules that give markdown-it's exact tokens for the commonest blocks — a one-line paragraph
  (a block rule tried before all others), plain inline content (prose, simple links, autolinks,
  bare URLs, code spans, escapes) and a link destination without `<`, parentheses or backslashes
  — without markdown-it trying every rule at every character; and, when no page text is wanted,
  prose that can hold no link, tag or id (`fastpath.holds_no_link`) is not parsed at all. Bought, with `slots` (both off
  against both on, 2026-12-02): extracting 3,000 small generated pages 2.03 -> 1.23 s of CPU,
  textual's 293 pages 0.375 -> 0.31 s. Plain: markdown-it's own rules and helpers parse everything.
- `slots` (`model.make_span`, `model.make_link`, `check/targets.internal_target`): Span, Link and
  an internal Target, frozen dataclasses made one per link, made by setting their slots directly
  instead of through the frozen `__init__` (which sets each field with `object.__setattr__`).
  Bought: 5.5 -> 2.2 µs a link, ~0.5 s of the checking process on python3.11-doc's 175k links.
  Plain: the dataclasses' own `__init__`.
"""

from __future__ import annotations

import os

VARIABLE = "LINKFIX_PLAIN"
#: The tricks, by name: where each lives (the docstring above says what it is and buys).
TRICKS = {
    "compiled": "linkfix.speedups.compiled",
    "markdown": "linkfix.formats.markdown.fastpath, linkfix.formats.markdown.tracking.parse_link_destination, "
                "linkfix.formats.markdown.walk._SKIP_PLAIN_TEXT",
    "slots": "linkfix.model.make_span, linkfix.model.make_link, linkfix.check.targets.internal_target",
}
#: The tests `.ci/run` runs a second time with the tricks off: those of everything they touch.
PLAIN_SUITE = ("tests/speedups", "tests/extract", "tests/golden", "tests/test_model.py", "tests/check/test_local.py")
_OFF_WORDS = ("", "0", "false", "no", "off")


def plain_requested(value: str | None) -> bool:
    """Whether the value of LINKFIX_PLAIN asks for the plain code (unset or "0": it does not)."""
    return value is not None and value.strip().lower() not in _OFF_WORDS


#: False when LINKFIX_PLAIN turned the tricks off (read once, at import).
ON: bool = not plain_requested(os.environ.get(VARIABLE))
