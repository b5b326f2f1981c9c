"""benchmarks/realdocs.py's Zensical section (issue 39): the oracle's parsing, its record and the
built-site checker, on small self-made inputs (no Zensical needed)."""

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import realdocs  # noqa: E402
import realdocs_report  # noqa: E402
import realdocs_zensical_record as record  # noqa: E402
from realdocs_build import Project, effective_config  # noqa: E402
from realdocs_corpus import oracle_package  # noqa: E402
from realdocs_truth import SiteTruth  # noqa: E402
from realdocs_zensical import parse_zensical_log, target_at  # noqa: E402

# What Zensical 0.0.73 prints (colours stripped): a warning, then the source excerpt's header.
LOG = """\
Build started
Warning: page does not exist
   ╭─[ index.md:3:11 ]
   │
 3 │ Üñï ✓ [a](nope.md) [b](other.md#bad)
───╯
Warning: anchor does not exist
   ╭─[ index.md:3:33 ]
Warning: page does not exist
    ╭─[ sub/page.md:5:8 ]
2 issues found
"""


def test_zensical_log_gives_the_targets_as_written(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.md").write_text("# X\n\nÜñï ✓ [a](nope.md) [b](other.md#bad)\n", encoding="utf-8")
    (tmp_path / "sub" / "page.md").write_text("# P\n\n\n\n  [r]: gone.md#frag\n", encoding="utf-8")
    found = [(f.tool, f.page, f.target, f.kind, f.line) for f in parse_zensical_log(LOG, tmp_path)]
    assert found == [
        ("zensical", "index.md", "nope.md", "missing-page", 3),
        # Zensical points at the fragment of a missing anchor: the whole target is read around it
        ("zensical", "index.md", "other.md#bad", "missing-anchor", 3),
        ("zensical", "sub/page.md", "gone.md#frag", "missing-page", 5),
    ]


def test_target_at_stops_at_the_link_delimiters():
    text = 'a\n<a href="raw.md#x">t</a> [r]: <spaced.md> (p.md "title")'
    assert target_at(text, 2, 14) == "raw.md#x"
    assert target_at(text, 2, 32) == "spaced.md"
    assert target_at(text, 2, 44) == "p.md"
    assert target_at(text, 9, 1) == ""


def test_marks_pair_each_written_link_with_what_zensical_publishes(tmp_path):
    record._state.update({"next": 0, "marks": {}, "pages": {"sub/page.md": {"url": "sub/page/"}}})
    marked = record._mark('<p><a href="other.md#x">o</a> <img alt="" src="i.png" /> '
                          '<a class="headerlink" href="#p">¶</a> <span href="no">s</span></p>', "sub/page.md")
    assert marked.count(record.MARK) == 3
    site = tmp_path / "site"
    (site / "sub" / "page").mkdir(parents=True)
    # Zensical rewrites the hrefs and keeps the attribute it does not know
    (site / "sub" / "page" / "index.html").write_text(
        marked.replace('"other.md#x"', '"../../other/#x"').replace('src="i.png"', 'src="../i.png"'), encoding="utf-8")
    published = record._collect(site)
    assert [(record._state["marks"][n][3], published[n]) for n in sorted(published)] == [
        ("other.md#x", "../../other/#x"), ("i.png", "../i.png"), ("#p", "#p")]
    assert record._state["marks"][3][4] is True  # a permalink is generated, not written
    assert record.MARK not in (site / "sub" / "page" / "index.html").read_text(encoding="utf-8")


def test_an_older_release_rewrites_in_python_and_the_record_keeps_the_written_href():
    record._state.update({"next": 0, "marks": {}, "pages": {}})
    marked = record._mark('<a href="a.md">a</a> <a href="https://x.org/">x</a>', "p.md",
                          lambda value: None if "://" in value else value.removesuffix(".md") + "/")
    assert 'href="a/"' in marked and 'href="https://x.org/"' in marked
    assert [mark[3] for mark in record._state["marks"].values()] == ["a.md", "https://x.org/"]


def test_the_built_site_checker_finds_broken_links_no_tool_reported(tmp_path):
    site = tmp_path / "site"
    (site / "b").mkdir(parents=True)
    (site / "index.html").write_text('<h1 id="home">x</h1>')
    (site / "b" / "index.html").write_text('<h2 id="here">x</h2>')
    data = {"site_url": "", "files": {"index.md": {"dest": "index.html", "url": "", "excluded": False, "page": True},
                                      "b.md": {"dest": "b/index.html", "url": "b/", "excluded": False, "page": True}},
            "pages": {"index.md": {"links": [["a", "href", "#home", "#home", True], ["a", "href", "b.md#here", "b/#here", False],
                                             ["a", "href", "b.md#gone", "b/#gone", False],
                                             ["img", "src", "pic.png", "pic.png", False]]}}}
    broken = [(page, target) for page, target, _ in SiteTruth(data, site).broken_links()]
    assert broken == [("index.md", "b.md#gone"), ("index.md", "pic.png")]


def test_a_zensical_toml_is_read_as_its_project_table(tmp_path):
    (tmp_path / "zensical.toml").write_text('[project]\nsite_name = "x"\ndocs_dir = "src/docs"\n')
    assert effective_config(tmp_path / "zensical.toml")["docs_dir"] == "src/docs"
    assert oracle_package({"generator": "zensical"}) == "zensical==0.0.73"
    assert oracle_package({"generator": "zensical", "zensical": "0.0.44"}) == "zensical==0.0.44"
    assert oracle_package({}) == "mkdocs==1.6.1"


def test_the_zensical_section_is_selected_by_generator():
    zensical = [p.name for p in realdocs.PROJECTS if realdocs.selected(p, [], ["zensical"])]
    kinds = {Path(p.config).name for p in realdocs.PROJECTS if p.generator == "zensical"}
    assert len(zensical) >= 8 and kinds == {"zensical.toml", "zensical.yml", "mkdocs.yml"}
    assert not realdocs.selected(Project(name="m", config="mkdocs.yml"), [], ["zensical"])
    assert realdocs_report.tools_of(Project(name="z", config="zensical.toml", generator="zensical"))[0] == "zensical"


def test_marks_are_found_in_a_minified_site_and_a_lost_one_renders_nothing(tmp_path):
    record._state.update({"next": 0, "marks": {}, "pages": {"a.md": {"url": "a/"}}})
    marked = record._mark('<a href="b.md">b</a><a href="c.md">c</a>', "a.md")
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    # minify_html drops the quotes; the second link is not in the published page at all
    first = marked.split("</a>")[0].replace('"b.md"', "../b/").replace(f'{record.MARK}="1"', f"{record.MARK}=1")
    (site / "a" / "index.html").write_text(first + "</a>", encoding="utf-8")
    assert record._collect(site) == {1: "../b/"}
    assert record.MARK not in (site / "a" / "index.html").read_text(encoding="utf-8")
