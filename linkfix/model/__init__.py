"""Plain data that crosses pipeline stages: extract -> check -> recover -> report/patch.

Everything here is a frozen dataclass (or an enum) so that stages can share objects
without defensive copies and so that tests can compare values directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .. import speedups
from .verdicts import FAILING as FAILING
from .verdicts import AnyReason as AnyReason
from .verdicts import HttpReason as HttpReason
from .verdicts import Reason as Reason
from .verdicts import SchemeReason as SchemeReason
from .verdicts import Status as Status
from .verdicts import parse_reason as parse_reason


class LinkKind(StrEnum):
    """How a link is written in its source."""

    INLINE = "inline"  # markdown [text](url)
    IMAGE = "image"  # markdown ![alt](url)
    REFERENCE = "reference"  # markdown [text][label] + [label]: url (span is the definition's)
    AUTOLINK = "autolink"  # markdown <https://...>
    BARE = "bare"  # a bare URL in markdown prose (linkified)
    HTML = "html"  # an attribute of an HTML element (built site, or raw HTML inside markdown)
    CSS = "css"  # a url() or @import of CSS: a stylesheet file, or a <style> element's text


class Dialect(StrEnum):
    """Which markdown renders a page's links: it decides how their targets are decoded
    (formats/markdown/targets.py)."""

    COMMONMARK = "commonmark"  # plain markdown: GitHub, markdown-it, ...
    PYTHON_MARKDOWN = "python-markdown"  # a page of an MkDocs project


class Scope(StrEnum):
    """Where a resolved link points; decides which checker handles it."""

    INTERNAL = "internal"  # a file of the site / docs tree (maybe with a fragment)
    EXTERNAL = "external"  # http(s) URL on the web
    UNSUPPORTED = "unsupported"  # mailto:, tel:, javascript:, data:, ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """The exact place of a link target in its source file.

    `start`/`end` are offsets into the decoded text (str indices, not bytes):
    `text[start:end]` is the URL exactly as written. `line`/`column` are 1-based and
    point at `start`.
    """

    path: str
    line: int
    column: int
    start: int
    end: int

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as constructor arguments (see make_span): the extraction worker sends every link of
        # the files it parses back pickled, and the dataclass default looks up the fields per object.
        return make_span, (self.path, self.line, self.column, self.start, self.end)


# The `slots` speed trick (linkfix.speedups): Spans and Links are made without their __init__ where
# one is made per link (page extraction, unpickling): a frozen dataclass's __init__ sets each field
# through object.__setattr__, 2.5x the time of setting the slots directly. Every field is set:
# tests/test_model.py checks they are all. With LINKFIX_PLAIN, the dataclass's own __init__.
_new = object.__new__
_SPAN_SLOTS = tuple(getattr(Span, name).__set__ for name in ("path", "line", "column", "start", "end"))


def make_span(path: str, line: int, column: int, start: int, end: int) -> Span:
    """Span(path=path, line=line, ...), made faster (see _SPAN_SLOTS); also how a Span is unpickled."""
    span = _new(Span)
    set_path, set_line, set_column, set_start, set_end = _SPAN_SLOTS
    set_path(span, path)
    set_line(span, line)
    set_column(span, column)
    set_start(span, start)
    set_end(span, end)
    return span


def plain_make_span(path: str, line: int, column: int, start: int, end: int) -> Span:
    """make_span without the trick: the dataclass's own __init__."""
    return Span(path=path, line=line, column=column, start=start, end=end)


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """What recovery and fragment checks need from the page that holds a link."""

    path: str  # source file, as given/walked (relative to the working directory when possible)
    url: str = ""  # the page's own URL: file path in the site, or http(s) URL when crawled
    title: str = ""
    text: str = ""  # visible text, whitespace-collapsed
    ids: frozenset[str] = frozenset()  # fragment targets defined on this page
    base: str = ""  # <base href>, when the page sets one
    # What makes more ids when the site is built ('' if nothing): a source check cannot see
    # them, so a fragment not among `ids` is unverified rather than broken.
    build_ids: str = ""
    # The prefixes every id `build_ids` speaks of starts with, where what makes them says so
    # (empty: any id): a fragment that starts with none of them is broken, as on any page.
    build_ids_below: frozenset[str] = frozenset()
    # What rewrites this page's Markdown or HTML when the site is built, unseen by a source
    # check ('' if nothing: a project hook that is not run): a link written on it that is
    # broken here may work on the built site, so it is unverified rather than broken.
    rewritten_by: str = ""
    # Where in the page's source the rewrite may first change the page (its paragraph's start):
    # an inline link written wholly before it is the page's own (0: anywhere).
    rewritten_after: int = 0
    # Ids the page's source spells (a heading's words, an explicit id) that this rendering did
    # not make because what makes them is not available here (an extension, a slugify), as
    # `id_key`s; and why. A fragment among them is unverified rather than broken.
    unsure_ids: frozenset[str] = frozenset()
    unsure_why: str = ""
    dialect: Dialect = Dialect.COMMONMARK  # which markdown renders the page (its markdown links)

    def rewrites(self, link: Link) -> bool:
        """Whether what rewrites this page when the site is built may change `link`: anything
        written from `rewritten_after` on, in a file the page includes, or a reference link
        (text put in anywhere may define its label again)."""
        return bool(self.rewritten_by) and not (link.span.path == self.path and link.kind is not LinkKind.REFERENCE
                                                and link.span.end <= self.rewritten_after)


