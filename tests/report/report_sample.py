"""A fixed report covering every status, kind and suggestion shape, with hostile strings."""

from __future__ import annotations

from linkfix.model import (
    Archived,
    Candidate,
    CheckResult,
    Link,
    LinkKind,
    LinkResult,
    Page,
    Redirect,
    Report,
    Scope,
    Span,
    Status,
)

HOSTILE_TITLE = '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">'
HOSTILE_ANCHOR = "click <b>me</b> \x1b[31mred\x1b[0m %0A::error::injected, file=x"


def build_report() -> Report:
    guide = Page(path="docs/guide.md", url="guide/", title="User guide")
    hostile = Page(path="docs/evil page.md", url="evil/", title=HOSTILE_TITLE)
    site = Page(path="site/index.html", url="index.html", title="Home")

    def span(path: str, line: int, column: int, start: int, end: int) -> Span:
        return Span(path=path, line=line, column=column, start=start, end=end)

    return Report(
        root="docs",
        started="2026-11-22T06:00:00+00:00",
        duration=2.5,
        files=3,
        errors=("docs/binary.md: not UTF-8 text",),
        results=(
            LinkResult(
                link=Link(
                    url="https://old.example.org/manual/install.html",
                    kind=LinkKind.INLINE,
                    span=span("docs/guide.md", 3, 14, 40, 83),
                    page=guide,
                    anchor_text="installation manual",
                    context="see the installation manual for details",
                ),
                resolved="https://old.example.org/manual/install.html",
                scope=Scope.EXTERNAL,
                result=CheckResult(
                    url="https://old.example.org/manual/install.html",
                    status=Status.BROKEN,
                    reason="404",
                    detail="Not Found",
                    http_status=404,
                    checked_at=1795000000.0,
                ),
                suggestions=(
                    Candidate(
                        url="https://new.example.org/docs/install/",
                        confidence=0.93,
                        method="same-site",
                        score=4.2,
                        evidence={"title_similarity": 0.97, "query": "installation manual", "ids": ["linux", "mac"]},
                    ),
                    Candidate(url="https://new.example.org/docs/", confidence=0.41, method="search", score=1.3),
                ),
                archived=Archived(
                    url="https://web.archive.org/web/20240101000000id_/https://old.example.org/manual/install.html",
                    datetime="2024-01-01T00:00:00Z",
                    title="Install",
                ),
            ),
            LinkResult(
                link=Link(
                    url="https://example.com/moved",
                    kind=LinkKind.REFERENCE,
                    span=span("docs/guide.md", 9, 8, 200, 225),
                    page=guide,
                    anchor_text="moved page",
                    reference="moved",
                ),
                resolved="https://example.com/moved",
                scope=Scope.EXTERNAL,
                result=CheckResult(
                    url="https://example.com/moved",
                    status=Status.REDIRECTED,
                    http_status=200,
                    redirects=(
                        Redirect(url="https://example.com/moved", status=301, location="https://example.com/new"),
                    ),
                    final_url="https://example.com/new",
                    permanent=True,
                ),
            ),
            LinkResult(
                link=Link(
                    url="other.md#missing",
                    kind=LinkKind.INLINE,
                    span=span("docs/guide.md", 5, 2, 120, 136),
                    page=guide,
                    anchor_text="other",
                ),
                resolved="other.md#missing",
                scope=Scope.INTERNAL,
                result=CheckResult(
                    url="other.md#missing",
                    status=Status.BROKEN,
                    reason="missing-fragment",
                    detail="other.md has no id 'missing'",
                ),
            ),
            LinkResult(
                link=Link(
                    url="javascript:alert(document.domain)",
                    kind=LinkKind.HTML,
                    tag="a[href]",
                    span=span("docs/evil page.md", 2, 10, 30, 63),
                    page=hostile,
                    anchor_text=HOSTILE_ANCHOR,
                    context=HOSTILE_TITLE,
                ),
                resolved="javascript:alert(document.domain)",
                scope=Scope.EXTERNAL,
                result=CheckResult(
                    url="javascript:alert(document.domain)",
                    status=Status.BROKEN,
                    reason="404",
                    detail=HOSTILE_TITLE,
                    http_status=404,
                ),
                suggestions=(
                    Candidate(
                        url="javascript:alert('suggested')",
                        confidence=0.95,
                        method="search",
                        evidence={"title": HOSTILE_TITLE},
                    ),
                    Candidate(
                        url='https://safe.example.net/a?x=1&y="2"',
                        confidence=0.5,
                        method="title",
                        evidence={"title": "Safe, page: 100%"},
                    ),
                ),
            ),
            LinkResult(
                link=Link(
                    url="https://slow.example.net/",
                    kind=LinkKind.BARE,
                    span=span("docs/evil page.md", 7, 1, 90, 115),
                    page=hostile,
                ),
                resolved="https://slow.example.net/",
                scope=Scope.EXTERNAL,
                result=CheckResult(url="https://slow.example.net/", status=Status.TIMEOUT, detail="no answer in 20 s"),
            ),
            LinkResult(
                link=Link(
                    url="https://bot.example.net/",
                    kind=LinkKind.AUTOLINK,
                    span=span("docs/evil page.md", 8, 2, 117, 141),
                    page=hostile,
                ),
                resolved="https://bot.example.net/",
                scope=Scope.EXTERNAL,
                result=CheckResult(url="https://bot.example.net/", status=Status.BLOCKED, reason="403", http_status=403),
            ),
            LinkResult(
                link=Link(
                    url="img/logo.png",
                    kind=LinkKind.HTML,
                    tag="img[src]",
                    span=span("site/index.html", 12, 15, 400, 412),
                    page=site,
                    anchor_text="logo",
                ),
                resolved="img/logo.png",
                scope=Scope.INTERNAL,
                result=CheckResult(url="img/logo.png", status=Status.OK),
            ),
            LinkResult(
                link=Link(
                    url="https://down.example.net/api",
                    kind=LinkKind.INLINE,
                    span=span("site/index.html", 20, 3, 700, 728),
                    page=site,
                ),
                resolved="https://down.example.net/api",
                scope=Scope.EXTERNAL,
                result=CheckResult(url="https://down.example.net/api", status=Status.ERROR, reason="503", http_status=503),
            ),
            LinkResult(
                link=Link(
                    url="mailto:team@example.org",
                    kind=LinkKind.INLINE,
                    span=span("site/index.html", 21, 3, 730, 753),
                    page=site,
                ),
                resolved="mailto:team@example.org",
                scope=Scope.UNSUPPORTED,
                result=CheckResult(url="mailto:team@example.org", status=Status.UNSUPPORTED),
            ),
            LinkResult(
                link=Link(
                    url="http://localhost:8000/",
                    kind=LinkKind.INLINE,
                    span=span("site/index.html", 22, 3, 760, 782),
                    page=site,
                ),
                resolved="http://localhost:8000/",
                scope=Scope.EXTERNAL,
                result=CheckResult(url="http://localhost:8000/", status=Status.EXCLUDED, reason="private"),
            ),
        ),
    )
