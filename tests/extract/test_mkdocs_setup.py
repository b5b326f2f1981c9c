"""Loading a MkDocs project's Markdown extensions (mkdocs/extensions/setup.py): what fails is left
out and said, whether it fails on its import, its config or the parser it extends."""

from __future__ import annotations

import textwrap

import pytest

from linkfix.mkdocs.extensions.setup import MarkdownSetup, announce, load, loaded

BROKEN_EXTENSION = """\
from markdown.extensions import Extension


class Broken(Extension):
    def extendMarkdown(self, md):
        raise RuntimeError("cannot extend this parser")


def makeExtension(**kwargs):
    return Broken(**kwargs)
"""


@pytest.fixture
def broken_extension(tmp_path, monkeypatch) -> str:
    """A module whose extension builds fine and fails when it extends a parser."""
    (tmp_path / "ext_fails_on_parser.py").write_text(textwrap.dedent(BROKEN_EXTENSION))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "ext_fails_on_parser"


def test_an_extension_failing_on_its_parser_is_left_out_and_the_others_kept(broken_extension, tmp_path):
    setup = MarkdownSetup(extensions=("toc", broken_extension, "admonition"), config_dir=str(tmp_path),
                          docs_dir=str(tmp_path), project_dir=str(tmp_path), trust_project_code=True)
    ready = load(setup)
    assert ready is not None
    assert ready.extensions == ("toc", "admonition")
    assert len(ready.problems) == 1
    assert f"'{broken_extension}' cannot be loaded (RuntimeError: cannot extend this parser)" in ready.problems[0]


def test_an_extension_that_is_not_installed_is_left_out_without_trying_the_rest_alone(tmp_path):
    setup = MarkdownSetup(extensions=("toc", "no_such_extension_anywhere", "admonition"), config_dir=str(tmp_path),
                          docs_dir=str(tmp_path), project_dir=str(tmp_path), trust_project_code=True)
    ready = load(setup)
    assert ready is not None
    assert ready.extensions == ("toc", "admonition")
    assert ["'no_such_extension_anywhere' is not installed here" in problem for problem in ready.problems] == [True]


def test_a_bad_option_is_said_as_before(tmp_path):
    setup = MarkdownSetup(extensions=("toc",), configs_json='{"toc": {"no_such_option": 1}}', config_dir=str(tmp_path),
                          docs_dir=str(tmp_path), project_dir=str(tmp_path))
    ready = load(setup)
    assert ready is not None and ready.extensions == ()
    assert "'toc' cannot be loaded (KeyError" in ready.problems[0]


def test_announce_and_the_renderer_share_one_load(tmp_path, monkeypatch):
    """Loading imports and tries every extension: once per process and setup, not once for the
    warnings and again for the renderer."""
    from linkfix.mkdocs.extensions import setup as setup_module
    from linkfix.mkdocs.pages.render import renderer_for

    calls = []
    real = setup_module.load
    monkeypatch.setattr(setup_module, "load", lambda s: calls.append(s) or real(s))
    setup = MarkdownSetup(extensions=("toc", "admonition"), config_dir=str(tmp_path), docs_dir=str(tmp_path),
                          project_dir=str(tmp_path))
    loaded.cache_clear()
    try:
        assert announce(setup)
        renderer = renderer_for(setup)
        assert renderer is not None and renderer.render("!!! note\n\n    [a](b.md)\n", "x.md") is not None
    finally:
        loaded.cache_clear()
    assert calls == [setup]
