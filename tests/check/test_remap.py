"""`remap` rewrites requests; what is reported as a target and written into the docs stays in
the URL space of the documents (linkfix.check.remap, and where the pipeline, recovery and the
fixer use it)."""

from __future__ import annotations

from linkfix.check.remap import Remap
from linkfix.config import Config
from linkfix.fix.plan import FixOptions, plan_fixes
from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Redirect, Report, Scope, Span, Status
from linkfix.pipeline import run_check

HOST = "docs.example.test"


def test_a_request_space_url_goes_back_to_the_written_one():
    remap = Remap([r"^https://real\.example/ http://127.0.0.2:8080/"])
    remap.learn(["https://real.example/old/page.html"])
    assert remap.document("http://127.0.0.2:8080/new/page.html") == "https://real.example/new/page.html"
    assert remap.document("http://127.0.0.2:8080/") == "https://real.example/"
    assert remap.document("https://elsewhere.example/x") == "https://elsewhere.example/x"  # never remapped
    assert remap.document("http://127.0.0.2:80800/x") == "http://127.0.0.2:80800/x"  # another port is another host


def test_a_rule_that_moves_the_path_goes_back_too():
    remap = Remap([r"^https://site\.example/docs/ http://mirror.test/"])
    remap.learn(["https://site.example/docs/a/b.html"])
    assert remap.document("http://mirror.test/c/d.html") == "https://site.example/docs/c/d.html"


def test_no_translation_that_remapping_would_not_give_back():
    # the rule only rewrites /api/: a request-space URL outside it has no written form
    remap = Remap([r"^https://site\.example/api/ http://127.0.0.3/api/"])
    remap.learn(["https://site.example/api/v1"])
    assert remap.document("http://127.0.0.3/api/v2") == "https://site.example/api/v2"
    assert remap.document("http://127.0.0.3/other") == "http://127.0.0.3/other"


def test_without_rules_nothing_changes():
    remap = Remap([])
    assert not remap
    remap.learn(["https://a.example/x"])
    assert remap.document("http://127.0.0.2/x") == "http://127.0.0.2/x"


async def test_a_remapped_redirect_is_reported_suggested_and_written_in_the_documents_space(simweb, tmp_path):
    simweb.add_site(HOST)
    docs = tmp_path / "docs"
    docs.mkdir()
    # (a broken link too: recovery, which offers the redirect target, runs when one is broken)
    (docs / "index.md").write_text("[moved](https://real.example/redirect/301/ok/new.html)\n"
                                   "[gone](https://real.example/status/404/gone.html)\n", encoding="utf-8")
    config = Config(allow_private=True, max_retries=0, cache=False, suggest=True, archive=[], search=[],
                    remap=[rf"^https://real\.example/ http://{HOST}:{simweb.port}/"])
    report = await run_check([str(docs)], config, resolver=simweb.resolver)
    item = next(r for r in report.results if r.link.url.endswith("new.html"))
    assert item.result.status is Status.REDIRECTED
    assert item.result.final_url == "https://real.example/ok/new.html"
    assert item.result.redirects[-1].location == "https://real.example/ok/new.html"
    assert [c.url for c in item.suggestions] == ["https://real.example/ok/new.html"]
    (fix,) = plan_fixes(report, FixOptions(update_redirects=True)).fixes
    assert fix.new_url == "https://real.example/ok/new.html"


def test_a_saved_report_with_a_request_space_target_is_written_in_the_documents_space():
    written = "https://real.example/old"
    page = Page(path="index.md")
    link = Link(url=written, kind=LinkKind.INLINE, span=Span(path="index.md", line=1, column=8, start=7, end=7 + len(written)), page=page)
    leaked = "http://127.0.0.2:8080/new"
    redirected = LinkResult(link=link, resolved=written, scope=Scope.EXTERNAL, result=CheckResult(
        url=written, status=Status.REDIRECTED, final_url=leaked, permanent=True,
        redirects=(Redirect(url="http://127.0.0.2:8080/old", status=301, location=leaked),)))
    broken = LinkResult(link=link, resolved=written, scope=Scope.EXTERNAL,
                        result=CheckResult(url=written, status=Status.BROKEN, reason="404"),
                        suggestions=(Candidate(url=leaked, confidence=0.99, method="redirect"),))
    rules = (r"^https://real\.example/ http://127.0.0.2:8080/",)
    for item, options in ((redirected, FixOptions(update_redirects=True, remap=rules)), (broken, FixOptions(remap=rules))):
        (fix,) = plan_fixes(Report(results=(item,)), options).fixes
        assert fix.new_url == "https://real.example/new"
