"""The HTML report in headless Chromium, driven through chromedriver's W3C WebDriver HTTP API
(no selenium needed): it renders, filters, turns accepted suggestions into the decisions file
that `linkfix fix --apply` reads, and shows hostile text without running it."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from linkfix.fix.plan import plan_decisions
from linkfix.report.html import format_html

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C web element identifier


class WebDriver:
    """The few W3C WebDriver commands these tests need, over loopback HTTP."""

    def __init__(self, port: int, profile: Path, downloads: Path) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self._wait_ready()
        options = {
            "binary": CHROMIUM,
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
            ],
            "prefs": {"download.default_directory": str(downloads), "download.prompt_for_download": False},
        }
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while True:
            try:
                if self._call("GET", "/status").get("ready"):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)

    def _call(self, method: str, path: str, payload: dict | None = None):
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"webdriver {method} {path}: {exc.read()[:500]!r}") from None

    def command(self, method: str, path: str, payload: dict | None = None):
        return self._call(method, f"/session/{self.session}{path}", payload)

    def open(self, url: str) -> None:
        self.command("POST", "/url", {"url": url})

    def run(self, script: str, *args):
        return self.command("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css: str) -> None:
        found = self.command("POST", "/element", {"using": "css selector", "value": css})
        assert ELEMENT in found, found
        element = found[ELEMENT]
        # Centre it first: at the top of the viewport the sticky filter bar would take the click.
        self.run("arguments[0].scrollIntoView({block: 'center'})", {ELEMENT: element})
        self.command("POST", f"/element/{element}/click", {})

    def quit(self) -> None:
        self.command("DELETE", "")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    downloads = tmp_path_factory.mktemp("downloads")
    try:
        driver = WebDriver(port, tmp_path_factory.mktemp("profile"), downloads)
        driver.downloads = downloads
        yield driver
        driver.quit()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def page(browser, report, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(format_html(report), encoding="utf-8")
    browser.open(path.as_uri())
    return browser


def visible_ids(driver) -> list[str]:
    return driver.run("return Array.from(document.querySelectorAll('article.group')).filter(a => !a.hidden).map(a => a.id)")


def test_renders_totals_and_links(page):
    assert page.run("return document.title") == "linkfix report"
    assert len(visible_ids(page)) == 7
    assert page.run("return document.getElementById('shown-count').textContent") == "7 of 7 targets shown"
    totals = page.run("return Array.from(document.querySelectorAll('#totals li')).map(li => li.textContent.trim())")
    assert "3 broken" in totals and "1 redirected" in totals


def test_filters_by_status_file_and_host(page):
    page.click("#filter-status input[value='broken']")
    assert len(visible_ids(page)) == 4
    page.click("#filter-file option[value='docs/guide.md']")
    ids = visible_ids(page)
    assert len(ids) == 1
    assert page.run(f"return document.getElementById('{ids[0]}').dataset.status") == "redirected"
    page.click("#filter-status input[value='broken']")
    assert len(visible_ids(page)) == 3
    page.click("#filter-file option[value='']")
    page.click("#filter-host option[value='slow.example.net']")
    assert [page.run(f"return document.getElementById('{i}').dataset.status") for i in visible_ids(page)] == ["timeout"]
    assert page.run("return document.getElementById('shown-count').textContent") == "1 of 7 targets shown"


def test_accepting_two_suggestions_yields_decisions_file(page, tmp_path):
    guide = "article:has(li.place[data-url='https://old.example.org/manual/install.html'])"
    evil = "article[data-status='broken']:has(li.place[data-file='docs/evil page.md'])"
    page.click(f"{guide} li.candidate[data-index='1'] button.accept")
    page.click(f"{guide} li.candidate[data-index='0'] button.accept")  # withdraws the first accept
    page.click(f"{guide} li.candidate[data-index='1'] button.reject")
    page.click(f"{evil} li.candidate[data-index='1'] button.accept")
    assert page.run("return document.getElementById('decision-count').textContent") == "2 accepted, 1 rejected"
    preview = json.loads(page.run("return document.getElementById('decisions-preview').textContent"))
    expected = {
        "schema": "https://linkfix.dev/schema/decisions-1.json",
        "version": 1,
        "report": {"started": "2026-11-22T06:00:00+00:00"},
        "decisions": [
            {"file": "docs/evil page.md", "line": 2, "column": 10, "start": 30, "end": 63,
             "url": "javascript:alert(document.domain)", "kind": "html", "tag": "a[href]",
             "replacement": 'https://safe.example.net/a?x=1&y="2"', "decision": "accept"},
            {"file": "docs/guide.md", "line": 3, "column": 14, "start": 40, "end": 83,
             "url": "https://old.example.org/manual/install.html", "kind": "inline", "tag": "",
             "replacement": "https://new.example.org/docs/install/", "decision": "accept"},
            {"file": "docs/guide.md", "line": 3, "column": 14, "start": 40, "end": 83,
             "url": "https://old.example.org/manual/install.html", "kind": "inline", "tag": "",
             "replacement": "https://new.example.org/docs/", "decision": "reject"},
        ],
    }
    assert preview == expected
    # the download button writes the same document
    page.click("#download")
    target = page.downloads / "decisions.json"
    deadline = time.monotonic() + 15
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(target.read_text()) == expected
    # and `linkfix fix --apply` accepts it
    assert [f.new_url for f in plan_decisions(expected).fixes] == ["https://safe.example.net/a?x=1&y=\"2\"", "https://new.example.org/docs/install/"]


def test_hostile_text_is_shown_not_run(page):
    from report_sample import HOSTILE_TITLE

    assert page.run("return window.__pwned === undefined")
    titles = page.run("return Array.from(document.querySelectorAll('.page-title')).map(e => e.textContent)")
    assert HOSTILE_TITLE in titles
    assert page.run("return document.querySelectorAll('main img, main script').length") == 0
    # javascript: URLs are never clickable
    assert page.run("return Array.from(document.querySelectorAll('a[href]')).filter(a => !/^https?:/.test(a.href)).length") == 0
    assert page.run("return document.querySelectorAll('li.candidate[data-replacement^=\"javascript\"] button').length") == 0
    # our own script did run (the CSP pins it by hash)
    assert page.run("return document.getElementById('decision-count').textContent") == "0 accepted, 0 rejected"


def test_decisions_carry_the_exact_name_of_a_file_that_is_not_utf8(browser, report, tmp_path):
    """The page shows such a name escaped (\\xff); the decision names the file itself, which
    `linkfix fix --apply` then opens (os.fsdecode's surrogates, via JSON's \\udcXX escapes)."""
    import dataclasses

    odd = "docs/\udcff name.md"
    first = report.results[0]
    link = dataclasses.replace(first.link, span=dataclasses.replace(first.link.span, path=odd), page=dataclasses.replace(first.link.page, path=odd))
    path = tmp_path / "odd.html"
    path.write_text(format_html(dataclasses.replace(report, results=(dataclasses.replace(first, link=link),))), encoding="utf-8")
    browser.open(path.as_uri())
    assert browser.run("return document.querySelector('article.group code.where').textContent") == "\\xff name.md:3:14"  # root-relative (the report's root is docs)
    browser.click("article.group li.candidate[data-index='0'] button.accept")
    preview = json.loads(browser.run("return document.getElementById('decisions-preview').textContent"))
    assert [entry["file"] for entry in preview["decisions"]] == [odd]
    assert [fix.span.path for fix in plan_decisions(preview).fixes] == [odd]


def test_a_decision_on_a_target_applies_to_each_of_its_places(browser, tmp_path):
    """One Accept on a page linked from seven places: seven decisions, each with the way there
    spelled for its own page, which `linkfix fix --apply` accepts."""
    from test_report_groups import MISSING, _report

    path = tmp_path / "grouped.html"
    path.write_text(format_html(_report()), encoding="utf-8")
    browser.open(path.as_uri())
    assert browser.run("return document.querySelector('details.more-places').open") is False
    browser.click("article#g0 li.candidate[data-index='0'] button.accept")
    preview = json.loads(browser.run("return document.getElementById('decisions-preview').textContent"))
    decided = sorted((d["file"], d["line"], d["url"], d["replacement"]) for d in preview["decisions"])
    assert len(decided) == MISSING
    assert ("docs/guide/c.md", 12, "../changelog.md#v1", "../news.md#v1") in decided
    assert ("docs/b.md", 9, "changelog.md#v2", "news.md#v2") in decided
    assert len(plan_decisions(preview).fixes) == MISSING
    # the file buttons of the summary filter the targets
    browser.click("#summary button.show-file[data-file='docs/b.md']")
    assert browser.run("return document.getElementById('filter-file').value") == "docs/b.md"
    assert visible_ids(browser) == ["g0", "g1", "g2"]
    browser.click("#summary button.show-file[data-file='docs/z.md']")
    assert visible_ids(browser) == ["g0"]


# -- what a reviewer sees, at the demo's 11 findings and at ~1,500 ------------------------------

CPYTHON_DOCS = Path("/usr/share/doc/python3.11/html")


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    """Where screenshots and figures go: $LINKFIX_ARTIFACTS, else a directory of this run's tmp."""
    import os

    chosen = os.environ.get("LINKFIX_ARTIFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _demo_report(folder: Path) -> Path:
    import contextlib
    import io

    from linkfix.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["demo", "--output-dir", str(folder / "demo"), "-q"]) == 0
    return folder / "demo" / "report.html"


