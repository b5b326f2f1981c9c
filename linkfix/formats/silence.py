"""Ignore comments: the lines of a source whose links are not to be checked.

The spellings of markdown-link-check, which its users already have in their sources, and the
same with `linkfix-`:

    <!-- linkfix-disable-next-line -->            the line after the comment
    <!-- linkfix-disable-line -->                 the comment's own line
    <!-- linkfix-disable --> ... <!-- linkfix-enable -->   every line between (to the end of
                                                  the file when no enable follows)

Text after the directive (`<!-- linkfix-disable-next-line: moved behind a login -->`) is kept as
the reason. Like markdown-link-check, the comments are found in the text as written (also in a
code block): a page that shows one as an example silences the line after it.

`silenced_in` adds the elements carrying an ignore attribute (`data-proofer-ignore`,
`data-linkfix-ignore`: formats/html/ignored.py), which cover characters rather than lines.
"""

from __future__ import annotations

import re

from ..model import Silenced

_COMMENT = re.compile(
    r"<!--\s*(?P<directive>(?:linkfix|markdown-link-check)-(?:disable-next-line|disable-line|disable|enable))(?=[\s:]|-->)"
    r"[\s:]*(?P<why>(?:(?!-->).)*?)\s*-->",
    re.S,
)
_QUICK = ("linkfix-disable", "markdown-link-check-disable")  # no comment without one of these


def silenced_lines(text: str) -> tuple[Silenced, ...]:
    """The line ranges the ignore comments of `text` cover, in order."""
    if not any(marker in text for marker in _QUICK):
        return ()
    found: list[Silenced] = []
    opened: tuple[int, str] | None = None  # an open disable: its line and its directive as written
    for match in _COMMENT.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        directive = match.group("directive")
        comment = directive + (f": {match.group('why')}" if match.group("why") else "")
        if directive.endswith("-enable"):
            if opened is not None:
                found.append(Silenced(first=opened[0], last=line, comment=opened[1], line=opened[0]))
                opened = None
        elif directive.endswith("-disable"):
            if opened is None:
                opened = (line, comment)
        else:
            end_line = text.count("\n", 0, match.end()) + 1  # a comment may span lines
            first = end_line + 1 if directive.endswith("-next-line") else line
            found.append(Silenced(first=first, last=first if directive.endswith("-next-line") else end_line, comment=comment, line=line))
    if opened is not None:
        found.append(Silenced(first=opened[0], last=text.count("\n") + 1, comment=opened[1], line=opened[0]))
    return tuple(found)


def silenced_in(text: str) -> tuple[Silenced, ...]:
    """What the ignore comments and the elements carrying an ignore attribute of `text` cover."""
    from .html.ignored import ignored_elements  # here: formats.html imports the HTML scanner

    return silenced_lines(text) + ignored_elements(text)


def silencing(silenced: tuple[Silenced, ...], line: int, offset: int) -> Silenced | None:
    """The ignore comment covering `line`, or the element covering character `offset`, if any."""
    return next((s for s in silenced if s.covers(line, offset)), None)
