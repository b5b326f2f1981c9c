"""Issue 21, project hooks (`hooks:` in mkdocs.yml): the build runs them, a source check does not.

Without the person's trust, a hook is read, never run: the pages it could rewrite (what its
patterns match) have their broken links and missing ids `unverified`, with the hook named and
the way to check them; every other page stays exact. The files its `on_files`/`on_post_build`
may write (the names it spells) are `unverified` too. With the trust (`--trust-project-code`,
the same trust as `mkdocs build`), the hooks run as MkDocs runs them and everything is exact."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check

# The first class: a hook rewrites a custom fence before rendering. Python-Markdown does
# not take "```toml config-example" for a fence: without the hook, the headings after it vanish.
# (its replacement is a function this check does not read: with a constant one, or one its source
# spells, the substitution is made here, tests/mkdocs/test_hook_reach.py)
FENCE_HOOK = '''\
import re
from textwrap import dedent

def example(match):
    return "```toml\\n" + dedent(match.group(1)) + "```"

def on_page_markdown(markdown, page, config, files):
    return re.sub(r"```toml config-example\\n(.*?)```", example, markdown, flags=re.S)
'''

# The second class: a shortcode hook makes a heading with an id out of an HTML comment.
SHORTCODE_HOOK = '''\
import re

def on_page_markdown(markdown, *, page, config, files):
    def replace(match):
        kind, args = match.groups()
        return f"`{args.strip()}` {{ #{args.strip()} }}"
    return re.sub(r"<!-- md:(\\w+)(.*?) -->", replace, markdown, flags=re.I | re.M)
'''

# A hook that writes a file into the site after the build.
SCHEMA_HOOK = '''\
import json, os

def on_post_build(config, **kwargs):
    with open(os.path.join(config.site_dir, "schema.json"), "w") as file:
        json.dump({}, file)
'''

# copier's hook: a link the page spells one way is rewritten to the page's real name.
LINK_HOOK = '''\
def on_page_markdown(markdown, page, config, files):
    return markdown.replace("CHANGELOG.md)", "changelog.md)")
'''

# A hook that reads every page and changes none (a search indexer).
READER_HOOK = '''\
import os

def on_page_content(html, page, config, files):
    if not os.getenv("CI"):
        return html
    records.append(html)
    return html

records = []
'''


def project(tmp_path: Path, hooks: dict[str, str], pages: dict[str, str], config: str = "") -> Path:
    (tmp_path / "hooks").mkdir()
    for name, code in hooks.items():
        (tmp_path / "hooks" / name).write_text(code)
    (tmp_path / "mkdocs.yml").write_text("site_name: test\nhooks:\n" + "".join(f"  - hooks/{name}\n" for name in hooks)
                                         + textwrap.dedent(config))
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path / "mkdocs.yml"


def check(config_file: Path, *, trusted: bool = False) -> Report:
    return asyncio.run(run_check([str(config_file)], Config(offline=True, cache=False, trust_project_code=trusted)))


def outcomes(report: Report) -> dict[tuple[str, str], tuple[str, str]]:
    """(page, url) -> (status, reason)."""
    return {(Path(r.link.span.path).name, r.link.url): (r.result.status.value, str(r.result.reason)) for r in report.results}


FENCE_PAGES = {
    "config.md": """\
        # Configuration

        ```toml config-example
        [tool.x]
        a = 1
        ```

        ## Trusted locations

        ```toml
        b = 2
        ```
        """,
    "plain.md": "# Plain\n\n## Kept\n",
    "index.md": "[trusted](config.md#trusted-locations) [gone](plain.md#removed) [kept](plain.md#kept)\n",
}


def test_a_hook_that_rewrites_a_fence_makes_only_the_pages_it_matches_unverified(tmp_path):
    report = check(project(tmp_path, {"fences.py": FENCE_HOOK}, FENCE_PAGES, "markdown_extensions: [pymdownx.superfences]\n"))
    got = outcomes(report)
    assert got[("index.md", "config.md#trusted-locations")] == ("unverified", "build-time-id")
    assert got[("index.md", "plain.md#removed")] == ("broken", "missing-fragment")  # plain.md has no such fence
    assert got[("index.md", "plain.md#kept")] == ("ok", "")
    (detail,) = [r.result.detail for r in report.results if r.link.url == "config.md#trusted-locations"]
    assert "hooks/fences.py" in detail and "--trust-project-code" in detail


def test_with_the_trust_the_hook_runs_and_the_answer_is_exact(tmp_path):
    report = check(project(tmp_path, {"fences.py": FENCE_HOOK}, FENCE_PAGES, "markdown_extensions: [pymdownx.superfences]\n"),
                   trusted=True)
    got = outcomes(report)
    assert got[("index.md", "config.md#trusted-locations")] == ("ok", "")
    assert got[("index.md", "plain.md#removed")] == ("broken", "missing-fragment")


def test_a_shortcode_hook_that_makes_ids(tmp_path):
    config = project(tmp_path, {"shortcodes.py": SHORTCODE_HOOK}, {
        "blog.md": "# Blog\n\n#### <!-- md:setting config.blog_dir -->\n\nWhere posts are.\n",
        "index.md": "[blog dir](blog.md#config.blog_dir) [nothing](blog.md#config.nothing)\n",
    }, "markdown_extensions: [attr_list]\n")
    untrusted = outcomes(check(config))
    assert untrusted[("index.md", "blog.md#config.blog_dir")] == ("unverified", "build-time-id")
    trusted = outcomes(check(config, trusted=True))
    assert trusted[("index.md", "blog.md#config.blog_dir")] == ("ok", "")
    assert trusted[("index.md", "blog.md#config.nothing")] == ("broken", "missing-fragment")


def test_a_link_a_hook_rewrites_with_a_constant_is_exact_with_or_without_the_trust(tmp_path):
    config = project(tmp_path, {"links.py": LINK_HOOK}, {
        "index.md": "See the [changes](CHANGELOG.md) and [a gone page](gone.md).\n",
        "other.md": "And [a gone page](gone.md).\n",
        "changelog.md": "# Changes\n",
    })
    # The link the hook writes is checked (as the build renders it); the one it replaced is gone:
    # with the trust the hook runs; without it, its constant replacement is made here (since
    # 2026-12-02, issue 44.7; before, the link was unverified).
    for trusted in (False, True):
        got = outcomes(check(config, trusted=trusted))
        assert got[("index.md", "changelog.md")] == ("ok", "")
        assert ("index.md", "CHANGELOG.md") not in got
        assert got[("index.md", "gone.md")] == ("broken", "missing-file")
        assert got[("other.md", "gone.md")] == ("broken", "missing-file")


def test_a_file_a_hook_writes_into_the_site_is_unverified_and_nothing_else(tmp_path):
    got = outcomes(check(project(tmp_path, {"schema.py": SCHEMA_HOOK}, {
        "index.md": "[schema](schema.json) [other](other.json)\n",
    })))
    assert got[("index.md", "schema.json")] == ("unverified", "build-time-file")
    assert got[("index.md", "other.json")] == ("broken", "missing-file")


def test_a_hook_that_returns_what_it_is_given_changes_nothing(tmp_path):
    got = outcomes(check(project(tmp_path, {"reader.py": READER_HOOK}, {
        "index.md": "# Home\n\n[gone](gone.md) [here](#nowhere)\n",
    })))
    assert got[("index.md", "gone.md")] == ("broken", "missing-file")
    assert got[("index.md", "#nowhere")] == ("broken", "missing-fragment")
