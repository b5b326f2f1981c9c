"""The HTML report as text: escaping, self-containment, CSP (the browser test runs it)."""

import base64
import hashlib
import re

from lxml import html as lxml_html
from report_sample import HOSTILE_TITLE

from linkfix.model import Candidate, Report, Scope
from linkfix.report.html import format_html


def test_html_golden(report, golden):
    golden("sample.html", format_html(report))


def test_html_escapes_hostile_text(report):
    out = format_html(report)
    assert "<script>window.__pwned" not in out
    assert "<img src=x" not in out
    doc = lxml_html.fromstring(out)
    titles = [e.text_content() for e in doc.xpath("//dd[@class='page-title']")]
    assert HOSTILE_TITLE in titles


def test_html_is_self_contained(report):
    doc = lxml_html.fromstring(format_html(report))
    assert doc.xpath("//script[@src] | //link[@href] | //img | //iframe | //object | //embed") == []
    # the only hrefs are http(s) links to candidates and archived copies
    hrefs = doc.xpath("//a/@href")
    assert hrefs and all(re.match(r"^https?://", h) for h in hrefs)
    assert not any(h.startswith("javascript") for h in hrefs)


def test_html_csp_pins_its_own_script_and_style(report):
    doc = lxml_html.fromstring(format_html(report))
    csp = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    assert "default-src 'none'" in csp
    scripts = doc.xpath("//script")
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].text.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    style = doc.xpath("//style")[0].text
    assert base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() in csp


def test_html_unsafe_candidates_have_no_controls(report):
    doc = lxml_html.fromstring(format_html(report))
    rows = doc.xpath("//li[@class='candidate']")
    unsafe = [r for r in rows if r.get("data-replacement").startswith("javascript")]
    assert unsafe and all(not r.xpath(".//button") for r in unsafe)
    safe = [r for r in rows if r.get("data-replacement").startswith("https")]
    assert safe and all(len(r.xpath(".//button")) == 2 for r in safe)


def test_html_fragment_caveat_and_replacement(report):
    import dataclasses

    from linkfix.model import Candidate

    item = report.results[0]
    link = dataclasses.replace(item.link, url=item.link.url + "#setup")
    hashed = dataclasses.replace(
        item,
        link=link,
        suggestions=(
            Candidate(url="https://n.test/a", confidence=0.9, method="m", evidence={"ids": ["setup"]}),
            Candidate(url="https://n.test/b", confidence=0.8, method="m", evidence={"ids": []}),
        ),
    )
    doc = lxml_html.fromstring(format_html(Report(results=(hashed,))))
    assert doc.xpath("//li[@class='candidate']/@data-replacement") == ["https://n.test/a#setup", "https://n.test/b"]
    assert "#setup dropped" in doc.xpath("//p[@class='caveat']")[0].text_content()


def test_html_clean_report():
    out = format_html(Report(results=()))
    assert "Nothing to review" in out


def _one(report, *, suggestions=None, title=None, url=None):
    """The sample's first broken link alone, changed as asked."""
    import dataclasses

    item = report.results[0]
    if title is not None:
        item = dataclasses.replace(item, link=dataclasses.replace(item.link, page=dataclasses.replace(item.link.page, title=title)))
    if url is not None:
        item = dataclasses.replace(item, resolved=url, scope=Scope.INTERNAL, archived=None,
                                   link=dataclasses.replace(item.link, url=url))
    if suggestions is not None:
        item = dataclasses.replace(item, suggestions=tuple(suggestions))
    return Report(results=(item,))


