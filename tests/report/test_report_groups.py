"""Findings grouped by target (issue 22): one missing page linked from many places is one group
in text, markdown, HTML and GitHub annotations, with its count, its first places and every place
one click away; JSON and SARIF keep every occurrence."""

from __future__ import annotations

import json

from lxml import html as lxml_html

from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Reason, Report, Scope, Span, Status
from linkfix.report import FORMATS
from linkfix.report.groups import group_results, target_of
from linkfix.report.markdown import PLACES_BUDGET

MISSING = 7  # links to the missing page


def _link(path: str, line: int, url: str, resolved: str, reason: Reason, detail: str, *, suggestions=()) -> LinkResult:
    page = Page(path=path, title="A page")
    link = Link(url=url, kind=LinkKind.INLINE, span=Span(path=path, line=line, column=5, start=line * 40, end=line * 40 + len(url)),
                page=page, anchor_text="the changelog")
    return LinkResult(link=link, resolved=resolved, scope=Scope.INTERNAL, suggestions=tuple(suggestions),
                      result=CheckResult(url=resolved, status=Status.BROKEN, reason=reason, detail=detail))


def _moved(path: str, line: int, url: str, fragment: str = "") -> LinkResult:
    """A link to changelog.md, which became news.md: each page spells the way there its own way."""
    relative = "../" * path.count("/", len("docs/"))
    suggestion = Candidate(url=f"{relative}news.md" + (f"#{fragment}" if fragment else ""), confidence=0.99,
                           method="git-rename", evidence={"why": "renamed", "class": "git-rename", "target": "news.md"})
    return _link(path, line, url, "changelog.md" + (f"#{fragment}" if fragment else ""), Reason.MISSING_FILE,
                 "no such file: changelog.md", suggestions=[suggestion])


def _report() -> Report:
    places = [("docs/a.md", 3, "changelog.md", ""), ("docs/b.md", 9, "changelog.md#v2", "v2"), ("docs/guide/c.md", 4, "../changelog.md", ""),
              ("docs/guide/c.md", 12, "../changelog.md#v1", "v1"), ("docs/a.md", 1, "changelog.md#v1", "v1"),
              ("docs/z.md", 2, "changelog.md", ""), ("docs/y.md", 2, "changelog.md", "")]
    assert len(places) == MISSING
    results = [_moved(path, line, url, fragment) for path, line, url, fragment in places]
    # two missing ids of a page that exists: two targets (the id is what is missing)
    results += [_link("docs/a.md", 20, "api.md#x", "api.md#x", Reason.MISSING_FRAGMENT, "no id 'x' in api.md"),
                _link("docs/b.md", 21, "api.md#x", "api.md#x", Reason.MISSING_FRAGMENT, "no id 'x' in api.md"),
                _link("docs/b.md", 22, "api.md#y", "api.md#y", Reason.MISSING_FRAGMENT, "no id 'y' in api.md")]
    return Report(root="docs", files=6, results=tuple(results))


def test_groups_are_per_target_status_and_reason():
    groups = group_results(_report().results)
    assert [(g.target, g.count) for g in groups] == [("changelog.md", MISSING), ("api.md#x", 2), ("api.md#y", 1)]
    # places in file order; the biggest group first
    assert [(i.link.span.path, i.link.span.line) for i in groups[0].items][:3] == [("docs/a.md", 1), ("docs/a.md", 3), ("docs/b.md", 9)]
    assert target_of(groups[0].items[1]) == "changelog.md"


def test_text_shows_each_target_once_with_its_first_places():
    text = FORMATS["text"](_report())
    assert text.count("BROKEN") == 3
    assert "docs/a.md:1:5  BROKEN  changelog.md#v1  (no such file: changelog.md)" in text
    assert "    and 6 more links to changelog.md:" in text
    assert "      docs/a.md:3:5  changelog.md" in text and "      docs/guide/c.md:12:5  ../changelog.md#v1" in text
    assert "      and 2 more (the JSON and HTML reports list every place)" in text  # 5 shown of 7
    assert "docs/z.md:2:5" not in text
    assert "10 problem links to 3 targets" in text


def test_markdown_has_one_row_per_target_and_every_place_in_a_details_block():
    markdown = FORMATS["markdown"](_report())
    rows = [line for line in markdown.splitlines() if line.startswith("| ❌")]
    assert len(rows) == 3
    assert "<details><summary>and 6 more links</summary>" in rows[0]
    assert all(place in rows[0] for place in ("docs/z.md:2:5", "docs/y.md:2:5", "docs/guide/c.md:4:5"))
    assert "10 problem links to 3 targets" in markdown


def test_markdown_stays_within_a_comment_with_thousands_of_places():
    many = tuple(_moved(f"docs/section-{n // 50}/page-{n}.md", n + 1, "../changelog.md") for n in range(1500))
    markdown = FORMATS["markdown"](Report(files=1500, results=many))
    assert len(markdown) < 65536 and len(markdown) < PLACES_BUDGET + 5000
    assert "more in the full report" in markdown
    assert markdown.count("| ❌") == 1


