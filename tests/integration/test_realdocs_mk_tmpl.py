"""Issue 21, fastapi's `template` unverified: link targets a macros engine fills in from data
(`{{ sponsor.img }}` in a `{% for %}` loop over a YAML file) are rendered with Jinja's sandbox
and each value checked at the template's span (mkdocs/plugins/macros.py). Small reproductions written
here; fastapi itself is judged by `benchmarks/realdocs.py --project fastapi --check`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from linkfix.model import LinkResult, Reason, Status

from .conftest import check_mkdocs_project

PLUGIN = """\
plugins:
  - macros:
      include_yaml:
        - data/links.yml
"""
LOOP = """\
# Links

{% for item in links %}
- [{{ item.title }}]({{item.page}})
{% endfor %}
"""


def check(tmp_path: Path, config: str, pages: dict[str, str], files: dict[str, str] | None = None) -> list[LinkResult]:
    """Every link result of a small MkDocs project, checked like `linkfix check --offline mkdocs.yml`."""
    return list(check_mkdocs_project(tmp_path, config, pages, files).results)


def test_a_loop_over_a_data_file_checks_each_link_it_makes_at_the_templates_span(tmp_path):
    results = check(tmp_path, PLUGIN, {"index.md": LOOP, "guide.md": "# Guide\n"},
                    {"data/links.yml": "links:\n  - {title: Guide, page: guide.md}\n  - {title: Gone, page: gone.md}\n"})
    by_url = {r.link.url: r for r in results}
    assert by_url["guide.md"].result.status is Status.OK
    assert by_url["gone.md"].result.status is Status.BROKEN
    assert "{{item.page}}" not in by_url  # the template itself is not checked: what it renders to is
    source = (tmp_path / "docs" / "index.md").read_text()
    for url, item in (("guide.md", "item 1"), ("gone.md", "item 2")):
        span = by_url[url].link.span
        assert source[span.start : span.end] == "{{item.page}}"
        assert f"in `for item in links`, {item}" in by_url[url].link.template
    assert "item 2" in by_url["gone.md"].result.detail  # the report says which data item made it


def test_zensical_page_data_and_root_relative_images(tmp_path):
    # fastapi: `include_yaml` in the page's front matter (zensical's macros extension), images
    # written as site-root paths in raw HTML.
    page = """\
    ---
    include_yaml:
      sponsors: data/sponsors.yml
    ---

    # Sponsors

    {% for sponsor in sponsors.gold -%}
    <a href="{{ sponsor.url }}"><img src="{{ sponsor.img }}"></a>
    {% endfor %}
    """
    results = check(tmp_path, "markdown_extensions:\n  - zensical.extensions.macros\n", {"index.md": page, "img/a.png": ""},
                    {"data/sponsors.yml": "gold:\n  - {url: 'https://a.example/', img: /img/a.png}\n"
                                          "  - {url: 'https://b.example/', img: /img/b.png}\n"})
    status = {r.link.url: r.result.status for r in results}
    assert status == {"https://a.example/": Status.EXCLUDED, "https://b.example/": Status.EXCLUDED,
                      "/img/a.png": Status.OK, "/img/b.png": Status.BROKEN}


def test_a_value_made_by_several_items_is_one_link(tmp_path):
    results = check(tmp_path, PLUGIN, {"index.md": LOOP, "guide.md": "# Guide\n"},
                    {"data/links.yml": "links:\n" + "  - {title: Guide, page: guide.md}\n" * 3})
    made = [r for r in results if r.link.template]
    assert [r.link.url for r in made] == ["guide.md"]
    assert "items 1, 2, 3" in made[0].link.template


def test_an_undefined_name_keeps_the_target_unverified(tmp_path):
    # `people` may come from the build (a macros module, git, the page object): no claim is made.
    page = "{% for user in people %}\n[{{ user.name }}]({{user.url}})\n{% endfor %}\n"
    results = check(tmp_path, PLUGIN, {"index.md": page}, {"data/links.yml": "links: []\n"})
    [result] = results
    assert result.link.url == "{{user.url}}"
    assert (result.result.status, result.result.reason) == (Status.UNVERIFIED, Reason.TEMPLATE)
    assert "'people' is undefined" in result.result.detail


def test_a_name_the_data_lacks_outside_a_target_leaves_the_others_rendered(tmp_path):
    # `page` is the build's: a target that uses it stays unverified, the loop's are checked.
    page = "# {{ page.title }}\n\n{% for item in links %}\n- [x]({{item.page}})\n{% endfor %}\n\n[here]({{page.url}})\n"
    results = check(tmp_path, PLUGIN, {"index.md": page, "guide.md": "# Guide\n"},
                    {"data/links.yml": "links:\n  - {page: guide.md}\n  - {page: gone.md}\n"})
    by_url = {r.link.url: r.result for r in results}
    assert (by_url["guide.md"].status, by_url["gone.md"].status) == (Status.OK, Status.BROKEN)
    assert by_url["{{page.url}}"].status is Status.UNVERIFIED and "it uses `page`" in by_url["{{page.url}}"].detail


def test_what_the_build_may_define_decides_nothing_here(tmp_path):
    # `is defined` and `default` on a name the data lacks would pick a branch the build may not.
    pages = {"index.md": "{% if sponsors is defined %}\n[x]({{ links[0].page }})\n{% endif %}\n",
             "other.md": "<a href=\"{{ site_root | default('') }}/guide.md\">y</a>\n"}
    results = check(tmp_path, PLUGIN, pages, {"data/links.yml": "links:\n  - {page: gone.md}\n"})
    assert [(r.result.status, r.result.reason) for r in results] == [(Status.UNVERIFIED, Reason.TEMPLATE)] * 2
    detail = {r.link.span.path.rpartition("/")[2]: r.result.detail for r in results}
    assert "'sponsors' is undefined" in detail["index.md"] and "it uses `site_root`" in detail["other.md"]


def test_a_target_markdown_reads_inside_an_expression_leaves_the_others_rendered(tmp_path):
    # Markdown reads `[y]({{ x | default('') }}/a.md)` as a target up to the `(`: no mark goes there.
    page = "[y]({{ site_root | default('') }}/guide.md)\n\n{% for item in links %}\n- [x]({{item.page}})\n{% endfor %}\n"
    results = check(tmp_path, PLUGIN, {"index.md": page, "guide.md": "# Guide\n"}, {"data/links.yml": "links:\n  - {page: gone.md}\n"})
    by_status = {r.result.status: r for r in results}
    assert by_status[Status.BROKEN].link.url == "gone.md"
    assert "part of a template expression" in by_status[Status.UNVERIFIED].result.detail


def test_a_filter_jinja_does_not_have_keeps_the_target_unverified(tmp_path):
    # mkdocs-macros' `fix_url`, or one a project module adds: not Jinja's, not run here.
    page = "{% for item in links %}\n[x]({{ item.page|fix_url }})\n{% endfor %}\n"
    results = check(tmp_path, PLUGIN, {"index.md": page}, {"data/links.yml": "links:\n  - {page: a.md}\n"})
    [result] = results
    assert result.result.status is Status.UNVERIFIED
    assert "No filter named 'fix_url'" in result.result.detail


def test_a_project_macros_module_keeps_every_template_target_unverified(tmp_path):
    # main.py's define_env may set any variable (it is the project's code, never run here).
    results = check(tmp_path, PLUGIN, {"index.md": LOOP, "guide.md": "# Guide\n"},
                    {"data/links.yml": "links:\n  - {title: Guide, page: guide.md}\n", "main.py": "def define_env(env):\n    pass\n"})
    [result] = [r for r in results if r.link.url == "{{item.page}}"]
    assert result.result.status is Status.UNVERIFIED
    assert "main.py" in result.result.detail


def test_a_sandbox_escape_is_refused_without_running_anything(tmp_path):
    escapes = {"index.md": "{{ cycler.__init__.__globals__.os.system('touch ESCAPED') }}",
               "mro.md": "{{ ''.__class__.__mro__ }}"}
    results = check(tmp_path, PLUGIN, {page: f'<a href="{escape}">x</a>\n' for page, escape in escapes.items()},
                    {"data/links.yml": "links: []\n"})
    assert len(results) == 2
    for result in results:
        assert result.result.status is Status.UNVERIFIED
        assert "sandbox refuses" in result.result.detail
    assert not (tmp_path / "ESCAPED").exists() and not Path("ESCAPED").exists()


def test_an_include_outside_the_project_is_not_read(tmp_path):
    secret = tmp_path / "secret.yml"  # beside the project, not in it
    secret.write_text("links:\n  - {page: guide.md}\n")
    project = tmp_path / "project"
    project.mkdir()
    page = "{% include '../../secret.yml' %}\n[x]({{links[0].page}})\n"
    results = check(project, "plugins:\n  - macros:\n      include_yaml: [../secret.yml]\n", {"index.md": page})
    [result] = results
    assert result.result.status is Status.UNVERIFIED
    assert "outside the project" in result.result.detail


def test_fix_never_edits_a_template_target(tmp_path):
    # `guid.md` is one letter from `guide.md`: a plain link there is rewritten; the template is not.
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + PLUGIN)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(LOOP)
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "links.yml").write_text("links:\n  - {title: Guide, page: guid.md}\n")
    done = subprocess.run([sys.executable, "-m", "linkfix", "fix", "--offline", "--no-cache", "mkdocs.yml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert (tmp_path / "docs" / "index.md").read_text() == LOOP
    assert "a template renders this target" in done.stdout + done.stderr


def test_a_template_that_would_take_the_machines_memory_is_refused(tmp_path, monkeypatch):
    from linkfix.mkdocs.plugins import macros as templates

    # The CPU bound made small, as the output bound is what the loops meet on a quiet machine:
    # in a full suite's large heap they spent all 5 s of it (38 s of a loaded machine's wall).
    monkeypatch.setattr(templates, "RENDER_SECONDS", 0.5)
    loops = "{%for i in range(99999)%}{%for j in range(99999)%}a{%endfor%}{%endfor%}"
    results = check(tmp_path, PLUGIN, {"index.md": "[x]({{'x'*10**10}})\n", "loops.md": f"[y]({loops})\n"},
                    {"data/links.yml": "links: []\n"})
    detail = {r.link.span.path.rpartition("/")[2]: r.result.detail for r in results}
    assert [(r.result.status, r.result.reason) for r in results] == [(Status.UNVERIFIED, Reason.TEMPLATE)] * 2
    assert "the template repeats a value 10,000,000,000 times" in detail["index.md"]
    assert "more than 20,000,000 characters" in detail["loops.md"] or "CPU time" in detail["loops.md"]


def test_the_engines_own_delimiters_are_read(tmp_path):
    config = PLUGIN + "      j2_variable_start_string: '[['\n      j2_variable_end_string: ']]'\n"
    page = '{% for item in links %}\n<img src="[[ item.img ]]">\n{% endfor %}\n'
    results = check(tmp_path, config, {"index.md": page, "img/a.png": ""}, {"data/links.yml": "links: [{img: /img/a.png}, {img: /img/b.png}]\n"})
    assert {r.link.url: r.result.status for r in results} == {"/img/a.png": Status.OK, "/img/b.png": Status.BROKEN}


def test_a_page_holding_the_mark_characters_is_not_rendered(tmp_path):
    # The rendering finds its targets by private-use marks put around them: a page that already
    # holds one could make a value out of its own text, so its template targets stay unverified.
    page = LOOP + "\nA private-use character: \ue002 here.\n"
    results = check(tmp_path, PLUGIN, {"index.md": page, "guide.md": "# Guide\n"},
                    {"data/links.yml": "links:\n  - {title: Gone, page: gone.md}\n"})
    by_url = {r.link.url: r for r in results}
    assert "gone.md" not in by_url
    assert by_url["{{item.page}}"].result.status is Status.UNVERIFIED
    assert "U+E000" in by_url["{{item.page}}"].result.detail


def test_a_data_file_is_read_once_for_all_the_pages_that_use_it(tmp_path, monkeypatch):
    # The macros plugin reads its include_yaml once per build; fastapi's data files were read
    # (and parsed) again for each page with a template link: a quarter of its offline check.
    from linkfix.mkdocs.plugins import macros as templates

    loads: list[str] = []
    real_load = templates.load_safely
    monkeypatch.setattr(templates, "load_safely", lambda text: loads.append(text) or real_load(text))
    pages = {f"page{i}.md": LOOP for i in range(3)} | {"guide.md": "# Guide\n"}
    results = check(tmp_path, PLUGIN, pages, {"data/links.yml": "links:\n  - {title: Guide, page: guide.md}\n  - {title: Gone, page: gone.md}\n"})
    assert sorted((r.link.span.path.rsplit("/", 1)[-1], r.link.url, r.result.status.value) for r in results if r.link.template) == [
        (f"page{i}.md", url, status) for i in range(3) for url, status in (("gone.md", "broken"), ("guide.md", "ok"))]
    assert len([text for text in loads if isinstance(text, str) and "links:" in text]) == 1
