"""Which docs files MkDocs publishes, and at which URL (the rules of MkDocs 1.6's File)."""

from pathlib import Path

from linkfix.mkdocs.config.project import MkDocsProject
from linkfix.mkdocs.structure.files import MkDocsFiles

DOCS = ["index.md", "a.md", "guide/index.md", "guide/README.md", "about/README.md", "img/x.png",
        ".hidden/y.md", "templates/t.md", "sub/templates/ok.md", "c.md", "c/index.md"]


def files(directory_urls=True, **settings):
    mk = MkDocsProject(config_file=Path("/p/mkdocs.yml"), docs_dir=Path("/p/docs"), use_directory_urls=directory_urls, **settings)
    return MkDocsFiles(mk, DOCS)


def test_urls_with_and_without_directory_urls():
    with_dirs, flat = files(), files(directory_urls=False)
    assert [with_dirs.pages[p] for p in ("index.md", "a.md", "guide/index.md", "about/README.md")] == ["", "a/", "guide/", "about/"]
    assert [flat.pages[p] for p in ("index.md", "a.md", "guide/index.md", "about/README.md")] == [
        "index.html", "a.html", "guide/index.html", "about/index.html"]


def test_what_mkdocs_leaves_out():
    site = files(draft_docs=("a.md",))
    assert set(site.excluded) == {".hidden/y.md", "templates/t.md", "guide/README.md", "a.md"}
    assert "conflicts with guide/index.md" in site.excluded["guide/README.md"]
    # c.md and c/index.md: MkDocs compares destinations within a directory only, so it builds
    # both to c/index.html and the one written last (c/index.md) is what the URL serves
    assert site.pages["c.md"] == "c/" and site.overwritten == {"c.md": "c/index.md"}
    assert site.serve("c/").target == "c/index.md"
    assert "sub/templates/ok.md" in site.pages  # /templates/ is anchored at the docs root


def test_what_the_built_site_serves():
    site = files(redirects={"old.md": "a.md", "lost.md": "missing.md"})
    assert site.serve("a/").target == "a.md" and site.serve("a").target == "a.md"  # the server adds the slash
    assert site.serve("").target == "index.md" and site.serve("img/x.png").kind == "asset"
    assert (site.serve("old/").kind, site.serve("old/").target) == ("redirect", "old.md")
    assert site.serve("lost/") is None and site.serve("a.md") is None and site.serve("a.html") is None
    flat = files(directory_urls=False)
    assert flat.serve("a.html").target == "a.md" and flat.serve("a") is None and flat.serve("a/") is None
    assert site.has_directory("guide") and not site.has_directory("zh")
