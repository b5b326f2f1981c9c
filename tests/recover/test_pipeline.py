"""The decision flow (Martinez-Romo & Araujo Fig. 4 plus the cheap steps), with a fake client."""

from datetime import UTC, datetime

import pytest

from linkfix.config import Config
from linkfix.errors import ConfigError
from linkfix.model import CheckResult, Link, LinkKind, LinkResult, Page, Redirect, Scope, Span, Status
from linkfix.recover import recover_all
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE

from .conftest import FakeClient, data

WB = "http://archive.test"
SX = "http://searx.test"
HOST = "https://docs.example.org"

FROB = (
    "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
    "<p>Frobnicator runs on Linux, macOS and Windows. Install the frobnicator package with pip, "
    "then run frob init in your project directory to create the configuration file.</p>"
    "<p>The installer checks your Python version and the presence of the libfrob shared library. "
    "If libfrob is missing, install it with your system package manager before continuing.</p>"
    "</main></body></html>"
)
OTHER = (
    "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
    "<p>Gardening in small spaces: tomatoes, basil and chillies grow well in pots on a sunny balcony. "
    "Water them in the morning and feed them every two weeks during summer.</p></main></body></html>"
)


def config(**overrides) -> Config:
    settings = dict(
        suggest=True,
        archive=[{"provider": "wayback", "url": WB, "requests_per_minute": 0}],
        search=[{"provider": "site"}, {"provider": "searxng", "url": SX}],
    )
    settings.update(overrides)
    return Config(**settings)


def broken(url: str, anchor: str, *, status=Status.BROKEN, reason="404", context="", redirects=(), final_url="", permanent=False) -> LinkResult:
    page = Page(path="docs/index.md", title="Project notes", text=f"Our notes. {context} {anchor}")
    link = Link(url=url, kind=LinkKind.INLINE, span=Span(path="docs/index.md", line=3, column=5, start=10, end=10 + len(url)),
                page=page, anchor_text=anchor, context=context)
    result = CheckResult(url=url, status=status, reason=reason, http_status=404 if status is Status.BROKEN else 301,
                         redirects=redirects, final_url=final_url, permanent=permanent)
    return LinkResult(link=link, resolved=url, scope=Scope.EXTERNAL, result=result)


def cdx_for(url: str, ts: str = "20200101000000") -> str:
    return f'[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],["k","{ts}","{url}","text/html","200","D","1"]]'


async def recover(client, results, **overrides):
    return await recover_all(results, config=config(**overrides), client=client, cache=None,
                             link_times={r.link.url: datetime(2023, 1, 1, tzinfo=UTC) for r in results})


async def test_permanent_redirect_is_offered_without_any_search():
    client = FakeClient({f"{HOST}/new/install.html": (200, FROB.format(title="Install"))})
    lr = broken(f"{HOST}/old/install.html", "install guide", status=Status.REDIRECTED, reason="",
                redirects=(Redirect(url=f"{HOST}/old/install.html", status=301, location=f"{HOST}/new/install.html"),),
                final_url=f"{HOST}/new/install.html", permanent=True)
    [out] = await recover(client, [lr])
    assert [(c.url, c.method) for c in out.suggestions] == [(f"{HOST}/new/install.html", "redirect")]
    assert out.suggestions[0].confidence >= DEFAULT_AUTOFIX_CONFIDENCE
    assert client.sent == [f"{HOST}/new/install.html"]  # one check, nothing else


async def test_checked_rewrite_wins_before_the_archive_is_asked():
    dead = "http://docs.example.org/guide/install.html"
    client = FakeClient({"https://docs.example.org/guide/install.html": (200, FROB.format(title="Install"))})
    [out] = await recover(client, [broken(dead, "install guide")])
    best = out.suggestions[0]
    assert (best.url, best.method, best.evidence["rule"]) == ("https://docs.example.org/guide/install.html", "rewrite", "https")
    assert best.confidence >= DEFAULT_AUTOFIX_CONFIDENCE
    assert not any(u.startswith(WB) for u in client.sent)
    assert out.archived is None


