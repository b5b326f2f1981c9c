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
