"""Reproductions of what hooks, mkautodoc and markdown-exec left unverified or missed on real
MkDocs projects (issue 21, branch mk-hooks): each would fail on the code before it."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from linkfix.mkdocs.project_code.substitutions import Substitution, first_change, substitutions

from .conftest import check_mkdocs_project, worst_status_by_url


def statuses(tmp_path: Path, config: str, pages: dict[str, str], files: dict[str, str] | None = None, *,
             trust: bool = False) -> dict[str, str]:
    """url -> status of every link of a small MkDocs project, checked like `linkfix check
    --offline mkdocs.yml` (`broken` when any link with that URL is)."""
    return worst_status_by_url(check_mkdocs_project(tmp_path, config, pages, files, trust=trust))


def needs_markdown_exec() -> None:
    """Skip where markdown-exec cannot be imported: not installed, or installed beside an
    mkdocs-material whose icons it reads at import lacks (1.12 with the lowest pins' 9.0)."""
    try:
        import markdown_exec  # noqa: F401
    except Exception as exc:  # FileNotFoundError there, not ImportError
        pytest.skip(f"markdown-exec cannot be imported here: {exc}")


def test_a_markdown_exec_that_fails_to_import_is_not_run_and_nothing_crashes(tmp_path, monkeypatch):
    from linkfix.mkdocs.plugins.markdown_exec import EXEC_LANGUAGES, add_exec_fences

    fake = tmp_path / "fake" / "markdown_exec"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise FileNotFoundError('material/templates/.icons/simple/css.svg')\n")
    monkeypatch.syspath_prepend(str(fake.parent))
    monkeypatch.delitem(sys.modules, "markdown_exec", raising=False)
    configs: dict = {}
    assert add_exec_fences(configs, "", run_in=str(tmp_path)) is False  # not run: as without trust
    fences = configs["pymdownx.superfences"]["custom_fences"]
    assert {fence["name"] for fence in fences} == set(EXEC_LANGUAGES)


# What it puts in is the output of a command (unknown here: with a constant, or a replacement
# function its source spells, the substitution is made here, tests/mkdocs/test_hook_reach.py).
HELP_HOOK = ("import re\nimport subprocess\n\ndef on_page_markdown(markdown, page, config, files):\n"
             "    return re.sub(r'{{ *help *}}', subprocess.check_output(['tool', '--help'], text=True), markdown)\n")


# uvicorn: its hook puts the CLI's help where `{{ uvicorn_help }}` is; a broken image at the top of
# the page was unverified because the whole page was taken as rewritten
def test_a_substitution_after_a_link_does_not_make_it_unverified(tmp_path):
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": "![logo](../../logo.png)\n\n{{ help }}\n"},
                     files={"hooks.py": HELP_HOOK})
    assert found["../../logo.png"] == "broken"


