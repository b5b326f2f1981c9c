"""Adding a plugin is adding its module (issue 42): one file in linkfix/mkdocs/plugins/, named
after the plugin, with `PLUGIN` a subclass of `plugins.base.Plugin`. Nothing else names it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import linkfix.mkdocs.plugins as plugins
from linkfix.cli import main
from linkfix.mkdocs.plugins import configured, module_name, plugin_class
from linkfix.mkdocs.plugins.base import Plugin

ONE_FILE = '''
from linkfix.mkdocs.plugins.base import Plugin


class Changelog(Plugin):
    """A made-up plugin: it writes the changelog page, and an archive of it into the site."""

    def makes(self, made):
        made.docs.setdefault("changelog.md", "the changelog plugin")
        made.files.setdefault(self.settings.get("archive", "changes.txt"), "the changelog plugin")


PLUGIN = Changelog
'''


@pytest.fixture
def plugin_file(tmp_path, monkeypatch):
    """The plugin's one file, in a directory the package's path takes in (as if it were in the package)."""
    directory = tmp_path / "more-plugins"
    directory.mkdir()
    (directory / "my_changelog.py").write_text(ONE_FILE, encoding="utf-8")
    monkeypatch.setattr(plugins, "__path__", [*plugins.__path__, str(directory)])
    return directory


def project(root: Path, with_plugin: bool) -> Path:
    (root / "docs").mkdir(parents=True)
    plugin = "  - my-changelog:\n      archive: history.txt\n" if with_plugin else ""
    (root / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - search\n" + plugin, encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Home\n\n[changes](changelog.md) [archive](history.txt)\n", encoding="utf-8")
    return root


def statuses(root: Path, monkeypatch) -> dict[str, str]:
    monkeypatch.chdir(root)
    out = root / "r.json"
    main(["check", "--offline", "--no-cache", "mkdocs.yml", "-f", "json", "-o", str(out)])
    return {link["url"]: link["status"] for link in json.loads(out.read_text())["links"]}


def test_a_plugin_added_as_one_file_makes_its_pages_and_files(tmp_path, monkeypatch, plugin_file):
    assert statuses(project(tmp_path / "with", True), monkeypatch) == {"changelog.md": "ok", "history.txt": "ok"}


def test_without_the_plugin_in_the_config_its_pages_are_missing(tmp_path, monkeypatch, plugin_file):
    assert statuses(project(tmp_path / "without", False), monkeypatch) == {"changelog.md": "broken", "history.txt": "broken"}


def test_names_as_configs_write_them_find_the_module():
    assert [module_name(name) for name in ("material/search", "literate-nav", "mkdocs-simple-hooks")] == \
        ["search", "literate_nav", "mkdocs_simple_hooks"]
    assert plugin_class("no-such-plugin") is None
    assert issubclass(plugin_class("material/search"), Plugin)


def test_every_plugin_module_is_named_by_nothing_outside_the_package():
    """The registry is the only way in: no module outside linkfix/mkdocs/plugins imports a
    protocol plugin's module (a plugin that needs another place to be wired is not one file)."""
    package = Path(plugins.__file__).parent
    protocol = [p.stem for p in package.glob("*.py") if "PLUGIN = " in p.read_text(encoding="utf-8")]
    assert {"search", "literate_nav", "awesome_nav", "gen_files", "monorepo"} <= set(protocol)
    root = package.parents[1]
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py") if package not in p.parents
                 for stem in protocol if f"plugins.{stem} import" in p.read_text(encoding="utf-8")
                 or f"plugins import {stem}" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_the_configured_plugins_follow_the_configs_order(tmp_path):
    from linkfix.mkdocs.config.load import read_config

    root = tmp_path
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# x\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - rss\n  - search\n  - not-emulated\n  - llmstxt\n", encoding="utf-8")
    assert [plugin.name for plugin in configured(read_config(root / "mkdocs.yml"))] == ["rss", "search", "llmstxt"]
