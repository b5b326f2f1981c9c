"""Issue 44's battery: "CI is never green where linkfix did not look". One small reproduction
per item of the issue (and per sub-case of items 13 and 14 where a link went unseen or a run
passed), each run through the command line offline (`linkfix check --offline`, a JSON report)
and held to the README's exit-code table (0 clean, 1 broken links, 2 input, usage or
configuration error) and to the one fact that shows linkfix looked: the broken link in the
report, the error said, or, for the items that were false alarms (3, 8, 10, 12, 13's base href,
14's footnote and disabled stylesheet), the right verdict with the links still counted. The
finer shapes of each fix are tested where it lives (tests/check/test_no_silent_pass.py for items
2, 12, 13 and 14; tests/inputs/test_changed_deletions.py for item 1; tests/mkdocs for 7-11)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest
from trees import write_tree

from linkfix.cli import main


class CheckRun:
    """One `linkfix check` run through the command line: its exit code, its JSON report (None
    when none was written) and what it said (stdout, stderr and the log, as one text)."""

    def __init__(self, code: int, report: dict | None, said: str):
        self.code, self.report, self.said = code, report, said
        self.links: list[dict] = report["links"] if report else []

    def statuses(self) -> dict[tuple[str, str], str]:
        """(file, url as written) -> status of every link (`broken` wins for a repeated link)."""
        found: dict[tuple[str, str], str] = {}
        for link in self.links:
            if found.get((link["file"], link["url"])) != "broken":
                found[(link["file"], link["url"])] = link["status"]
        return found

    def broken(self) -> set[tuple[str, str]]:
        return {place for place, status in self.statuses().items() if status == "broken"}

    def link(self, url: str) -> dict:
        """The one link written `url`."""
        found = [link for link in self.links if link["url"] == url]
        assert len(found) == 1, f"{url!r} is not one link of the report: {sorted(link['url'] for link in self.links)}"
        return found[0]

    def __repr__(self) -> str:
        return f"CheckRun(code={self.code}, statuses={self.statuses()}, errors={self.report and self.report['errors']})"


@pytest.fixture
def check(tmp_path_factory, monkeypatch, capsys, caplog):
    """`check(cwd, *args)`: `linkfix check --offline --no-cache *args` run in `cwd` by the CLI's
    main, with a JSON report; a usage error (argparse's SystemExit) is its exit code."""

    def run(cwd: Path, *args: str) -> CheckRun:
        monkeypatch.chdir(cwd)
        out = tmp_path_factory.mktemp("report") / "linkfix-report.json"  # outside the tree checked
        caplog.clear()
        try:
            code = main(["check", "--offline", "--no-cache", *args, "-f", "json", "-o", str(out)])
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        captured = capsys.readouterr()
        said = "\n".join([captured.out, captured.err, *(record.getMessage() for record in caplog.records)])
        return CheckRun(code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None, said)

    return run


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args],
                   cwd=root, check=True, capture_output=True)


