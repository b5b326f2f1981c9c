"""Issue 21: full `site_url` links of a MkDocs project, as a reader of the published site follows
them: a page of this build, or a site beside it on the same host (not this build's to have)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, pages: dict[str, str]) -> Report:
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False)))


def outcomes(report: Report) -> dict[str, tuple[str, str]]:
    return {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results}


def test_an_organisation_pages_site_shares_its_host_with_the_organisations_project_sites(tmp_path):
    """mkdocstrings.github.io is mkdocstrings' own site and, at /python/, /griffe/, ..., the
    organisation's other projects' (was: 'not a URL of the built site', broken)."""
    got = outcomes(check(tmp_path, "site_url: https://mkdocstrings.github.io/\n", {
        "usage/index.md": "# Usage\n",
        "index.md": """\
            [python](https://mkdocstrings.github.io/python/) [griffe](https://mkdocstrings.github.io/griffe-sphinx)
            [usage](https://mkdocstrings.github.io/usage/) [gone](https://mkdocstrings.github.io/usage/gone/)
            [missing](https://mkdocstrings.github.io/missing.html)
            """}))
    assert got["https://mkdocstrings.github.io/python/"] == ("excluded", "outside-build")
    assert got["https://mkdocstrings.github.io/griffe-sphinx"] == ("excluded", "outside-build")
    assert got["https://mkdocstrings.github.io/usage/"] == ("ok", "")
    assert got["https://mkdocstrings.github.io/usage/gone/"][0] == "broken"  # under a directory of this build
    assert got["https://mkdocstrings.github.io/missing.html"][0] == "broken"  # a file at the top: this build's


def test_a_project_site_does_not_share_its_first_directories(tmp_path):
    got = outcomes(check(tmp_path, "site_url: https://org.github.io/proj/\n", {
        "index.md": "[gone](https://org.github.io/proj/gone/)\n"}))
    assert got["https://org.github.io/proj/gone/"][0] == "broken"
