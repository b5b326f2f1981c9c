"""linkfix.installed reads entry points as importlib.metadata does, without importing it; the
Markdown extensions built through it are the ones Python-Markdown builds."""

import sys
from importlib import metadata

import markdown
import pytest

from linkfix.files import installed
from linkfix.mkdocs.extensions.pymarkdown import build_extension, python_markdown


@pytest.mark.parametrize("group", ["markdown.extensions", "mkdocs.themes", "mkdocs.plugins", "console_scripts"])
def test_the_entry_points_of_this_environment_are_importlib_metadata_s(group):
    theirs: dict[str, str] = {}
    for point in metadata.entry_points(group=group):
        theirs.setdefault(point.name, point.value.partition("[")[0].replace(" ", ""))
    ours = {name: point.module + (f":{point.attr}" if point.attr else "") for name, point in installed.entry_points(group).items()}
    assert ours == theirs and (ours or group == "mkdocs.themes")


def dist(directory, name, entry_points):
    info = directory / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Name: {name}\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


def test_the_first_distribution_of_a_name_and_the_first_entry_of_a_name_win(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    dist(first, "Some_Pkg", "# a comment\n[x.group]\nalpha = one.mod:Cls.attr [extra]\nbeta=two\n\n[other]\nalpha = elsewhere:Z\n")
    dist(second, "some.pkg", "[x.group]\ngamma = shadowed:X\n")  # the same distribution, later on the path
    dist(second, "another", "[x.group]\nalpha = later:Y\ndelta = three.mod : D\n")
    dist(second, "plain", None)
    (second / "old.egg-info").write_text("Name: old\n")  # an egg-info file, not a directory
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second)])
    installed._all_groups.cache_clear()
    try:
        points = installed.entry_points("x.group")
    finally:
        installed._all_groups.cache_clear()
    ours = {name: (point.module, point.attr) for name, point in points.items()}
    assert ours == {"alpha": ("one.mod", "Cls.attr"), "beta": ("two", ""), "delta": ("three.mod", "D")}
    theirs: dict[str, tuple[str, str]] = {}
    for point in metadata.entry_points(group="x.group"):
        theirs.setdefault(point.name, (point.module, point.attr or ""))
    assert ours == theirs


def test_loading_follows_the_attribute_path():
    point = installed.EntryPoint("x", "os", "path.join")
    assert point.load() is __import__("os").path.join
    assert installed.EntryPoint("y", "json", "").load() is __import__("json")


@pytest.mark.parametrize("name", ["toc", "markdown.extensions.toc", "markdown.extensions.toc:TocExtension", "attr_list"])
def test_an_extension_is_built_as_python_markdown_builds_it(name):
    ours, theirs = build_extension(name, {"permalink": True} if "toc" in name.lower() else {}), \
        markdown.Markdown().build_extension(name, {"permalink": True} if "toc" in name.lower() else {})
    assert type(ours) is type(theirs) and ours.getConfigs() == theirs.getConfigs()


@pytest.mark.parametrize("name", ["no_such_module_here", "json", "markdown.extensions.toc:NoSuchClass"])
def test_an_extension_that_cannot_be_built_fails_as_in_python_markdown(name):
    with pytest.raises(Exception) as ours:
        build_extension(name, {})
    with pytest.raises(Exception) as theirs:
        markdown.Markdown().build_extension(name, {})
    assert (type(ours.value), ours.value.args) == (type(theirs.value), theirs.value.args)


def test_a_page_renders_the_same():
    text = "# Title\n\n[link](other.md#part) and *text*\n\n## Part {#part}\n"
    options = {"extensions": ["toc", "attr_list", "markdown.extensions.tables"], "extension_configs": {"toc": {"permalink": "#"}}}
    assert python_markdown(**options).convert(text) == markdown.Markdown(**options).convert(text)