def repository(root: Path, files: dict[str, str]) -> Path:
    write_tree(root, files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


LINKED = {"docs/a.md": "# A\n\n[b](b.md)\n", "docs/c.md": "# C\n\n[b](b.md#part)\n", "docs/b.md": "# B\n\n## Part\n"}


# -- item 1: a change that deletes or renames a page ---------------------------------------------------------------
@pytest.mark.parametrize("change", [("rm", "-q", "docs/b.md"), ("mv", "docs/b.md", "docs/moved.md")], ids=["git-rm", "git-mv"])
def test_1_a_pull_request_that_deletes_or_renames_a_linked_page_fails(tmp_path, check, change):
    """Item 1: `--changed-since main` on a branch that `git rm`s (or `git mv`s) a linked page
    said `0 links in 0 files`, exit 0."""
    root = repository(tmp_path / "repo", LINKED)
    git(root, "checkout", "-qb", "pr")
    git(root, *change)
    git(root, "commit", "-qm", change[0])
    run = check(root, "docs/", "--changed-since", "main")
    assert run.code == 1
    assert run.broken() == {("docs/a.md", "b.md"), ("docs/c.md", "b.md#part")}


def test_1_the_pre_commit_run_on_a_staged_deletion_fails(tmp_path, check):
    """Item 1: the hook's `--staged` run, given no file (pre-commit passes a deletion none),
    checks the links to what the index deletes; it said '(no files to check) Skipped'."""
    root = repository(tmp_path / "repo", LINKED)
    git(root, "rm", "-q", "docs/b.md")
    run = check(root, "--staged")
    assert run.code == 1
    assert run.broken() == {("docs/a.md", "b.md"), ("docs/c.md", "b.md#part")}


# -- item 2: symlinks that lead nowhere ----------------------------------------------------------------------------
def test_2_links_to_a_dangling_symlink_and_a_symlink_loop_are_broken(tmp_path, check):
    """Item 2: both were `ok`."""
    write_tree(tmp_path, {"docs/index.md": "# Home\n\n![logo](img/logo.png) [file](files/loop.zip)\n"})
    (tmp_path / "docs/img").mkdir()
    os.symlink("../missing.png", tmp_path / "docs/img/logo.png")
    (tmp_path / "docs/files").mkdir()
    os.symlink("loop.zip", tmp_path / "docs/files/loop.zip")
    run = check(tmp_path, "docs")
    assert run.code == 1
    assert run.broken() == {("docs/index.md", "img/logo.png"), ("docs/index.md", "files/loop.zip")}


# -- item 3: `linkfix check .` in a MkDocs project's root ----------------------------------------------------------
def test_3_the_root_of_a_mkdocs_project_is_that_project_not_its_built_site(tmp_path, check):
    """Item 3 (a false alarm): site/404.html's root-relative links were broken beside docs/."""
    write_tree(tmp_path, {
        "mkdocs.yml": "site_name: X\nsite_url: https://x.example.org/proj/\n",
        "docs/index.md": "# Home\n\n[guide](guide.md) [part](guide.md#part)\n", "docs/guide.md": "# Guide\n\n## Part\n",
        "site/index.html": '<a href="guide/">guide</a>', "site/guide/index.html": '<a href="../">home</a>',
        "site/404.html": '<a href="/proj/">home</a> <a href="/proj/guide/">guide</a>'})
    run = check(tmp_path, ".")
    assert run.code == 0 and run.broken() == set()
    assert run.statuses() == {("docs/index.md", "guide.md"): "ok", ("docs/index.md", "guide.md#part"): "ok"}


# -- item 4: a file the run could not read ---------------------------------------------------------------------------
def test_4_a_binary_file_named_md_is_an_input_error_exit_2(tmp_path, check):
    """Item 4: exit 0 beside '1 input error' in the summary (the README: input error -> 2)."""
    write_tree(tmp_path, {"docs/index.md": "# Home\n\n[guide](guide.md)\n", "docs/guide.md": "# Guide\n"})
    (tmp_path / "docs/image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    run = check(tmp_path, "docs")
    assert run.code == 2
    assert run.report["errors"] == ["docs/image.md: binary file (NUL bytes), not a text document"]
    assert run.statuses() == {("docs/index.md", "guide.md"): "ok"}  # the rest was read all the same


# -- item 5: a second config file ------------------------------------------------------------------------------------
def test_5_an_invalid_pyproject_table_beside_linkfix_yml_is_a_config_error(tmp_path, check):
    """Item 5: `[tool.linkfix]` beside a linkfix.yml was ignored without a word, even invalid."""
    write_tree(tmp_path, {"linkfix.yml": "timeout: 3\n", "pyproject.toml": "[tool.linkfix]\nmax_concurrency = 0\n",
                          "docs/index.md": "# Home\n"})
    run = check(tmp_path, "docs")
    assert run.code == 2
    assert "pyproject.toml: max_concurrency" in run.said and "linkfix.yml" in run.said


# -- item 6: root-absolute links of a single deployment --------------------------------------------------------------
def test_6_a_site_path_the_build_lacks_is_broken_where_nothing_says_another_deployment_serves_it(tmp_path, check):
    """Item 6: `/es/...` and `/installation/clients/x/` were excluded as `outside-build`
    ('another language, version or deployment') on a single-deployment site."""
    write_tree(tmp_path, {"mkdocs.yml": "site_name: X\nsite_url: https://docs.example.org/\n",
                          "docs/index.md": "# Home\n\n[es](/es/features/) [x](/installation/clients/x/) [ok](/guide/)\n",
                          "docs/guide.md": "# Guide\n"})
    run = check(tmp_path, "mkdocs.yml")
    assert run.code == 1
    assert run.broken() == {("docs/index.md", "/es/features/"), ("docs/index.md", "/installation/clients/x/")}


# -- item 7: unverified only where a missing piece could change the link ---------------------------------------------
@pytest.mark.skipif(importlib.util.find_spec("mkdocs_click") is not None, reason="mkdocs-click is installed here: nothing is missing")
def test_7_a_missing_extension_leaves_unverified_only_the_pages_it_reaches(tmp_path, check):
    """Item 7: a missing mkdocs-click made every fragment link unverified; it renders only
    `::: mkdocs-click` blocks, so a page without one reads the same and its missing id is broken."""
    write_tree(tmp_path, {"mkdocs.yml": "site_name: X\nmarkdown_extensions:\n  - mkdocs-click\n",
                          "docs/index.md": "# Home\n\n[usage](usage.md#options) [cli](cli.md#options)\n",
                          "docs/usage.md": "# Usage\n\n    ## Options\n",
                          "docs/cli.md": "# CLI\n\n::: mkdocs-click\n    :module: tool.cli\n    :command: main\n"})
    run = check(tmp_path, "mkdocs.yml")
    assert run.code == 1
    assert run.statuses() == {("docs/index.md", "usage.md#options"): "broken", ("docs/index.md", "cli.md#options"): "unverified"}


def test_7_the_trusted_run_leaves_out_what_is_not_installed_and_runs_the_hooks(tmp_path, check):
    """Item 7: `--trust-project-code` could not run the hooks where the config names what is not
    installed (`!!python/name:material.extensions.emoji...` without Material): the link a hook
    writes stayed unverified. Loaded as the rendering does, without them, the hook runs."""
    write_tree(tmp_path, {
        "mkdocs.yml": ("site_name: X\nhooks:\n  - hooks.py\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
                       "      emoji_index: !!python/name:no_such_package_here.emoji.twemoji\n  - no_such_extension_here\n"),
        "hooks.py": ("import subprocess\n\ndef on_page_markdown(markdown, page, config, files):\n"
                     "    return markdown.replace('{{ target }}', subprocess.__name__ + '.md')\n"),
        "docs/index.md": "# Home\n\n[x]({{ target }})\n"})
    run = check(tmp_path, "mkdocs.yml", "--trust-project-code")
    assert run.code == 1
    assert run.statuses() == {("docs/index.md", "subprocess.md"): "broken"}  # the link the hook writes


# -- item 8: a macro-templated URL -----------------------------------------------------------------------------------
def test_8_a_templated_reference_definition_is_kept_whole_and_unverified(tmp_path, check):
    """Item 8 (a false alarm): `{{ git.tag}}` (no space before `}}`) cut the definition to
    `https://x.dev/docs/`, reported broken; a template the run cannot fill is unverified."""
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - macros\n",
                          "docs/index.md": "# Home\n\nSee [the guide][guide] and [about](about.md).\n\n"
                                           "[guide]: https://x.dev/docs/{{ git.tag}}/guide/start/\n",
                          "docs/about.md": "# About\n"})
    run = check(tmp_path, "mkdocs.yml")
    assert run.code == 0 and run.broken() == set()
    guide = run.link("https://x.dev/docs/{{ git.tag}}/guide/start/")
    assert (guide["status"], guide["reason"]) == ("unverified", "template")
    assert run.link("about.md")["status"] == "ok"


