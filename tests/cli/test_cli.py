"""The command line end to end, on the bundled example trees in fixtures/sites (offline)."""

import json
import shutil
from pathlib import Path

import pytest

from linkfix.cli import main

SITES = Path(__file__).parents[2] / "fixtures" / "sites"


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copytree(SITES, tmp_path / "sites")
    monkeypatch.chdir(tmp_path / "sites")
    return tmp_path / "sites"


def check_json(*args):
    code = main(["check", "--offline", "--no-cache", *args, "--format", "json", "-o", "result.json"])
    return code, json.loads(Path("result.json").read_text())


def broken(data):
    return sorted((l["file"], l["line"], l["url"], l["reason"]) for l in data["links"] if l["status"] == "broken")


def test_markdown_tree(project):
    code, data = check_json("docs")
    assert code == 1
    assert broken(data) == [
        ("docs/guide/config.md", 7, "install.md#requirements-typo", "missing-fragment"),
        ("docs/guide/index.md", 3, "instal.md", "missing-file"),
        ("docs/index.md", 8, "faq.md", "missing-file"),
        ("docs/index.md", 10, "#nowhere", "missing-fragment"),
        ("docs/index.md", 16, "../../outside.md", "outside-root"),
    ]
    statuses = {l["url"]: l["status"] for l in data["links"]}
    assert statuses["guide/config.md#options"] == "ok"  # {#options} attribute id
    assert statuses["config.md#environment-variables"] == "ok"  # MkDocs slug
    assert statuses["/guide/install.md#requirements"] == "ok"  # root-relative
    assert statuses["guide/"] == "ok"  # directory -> guide/index.md
    assert statuses["mailto:docs@example.com"] == "unsupported"
    assert statuses["https://www.python.org/"] == "excluded"  # --offline
    assert "missing-in-code.md" not in statuses  # code blocks hold no links


def test_built_site(project):
    code, data = check_json("site")
    assert code == 1
    assert broken(data) == [
        ("site/guide/index.html", 2, "../../escape.html", "outside-root"),
        ("site/index.html", 6, "api/index.html#missing", "missing-fragment"),
        ("site/index.html", 6, "gone.html", "missing-file"),
    ]
    link = next(l for l in data["links"] if l["url"] == "gone.html")
    assert link["anchor_text"] == "a gone page"
    assert link["column"] == 72


def test_fragments_can_be_turned_off(project):
    _, data = check_json("site", "--no-include-fragments")
    assert [b[2] for b in broken(data)] == ["../../escape.html", "gone.html"]


def test_file_list_as_pre_commit_passes_it(project):
    code, data = check_json("docs/guide/install.md", "docs/guide/config.md")
    assert code == 1
    # install.md's links into config.md are checked against config.md's ids.
    assert [b[2] for b in broken(data)] == ["install.md#requirements-typo"]


def test_clean_tree_exits_zero(project, capsys):
    Path("clean").mkdir()
    Path("clean/a.md").write_text("# A\n\n[b](b.md#b-title)\n")
    Path("clean/b.md").write_text("# B title\n")
    assert main(["check", "--offline", "--no-cache", "clean"]) == 0


def test_text_summary_groups_by_file_with_positions(project, capsys):
    assert main(["check", "--offline", "--no-cache", "docs"]) == 1
    out = capsys.readouterr().out
    assert "docs/index.md:8:63" in out and "faq.md" in out


def test_unknown_config_key_exits_2_naming_it(project, capsys):
    Path("linkfix.yml").write_text("max_concurency: 3\n")
    assert main(["check", "--offline", "docs"]) == 2
    assert "unknown key 'max_concurency'" in capsys.readouterr().err


def test_bad_flag_value_exits_2(project, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--max-concurrency", "many", "docs"])
    assert exit_info.value.code == 2


def test_missing_input_exits_2(project, capsys):
    assert main(["check", "--offline", "nowhere"]) == 2
    assert "no such file or directory: nowhere" in capsys.readouterr().err


def test_bad_inputs_are_reported_not_fatal(project, capsys):
    """The run goes on and reports every file it could read; it exits 2 (an input error, issue 44.4)."""
    bad = Path("bad")
    bad.mkdir()
    (bad / "binary.md").write_bytes(b"\x00\x01\x02binary")
    (bad / "latin1.md").write_bytes(b"# Caf\xe9\n\n[x](missing.md)\n")
    (bad / "huge.md").write_text(("lorem ipsum dolor sit amet " * 800 + "[a](b.md) ") * 100)  # 2 MB, one line
    (bad / "b.md").write_text("# b\n")
    code, data = check_json("bad")
    assert code == 2
    assert any("binary.md: binary file" in e for e in data["errors"])
    assert any("latin1.md: not valid UTF-8" in e for e in data["errors"])
    assert [b[2] for b in broken(data)] == ["missing.md"]
    assert sum(l["url"] == "b.md" for l in data["links"]) == 100


def test_help_lists_config_keys_by_group(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "filtering:" in out and "include_fragments" in out and "network:" in out


def test_check_help_groups_flags(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "network options:" in out and "--host-concurrency N" in out and "--include-fragments" in out


def test_markdown_escapes_and_entities_are_decoded_before_checking(project):
    Path("esc").mkdir()
    Path("esc/a(1).md").write_text("# A\n")
    Path("esc/b&c.md").write_text("# B\n")
    Path("esc/index.md").write_text("[a](a\\(1\\).md) [b](b&amp;c.md) [c](<a(1).md>)\n")
    code, data = check_json("esc")
    assert code == 0, broken(data)
    assert [l["url"] for l in data["links"]] == ["a\\(1\\).md", "b&amp;c.md", "a(1).md"]


def test_abbreviated_flags_are_refused(project, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--offline", "--max-conc", "3", "docs"])
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --max-conc" in capsys.readouterr().err


def test_a_report_file_interrupted_while_streaming_leaves_nothing(tmp_path):
    """The JSON report is streamed into a temporary file: a failure or Ctrl-C halfway removes it,
    and the report file is never half written."""
    from linkfix.report.files import write_report_file

    def pieces():
        yield b"{\n"
        raise KeyboardInterrupt

    target = tmp_path / "out" / "report.json"
    with pytest.raises(KeyboardInterrupt):
        write_report_file(target, pieces())
    assert list((tmp_path / "out").iterdir()) == []
    write_report_file(target, [b"{}", b"\n"])
    write_report_file(tmp_path / "t.txt", "é\n")
    assert target.read_bytes() == b"{}\n" and (tmp_path / "t.txt").read_bytes() == "é\n".encode()


def test_a_text_report_file_carries_no_terminal_colours(project, monkeypatch, capsys):
    """Colours are for a terminal: a text report written to a file is plain, whatever stdout is."""
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    code = main(["check", "--offline", "--no-cache", "docs", "--format", "text", "-o", "report.txt", "--format", "text"])
    assert code == 1
    assert "\x1b[" in capsys.readouterr().out  # the terminal's copy is painted
    text = Path("report.txt").read_text(encoding="utf-8")
    assert "instal.md" in text and "\x1b[" not in text
