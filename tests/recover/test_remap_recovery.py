"""Recovery through `remap`ped requests names its candidates as the docs name them."""

from datetime import UTC, datetime

from linkfix.config import Config
from linkfix.model import CheckResult, Link, LinkKind, LinkResult, Page, Scope, Span, Status
from linkfix.recover import recover_all

from .conftest import FakeClient

PAGE = "<html><head><title>Install</title></head><body><main><h1>Install</h1><p>How to install it.</p></main></body></html>"


async def test_a_rewrite_that_redirects_in_request_space_is_suggested_in_document_space():
    dead = "http://docs.example.org/guide/install.html"
    # what the checker would answer through the rule: the https rewrite redirects, and the
    # redirect's target is on the remapped (loopback) host
    client = FakeClient({"http://127.0.0.2:8080/guide/setup.html": (200, PAGE)})
    client.redirects["https://docs.example.org/guide/install.html"] = "http://127.0.0.2:8080/guide/setup.html"
    config = Config(suggest=True, archive=[], search=[], remap=[r"^https?://docs\.example\.org/ http://127.0.0.2:8080/"])
    link = Link(url=dead, kind=LinkKind.INLINE, span=Span(path="index.md", line=1, column=1, start=0, end=len(dead)),
                page=Page(path="index.md"), anchor_text="install guide")
    item = LinkResult(link=link, resolved=dead, scope=Scope.EXTERNAL,
                      result=CheckResult(url=dead, status=Status.BROKEN, reason="404", http_status=404))
    [out] = await recover_all([item], config=config, client=client, cache=None,
                              link_times={dead: datetime(2023, 1, 1, tzinfo=UTC)})
    assert out.suggestions, "the control: the rewrite was found"
    assert [c.url for c in out.suggestions] == ["https://docs.example.org/guide/setup.html"]


async def test_a_page_read_through_a_redirect_in_request_space_is_one_candidate_with_its_name_in_the_docs():
    from linkfix.recover.recoverer import Recoverer
    from linkfix.recover.trace import DROPPED, RANKED_BELOW, SUGGESTED

    host = "https://docs.example.org"
    dead = f"{host}/latest/guide/frob/"
    home = f"{host}/latest/"
    pages = [home, f"{host}/latest/guide/other/", f"{host}/latest/guide/more/", f"{host}/latest/api/calls/"]
    client = FakeClient({
        f"{host}/robots.txt": (200, f"Sitemap: {host}/sitemap.xml\n"),
        f"{host}/sitemap.xml": (200, "<urlset>" + "".join(f"<url><loc>{p}</loc></url>" for p in pages) + "</urlset>"),
        home: (200, PAGE),
        f"{host}/latest/guide/frob": (404, ""),  # the dead page and its rewrites
        "http://127.0.0.2:8080/latest/": (200, PAGE),
        **{p: (200, PAGE.replace("Install", p.rsplit("/", 2)[1])) for p in pages[1:]},
    })
    # the site's root redirects to its /latest/ home; through the rule, to the loopback host
    client.redirects[f"{host}/"] = "http://127.0.0.2:8080/latest/"
    config = Config(suggest=True, archive=[], search=[{"provider": "site"}], remap=[r"^https?://docs\.example\.org/ http://127.0.0.2:8080/"])
    recoverer = Recoverer(config=config, client=client, cache=None, link_times={})
    link = Link(url=dead, kind=LinkKind.INLINE, span=Span(path="index.md", line=1, column=1, start=0, end=len(dead)),
                page=Page(path="index.md"), anchor_text="frob guide")
    item = LinkResult(link=link, resolved=dead, scope=Scope.EXTERNAL,
                      result=CheckResult(url=dead, status=Status.BROKEN, reason="404", http_status=404))
    trace = await recoverer.recover_traced(item)
    assert f"{host}/" in {c.url for c in trace.candidates}, "the control: the site's root was read"
    ranked = [c.final_url for c in trace.candidates if c.verdict in (SUGGESTED, RANKED_BELOW)]
    assert "http://127.0.0.2:8080/latest/" not in ranked
    assert ranked.count(home) == 1
    assert [c.verdict for c in trace.candidates if c.url in (f"{host}/", home)].count(DROPPED) == 1  # as the same page


async def test_a_cached_page_keeps_its_name_in_the_docs_when_the_remap_target_moves(tmp_path):
    # A page read through a redirect is cached under its URL; the cache must hold where it
    # ended up as the docs name it, not in this run's request space: the next run may remap
    # to another address (a staging port that changed), where the old request-space URL would
    # be a second, foreign-looking candidate.
    from linkfix.recover.recoverer import Recoverer
    from linkfix.store.cache import Cache

    host = "https://docs.example.org"
    home = f"{host}/latest/"

    async def read_root(port: int) -> str:
        rule = rf"^https?://docs\.example\.org/ http://127.0.0.2:{port}/"
        client = FakeClient({f"http://127.0.0.2:{port}/latest/": (200, PAGE)})
        client.redirects[f"{host}/"] = f"http://127.0.0.2:{port}/latest/"
        with Cache(tmp_path / "cache") as cache:
            recoverer = Recoverer(config=Config(suggest=True, archive=[], search=[], remap=[rule]), client=client, cache=cache,
                                  link_times={})
            page = await recoverer.reader.page(f"{host}/")
        return page.url

    assert await read_root(8080) == home
    assert await read_root(9090) == home  # from the cache, written by the run on port 8080