# -- item 9: paths the build opens from where it runs ----------------------------------------------------------------
def test_9_a_config_built_from_the_repository_root_is_read_from_there(tmp_path, check):
    """Item 9: `mkdocs build -f hack/api-docs/mkdocs.yml` from the root (a Makefile says so):
    outside a git work tree the run was refused (docs_dir outside the project), exit 2."""
    root = write_tree(tmp_path / "repo", {
        "Makefile": "docs:\n\tmkdocs build -f hack/api-docs/mkdocs.yml\n",
        "hack/api-docs/mkdocs.yml": ("site_name: t\ndocs_dir: ../../docs\nmarkdown_extensions:\n"
                                     "  - pymdownx.snippets:\n      base_path: [snippets]\n"),
        "docs/index.md": "# Home\n\n--8<-- \"part.md\"\n", "snippets/part.md": "[gone](gone.md) and [here](index.md)\n"})
    run = check(tmp_path, str(root / "hack/api-docs/mkdocs.yml"))
    assert run.code == 1
    assert {url: status for (_, url), status in run.statuses().items()} == {"gone.md": "broken", "index.md": "ok"}


# -- item 10: a theme's own file ---------------------------------------------------------------------------------------
def test_10_a_link_to_the_themes_favicon_is_ok_beside_hooks_and_literate_nav(tmp_path, check):
    """Item 10 (a false alarm): the built-in theme copies img/favicon.ico into every build; with
    `hooks:` and literate-nav a page's link to it was broken."""
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nhooks:\n  - hooks.py\nplugins:\n  - search\n  - literate-nav\n",
                          "hooks.py": "def on_page_markdown(markdown, **kwargs):\n    return markdown\n",
                          "docs/index.md": "# Home\n\n[sub](sub/page.md)\n", "docs/sub/page.md": "# Sub\n\n![icon](../img/favicon.ico)\n"})
    run = check(tmp_path, "mkdocs.yml")
    assert run.code == 0 and run.broken() == set()
    assert run.link("../img/favicon.ico")["status"] == "ok" and run.link("sub/page.md")["status"] == "ok"


