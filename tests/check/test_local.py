"""Resolution and internal checks, with hand-made pages (no extractor involved)."""

from pathlib import Path

import pytest

from linkfix.check.local import LocalChecker
from linkfix.config import Config
from linkfix.extract.pages import SitePages
from linkfix.inputs.sources import Project
from linkfix.mkdocs.config.project import MkDocsProject
from linkfix.model import Page, Scope, Status


def make(files, *, markdown=False, config=None, ids=None, mkdocs=None, root=Path("/site")):
    dirs = {""}
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    project = Project(files=[], root=root, markdown=markdown, mkdocs=mkdocs,
                      site_files=frozenset(files), site_dirs=frozenset(dirs))
    pages = {f: Page(path=f, ids=frozenset((ids or {}).get(f, ()))) for f in files if f.endswith((".html", ".md"))}
    return LocalChecker(project, config or Config(), SitePages(pages=pages))


def outcome(checker, url, page_rel, page=None):
    page = page or checker.pages.get(page_rel) or Page(path=page_rel)
    target = checker.resolve(url, page, page_rel)
    return target, checker.check(target)


SITE = ["index.html", "guide/index.html", "guide/install.html", "api/index.html", "img/logo.png"]


@pytest.mark.parametrize(
    "url, page_rel, resolved, status, reason",
    [
        ("guide/install.html", "index.html", "guide/install.html", Status.OK, ""),
        ("install.html?x=1", "guide/index.html", "guide/install.html", Status.OK, ""),
        ("guide/", "index.html", "guide/", Status.OK, ""),
        ("guide", "index.html", "guide", Status.OK, ""),
        ("/api/", "guide/install.html", "api/", Status.OK, ""),
        ("../img/logo.png", "guide/index.html", "img/logo.png", Status.OK, ""),
        ("gone.html", "index.html", "gone.html", Status.BROKEN, "missing-file"),
        ("../../escape.html", "guide/index.html", "../escape.html", Status.BROKEN, "outside-root"),
        ("/../etc/passwd", "index.html", "../etc/passwd", Status.BROKEN, "outside-root"),
        ("guide%2Finstall.html", "index.html", "guide/install.html", Status.OK, ""),
        ("", "guide/index.html", "(no source)", Status.BROKEN, "no-source"),  # the scan's image without a source
    ],
)
def test_file_resolution(url, page_rel, resolved, status, reason):
    target, result = outcome(make(SITE), url, page_rel)
    assert target.scope is Scope.INTERNAL
    assert target.resolved == resolved
    assert (result.status, result.reason) == (status, reason)


def test_an_empty_link_of_a_markdown_page_is_the_page_itself():
    target, result = outcome(make(["guide/index.md"], markdown=True), "", "guide/index.md")
    assert (target.resolved, result.status) == ("guide/index.md", Status.OK)


def test_fragments_are_checked_against_the_target_ids():
    checker = make(SITE, ids={"guide/install.html": {"requirements", "legacy"}, "api/index.html": {"func name"}})
    assert outcome(checker, "guide/install.html#requirements", "index.html")[1].status is Status.OK
    missing = outcome(checker, "guide/install.html#nope", "index.html")[1]
    assert (missing.status, missing.reason) == (Status.BROKEN, "missing-fragment")
    assert "no id 'nope'" in missing.detail
    assert outcome(checker, "../api/index.html#func%20name", "guide/install.html")[1].status is Status.OK
    assert outcome(checker, "#legacy", "guide/install.html")[1].status is Status.OK
    assert outcome(checker, "#top", "index.html")[1].status is Status.OK
    assert outcome(checker, "img/logo.png#x", "index.html")[1].status is Status.OK  # not a page


def test_fragments_ignored_when_include_fragments_is_off():
    checker = make(SITE, config=Config(include_fragments=False))
    assert outcome(checker, "guide/install.html#nope", "index.html")[1].status is Status.OK


def test_fragment_in_a_page_outside_the_inputs_is_loaded_on_demand():
    loaded = []

    class Pages(SitePages):
        def extract(self, rel):
            loaded.append(rel)
            return Page(path=rel, ids=frozenset({"x"})) if rel == "api/index.html" else None

    checker = make(SITE)
    checker.pages = Pages(pages={rel: page for rel, page in checker.pages.items() if rel != "api/index.html"})
    assert outcome(checker, "api/index.html#x", "index.html")[1].status is Status.OK
    assert outcome(checker, "api/index.html#y", "index.html")[1].status is Status.BROKEN
    assert loaded == ["api/index.html"]  # read once
    assert checker.pages.page("gone.html") is None and checker.pages.page("gone.html") is None
    assert loaded == ["api/index.html", "gone.html"]  # an unreadable page is not tried again


