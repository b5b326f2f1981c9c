"""Issue 21: the environment must not change the answer. A MkDocs project checked where only
linkfix is installed (pre-commit's isolated environment, `pipx install linkfix`) gets the same
findings as beside the docs' own packages for the ecosystem's standard extensions; what is still
missing makes only the findings it could change `unverified`, with a reason and a hint.

Each test is a small self-written project checked like `linkfix check --offline mkdocs.yml`."""

from __future__ import annotations

import asyncio
import re
import textwrap
from importlib import metadata
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, pages: dict[str, str], **options) -> Report:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False, **options)))
    for r in report.results:  # every span holds its URL as written
        span = r.link.span
        assert span.start == span.end or Path(span.path).read_text()[span.start : span.end] == r.link.url, r
    return report


def outcomes(report: Report) -> dict[str, str]:
    return {r.link.url: r.result.status.value for r in report.results}


# -- what comes with linkfix ------------------------------------------------------------------

def _requirement_closure(distribution: str) -> set[str]:
    """The distributions `distribution` needs, recursively, extras left out (what pre-commit's
    isolated environment or `pipx install` brings)."""
    def name(text: str) -> str:
        return re.sub(r"[-_.]+", "-", text).lower()

    seen: set[str] = set()
    todo = [distribution]
    while todo:
        current = name(todo.pop())
        if current in seen:
            continue
        seen.add(current)
        try:
            requires = metadata.requires(current) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [re.match(r"[A-Za-z0-9_.-]+", r).group() for r in requires if "extra ==" not in r.replace('"', "'")]
    return seen


def test_pymdown_extensions_come_with_linkfix():
    """superfences, tabbed, details, snippets, magiclink, blocks: what nearly every Material site
    renders with is installed wherever linkfix is, so those pages render as their build does."""
    closure = _requirement_closure("linkfix")
    owners = metadata.packages_distributions()
    assert {re.sub(r"[-_.]+", "-", d).lower() for d in owners["pymdownx"]} & closure


# -- extensions that change what is a link -----------------------------------------------------

def test_mail_addresses_made_links_by_extensions_are_not_files(tmp_path):
    """`<me@example.com>` and magiclink's bare addresses become `mailto:` links: no file is
    named (was: 'no such file: security@example.org'), and, as in the CommonMark reader, mail
    addresses are not checked."""
    report = check(tmp_path, """\
        markdown_extensions:
          - pymdownx.magiclink
        """, {"index.md": """\
        Write to <security@example.org> or to fake.email@email.com,
        or see [the other page](other.md).
        """, "other.md": "# Other\n"})
    assert outcomes(report) == {"other.md": "ok"}


# -- fences as the build reads them --------------------------------------------------------------

def test_a_fence_with_highlight_options_is_a_fence_and_the_headings_after_it_stay(tmp_path):
    """` ```yaml title="..." ` is a fence to superfences when Pygments' options are valid (as in
    the build, and where Pygments is not installed): highlighting without Pygments to save time
    made superfences refuse it, and every heading after it vanished (copier: 'no id')."""
    report = check(tmp_path, """\
        markdown_extensions:
          - attr_list
          - pymdownx.highlight
          - pymdownx.superfences
        """, {"index.md": """\
        # Settings

        ```yaml title="<CONFIG_ROOT>/settings.yml" hl_lines="2" linenums="1"
        defaults:
            user_email: john.doe@acme.com
        ```

        ## Trusted locations

        ```yaml
        trust: [~/templates/]
        ```
        """, "other.md": "See [trusted locations](index.md#trusted-locations).\n"})
    assert outcomes(report) == {"index.md#trusted-locations": "ok"}


def test_a_reference_definition_python_markdown_reads_after_a_paragraph_serves_every_use(tmp_path):
    """Python-Markdown takes `[label]: target` right under a paragraph's line as a definition
    (CommonMark does not): used twice, both uses are the definition's (was: the second one was
    reported as raw HTML at its text, left as written, and broken)."""
    report = check(tmp_path, "", {"guide/blocks.md": """\
        Show a [Tile Grid] at the top, then another [Tile Grid].
        [Tile Grid]: ../grid/index.md
        """, "grid/index.md": "# Grid\n"})
    assert [(r.link.kind.value, r.link.span.line, r.result.status.value) for r in report.results] == [("reference", 2, "ok")] * 2


# -- what only the build makes: unverified, with why and how to check it --------------------------

def test_a_heading_that_is_a_mkdocstrings_directive_makes_ids_at_build_time(tmp_path):
    """mkdocstrings takes `# ::: package` as a `:::` block too (mkdocstrings' own API page):
    a fragment into that page is unverified (was: broken, the heading's text being no id)."""
    report = check(tmp_path, "", {
        "reference/api.md": "---\ntitle: API\n---\n\n# ::: mkdocstrings\n    options:\n        show_submodules: true\n",
        "index.md": "[base](reference/api.md#mkdocstrings.BaseHandler) [plain](plain.md#nope)\n",
        "plain.md": "# Plain\n",
    })
    assert outcomes(report) == {"reference/api.md#mkdocstrings.BaseHandler": "unverified", "plain.md#nope": "broken"}


# -- what is still not installed here: only what it could change is unverified ---------------------

