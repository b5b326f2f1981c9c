"""Mining real moves from docs histories (benchmarks/mine_moves.py): the maintainers' redirects
read as each tool writes them, page URLs and titles as the generators make them, and the links
that lead to a moved page. Small reproductions written here; no fetched file."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from realbench import redirects
from realbench.sources import Target, links_to, page_source, page_url, title_of


def test_mkdocs_redirects_are_read_without_running_any_tag():
    text = ("site_name: x\nplugins:\n  - search\n  - redirects:\n      redirect_maps:\n        old.md: new.md#part\n"
            "        'a/b.md': 'c.md'\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:os.system ['false']\n")
    assert redirects.mkdocs_redirects(text) == {"old.md": "new.md#part", "a/b.md": "c.md"}


def test_sphinx_redirects_in_conf_py_and_beside_it():
    conf = 'extensions = []\nrediraffe_redirects = "redirects.txt"\nredirects = {"old/page": "../new.html#x", "blog/*": "x"}\n'
    assert redirects.rediraffe(conf, lambda name: '"old one" new/one\n# a comment\nmove/me  there\n' if name == "redirects.txt" else None) == {
        "old one": "new/one", "move/me": "there"}
    assert redirects.reredirects(conf) == {"old/page": "../new.html#x"}  # a pattern names no one page
    assert redirects.html_pairs('redirect_files = [("a.html", "b.html"), ("c.html", "d.html")]\n') == {"a.html": "b.html", "c.html": "d.html"}
    assert redirects.conf_value("x = compute()\n", "x") is None  # computed, not a literal: not read


def load_mine_moves():
    spec = importlib.util.spec_from_file_location("mine_moves", Path(__file__).resolve().parents[2] / "benchmarks" / "mine_moves.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


mine_moves = load_mine_moves()


def test_pairs_in_conf_py_are_read_under_the_name_the_site_gives_them():
    class OneFile:  # a repository holding only conf.py
        def read(self, commit, path):
            return 'html_redirects = [("builder.html", "reference.html#builder")]\n' if path == "docs/conf.py" else None

    site = {"repo": "o/r", "site": "x.org", "base_url": "https://x.org/", "generator": "sphinx", "docs_dir": "docs", "urls": "html",
            "kind": "html-pairs", "file": "docs/conf.py"}
    named = mine_moves.SiteSpec.of(dict(site, option="html_redirects"))  # nengo-sphinx-theme's name
    assert mine_moves.redirect_map(OneFile(), named, "c") == {"builder.html": "reference.html#builder"}
    assert mine_moves.redirect_map(OneFile(), mine_moves.SiteSpec.of(site), "c") == {}  # dask's redirect_files: none here


def test_a_redirect_from_a_section_is_no_moved_page(tmp_path):
    def commit(files: dict[str, str | None], message: str) -> None:
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text) if text is not None else path.unlink()
        git("add", "-A")
        git("commit", "-q", "-m", message)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@x.org", *args], check=True)

    git("init", "-q")
    commit({"mkdocs.yml": "site_name: x\n", "docs/index.md": "# Home\n\nSee [the old page](old.md).\n",
            "docs/old.md": "# Old\n\nWords.\n", "docs/guide.md": "# Guide\n\n## Part\n\nWords.\n"}, "pages")
    commit({"docs/old.md": None, "mkdocs.yml": "site_name: x\nplugins:\n  - redirects:\n      redirect_maps:\n"
            "        old.md: guide.md#part\n        'guide.md#gone': 'index.md'\n"}, "old.md merged into the guide")
    spec = mine_moves.SiteSpec.of({"repo": "o/r", "site": "x.org", "base_url": "https://x.org/", "generator": "mkdocs",
                                   "docs_dir": "docs", "urls": "directory", "kind": "mkdocs-redirects", "file": "mkdocs.yml"})
    reader = mine_moves.Git(tmp_path / ".git")
    try:
        mined = mine_moves.mine_site(reader, spec)
    finally:
        reader.close()
    assert [(c["old_url"], c["new_fragment"]) for c in mined.cases] == [("https://x.org/old/", "part")]
    assert mined.skipped["a section's redirect, not a page's"] == 1  # guide.md is still there; its #gone moved


def test_apache_redirects_keep_one_page_moves_and_leave_catch_alls_out():
    text = ("redirectmatch 301 ^/nova/([^/]+)/aggregates.html$ /nova/$1/user/aggregates.html\n"
            "redirectmatch 301 ^/nova/([^/]+)/devref/([^/]+).html /nova/$1/reference/$2.html\n"
            "redirectmatch 301 ^/other/([^/]+)/x.html$ /other/$1/y.html\n")
    assert redirects.htaccess(text, "nova") == {"aggregates.html": "user/aggregates.html"}


def test_page_urls_and_titles_as_the_generators_make_them():
    assert page_url("https://x.org/", "guide/install.md", "directory") == "https://x.org/guide/install/"
    assert page_url("https://x.org/", "guide/index.md", "directory") == "https://x.org/guide/"
    assert page_url("https://x.org/en/", "guide/install.rst", "html") == "https://x.org/en/guide/install.html"
    assert page_url("https://x.org/en/", "index.rst", "html") == "https://x.org/en/"
    assert title_of("---\ntitle: From front matter\n---\n# Heading\n", "a.md") == "From front matter"
    assert title_of("```\n# not a heading\n```\n\n# `Install` *it*\n", "a.md") == "Install it"
    assert title_of("## A second-level heading only\n", "a.md") == ""  # MkDocs takes the title from the first h1
    assert title_of(".. _label:\n\n=====\nTitle\n=====\n\nText\n", "a.rst") == "Title"
    notebook = json.dumps({"cells": [{"cell_type": "markdown", "source": ["# How to stream\n", "Text"]},
                                     {"cell_type": "code", "source": "print(1)"}]})
    assert page_source(notebook, "how-tos/stream.ipynb") == "# How to stream\nText\n\n```python\nprint(1)\n```\n"


def test_the_links_that_lead_to_a_moved_page_in_markdown_and_in_sphinx_sources():
    target = Target(path="guide/setup.md", url="https://x.org/guide/setup/", title="Setup", labels={"setup-label": "Setting up"})
    md = ("See [the setup](setup.md#step) and [ref][s] and <a href=\"../guide/setup/\">html</a>, not [other](other.md).\n\n"
          "[s]: ./setup.md\n")
    found = links_to(md, "guide/index.md", "https://x.org/guide/", target, "mkdocs")
    assert [(f.link_kind, f.anchor_text) for f in found] == [("inline", "the setup"), ("reference", "ref"), ("html", "html")]
    rst = "Read :doc:`setup`, :doc:`the guide <../guide/setup>` and :ref:`setup-label`.\n\n.. toctree::\n\n   setup\n   Other <other>\n"
    found = links_to(rst, "guide/index.rst", "https://x.org/guide/", Target(path="guide/setup.rst", url=target.url, title="Setup",
                                                                           labels=target.labels), "sphinx")
    assert [(f.link_kind, f.anchor_text) for f in found] == [("role:doc:implicit", "Setup"), ("role:doc", "the guide"),
                                                             ("role:ref:implicit", "Setting up"), ("toctree:implicit", "Setup")]