async def test_rewrite_landing_on_the_home_page_or_a_soft_404_is_rejected():
    dead = "http://docs.example.org/guide/install.html"
    client = FakeClient({
        "https://docs.example.org/": (200, "<title>Home</title>"),
        "https://docs.example.org/guide/install/": (200, "<title>Oops</title>"),
        f"{WB}/cdx/": (200, "[]"),
    })
    client.redirects["https://docs.example.org/guide/install.html"] = "https://docs.example.org/"
    client.soft404.add("https://docs.example.org/guide/install/")
    [out] = await recover(client, [broken(dead, "install guide")])
    assert out.suggestions == ()


async def test_weak_anchor_without_archived_copy_sends_no_search_query():
    dead = f"{HOST}/a/frob-setup.html"
    client = FakeClient({f"{WB}/cdx/": (200, "[]"), SX: (200, data("searxng.json"))})
    [out] = await recover(client, [broken(dead, "click here")])
    assert not any(u.startswith(SX) for u in client.sent)  # Fig. 4: No_recovered by search
    assert all(c.confidence < DEFAULT_AUTOFIX_CONFIDENCE for c in out.suggestions)


async def test_weak_anchor_with_archived_copy_searches_with_title_and_signature_and_ranks_by_copy():
    dead = f"{HOST}/a/frob-setup.html"
    new = "https://frob.example.net/docs/installing"
    decoy = "https://blog.example.net/gardening"
    answer = (
        '{"results": ['
        f'{{"url": "{decoy}", "title": "Installing Frobnicator on a balcony", "content": "x"}},'
        f'{{"url": "{new}", "title": "Setting up", "content": "Frobnicator runs on Linux"}}]}}'
    )
    client = FakeClient({
        f"{WB}/cdx/": (200, cdx_for(dead)),
        f"{WB}/web/20200101000000id_/": (200, FROB.format(title="Installing Frobnicator")),
        SX: (200, answer),
        new: (200, FROB.format(title="Setting up")),
        decoy: (200, OTHER.format(title="Installing Frobnicator on a balcony")),
    })
    [out] = await recover(client, [broken(dead, "here")])
    queries = [u for u in client.sent if u.startswith(SX)]
    assert queries and "q=installing+frobnicator" in queries[0]  # archived title first
    assert out.suggestions[0].url == new and out.suggestions[0].method in ("title", "signature")
    assert out.suggestions[0].evidence["similarity"]["content_cos"] > 0.9
    assert [c.method for c in out.suggestions].index("archive") > 0  # the copy is offered, below the right page
    assert out.archived is not None and out.archived.datetime == "2020-01-01T00:00:00Z"
    # the decoy was fetched and scored: it stays ranked (confidence decides, it does not discard),
    # below the right page and below the auto-fix threshold
    ranked = {c.url: c for c in out.suggestions}
    assert decoy in client.sent and ranked[decoy].confidence < min(DEFAULT_AUTOFIX_CONFIDENCE, out.suggestions[0].confidence)


async def test_anchor_query_without_copy_ranks_by_dice_of_anchor_and_title():
    dead = "https://old.example.com/frobnicator/manual"
    right = "https://frob.example.net/manual"
    wrong = "https://frob.example.net/news"
    answer = (
        '{"results": ['
        f'{{"url": "{wrong}", "title": "Frobnicator news", "content": "release notes"}},'
        f'{{"url": "{right}", "title": "Frobnicator Reference Manual", "content": "manual"}}]}}'
    )
    client = FakeClient({
        f"{WB}/cdx/": (200, "[]"),
        SX: (200, answer),
        right: (200, FROB.format(title="Frobnicator Reference Manual")),
        wrong: (200, OTHER.format(title="Frobnicator news")),
    })
    [out] = await recover(client, [broken(dead, "Frobnicator Reference Manual")])
    first_query = next(u for u in client.sent if u.startswith(SX))
    assert "q=frobnicator+reference+manual" in first_query  # the bare anchor comes first
    assert out.suggestions[0].url == right and out.suggestions[0].method == "search"
    assert out.suggestions[0].score > out.suggestions[1].score  # Dice(anchor, title)


async def test_soft_404_candidates_are_gated_out():
    dead = "https://old.example.com/frobnicator/manual"
    right = "https://frob.example.net/manual"
    client = FakeClient({
        f"{WB}/cdx/": (200, "[]"),
        SX: (200, f'{{"results": [{{"url": "{right}", "title": "Frobnicator Reference Manual"}}]}}'),
        right: (200, FROB.format(title="Frobnicator Reference Manual")),
    })
    client.soft404.add(right)
    [out] = await recover(client, [broken(dead, "Frobnicator Reference Manual")])
    assert right not in [c.url for c in out.suggestions]