def test_what_the_substitution_may_change_stays_unverified(tmp_path):
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": """\
        [before](gone-before.md) and [label][ref]

        `code [same](gone-same.md) {{ help }}

        [after](gone-after.md) and [missing fragment](#nowhere)

        [ref]: gone-ref.md
        """, "other.md": "[into](index.md#nowhere-else)\n"}, files={"hooks.py": HELP_HOOK})
    assert found["gone-before.md"] == "broken"
    # in the match's paragraph (a backtick put in closes the code span), after it (a fence put in
    # swallows it), by reference (a definition put in wins) or a fragment (a heading put in): unknown
    for url in ("gone-same.md", "gone-after.md", "gone-ref.md", "#nowhere", "index.md#nowhere-else"):
        assert found[url] == "unverified", url


def test_an_html_rewrite_is_judged_by_its_own_pattern(tmp_path):
    # uvicorn's hook also links `(#123)` in the HTML of its release notes; a page where that pattern
    # does not match is not rewritten after rendering, whatever its Markdown substitution matches
    hook = HELP_HOOK + ("\ndef on_page_content(html, page, config, files):\n"
                        "    return re.sub(r'\\(#(\\d+)\\)', r'(<a href=\"https://example.org/pull/\\1\">#\\1</a>)', html)\n")
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": "[a](gone.md)\n\n{{ help }}\n", "notes.md": "[b](gone-too.md) (#12)\n"},
                     files={"hooks.py": hook})
    assert found["gone.md"] == "broken"
    assert found["gone-too.md"] == "unverified"


@pytest.mark.parametrize("body", [
    "    markdown += '\\n[x](y.md)\\n'\n    return markdown\n",  # appends
    "    for key in ('a', 'b'):\n        markdown = markdown.replace(key, 'b')\n    return markdown\n",  # a loop
    "    return re.sub(PATTERN(), 'x', markdown)\n",  # a pattern made at run time
    "    return markdown.upper()\n",
    "    return other.rewrite(markdown)\n",  # another module's code
])
def test_a_hook_that_does_more_than_substitute_literal_patterns_rewrites_the_whole_page(tmp_path, body):
    hook = "import re\nimport other\n\ndef PATTERN():\n    return 'help'\n\ndef on_page_markdown(markdown, page, config, files):\n" + body
    found = statuses(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": "![logo](../../logo.png)\n\nhelp {{ help }} a b\n"},
                     files={"hooks.py": hook, "other.py": "def rewrite(text):\n    return text\n"})
    assert found["../../logo.png"] == "unverified"


def test_substitutions_are_followed_through_the_module_s_functions():
    tree = ast.parse(textwrap.dedent("""\
        import re
        from mkdocs.plugins import event_priority
        HELP = re.compile(r"{{ *help *}}", re.I)

        @event_priority(-50)
        def on_page_markdown(markdown, page, config, files):
            if page.file.name != "index":
                return markdown
            markdown = first(page, markdown)
            return HELP.sub(lambda m: run(), markdown)

        def first(page, text):
            text = text.replace("{{ version }}", version())
            return re.sub("<!-- x -->", "", text, flags=re.M)

        def on_page_content(html, page, config, files):
            return html + "<p>more</p>"
        """))
    index_only = (("not", ("not", ("eq", "name", "index"))),)  # after `if page.file.name != "index": return markdown`
    assert substitutions(tree, "on_page_markdown") == (
        Substitution(r"\{\{\ version\ \}\}", when=index_only), Substitution("<!-- x -->", 8, when=index_only, known=("template", "")),
        Substitution("{{ *help *}}", 2, when=index_only))
    assert substitutions(tree, "on_page_content") == (Substitution("", insert="end"),)  # text put after the page
    assert substitutions(tree, "on_post_page") == ()


def test_the_first_change_is_the_first_match_unless_a_later_substitution_reads_what_was_put_in():
    one = (Substitution("{{ *help *}}"),)
    assert first_change(one, "a\n\n{{help}}") == 3
    assert first_change(one, "nothing") is None
    two = (Substitution("{{ *help *}}"), Substitution("x+"))
    assert first_change(two, "a\n\n{{help}}") == 0
    assert first_change(two, "a\n\nx") == 3  # the first does not match: the second runs on the page as written


EXEC_CONFIG = "plugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n"
CLI_PAGE = """\
# CLI

```python exec="1" idprefix=""
for name in ("init", "lock"):
    print(f"## {name}\\n")
```

```python exec="1"
print("## numbered\\n")
```
"""


# pdm: its CLI reference is one markdown-exec fence that prints a heading per command; 44 of its 89
# internal links pointed there and were unverified
@pytest.mark.parametrize("trust", [False, True])
def test_trusted_markdown_exec_fences_run_and_their_ids_are_known(tmp_path, trust):
    needs_markdown_exec()
    found = statuses(tmp_path, EXEC_CONFIG, {"cli.md": CLI_PAGE, "index.md": """\
        [a](cli.md#init) [b](cli.md#lock) [c](cli.md#gone) [d](cli.md#exec-2--numbered) [e](cli.md#exec-9--gone) [f](cli.md#cli)
        """}, trust=trust)
    assert found["cli.md#cli"] == "ok"
    for url in ("cli.md#init", "cli.md#lock"):
        assert found[url] == ("ok" if trust else "unverified")
    assert found["cli.md#gone"] == ("broken" if trust else "unverified")
    # the number in `exec-N--` counts fences across the build in the build's order: not known here
    assert found["cli.md#exec-2--numbered"] in ("ok", "unverified")
    assert found["cli.md#exec-9--gone"] == "unverified"


def test_a_fence_that_fails_here_leaves_its_ids_unverified(tmp_path):
    needs_markdown_exec()
    page = "# CLI\n\n```python exec=\"1\" idprefix=\"\"\nimport not_installed_here\nprint('## init')\n```\n"
    found = statuses(tmp_path, EXEC_CONFIG, {"cli.md": page, "index.md": "[a](cli.md#init)\n"}, trust=True)
    assert found["cli.md#init"] == "unverified"


AUTODOC_CONFIG = "markdown_extensions:\n  - mkautodoc\n"
AUTODOC_MODULE = '''\
from .api import add, get

ALIAS = None
alias = ALIAS


def documented():
    """Summary.

    ## Call statistics
    """
'''
AUTODOC_API = '''\
def add(route, *, name=None):
    return route


def get(url):
    """Get a route. See `add`."""
'''


# respx: `#call-statistics`, a removed heading, was unverified because a mkautodoc block on the page could
# make that id; mkautodoc's signatures make none, only the docstrings it renders can (with the page's toc)
@pytest.mark.parametrize(("block", "expected"), [
    ("::: tool.get", "broken"),  # no option line: a signature only
    ("> ::: tool.add\n>     :docstring:", "broken"),  # no docstring: nothing rendered
    ("::: tool.get\n    :docstring:", "broken"),  # a docstring without a heading
    ("::: tool.documented\n    :docstring:", "unverified"),  # its docstring's heading makes `call-statistics`
    ("::: tool.alias\n    :docstring:", "unverified"),  # an assignment: not read
    ("::: tool.get\n    :members:", "unverified"),  # members: what dir() gives
])
def test_mkautodoc_blocks_make_ids_only_from_the_docstrings_they_render(tmp_path, block, expected):
    found = statuses(tmp_path, AUTODOC_CONFIG, {"api.md": f"# API\n\n{block}\n\nSee [Call Statistics](#call-statistics).\n"},
                     files={"tool/__init__.py": AUTODOC_MODULE, "tool/api.py": AUTODOC_API})
    assert found["#call-statistics"] == expected


# mkdocstrings-python: an `md` fence whose Markdown holds `:::` blocks keeps, with trust, the bounds it
# has without (its blocks are mkdocstrings', a plugin a source check does not run): run by markdown-exec
# they were left as text, and every fragment into the page was unverified
def test_an_md_fence_with_autodoc_blocks_keeps_its_bounds_with_trust(tmp_path):
    needs_markdown_exec()
    config = "plugins:\n  - markdown-exec\n  - mkdocstrings\nmarkdown_extensions:\n  - pymdownx.superfences\n"
    page = "# Page\n\n````md exec=\"1\"\n::: pkg.mod.Thing\n````\n"
    found = statuses(tmp_path, config, {"page.md": page, "index.md": "[a](page.md#nowhere) [b](page.md#pkg.mod.Thing.run)\n"}, trust=True)
    assert found["page.md#nowhere"] == "broken"
    assert found["page.md#pkg.mod.Thing.run"] == "unverified"


@pytest.mark.parametrize("module", [
    "import regex as re\n",  # another engine's matches
    "import re\ntry:\n    import regex as re\nexcept ImportError:\n    pass\n",
    "import re\n\ndef setup():\n    global helper\n    helper = str.upper\n",  # the helper rebound at run time
])
def test_a_hook_whose_names_may_be_rebound_is_not_read_as_substituting(module):
    tree = ast.parse(module + "\ndef helper(text):\n    return re.sub('{{x}}', '', text)\n\n"
                              "def on_page_markdown(markdown, page, config, files):\n    return helper(markdown)\n")
    assert substitutions(tree, "on_page_markdown") is None