# -- item 11: nav plugins' files ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("plugin, nav_file, nav, section", [
    ("literate-nav", "docs/SUMMARY.md", "- [Home](index.md)\n- [Sub](sub/)\n- [Removed](removed.md)\n", "sub/"),
    ("awesome-nav", "docs/.nav.yml", "nav:\n  - index.md\n  - Sub: sub\n  - removed.md\n", "sub"),
], ids=["literate-nav", "awesome-nav"])
def test_11_a_nav_file_entry_naming_a_removed_page_is_broken(tmp_path, check, plugin, nav_file, nav, section):
    """Item 11: literate-nav's SUMMARY.md and awesome-nav's .nav.yml were not checked as navs (a
    SUMMARY.md was read as a page: its section entry `sub/`, a docs directory, was broken)."""
    write_tree(tmp_path, {"mkdocs.yml": f"site_name: t\nplugins:\n  - {plugin}\n", nav_file: nav,
                          "docs/index.md": "# Home\n", "docs/sub/page.md": "# Page\n"})
    run = check(tmp_path, "mkdocs.yml")
    assert run.code == 1
    assert run.statuses() == {(nav_file, "index.md"): "ok", (nav_file, section): "ok", (nav_file, "removed.md"): "broken"}


# -- item 12: the host's redirect files ----------------------------------------------------------------------------
def test_12_a_built_site_follows_its_hosts_redirects(tmp_path, check):
    """Item 12 (a false alarm, and a miss): `linkfix check site/` called the old `.html` URLs
    that `_redirects` sends on broken; a redirect to a page the site lacks is broken."""
    write_tree(tmp_path, {"site/index.html": '<a href="/old.html">old</a> <a href="/lost.html">lost</a>',
                          "site/new/index.html": "<h1>New</h1>",
                          "site/_redirects": "/old.html /new/ 301\n/lost.html /nowhere/ 301\n"})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert run.statuses() == {("site/index.html", "/old.html"): "redirected", ("site/index.html", "/lost.html"): "broken"}


# -- item 13: html-proofer's cases ---------------------------------------------------------------------------------
def test_13_a_root_relative_base_href_is_where_relative_links_resolve(tmp_path, check):
    """Item 13 (a false alarm): under `<base href="/assets/">` every relative image was broken
    ('leaves the site root'), though the browser loads /assets/x.png."""
    write_tree(tmp_path, {"site/index.html": "<h1>Home</h1>", "site/assets/x.png": "",
                          "site/docs/page.html": '<base href="/assets/"><img src="x.png"><img src="nope.png">'})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert run.statuses() == {("site/docs/page.html", "x.png"): "ok", ("site/docs/page.html", "nope.png"): "broken"}
    assert "assets/nope.png" in run.link("nope.png")["detail"]


