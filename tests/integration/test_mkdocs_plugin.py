"""The mkdocs plugin, through real `mkdocs build` runs of the fixture projects."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from linkfix.config import Config

from .conftest import MKDOCS_CHECKS_ANCHORS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mkdocs"
PROJECTS = ["plain", "material-dirurls", "material-flat"]
BROKEN = {"guide/missing.md", "guide/install.md#no-such-section", "img/nope.png"}
GOOD = {"guide/install.md", "guide/install.md#requirements", "guide/usage.md#running-it",
        "guide/usage.md#uberblick-co", "img/logo.svg", "#local-section", "../index.md", "usage.md#running-it",
        "install.md", "../index.md#local-section"}


def copy_fixtures(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "mkdocs", ignore=shutil.ignore_patterns("site", ".linkfix-cache"))
    return tmp_path / "mkdocs"


def set_options(project: Path, **options: object) -> None:
    """Replace the fixture's linkfix plugin options (the last lines of each mkdocs.yml)."""
    config = project / "mkdocs.yml"
    head = config.read_text().split("  - linkfix:", 1)[0]
    lines = [f"      {key}: {json.dumps(value)}" for key, value in options.items()]
    config.write_text(head + "  - linkfix:\n" + "\n".join(lines) + "\n")


def mkdocs_build(project: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    """`mkdocs build` (not --quiet: that would hide the warnings under test)."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *extra], cwd=project,
                          env=env | {"NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True, timeout=120)


def statuses(report_file: Path) -> dict[str, str]:
    data = json.loads(report_file.read_text())
    return {link["url"]: link["status"] for link in data["links"]}


@pytest.mark.parametrize("name", PROJECTS)
def test_build_fails_listing_exactly_the_broken_links(name, tmp_path, checkout_env):
    project = copy_fixtures(tmp_path) / name
    set_options(project, offline=True, cache=False, report="linkfix.json")
    done = mkdocs_build(project, checkout_env)
    assert done.returncode == 1, done.stderr
    assert "3 broken link(s)" in done.stderr
    for url in BROKEN:  # said once: MkDocs' own validation logs these, so linkfix does not repeat them
        assert [line for line in done.stderr.splitlines() if f"'{url}'" in line or f": {url} (" in line], url
        assert len([line for line in done.stderr.splitlines() if f"'{url}'" in line or f": {url} (" in line]) == 1, done.stderr
    assert f"({3 if MKDOCS_CHECKS_ANCHORS else 2} also reported by MkDocs above)" in done.stderr
    found = statuses(project / "linkfix.json")
    assert {url for url, status in found.items() if status == "broken"} == BROKEN
    assert {url for url, status in found.items() if status == "ok"} >= GOOD
    places = {link["url"]: (link["file"], link["line"]) for link in json.loads((project / "linkfix.json").read_text())["links"]}
    assert places["guide/missing.md"][0].endswith("docs/index.md") and places["guide/missing.md"][1] == 15  # the markdown's place


def build_in_process(project: Path, *, strict: bool = False, command: str = "build"):
    """A build through the mkdocs API (no interpreter start-up); returns the plugin instance."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(project / "mkdocs.yml"), strict=strict)
    config.plugins.on_startup(command=command, dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return config.plugins["linkfix"]


def test_clean_site_builds_and_strict_passes(tmp_path, in_process_plugin, monkeypatch):
    root = copy_fixtures(tmp_path)
    index = root / "docs" / "index.md"
    index.write_text(index.read_text().split("These three are broken")[0])
    project = root / "plain"
    set_options(project, offline=True, cache=False, report="site/linkfix.json")
    monkeypatch.chdir(project)
    plugin = build_in_process(project, strict=True)
    assert not any(r.failing for r in plugin.report.results)
    assert (project / "site" / "linkfix.json").is_file()  # a report can go into the site itself


def test_fail_on_never_warns_and_strict_is_honoured(tmp_path, in_process_plugin, monkeypatch, caplog):
    from mkdocs.exceptions import Abort

    project = copy_fixtures(tmp_path) / "plain"
    set_options(project, offline=True, cache=False, fail_on="never")
    monkeypatch.chdir(project)
    plugin = build_in_process(project)
    assert sum(r.failing for r in plugin.report.results) == 3
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.name.startswith("mkdocs.plugins")]
    mkdocs_warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.name == "mkdocs.structure.pages"]
    # said once: MkDocs warns about the missing file itself; the missing anchor (an INFO of
    # MkDocs', not shown at this log level) is linkfix's to say
    assert any("guide/missing.md" in w for w in mkdocs_warnings) and not any("guide/missing.md" in w for w in warnings)
    assert any("guide/install.md#no-such-section" in w for w in warnings)
    assert any("(2 also reported by MkDocs above)" in w for w in warnings)
    with pytest.raises(Abort, match="strict mode"):
        build_in_process(project, strict=True)


