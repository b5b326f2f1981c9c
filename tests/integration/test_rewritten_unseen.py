"""A hook that is not run may decide what is a link: dirty-equals' hook strips fence options
Python-Markdown's fences do not take (```` ```py lint="skip" ````). Rendered without it, that
fence is not one, the next fence's closing line opens a code block, and the links after it are
code. They must not vanish from the report: kept as the CommonMark reading sees them, ok when
their target works, unverified (never broken) when it does not."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url

# Strips the fence options the project's test runner reads, as the project's hook does.
FENCE_HOOK = """\
    import re


    def on_page_markdown(markdown, page, config, files):
        return re.sub(r"^( *``` *py)(.*)", lambda match: match.group(1), markdown, flags=re.M)
    """
CONFIG = """\
    markdown_extensions:
      - pymdownx.superfences
    hooks:
      - hooks.py
    """
SWALLOWING_PAGE = """\
    # Home

    ```py title="Usage" lint="skip"
    print(1)
    ```

    Read [the guide](guide.md#usage) and [the old page](removed.md).

    ```bash
    pip install thing
    ```
    """
PAGES = {"index.md": SWALLOWING_PAGE, "guide.md": "# Guide\n\n## Usage\n"}


def test_links_a_rendering_without_the_hook_swallows_are_still_reported(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, CONFIG, PAGES, {"hooks.py": FENCE_HOOK}))
    assert found["guide.md#usage"] == "ok"  # works whether or not the build makes it a link
    assert found["removed.md"] == "unverified"  # broken only if the hook makes it a link


def test_trusted_the_hook_runs_and_the_broken_link_is_broken(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, CONFIG, PAGES, {"hooks.py": FENCE_HOOK}, trust=True))
    assert found["guide.md#usage"] == "ok"
    assert found["removed.md"] == "broken"


def test_links_the_rendering_shows_are_not_counted_twice(tmp_path):
    page = "# Home\n\n```py\nprint(1)\n```\n\n[a](guide.md) [b](guide.md#usage) [c][ref] <https://example.com/x>\n\n[ref]: removed.md\n"
    report = check_mkdocs_project(tmp_path, CONFIG, {"index.md": page, "guide.md": "# Guide\n\n## Usage\n"}, {"hooks.py": FENCE_HOOK})
    urls = sorted(r.link.url for r in report.results if r.link.span.path.endswith("index.md"))
    assert urls == ["guide.md", "guide.md#usage", "https://example.com/x", "removed.md"]


def test_without_a_rewriting_hook_a_swallowed_link_is_code_as_the_build_renders_it(tmp_path):
    config = CONFIG.replace("hooks:\n      - hooks.py\n", "")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, config, PAGES))
    assert "removed.md" not in found
