"""Why a suggestion is believed, in words, in every report that shows suggestions; a
low-confidence suggestion looks like one."""

from dataclasses import replace

from lxml import html as lxml_html

from linkfix.model import Candidate
from linkfix.report import evidence
from linkfix.report.html import format_html
from linkfix.report.markdown import format_markdown
from linkfix.report.text import format_text

STRONG = Candidate(
    url="https://d.test/reference/install/",
    confidence=0.97,
    method="rewrite",
    evidence={
        "rule": "learned /v1/*.html -> d.test/reference/*/",
        "features": {"title_sim": 1.0, "copy_coverage": 0.93, "content_cos": 0.88, "same_name": 1.0, "name_unique": 1.0, "same_host": 1.0},
        "checked": True,
    },
)
WEAK = Candidate(
    url="https://d.test/plugins/reference/",
    confidence=0.31,
    method="same-site",
    evidence={"features": {"same_name": 1.0, "name_unique": 0.0, "same_host": 1.0, "title_sim": 0.2}, "checked": False},
)


def test_evidence_is_said_in_words_not_feature_names():
    words = evidence.reasons(STRONG)
    assert words[:3] == ["learned rule /v1/*.html -> d.test/reference/*/", "same title as the archived copy", "93% of the archived text"]
    assert "same page name, which no other page of the site has" in words
    assert not any("_" in w for w in words)  # no raw feature names
    assert evidence.reasons(WEAK) == ["same page name (other pages share it)", "not re-checked"]
    https = replace(STRONG, evidence={"rule": "https"})
    assert evidence.reasons(https) == ["the same address over https"]


def test_confidence_levels_and_holds():
    assert evidence.level(STRONG) == "auto" and evidence.level(WEAK) == "low"
    held = replace(STRONG, evidence={**STRONG.evidence, "hold": "https://d.test/x/ has the same evidence (name)"})
    assert evidence.level(held) == "review"
    assert evidence.summary(held).endswith("held for review: https://d.test/x/ has the same evidence (name)")
    assert evidence.summary(WEAK).startswith("0.31, low confidence: same page name")


def test_evidence_of_the_wrong_type_is_ignored_not_shown():
    odd = Candidate(url="https://d.test/", confidence=0.5, method="search",
                    evidence={"features": ["title_sim", 1.0], "rule": 7, "hold": {"x": 1}})
    assert evidence.reasons(odd) == ["found by search"] and evidence.hold(odd) == ""


def test_reports_show_the_words_and_mark_low_confidence(report):
    item = next(i for i in report.results if i.suggestions and i.link.url.startswith("https://old.example.org"))
    changed = replace(item, suggestions=(STRONG, WEAK))
    report = replace(report, results=tuple(changed if i is item else i for i in report.results))
    doc = lxml_html.fromstring(format_html(report))
    rows = {r.get("data-replacement"): r for r in doc.xpath("//li[@class='candidate']")}
    strong, weak = rows[STRONG.url], rows[WEAK.url]
    assert strong.get("data-level") == "auto" and weak.get("data-level") == "low"
    assert "same title as the archived copy" in strong.xpath(".//p[@class='why']")[0].text_content().split(" · ")
    assert "low confidence" in weak.xpath(".//span[@class='level']")[0].text_content()
    assert "93% of the archived text" in format_markdown(report)
    text = format_text(report)
    assert "why: learned rule /v1/*.html -> d.test/reference/*/; same title as the archived copy" in text
    weak_only = replace(report, results=tuple(replace(changed, suggestions=(WEAK,)) if i is changed else i for i in report.results))
    assert "[same-site, confidence 0.31, low confidence]" in format_text(weak_only)


def test_what_the_sites_own_pages_call_a_candidate_is_said():
    renamed = replace(WEAK, evidence={"features": {"in_exact": 1.0, "same_host": 1.0, "title_sim": 0.2}})
    assert evidence.reasons(renamed)[0] == "other pages of the site link to it by the dead link's name"
    assert "other pages of the site" not in " ".join(evidence.reasons(WEAK))


def test_a_dead_page_merged_in_as_a_section_is_said():
    merged = replace(WEAK, evidence={"features": {"heading_sim": 1.0, "same_host": 1.0, "copy_coverage": 0.98}})
    assert evidence.reasons(merged)[:2] == ["the dead page's title heads a section of it", "98% of the archived text"]
    assert "heads a section" not in " ".join(evidence.reasons(replace(WEAK, evidence={"features": {"heading_sim": 0.6}})))


def test_a_suggestion_answered_at_a_section_names_the_section():
    # recovery answered page#id (recover/sections.py) and kept the heading in the evidence
    merged = replace(WEAK, url="https://d.test/setup/#install-git",
                     evidence={"section": "Install Git", "features": {"heading_sim": 1.0, "same_host": 1.0, "copy_coverage": 0.98}})
    assert evidence.reasons(merged)[:2] == ['the dead page became its section "Install Git"', "98% of the archived text"]