def test_an_extension_not_installed_leaves_unverified_only_the_ids_the_source_spells(tmp_path):
    """A block extension that is not installed (here: one of tabs) leaves its content an indented
    code block: the headings in it are not rendered. A fragment the source spells as a heading
    is unverified (with the package to install); one nothing spells stays broken."""
    report = check(tmp_path, "markdown_extensions:\n  - my_tabs_extension\n", {
        "tabs.md": '# Tabs\n\n=== "Linux"\n\n    ## Deep heading\n\n    Text.\n',
        "index.md": "[deep](tabs.md#deep-heading) [gone](tabs.md#gone-heading)\n",
    })
    assert outcomes(report) == {"tabs.md#deep-heading": "unverified", "tabs.md#gone-heading": "broken"}
    detail = next(r.result.detail for r in report.results if r.link.url == "tabs.md#deep-heading")
    assert "my_tabs_extension" in detail and "additional_dependencies: [my-tabs-extension]" in detail


def test_a_slugify_that_cannot_be_imported_leaves_unverified_only_fragments_a_heading_could_make(tmp_path):
    report = check(tmp_path, "markdown_extensions:\n  - toc:\n      slugify: !!python/name:my_project_slugs.slugify\n", {
        "page.md": "# Page\n\n## Hello World\n",
        "index.md": "[hello](page.md#Hello_World) [gone](page.md#Goodbye_World)\n",
    })
    assert outcomes(report) == {"page.md#Hello_World": "unverified", "page.md#Goodbye_World": "broken"}


def test_what_makes_no_link_and_no_id_is_left_out_without_a_warning(tmp_path, caplog):
    """Material's emoji index and generator, markdown-callouts: not installed alone, and
    nothing a link check sees depends on them (was: one warning each). A custom fence whose
    format is not installed is still said: its content could be Markdown."""
    import logging

    with caplog.at_level(logging.WARNING):
        check(tmp_path, """\
            markdown_extensions:
              - callouts
              - pymdownx.emoji:
                  emoji_index: !!python/name:not_installed_material.twemoji
                  emoji_generator: !!python/name:not_installed_material.to_svg
            """, {"index.md": "NOTE: :smile: see [x](x.md)\n", "x.md": "# X\n"})
    assert "callouts" not in caplog.text and "emoji" not in caplog.text


def test_material_icons_in_a_heading_write_nothing_into_its_id_without_material(tmp_path, monkeypatch):
    """logfire: `## Deep language integration :material-code-braces:` is `#deep-language-integration`
    on the site (the icon is an SVG); with Material's emoji index left out, the shortcode stayed in
    the text and the id (was: broken, alone only). Material is made unimportable here."""
    import sys

    monkeypatch.setitem(sys.modules, "material", None)
    report = check(tmp_path, """\
        markdown_extensions:
          - toc
          - pymdownx.emoji:
              emoji_index: !!python/name:material.extensions.emoji.twemoji
              emoji_generator: !!python/name:material.extensions.emoji.to_svg
        """, {"index.md": "# Home\n\n[a](#deep-language-integration) [b](#here) [c](#not-an-icon-smile) [d](#not-an-icon)\n\n"
                          "## Deep language integration :material-code-braces:\n\n## :octicons-mark-github-16: here\n\n"
                          "## Not an icon :smile:\n"})
    assert outcomes(report) == {"#deep-language-integration": "ok", "#here": "ok", "#not-an-icon-smile": "broken", "#not-an-icon": "ok"}


def test_autorefs_cross_references_in_headings_give_the_heading_its_build_id(tmp_path):
    """pydantic-ai: `##### [`ModelProfile`][pkg.ModelProfile] is now a `TypedDict``: with
    mkdocstrings (and so autorefs), the id comes from the reference's text (was: broken)."""
    report = check(tmp_path, "plugins:\n  - mkdocstrings\n", {
        "changelog.md": "# Changes\n\n##### [`ModelProfile`][pkg.profiles.ModelProfile] is now a `TypedDict`\n\n"
                        "See [`ModelProfile` is now a `TypedDict`](#modelprofile-is-now-a-typeddict) and [gone](#gone).\n"})
    assert outcomes(report) == {"#modelprofile-is-now-a-typeddict": "ok", "#gone": "broken"}


def test_a_macros_extension_is_left_out_in_every_environment(tmp_path, monkeypatch):
    """fastapi's `zensical.extensions.macros` renders each page as a template with the build's
    variables: run without them (where it is installed), it replaced index.md by its error and
    every id with it (2 false alarms beside the docs' packages, none alone)."""
    package = tmp_path / "modules" / "fake_site"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "macros.py").write_text(textwrap.dedent("""\
        from markdown import Extension
        from markdown.preprocessors import Preprocessor

        class Fail(Preprocessor):
            def run(self, lines):
                return ["Macro rendering failed: 'sponsors' is undefined"]

        class MacrosExtension(Extension):
            def extendMarkdown(self, md):
                md.preprocessors.register(Fail(md), "macros", 200)

        def makeExtension(**kwargs):
            return MacrosExtension(**kwargs)
        """))
    monkeypatch.syspath_prepend(str(tmp_path / "modules"))
    report = check(tmp_path / "project", "markdown_extensions:\n  - attr_list\n  - fake_site.macros\n", {
        "index.md": "# FastAPI\n\n{% for sponsor in sponsors %}{{ sponsor.name }}{% endfor %}\n\n## Installation { #installation }\n",
        "async.md": "[install](index.md#installation) [perf](index.md#performance)\n",
    })
    assert outcomes(report) == {"index.md#installation": "ok", "index.md#performance": "unverified"}