def _large_report(folder: Path) -> tuple[Path, str]:
    """~1,500 findings: the CPython docs (a missing page linked 1,451 times) when installed
    (Debian's python3.11-doc), else a generated tree of the same shape."""
    import asyncio

    from linkfix.config import Config
    from linkfix.pipeline import run_check

    if (CPYTHON_DOCS / "contents.html").is_file():
        source, name = CPYTHON_DOCS, f"CPython docs ({CPYTHON_DOCS})"
    else:
        source, name = folder / "generated", "a generated tree: 1,451 links to one missing page from 18 pages, 4 missing ids"
        pages = source / "pages"
        pages.mkdir(parents=True)
        (source / "glossary.md").write_text("# Glossary\n\n## Terms\n")
        for n in range(18):
            count = 1451 // 18 + (1 if n < 1451 % 18 else 0)
            links = "".join(f"- [Changes in 3.{k}](../whatsnew/changelog.md#python-3-{k}-{n})\n" for k in range(count))
            extra = "[term](../glossary.md#index-19) [term](../glossary.md#index-20)\n" if n < 2 else ""
            (pages / f"page-{n}.md").write_text(f"# Page {n}\n\n{links}\n{extra}")
    report = asyncio.run(run_check([str(source)], Config(offline=True, cache=False)))
    path = folder / "large" / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(format_html(report), encoding="utf-8")
    return path, name


