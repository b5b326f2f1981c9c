"""Links of a MkDocs project followed the way MkDocs renders them and the built site serves them,
on small self-made projects (one per class of mistake seen on real projects)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trees import write_tree as write

from linkfix.check.local import LocalChecker
from linkfix.config import Config
from linkfix.inputs.sources import collect
from linkfix.model import LinkKind, Page, Scope, Status
from linkfix.pipeline import run_check


async def results(tmp_path: Path, files: dict[str, str], *, config: str = "mkdocs.yml", **settings):
    """{(page, url as written): CheckResult} of an offline check of the project; a link written
    in raw HTML is keyed ("html", page, url)."""
    write(tmp_path, files)
    report = await run_check([str(tmp_path / config)], Config(offline=True, cache=False, **settings))
    return {("html",) * (r.link.kind is LinkKind.HTML) + (Path(r.link.span.path).relative_to(tmp_path / "docs").as_posix(), r.link.url): r.result
            for r in report.results if Path(r.link.span.path).is_relative_to(tmp_path / "docs")}  # (nav entries: in mkdocs.yml)


def status(result):
    return result.status, result.reason


PAGES = {
    "docs/index.md": "# Home\n",
    "docs/a.md": "# A\n",
    "docs/b.md": "# B\n\n## Section\n",
    "docs/guide/index.md": "# Guide\n",
    "docs/img/logo.png": "",
}


# -- page.md/#frag and /page.md ------------------------------------------------------------------------
async def test_page_md_with_a_slash_before_the_fragment_resolves_as_mkdocs_does(tmp_path):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n",
                                   "docs/a.md": "# A\n\n[s](b.md/#section) [t](b.md/#nope)\n"})
    assert got[("a.md", "b.md/#section")].status is Status.OK
    assert status(got[("a.md", "b.md/#nope")]) == (Status.BROKEN, "missing-fragment")


async def test_root_relative_md_links_are_left_as_written_and_broken_once_published(tmp_path):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n",
                                   "docs/a.md": "# A\n\n[md](/b.md) [url](/b/#section) [img](/img/logo.png)\n"})
    broken = got[("a.md", "/b.md")]
    assert status(broken) == (Status.BROKEN, "missing-file")
    assert "root-relative links as written" in broken.detail and "publishes b.md at /b/" in broken.detail
    assert got[("a.md", "/b/#section")].status is Status.OK
    assert got[("a.md", "/img/logo.png")].status is Status.OK


async def test_root_relative_md_links_resolve_when_mkdocs_makes_them_relative_to_docs(tmp_path):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\nvalidation:\n  links:\n    absolute_links: relative_to_docs\n",
                                   "docs/a.md": "# A\n\n[md](/b.md#section)\n"})
    assert got[("a.md", "/b.md#section")].status is Status.OK


# -- links left as written resolve against the built page URL ---------------------------------------------
RAW = ('# A\n\n<a href="../b/">dir url</a> <a href="b.md">raw md</a> <a href="../b.html">html</a>\n\n'
       "[unrecognized](../b) [markdown](b.md)\n")


async def test_raw_html_resolves_against_the_directory_url_of_the_page(tmp_path):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n", "docs/a.md": RAW})
    assert got[("html", "a.md", "../b/")].status is Status.OK  # /a/ -> /b/
    raw_md = got[("html", "a.md", "b.md")]
    assert status(raw_md) == (Status.BROKEN, "missing-file") and "/a/b.md" in raw_md.detail
    assert got[("a.md", "b.md")].status is Status.OK  # the same target in Markdown syntax: MkDocs rewrites it
    assert got[("html", "a.md", "../b.html")].status is Status.BROKEN  # /b.html: no such URL with directory URLs
    assert got[("a.md", "../b")].status is Status.OK  # unrecognized, left as written: /b -> /b/


@pytest.mark.parametrize("setting", ["use_directory_urls: false\n", "plugins:\n  - search\n  - offline\n"])
async def test_raw_html_resolves_against_the_page_html_url(tmp_path, setting):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n" + setting, "docs/a.md": RAW})
    climbs = got[("html", "a.md", "../b/")]  # written for /a/, but the page is /a.html
    assert status(climbs) == (Status.BROKEN, "outside-root") and "/a.html" in climbs.detail
    assert got[("html", "a.md", "../b.html")].status is Status.BROKEN
    assert got[("html", "a.md", "b.md")].status is Status.BROKEN
    assert got[("a.md", "b.md")].status is Status.OK
    assert got[("a.md", "../b")].status is Status.BROKEN  # /b: no such file, only /b.html


async def test_an_unrecognized_link_breaks_on_the_missing_id_not_on_the_source_tree(tmp_path):
    # httpx: ../advanced/transports#asgitransport from async.md, page async/, id asgi-transport
    got = await results(tmp_path, {
        "mkdocs.yml": "site_name: X\n",
        "docs/async.md": "# Async\n\n[t](../advanced/transports#asgitransport) [u](../advanced/transports#asgi-transport)\n",
        "docs/advanced/transports.md": "# Transports\n\n## ASGI Transport\n",
    })
    assert status(got[("async.md", "../advanced/transports#asgitransport")]) == (Status.BROKEN, "missing-fragment")
    assert got[("async.md", "../advanced/transports#asgi-transport")].status is Status.OK


async def test_a_link_to_a_page_mkdocs_does_not_publish_is_broken(tmp_path):
    got = await results(tmp_path, {
        **PAGES, "mkdocs.yml": "site_name: X\n",
        "docs/templates/t.md": "# T\n", "docs/guide/README.md": "# Readme\n",
        "docs/a.md": "# A\n\n[t](templates/t.md) [r](guide/README.md) [g](guide/index.md)\n",
    })
    assert "exclude_docs" in got[("a.md", "templates/t.md")].detail
    assert "conflicts with guide/index.md" in got[("a.md", "guide/README.md")].detail
    assert got[("a.md", "guide/index.md")].status is Status.OK


# -- mkdocs-redirects ------------------------------------------------------------------------------------------
REDIRECTS = {
    **PAGES,
    "mkdocs.yml": ("site_name: X\nsite_url: https://docs.example.org/\nplugins:\n  - redirects:\n      redirect_maps:\n"
                   "        old.md: b.md\n        gone.md: nowhere.md\n"),
    # a.md is published at /a/: ../old/ is /old/, where the stub is
    "docs/a.md": ("# A\n\n[1](old.md#section) [2](old.md#x) [3](../old/#x) [4](https://docs.example.org/old/#x) "
                  "[5](../old/) [6](../gone/) [7](gone.md) [8](old/)\n"),
}


async def test_a_fragment_through_a_redirect_is_checked_on_the_target_page(tmp_path):
    got = await results(tmp_path, REDIRECTS)
    assert got[("a.md", "old.md#section")].status is Status.REDIRECTED
    assert got[("a.md", "../old/")].status is Status.REDIRECTED
    assert got[("a.md", "old/")].status is Status.BROKEN  # /a/old/
    for url in ("old.md#x", "../old/#x", "https://docs.example.org/old/#x"):
        assert status(got[("a.md", url)]) == (Status.BROKEN, "missing-fragment"), url
        assert "b.md" in got[("a.md", url)].detail


async def test_a_redirect_to_a_missing_page_is_broken(tmp_path):
    got = await results(tmp_path, REDIRECTS)
    assert got[("a.md", "../gone/")].status is Status.BROKEN  # mkdocs-redirects writes no stub
    assert "nowhere.md, which does not exist" in got[("a.md", "gone.md")].detail


async def test_a_meta_refresh_to_a_missing_page_is_broken(tmp_path):
    got = await results(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n",
                                   "docs/moved.md": '<meta http-equiv="refresh" content="0; url=../nowhere/">\n\n# Moved\n',
                                   "docs/moved2.md": '<meta http-equiv="refresh" content="0; url=../b/">\n\n# Moved\n'})
    assert got[("html", "moved.md", "../nowhere/")].status is Status.BROKEN
    assert got[("html", "moved2.md", "../b/")].status is Status.OK  # /moved2/ -> /b/


# -- URLs under site_url that this build does not hold --------------------------------------------------
LINKS_BESIDE = ("[zh](https://docs.example.org/zh/) [zh2](https://docs.example.org/zh/tutorial/) "
                "[py](https://docs.example.org/api/python/stable/x.html) [gone](https://docs.example.org/removed-page/) "
                "[b](https://docs.example.org/b/#section) [root](/es/features/)\n")
SITE = {
    **PAGES, "docs/api/index.md": "# API\n",
    "mkdocs.yml": "site_name: X\nsite_url: https://docs.example.org/\n",
    "docs/a.md": "# A\n\n" + LINKS_BESIDE,
}
# The same site, saying what is deployed beside it: a build per language (an i18n plugin) and an
# API reference the nav links to on the site's host.
SITE_SAYS = {
    **SITE, "mkdocs.yml": ("site_name: X\nsite_url: https://docs.example.org/\nplugins:\n  - i18n\n"
                           "nav:\n  - A: a.md\n  - Python API: https://docs.example.org/api/python/stable/\n"),
}


async def test_a_site_path_the_build_lacks_is_broken_when_nothing_says_another_deployment_serves_it(tmp_path):
    """Issue 44.6: a single deployment's missing pages, linked as site paths (`/es/features/`), were
    excluded as "another language, version or deployment" because their first directory was named
    like a language. A URL written in full, host and all, is how a page links to another deployment
    on its host (an API reference): that is still taken to be beside the build."""
    got = await results(tmp_path, SITE)
    assert got[("a.md", "/es/features/")].status is Status.BROKEN
    for url in ("https://docs.example.org/zh/", "https://docs.example.org/zh/tutorial/",
                "https://docs.example.org/api/python/stable/x.html"):
        assert status(got[("a.md", url)]) == (Status.EXCLUDED, "outside-build"), url
    assert got[("a.md", "https://docs.example.org/removed-page/")].status is Status.BROKEN
    assert got[("a.md", "https://docs.example.org/b/#section")].status is Status.OK


async def test_urls_beside_the_build_are_not_broken_offline_where_the_project_says_so(tmp_path):
    got = await results(tmp_path, SITE_SAYS)
    for url in ("https://docs.example.org/zh/", "https://docs.example.org/zh/tutorial/",
                "https://docs.example.org/api/python/stable/x.html", "/es/features/"):
        assert status(got[("a.md", url)]) == (Status.EXCLUDED, "outside-build"), url
    assert got[("a.md", "https://docs.example.org/removed-page/")].status is Status.BROKEN
    assert got[("a.md", "https://docs.example.org/b/#section")].status is Status.OK


def test_urls_beside_the_build_are_external_urls_online(tmp_path):
    write(tmp_path, SITE_SAYS)
    config = Config(cache=False)
    project = collect([str(tmp_path / "mkdocs.yml")], config)
    checker = LocalChecker(project, config)
    page = Page(path="a.md")
    target = checker.resolve("/es/features/#x", page, "a.md")
    assert (target.scope, target.resolved, target.result) == (Scope.EXTERNAL, "https://docs.example.org/es/features/#x", None)
    assert checker.resolve("https://docs.example.org/zh/", page, "a.md").scope is Scope.EXTERNAL


async def test_a_versioned_site_url_maps_its_own_version_and_leaves_the_others(tmp_path):
    got = await results(tmp_path, {
        **PAGES, "mkdocs.yml": "site_name: X\nsite_url: https://docs.example.org/en/stable/\n",
        "docs/a.md": "# A\n\n[own](/en/stable/b/#section) [other](/en/latest/b/) [up](../../latest/b/) [host](/blog/)\n",
    })
    assert got[("a.md", "/en/stable/b/#section")].status is Status.OK
    for url in ("/en/latest/b/", "../../latest/b/", "/blog/"):
        assert status(got[("a.md", url)]) == (Status.EXCLUDED, "outside-build"), url


# -- a built site ----------------------------------------------------------------------------------------------
async def test_root_relative_links_under_the_base_url_path_map_to_the_site_root(tmp_path):
    write(tmp_path, {
        "site/index.html": '<a href="/prefix/sub/">sub</a> <a href="/prefix/nope/">nope</a> <a href="/other/x/">other</a>',
        "site/sub/index.html": "<h1>Sub</h1>",
    })
    report = await run_check([str(tmp_path / "site")], Config(offline=True, cache=False, base_url="https://h.example/prefix/"))
    got = {r.link.url: r.result for r in report.results}
    assert got["/prefix/sub/"].status is Status.OK
    assert status(got["/prefix/nope/"]) == (Status.BROKEN, "missing-file")
    assert status(got["/other/x/"]) == (Status.EXCLUDED, "outside-build")


# -- the host's redirects (vercel.json, _redirects, netlify.toml) -------------------------------------------------
# A site deployed to Vercel keeps its old `.html` URLs and moved pages alive with the redirects of
# the vercel.json it publishes at its root: a link to one works for every reader.
HOSTED = {
    **PAGES,
    "mkdocs.yml": "site_name: X\nsite_url: https://docs.example.org/\n",
    "docs/b.md": "# B\n\n<a name=\"kept\"></a>\n\n## Section\n",
    "docs/vercel.json": ('{"redirects": ['
                         '{"source": "/b.html", "destination": "/b/", "permanent": true},'
                         '{"source": "/old/:name*", "destination": "/:name*"},'
                         '{"source": "/lost.html", "destination": "/nowhere/"},'
                         '{"source": "/cookie.html", "destination": "/b/", "has": [{"type": "cookie", "key": "x"}]},'
                         '{"source": "/elsewhere", "destination": "https://other.example.com/page"}],'
                         '"rewrites": [{"source": "/api/(.*)", "destination": "/b/"}]}'),
    "docs/a.md": ('# A\n\n<a href="../b.html#kept">1</a> <a href="../b.html#nope">2</a> [3](https://docs.example.org/old/b/#section) '
                  '[4](/lost.html) [5](/cookie.html) [6](/elsewhere) [7](https://docs.example.org/api/v1/x) [8](/c.html)\n'),
}


async def test_a_url_the_host_redirects_is_redirected_and_its_fragment_checked_where_it_lands(tmp_path):
    got = await results(tmp_path, HOSTED)
    kept = got[("html", "a.md", "../b.html#kept")]
    assert (kept.status, kept.reason, kept.final_url) == (Status.REDIRECTED, "host-redirect", "/b/")
    assert "docs/vercel.json" in kept.detail
    assert status(got[("html", "a.md", "../b.html#nope")]) == (Status.BROKEN, "missing-fragment")
    assert got[("a.md", "https://docs.example.org/old/b/#section")].status is Status.REDIRECTED  # :name* carried over
    assert got[("a.md", "/elsewhere")].status is Status.REDIRECTED  # another site: its page is checked online
    assert got[("a.md", "https://docs.example.org/api/v1/x")].status is Status.OK  # a rewrite serves /b/ there


async def test_a_host_redirect_to_nothing_a_conditional_one_and_none_at_all_are_broken(tmp_path):
    got = await results(tmp_path, HOSTED)
    lost = got[("a.md", "/lost.html")]
    assert lost.status is Status.BROKEN and "which the built site does not have" in lost.detail
    assert got[("a.md", "/cookie.html")].status is Status.BROKEN  # only for readers with that cookie
    assert got[("a.md", "/c.html")].status is Status.BROKEN


async def test_netlify_and_cloudflare_redirects_files_are_read_from_the_site_root_and_the_project_top(tmp_path):
    files = {**PAGES, "mkdocs.yml": "site_name: X\n", "docs/b.md": "# B\n",
             "docs/_redirects": "# moved in 2024\n/b.html /b/ 301\n/q id=:id /b/ 301\n/gone.html /b/ 404\n",
             "netlify.toml": '[[redirects]]\nfrom = "/old/*"\nto = "/:splat"\n\n[[redirects]]\nfrom = "/en/*"\nto = "/:splat"\n'
                             'conditions = {Language = ["en"]}\n',
             "docs/a.md": "# A\n\n[1](/b.html) [2](/old/b/) [3](/gone.html) [4](/en/b/) [5](/q)\n"}
    got = await results(tmp_path, files)
    assert (got[("a.md", "/b.html")].status, got[("a.md", "/b.html")].reason) == (Status.REDIRECTED, "host-redirect")
    assert "docs/_redirects" in got[("a.md", "/b.html")].detail
    assert got[("a.md", "/old/b/")].status is Status.REDIRECTED and "netlify.toml" in got[("a.md", "/old/b/")].detail
    for url in ("/gone.html", "/en/b/", "/q"):  # a 404 rule, a rule for one language, a rule on a query
        assert got[("a.md", url)].status is Status.BROKEN, url


# -- mkdocs-jupyter: notebooks (and scripts) published as pages ---------------------------------------------------
NOTEBOOKS = {
    **PAGES,
    "mkdocs.yml": ("site_name: X\nsite_url: https://docs.example.org/\nplugins:\n  - mkdocs-jupyter:\n      ignore: ['drafts/*']\n"
                   "  - redirects:\n      redirect_maps:\n        old.md: tutorials/rag/index.ipynb\n"),
    "docs/tutorials/rag/index.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
    "docs/nb.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
    "docs/drafts/wip.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
    "docs/a.md": ("# A\n\n[1](https://docs.example.org/tutorials/rag/) [2](/nb/) [3](../nb/) [4](nb.ipynb) [5](old.md) "
                  "[6](/drafts/wip/) [7](/drafts/wip.ipynb)\n"),
}


async def test_notebooks_mkdocs_jupyter_converts_are_pages_at_a_pages_url(tmp_path):
    got = await results(tmp_path, NOTEBOOKS)
    for url in ("https://docs.example.org/tutorials/rag/", "/nb/", "../nb/", "nb.ipynb"):
        assert got[("a.md", url)].status is Status.OK, url
    assert got[("a.md", "old.md")].status is Status.REDIRECTED  # a stub is written: its target is a page
    assert got[("a.md", "/drafts/wip/")].status is Status.BROKEN  # ignored: copied as a file, not a page
    assert got[("a.md", "/drafts/wip.ipynb")].status is Status.OK


async def test_without_mkdocs_jupyter_a_notebook_is_a_file(tmp_path):
    files = {**NOTEBOOKS, "mkdocs.yml": "site_name: X\nsite_url: https://docs.example.org/\n"}
    got = await results(tmp_path, files)
    assert got[("a.md", "https://docs.example.org/tutorials/rag/")].status is Status.BROKEN  # tutorials/rag/ holds no page
    assert got[("a.md", "nb.ipynb")].status is Status.OK  # the file itself, copied as it is


async def test_a_page_that_is_also_a_redirect_maps_key_is_served_as_the_stub(tmp_path):
    # mkdocs-redirects writes its stubs after the build, over the page the key names when it exists
    files = {**PAGES, "mkdocs.yml": "site_name: X\nplugins:\n  - redirects:\n      redirect_maps:\n        kept.md: b.md\n",
             "docs/kept.md": "# Kept\n\n## Async tools\n", "docs/a.md": "# A\n\n[1](kept.md#async-tools) [2](kept.md#section) [3](../kept/)\n"}
    got = await results(tmp_path, files)
    assert status(got[("a.md", "kept.md#async-tools")]) == (Status.BROKEN, "missing-fragment")  # b.md has no such id
    assert got[("a.md", "kept.md#section")].status is Status.REDIRECTED
    assert got[("a.md", "../kept/")].status is Status.REDIRECTED


async def test_a_properdocs_config_is_a_mkdocs_config_for_the_files_of_its_docs(tmp_path):
    # ProperDocs carries MkDocs 1.6 on under its own config name: pre-commit passes the pages alone
    write(tmp_path, {**PAGES, "properdocs.yml": "site_name: X\n", "docs/a.md": "# A\n\n[b](../b/) [c](../c/)\n"})
    report = await run_check([str(tmp_path / "docs" / "a.md")], Config(offline=True, cache=False))
    got = {r.link.url: r.result.status for r in report.results}
    assert got == {"../b/": Status.OK, "../c/": Status.BROKEN}  # followed from the page's URL /a/


async def test_the_docs_dir_or_a_directory_of_it_given_is_checked_by_mkdocs_rules(tmp_path):
    # `linkfix check docs`: as the published site follows the links, not as files side by side
    write(tmp_path, {**PAGES, "mkdocs.yml": "site_name: X\n", "docs/a.md": "# A\n\n[b](../b/) [c](../c/)\n",
                     "docs/guide/more.md": "# More\n\n[b](../../b/#section)\n", "docs/drafts/.hidden.md": "[x](nowhere/)\n"})
    for given in ("docs", "docs/guide"):
        report = await run_check([str(tmp_path / given)], Config(offline=True, cache=False))
        got = {r.link.url: r.result.status for r in report.results}
        expected = {"../../b/#section": Status.OK}
        if given == "docs":
            expected |= {"../b/": Status.OK, "../c/": Status.BROKEN}
        assert got == expected, given


async def test_a_docs_file_a_build_step_of_the_repository_writes_is_unverified(tmp_path):
    # datamodel-code-generator's docs workflow runs `cp CHANGELOG.md docs/changelog.md` before the build
    files = {**PAGES, "mkdocs.yml": "site_name: X\nnav:\n  - index.md\n  - changelog.md\n  - missing.md\n",
             "docs/a.md": "# A\n\n[1](changelog.md) [2](other.md)\n",
             ".github/workflows/docs.yaml": "jobs:\n  docs:\n    steps:\n      - run: cp CHANGELOG.md docs/changelog.md\n"
                                           "      - run: mkdocs build\n"}
    write(tmp_path, files)
    report = await run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False))
    got = {r.link.url: r.result for r in report.results if r.link.anchor_text != "nav entry"}
    assert got["changelog.md"].status is Status.UNVERIFIED and ".github/workflows/docs.yaml" in got["changelog.md"].detail
    assert got["other.md"].status is Status.BROKEN
    nav = {r.link.url: r.result.status for r in report.results if r.link.anchor_text == "nav entry"}
    assert nav == {"index.md": Status.OK, "changelog.md": Status.UNVERIFIED, "missing.md": Status.BROKEN}


async def test_read_the_docs_serves_other_versions_beside_the_build(tmp_path):
    got = await results(tmp_path, {
        **PAGES, "mkdocs.yml": "site_name: X\nsite_url: https://proj.readthedocs.io/\n",
        "docs/a.md": "# A\n\n[latest](https://proj.readthedocs.io/en/latest/b/) [v2](https://proj.readthedocs.io/en/support-v2/x.html)\n"})
    for url in ("https://proj.readthedocs.io/en/latest/b/", "https://proj.readthedocs.io/en/support-v2/x.html"):
        assert status(got[("a.md", url)]) == (Status.EXCLUDED, "outside-build"), url
