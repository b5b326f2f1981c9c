"""Answers at the level the content moved to: a dead page that became a section of another page
is suggested as that section (`page#id`), and only then."""

from linkfix.recover.pages import Section, parse_page
from linkfix.recover.rank import Known
from linkfix.recover.recoverer import Recoverer
from linkfix.recover.sections import answered_section, best_section, moved_to_section, section_named_like

from .conftest import FakeClient
from .test_pipeline import HOST, WB, broken, config


def test_a_heading_s_id_is_its_own_its_section_s_or_its_permalink_s_as_generators_write_them():
    html = (
        "<html><head><title>Guide</title></head><body><h1>Guide</h1>"
        '<h2 id="install-git">Install Git<a class="headerlink" href="#install-git">¶</a></h2>'  # MkDocs
        '<section id="build-docs"><h2>Build the docs<a class="headerlink" href="#build-docs">¶</a></h2></section>'  # Sphinx
        '<div class="section" id="old-style"><h3>Old style</h3></div>'  # Sphinx before 4
        '<h4>Permalink only<a href="#perma">#</a></h4><h2>No id at all</h2></body></html>'
    )
    page = parse_page("https://x.org/guide/", 200, html)
    assert page.sections == (Section(id="install-git", heading="Install Git"), Section(id="build-docs", heading="Build the docs"),
                             Section(id="old-style", heading="Old style"), Section(id="perma", heading="Permalink only"))
    assert page.headings[-1] == "No id at all" and "¶" not in "".join(page.headings)


def test_the_section_named_by_the_dead_page_s_title_is_chosen_and_a_one_word_title_names_none():
    sections = (Section(id="a", heading="Clone the repository"), Section(id="b", heading="Install Git"))
    found = best_section(Known(dead_url="https://x.org/git/", copy_title="Installing Git"), sections)
    assert found is not None and found[0].id == "b" and found[1] == 1.0  # word forms agree
    assert best_section(Known(dead_url="https://x.org/git/", copy_title="Governance"), (Section(id="g", heading="Governance"),)) is None
    assert best_section(Known(dead_url="https://x.org/git/", copy_title="Windows setup"), sections) is None


def test_a_page_is_answered_at_a_section_only_when_the_heading_names_the_dead_page_better_than_its_title():
    assert moved_to_section({"heading_sim": 1.0, "title_sim": 0.3, "anchor_title": 0.4})
    assert not moved_to_section({"heading_sim": 1.0, "title_sim": 1.0})  # the page itself has the title: a rename
    assert not moved_to_section({"heading_sim": 0.6, "title_sim": 0.0})  # no heading names it


SETUP = (
    "<html><head><title>Setup and building</title></head><body><main><h1>Setup and building</h1>"
    "<p>Clone the repository, compile the interpreter and run the tests.</p>"
    '<h2 id="install-git">Install Git</h2><p>Git is the version control system of the project. Install Git with '
    "your package manager, then configure your name and email address before your first commit.</p>"
    '<h2 id="compile">Compile and build</h2><p>Run configure and make.</p></main></body></html>'
)
OLD_GIT = (
    "<html><head><title>Install Git</title></head><body><main><h1>Install Git</h1><p>Git is the version control "
    "system of the project. Install Git with your package manager, then configure your name and email address "
    "before your first commit.</p></main></body></html>"
)


def _client(dead: str, old: str, pages: dict[str, str]) -> FakeClient:
    """A site of `pages` (URL -> HTML) in its sitemap, and the archive's copy `old` of `dead`."""
    urls = "".join(f"<url><loc>{url}</loc></url>" for url in pages)
    return FakeClient({
        f"{HOST}/robots.txt": (200, f"Sitemap: {HOST}/sitemap.xml\n"),
        f"{HOST}/sitemap.xml": (200, f"<urlset>{urls}</urlset>"),
        **{url: (200, html) for url, html in pages.items()},
        f"{WB}/cdx/": (200, f'[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],'
                            f'["k","20200101000000","{dead}","text/html","200","D","1"]]'),
        f"{WB}/web/20200101000000id_/{dead}": (200, old),
    })


