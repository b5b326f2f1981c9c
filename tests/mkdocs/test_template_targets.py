"""A target the run cannot fill in is unverified, never cut nor lost (issue 44, item 8).

`[guide]: https://x.dev/docs/{{ git.tag}}/guide/` is a reference definition once the macros
plugin has filled in the template; read as written, the space ended the destination: the
definition was no definition (its uses vanished: a miss) or the target was cut to
`https://x.dev/docs/` (a false alarm, where the macros engine was importable).
"""

from __future__ import annotations

import json

import pytest

from linkfix.cli import main

PAGE = ("# Home\n\nSee [the guide][guide] and [inline](https://x.dev/docs/{{ git.tag}}/inline/) and "
        "[spaced]({{ config.site_url }}about/).\n\n[guide]: https://x.dev/docs/{{ git.tag}}/guide/start/\n")


@pytest.mark.parametrize("config", ["plugins:\n  - macros\n", "markdown_extensions:\n  - zensical.extensions.macros\n"],
                         ids=["mkdocs-macros", "zensical-macros"])
def test_a_template_in_a_link_target_is_kept_whole_and_unverified(tmp_path, monkeypatch, config):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n" + config, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main(["check", "--offline", "--no-cache", "mkdocs.yml", "-f", "json", "-o", str(out)]) == 0
    links = {link["url"]: link for link in json.loads(out.read_text())["links"]}
    guide = links["https://x.dev/docs/{{ git.tag}}/guide/start/"]
    assert (guide["status"], guide["reason"]) == ("unverified", "template")
    assert links["https://x.dev/docs/{{ git.tag}}/inline/"]["status"] == "unverified"
    text = PAGE
    for url, link in links.items():
        line = text.splitlines()[link["line"] - 1]
        assert line[link["column"] - 1:].startswith(url)  # at its exact place, whole
