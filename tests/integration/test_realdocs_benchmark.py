"""benchmarks/realdocs.py: its own parsing and judging logic on small self-made inputs."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import realdocs  # noqa: E402
from realdocs_build import Finding, Project, effective_config, parse_mkdocs_log, wrapper_config  # noqa: E402
from realdocs_compare import check_against, expected_for_linkfix, judge_findings, score, where_in_source  # noqa: E402
from realdocs_truth import SiteTruth  # noqa: E402

LOG = """\
INFO    -  Building documentation to directory: /tmp/site
WARNING -  Doc file 'a.md' contains a link 'b.md#nope', but the doc 'b.md' does not contain an anchor '#nope'.
WARNING -  Doc file 'a.md' contains a link '#gone', but there is no such anchor on this page.
WARNING -  Doc file 'a.md' contains a link 'missing.md', but the target is not found among documentation files.
WARNING -  Doc file 'sub/c.md' contains a link '../x.md', but the target 'x.md' is not found among documentation files. Did you mean 'y.md'?
WARNING -  Doc file 'a.md' contains an absolute link '/b.md', it was left as is. Did you mean 'b.md'?
WARNING -  Doc file 'a.md' contains an unrecognized relative link 'b/', it was left as is. Did you mean 'b.md'?
INFO    -  Doc file 'a.md' contains a link to 'templates/t.md' which is excluded from the built site.
WARNING -  mkdocs_autorefs: a.md: Could not find cross-reference target 'x.y'
"""


def test_mkdocs_log_gives_one_finding_per_validation_message():
    found = [(f.page, f.target, f.kind) for f in parse_mkdocs_log(LOG)]
    assert found == [
        ("a.md", "b.md#nope", "missing-anchor"),
        ("a.md", "#gone", "missing-anchor"),
        ("a.md", "missing.md", "missing-page"),
        ("sub/c.md", "../x.md", "missing-page"),
        ("a.md", "/b.md", "absolute"),
        ("a.md", "b/", "unrecognized"),
        ("a.md", "templates/t.md", "excluded-target"),
    ]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    write(root / "index.html", '<h1 id="home">x</h1>')
    write(root / "b" / "index.html", '<h2 id="here">x</h2><a name="named"></a>')
    write(root / "img.png", "")
    record = {
        "site_url": "https://example.org/en/latest/",
        "files": {
            "index.md": {"dest": "index.html", "url": "", "excluded": False, "page": True},
            "b.md": {"dest": "b/index.html", "url": "b/", "excluded": False, "page": True},
            "templates/t.md": {"dest": "templates/t/index.html", "url": "templates/t/", "excluded": True, "page": True},
            "theme/nav.html": {"dest": "theme/nav.html", "url": "theme/nav.html", "excluded": False, "page": False},
        },
        "pages": {
            "index.md": {
                "links": [["a", "href", "b.md#here", "b/#here"], ["a", "href", "b.md#nope", "b/#nope"],
                          ["a", "href", "b/", "b/"], ["a", "href", "/en/latest/b/#named", "/en/latest/b/#named"],
                          ["a", "href", "/other/x/", "/other/x/"], ["a", "href", "c.md", "c.md"],
                          ["img", "src", "img.png", "img.png"], ["a", "href", "b.md#top", "b/#top"]],
                "raw": [["a", "href", "b/#missing-raw"]],
            },
        },
    }
    return SiteTruth(record, root, frozenset({"mkdocstrings"}))


@pytest.mark.parametrize(("target", "broken", "reason"), [
    ("b.md#here", False, "id 'here'"),
    ("b.md#nope", True, "no id 'nope'"),
    ("b/", False, "lands on b/index.html"),
    ("/en/latest/b/#named", False, "id 'named'"),
    ("/other/x/", None, "outside the site's path"),
    ("c.md", True, "no such file"),
    ("img.png", False, "lands on img.png"),
    ("b.md#top", False, "lands on"),
    ("b/#missing-raw", True, "no id 'missing-raw'"),
    ("not-rendered.md", False, "renders no link"),
])
def test_links_are_judged_on_the_built_site(site, target, broken, reason):
    verdict = site.judge("index.md", target)
    assert verdict.broken is broken
    assert reason in verdict.reason


def test_unpublished_pages_and_templates_are_not_broken(site):
    assert site.judge("templates/t.md", "nowhere.md").broken is False
    assert site.judge("theme/nav.html", "{{ nav.homepage.url }}").broken is False
    assert site.judge("theme/nav.html", "../gone.html").broken is True
    assert site.judge("unknown.md", "x.md").broken is False


def test_ids_left_out_with_mkdocstrings_are_not_judged(site):
    verdict = site.judge_href("index.html", "b/#pkg.module.Object")
    assert verdict.broken is None and "mkdocstrings" in verdict.reason


def test_findings_of_all_tools_meet_on_one_row_and_are_scored(site):
    findings = [
        Finding(tool="mkdocs", page="index.md", target="b.md#nope", kind="missing-anchor"),
        Finding(tool="linkfix-source", page="index.md", target="b.md#nope", kind="missing-fragment", line=3),
        Finding(tool="linkfix-built", page="index.html", target="b/#nope", kind="missing-fragment", line=9),
        Finding(tool="linkfix-source", page="index.md", target="b.md#here", kind="missing-fragment", line=2),
        Finding(tool="linkfix-source", page="index.md", target="c.md", kind="missing-file", line=4),
    ]
    rows = judge_findings(findings, site, {})
    by_target = {r.target: r for r in rows}
    assert set(by_target["b.md#nope"].said) == {"mkdocs", "linkfix-source", "linkfix-built"}
    assert by_target["b.md#here"].verdict.broken is False
    assert score(rows, "linkfix-source").false_alarms == 1
    assert score(rows, "mkdocs").misses == 1  # c.md: MkDocs said nothing here
    by_target["b.md#nope"].in_source = False  # as if it came from a docstring
    expected = expected_for_linkfix(rows)
    assert expected == {"broken": [["index.md", "c.md"]], "build_only": [["index.md", "b.md#nope"]], "unjudgeable": []}


def test_hand_judgement_overrides_the_built_site(site):
    findings = [Finding(tool="linkfix-source", page="index.md", target="b.md#here", kind="missing-fragment")]
    judgements = {"judgements": [{"page": "index.md", "target": "b.md#here", "broken": True, "reason": "by hand"}]}
    row = judge_findings(findings, site, judgements)[0]
    assert row.verdict.broken is True and row.judged_by == "hand"


def test_check_counts_false_alarms_and_misses():
    expected = {"broken": [["a.md", "x.md"], ["a.md", "y.md#z"]], "unjudgeable": [["a.md", "api.md#pkg.X"]]}
    found = [Finding(tool="linkfix-source", page="a.md", target="x.md", kind="missing-file"),
             Finding(tool="linkfix-source", page="a.md", target="api.md#pkg.X", kind="missing-fragment"),
             Finding(tool="linkfix-source", page="a.md", target="ok.md", kind="missing-file")]
    false_alarms, misses = check_against(found, expected)
    assert false_alarms == [("a.md", "ok.md")]
    assert misses == [("a.md", "y.md#z")]


def test_wrapper_inherits_and_leaves_out_what_the_project_says(tmp_path):
    write(tmp_path / "base.yml", "plugins:\n  search:\n  mkdocstrings:\n    handlers:\n      python:\n"
                                 "        inventories: [https://x/objects.inv]\n        paths: [src]\n  git-dates:\n"
                                 "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:m.x\n")
    write(tmp_path / "mkdocs.yml", "INHERIT: base.yml\nhooks: [hooks/a.py, hooks/net.py]\nplugins:\n  offline:\n")
    assert set(effective_config(tmp_path / "mkdocs.yml")["plugins"]) == {"search", "mkdocstrings", "git-dates", "offline"}
    project = Project(name="p", config="mkdocs.yml", drop_plugins={"git-dates": "why"}, drop_hooks={"hooks/net.py": "why"},
                      plugin_edits={"mkdocstrings": {"handlers.python.inventories": "why"}})
    wrapper = wrapper_config(project, tmp_path / "mkdocs.yml", tmp_path / "site")
    assert wrapper["INHERIT"] == "mkdocs.yml" and wrapper["strict"] is False
    assert wrapper["validation"]["links"] == {"not_found": "warn", "anchors": "warn", "absolute_links": "warn",
                                             "unrecognized_links": "warn"}
    assert [Path(h).name for h in wrapper["hooks"]] == ["a.py", "realdocs_hook.py"]
    names = [next(iter(p)) if isinstance(p, dict) else p for p in wrapper["plugins"]]
    assert names == ["search", "mkdocstrings", "offline"]
    assert wrapper["plugins"][1]["mkdocstrings"]["handlers"]["python"] == {"paths": ["src"]}


def test_context_of_a_missed_link():
    text = "# T\n\n!!! note\n    See [x](a.md).\n\n=== \"Tab\"\n\n    [y](b.md)\n\nplain [z](c.md)\n"
    assert where_in_source(text, "a.md") == "admonition"
    assert where_in_source(text, "b.md") == "content tab"
    assert where_in_source(text, "c.md") == "top level or list"
    assert where_in_source(text, "zz.md").startswith("not in the page source")


def test_both_modes_skip_without_the_corpus(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    absent = ["--corpus", str(missing), "--more", str(missing / "fetched")]  # the shared seven and the fetched ones
    assert realdocs.main([*absent, "--check"]) == 0
    assert realdocs.main(absent) == 0
    assert "skipped" in capsys.readouterr().out


def test_a_redirect_stub_is_followed_with_its_fragment(site, tmp_path):
    write(tmp_path / "site" / "old" / "index.html",
          '<head><meta http-equiv="refresh" content="0; url=../b/"></head>')
    write(tmp_path / "site" / "gone" / "index.html",
          '<head><meta http-equiv="refresh" content="0; url=../nowhere/"></head>')
    assert site.judge_href("index.html", "old/#here").broken is False
    moved = site.judge_href("index.html", "old/#nope")
    assert moved.broken is True and "redirects to ../b/" in moved.reason
    assert site.judge_href("index.html", "gone/").broken is True


def test_theme_links_make_one_row_and_mkdocs_notices_are_not_claims(site):
    findings = [
        Finding(tool="linkfix-built", page="index.html", target="/en/latest/missing/", kind="missing-file"),
        Finding(tool="linkfix-built", page="b/index.html", target="/en/latest/missing/", kind="missing-file"),
        Finding(tool="mkdocs", page="index.md", target="/en/latest/b/#named", kind="absolute"),
    ]
    rows = judge_findings(findings, site, {})
    assert [(r.page, r.target) for r in rows] == [("(theme)", "[rendered] /en/latest/missing/")]
    assert score(rows, "mkdocs").false_alarms == 0


def test_a_target_counts_as_written_only_as_a_whole():
    from realdocs_compare import written_in

    text = 'See [a](#pkg.mod.Thing) and <a href="x/y.md">y</a> or [q](https://h/t/?a=1&b=2).'
    assert written_in(text, "#pkg.mod.Thing") and written_in(text, "x/y.md")
    assert not written_in(text, "#pkg.mod")  # only the start of a longer target
    assert written_in("[q](https://h/t/?a=1&amp;b=2)", "https://h/t/?a=1&b=2")
