"""A host may serve several projects' docs (`org.github.io/project/`, `org.github.io/project-js/`):
the dead page's own docs site is the directory its sitemap or search index lives in, and a page
of a sibling site is another site's page, whatever its name, title and words."""

from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from linkfix.recover.rank import Known
from linkfix.recover.recoverer import Recoverer

from .conftest import FakeClient
from .test_pipeline import FROB, HOST, WB, broken, cdx_for, config

DEAD = f"{HOST}/proj/concepts/tools/"
SIBLING = f"{HOST}/proj-js/concepts/tools/"
OWN = f"{HOST}/proj/how-to/agents/"  # where the content went, under another name


def test_a_page_outside_the_docs_root_is_not_on_the_dead_page_s_site():
    known = Known(dead_url=DEAD, docs_root=f"{HOST}/proj/")
    assert known.on_its_site(OWN) and not known.on_its_site(SIBLING) and not known.on_its_site("https://other.test/proj/x/")
    assert Known(dead_url=DEAD).on_its_site(SIBLING)  # no root known: the host is all there is


def _urlset(*urls: str) -> str:
    return "<urlset>" + "".join(f"<url><loc>{u}</loc></url>" for u in urls) + "</urlset>"


async def test_a_sibling_project_s_look_alike_is_never_applied_without_review():
    client = FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/proj/sitemap.xml\nSitemap: {HOST}/proj-js/sitemap.xml\n"),
        f"{HOST}/proj/sitemap.xml": (200, _urlset(f"{HOST}/proj/", OWN)),
        f"{HOST}/proj-js/sitemap.xml": (200, _urlset(f"{HOST}/proj-js/", SIBLING)),
        OWN: (200, FROB.format(title="Agents")),
        SIBLING: (200, FROB.format(title="Tools")),  # the same guide, for the other language
        f"{WB}/cdx/": (200, cdx_for(DEAD)),
        f"{WB}/web/20200101000000id_/{DEAD}": (200, FROB.format(title="Tools")),
    })
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(DEAD, "Tools"))
    sibling = {c.url: c for c in trace.candidates}[SIBLING]
    assert (sibling.features["same_host"], sibling.features["sibling_site"]) == (0.0, 1.0)
    assert {c.url: c for c in trace.candidates}[OWN].features["same_host"] == 1.0
    automatic = [s for s in trace.suggestions if s.confidence >= DEFAULT_AUTOFIX_CONFIDENCE and not s.evidence.get("hold")]
    assert SIBLING not in [s.url for s in automatic]
    held = [s for s in trace.suggestions if s.url == SIBLING]
    assert not held or held[0].confidence < DEFAULT_AUTOFIX_CONFIDENCE or "another docs site" in held[0].evidence["hold"]