async def test_same_site_sitemap_finds_a_moved_page_with_no_search_provider():
    dead = f"{HOST}/guide/frobnicator-install.html"
    moved = f"{HOST}/setup/frobnicator-install/"
    client = FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{moved}</loc></url><url><loc>{HOST}/news/</loc></url></urlset>'),
        f"{WB}/cdx/": (200, cdx_for(dead)),
        f"{WB}/web/20200101000000id_/": (200, FROB.format(title="Installing Frobnicator")),
        moved: (200, FROB.format(title="Installing Frobnicator")),
        f"{HOST}/news/": (200, OTHER.format(title="News")),
    })
    [out] = await recover(client, [broken(dead, "installing Frobnicator")], search=[{"provider": "site"}])
    assert out.suggestions[0].url == moved and out.suggestions[0].method == "same-site"
    assert out.suggestions[0].confidence >= DEFAULT_AUTOFIX_CONFIDENCE


async def test_a_learned_restructure_is_tried_first_on_the_next_link_of_the_host():
    site = {
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f'<urlset><url><loc>{HOST}/v2/manual/alpha-widgets/</loc></url></urlset>'),
        f"{WB}/cdx/": (200, cdx_for(f"{HOST}/v1/alpha-widgets.html")),
        f"{WB}/web/20200101000000id_/": (200, FROB.format(title="Alpha widgets")),
        f"{HOST}/v2/manual/alpha-widgets/": (200, FROB.format(title="Alpha widgets")),
        f"{HOST}/v2/manual/beta-gadgets/": (200, OTHER.format(title="Beta gadgets")),
    }
    client = FakeClient(site)
    first = broken(f"{HOST}/v1/alpha-widgets.html", "Alpha widgets")
    second = broken(f"{HOST}/v1/beta-gadgets.html", "Beta gadgets")
    out = await recover(client, [first, second], search=[{"provider": "site"}])
    assert out[0].suggestions[0].url == f"{HOST}/v2/manual/alpha-widgets/"
    assert out[0].suggestions[0].confidence >= DEFAULT_AUTOFIX_CONFIDENCE
    best = out[1].suggestions[0]
    assert best.url == f"{HOST}/v2/manual/beta-gadgets/" and best.method == "rewrite"
    assert best.evidence["rule"].startswith("learned")


GADGETS = (
    "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
    "<p>Beta gadgets plug into the widget bus. Calibrate each gadget with gadgetctl calibrate, "
    "then pair it with a widget using gadgetctl pair and the widget's serial number.</p></main></body></html>"
)


def learned_site(beta_captured: bool) -> FakeClient:
    """A site restructured /v1/NAME.html -> /v2/manual/NAME/, where one old name now holds
    another page: the gadgets' text went to /v2/manual/gadgets/."""
    rows = [f'["k","20200101000000","{HOST}/v1/alpha-widgets.html","text/html","200","D","1"]']
    if beta_captured:
        rows.append(f'["k","20200101000000","{HOST}/v1/beta-gadgets.html","text/html","200","D","1"]')
    cdx = '[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],' + ",".join(rows) + "]"
    urls = "".join(f"<url><loc>{HOST}/v2/manual/{name}/</loc></url>" for name in ("alpha-widgets", "beta-gadgets", "gadgets"))
    return FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f"<urlset>{urls}</urlset>"),
        f"{WB}/cdx/": (200, cdx),
        f"{WB}/web/20200101000000id_/{HOST}/v1/alpha-widgets.html": (200, FROB.format(title="Alpha widgets")),
        f"{WB}/web/20200101000000id_/{HOST}/v1/beta-gadgets.html": (200, GADGETS.format(title="Beta gadgets")),
        f"{HOST}/v2/manual/alpha-widgets/": (200, FROB.format(title="Alpha widgets")),
        f"{HOST}/v2/manual/beta-gadgets/": (200, OTHER.format(title="Balcony gardening")),
        f"{HOST}/v2/manual/gadgets/": (200, GADGETS.format(title="Gadgets")),
    })


