"""`linkfix demo` end to end: the demo's loopback web up, check + recovery, reports written, server down."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
from pathlib import Path

import pytest

from linkfix.cli import main


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    from linkfix.cli.demo.acme import DOCS_DIR

    before = tree_digest(DOCS_DIR)
    out = tmp_path_factory.mktemp("demo") / "linkfix-demo"
    stdout = io.StringIO()  # module scope: capsys is per test, so capture by hand
    with contextlib.redirect_stdout(stdout):
        code = main(["demo", "--output-dir", str(out)])
    return {"code": code, "out": out, "stdout": stdout.getvalue(), "pristine": tree_digest(DOCS_DIR) == before}


def by_url(result: dict) -> dict[str, dict]:
    return {link["url"]: link for link in result["links"]}


def test_demo_runs_and_writes_both_reports(demo_run):
    assert demo_run["code"] == 0
    out = demo_run["out"]
    assert (out / "report.html").is_file() and (out / "result.json").is_file()
    assert (out / "docs" / "index.md").is_file()  # the copy that was checked
    assert demo_run["pristine"]  # the bundled example docs are never modified


def test_demo_recovers_where_the_content_went(demo_run):
    links = by_url(json.loads((demo_run["out"] / "result.json").read_text()))

    def top(url: str) -> dict:
        suggestions = links[url]["suggestions"]
        assert suggestions, f"no suggestion for {url}"
        return suggestions[0]

    moved = top("https://docs.acme.test/guide/configuration.html")
    assert moved["url"] == "https://docs.acme.test/guide/configure/settings.html"
    for name in ("authentication", "tokens", "webhooks"):  # the restructured section
        assert top(f"https://docs.acme.test/v1/api/{name}.html")["url"] == f"https://docs.acme.test/reference/api/{name}/"
    other_host = top("https://blog.acme.test/2019/06/caching-explained.html")
    assert other_host["url"] == "https://engineering.acme.test/posts/caching-explained/"
    # A retired page with no replacement: its archived copy is offered; a page above it (the
    # tool's home) may rank first, but only held for review, never applied unseen.
    retired = links["https://tools.acme.test/legacy/migrate-v1.html"]["suggestions"]
    assert "https://web.archive.org/web/20200820100000/https://tools.acme.test/legacy/migrate-v1.html" in [
        s["url"] for s in retired if s["method"] == "archive"]
    assert all(s["evidence"].get("hold") for s in retired if s["method"] != "archive" and s["confidence"] >= 0.9)
    assert retired[0]["method"] == "archive" or retired[0]["evidence"].get("hold")

    assert links["https://docs.acme.test/quickstart.html"]["status"] == "redirected"
    assert links["https://forum.acme.test/t/caching-questions/812"]["status"] == "blocked"
    assert links["https://wiki.acme.test/Deployment_Notes"]["reason"] == "soft-404"
    assert links["configuration.md#environment-variable"]["reason"] == "missing-fragment"
    assert links["https://docs.acme.test/guide/install.html#requirements"]["status"] == "ok"
    assert links["https://engineering.acme.test/posts/release-2-0/"]["status"] == "ok"


def test_demo_shows_every_kind_of_rot(demo_run):
    links = by_url(json.loads((demo_run["out"] / "result.json").read_text()))
    kinds = {(link["status"], link["reason"]) for link in links.values() if link["status"] != "ok"}
    assert kinds == {("broken", "404"), ("broken", "410"), ("broken", "soft-404"), ("broken", "missing-fragment"),
                     ("blocked", "bot-challenge"), ("redirected", "permanent")}
    chain = links["https://docs.acme.test/quickstart.html"]["redirects"]
    assert [(hop["status"], hop["location"]) for hop in chain] == [
        (301, "https://docs.acme.test/start/quickstart.html"), (301, "https://docs.acme.test/start/quickstart/")]
    assert "30 links in 11 files: 19 ok, 1 redirected, 9 broken, 1 blocked" in demo_run["stdout"]


def test_demo_patch_moves_every_recovered_link_to_its_new_home(demo_run):
    patch = demo_run["stdout"].split("Suggested patch", 1)[1].split("\nReport: ", 1)[0]
    url = r"\((https://[^)\s]+)\)"
    removed = sorted(re.findall(rf"^-[^-].*?{url}", patch, re.M))
    added = sorted(re.findall(rf"^\+[^+].*?{url}", patch, re.M))
    moves = {
        "https://docs.acme.test/guide/configuration.html": "https://docs.acme.test/guide/configure/settings.html",
        "https://docs.acme.test/quickstart.html": "https://docs.acme.test/start/quickstart/",
        "https://blog.acme.test/2019/06/caching-explained.html": "https://engineering.acme.test/posts/caching-explained/",
        **{f"https://docs.acme.test/v1/api/{name}.html": f"https://docs.acme.test/reference/api/{name}/"
           for name in ("authentication", "tokens", "webhooks")},
    }
    assert removed == sorted(moves) and added == sorted(moves.values())


def test_demo_prints_summary_and_patch_with_real_urls(demo_run):
    text = demo_run["stdout"]
    assert "broken" in text and "links in" in text  # the summary line
    assert "+[Caching explained](https://engineering.acme.test/posts/caching-explained/)" in text
    assert "+first, then follow the official [quickstart](https://docs.acme.test/start/quickstart/)." in text
    html = (demo_run["out"] / "report.html").read_text()
    assert "https://docs.acme.test/guide/configure/settings.html" in html
    # Nothing of the loopback plumbing leaks into what the user sees.
    for shown in (text, html, (demo_run["out"] / "result.json").read_text()):
        assert not re.search(r"acme\.test:\d+|127\.0\.0\.1|searx\.example\.test:\d+|web\.archive\.org:\d+", shown)


def test_demo_never_replaces_a_directory_it_did_not_make(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mine.md").write_text("# my real docs\n")
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--output-dir", ".", "-q"]) == 2
    assert (tmp_path / "docs" / "mine.md").read_text() == "# my real docs\n"


def test_demo_copy_is_replaced_on_the_next_run(tmp_path):
    from linkfix.cli.demo import copy_docs

    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("# A\n")
    target = tmp_path / "out" / "docs"
    copy_docs(source, target)
    (target / "a.md").write_text("# edited by linkfix fix\n")
    copy_docs(source, target)
    assert (target / "a.md").read_text() == "# A\n"


def test_demo_in_a_checkout_that_ignores_its_output(tmp_path, monkeypatch):
    # The README's first command runs the demo inside this repository, whose .gitignore lists
    # linkfix-demo/: the demo's own copy must still be checked.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("linkfix-demo/\n")
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["demo", "-q"]) == 0
    assert stdout.getvalue() == ""  # -q: the reports are written, nothing is printed (it printed all of it)
    result = json.loads((tmp_path / "linkfix-demo" / "result.json").read_text())
    assert result["files"] > 5 and any(link["suggestions"] for link in result["links"])
