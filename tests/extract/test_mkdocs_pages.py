"""A MkDocs project is checked the way MkDocs renders it: Python-Markdown with the config's
extensions decides what is a link and which ids exist; each link keeps its exact source span.

Each test is a small self-written project, checked through `run_check` like `linkfix check
mkdocs.yml` (offline, no cache)."""

from __future__ import annotations

import asyncio
import logging
import textwrap
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, pages: dict[str, str]) -> Report:
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False)))
    assert_exact_spans(report)
    return report


def found(report: Report) -> dict[str, tuple[str, str]]:
    """url -> (status, reason) of every link."""
    return {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results}


def broken(report: Report) -> list[tuple[str, int, str]]:
    """(page, line, url) of the broken links, in source order."""
    return sorted((r.link.span.path.rsplit("docs/", 1)[-1], r.link.span.line, r.link.url) for r in report.results if r.failing)


def assert_exact_spans(report: Report) -> None:
    """Every span holds its URL as written, and its line and column point at its start."""
    for r in report.results:
        span = r.link.span
        text = Path(span.path).read_text()
        assert span.start == span.end or text[span.start : span.end] == r.link.url, r
        before = text[: span.start]
        assert (span.line, span.column) == (before.count("\n") + 1, span.start - before.rfind("\n")), r


# -- links inside Python-Markdown blocks -----------------------------------------------------

