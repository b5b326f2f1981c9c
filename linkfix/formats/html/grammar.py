"""The HTML tokenizer's grammar, as compiled regexes.

They follow the WHATWG tokenizer where it decides what is a tag (quoted `>`, unquoted values,
comments, raw-text elements, an unterminated tag swallowing the rest of the file), possessive
all the way down so that hostile markup costs one linear scan.
"""

from __future__ import annotations

import re

# HTML whitespace is these five characters only; `\s` would also split on U+00A0 and friends.
_WS = r"\t\n\f\r "  # for patterns
_SPACES = "\t\n\f\r "  # for str methods
_TAG_NAME = rf"[a-zA-Z][^{_WS}/>]*+"
# The value after `=`. An unterminated quote must fail the tag (the spec runs it to EOF).
_VALUE = rf"""(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>))"""
# Where a tag ends: the first `>` outside a quoted value. Possessive all the way down, so a
# tag that never ends costs one linear scan, never backtracking.
_TAG_BODY = rf"""(?:[^>"'=]++|=[{_WS}]*+{_VALUE}|["'])*+"""
# A `style` attribute's value without `url(` in it (a CSS url: the tag must reach Python).
# Only a value right after `style=` (or `style =`) is looked into: `u` is common in values, and
# the look back for `style` is made only after a name ending in `e` (most end otherwise).
_STYLE = "[sS][tT][yY][lL][eE]"
_NOT_STYLE = rf"(?<!{_STYLE})(?<!{_STYLE}[{_WS}])"
_NOT_URL = r"[uU](?![rR][lL]\()"
_VALUE_WITHOUT_URL = rf"""(?:"(?:[^"uU]++|{_NOT_URL})*+"|'(?:[^'uU]++|{_NOT_URL})*+'
    |(?:[^{_WS}>"'uU]|{_NOT_URL})(?:[^{_WS}>uU]++|{_NOT_URL})*+(?![^{_WS}>])|(?=>))"""
# The same as _TAG_BODY, refusing an `id` attribute and a style with `url(`: such tags must
# reach Python even when their element cannot carry a link. `data-id=` also refuses; that
# only costs a needless attribute parse.
_BODY_PLAIN = rf"""(?:[^>"'=iI]++|[iI](?![dD][{_WS}]*+=)|(?<![eE{_WS}])=[{_WS}]*+{_VALUE}|{_NOT_STYLE}=[{_WS}]*+{_VALUE}
    |=[{_WS}]*+{_VALUE_WITHOUT_URL}|["'])*+"""

_COMMENT = r"<!--(?:-?>|.*?--!?>|.*\Z)"
# Inside HTML a CDATA section is a bogus comment ending at the first `>`; like html.parser
# (and XHTML/SVG authors) we run it to `]]>`. Neither reading yields links from inside it.
_CDATA = r"<!\[CDATA\[.*?(?:\]\]>|\Z)"
_BOGUS = r"<[!?][^>]*+(?:>|\Z)"
_BOGUS_END = r"</(?:>|[^a-zA-Z>][^>]*+(?:>|\Z)|\Z)"

# Elements whose tags reach Python in the fast pass: link carriers, raw-text elements (their
# content must be skipped, not scanned) and <template> (its content is not in the document).
_LINK_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "script": ("src",),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "track": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "object": ("data",),
}
_LINK_LABELS = {name: tuple((attr, f"{name}[{attr}]") for attr in attrs) for name, attrs in _LINK_ATTRS.items()}
# Content that is never markup. noscript is parsed as markup: a client without scripts (and
# so this checker) sees what is inside it.
_RAW_TEXT = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "title", "textarea"})
# <picture>: an <img> in it may take its source from the <source srcset> before it.
_SPECIAL = frozenset({*_LINK_ATTRS, *_RAW_TEXT, "base", "meta", "plaintext", "template", "picture"})