@pytest.mark.parametrize("size", ["demo", pytest.param("large", marks=pytest.mark.slow)])
def test_what_a_reviewer_sees_first(browser, artifacts, size, capsys):
    """The report opened at 1280x900: screenshots of the first screen and of the page (to 6,000
    px), the page's height and load time printed and written to figures.txt (no timing is asserted)."""
    import base64

    if size == "demo":
        path, data = _demo_report(artifacts), "the demo's report (linkfix demo)"
    else:
        path, data = _large_report(artifacts)
    browser.command("POST", "/window/rect", {"width": 1280, "height": 900})
    started = time.monotonic()
    browser.open(path.as_uri())
    wall = time.monotonic() - started
    height = browser.run("return document.documentElement.scrollHeight")
    loaded = browser.run("const n = performance.getEntriesByType('navigation')[0]; return [n.domContentLoadedEventEnd, n.loadEventEnd]")
    findings = browser.run("return Array.from(document.querySelectorAll('article.group')).reduce((n, a) => n + Number(a.dataset.count), 0)")
    cards = browser.run("return document.querySelectorAll('article.group').length")
    shots = {}
    for name, clip_height in (("first-screen", 900), ("page", min(height, 6000))):
        clip = {"x": 0, "y": 0, "width": 1280, "height": clip_height, "scale": 1}
        shot = browser.command("POST", "/goog/cdp/execute", {"cmd": "Page.captureScreenshot", "params": {"clip": clip, "captureBeyondViewport": True}})
        shots[name] = artifacts / f"report-{size}-{name}.png"
        shots[name].write_bytes(base64.b64decode(shot["data"]))
    figures = (f"{size}: {data}: {findings} findings in {cards} cards; page {height} px high at 1280 px wide; "
               f"DOMContentLoaded {loaded[0]:.0f} ms, load {loaded[1]:.0f} ms ({wall:.2f} s to open); "
               f"screenshots {', '.join(str(p) for p in shots.values())}")
    with (artifacts / "figures.txt").open("a", encoding="utf-8") as out:
        out.write(figures + "\n")
    with capsys.disabled():
        print(f"\n[report-ui] {figures}")
    # what a reviewer meets first: the summary, above the first card
    assert browser.run("return document.getElementById('summary').getBoundingClientRect().bottom "
                       "<= document.querySelector('article.group').getBoundingClientRect().top")
    assert findings >= (11 if size == "demo" else 1450)
    if size == "large":
        # one card per target, the biggest first; its places folded away
        assert cards < 10 and browser.run("return Number(document.querySelector('article.group').dataset.count)") >= 1451 - 1
        assert browser.run("return document.querySelector('article.group details.more-places').open") is False
    # no host filter without external links; never an Accept on an unlikely candidate
    external = browser.run("return Array.from(document.querySelectorAll('article.group')).some(a => a.dataset.host !== '(local)')")
    assert browser.run("return document.getElementById('filter-host') !== null") == external
    assert browser.run("return document.querySelectorAll('li.candidate[data-unlikely] button').length") == 0