def _site(setup: str) -> FakeClient:
    return _client(f"{HOST}/setup/install-git/", OLD_GIT, {f"{HOST}/getting-started/setup/": setup})


async def test_a_page_merged_into_a_section_of_another_is_suggested_as_that_section():
    client = _site(SETUP)
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(f"{HOST}/setup/install-git/", "Install Git"))
    top = next(c for c in trace.suggestions if c.method != "archive")
    assert top.url == f"{HOST}/getting-started/setup/#install-git"
    assert top.evidence["section"] == "Install Git"
    traced = {c.url: c for c in trace.candidates}[f"{HOST}/getting-started/setup/"]
    assert traced.section == "install-git" and traced.verdict == "suggested"


async def test_a_page_whose_own_title_is_the_dead_page_s_is_suggested_whole():
    renamed = SETUP.replace("Setup and building", "Install Git")  # the page itself is "Install Git" now
    client = _site(renamed)
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(f"{HOST}/setup/install-git/", "Install Git"))
    top = next(c for c in trace.suggestions if c.method != "archive")
    assert top.url == f"{HOST}/getting-started/setup/" and "section" not in top.evidence


def test_the_one_section_with_the_dead_page_s_name_as_its_id_is_the_section_it_became():
    sections = (Section(id="settings", heading="Settings"), Section(id="database", heading="Database"))
    named = lambda **kw: section_named_like("https://x.org/settings.html", sections, **kw)  # noqa: E731
    api = dict(candidate_url="https://x.org/reference/api.html", candidate_title="API reference", copy_title="Settings")
    assert named(**api) == sections[0]  # a one-word title names nothing as a heading, but the name does
    assert named(**{**api, "candidate_url": "https://x.org/v2/settings.html"}) is None  # the page renamed: its own name
    assert named(**{**api, "candidate_title": "Settings"}) is None  # titled with the name
    assert named(**{**api, "candidate_title": "Changes", "copy_title": "Changes"}) is None  # the dead page's title: renamed
    twice = (Section(id="settings", heading="Settings"), Section(id="Settings_", heading="Settings"))
    assert section_named_like("https://x.org/settings/", twice, **api) is None  # two sections: which one is not said
    assert section_named_like("https://x.org/", sections, **api) is None  # a home page has no name


def test_the_heading_that_names_the_dead_page_comes_before_the_name():
    by_heading, by_name = Section(id="install-git", heading="Install Git"), Section(id="git", heading="Git")
    assert answered_section(by_heading, by_name, {"heading_sim": 1.0, "title_sim": 0.2}) is by_heading
    assert answered_section(by_heading, by_name, {"heading_sim": 0.5, "title_sim": 0.2}) is by_name
    assert answered_section(None, None, {"heading_sim": 1.0}) is None


API = (
    "<html><head><title>API reference</title></head><body><main><h1>API reference</h1>"
    "<p>Every public function and class of the library.</p>"
    '<section id="given"><h2>Given</h2><p>The decorator that turns a test into a property.</p></section>'
    '<section id="settings"><h2>Settings</h2><p>Settings control how many examples run, the deadline of each '
    "example, the verbosity of the output and which health checks apply to the test.</p></section>"
    "</main></body></html>"
)
OLD_SETTINGS = (
    "<html><head><title>Settings</title></head><body><main><h1>Settings</h1><p>Settings control how many examples "
    "run, the deadline of each example, the verbosity of the output and which health checks apply.</p></main></body></html>"
)


async def test_an_api_page_merged_into_a_reference_page_is_suggested_as_its_section_by_name():
    dead = f"{HOST}/settings.html"
    client = _client(dead, OLD_SETTINGS, {f"{HOST}/reference/api.html": API})
    recoverer = Recoverer(config=config(search=[{"provider": "site"}]), client=client, cache=None, link_times={})
    trace = await recoverer.recover_traced(broken(dead, "the settings"))
    top = next(c for c in trace.suggestions if c.method != "archive")
    assert top.url == f"{HOST}/reference/api.html#settings"
    assert top.evidence["section"] == "Settings"
    traced = {c.url: c for c in trace.candidates}[f"{HOST}/reference/api.html"]
    assert (traced.section, traced.named_section) == ("", "settings")