def _names_pattern(names: frozenset[str]) -> str:
    """A case-insensitive alternation grouped by first letter, so that sre rejects most tags
    on their first character (measurably faster than `(?i:a|area|...)`). The same pattern in
    every process (longest names first, then alphabetical; not a set's order, which follows the
    string hash seed): speedups.compiled serves it from the file only when it is the same string."""
    by_first: dict[str, list[str]] = {}
    for name in sorted(names, key=lambda name: (-len(name), name)):
        by_first.setdefault(name[0], []).append(name[1:])
    branches = []
    for first, rests in sorted(by_first.items()):
        tails = "|".join(_any_case(rest) for rest in rests if rest)
        optional = "?" if "" in rests else ""
        branches.append(_any_case(first) + (f"(?:{tails}){optional}" if tails else ""))
    return "(?:" + "|".join(branches) + ")"


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" for c in word)


_SPECIAL_NAMES = _names_pattern(_SPECIAL)
_TEMPLATE = _any_case("template")

# Fast pass: everything the loop `(...)*+` eats stays in C; a match ends at the next tag that
# Python must see (special element, or an element with an id), at a tag that never ends, or
# at the end of the text. Start tags come first among the alternatives: they are most common.
_FAST = re.compile(
    rf"""(?:[^<]++
        |<(?!{_SPECIAL_NAMES}[{_WS}/>]){_TAG_NAME}{_BODY_PLAIN}>
        |</(?!{_TEMPLATE}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}
        |<(?![a-zA-Z!?/])
    )*+
    (?:<(?P<name>{_TAG_NAME})(?P<body>{_TAG_BODY})>
      |</(?P<end>{_TEMPLATE})(?=[{_WS}/>]){_TAG_BODY}>
      |(?P<eof><)
      |\Z)""",
    re.S | re.X,
)

# Tags that do not break a word: `foo<b>bar</b>` reads "foobar". Every other tag does.
_INLINE = frozenset(
    ["a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"]
)

# Full pass: a run of text, comments and inline tags comes back as one match, and so does a
# run of other ordinary tags (a word break); the tags that matter to links, ids, the title and
# anchor texts come back one at a time.
_FULL_SPECIAL = _SPECIAL | {"h1"}
_FULL = re.compile(
    rf"""(?P<text>(?:[^<]++
        |<(?={_names_pattern(_INLINE - _FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_BODY_PLAIN}>
        |</(?={_names_pattern(_INLINE - _FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}
        |<(?![a-zA-Z!?/])
    )++)
    |(?P<block>(?:<(?!{_names_pattern(_FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_BODY_PLAIN}>
        |</(?!{_names_pattern(frozenset({"a", "h1", "template"}))}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |[{_WS}]++
    )++)
    |<(?P<name>{_TAG_NAME})(?P<body>{_TAG_BODY})>
    |</(?P<end>{_TAG_NAME}){_TAG_BODY}>
    |(?P<eof><)""",
    re.S | re.X,
)
# The markup inside a run of text (same grammar, so it splits the run the same way).
_MARKUP = re.compile(rf"</?{_TAG_NAME}{_TAG_BODY}>|{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}", re.S)

# Group 1 is the name, group 2 the value as written, quotes included.
_ATTR = re.compile(
    rf"""[{_WS}/]*+([^{_WS}/>][^{_WS}/>=]*+)
    (?:[{_WS}]*+=[{_WS}]*+("[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+)?)?""",
    re.X,
)

# For the fast pass's anchor texts: where an <a> ends.
_ANCHOR_END = re.compile(rf"</?[aA](?=[{_WS}/>])")
_MAX_ANCHOR_SCAN = 4000  # characters after <a ...> searched for its end

_ID_HINT = re.compile(rf"[iI][dD][{_WS}]*=")
_URL_HINT = re.compile(r"[uU][rR][lL]\(")  # a CSS url() in a style attribute
# An attribute a lazy-loading script takes an image's source from (`data-src`, `data-lazy-srcset`).
_LAZY_SOURCE = re.compile(rf"[{_WS}/][dD][aA][tT][aA]-[^{_WS}/>=]*[sS][rR][cC](?:[sS][eE][tT])?[{_WS}]*=")
_MAX_ANCHOR = 500  # characters of element text kept as a link's anchor text
_RAW_TEXT_END = {name: re.compile(rf"</{name}(?=[{_WS}/>])", re.I) for name in _RAW_TEXT}