def id_key(text: str) -> str:
    """An id or a heading's text reduced to its letters and digits, case folded: the same for
    every slugify (`Trusted locations`, `trusted-locations`, `trusted_locations`)."""
    import unicodedata

    return "".join(char for char in unicodedata.normalize("NFKD", text).casefold() if char.isalnum())


#: `Link.tag` of a MkDocs config's `nav` entry (check/mkdocs_nav.py): reported, never patched (fix/plan.py).
NAV_TAG = "nav"


@dataclass(frozen=True, slots=True, kw_only=True)
class Link:
    url: str  # the target exactly as written (HTML entities decoded for HTML sources)
    kind: LinkKind
    span: Span
    page: Page
    anchor_text: str = ""  # link text, or alt text for images
    context: str = ""  # words around the link in the page text
    tag: str = ""  # HTML element and attribute, e.g. "a[href]", "img[srcset]"
    reference: str = ""  # label of a reference-style link
    # Why this link must not be checked at all ('' for an ordinary link): its target is made of
    # text from more than one file (an include spliced into the page). Reported as unverified.
    unverified: str = ""
    # How a macros template made this target ('' for a target written as is): the template text
    # and the loop items it was rendered from, or why it could not be rendered (mkdocs.plugins.macros).
    # The span holds the template, not this URL: `fix` never edits it.
    template: str = ""

    def __reduce__(self) -> tuple[Any, ...]:  # see Span.__reduce__
        return make_link, (self.url, self.kind, self.span, self.page, self.anchor_text, self.context, self.tag, self.reference, self.unverified,
                       self.template)


_LINK_SLOTS = tuple(getattr(Link, name).__set__ for name in ("url", "kind", "span", "page", "anchor_text", "context", "tag", "reference",
                                                              "unverified", "template"))


def make_link(url: str, kind: LinkKind, span: Span, page: Page, anchor_text: str = "", context: str = "", tag: str = "", reference: str = "",
          unverified: str = "", template: str = "") -> Link:
    """Link(url=url, kind=kind, ...), made faster (see _SPAN_SLOTS); also how a Link is unpickled."""
    link = _new(Link)
    set_url, set_kind, set_span, set_page, set_anchor_text, set_context, set_tag, set_reference, set_unverified, set_template = _LINK_SLOTS
    set_url(link, url)
    set_kind(link, kind)
    set_span(link, span)
    set_page(link, page)
    set_anchor_text(link, anchor_text)
    set_context(link, context)
    set_tag(link, tag)
    set_reference(link, reference)
    set_unverified(link, unverified)
    set_template(link, template)
    return link


def plain_make_link(url: str, kind: LinkKind, span: Span, page: Page, anchor_text: str = "", context: str = "", tag: str = "",
                    reference: str = "", unverified: str = "", template: str = "") -> Link:
    """make_link without the trick: the dataclass's own __init__."""
    return Link(url=url, kind=kind, span=span, page=page, anchor_text=anchor_text, context=context, tag=tag, reference=reference,
                unverified=unverified, template=template)


