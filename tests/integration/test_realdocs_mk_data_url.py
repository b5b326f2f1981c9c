"""A `data:` URL holding template text is that scheme's link, no internal target (found on
table-reader, one of the projects at the end of benchmarks/realdocs_projects.yaml). The test is a
small project written here, checked like `linkfix check --offline mkdocs.yml`."""

from __future__ import annotations

from pathlib import Path

from linkfix.model import Scope

from .conftest import check_mkdocs_project


def results(tmp_path: Path, config: str, pages: dict[str, str]) -> dict[str, tuple[str, Scope]]:
    """url -> (status, scope) of every link of a small MkDocs project (the worst status when a URL repeats)."""
    found: dict[str, tuple[str, Scope]] = {}
    for r in check_mkdocs_project(tmp_path, config, pages).results:
        if found.get(r.link.url, ("",))[0] != "broken":
            found[r.link.url] = (r.result.status.value, r.scope)
    return found


# table-reader: `<img src="data:image/png;base64,{{ base64_image }}">` in a macros loop was an
# internal link left unverified as template text (1 of its 16 internal links, 6%). A data: URL
# carries its content; whatever the macros fill in, it names no page or file to check.
def test_a_data_url_with_template_text_is_no_internal_link(tmp_path):
    found = results(tmp_path, """\
        plugins:
          - macros
        """, {"index.md": """\
        # Home

        <img src="data:image/png;base64,{{ image }}" alt="dot">

        [a page]({{ config.extra.page }})
        """})
    status, scope = found["data:image/png;base64,{{ image }}"]
    assert scope is not Scope.INTERNAL
    assert status == "unsupported"
    # template text with no scheme of its own still names a target of the site: unverified, as before
    assert found["{{ config.extra.page }}"] == ("unverified", Scope.INTERNAL)
