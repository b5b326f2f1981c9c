"""Issue 44: links that passed green where linkfix had not really looked (items 2, 12, 13, 14),
each a small reproduction checked end to end, offline."""

from __future__ import annotations

import os

from linkfix.config import Config
from linkfix.pipeline import check_links


def outcomes(report):
    """(link as written, status, reason) of every link of a report, and each one's detail."""
    return {r.link.url: (str(r.result.status), r.result.reason) for r in report.results}, \
        {r.link.url: r.result.detail for r in report.results}


def check(*inputs, **settings):
    return check_links([str(i) for i in inputs], Config(offline=True, cache=False, **settings))


# -- item 2: symlinks that lead nowhere -------------------------------------------------------

def test_links_to_a_dangling_symlink_and_a_symlink_loop_are_broken(tmp_path):
    (tmp_path / "index.md").write_text("[d](gone.md) [l](loop.md) [i](img/logo.png) [ok](real.md)\n")
    (tmp_path / "real.md").write_text("# Real\n")
    os.symlink("nowhere.md", tmp_path / "gone.md")
    os.symlink("loop.md", tmp_path / "loop.md")
    (tmp_path / "img").mkdir()
    os.symlink("../missing.png", tmp_path / "img" / "logo.png")
    status, detail = outcomes(check(tmp_path))
    assert status["gone.md"] == ("broken", "missing-file")
    assert "a symlink to nowhere.md, which does not exist" in detail["gone.md"]
    assert status["loop.md"] == ("broken", "missing-file")
    assert "symlink loop" in detail["loop.md"]
    assert status["img/logo.png"] == ("broken", "missing-file")
    assert status["real.md"] == ("ok", "")