if not speedups.ON:
    make_span, make_link = plain_make_span, plain_make_link  # the switch chooses once, at import


@dataclass(frozen=True, slots=True, kw_only=True)
class Silenced:
    """Where a source says its links are not to be checked: the lines an ignore comment covers
    (`<!-- linkfix-disable-next-line -->`, markdown-link-check's spellings too), or an element
    carrying an ignore attribute (`data-proofer-ignore`, `data-linkfix-ignore`) and what is
    inside it, which covers characters, not lines."""

    first: int  # 1-based, inclusive
    last: int  # inclusive
    comment: str  # the comment's directive as written, e.g. "linkfix-disable-next-line"; for an element, its start tag's name and attribute
    line: int  # where the comment (or the element) is
    # An element's characters, [start, end) of the source text; -1 for a comment, which covers whole lines.
    start: int = -1
    end: int = -1

    def covers(self, line: int, offset: int) -> bool:
        """Whether a link at `line` and character `offset` of the source is covered."""
        if self.start >= 0:
            return self.start <= offset < self.end
        return self.first <= line <= self.last


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """One extracted source file."""

    page: Page
    links: Sequence[Link]  # a tuple, or a scanned page's links made on demand (formats.html.scanned)
    # What the extraction left out (a per-file limit reached), for the report's errors list.
    warnings: tuple[str, ...] = ()
    silenced: tuple[Silenced, ...] = ()  # lines an ignore comment covers
    # The config's nav entries (check/mkdocs_nav.py): no page of the site, read after the pages.
    is_nav: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Redirect:
    url: str  # where the hop came from
    status: int  # 301, 302, 303, 307, 308 (or 200 for meta refresh)
    location: str  # where it pointed


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """Outcome of checking one resolved target (shared by every occurrence of it)."""

    url: str  # the resolved target that was checked
    status: Status
    reason: AnyReason = Reason.NONE  # short code: "404", "missing-file", "missing-fragment", "dns", "soft-404", ...
    detail: str = ""  # one human sentence
    http_status: int | None = None
    redirects: tuple[Redirect, ...] = ()
    final_url: str = ""  # end of the redirect chain, when there was one
    permanent: bool = False  # every hop of the chain was permanent (301/308)
    checked_at: float = 0.0  # unix time
    from_cache: bool = False


class Method(StrEnum):
    """How a candidate was found (`Candidate.method`); reports and `fix` read it."""

    REDIRECT = "redirect"  # the dead URL's own permanent redirect
    REWRITE = "rewrite"  # a checked URL rewrite (known, or learned from other links of the run)
    SAME_SITE = "same-site"  # the dead page's site: its pages, its search index
    PARENT = "parent"  # the home page or a directory page above the dead one
    SEARCH = "search"  # a web search with the anchor (and expansion terms)
    TITLE = "title"  # a web search with the archived copy's title
    SIGNATURE = "signature"  # a web search with the archived copy's lexical signature
    ARCHIVE = "archive"  # the archived copy itself: a last resort, never applied unasked
    FRAGMENT = "fragment"  # the page is there: the nearest id to a missing #fragment
    GIT_RENAME = "git-rename"  # internal: the file was renamed in git
    REDIRECT_MAP = "redirect-map"  # internal: mkdocs-redirects' redirect_maps sends it there
    NEAR_NAME = "near-name"  # internal: a file of a near name
    NEAR_FRAGMENT = "near-fragment"  # internal: an id of a near name


