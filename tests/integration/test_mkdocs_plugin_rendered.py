"""The mkdocs plugin reads what MkDocs rendered, says each finding once, and takes no network
as a warning: real `mkdocs build` runs of small self-written projects."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import MKDOCS_CHECKS_ANCHORS

HOOK = '''
def on_page_content(html, page, config, files):
    # What a plugin adds at build time: an id (as mkdocstrings makes them) and a link.
    if page.file.src_uri == "api.md":
        return html + '<h2 id="pkg.mod.Thing">Thing</h2>'
    if "HOOK-LINK" in page.markdown:
        return html + '<p><a href="made-by-the-build/">made</a></p>'
    return html
'''


def project(tmp_path: Path, options: dict, pages: dict[str, str], extra: str = "") -> Path:
    root = tmp_path / "site-project"
    (root / "docs").mkdir(parents=True)
    (root / "hooks.py").write_text(HOOK)
    lines = "".join(f"      {key}: {json.dumps(value)}\n" for key, value in options.items())
    (root / "mkdocs.yml").write_text(
        "site_name: t\nhooks:\n  - hooks.py\nmarkdown_extensions:\n  - admonition\n  - pymdownx.superfences\n"
        "  - pymdownx.tabbed:\n      alternate_style: true\n" + extra + "plugins:\n  - linkfix:\n" + lines)
    for name, text in pages.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def build_in_process(root: Path, *, strict: bool = False):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"), strict=strict)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return config.plugins["linkfix"]


def mkdocs_build(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=root, env=env | {"NO_MKDOCS_2_WARNING": "1"},
                          capture_output=True, text=True, timeout=120)


PAGES = {
    "index.md": """\
        # Home

        <!-- HOOK-LINK -->

        !!! note

            Read [the API](api.md#pkg.mod.Thing) and [a missing page](missing.md).

        === "Tab"

            [a missing anchor](a.md#nowhere)
        """,
    "api.md": "# API\n\n::: pkg.mod\n",
    "a.md": '# A\n\n<a href="../b/">works on the site</a> and <a href="b.md">does not</a>.\n',
    "b.md": "# B\n",
}


def test_the_plugin_checks_what_mkdocs_rendered(tmp_path, in_process_plugin, monkeypatch):
    root = project(tmp_path, {"offline": True, "cache": False, "fail_on": "never"}, PAGES)
    monkeypatch.chdir(root)
    results = {r.link.url: r for r in build_in_process(root).report.results}
    assert results["missing.md"].failing  # inside an admonition
    assert results["a.md#nowhere"].failing  # inside a content tab
    assert results["api.md#pkg.mod.Thing"].result.status.value == "ok"  # an id the build made: exact here
    assert not results["../b/"].failing  # raw HTML: followed from the built page's URL (a/)
    assert results["b.md"].failing  # ... where b.md is no page
    made = results["made-by-the-build/"]  # a link only the build has
    assert made.failing and made.link.span.start == made.link.span.end
    for url in ("missing.md", "a.md#nowhere", "../b/", "b.md"):  # each at its place in the source
        span = results[url].link.span
        assert Path(span.path).read_text()[span.start : span.end] == url


def test_the_plugin_report_feeds_fix_from(tmp_path, in_process_plugin, monkeypatch):
    from linkfix.fix.changes import prepare_changes
    from linkfix.fix.plan import Fix, FixPlan
    from linkfix.report.json_format import read_report

    pages = {"index.md": "# Home\n\n!!! note\n\n    Read [the old page](https://old.example.com/page).\n"}
    root = project(tmp_path, {"offline": True, "cache": False, "report": "links.json"}, pages)
    monkeypatch.chdir(root)
    build_in_process(root)
    (result,) = read_report((root / "links.json").read_bytes()).results
    plan = FixPlan(fixes=(Fix(span=result.link.span, url=result.link.url, kind=result.link.kind,
                              new_url="https://new.example.com/page", method="decision"),))
    changes, problems = prepare_changes(plan, base=root, root=root)
    assert problems == []
    assert changes[0].after == pages["index.md"].replace("old.example.com", "new.example.com")


def test_each_finding_is_said_once(tmp_path, checkout_env):
    pages = {"index.md": "# Home\n\n[a missing page](missing.md) and [a missing anchor](b.md#nowhere)\n", "b.md": "# B\n"}
    root = project(tmp_path, {"offline": True, "cache": False, "report": "links.json"}, pages)
    done = mkdocs_build(root, checkout_env)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    # MkDocs warns about missing.md (validation.links.not_found: warn); linkfix does not repeat it
    assert [line for line in lines if "missing.md" in line] == [next(line for line in lines if "Doc file 'index.md'" in line and "'missing.md'" in line)]
    # MkDocs 1.6 says the missing anchor at INFO (validation.links.anchors: info), shown: linkfix does
    # not repeat it either; MkDocs 1.5 does not check anchors, so linkfix says it
    assert len([line for line in lines if "b.md#nowhere" in line]) == 1
    told = 2 if MKDOCS_CHECKS_ANCHORS else 1
    assert f"linkfix: 2 broken link(s) of 2 in 2 page(s) ({told} also reported by MkDocs above)" in done.stderr
    assert {link["url"] for link in json.loads((root / "links.json").read_text())["links"] if link["status"] == "broken"} == {
        "missing.md", "b.md#nowhere"}


def test_findings_mkdocs_does_not_show_are_linkfixs_to_say(tmp_path, checkout_env):
    pages = {"index.md": "# Home\n\n[a missing page](missing.md) and [a missing anchor](b.md#nowhere)\n", "b.md": "# B\n"}
    extra = "validation:\n  links:\n    not_found: ignore\n    anchors: ignore\n"
    root = project(tmp_path, {"offline": True, "cache": False}, pages, extra=extra)
    done = mkdocs_build(root, checkout_env)
    assert done.returncode == 1
    assert len([line for line in done.stderr.splitlines() if ": missing.md (" in line]) == 1
    assert len([line for line in done.stderr.splitlines() if ": b.md#nowhere (" in line]) == 1
    assert "also reported by MkDocs" not in done.stderr


@pytest.mark.parametrize("fail", [False, True])
def test_no_network_is_a_warning_unless_asked(tmp_path, checkout_env, fail):
    # Port 9 on loopback answers nothing: the network probe fails at once, as with no network.
    options = {"cache": False, "allow_private": True, "max_retries": 0, "network_probe": "http://127.0.0.1:9/"}
    if fail:
        options["fail_on_network_down"] = True
    pages = {"index.md": "# Home\n\n[out there](http://127.0.0.1:9/page) and [here](b.md)\n", "b.md": "# B\n"}
    root = project(tmp_path, options | {"report": "links.json"}, pages)
    done = mkdocs_build(root, checkout_env)
    if fail:
        assert done.returncode == 1 and "network probe" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert "WARNING" in done.stderr and "network probe" in done.stderr and "fail_on_network_down" in done.stderr
    links = {link["url"]: link for link in json.loads((root / "links.json").read_text())["links"]}
    assert links["b.md"]["status"] == "ok"  # internal links are still checked
    assert (links["http://127.0.0.1:9/page"]["status"], links["http://127.0.0.1:9/page"]["reason"]) == ("excluded", "offline")
    assert "network is down" in links["http://127.0.0.1:9/page"]["detail"]