def test_a_dangling_page_symlink_is_an_input_error_that_says_why(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n")
    os.symlink("nowhere.md", tmp_path / "gone.md")
    os.symlink("loop.md", tmp_path / "loop.md")
    errors = check(tmp_path).errors
    assert any("gone.md: a symlink to nowhere.md, which does not exist" in e for e in errors)
    assert any("loop.md: a symlink loop" in e for e in errors)


# -- item 13: html-proofer's cases -------------------------------------------------------------

def site(tmp_path, pages, files=()):
    for rel, text in {**pages, **dict.fromkeys(files, "")}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_a_root_relative_base_href_is_where_relative_links_resolve(tmp_path):
    root = site(tmp_path, {"index.html": "<h1>x</h1>",
                           "docs/page.html": '<base href="/assets/"><img src="x.png"><img src="nope.png"><a href="#top">t</a>',
                           "docs/sub.html": '<base href="../guide/intro.html"><a href="next.html">n</a><a href="#s">s</a>',
                           "guide/intro.html": '<h2 id="s">S</h2>'},
                files=["assets/x.png", "assets/index.html", "guide/next.html"])
    status, detail = outcomes(check(root))
    assert status["x.png"] == ("ok", "")
    assert status["nope.png"] == ("broken", "missing-file")
    assert "assets/nope.png" in detail["nope.png"]
    assert status["#top"] == ("ok", "")  # `#x` leads to the base URL (/assets/), not the page itself
    assert status["next.html"] == ("ok", "")  # a file name in the base is dropped, as browsers do
    assert status["#s"] == ("ok", "")  # guide/intro.html has the id


def test_mailto_without_an_address_and_an_empty_tel_are_broken_offline(tmp_path):
    links = ["mailto:", "mailto:octocat", "tel:", "tel:call-me", "mailto:a@example.org", "mailto:a@example.org,b@example.org",
             "mailto:?subject=Share&body=x", "tel:+1-201-555-0123", "mailto:%20"]
    root = site(tmp_path, {"index.html": "".join(f'<a href="{url}">x</a>' for url in links)})
    status, detail = outcomes(check(root))
    for url in ("mailto:", "mailto:octocat", "tel:", "tel:call-me", "mailto:%20"):
        assert status[url] == ("broken", "invalid-url"), url
    assert "no address" in detail["mailto:"]
    assert "'octocat' is not an e-mail address" in detail["mailto:octocat"]
    for url in ("mailto:a@example.org", "mailto:a@example.org,b@example.org", "mailto:?subject=Share&body=x"):
        assert status[url] == ("unsupported", "mailto"), url
    assert status["tel:+1-201-555-0123"] == ("unsupported", "tel")


def test_an_unparseable_url_is_broken_offline(tmp_path):
    root = site(tmp_path, {"index.html": '<a href="https://127.0.0.1:____">a</a><a href="https:///path">b</a>'
                                         '<a href="https://example.org/">c</a>'})
    status, _ = outcomes(check(root))
    assert status["https://127.0.0.1:____"] == ("broken", "invalid-url")
    assert status["https:///path"] == ("broken", "invalid-url")
    assert status["https://example.org/"] == ("excluded", "offline")


def test_images_without_a_source_are_reported_broken(tmp_path):
    text = ('<img src="" alt="empty">\n<img alt="none">\n<picture><img alt="bare picture"></picture>\n'
            '<picture><source srcset="a.png"><img alt="from its source"></picture>\n'
            '<img data-src="a.png" class="lazyload" alt="lazy">\n<img srcset="a.png 2x" alt="srcset">\n')
    root = site(tmp_path, {"index.html": text}, files=["a.png"])
    report = check(root)
    sourceless = [r for r in report.results if r.result.reason == "no-source"]
    assert sorted(r.link.anchor_text for r in sourceless) == ["bare picture", "empty", "none"]
    assert all(str(r.result.status) == "broken" and r.link.url == "" for r in sourceless)
    for r in sourceless:  # exact spans: the empty src value, or right after `<img`
        assert text[r.link.span.start:r.link.span.end] == ""
    assert {r.link.span.line for r in sourceless} == {1, 2, 3}
    assert text[sourceless[0].link.span.start - 5:sourceless[0].link.span.start] == 'src="'


def test_an_empty_directory_beside_a_real_one_is_an_input_error_and_the_run_goes_on(tmp_path):
    real = site(tmp_path / "site", {"index.html": '<a href="gone.html">x</a>'})
    (tmp_path / "empty").mkdir()
    report = check(real, tmp_path / "empty")
    assert [r.link.url for r in report.results if str(r.result.status) == "broken"] == ["gone.html"]
    assert any("empty/: no markdown or HTML files to check" in e for e in report.errors)


def test_extensionless_links_follow_the_host(tmp_path):
    root = site(tmp_path / "site", {"index.html": '<a href="/page">p</a><a href="guide/setup">s</a><a href="page/">d</a>'},
                files=["page.html", "guide/setup.html"])
    status, detail = outcomes(check(root))
    assert status["/page"] == ("broken", "missing-file")  # a plain server: nothing in the project says otherwise
    assert "page.html is there" in detail["/page"]
    status, _ = outcomes(check(root, host="github-pages"))
    assert status["/page"] == status["guide/setup"] == ("ok", "")
    assert status["page/"] == ("broken", "missing-file")  # no host serves page.html at page/
    (root / ".nojekyll").write_text("")  # what only GitHub Pages reads: the project says who serves it
    status, _ = outcomes(check(root))
    assert status["/page"] == ("ok", "")
    assert outcomes(check(root, host="plain"))[0]["/page"] == ("broken", "missing-file")


# -- item 12: a built site's host redirects ----------------------------------------------------

def test_a_built_site_follows_its_hosts_redirect_files(tmp_path):
    (tmp_path / ".git").mkdir()  # the repository's top: where netlify.toml and vercel.json live
    links = ["/old.html", "old.html#sec", "/legacy/page.html", "/v/moved.html", "/gone.html", "/nf.html", "/old.html#nope"]
    built = site(tmp_path / "site", {"index.html": "".join(f'<a href="{url}">x</a>' for url in links),
                                     "new/index.html": '<h2 id="sec">S</h2>',
                                     "_redirects": "/old.html /new/ 301\n/legacy/* /guide/:splat 301\n"},
                 files=["guide/page.html", "moved/index.html"])
    (tmp_path / "netlify.toml").write_text('[[redirects]]\nfrom = "/nf.html"\nto = "/nowhere/"\n')
    (tmp_path / "vercel.json").write_text('{"redirects": [{"source": "/v/:name.html", "destination": "/:name/"}]}')
    status, detail = outcomes(check(built))
    assert status["/old.html"] == status["old.html#sec"] == ("redirected", "host-redirect")
    assert "site/_redirects" in detail["/old.html"]
    assert status["/legacy/page.html"] == ("redirected", "host-redirect")
    assert status["/v/moved.html"] == ("redirected", "host-redirect")
    assert status["/gone.html"] == ("broken", "missing-file")
    assert status["/nf.html"] == ("broken", "missing-file")  # redirected where the site has nothing
    assert "netlify.toml" in detail["/nf.html"]
    assert status["/old.html#nope"] == ("broken", "missing-fragment")


def test_the_project_top_of_a_built_site_is_beside_the_config_that_builds_it(tmp_path):
    project = tmp_path / "docs-project"
    built = site(project / "out", {"index.html": '<a href="/old.html">x</a>', "new.html": ""})
    (project / "mkdocs.yml").write_text("site_name: x\nsite_dir: out\n")
    (project / "vercel.json").write_text('{"redirects": [{"source": "/old.html", "destination": "/new.html"}]}')
    (tmp_path / "vercel.json").write_text('{"redirects": []}')  # above the project: not its host's file
    status, detail = outcomes(check(built))
    assert status["/old.html"] == ("redirected", "host-redirect")
    assert detail["/old.html"].startswith("redirected by vercel.json to /new.html")


# -- item 14: lychee's extraction cases ----------------------------------------------------------

def test_css_urls_in_style_elements_style_attributes_and_linked_stylesheets_are_checked(tmp_path):
    page = ('<link rel="stylesheet" href="css/main.css"><link rel="stylesheet" href="css/off.css" disabled>'
            '<style>body { background: url("img/gone-bg.png") } /* url(img/in-comment.png) */</style>'
            '<div style="background-image: url(&quot;img/inline.png&quot;)">x</div><p style="mask: url(img/here.svg)">y</p>')
    css = ('@import url("more.css");\n@import "other.css";\n'
           '@font-face { font-family: F; src: url(../fonts/f.woff2) format("woff2"), url(\'../fonts/here.woff\'); }\n'
           '.x { background-image: url(../img/gone.png); content: "url(not-a-link.png)" }\n')
    root = site(tmp_path, {"index.html": page, "css/main.css": css, "css/more.css": ".y { cursor: url(../img/cursor.png) }",
                           "css/unlinked.css": ".z { background: url(nothing.png) }"},
                files=["img/here.svg", "fonts/here.woff"])
    report = check(root)
    found = {(r.link.span.path.rsplit("/", 2)[-2:][-1], r.link.url): (str(r.result.status), r.link.tag) for r in report.results}
    assert found[("index.html", "img/gone-bg.png")] == ("broken", "style")
    assert found[("index.html", "img/inline.png")] == ("broken", "div[style]")
    assert found[("index.html", "img/here.svg")] == ("ok", "p[style]")
    assert found[("main.css", "more.css")] == ("ok", "url()")
    assert found[("main.css", "other.css")] == ("broken", "@import")
    assert found[("main.css", "../fonts/f.woff2")] == ("broken", "url()")
    assert found[("main.css", "../fonts/here.woff")] == ("ok", "url()")
    assert found[("main.css", "../img/gone.png")] == ("broken", "url()")
    assert found[("more.css", "../img/cursor.png")] == ("broken", "url()")  # an @import's own links
    urls = {url for _, url in found}
    assert "css/off.css" not in urls  # a disabled stylesheet is never fetched
    assert not urls & {"img/in-comment.png", "not-a-link.png", "nothing.png"}  # comments, strings, unlinked sheets
    texts = {"index.html": page, "main.css": css}
    for r in report.results:  # exact spans, in the page and in the stylesheet
        name = r.link.span.path.rsplit("/", 1)[-1]
        if name in texts and "&" not in r.link.url:
            assert texts[name][r.link.span.start:r.link.span.end] == r.link.url
    inline = next(r for r in report.results if r.link.url == "img/inline.png")
    assert page[inline.link.span.start:inline.link.span.end] == "img/inline.png"


def test_a_gfm_footnote_definition_is_no_link_reference(tmp_path):
    (tmp_path / "index.md").write_text("A claim[^note] and another[^2].\n\n[^note]: text\n[^2]: See [the spec](spec.md).\n"
                                       "\n[ref]: gone.md\n")
    status, _ = outcomes(check(tmp_path))
    assert "text" not in status
    assert status["spec.md"] == ("broken", "missing-file")  # a footnote's own links are read
    assert status["gone.md"] == ("broken", "missing-file")  # an unused reference definition is still checked


def test_bare_email_autolinks_are_seen_and_judged_by_their_syntax(tmp_path):
    text = "Write to user@example.com or <team@example.org>; first.last+tag@sub.example.co.uk.\nNot a@b, nor `c@d.org`.\n"
    (tmp_path / "index.md").write_text(text)
    report = check(tmp_path)
    found = {r.link.url: (r.resolved, str(r.result.status)) for r in report.results}
    assert found == {"user@example.com": ("mailto:user@example.com", "unsupported"),
                     "team@example.org": ("mailto:team@example.org", "unsupported"),
                     "first.last+tag@sub.example.co.uk": ("mailto:first.last+tag@sub.example.co.uk", "unsupported")}
    for r in report.results:
        assert text[r.link.span.start:r.link.span.end] == r.link.url


def test_a_stylesheet_symlinked_out_of_the_project_is_not_read(tmp_path):
    (tmp_path / "outside.css").write_text("a { background: url(secret-name.png) }")
    root = site(tmp_path / "site", {"index.html": '<link rel="stylesheet" href="css/out.css"><link rel="stylesheet" href="css/in.css">',
                                    "css/in.css": "b { background: url(gone.png) }"})
    os.symlink(tmp_path / "outside.css", root / "css" / "out.css")
    status, _ = outcomes(check(root))
    assert status == {"css/out.css": ("broken", "outside-root"), "css/in.css": ("ok", ""), "gone.png": ("broken", "missing-file")}
