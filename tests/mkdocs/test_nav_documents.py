"""Nav entries go through the pipeline as every link does (issue 42: they skipped extraction
and recovery): read as a document of the config's after the pages, resolved, checked, filtered,
and suggested for — a renamed page's entry gets the rename, written from the docs' root — while
`fix` still leaves the config's YAML alone, and the config counts as no page of the site."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from linkfix.cli import main


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


def test_a_nav_entry_of_a_renamed_page_is_suggested_the_rename(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nnav:\n  - A: a.md\n  - B: setup-guide.md\n", encoding="utf-8")
    (tmp_path / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "docs" / "setup-guide.md").write_text("# Setup guide\n\nhow to set up\n", encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "a")
    git(tmp_path, "mv", "docs/setup-guide.md", "docs/installing.md")
    git(tmp_path, "commit", "-qm", "rename")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main(["check", "--offline", "--no-cache", "--suggest", "mkdocs.yml", "-f", "json", "-o", str(out)]) == 1
    report = json.loads(out.read_text())
    (entry,) = [link for link in report["links"] if link["status"] == "broken"]
    assert entry["file"].endswith("mkdocs.yml") and entry["url"] == "setup-guide.md"
    assert [s["url"] for s in entry["suggestions"]][:1] == ["installing.md"]
    assert report["files"] == 2  # the pages; the config is no page
    before = (tmp_path / "mkdocs.yml").read_text()
    main(["fix", "--offline", "--no-cache", "mkdocs.yml"])
    assert (tmp_path / "mkdocs.yml").read_text() == before


async def test_a_nav_link_to_the_web_is_checked_as_any_external_link(tmp_path):
    """`- Changelog: https://...` in the nav is a link every page's navigation shows: it was
    skipped without a word (0 links for it), so a dead one passed. mailto: and the like stay no
    entry (nothing a reader follows to a page)."""
    import asyncio
    import os
    import sys

    from linkfix_simweb import SimWeb

    host = "127.0.0.32"
    web = SimWeb(latency=0.0)
    web.add_site(host)
    async with web:
        live, dead = web.url(host, "/ok/live.html"), web.url(host, "/status/404/dead")
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
        (tmp_path / "mkdocs.yml").write_text(
            f"site_name: t\nnav:\n  - Home: index.md\n  - Live: {live}\n  - Dead: {dead}\n  - Mail: mailto:team@example.test\n",
            encoding="utf-8")
        root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")])}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "linkfix", "check", "mkdocs.yml", "--no-cache", "--allow-private", "--network-probe", "",
            "--max-retries", "0", "-f", "json", "-o", "r.json", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        code = await asyncio.wait_for(process.wait(), 120)
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 1
    # index.md's entry, and both URLs, checked; no mailto: entry
    assert [(link["url"], link["status"]) for link in report["links"]] == [("index.md", "ok"), (live, "ok"), (dead, "broken")]
