"""linkfix.build: rendered pages checked against the built site; no network is found out fast
and is not link rot."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from linkfix import Config, NetworkDownError, RenderedPage, SiteBuild, Status, network_reachable


def _site(tmp_path: Path) -> SiteBuild:
    docs, site = tmp_path / "docs", tmp_path / "site"
    (docs / "guide").mkdir(parents=True)
    (site / "guide" / "page").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - admonition\n")
    (docs / "index.md").write_text("# Home\n\n!!! note\n\n    See [the page](guide/page.md#part) and [away](https://example.invalid/x).\n")
    (docs / "guide" / "page.md").write_text("# Page\n\n## Part\n")
    (site / "index.html").write_text("<html><body><h1 id='home'>Home</h1></body></html>")
    (site / "guide" / "page" / "index.html").write_text("<html><body><h1 id='page'>Page</h1><h2 id='part'>Part</h2></body></html>")
    build = SiteBuild(Config(cache=False), site_dir=site, docs_dir=docs, config_file=tmp_path / "mkdocs.yml", boundary=tmp_path)
    content = ('<div class="admonition note"><p>See <a href="guide/page/#part">the page</a> and '
               '<a href="https://example.invalid/x">away</a>.</p></div><p><a href="made/">made by the build</a></p>'
               '<p><a href="http://127.0.0.1:8000/">local</a> <a href="http://localhost/">local</a></p>')
    assert build.add(RenderedPage(source=docs / "index.md", source_uri="index.md", output_uri="index.html", content=content,
                                  output=(site / "index.html").read_text(),
                                  written=[("guide/page/#part", "guide/page.md#part"), ("https://example.invalid/x", "https://example.invalid/x")])) is None
    return build


def test_links_are_checked_as_rendered_and_reported_as_written(tmp_path):
    build = _site(tmp_path)
    report = asyncio.run(build.check(network_check=lambda hosts: False))
    got = {r.link.url: r for r in report.results}
    page = got["guide/page.md#part"]  # reported as written, where it is written
    assert (page.result.status, page.resolved) == (Status.OK, "guide/page/#part")  # checked as rendered
    text = (tmp_path / "docs" / "index.md").read_text()
    assert text[page.link.span.start : page.link.span.end] == "guide/page.md#part"
    made = got["made/"]  # a link only the build has: checked, placed nowhere in the source
    assert made.failing and made.link.span.start == made.link.span.end


def test_without_network_external_links_are_left_unchecked_not_broken(tmp_path):
    build = _site(tmp_path)
    asked: list[list[str]] = []
    report = asyncio.run(build.check(network_check=lambda hosts: asked.append(list(hosts)) or False))
    assert asked == [["example.invalid"]]  # no lookup of names that resolve without a network
    away = next(r for r in report.results if r.link.url == "https://example.invalid/x")
    assert (away.result.status, away.result.reason) == (Status.EXCLUDED, "offline")
    assert "network is down" in away.result.detail
    assert "network down" in build.network_down and "example.invalid" in build.network_down


def test_without_network_the_check_fails_when_asked_to(tmp_path):
    build = _site(tmp_path)
    with pytest.raises(NetworkDownError, match=r"example\.invalid"):
        asyncio.run(build.check(fail_on_network_down=True, network_check=lambda hosts: False))


def test_a_page_whose_source_is_outside_the_project_is_not_read(tmp_path):
    build = _site(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("secret [x](y.md)\n")
    why = build.add(RenderedPage(source=outside, source_uri="leak.md", output_uri="leak/index.html", content='<a href="y/">x</a>', output=""))
    assert why is not None and "outside" in why
    assert "leak/index.html" not in build.documents


def test_network_reachable_when_any_name_resolves():
    def resolve(host: str) -> None:
        if host != "good.example":
            raise OSError("no such name")

    assert network_reachable(["bad.example", "good.example"], resolve=resolve)
    assert not network_reachable(["bad.example", "worse.example"], resolve=resolve)


def test_network_reachable_gives_up_on_lookups_that_hang():
    release = threading.Event()
    try:
        assert not network_reachable(["a.example", "b.example"], timeout=0.05, resolve=lambda host: release.wait())
    finally:
        release.set()