async def test_a_rewrite_only_its_url_supports_is_read_against_the_archived_copy():
    client = learned_site(beta_captured=True)
    first = broken(f"{HOST}/v1/alpha-widgets.html", "Alpha widgets")
    second = broken(f"{HOST}/v1/beta-gadgets.html", "Beta gadgets")
    out = await recover(client, [first, second], search=[{"provider": "site"}])
    assert out[0].suggestions[0].url == f"{HOST}/v2/manual/alpha-widgets/"
    # the learned rule's page has the old name and nothing else: the copy was fetched to read it
    assert f"{WB}/web/20200101000000id_/{HOST}/v1/beta-gadgets.html" in client.sent and out[1].archived is not None
    by_url = {c.url: c for c in out[1].suggestions}
    guess = by_url[f"{HOST}/v2/manual/beta-gadgets/"]
    assert guess.method == "rewrite" and guess.evidence["similarity"]["copy_coverage"] < 0.5
    assert f"{HOST}/v2/manual/gadgets/" in by_url
    top = out[1].suggestions[0]
    assert top.url == f"{HOST}/v2/manual/gadgets/" or top.evidence.get("hold")  # never applied unreviewed


async def test_a_rewrite_only_its_url_supports_stands_when_there_is_no_copy_to_read_it_against():
    client = learned_site(beta_captured=False)
    out = await recover(client, [broken(f"{HOST}/v1/alpha-widgets.html", "Alpha widgets"),
                                 broken(f"{HOST}/v1/beta-gadgets.html", "Beta gadgets")], search=[{"provider": "site"}])
    best = out[1].suggestions[0]
    assert (best.url, best.method) == (f"{HOST}/v2/manual/beta-gadgets/", "rewrite") and not best.evidence.get("hold")
    assert best.confidence >= DEFAULT_AUTOFIX_CONFIDENCE and out[1].archived is None


async def test_failing_providers_degrade_to_no_suggestions(caplog):
    client = FakeClient()
    client.fail = {"http"}
    [out] = await recover(client, [broken("https://gone.example.com/page", "Frobnicator manual")])
    assert out.suggestions == () and out.archived is None
    assert any("fail" in r.message for r in caplog.records)


async def test_links_that_are_not_broken_external_pages_are_left_alone():
    client = FakeClient()
    ok = broken("https://ok.example.com/", "ok", status=Status.OK, reason="")
    fragment = broken("https://ok.example.com/p#x", "x", reason="missing-fragment")
    internal = broken("docs/missing.md", "missing")
    internal = LinkResult(link=internal.link, resolved="docs/missing.md", scope=Scope.INTERNAL, result=internal.result)
    out = await recover(client, [ok, fragment, internal])
    # only the page of the missing #fragment is read (for its ids: here it answers 404, so none)
    assert out == [ok, fragment, internal] and client.sent == ["https://ok.example.com/p"]


async def test_unknown_provider_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        await recover(FakeClient(), [], search=[{"provider": "nope"}])


def test_a_rewrite_may_not_land_on_the_dead_url_the_home_page_or_a_directory_above_it():
    from linkfix.recover.anchors import analyse_anchor
    from linkfix.recover.pool import Reference, acceptable
    from linkfix.recover.rank import Known

    def ref(dead):
        return Reference(dead=dead, anchor=analyse_anchor("x"), known=Known(dead_url=dead), dead_is_home=dead.endswith(".org/"))

    dead = ref("https://docs.example.org/guide/setup/install.html")
    assert not acceptable("https://docs.example.org/guide/setup/install.html#x", dead)
    assert not acceptable("https://docs.example.org/", dead)
    assert not acceptable("https://docs.example.org/guide/", dead)
    assert acceptable("https://docs.example.org/guide/install/", dead)
    assert acceptable("https://other.example.net/guide/", dead)  # another site's directory page
    assert acceptable("https://docs.example.org/", ref("https://old.example.org/"))  # home for home


SECTION = (
    "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
    "<p>Everything about contributing: code, documentation, triage and the core team.</p>{extra}</main></body></html>"
)