def test_github_writes_one_annotation_per_target_after_the_summary():
    lines = FORMATS["github"](_report()).splitlines()
    assert lines[0].startswith("::notice title=linkfix::") and "10 problem links to 3 targets, one annotation each" in lines[0]
    errors = [line for line in lines if line.startswith("::error")]
    assert len(errors) == 3
    assert errors[0].startswith("::error file=docs/a.md,line=1,col=5,")
    assert "title=linkfix%3A broken link (7 links to it)" in errors[0]
    assert "%0A7 links to changelog.md; also at docs/a.md:3:5, docs/b.md:9:5, docs/guide/c.md:4:5, docs/guide/c.md:12:5 and 2 more" in errors[0]


def test_github_says_how_many_annotations_github_shows():
    many = tuple(_link("docs/a.md", n + 1, f"p{n}.md", f"p{n}.md", Reason.MISSING_FILE, "no such file") for n in range(12))
    first = FORMATS["github"](Report(files=1, results=many)).splitlines()[0]
    assert "GitHub shows 10 annotations of each level per step" in first


def test_json_and_sarif_keep_every_occurrence():
    report = _report()
    assert len(json.loads(FORMATS["json"](report))["links"]) == 10
    assert len(json.loads(FORMATS["sarif"](report))["runs"][0]["results"]) == 10


def test_html_has_one_card_per_target_and_every_place_in_it():
    doc = lxml_html.fromstring(FORMATS["html"](_report()))
    cards = doc.xpath("//article[contains(@class, 'group')]")
    assert [card.get("data-count") for card in cards] == ["7", "2", "1"]
    changelog = cards[0]
    assert changelog.xpath(".//span[@class='count']")[0].text_content() == "7 links"
    shown = changelog.xpath("./ol[@class='places']/li")
    folded = changelog.xpath("./details[@class='more-places']/ol/li")
    assert (len(shown), len(folded)) == (3, 4)
    assert changelog.xpath("./details[@class='more-places']/summary")[0].text_content() == "all 7 places"
    # one candidate for the card; each place has it, spelled for its own page, with its own #id
    replacements = [json.loads(li.get("data-replacements"))[0] for li in shown + folded]
    assert replacements == ["news.md#v1", "news.md", "news.md#v2", "../news.md", "../news.md#v1", "news.md", "news.md"]
    assert changelog.xpath(".//button[@class='accept']")[0].text_content() == "Accept for 7 links"
    # the summary: by target (the biggest first), by file
    assert [a.text_content() for a in doc.xpath("//section[@class='by-target']//a")] == ["changelog.md", "api.md#x", "api.md#y"]
    files = [(tr.xpath("./td")[0].text_content(), tr.xpath(".//button")[0].get("data-file")) for tr in doc.xpath("//section[@class='by-file']//tr")]
    assert files[:3] == [("3", "docs/a.md"), ("3", "docs/b.md"), ("2", "docs/guide/c.md")]


def _reference_used(times: int, *, also: int = 0) -> Report:
    """`[ref]: missing.md` used `times` times: that many links, all at the definition's place;
    and `also` links to the same page elsewhere."""
    page = Page(path="docs/a.md", title="A")
    span = Span(path="docs/a.md", line=5, column=8, start=55, end=65)
    result = CheckResult(url="missing.md", status=Status.BROKEN, reason=Reason.MISSING_FILE, detail="no such file: missing.md")
    uses = [LinkResult(link=Link(url="missing.md", kind=LinkKind.REFERENCE, span=span, page=page, anchor_text=f"use {n}", reference="ref"),
                       resolved="missing.md", scope=Scope.INTERNAL, result=result) for n in range(times)]
    others = [_link("docs/b.md", n + 1, "a/../missing.md", "missing.md", Reason.MISSING_FILE, "no such file: missing.md") for n in range(also)]
    return Report(root="docs", files=2, results=(*uses, *others))


def test_text_lists_a_reference_definition_used_three_times_once():
    """It listed `docs/a.md:5:8  missing.md` three times: one place, three uses."""
    text = FORMATS["text"](_reference_used(3))
    assert text.count("docs/a.md:5:8") == 1
    assert "    used 3 times: the reference definition [ref]" in text
    assert "more link" not in text


def test_text_counts_the_uses_of_each_place_it_lists():
    text = FORMATS["text"](_reference_used(2, also=1))
    assert text.count("docs/a.md:5:8") == 1
    assert "    and 1 more link to missing.md:" in text and "      docs/b.md:1:5  a/../missing.md" in text


def test_markdown_and_github_list_a_place_once_with_its_uses():
    markdown = FORMATS["markdown"](_reference_used(3, also=1))
    assert markdown.count("docs/a.md:5:8") == 1 and "docs/a.md:5:8 (used 3 times)" in markdown
    github = FORMATS["github"](_reference_used(3, also=1))
    assert "4 links to missing.md; also at docs/b.md:1:5" in github
    assert github.count("docs/a.md:5:8") == 0 and "line=5,col=8" in github
