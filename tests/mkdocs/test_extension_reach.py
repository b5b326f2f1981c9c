"""A Markdown extension that is not rendered here makes unverified only what it could change
(issue 44.7): mkdocs-click renders `::: mkdocs-click` blocks only, so a page without one reads
the same without it (extensions/reach.py holds the common extensions' reach); an extension of
unknown reach, or one a hook may add (`on_config`), still reaches every page."""

from __future__ import annotations

import pytest

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url

# `## Options` is spelled in the source (in a code block): no rendering gives it an id.
CODE_PAGE = "# Usage\n\nRun it:\n\n    ## Options\n    tool --help\n"
CLICK_PAGE = "# CLI\n\n::: mkdocs-click\n    :module: tool.cli\n    :command: main\n\n    ## Options\n"


@pytest.fixture(autouse=True)
def _no_mkdocs_click():
    try:
        import mkdocs_click  # noqa: F401
    except ImportError:
        return
    pytest.skip("mkdocs-click is installed here")


def statuses(tmp_path, config: str, files: dict[str, str] | None = None) -> dict[str, str]:
    return worst_status_by_url(check_mkdocs_project(tmp_path, config, {
        "index.md": "# Home\n\n[usage](usage.md#options) [cli](cli.md#options)\n",
        "usage.md": CODE_PAGE, "cli.md": CLICK_PAGE}, files=files))


def test_a_missing_mkdocs_click_reaches_only_the_pages_with_its_block(tmp_path):
    found = statuses(tmp_path, "markdown_extensions:\n  - mkdocs-click\n")
    assert found["usage.md#options"] == "broken"
    assert found["cli.md#options"] == "unverified"


def test_an_extension_of_unknown_reach_still_reaches_every_page(tmp_path):
    found = statuses(tmp_path, "markdown_extensions:\n  - no_such_extension_here\n")
    assert found["usage.md#options"] == "unverified"


def test_a_hook_that_may_add_an_extension_reaches_every_page(tmp_path):
    hook = ("def on_config(config):\n    config.markdown_extensions.append('my_ext')\n    return config\n")
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", files={"hooks.py": hook})
    assert found["usage.md#options"] == "unverified"  # what my_ext renders is unknown here


def test_a_hook_that_sets_other_settings_adds_no_extension(tmp_path):
    hook = ("def on_config(config):\n    config.setdefault('extra', {})['stats'] = 1\n    return config\n")
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", files={"hooks.py": hook})
    assert found["usage.md#options"] == "broken"


@pytest.mark.parametrize("attr_list", [True, False])
def test_a_missing_mkdocs_click_makes_only_ids_under_its_prog_name(tmp_path, attr_list):
    """With attr_list its headings carry the command paths as ids (`tool run` is `#tool-run`): a
    fragment that does not start with the block's `:prog_name:` is one it cannot make. Without
    attr_list the headings are the subcommands' own names: any id."""
    page = "# CLI\n\n::: mkdocs-click\n    :module: tool.cli\n    :command: main\n    :prog_name: tool\n\nEnd.\n"
    config = "markdown_extensions:\n  - mkdocs-click\n" + ("  - attr_list\n" if attr_list else "")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, config, {
        "index.md": "# Home\n\n[run](cli.md#tool-run) [typo](cli.md#toll-run)\n", "cli.md": page}))
    assert found["cli.md#tool-run"] == "unverified"
    assert found["cli.md#toll-run"] == ("broken" if attr_list else "unverified")


def test_a_page_that_includes_a_file_is_reached_by_every_missing_extension(tmp_path):
    """The included text may hold the syntax: a page with `--8<--` is read as reached."""
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "markdown_extensions:\n  - mkdocs-click\n  - pymdownx.snippets\n", {
        "index.md": "# Home\n\n[usage](usage.md#options)\n", "usage.md": CODE_PAGE + "\n--8<-- \"part.md\"\n",
        "part.md": "Part.\n"}))
    assert found["usage.md#options"] == "unverified"


def test_the_detail_names_what_makes_ids_at_build_time(tmp_path):
    """pdm's CLI page is one markdown-exec block: the detail said `its ('markdown-exec', '', '')
    blocks make ids` (a tuple's repr where its name was meant)."""
    report = check_mkdocs_project(tmp_path, "plugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n", {
        "cli.md": '# CLI\n\n```python exec="1"\nprint("## lock")\n```\n', "index.md": "# Home\n\n[lock](cli.md#lock)\n"})
    (detail,) = [r.result.detail for r in report.results if r.link.url == "cli.md#lock"]
    assert "its markdown-exec blocks make ids only when the site is built" in detail
