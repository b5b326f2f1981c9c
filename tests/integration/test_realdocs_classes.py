"""One small self-written reproduction per class of false alarm the widened realdocs corpus
(issue 21, benchmarks/realdocs_projects.yaml) showed in linkfix's source check, with the projects
it hits. `broken` must mean broken for a reader of the published site; what a source check cannot
know is `unverified`, never `broken`.

A class linkfix still gets wrong is marked xfail(strict=True) with its cause: the fix makes the
test pass, the strict xfail then fails, and the mark must go (the fixed ones keep their cause as
a comment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import check_mkdocs_project, worst_status_by_url


def statuses(tmp_path: Path, config: str, pages: dict[str, str], files: dict[str, str] | None = None) -> dict[str, str]:
    """url -> status of every link of a small MkDocs project, checked like `linkfix check
    --offline mkdocs.yml` (`broken` when any link with that URL is)."""
    return worst_status_by_url(check_mkdocs_project(tmp_path, config, pages, files))


# Was wrong (fixed on branch mk-fix): linkfix renders code blocks without Pygments for speed
# (setup._plain_highlighting); pymdownx.superfences then rejects a fence with a highlight option (title=,
# hl_lines=, linenums=), its closing ``` opens a block that swallows the next heading (copier)
def test_a_fence_with_a_title_does_not_hide_the_heading_after_it(tmp_path):
    found = statuses(tmp_path, """\
        markdown_extensions:
          - pymdownx.highlight
          - pymdownx.superfences
        """, {"index.md": "[x](a.md#after)\n", "a.md": """\
        # A

        ```yaml title="settings.yml"
        a: 1
        ```

        ## After

        ```yaml
        b: 2
        ```
        """})
    assert found["a.md#after"] == "ok"


# Was wrong (fixed on branch mk-fix): an email autolink <a@b.c> (and a magiclink email) renders as mailto:,
# but the source placement keeps the bare address as the URL, a missing file (pypi-blog; copier with
# magiclink)
def test_an_email_autolink_is_not_a_file(tmp_path):
    found = statuses(tmp_path, "", {"index.md": "Write to <security@example.org>.\n"})
    assert found.get("security@example.org", "unsupported") != "broken"
    assert "broken" not in found.values()


# Was wrong (fixed on branch mk-fix): MkDocs writes sitemap.xml (and sitemap.xml.gz, 404.html,
# search/search_index.json for Material) into every site; a link to it is a missing file to the source check
# (static-i18n)
def test_a_link_to_the_sitemap_mkdocs_writes_is_not_broken(tmp_path):
    found = statuses(tmp_path, "site_url: https://example.github.io/proj/\n",
                     {"index.md": "[a](/proj/sitemap.xml) and [b](sitemap.xml)\n"})
    assert set(found.values()) <= {"ok", "unverified"}, found


# Was wrong (fixed on branch mk-fix): mkdocs-gen-files pages are made by the project's scripts at build time:
# a link to one is a missing file rather than unverified (gen-files)
def test_a_link_to_a_page_gen_files_makes_is_not_broken(tmp_path):
    found = statuses(tmp_path, """\
        plugins:
          - gen-files:
              scripts:
                - gen_pages.py
        """, {"index.md": "[made](sample/made.md)\n"},
        files={"gen_pages.py": "import mkdocs_gen_files\nwith mkdocs_gen_files.open('sample/made.md', 'w') as f:\n    f.write('# M')\n"})
    assert found["sample/made.md"] in ("ok", "unverified")


# Was wrong (fixed on branch mk-fix): mkdocs-monorepo-plugin merges the docs of `!include`d mkdocs.yml files
# under their site_name: their pages are missing files to the source check (monorepo)
def test_a_link_to_a_page_the_monorepo_plugin_merges_is_not_broken(tmp_path):
    found = statuses(tmp_path, """\
        nav:
          - Home: index.md
          - V1: '!include ./v1/mkdocs.yml'
        plugins:
          - monorepo
        """, {"index.md": "[ref](./versions/v1/reference.md)\n"},
        files={"v1/mkdocs.yml": "site_name: versions/v1\nnav:\n  - Reference: reference.md\n",
               "v1/docs/reference.md": "# Reference\n"})
    assert found["./versions/v1/reference.md"] in ("ok", "unverified")


# Was wrong (fixed on branch mk-fix): a project hook (`hooks:` in mkdocs.yml) may rewrite links before
# rendering (copier's turns CHANGELOG.md) into changelog.md)); the source check reports the link as written as
# broken instead of unverified
def test_a_link_a_hook_can_rewrite_is_not_broken(tmp_path):
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": "[log](CHANGELOG.md)\n", "changelog.md": "# Log\n"},
                     files={"hooks.py": "def on_page_markdown(markdown, **kwargs):\n"
                                        "    return markdown.replace('CHANGELOG.md)', 'changelog.md)')\n"})
    # since branch h/unverified the constant replacement is made here: the link the build renders is judged
    assert found == {"changelog.md": "ok"}


# Was wrong (fixed on branch mk-fix): site_url at the root of a GitHub organisation's Pages host: other
# repositories publish under /<repo>/ there, so a top-level path this build lacks cannot be judged offline
# (mkdocstrings: https://mkdocstrings.github.io/python/ is another project)
def test_a_full_url_to_another_project_on_the_same_pages_host_is_not_broken(tmp_path):
    found = statuses(tmp_path, "site_url: https://example.github.io/\n",
                     {"index.md": "See [the other handler](https://example.github.io/python/).\n"})
    assert found["https://example.github.io/python/"] in ("ok", "unverified", "excluded")


# Was wrong (fixed on branch mk-fix): a reference definition right under a paragraph line (Python-Markdown
# takes it, CommonMark does not) used again in a definition list: the second use is not placed in the source,
# is taken for raw HTML that MkDocs leaves as written (terminal)
def test_a_reference_used_twice_is_rewritten_both_times(tmp_path):
    found = statuses(tmp_path, "markdown_extensions:\n  - def_list\n", {
        "tile/index.md": "# T\n",
        "conf/blocks.md": "# B\n\nShow a [Tile Grid] here.\n[Tile Grid]: ../tile/index.md\n\n`c`\n:   Again a [Tile Grid].\n"})
    assert found["../tile/index.md"] == "ok"
    assert "broken" not in found.values()


# Was wrong (fixed on branch mk-fix): links inside an md_in_html block of a file included by pymdownx.snippets
# are not placed in the included file: they are put at the include line as raw HTML, which MkDocs leaves as
# written (terminal's palette pages)
def test_links_in_a_markdown_html_block_of_an_included_file_are_rewritten(tmp_path):
    found = statuses(tmp_path, """\
        markdown_extensions:
          - md_in_html
          - pymdownx.snippets:
              base_path: [docs]
        """, {"pal/links.md": "<nav markdown>\n[Blue](blue.md) |\n[Dark](dark.md)\n</nav>\n",
              "pal/blue.md": "# Blue\n\n--8<--\npal/links.md\n--8<--\n", "pal/dark.md": "# Dark\n"})
    assert "broken" not in found.values(), found


# Was wrong (fixed on branch mk-fix): the theme's static files (img/favicon.ico, css/theme.css of the built-in
# themes, css/palettes/*.css of mkdocs-terminal) are in the built site but not in docs_dir (jrnl,
# cibuildwheel, terminal)
def test_a_link_to_a_theme_static_file_is_not_broken(tmp_path):
    found = statuses(tmp_path, "theme: readthedocs\n", {"index.md": "![icon](img/favicon.ico) [css](css/theme.css)\n"})
    assert set(found.values()) <= {"ok", "unverified"}, found


def test_a_fence_formatter_that_prints_does_not_spoil_the_json_report(tmp_path):
    """Beside the docs' packages, textual's fence formatter (textual._doc.format_svg) printed on
    stdout while linkfix rendered, so `-f json` on stdout was not JSON (fixed on main by
    2026-11-27; this held it as a strict xfail before)."""
    installed, tmp_path = tmp_path / "site-packages", tmp_path / "project"  # an installed package, as textual is
    installed.mkdir()
    tmp_path.mkdir()
    (installed / "fencelib.py").write_text("def screenshot(source, language, css_class, options, md, **kwargs):\n"
                                           "    print(f'screenshotting {source!r}')\n"
                                           "    return '<pre>shot</pre>'\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n"
                                         "        - name: textual\n          class: textual\n"
                                         "          format: !!python/name:fencelib.screenshot\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("[after](#after)\n\n```textual\napp.py\n```\n\n## After\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(installed), *sys.path]))
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", "-f", "json", "mkdocs.yml"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    assert [link["status"] for link in report["links"]] == ["ok"]


# kedro (49 of its 56 unverified links), mkdocstrings-python: a table of links to the objects the
# page's own `:::` blocks document. mkdocstrings' Python handler gives each block's object the id
# of the identifier as written (a heading, or an empty anchor with show_root_toc_entry), and a
# block it cannot collect fails the build: those ids are known; the members' are not.
def test_the_id_of_a_mkdocstrings_block_s_own_object_is_known(tmp_path):
    config = """\
        plugins:
          - mkdocstrings:
              handlers:
                python:
                  options:
                    show_root_heading: true
        """
    page = {"api.md": """\
        # API

        [Thing](#pkg.mod.Thing) [member](#pkg.mod.Thing.run) [other](#pkg.mod.Other)

        ::: pkg.mod.Thing
            options:
              members: false

        ::: pkg.mod.Other
            options:
              show_root_heading: false
              show_root_toc_entry: false

        ```md
        ::: pkg.mod.InCode
        ```
        [code](#pkg.mod.InCode)

        <div><p>::: pkg.mod.Raw</p></div>

        [raw](#pkg.mod.Raw)
        """}
    found = statuses(tmp_path, config, page)
    assert found["#pkg.mod.Thing"] == "ok"
    assert found["#pkg.mod.Thing.run"] == "unverified"  # a member: only the build knows it
    assert found["#pkg.mod.Other"] == "unverified"  # no heading, no toc entry: no id for certain
    assert found["#pkg.mod.InCode"] == "unverified"  # a fence's text is not a block
    assert found["#pkg.mod.Raw"] == "unverified"  # nor is raw HTML's
    # Another handler, or the project's own templates, may give other ids: no claim.
    other = tmp_path / "other"
    other.mkdir()
    found = statuses(other, config.replace("handlers:", "default_handler: crystal\n              handlers:"), page)
    assert found["#pkg.mod.Thing"] == "unverified"


# mkdocstrings-python (6 links really broken on its built site, which no tool reported: linkfix
# had them unverified): markdown-exec's `tree` fence runs no code, it draws the paths as a code
# block, so it makes no id (unless code lines get ids); a page whose only build-time blocks are
# trees has all its ids in the source. A fence that runs code still makes ids only the build knows.
def test_a_markdown_exec_tree_makes_no_ids(tmp_path):
    config = """\
        plugins:
          - markdown-exec
        markdown_extensions:
          - pymdownx.superfences
        """
    pages = {"tree.md": """\
        # Tree

        ```tree
        package
            __init__.py
        ```

        [gone](#my_method1) [here](#tree)
        """, "run.md": """\
        # Run

        ```python exec="on"
        print("## Made")
        ```

        [made](#made)
        """}
    found = statuses(tmp_path, config, pages)
    assert found["#my_method1"] == "broken"
    assert found["#tree"] == "ok"
    assert found["#made"] == "unverified"
    # With ids on code lines, the tree's code block makes ids numbered only by the build.
    lines = tmp_path / "lines"
    lines.mkdir()
    found = statuses(lines, config + "  - pymdownx.highlight:\n              line_spans: __span\n", pages)
    assert found["#my_method1"] == "unverified"


# Was wrong (mkdocstrings-python: 3 links really broken on its built site, left unverified): a
# markdown-exec `md` fence renders its text as Markdown when the site is built, with its ids
# prefixed `exec-N--` (N counted across the build; `{id}-` or `idprefix` when set) and the ids
# of the `:::` blocks in it (the object's dotted path and below). Where its text is literal,
# those prefixes bound what it can make (mkdocs/plugins/markdown_exec.py): a fragment outside
# them is broken, one its block is sure to make is ok, one inside them stays unverified.
def test_a_fragment_no_markdown_exec_md_fence_can_make_is_broken(tmp_path):
    found = statuses(tmp_path, """\
        plugins:
          - markdown-exec
          - mkdocstrings
        markdown_extensions:
          - pymdownx.superfences
        """, {"index.md": """\
        # Signatures

        ```md exec="on"
        ::: package.example
            options:
              show_root_heading: true

        ## Made here
        ```

        <a href="#ref-to-Markdown">Markdown</a> [root](#package.example) [member](#package.example.run)
        [heading](#exec-1--made-here) [as written](#made-here)
        """}, {"package/example.py": '"""An example."""\n'})
    assert found["#ref-to-Markdown"] == "broken"
    assert found["#package.example"] == "ok"  # the block's own object, with show_root_heading
    assert found["#package.example.run"] == "unverified"  # a member: only the build knows it
    assert found["#exec-1--made-here"] == "unverified"  # prefixed: N is counted across the build
    assert found["#made-here"] == "broken"  # the fence's headings are prefixed


# A fence whose text is not literal (it runs code, sets an empty id prefix, holds a raw HTML
# id, which is not prefixed) may make any id: every missing fragment of the page stays unverified.
@pytest.mark.parametrize("fence", [
    '```md exec="on"\n::: package.example\n\n````python exec="on"\nprint("<a id=x></a>")\n````\n```',
    '```md exec="on" idprefix=""\n## Made here\n```',
    '```md exec="on"\n<a id="made"></a>\n```',
])
def test_a_markdown_exec_md_fence_that_is_not_literal_leaves_missing_fragments_unverified(tmp_path, fence):
    found = statuses(tmp_path, """\
        plugins:
          - markdown-exec
          - mkdocstrings
        markdown_extensions:
          - pymdownx.superfences
          - pymdownx.snippets
        """, {"index.md": f"# Page\n\n{fence}\n\n[x](#ref-to-Markdown)\n"})
    assert found["#ref-to-Markdown"] == "unverified"


# Code lines with ids (pymdownx.highlight's line_spans) are raw HTML, not prefixed: a code block
# in an `md` fence makes ids of its own, so the fence bounds nothing.
def test_a_markdown_exec_md_fence_with_a_code_block_with_line_ids_leaves_missing_fragments_unverified(tmp_path):
    fence = '```md exec="on"\n~~~python\nx = 1\n~~~\n```'
    found = statuses(tmp_path, "plugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n"
                     "  - pymdownx.highlight:\n      line_spans: __span\n", {"index.md": f"# Page\n\n{fence}\n\n[x](#ref-to-Markdown)\n"})
    assert found["#ref-to-Markdown"] == "unverified"


# Was wrong (bfg9000): `python -m linkfix` put the working directory first on sys.path, so looking up
# MkDocs' search plugin imported the project's macros module `mkdocs.py` beside mkdocs.yml: project
# code run without trust, and here a crash (exit 3) on its missing import
def test_a_project_module_named_like_a_package_is_not_imported(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme: readthedocs\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("[a](missing.md)\n")
    (tmp_path / "mkdocs.py").write_text("open('imported', 'w').close()\nraise ImportError('the project module ran')\n")
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "mkdocs.yml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert not (tmp_path / "imported").exists()
    assert done.returncode == 1, done.stderr  # the one broken link, not an unexpected error


# Was wrong (print-site): mkdocs-print-site-plugin makes a page of the whole site, print_page.md
# (print_page_basename), published as print_page.html or print_page/; a link to it was a missing file
@pytest.mark.parametrize("directory_urls", [False, True])
def test_the_print_site_page_is_made(tmp_path, directory_urls):
    target = "print_page/" if directory_urls else "print_page.html"
    found = statuses(tmp_path, f"""\
        use_directory_urls: {str(directory_urls).lower()}
        plugins:
          - search
          - print-site
        """, {"index.md": f"[print]({target}) [other](other_page.html)\\n"})
    assert found[target] == "ok"
    assert found["other_page.html"] == "broken"


# Was wrong (fastapi-users): a same-page fragment link written in a snippet-included file (its
# docs/index.md is `--8<-- "README.md"`, whose all-contributors table links `#contributors-`) was taken
# for one an extension made and dropped: a broken one went unreported (MkDocs' own validation reports it)
def test_a_same_page_fragment_in_an_included_file_is_checked(tmp_path):
    found = statuses(tmp_path, """\
        markdown_extensions:
          - pymdownx.snippets
        """, {"index.md": '--8<-- "README.md"\n'},
        files={"README.md": "# Project\n\n[here](#project) [gone](#contributors-)\n\n## Notes[^1]\n\n[^1]: a footnote.\n"})
    assert found["#project"] == "ok"
    assert found["#contributors-"] == "broken"
    assert not any(url.startswith("#fn") for url in found)  # the footnote's own links stay the extension's


# Was wrong (pdm): a site versioned with mike deploys each build in a version directory; the site's
# root holds the other versions and files the project deploys beside them (its install script's
# checksum), so a file there that this build lacks is not this build's to call broken
@pytest.mark.parametrize("versioned", ["extra:\n  version:\n    provider: mike\n", "plugins:\n  - mike\n", ""])
def test_a_file_at_the_root_of_a_mike_versioned_site_is_beside_the_build(tmp_path, versioned):
    found = statuses(tmp_path, "site_url: https://tool.example.org\n" + versioned, {
        "index.md": "[sum](https://tool.example.org/install.py.sha256) [root](/CHANGES.md) [img](img/logo.png)"
                    " [gone](https://tool.example.org/gone.png) [page](https://tool.example.org/removed/)\n",
        "img/logo.png": "png"})
    beside = "excluded" if versioned else "broken"
    assert found["https://tool.example.org/install.py.sha256"] == beside
    assert found["/CHANGES.md"] == beside
    assert found["https://tool.example.org/gone.png"] == beside
    assert found["img/logo.png"] == "ok"
    assert found["https://tool.example.org/removed/"] == "broken"  # a page path stays this build's