def test_bad_option_is_a_config_error(tmp_path, in_process_plugin, caplog):
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    project = copy_fixtures(tmp_path) / "plain"
    set_options(project, offline=True, timeout="soon")
    with pytest.raises(Abort, match="configuration error"):
        load_config(str(project / "mkdocs.yml"))
    assert "option 'timeout': expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m (at most 5m), got 'soon'" in caplog.text
    set_options(project, offline=True, fail_on="sometimes")
    with pytest.raises(Abort):
        load_config(str(project / "mkdocs.yml"))
    assert "fail_on" in caplog.text


def test_every_config_key_is_an_option(in_process_plugin):
    from mkdocs_linkfix.plugin import LinkfixPlugin

    options = {name for name, _ in LinkfixPlugin.config_scheme}
    assert {f.name for f in Config.key_fields()} - {"format", "output", "trust_project_code", "cache_url"} <= options
    assert "trust_project_code" not in options  # a build runs the project's code anyway: no switch for it
    assert "cache_url" not in options  # mkdocs.yml is the repository's: it does not pick the shared store
    assert {"fail_on", "report", "serve_external"} <= options


async def test_external_links_through_the_cache(tmp_path, checkout_env):
    from linkfix_simweb import SimWeb

    simweb = SimWeb()
    site = simweb.add_site("127.0.0.1")  # an IP site: the subprocess needs no name resolution
    site.page("/fine.html", "<html><head><title>Fine</title></head><body><h2 id='part'>Part</h2></body></html>")
    async with simweb:
        await _check_external_links_through_the_cache(simweb, tmp_path, checkout_env)


async def _check_external_links_through_the_cache(simweb, tmp_path, checkout_env):
    root = copy_fixtures(tmp_path)
    index = root / "docs" / "index.md"
    base = f"http://127.0.0.1:{simweb.port}"
    index.write_text(index.read_text().split("These three are broken")[0]
                     + f"[fine]({base}/fine.html#part) and [gone]({base}/gone.html)\n")
    project = root / "plain"
    set_options(project, allow_private=True, max_retries=0, fail_on="never", report="out.json")

    async def build():
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mkdocs", "build", "--quiet", cwd=project, env=checkout_env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(process.communicate(), 120)
        assert process.returncode == 0, err.decode()
        return statuses(project / "out.json")

    first = await build()
    assert first[f"{base}/fine.html#part"] == "ok"
    assert first[f"{base}/gone.html"] == "broken"
    requests = simweb.stats("127.0.0.1").requests
    assert requests >= 2
    second = await build()
    assert second[f"{base}/fine.html#part"] == "ok"
    assert simweb.stats("127.0.0.1").paths["/fine.html"] == 1  # the rebuild asked the cache, not the site
    assert (project / ".linkfix-cache").is_dir()  # cache_dir is relative to mkdocs.yml


def test_serve_never_touches_the_network(tmp_path, in_process_plugin, monkeypatch):
    root = copy_fixtures(tmp_path)
    index = root / "docs" / "index.md"
    # Port 9 (discard) on loopback: any request would fail as a connection error, not "offline".
    index.write_text(index.read_text() + "\n[external](http://127.0.0.1:9/never)\n")
    project = root / "plain"
    set_options(project, allow_private=True, cache=False)
    monkeypatch.chdir(project)
    plugin = build_in_process(project, command="serve")  # broken links only warn while serving
    results = {r.link.url: r.result for r in plugin.report.results}
    assert results["http://127.0.0.1:9/never"].reason == "offline"
    assert sum(r.failing for r in plugin.report.results) == 3


def test_disabled_plugin_checks_nothing(tmp_path, in_process_plugin, monkeypatch):
    project = copy_fixtures(tmp_path) / "plain"
    set_options(project, enabled=False)
    monkeypatch.chdir(project)
    plugin = build_in_process(project)  # the three broken links do not fail the build
    assert plugin.report is None


def test_a_page_that_is_a_symlink_out_of_the_project_is_not_read(tmp_path, in_process_plugin, monkeypatch, caplog):
    root = copy_fixtures(tmp_path)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0 [x](https://example.com/)\n")
    outside = tmp_path / "private.md"
    outside.write_text("# Private\n\ntoken c2VjcmV0 [y](https://example.com/private)\n")
    (root / "docs" / "leak.md").symlink_to("../.git/config")
    (root / "docs" / "private.md").symlink_to(outside)
    project = root / "plain"
    set_options(project, offline=True, cache=False, fail_on="never")
    monkeypatch.chdir(project)
    plugin = build_in_process(project)
    assert plugin.report.results  # the control: the other pages were checked
    assert not [r for r in plugin.report.results if r.link.span.path.endswith(("leak.md", "private.md"))]
    from linkfix.report import FORMATS

    assert all("c2VjcmV0" not in formatter(plugin.report) for formatter in FORMATS.values())
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("leak.md" in w and "outside" in w for w in warnings)
    assert any("private.md" in w and "outside" in w for w in warnings)
