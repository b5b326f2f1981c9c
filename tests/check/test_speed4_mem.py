"""A run keeps only what its reports need (check/gather.py, issue 26): a link is checked as soon
as its target is known, and a working internal link's result is only counted unless a report
lists every link. The results, counts and order must be those of a run that keeps everything."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from linkfix import pipeline
from linkfix.check.local import LocalChecker
from linkfix.cli import main
from linkfix.config import Config
from linkfix.model import Report, Scope, Status
from linkfix.report import FORMATS
from linkfix.report.common import status_counts
from linkfix.report.json_format import count_statuses


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """a.html links forward into b.html (read after it) and back; c.html is read last."""
    (tmp_path / "a.html").write_text(
        '<h1 id="top-a">A</h1>'
        '<a href="b.html#here">fine, forward</a> <a href="b.html#gone">broken, forward</a>'
        '<a href="c.html">fine, no fragment</a> <a href="missing.html">broken, no file</a>'
        '<a href="https://example.org/x">external</a> <a href="mailto:a@example.org">mail</a>'
        '<a href="#top-a">fine, same page</a> <a href="#nope">broken, same page</a>')
    (tmp_path / "b.html").write_text('<h2 id="here">B</h2><a href="a.html#top-a">fine, back</a><a href="a.html#lost">broken, back</a>')
    (tmp_path / "c.html").write_text('<p>C</p><a href="b.html#here">fine</a><a href="b.html#gone">broken again</a>')
    return tmp_path


def check(site: Path, *, keep_all: bool) -> Report:
    config = replace(Config(), offline=True, include_fragments=True, cache=False)
    return _run(site, config, keep_all)


def _run(site: Path, config: Config, keep_all: bool) -> Report:
    from linkfix.cli.commands.check import run_without_loop

    return run_without_loop(pipeline.run_check([str(site)], config, keep_all=keep_all))


def described(report: Report) -> list[tuple[str, str, int, int, str, str, str]]:
    return [(r.link.span.path, r.link.url, r.link.span.line, r.link.span.column, r.resolved, r.result.status, r.result.detail)
            for r in report.results]


def test_a_lean_run_keeps_the_problems_in_order_and_counts_the_rest(site):
    everything = check(site, keep_all=True)
    lean = check(site, keep_all=False)
    kept = [item for item in described(everything) if item[5] not in ("ok", "excluded", "unsupported")]
    assert described(lean) == kept  # the same problems, in the same order
    assert [item[1] for item in kept] == ["b.html#gone", "missing.html", "#nope", "a.html#lost", "b.html#gone"]
    assert lean.counted == {Status.OK: 5, Status.EXCLUDED: 1, Status.UNSUPPORTED: 1}
    assert lean.total == everything.total == len(everything.results) == 12
    assert status_counts(lean) == status_counts(everything)
    assert count_statuses(lean) == count_statuses(everything)


def test_a_lean_run_writes_the_same_summaries(site):
    everything, lean = check(site, keep_all=True), check(site, keep_all=False)
    lean = replace(lean, duration=everything.duration, started=everything.started)
    for name in ("text", "markdown", "github", "sarif", "html"):
        assert FORMATS[name](lean) == FORMATS[name](everything), name


def test_a_fragment_into_a_page_read_later_is_checked_against_its_ids_without_reading_it_twice(site, monkeypatch):
    loaded: list[str] = []
    original = LocalChecker.page_ids

    def page_ids(self: LocalChecker, file: str) -> frozenset[str] | None:
        if file not in self.pages:
            loaded.append(file)
        return original(self, file)

    monkeypatch.setattr(LocalChecker, "page_ids", page_ids)
    lean = check(site, keep_all=False)
    assert loaded == []  # every page's ids came from its own reading, none read out of turn
    assert ("a.html", "b.html#gone", "broken") in [(Path(r.link.span.path).name, r.link.url, r.result.status) for r in lean.results]


def test_an_external_ok_link_stays_for_the_cache_summary():
    from linkfix.check.gather import ONLY_COUNTED

    assert (Status.OK, Scope.EXTERNAL) not in ONLY_COUNTED
    assert (Status.OK, Scope.INTERNAL) in ONLY_COUNTED


def test_the_json_report_still_lists_every_link_and_text_counts_them_all(site, monkeypatch, capsys):
    monkeypatch.chdir(site)
    assert main(["check", "--offline", "--no-cache", "--include-fragments", ".", "-f", "json", "-o", "out.json"]) == 1
    data = json.loads(Path("out.json").read_text())
    assert len(data["links"]) == data["totals"]["total"] == 12
    capsys.readouterr()
    assert main(["check", "--offline", "--no-cache", "--include-fragments", "."]) == 1
    assert "12 links in 3 files: 5 ok, 5 broken, 1 excluded (offline), 1 unsupported" in capsys.readouterr().out


def test_resolutions_are_remembered_for_one_directory_at_a_time():
    from linkfix.inputs.sources import Project
    from linkfix.model import Page

    files = ["a/one.html", "a/two.html", "b/three.html", "a/x.html"]
    project = Project(files=[], root=Path("/site"), markdown=False, site_files=frozenset(files), site_dirs=frozenset({"", "a", "b"}))
    checker = LocalChecker(project, Config())
    first = checker.resolve("x.html", Page(path="a/one.html"), "a/one.html")
    assert checker.resolve("x.html", Page(path="a/two.html"), "a/two.html") is first  # shared within a directory
    assert checker.resolve("../a/x.html", Page(path="b/three.html"), "b/three.html").resolved == "a/x.html"
    assert len(checker._resolved) == 1  # a's resolutions let go once b's pages are read
    again = checker.resolve("x.html", Page(path="a/one.html"), "a/one.html")
    assert again == first and again is not first  # resolved again, alike


def test_a_link_the_redirect_maps_send_to_a_fragment_waits_for_that_page():
    from linkfix.check.gather import Gathered
    from linkfix.check.targets import Target
    from linkfix.extract.pages import SitePages
    from linkfix.inputs.sources import Project
    from linkfix.mkdocs.config.project import MkDocsProject
    from linkfix.model import Link, LinkKind, Page, Span

    mk = MkDocsProject(config_file=Path("/p/mkdocs.yml"), docs_dir=Path("/site"), redirects={"old.md": "b.md#here"})
    project = Project(files=[], root=Path("/site"), markdown=True, mkdocs=mk, site_files=frozenset({"a.md", "b.md"}),
                      site_dirs=frozenset({""}))
    loaded: list[str] = []

    class Pages(SitePages):
        def extract(self, rel):
            loaded.append(rel)

    checker = LocalChecker(project, replace(Config(), include_fragments=True), Pages())
    gathered = Gathered(checker, offline=True, known={}, keep_all=True)
    page = Page(path="a.md")
    link = Link(url="old.md", kind=LinkKind.INLINE, span=Span(path="a.md", line=1, column=1, start=0, end=6), page=page)
    checker.pages["a.md"] = page
    gathered.add([link], [Target(scope=Scope.INTERNAL, resolved="old.md")])  # no fragment of its own: the map's
    checker.pages["b.md"] = Page(path="b.md", ids=frozenset({"here"}))  # read after a.md
    gathered.page_read("b.md")
    [item] = gathered.finish({})
    assert loaded == []  # b.md's ids came from its own reading, not a second one out of turn
    assert item.result.status is Status.REDIRECTED and item.result.final_url == "b.md#here"