@pytest.mark.parametrize("url", ["mailto:", "mailto:octocat", "tel:"])
def test_13_a_mailto_with_no_address_or_an_empty_tel_is_broken_offline(tmp_path, check, url):
    """Item 13: they were `unsupported` (a pass), a dead link for a reader found without the network."""
    write_tree(tmp_path, {"site/index.html": f'<a href="{url}">write</a> <a href="mailto:a@example.org">fine</a>'})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert (run.link(url)["status"], run.link(url)["reason"]) == ("broken", "invalid-url")
    assert run.link("mailto:a@example.org")["status"] == "unsupported"


@pytest.mark.parametrize("image", ['<img src="" alt="gone">', '<picture><img alt="gone"></picture>'], ids=["empty-src", "picture"])
def test_13_an_image_with_no_source_is_broken(tmp_path, check, image):
    """Item 13: `<img src="">` and a `<picture>`'s `<img>` with no src were not seen."""
    write_tree(tmp_path, {"site/index.html": f"<h1>Home</h1>\n{image}\n"})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert [(link["url"], link["status"], link["reason"], link["line"]) for link in run.links] == [("", "broken", "no-source", 2)]


def test_13_an_unparseable_url_is_broken_offline(tmp_path, check):
    """Item 13: `https://127.0.0.1:____` was only `excluded` offline."""
    write_tree(tmp_path, {"site/index.html": '<a href="https://127.0.0.1:____">a</a> <a href="https://example.org/">b</a>'})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert (run.link("https://127.0.0.1:____")["status"], run.link("https://127.0.0.1:____")["reason"]) == ("broken", "invalid-url")
    assert run.link("https://example.org/")["reason"] == "offline"


def test_13_an_empty_directory_beside_a_real_one_is_an_input_error_and_the_run_goes_on(tmp_path, check):
    """Item 13: an empty directory given beside a real one stopped the whole run (exit 2, no
    report); now it is an input error (2, the README's table) and the real one is checked."""
    write_tree(tmp_path, {"site/index.html": '<a href="gone.html">x</a>'})
    (tmp_path / "empty").mkdir()
    run = check(tmp_path, "site", "empty")
    assert run.code == 2
    assert run.report is not None and run.broken() == {("site/index.html", "gone.html")}
    assert any("empty/: no markdown or HTML files to check" in error for error in run.report["errors"])


def test_13_exclude_applies_to_internal_links(tmp_path, check):
    """Item 13: `--exclude` did not apply to internal links (no way to ignore one)."""
    write_tree(tmp_path, {"site/index.html": '<a href="drafts/x.html">draft</a> <a href="gone.html">gone</a>'})
    run = check(tmp_path, "site", "--exclude", "^drafts/")
    assert run.code == 1
    assert run.statuses() == {("site/index.html", "drafts/x.html"): "excluded", ("site/index.html", "gone.html"): "broken"}


def test_13_remap_applies_to_internal_links(tmp_path, check):
    """Item 13: `--remap` did not apply to internal links (no way to swap one)."""
    write_tree(tmp_path, {"site/index.html": '<a href="old/a.html">a</a> <a href="old/b.html">b</a>', "site/new/a.html": "<h1>A</h1>"})
    run = check(tmp_path, "site", "--remap", "^old/ new/")
    assert run.code == 1
    assert run.statuses() == {("site/index.html", "old/a.html"): "ok", ("site/index.html", "old/b.html"): "broken"}
    assert run.link("old/b.html")["resolved"] == "new/b.html"


