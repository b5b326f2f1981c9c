"""mkdocs-simple-hooks: the project's functions the plugin runs on MkDocs events are the
project's hooks as much as `hooks:` files are (dirty-equals' on_page_markdown rewrites its
```py fences). Read, never run, by a source check; run only under --trust-project-code."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url

# The hook moves every link to old.md to new.md, with a function as the replacement (not a
# literal substitution a source check could replay).
REWRITING_HOOK = """\
    import re


    def on_page_markdown(markdown, page, config, files):
        return re.sub(r"old\\.md", lambda match: "new.md", markdown)
    """
PAGES = {"index.md": "# Home\n\n[moved](old.md) and [gone](missing.md)\n", "new.md": "# New\n"}


def _config(target: str) -> str:
    return f"""\
        plugins:
          - mkdocs-simple-hooks:
              hooks:
                on_page_markdown: "{target}"
        """


def test_a_page_a_simple_hook_rewrites_has_its_broken_links_unverified(tmp_path):
    report = check_mkdocs_project(tmp_path, _config("docs_hooks.main:on_page_markdown"), PAGES,
                                  {"docs_hooks/__init__.py": "", "docs_hooks/main.py": REWRITING_HOOK})
    found = worst_status_by_url(report)
    assert found["old.md"] == "unverified"  # the build links new.md, which exists
    moved = next(r for r in report.results if r.link.url == "old.md")
    assert "docs_hooks/main.py (mkdocs-simple-hooks)" in moved.result.detail


def test_a_simple_hook_function_not_named_as_its_event_is_read_as_that_event(tmp_path):
    hook = REWRITING_HOOK.replace("def on_page_markdown", "def fix_links")
    pages = {**PAGES, "other.md": "# Other\n\n[gone](missing.md)\n"}
    report = check_mkdocs_project(tmp_path, _config("hooks:fix_links"), pages, {"hooks.py": hook})
    found = {(r.link.span.path.rsplit("/", 1)[-1], r.link.url): r.result.status.value for r in report.results}
    assert found["index.md", "old.md"] == found["index.md", "missing.md"] == "unverified"  # its pattern matches here
    assert found["other.md", "missing.md"] == "broken"  # and not here (rye: a function run on_post_build only copies a file)


def test_a_simple_hook_function_the_module_imports_is_not_read_so_every_page_is_unverified(tmp_path):
    hook = "from helpers import fix_links\n"
    pages = {**PAGES, "other.md": "# Other\n\n[gone](missing.md)\n"}
    report = check_mkdocs_project(tmp_path, _config("hooks:fix_links"), pages,
                                  {"hooks.py": hook, "helpers.py": REWRITING_HOOK.replace("def on_page_markdown", "def fix_links")})
    assert {r.result.status.value for r in report.results if r.link.url == "missing.md"} == {"unverified"}


def test_a_simple_hook_that_changes_nothing_leaves_the_answer_exact(tmp_path):
    hook = "def on_page_markdown(markdown, page, config, files):\n    return markdown\n"
    report = check_mkdocs_project(tmp_path, _config("hooks:on_page_markdown"), PAGES, {"hooks.py": hook})
    assert worst_status_by_url(report)["old.md"] == "broken"


def test_trusted_the_simple_hook_runs_as_the_build_runs_it(tmp_path):
    # mkdocs-simple-hooks is not installed here: the config still loads (without its plugins)
    # and the function runs as the plugin would call it.
    report = check_mkdocs_project(tmp_path, _config("hooks:on_page_markdown"), PAGES, {"hooks.py": REWRITING_HOOK}, trust=True)
    found = worst_status_by_url(report)
    assert found["new.md"] == "ok"
    assert "old.md" not in found
    assert found["missing.md"] == "broken"


def test_trusted_hooks_run_beside_a_plugin_that_is_not_installed(tmp_path):
    config = """\
        hooks:
          - hooks.py
        plugins:
          - some-plugin-not-installed-anywhere
        """
    report = check_mkdocs_project(tmp_path, config, PAGES, {"hooks.py": REWRITING_HOOK}, trust=True)
    assert worst_status_by_url(report)["new.md"] == "ok"