@pytest.mark.parametrize(
    "url, scope",
    [
        ("https://example.com/x", Scope.EXTERNAL),
        ("//cdn.example.com/a.js", Scope.EXTERNAL),
        ("mailto:a@b.c", Scope.UNSUPPORTED),
        ("javascript:void(0)", Scope.UNSUPPORTED),
        ("tel:+123", Scope.UNSUPPORTED),
    ],
)
def test_schemes(url, scope):
    target, result = outcome(make(SITE), url, "index.html")
    assert target.scope is scope
    if scope is Scope.UNSUPPORTED:
        assert result.status is Status.UNSUPPORTED


def test_protocol_relative_becomes_https():
    assert outcome(make(SITE), "//cdn.example.com/a.js", "index.html")[0].resolved == "https://cdn.example.com/a.js"


def test_base_url_links_are_local_files():
    checker = make(SITE, config=Config(base_url="https://docs.example.org/"))
    target, result = outcome(checker, "https://docs.example.org/guide/install.html", "index.html")
    assert target.scope is Scope.INTERNAL and result.status is Status.OK
    target, result = outcome(checker, "https://docs.example.org/nope.html", "index.html")
    assert result.reason == "missing-file"


def test_absolute_base_href_makes_relative_links_external():
    page = Page(path="index.html", base="https://other.example/dir/")
    target, _ = outcome(make(SITE), "x.html", "index.html", page)
    assert (target.scope, target.resolved) == (Scope.EXTERNAL, "https://other.example/dir/x.html")


def test_relative_base_href_moves_resolution():
    page = Page(path="index.html", base="guide/")
    target, result = outcome(make(SITE), "install.html", "index.html", page)
    assert target.resolved == "guide/install.html" and result.status is Status.OK


MD = ["index.md", "faq.md", "guide/index.md", "guide/install.md", "about/README.md", "img/logo.png"]


@pytest.mark.parametrize(
    "url, page_rel, status",
    [
        ("guide/install.md", "index.md", Status.OK),
        ("guide/", "index.md", Status.OK),  # guide/index.md
        ("about/", "index.md", Status.OK),  # about/README.md
        ("../faq/", "guide/install.md", Status.OK),  # directory URL of faq.md
        ("install.html", "guide/index.md", Status.OK),  # built name of install.md
        ("install", "guide/index.md", Status.OK),
        ("/guide/install.md", "faq.md", Status.OK),
        ("instal.md", "guide/index.md", Status.BROKEN),
    ],
)
def test_markdown_sources_map_like_mkdocs(url, page_rel, status):
    assert outcome(make(MD, markdown=True), url, page_rel)[1].status is status


def test_mkdocs_redirect_maps_are_not_broken():
    mk = MkDocsProject(config_file=Path("/p/mkdocs.yml"), docs_dir=Path("/site"), redirects={"old.md": "guide/install.md"})
    checker = make(MD, markdown=True, mkdocs=mk)
    for url in ("old.md", "old/", "old.html"):
        result = outcome(checker, url, "index.md")[1]
        assert result.status is Status.REDIRECTED, url
        assert result.final_url == "guide/install.md"


def test_mkdocs_site_url_path_prefix_is_stripped_from_root_relative_links():
    mk = MkDocsProject(config_file=Path("/p/mkdocs.yml"), docs_dir=Path("/site"), site_url="https://x.org/proj/")
    checker = make(MD, markdown=True, mkdocs=mk)
    assert outcome(checker, "/proj/guide/install/", "index.md")[1].status is Status.OK
    assert outcome(checker, "https://x.org/proj/faq/", "index.md")[1].status is Status.OK


def test_results_are_shared_per_target():
    checker = make(SITE)
    a = outcome(checker, "gone.html", "index.html")[1]
    b = outcome(checker, "../gone.html", "guide/index.html")[1]
    assert a is b


def test_a_page_read_only_for_its_ids_is_not_counted_among_the_files_checked(tmp_path):
    import asyncio

    from linkfix.pipeline import run_check

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n[b](b.md#there) [gone](b.md#gone)\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\n## There\n", encoding="utf-8")
    report = asyncio.run(run_check([str(docs / "a.md")], Config(offline=True, cache=False)))
    assert report.files == 1  # b.md was read for its ids, not checked
    assert [r.result.status for r in report.results] == [Status.OK, Status.BROKEN]
