"""The HTML report as text: escaping, self-containment, CSP (the browser test runs it)."""

import base64
import hashlib
import re

from lxml import html as lxml_html
from report_sample import HOSTILE_TITLE

from linkfix.model import Report
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
    rows = doc.xpath("//tr[@class='candidate']")
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
    assert doc.xpath("//tr[@class='candidate']/@data-replacement") == ["https://n.test/a#setup", "https://n.test/b"]
    assert "#setup dropped" in doc.xpath("//div[@class='caveat']")[0].text_content()


def test_html_clean_report():
    out = format_html(Report(results=()))
    assert "Nothing to review" in out
