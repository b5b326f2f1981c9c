"""A dead link with a #fragment: recovery says whether each suggestion's page has that id, so
that `fix` keeps the fragment only where it still leads somewhere."""

from linkfix.check.http import HttpChecker
from linkfix.config import Config
from linkfix.model import Link, LinkKind, LinkResult, Page, Scope, Span
from linkfix.recover import recover_all
from linkfix.report.common import replacement_url
from linkfix.store.cache import Cache


async def recovered(simweb, dead):
    config = Config(allow_private=True, archive=[], search=[{"provider": "site"}], max_retries=0)
    async with HttpChecker(config, Cache(None), resolver=simweb.resolver) as client:
        check = await client.check(dead.partition("#")[0])
        span = Span(path="page.md", line=1, column=1, start=0, end=len(dead))
        link = Link(url=dead, kind=LinkKind.INLINE, span=span, page=Page(path="page.md"), anchor_text="Setup guide")
        result = LinkResult(link=link, resolved=dead, scope=Scope.EXTERNAL, result=check)
        [out] = await recover_all([result], config=config, client=client, cache=Cache(None))
    return out


async def test_fragment_kept_when_the_new_page_has_the_id(simweb):
    site = simweb.add_site("docs.example.test")
    site.page("/guide/", "<html><title>Setup guide</title><h2 id='setup'>Setup</h2></html>")
    site.page("/guide.html", "gone", status=404)
    out = await recovered(simweb, simweb.url("docs.example.test", "/guide.html#setup"))
    top = out.suggestions[0]
    assert top.url == simweb.url("docs.example.test", "/guide/")
    assert top.evidence["ids"] == ["setup"]
    assert replacement_url(out, top) == (top.url + "#setup", "")


async def test_fragment_dropped_and_said_when_the_id_is_gone(simweb):
    site = simweb.add_site("docs.example.test")
    site.page("/guide/", "<html><title>Setup guide</title><h2 id='install'>Install</h2></html>")
    site.page("/guide.html", "gone", status=404)
    out = await recovered(simweb, simweb.url("docs.example.test", "/guide.html#setup"))
    top = out.suggestions[0]
    assert top.evidence["ids"] == []
    url, caveat = replacement_url(out, top)
    assert url == top.url and "has no such id" in caveat
