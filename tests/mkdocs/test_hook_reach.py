"""What a project hook that is not run here can change, read from its source (issue 44.7):
only what it could really change is unverified."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url

CHECKS_NAMES = """\
def on_files(files, config):
    for file in files:
        if file.src_path.endswith('.md') and '_' in file.src_uri and not file.src_uri.startswith('guides/'):
            raise RuntimeError(f'File {file.src_path} contains an underscore.')
"""

ADDS_A_FILE = """\
from mkdocs.structure.files import File


def on_files(files, config):
    files.append(File('made.md', config['docs_dir'], config['site_dir'], True))
    return files
"""


def test_a_file_event_that_only_checks_the_files_makes_none(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\nnav:\n  - index.md\n  - guides/gone.md\n",
                                                     {"index.md": "# Home\n\n[gone](guides/gone/index.md)\n"}, files={"hooks.py": CHECKS_NAMES}))
    assert found["guides/gone/index.md"] == "broken"
    assert found["guides/gone.md"] == "broken"  # the nav entry


def test_a_file_event_that_adds_a_file_may_make_it(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n",
                                                     {"index.md": "# Home\n\n[made](made.md)\n"}, files={"hooks.py": ADDS_A_FILE}))
    assert found["made.md"] == "unverified"


STRIPS_FENCE_OPTIONS = '''\
import re


def on_page_markdown(markdown, page, config, files):
    markdown = strip_options(markdown)
    markdown = footer(markdown, page)
    return markdown


def strip_options(markdown):
    def one_fence(match):
        line = match.group(0)
        line = re.sub(r'\\s+skip-run="[^"]*"', '', line)
        line = re.sub(r'\\s+skip="[^"]*"', '', line)
        return line.rstrip() + '\\n'

    pattern = r'```[a-z]+\\s*[^\\n]*skip(?:-run)?[^\\n]*\\n'
    return re.sub(pattern, one_fence, markdown)


def footer(markdown, page):
    if not page.file.src_uri.startswith('integrations/'):
        return markdown
    return markdown + FOOTER


FOOTER = """
## Excluding URLs

See [the guide](../guide.md).
"""
'''

FENCED_PAGE = '''\
# Reference

```python skip-run="true"
x = 1
```

Some text.

```python skip="true"
y = 2
```

## After

More.
'''


def test_a_hook_s_known_substitution_is_made_and_what_it_does_not_run_on_is_exact(tmp_path):
    """logfire's hook strips options Python-Markdown's fences do not take (a re.sub whose
    replacement function its source spells): made here, the headings after those fences are
    there; its footer runs on integrations/ pages only: elsewhere nothing else is unknown."""
    config = "hooks:\n  - hooks.py\nmarkdown_extensions:\n  - pymdownx.superfences\n"
    found = worst_status_by_url(check_mkdocs_project(tmp_path, config, {
        "index.md": "# Home\n\n[after](reference.md#after) [nowhere](reference.md#nowhere) [gone](gone.md)\n",
        "reference.md": FENCED_PAGE,
        "integrations/a.md": "# A\n\n[gone](../gone.md)\n\nEnd.\n",
    }, files={"hooks.py": STRIPS_FENCE_OPTIONS}))
    assert found["reference.md#after"] == "ok"
    assert found["reference.md#nowhere"] == "broken"
    assert found["gone.md"] == "broken"
    assert found["../gone.md"] == "broken"  # before the footer the hook appends


def test_offsets_after_a_substitution_made_here_are_placed_back_on_the_source():
    import ast

    from linkfix.mkdocs.project_code.substitutions import make_known, substitutions

    source = "import re\n\ndef on_page_markdown(markdown, page, config, files):\n" \
             "    markdown = re.sub(r'x+', 'x', markdown)\n    return markdown.replace('TODO', done())\n"
    found = substitutions(ast.parse(source), "on_page_markdown")
    assert found is not None and found[0].known == ("template", "x") and found[1].known is None
    made = make_known(found, "a xxxx b TODO", None)
    assert made.text == "a x b TODO" and [s.pattern for s in made.left] == ["TODO"]
    assert made.source_offset(made.text.index("TODO")) == "a xxxx b TODO".index("TODO")
    assert made.source_offset(2) == 2  # inside what it put in: where that starts


def test_the_trusted_run_leaves_out_the_extensions_that_are_not_installed(tmp_path):
    """Item 7's second example: the config names an extension that is not installed and a Python
    object of a package that is not (`!!python/name:material.extensions.emoji.twemoji`
    without Material): MkDocs' config load fails on both, so the hooks never ran; now the config
    is loaded without them, as the rendering leaves them out, and the hooks run."""
    config = """\
        hooks:
          - hooks.py
        markdown_extensions:
          - toc:
              permalink: true
          - pymdownx.emoji:
              emoji_index: !!python/name:no_such_package_here.emoji.twemoji
          - no_such_extension_here
        """
    hook = "import subprocess\n\ndef on_page_markdown(markdown, page, config, files):\n" \
           "    return markdown.replace('{{ target }}', subprocess.__name__ + '.md')\n"
    found = worst_status_by_url(check_mkdocs_project(tmp_path, config, {"index.md": "# Home\n\n[x]({{ target }})\n",
                                                                         "subprocess.md": "# S\n"},
                                                     files={"hooks.py": hook}, trust=True))
    assert found == {"subprocess.md": "ok"}  # the link the hook writes, found where it leads


def test_a_constant_put_for_a_constant_is_made_here(tmp_path):
    """copier's hook: `markdown.replace("CHANGELOG.md)", "changelog.md)")`: the link it makes is judged."""
    hook = "def on_page_markdown(markdown, page, config, files):\n    return markdown.replace('CHANGELOG.md)', 'changelog.md)')\n"
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n", {
        "index.md": "# Home\n\n[changes](CHANGELOG.md) [gone](gone.md)\n", "changelog.md": "# Changes\n"}, files={"hooks.py": hook}))
    assert found == {"changelog.md": "ok", "gone.md": "broken"}  # the target as the build writes it, as with the trust


