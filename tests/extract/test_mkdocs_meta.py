"""linkfix's copy of MkDocs' meta-data reading gives what MkDocs' own gives (mkdocs/pages/meta.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mkdocs.utils.meta import get_data as mkdocs_get_data

from linkfix.mkdocs.pages.meta import get_data
from linkfix.mkdocs.pages.render import split_meta

PAGES = [
    "# Title\n\ntext [a](b.md)\n",
    "---\ntitle: Hello\ntags: [a, b]\n---\n\n# Body\n",
    "---\ntitle: Dots end it\n...\nBody\n",
    "--- \t\ntitle: spaces after the dashes\n---\nBody\n",
    "---\n- a list\n- is not meta-data\n---\nBody\n",  # not a mapping: the page is left whole
    "---\nkey: [unclosed\n---\nBody\n",  # YAML that does not load: the page is left whole
    "---\nno end marker\n\nBody\n",
    "Title: MultiMarkdown\nAuthors: one\n    two\n\tthree\nSummary:  spaced  \n\nBody [x](y.md)\n",
    "Title: A\ntitle: repeated key\n\nBody\n",
    "Title: stops at a line that is not meta-data\nnot: meta\nplain line\nmore\n",
    "    indented: is a continuation without a key\nBody\n",
    "\n\nleading blank lines\n",
    "Key: value\r\nOther: crlf\r\n\r\nBody\r\n",
    "",
]


@pytest.mark.parametrize("page", PAGES)
def test_meta_data_read_as_mkdocs_reads_it(page: str) -> None:
    assert get_data(page) == mkdocs_get_data(page)


def test_split_meta_does_not_import_mkdocs() -> None:
    """The point of the copy: reading a page's meta-data loads none of MkDocs (and click)."""
    code = ("import sys; from linkfix.mkdocs.pages.render import split_meta; "
            "body = split_meta('---\\ntitle: T\\n---\\nBody\\n'); assert body.meta == {'title': 'T'}, body; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mkdocs', 'click')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert split_meta("Title: x\n\nBody\n").markdown == "Body\n"