def test_html_shows_the_best_few_candidates_and_offers_no_unlikely_one(report):
    from linkfix.report.html import ACCEPT_FLOOR, MAX_SHOWN

    assert ACCEPT_FLOOR == 0.1  # 1 - the auto-fix threshold (0.9)
    many = [Candidate(url=f"https://n.test/{n}", confidence=c, method="search")
            for n, c in enumerate((0.93, 0.5, 0.3, 0.2, 0.09, 0.0, 0.0))]
    doc = lxml_html.fromstring(format_html(_one(report, suggestions=many)))
    shown = doc.xpath("//li[@class='candidate']")
    assert [li.get("data-replacement") for li in shown] == ["https://n.test/0", "https://n.test/1", "https://n.test/2"][:MAX_SHOWN]
    assert all(li.xpath(".//button[@class='accept']") for li in shown)
    assert "4 weaker candidates (confidence below 0.10) left out" in doc.xpath("//p[@class='left-out']")[0].text_content()
    # the best there is, when it is unlikely: shown, without an Accept, with what to do
    doc = lxml_html.fromstring(format_html(_one(report, suggestions=many[5:])))
    (alone,) = doc.xpath("//li[@class='candidate']")
    assert alone.get("data-replacement") == "https://n.test/5" and alone.get("data-unlikely") == ""
    assert not alone.xpath(".//button") and "unlikely (below 0.10)" in alone.text_content()
    assert doc.xpath("//p[@class='todo']")


def test_html_says_what_to_do_when_there_is_no_suggestion(report):
    doc = lxml_html.fromstring(format_html(_one(report, suggestions=[])))
    assert "Link the archived copy (below)" in doc.xpath("//p[@class='todo']")[0].text_content()
    internal = lxml_html.fromstring(format_html(_one(report, suggestions=[], url="gone.md")))
    assert "restore the file" in internal.xpath("//p[@class='todo']")[0].text_content()
    # and none where a candidate can be accepted
    assert not lxml_html.fromstring(format_html(report)).xpath("//article[@id='g0']//p[@class='todo']")


def test_html_has_a_host_filter_only_when_links_leave_the_site(report):
    assert lxml_html.fromstring(format_html(report)).xpath("//select[@id='filter-host']")
    local = lxml_html.fromstring(format_html(_one(report, suggestions=[], url="gone.md")))
    assert not local.xpath("//select[@id='filter-host']") and local.xpath("//select[@id='filter-file']")


def test_html_page_titles_have_no_permalink_sign(report):
    doc = lxml_html.fromstring(format_html(_one(report, title="Configuration¶")))
    assert doc.xpath("//dd[@class='page-title']")[0].text_content() == "Configuration"


def test_html_places_are_root_relative_like_its_summary(report):
    """The places said /tmp/checkout/docs/guide.md:3:14 where the summary said guide.md: the
    file a place names is the one fix edits (data-file), shown as the summary shows it."""
    import dataclasses

    from linkfix.model import Span

    def moved(item):
        span = item.link.span
        return dataclasses.replace(item, link=dataclasses.replace(item.link, span=Span(
            path=f"/tmp/checkout/{span.path}", line=span.line, column=span.column, start=span.start, end=span.end)))

    far = dataclasses.replace(report, root="/tmp/checkout/docs", results=tuple(moved(item) for item in report.results))
    doc = lxml_html.fromstring(format_html(far))
    shown = doc.xpath("//code[@class='where']/text()")
    assert "guide.md:3:14" in shown and not [where for where in shown if where.startswith("/tmp/checkout/docs/")]
    assert "/tmp/checkout/docs/guide.md" in doc.xpath("//li[@class='place']/@data-file")
    assert "guide.md" in doc.xpath("//select[@id='filter-file']/option/text()")


def test_html_folds_a_targets_places_after_the_first_open_places(report, monkeypatch):
    import dataclasses

    from linkfix.report import html

    item = report.results[0]
    places = tuple(dataclasses.replace(item, link=dataclasses.replace(
        item.link, span=dataclasses.replace(item.link.span, path=f"page{n}.md"))) for n in range(5))
    monkeypatch.setattr(html, "OPEN_PLACES", 2)
    doc = lxml_html.fromstring(format_html(Report(results=places)))
    (article,) = doc.xpath("//article[@id='g0']")
    (folded,) = article.xpath(".//details[@class='more-places']//ol[@class='places']")
    assert len(article.xpath("./ol[@class='places']/li")) == 2 and folded.get("start") == "3"
    assert len(folded.xpath("./li")) == 3