async def test_the_section_page_above_a_dead_page_is_a_candidate_held_for_review():
    # The old page was folded into its section's index: maintainers redirect there.
    dead = f"{HOST}/contrib/triage/"
    client = FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f'<urlset><url><loc>{HOST}/contrib/</loc></url><url><loc>{HOST}/news/</loc></url></urlset>'),
        f"{HOST}/": (200, SECTION.format(title="Home", extra="")),
        f"{HOST}/contrib/": (200, SECTION.format(title="Contributing", extra="<p>Triage issues with labels.</p>")),
        f"{HOST}/news/": (200, OTHER.format(title="News")),
        f"{WB}/cdx/": (200, "[]"),
    })
    [out] = await recover(client, [broken(dead, "triage", context="How to triage issues")], search=[{"provider": "site"}])
    urls = [c.url for c in out.suggestions]
    assert f"{HOST}/contrib/" in urls and f"{HOST}/" in urls  # the section and the home page are candidates
    top = out.suggestions[0]
    assert top.confidence < DEFAULT_AUTOFIX_CONFIDENCE or top.evidence.get("hold")  # never applied unseen


async def test_a_missing_fragment_gets_the_nearest_ids_of_the_live_page():
    page = "https://ok.example.com/guide/"
    client = FakeClient({page: (200, '<h2 id="install-plugins">Install plugins</h2><h2 id="usage">Usage</h2>')})
    lr = broken(page + "#installing-plugins", "plugins", reason="missing-fragment")
    [out] = await recover(client, [lr])
    top = out.suggestions[0]
    assert (top.url, top.method) == (page + "#install-plugins", "fragment")
    assert top.confidence >= DEFAULT_AUTOFIX_CONFIDENCE and not top.evidence.get("hold")  # same words, other form
    assert page + "#usage" not in [c.url for c in out.suggestions]  # nothing like it


async def test_the_trace_tells_every_candidate_and_what_became_of_it():
    from linkfix.recover.recoverer import Recoverer
    from linkfix.recover.trace import DROPPED, SUGGESTED

    dead = f"{HOST}/guide/frobnicator-install.html"
    moved = f"{HOST}/setup/frobnicator-install/"
    gone = f"{HOST}/old-news/"
    client = FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f"<urlset><url><loc>{moved}</loc></url><url><loc>{gone}</loc></url></urlset>"),
        f"{WB}/cdx/": (200, "[]"),
        moved: (200, FROB.format(title="Installing Frobnicator")),
    })
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(dead, "installing Frobnicator"))
    by_url = {c.url: c for c in trace.candidates}
    assert trace.dead == dead and trace.stage == "full" and not trace.copy
    assert by_url[moved].verdict == SUGGESTED and by_url[moved].method == "same-site" and by_url[moved].status == 200
    assert by_url[moved].features["same_name"] == 1.0 and by_url[moved].confidence == pytest.approx(trace.suggestions[0].confidence, abs=1e-4)
    assert by_url[gone].verdict == DROPPED and "not a page (404)" in by_url[gone].reason
    assert f"{HOST}/" in by_url and by_url[f"{HOST}/"].method == "parent"  # the home page was considered
    assert trace.as_json()["candidates"][0]["url"]


async def test_a_renamed_page_is_found_by_what_its_siblings_call_it():
    # "Install Git" was folded into "Setup and building"; "Git bootcamp" shares the word, but
    # a sibling page still links to the new page as "Install Git" (in its text, not its nav).
    from linkfix.recover.recoverer import Recoverer

    dead = f"{HOST}/contrib/workflows/install-git/"
    setup = f"{HOST}/getting-started/setup-building/"
    bootcamp = f"{HOST}/getting-started/git-boot-camp/"
    nav = f"<nav><a href='{setup}'>Setup and building</a><a href='{bootcamp}'>Git bootcamp</a></nav>"

    def html(title: str, body: str) -> str:
        return f"<html><head><title>{title}</title></head><body>{nav}<main><h1>{title}</h1>{body}</main></body></html>"

    client = FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f"<urlset><url><loc>{setup}</loc></url><url><loc>{bootcamp}</loc></url></urlset>"),
        f"{WB}/cdx/": (200, "[]"),
        setup: (200, html("Setup and building", "<p>Clone the repository and compile the interpreter.</p>")),
        bootcamp: (200, html("Git bootcamp", f"<p>Branches, commits and remotes. First <a href='{setup}'>install Git</a>.</p>")),
    })
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(dead, "Install Git"))
    by_url = {c.url: c for c in trace.candidates}
    assert by_url[setup].features["in_exact"] == 1.0 and by_url[bootcamp].features["in_exact"] == 0.0
    assert trace.suggestions[0].url == setup
