"""In-link anchor text: what the site's own pages call a candidate when they link to it."""

from linkfix.recover.inlinks import dead_names, link_names, named_as
from linkfix.recover.pages import parse_page

SITE = "https://docs.example.org"


def page(path: str, body: str, nav: str = "") -> object:
    html = f"<html><head><title>T</title></head><body><nav>{nav}</nav><main>{body}</main><footer>{nav}</footer></body></html>"
    return parse_page(SITE + path, 200, html)


def test_content_links_leave_out_navigation_header_footer_and_sidebar():
    read = parse_page(SITE + "/a/", 200, (
        "<html><body><header><a href='/'>Home</a></header><nav><a href='/setup/'>Setup and building</a></nav>"
        "<aside><a href='/x/'>Side</a></aside><main><p>First <a href='../setup/#git'>Install Git</a>.</p></main>"
        "<footer><a href='/next/'>Next</a></footer></body></html>"))
    assert read.content_links == ((SITE + "/setup/", "Install Git"),)
    assert {href for href, _ in read.links} == {SITE + "/", SITE + "/setup/", SITE + "/x/", SITE + "/next/"}
    assert "Setup and building" not in read.text and "Install Git" in read.text


def test_furniture_is_kept_in_the_text_when_asked_and_content_links_still_leave_it_out():
    html = "<html><body><nav><a href='/n/'>Nav page</a></nav><main><a href='/c/'>Content page</a></main></body></html>"
    read = parse_page(SITE + "/", 200, html, keep_furniture=True)
    assert "Nav page" in read.text
    assert read.content_links == ((SITE + "/c/", "Content page"),)


def test_a_sibling_naming_the_renamed_page_by_its_old_name_is_found():
    sibling = page("/getting-started/git-boot-camp/", "<p>Before you start, <a href='../setup-building/'>install Git</a>.</p>",
                   nav="<a href='/getting-started/setup-building/'>Setup and building</a>")
    target = page("/getting-started/setup-building/", "<p>See <a href='./'>this page</a> and <a href='/'>Install Git</a></p>")
    names = link_names([sibling, target], SITE + "/contrib/workflows/install-git/")
    called = dead_names("Install Git", False, "")
    assert named_as(names, SITE + "/getting-started/setup-building/index.html", called) == 1.0
    # the navigation names it by its title only; a page's links to itself do not count
    assert named_as(names, SITE + "/getting-started/setup-building/", dead_names("Setup and building", False, "")) == 0.0
    assert named_as(names, SITE + "/getting-started/setup-building/", dead_names("this page", False, "")) == 0.0
    # not the same words: nothing
    assert named_as(names, SITE + "/getting-started/setup-building/", dead_names("Install Git on Windows", False, "")) == 0.0


def test_only_pages_of_the_dead_links_site_speak_and_weak_anchors_name_nothing():
    foreign = parse_page("https://other.example.com/p", 200, f"<html><body><main><a href='{SITE}/b/'>Install Git</a></main></body></html>")
    names = link_names([foreign], SITE + "/old/")
    assert named_as(names, SITE + "/b/", dead_names("Install Git", False, "")) == 0.0
    local = page("/a/", "<p><a href='/b/'>here</a> <a href='/c/'>Installing the tool</a></p>")
    names = link_names([local], SITE + "/old/")
    assert named_as(names, SITE + "/b/", dead_names("here", True, "")) == 0.0
    # the archived copy's title speaks even when the anchor is weak ("install" ~ "installing")
    assert named_as(names, SITE + "/c/", dead_names("here", True, "Install the tool")) == 1.0