def test_13_data_proofer_ignore_is_honoured(tmp_path, check):
    """Item 13: the attribute sites carry for html-proofer was not honoured."""
    write_tree(tmp_path, {"site/index.html": '<div data-proofer-ignore><a href="gone-1.html">ignored</a></div>\n'
                                             '<a href="gone-2.html">checked</a>\n'})
    run = check(tmp_path, "site")
    assert run.code == 1
    assert run.statuses() == {("site/index.html", "gone-1.html"): "excluded", ("site/index.html", "gone-2.html"): "broken"}
    assert "data-proofer-ignore" in run.link("gone-1.html")["detail"]


@pytest.mark.parametrize("host, code", [("plain", 1), ("github-pages", 0)])
def test_13_extensionless_links_follow_the_host_named(tmp_path, check, host, code):
    """Item 13: `/page` for page.html is broken on a plain server and fine on GitHub Pages: an
    option (`--host`) says which."""
    write_tree(tmp_path, {"site/index.html": '<a href="/page">p</a>', "site/page.html": "<h1>Page</h1>"})
    run = check(tmp_path, "site", "--host", host)
    assert run.code == code
    assert run.link("/page")["status"] == ("broken" if code else "ok")


# -- item 14: lychee's CSS and stylesheet cases --------------------------------------------------------------------
STYLESHEET = '<link rel="stylesheet" href="main.css">'


@pytest.mark.parametrize("files, url", [
    ({"site/index.html": "<style>body { background: url(img/gone.png) }</style>"}, "img/gone.png"),
    ({"site/index.html": '<div style="background-image: url(img/gone.png)">x</div>'}, "img/gone.png"),
    ({"site/index.html": STYLESHEET, "site/main.css": ".x { background-image: url(img/gone.png) }\n"}, "img/gone.png"),
    ({"site/index.html": STYLESHEET, "site/main.css": "@font-face { font-family: F; src: url(f.woff2) format('woff2'); }\n"}, "f.woff2"),
    ({"site/index.html": STYLESHEET, "site/main.css": '@import "more.css";\n'}, "more.css"),
], ids=["style-element", "style-attribute", "css-background-image", "css-font-face", "css-import"])
def test_14_a_css_url_that_leads_nowhere_is_broken(tmp_path, check, files, url):
    """Item 14: CSS `url()` and `@import` — in `<style>`, in `style="..."`, in a linked .css —
    were never checked, so a built site's missing fonts and images passed."""
    write_tree(tmp_path, files)
    run = check(tmp_path, "site")
    assert run.code == 1
    assert {written for _, written in run.broken()} == {url}


def test_14_a_disabled_stylesheet_is_not_a_link(tmp_path, check):
    """Item 14 (a false alarm): `<link rel="stylesheet" disabled>` is never fetched, yet it was checked."""
    write_tree(tmp_path, {"site/index.html": '<link rel="stylesheet" href="off.css" disabled><a href="there.html">t</a>',
                          "site/there.html": "<h1>There</h1>"})
    run = check(tmp_path, "site")
    assert run.code == 0 and run.broken() == set()
    assert run.statuses() == {("site/index.html", "there.html"): "ok"}


# -- item 14, in markdown: footnotes and e-mail autolinks --------------------------------------------------------------
def test_14_a_gfm_footnote_definition_is_no_link_reference(tmp_path, check):
    """Item 14 (a false alarm): `[^note]: text` in a plain-markdown tree was read as a link
    reference definition to `text`, reported broken; the footnote's own links are still read."""
    write_tree(tmp_path, {"docs/index.md": "A claim[^note] and more[^2].\n\n[^note]: text\n[^2]: See [the spec](spec.md).\n",
                          "docs/spec.md": "# Spec\n"})
    run = check(tmp_path, "docs")
    assert run.code == 0 and run.broken() == set()
    assert run.statuses() == {("docs/index.md", "spec.md"): "ok"}


def test_14_bare_email_autolinks_are_seen(tmp_path, check):
    """Item 14: GFM's bare e-mail autolinks were not seen at all (no link in the report)."""
    write_tree(tmp_path, {"docs/index.md": "# Home\n\nWrite to user@example.com or <team@example.org>.\n"})
    run = check(tmp_path, "docs")
    assert run.code == 0
    assert {(link["url"], link["resolved"]) for link in run.links} == {
        ("user@example.com", "mailto:user@example.com"), ("team@example.org", "mailto:team@example.org")}