def test_links_in_admonitions_details_and_content_tabs_are_checked(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - admonition
          - pymdownx.details
          - pymdownx.superfences
          - pymdownx.tabbed:
              alternate_style: true
        """, {"index.md": """\
        # Home

        !!! note "Read this"

            See [the missing page](missing.md) first.

        ??? tip

            A [collapsed link](gone.md#part).

        === "Tab one"

            Tab content: [in a tab](nowhere.md)

        === "Tab two"

            ![an image](img/none.png)
        """})
    assert broken(report) == [("index.md", 5, "missing.md"), ("index.md", 9, "gone.md#part"),
                              ("index.md", 13, "nowhere.md"), ("index.md", 17, "img/none.png")]
    anchors = {r.link.url: r.link.anchor_text for r in report.results}
    assert anchors["missing.md"] == "the missing page" and anchors["img/none.png"] == "an image"


def test_links_in_markdown_html_blocks_are_checked(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - md_in_html
        """, {"index.md": """\
        # Home

        <div markdown>
        A [link in a div](missing.md) and <a href="raw.md">raw</a>.
        </div>

        <details markdown>
        <summary>More</summary>
        Hidden [until opened](also-missing.md).
        </details>
        """})
    assert [url for *_, url in broken(report)] == ["missing.md", "raw.md", "also-missing.md"]


def test_what_mkdocs_does_not_render_is_not_a_link(tmp_path):
    # A bare URL is text for Python-Markdown (no magiclink configured); a link inside a code
    # block is code; an unused reference definition renders nothing.
    report = check(tmp_path, "", {"index.md": """\
        # Home

        See https://example.com/bare and [a real one](missing.md).

            [in code](code.md)

        [unused]: unused.md
        """})
    assert set(found(report)) == {"missing.md"}


def test_the_same_target_in_code_and_in_an_admonition_is_placed_on_the_rendered_one(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - admonition
        """, {"index.md": """\
        # Home

        ```markdown
        [example](missing.md)
        ```

        !!! warning

            [real](missing.md)

        Footnote first[^1], then [again](missing.md).

        [^1]: In a footnote: [foot](missing.md)
        """})
    assert [line for _, line, _ in broken(report)] == [9, 11, 13]
    assert [r.link.anchor_text for r in sorted(report.results, key=lambda r: r.link.span.start)] == ["real", "again", "foot"]


def test_links_extensions_make_are_not_the_authors(tmp_path):
    # toc permalinks and footnote (back)references are made by extensions: no link to report.
    report = check(tmp_path, """\
        markdown_extensions:
          - toc:
              permalink: true
          - footnotes
        """, {"index.md": """\
        # Home

        ## Part

        Text[^note] and [part](#part).

        [^note]: The note.
        """})
    assert [(r.link.url, r.link.span.line) for r in report.results] == [("#part", 5)]


# -- ids as the configured extensions make them ------------------------------------------------

def test_attr_list_ids_in_every_form(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - attr_list
        """, {"index.md": """\
        # Home

        ## Braces { #braced }

        ## Quoted { id="q-id" }

        ## Bare { id=b-id }

        A paragraph.
        { #para }

        [1](#braced) [2](#q-id) [3](#b-id) [4](#para) [5](#quoted) [6](#no-such)
        """})
    assert broken(report) == [("index.md", 12, "#no-such"), ("index.md", 12, "#quoted")]


def test_footnote_tab_and_fence_ids(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - footnotes
          - attr_list
          - pymdownx.superfences
          - pymdownx.tabbed:
              alternate_style: true
        """, {"index.md": """\
        # Home

        Text[^1].

        === "One"

            First.

        ```{ .python #the-code }
        x = 1
        ```

        [n](#fn:1) [r](#fnref:1) [t](#__tabbed_1_1) [c](#the-code) [x](#fn:2)

        [^1]: A note.
        """})
    assert broken(report) == [("index.md", 13, "#fn:2")]


def test_tab_ids_from_titles_with_a_configured_slugify(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - pymdownx.superfences
          - pymdownx.tabbed:
              alternate_style: true
              slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}
        """, {"index.md": """\
        # Home

        === "First Tab"

            One.

        [ok](#first-tab) [gone](#__tabbed_1_1)
        """})
    assert [url for *_, url in broken(report)] == ["#__tabbed_1_1"]


def test_toc_separator_slugify_and_permalink_from_the_config(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - toc:
              permalink: "#"
              separator: "_"
              slugify: !!python/name:markdown.extensions.toc.slugify_unicode
        """, {"index.md": """\
        # Home

        ## Two Words

        ## Straße Zwei

        [a](#two_words) [b](#straße_zwei) [c](#two-words)
        """})
    assert [url for *_, url in broken(report)] == ["#two-words"]
    assert len(report.results) == 3  # the permalinks are not links of the page


def test_a_fragment_into_another_page_uses_that_pages_rendered_ids(tmp_path):
    report = check(tmp_path, """\
        markdown_extensions:
          - admonition
          - attr_list
        """, {"index.md": "[a](guide.md#inside-a-note) [b](guide.md#custom) [c](guide.md#nope)\n",
              "guide.md": """\
        # Guide

        !!! note

            ## Inside a note

        Para.
        { #custom }
        """})
    # `## Inside a note` is a heading only when the admonition is rendered: its id is `inside-a-note`
    assert broken(report) == [("index.md", 1, "guide.md#nope")]


# -- what only the build knows: unverified, never broken ---------------------------------------

def test_fragments_into_pages_with_build_time_blocks_are_unverified(tmp_path):
    report = check(tmp_path, "", {
        "api.md": """\
        # API

        ::: pkg.mod
            options:
              show_root_heading: true

        See [Thing](#pkg.mod.Thing).
        """,
        "cli.md": "# CLI\n\n::: mkdocs-click\n    :module: tool.cli\n    :command: main\n",
        "index.md": "[a](api.md#pkg.mod.other) [b](cli.md#tool-run) [c](plain.md#nope) [d](api.md)\n",
        "plain.md": "# Plain\n",
    })
    got = found(report)
    assert got["#pkg.mod.Thing"] == ("unverified", "build-time-id")
    assert got["api.md#pkg.mod.other"] == ("unverified", "build-time-id")
    assert got["cli.md#tool-run"] == ("unverified", "build-time-id")
    assert got["plain.md#nope"] == ("broken", "missing-fragment")
    assert got["api.md"] == ("ok", "")
    detail = next(r.result.detail for r in report.results if r.link.url == "cli.md#tool-run")
    assert "`:::` blocks make ids only when the site is built" in detail


def test_template_targets_are_unverified_when_macros_are_configured(tmp_path):
    page = {"index.md": """\
        # People

        {% for user in people %}<a href={{ user.url }}>{{ user.name }}</a>{% endfor %}

        [macro link]({{ config.repo_url }}) and [a real one](missing.md)
        """}
    report = check(tmp_path, "plugins:\n  - macros\n", page)
    got = found(report)
    # (an unquoted attribute value would end at the space, but the macros plugin fills the template
    # in before any browser reads the page: the target is the whole expression; issue 44.8)
    assert {url: got[url] for url in got if "{{" in url} == {"{{ user.url }}": ("unverified", "template"),
                                                               "{{ config.repo_url }}": ("unverified", "template")}
    assert broken(report) == [("index.md", 5, "missing.md")]


def test_template_text_is_not_unverified_without_macros(tmp_path):
    report = check(tmp_path, "", {"index.md": "<a href={{url}}>x</a>\n"})
    assert found(report) == {"{{url}}": ("broken", "missing-file")}


# -- what cannot be loaded -------------------------------------------------------------------

def test_an_extension_that_is_not_installed_is_left_out_with_one_warning(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    report = check(tmp_path, """\
        markdown_extensions:
          - admonition
          - no_such_extension_here
          - pymdownx.superfences:
              custom_fences:
                - name: diagram
                  class: diagram
                  format: !!python/name:no_such_module.fence_format
        """, {"index.md": "# A\n\n!!! note\n\n    [x](missing.md)\n", "two.md": "# B\n\n!!! note\n\n    [y](gone.md)\n"})
    assert [url for *_, url in broken(report)] == ["missing.md", "gone.md"]
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("no_such_extension_here" in m for m in messages) == 1
    assert any("'no_such_extension_here' is not installed here" in m for m in messages)
    assert sum("no_such_module.fence_format" in m for m in messages) == 1
    assert any("entry 'diagram'" in m for m in messages)


def test_without_python_markdown_the_commonmark_reader_is_used_and_said_once(tmp_path, caplog, monkeypatch):
    import sys

    from linkfix.mkdocs.extensions import setup
    from linkfix.mkdocs.pages import render

    monkeypatch.setitem(sys.modules, "markdown", None)  # `import markdown` fails: not installed
    render.renderer_for.cache_clear()
    setup.announce.cache_clear()
    caplog.set_level(logging.WARNING)
    try:
        report = check(tmp_path, "markdown_extensions:\n  - admonition\n",
                       {"index.md": "# A\n\n[a](missing.md)\n", "two.md": "# B\n\n[b](gone.md)\n"})
    finally:
        render.renderer_for.cache_clear()
        setup.announce.cache_clear()
    assert [url for *_, url in broken(report)] == ["missing.md", "gone.md"]
    assert sum("CommonMark reader" in r.getMessage() for r in caplog.records) == 1


# -- includes --------------------------------------------------------------------------------

def test_a_link_from_an_included_file_is_reported_in_that_file(tmp_path):
    (tmp_path / "includes").mkdir()
    (tmp_path / "includes" / "abbr.md").write_text("Shared text with [a shared link](shared-missing.md).\n")
    report = check(tmp_path, """\
        markdown_extensions:
          - pymdownx.snippets:
              base_path: [includes]
        """, {"index.md": '# Home\n\n--8<-- "abbr.md"\n\n--8<-- "not-there.md"\n'})
    (result,) = report.results
    assert result.link.span.path.endswith("includes/abbr.md")
    assert (result.link.span.line, result.link.span.column) == (1, 34)
    assert (tmp_path / "includes" / "abbr.md").read_text()[result.link.span.start : result.link.span.end] == "shared-missing.md"
    assert result.failing  # checked from the page that renders it: docs/shared-missing.md does not exist


def test_a_link_the_included_file_holds_but_not_as_a_commonmark_link_target_is_found_there_by_its_text(tmp_path):
    # Python-Markdown takes `(far  missing.md)` as a target, the CommonMark reader does not: the
    # included file holds the target's text, and that is where it is reported (as on the page itself).
    (tmp_path / "x.md").write_text("[far](far  missing.md)\n")
    report = check(tmp_path, "markdown_extensions:\n  - pymdownx.snippets\n", {"index.md": '# Home\n\nIntro.\n\n--8<-- "x.md"\n'})
    (result,) = report.results
    assert result.link.url == "far  missing.md" and result.failing  # checked: the whole target is written in x.md
    assert result.link.span.path.endswith("x.md")
    assert (result.link.span.line, result.link.span.column, result.link.span.end - result.link.span.start) == (1, 7, len("far  missing.md"))


def test_an_include_from_outside_the_project_is_not_read(tmp_path, caplog):
    elsewhere = tmp_path / "elsewhere"  # outside the project: not read, not rendered
    elsewhere.mkdir()
    (elsewhere / "x.md").write_text("[far](far-missing.md)\n")
    project = tmp_path / "project"
    project.mkdir()
    report = check(project, f"markdown_extensions:\n  - pymdownx.snippets:\n      base_path: ['{elsewhere}']\n      restrict_base_path: false\n",
                   {"index.md": '# Home\n\nIntro.\n\n--8<-- "x.md"\n'})
    assert report.results == ()
    assert f"base_path '{elsewhere}' is not read: it is outside the project" in caplog.text


# -- the fixer reads a page as the check did --------------------------------------------------

def test_fix_edits_a_link_inside_an_admonition(tmp_path, monkeypatch):
    from linkfix.fix.changes import prepare_changes
    from linkfix.fix.plan import Fix, FixPlan

    report = check(tmp_path, "markdown_extensions:\n  - admonition\n",
                   {"index.md": "# Home\n\n!!! note\n\n    Read [the old page](https://old.example.com/page).\n"})
    (result,) = report.results
    monkeypatch.chdir(tmp_path)
    span = result.link.span
    plan = FixPlan(fixes=(Fix(span=span, url=result.link.url, kind=result.link.kind, new_url="https://new.example.com/page",
                              method="decision"),))
    changes, problems = prepare_changes(plan, base=tmp_path, root=tmp_path)
    assert problems == []
    assert changes[0].after == "# Home\n\n!!! note\n\n    Read [the old page](https://new.example.com/page).\n"


# -- the extraction cache ---------------------------------------------------------------------

def test_the_extraction_key_depends_on_the_markdown_setup(tmp_path):
    from linkfix.extract.documents import extraction_key
    from linkfix.mkdocs.pages.extract import MarkdownSetup

    page = tmp_path / "index.md"
    page.write_text("# A\n")
    plain = MarkdownSetup()
    tabs = MarkdownSetup(extensions=(*plain.extensions, "pymdownx.tabbed"))
    keys = {extraction_key(page, False), extraction_key(page, False, plain), extraction_key(page, False, tabs)}
    assert len(keys) == 3


def test_a_page_title_has_no_permalink_sign(tmp_path):
    # toc's permalink is rendered inside the h1 ("Configuration¶"): the title is the words only
    # (titles are read when the page's text is: for suggestions and reports)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Configuration\n\nSee [a](a.md).\n")
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    for permalink in ("true", '"#"', '"Link to this"'):
        (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nmarkdown_extensions:\n  - toc:\n      permalink: {permalink}\n")
        report = asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False, suggest=True)))
        (title,) = {r.link.page.title for r in report.results}
        assert title == "Configuration", permalink


# -- a page written to be slow (issue 27, finding 6) -----------------------------------------------------
def test_a_page_that_takes_python_markdown_too_long_is_read_as_commonmark_and_said(tmp_path, monkeypatch):
    """`[` 20,000 times took Python-Markdown 76 s. Past its CPU-time bound a page is read with
    the CommonMark reader instead: its links are still checked, the report says why, and the
    other pages are rendered as MkDocs renders them."""
    from linkfix.mkdocs.pages import extract as mkdocs

    monkeypatch.setattr(mkdocs, "RENDER_SECONDS", 0.5)  # the bound, made small so that the test is quick
    monkeypatch.setattr(mkdocs, "RENDER_SECONDS_PER_MB", 0.0)
    report = check(tmp_path, "markdown_extensions: [admonition]\n", {
        "slow.md": "# Slow\n\n[gone](missing.md)\n\n" + "[" * 20000 + "\n",
        "fine.md": "# Fine\n\n!!! note\n\n    [also gone](nowhere.md)\n",
    })
    assert broken(report) == [("fine.md", 5, "nowhere.md"), ("slow.md", 3, "missing.md")]
    (error,) = report.errors
    assert error.endswith("slow.md: Python-Markdown took more than 0.5 s of CPU time to render it (markdown that makes it slow, such "
                          "as thousands of unclosed brackets): read with the CommonMark reader instead"), error


def test_the_cpu_limit_interrupts_work_that_catches_every_exception():
    """An extension that catches Exception around its loop does not hold the bound off."""
    import time

    from linkfix.formats.cpu_limit import CpuLimitExceeded, cpu_limit

    started = time.monotonic()
    interrupted, swallowed = False, 0
    try:
        with cpu_limit(0.2):
            while time.monotonic() - started < 30:  # the test's own bound: a broken limit fails, it does not hang
                try:
                    sum(range(10_000))
                except Exception:  # what a careless extension does
                    swallowed += 1
    except CpuLimitExceeded:
        interrupted = True
    assert interrupted and swallowed == 0


def test_a_fragments_target_page_is_read_for_its_page_alone(tmp_path):
    """A page read only for its ids (a #fragment into a file not among the inputs) is rendered,
    but its links are not put back on its source: the same Page, none of the work for links."""
    from linkfix.extract.documents import extract_document, markdown_setup
    from linkfix.extract.pages import SitePages
    from linkfix.inputs.sources import collect

    (tmp_path / "mkdocs.yml").write_text("site_name: test\nmarkdown_extensions:\n  - admonition\n  - attr_list\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("[a](guide.md#inside-a-note)\n")
    guide = tmp_path / "docs" / "guide.md"
    guide.write_text("# Guide\n\n!!! note\n\n    ## Inside a note\n\n    See [home](index.md).\n\nPara.\n{ #custom }\n")
    project = collect([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False))
    setup = markdown_setup(project)
    full = extract_document(guide, guide.read_text(), want_text=False, markdown=setup)
    alone = extract_document(guide, guide.read_text(), want_text=False, markdown=setup, links=False)
    assert [link.url for link in full.links] == ["index.md"] and alone.links == ()
    assert alone.page == full.page and {"inside-a-note", "custom"} <= full.page.ids
    assert SitePages(project).page("guide.md") == full.page