class Evidence(StrEnum):
    """The keys of `Candidate.evidence` that more than one stage reads or writes."""

    HOLD = "hold"  # why the gate holds the top candidate for review ('' or absent: it does not)
    CHECKED = "checked"  # the candidate was re-checked live through the checker
    FEATURES = "features"  # every similarity feature of the candidate, by name
    SIMILARITY = "similarity"  # the few features a reader is shown
    RULE = "rule"  # the URL rule that made a rewrite
    QUERY = "query"  # the search query that found it
    PROVIDER = "provider"  # the provider that found it first
    FOUND_BY = "found_by"  # how many answers named it
    MATCHED_TITLE = "matched_title"  # the candidate page's title
    COPY_TITLE = "copy_title"  # the archived copy's title
    REDIRECTS_TO = "redirects_to"  # where the candidate itself redirects
    SECTION = "section"  # the heading of the section the dead page became (the URL names its id)
    DATETIME = "datetime"  # the archived capture's time
    IDS = "ids"  # the dead link's #fragment when the candidate page has that id ([] when not)
    FRAGMENT = "fragment"  # the missing #fragment a fragment suggestion replaces
    ID = "id"  # the id it suggests instead
    WORDS = "words"  # how the two ids' words compare
    SAME_DESTINATION = "same_destination"  # internal: leads where the link leads today
    WHY = "why"  # internal: the finder's own words ("renamed in commit ...")
    CLASS = "class"  # internal: the suggestion's class, whose measured confidence it carries
    TARGET = "target"  # internal: the file it leads to, as reports name files


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A proposed replacement for a broken link."""

    url: str
    confidence: float  # calibrated probability that this is the right replacement, in [0, 1]
    method: Method
    score: float = 0.0  # raw ranking score before calibration
    evidence: Mapping[str, Any] = field(default_factory=dict)  # Evidence keys, and the finder's own


@dataclass(frozen=True, slots=True, kw_only=True)
class Archived:
    url: str  # capture URL
    datetime: str  # ISO 8601, UTC
    title: str = ""


class ArchiveState(StrEnum):
    """What became of a broken link's web-archive lookup in a run."""

    FOUND = "found"  # a capture from before the link was written (see LinkResult.archived)
    NO_CAPTURE = "no-capture"  # the archive answered: it has none
    DEFERRED = "deferred"  # not asked, or not answered, in this run (see ArchiveLookup.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveLookup:
    """The archive lookup of a broken link. A deferred one is not "no capture": the archive's
    limits, a 429, a block or a failure kept it from this run; a later run asks again (what was
    found is cached), or `archive_wait` makes a run wait for every lookup."""

    state: ArchiveState
    reason: str = ""  # deferred: rate-limit, retry-after, blocked, error
    detail: str = ""  # one human sentence

    @property
    def deferred(self) -> bool:
        return self.state is ArchiveState.DEFERRED


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkResult:
    """One link occurrence with its resolution, check outcome and suggestions."""

    link: Link
    resolved: str  # absolute URL or site-relative file path (+ #fragment) that was checked
    scope: Scope
    result: CheckResult
    suggestions: tuple[Candidate, ...] = ()
    archived: Archived | None = None
    archive_lookup: ArchiveLookup | None = None  # None: recovery did not need the archive

    @property
    def archive_deferred(self) -> bool:
        return self.archive_lookup is not None and self.archive_lookup.deferred

    @property
    def failing(self) -> bool:
        return self.result.status in FAILING


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Report:
    """A whole run: what every reporter formats and what `linkfix report` reloads.

    Its repr is a one-line summary: asyncio formats the result of a finished task with repr(),
    and a generated repr of 170k links costs seconds and gigabytes.
    """

    results: tuple[LinkResult, ...]
    root: str = ""
    started: str = ""  # ISO 8601
    duration: float = 0.0
    files: int = 0
    errors: tuple[str, ...] = ()  # inputs that could not be read (path: reason)
    # Links checked whose results are not in `results`, by status: a run whose reports list
    # only problems keeps no record of a working internal link (check.gather.ONLY_COUNTED).
    counted: Mapping[Status, int] = field(default_factory=dict)
    excluded_reasons: Mapping[str, int] = field(default_factory=dict)  # why those counted as excluded were (reason -> links)
    # Whose rules resolved the links, for a MkDocs-family project: "Zensical's rules (zensical.toml)".
    rules: str = ""

    def __repr__(self) -> str:
        return f"Report(results=<{self.total} links>, files={self.files}, root={self.root!r})"

    @property
    def total(self) -> int:
        """Every link checked: those in `results` and those only counted."""
        return len(self.results) + sum(self.counted.values())

    @property
    def archive_deferred(self) -> int:
        """Broken links (each dead URL once) whose archive lookup was deferred to a later run."""
        return len({item.resolved.partition("#")[0] for item in self.results if item.archive_deferred})