def test_a_hook_s_condition_on_the_front_matter_is_told_per_page(tmp_path):
    """logfire's hook puts a note before the pages whose front matter says `integration:
    third-party`: on another page it puts nothing, and its links are judged."""
    hook = ("def on_page_markdown(markdown, page, config, files):\n"
            "    kind = page.meta.get('integration')\n"
            "    if kind == 'third-party':\n"
            "        markdown = NOTE + markdown\n"
            "    return markdown\n\n"
            "NOTE = '!!! note\\n    Community-maintained.\\n\\n'\n")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n", {
        "otel.md": "---\nintegration: otel\n---\n# Otel\n\n[gone](gone-otel.md)\n",
        "third.md": "---\nintegration: third-party\n---\n# Third\n\n[gone](gone-third.md)\n"}, files={"hooks.py": hook}))
    assert found["gone-otel.md"] == "broken"
    assert found["gone-third.md"] == "unverified"


def test_text_put_after_the_page_changes_nothing_before_an_earlier_substitution(tmp_path):
    hook = ("import re\nimport subprocess\n\ndef on_page_markdown(markdown, page, config, files):\n"
            "    markdown = re.sub(r'{{ *help *}}', subprocess.check_output(['tool', '--help'], text=True), markdown)\n"
            "    return markdown + FOOTER\n\nFOOTER = '\\n## More\\n'\n")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n", {
        "index.md": "# Home\n\n[before](gone-before.md)\n\n{{ help }}\n\n[after](gone-after.md)\n"}, files={"hooks.py": hook}))
    assert found["gone-before.md"] == "broken"
    assert found["gone-after.md"] == "unverified"


def test_a_replacement_that_would_grow_the_page_without_bound_is_not_made_here():
    """Made here, a substitution runs on the page: one whose replacement multiplies the text
    (a template of a thousand `\\g<0>`, a step doubling itself) is refused before it grows,
    and the page stays unverified where it matches."""
    import ast

    from linkfix.mkdocs.project_code.substitutions import make_known, substitutions

    doubling = "\n".join(f"    t{i + 1} = t{i} + t{i}" for i in range(30))
    template = "\\\\g<0>" * 1000  # in the hook's source: '\\g<0>\\g<0>...'
    source = ("import re\n\ndef on_page_markdown(markdown, page, config, files):\n"
              f"    markdown = re.sub(r'(?s).+', '{template}', markdown)\n"
              "    return re.sub(r'(?s).+', grow, markdown)\n\n"
              f"def grow(match):\n    t0 = match.group(0)\n{doubling}\n    return t30\n")
    found = substitutions(ast.parse(source), "on_page_markdown")
    assert found is not None and all(s.known is not None for s in found)
    made = make_known(found, "x" * 100_000, None)
    assert made.text == "x" * 100_000 and made.left == found  # nothing made: both are left unknown
