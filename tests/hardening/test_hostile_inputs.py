"""What a hostile pull request can put in the inputs: device files and FIFOs, symlinks out of
the project, YAML bombs in mkdocs.yml or linkfix.yml, config values that break the run later.

Each run goes through the command line in a child process with a memory limit and a time limit,
so that a regression fails the test instead of taking the machine or the suite down with it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET = "c2VjcmV0LXRva2Vu"
GIT_CONFIG = (
    '[http "https://github.com/"]\n'
    f"\textraheader = AUTHORIZATION: basic {SECRET}\n"
    '[remote "origin"]\n\turl = https://github.com/owner/repo\n'
)


def _limits() -> None:
    memory = 3 * 1024**3  # an endless read fails fast instead of swapping the machine
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def linkfix(cwd: Path, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`linkfix ARGV` in a child process; a hang is killed at `timeout` and fails the test."""
    paths = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "fixtures")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "HOME": str(cwd)}
    env.pop("GITHUB_TOKEN", None)
    try:
        return subprocess.run([sys.executable, "-m", "linkfix", *argv], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout, preexec_fn=_limits)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"linkfix {' '.join(argv)} did not finish in {timeout} s: {exc.stderr!r:.500}")


def json_report(cwd: Path, *argv: str) -> tuple[int, dict, str]:
    done = linkfix(cwd, "check", "--offline", "--no-cache", "-f", "json", "-o", "report.json", *argv)
    report = json.loads((cwd / "report.json").read_text(encoding="utf-8"))
    # a file skipped is an input error: exit 2, the report written all the same (issue 44.4)
    assert done.returncode in ((2,) if report["errors"] else (0, 1)), done.stderr
    return done.returncode, report, done.stderr


# -- finding 3: device files and FIFOs ---------------------------------------------------------------
def test_a_device_file_and_a_fifo_in_the_docs_are_skipped_and_named(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[ok](other.md)\n", encoding="utf-8")
    (docs / "other.md").write_text("# Other\n", encoding="utf-8")
    (docs / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(docs / "pipe.md")
    code, report, _ = json_report(tmp_path, "docs")
    assert code == 2  # skipped: input errors, the run goes on
    errors = "\n".join(report["errors"])
    assert "zero.md" in errors and "pipe.md" in errors, errors
    assert [link["url"] for link in report["links"]] == ["other.md"]


def test_a_device_named_on_the_command_line_is_refused(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    os.mkfifo(docs / "pipe.md")
    code, report, _ = json_report(tmp_path, "docs/index.md", "docs/pipe.md")
    assert code == 2  # refused: an input error, the run goes on
    assert any("pipe.md" in error and "not a regular file" in error for error in report["errors"]), report["errors"]


def test_an_inherited_mkdocs_config_that_is_a_device_is_refused(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    os.mkfifo(tmp_path / "base.yml")  # (a device outside the project is not even looked at: finding 9 below)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nINHERIT: base.yml\n", encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert done.returncode == 2, done.stderr
    assert "not a regular file" in done.stderr


def test_the_hosts_redirect_files_and_build_files_that_are_fifos_are_not_waited_on(tmp_path):
    """A pull request's docs/vercel.json (or a workflow file) that is a FIFO hung the check (was:
    read with open(), which waits for a writer)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[x](/old/)\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    for fifo in ("docs/vercel.json", "docs/_redirects", "netlify.toml", "Makefile", ".github/workflows/docs.yml"):
        os.mkfifo(tmp_path / fifo)
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
    assert done.returncode == 1, done.stderr  # /old/ is broken: no redirect was read
    assert "not a regular file" in done.stderr


# -- finding 5: symlinks out of the root --------------------------------------------------------------
def _repository_with_a_leaking_symlink(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(GIT_CONFIG, encoding="utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text(f"# Private\n\ntoken {SECRET} [x](https://example.com/private)\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[local](guide.md)\n", encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n\n[home](index.md)\n", encoding="utf-8")
    (docs / "config.md").symlink_to("../.git/config")
    (docs / "private.md").symlink_to(outside)
    (docs / "inside.md").symlink_to("guide.md")  # the control: a symlink within the root is read
    return docs


@pytest.mark.parametrize("target", [".", "docs"])
def test_symlinks_out_of_the_root_or_into_git_are_not_read_and_are_named(tmp_path, target):
    _repository_with_a_leaking_symlink(tmp_path)
    _, report, _ = json_report(tmp_path, target, "--suggest")
    text = json.dumps(report)
    assert SECRET not in text and "AUTHORIZATION" not in text
    skipped = [error for error in report["errors"] if "config.md" in error or "private.md" in error]
    assert len(skipped) == 2 and all("outside" in error for error in skipped), report["errors"]
    assert sum(link["url"] == "index.md" for link in report["links"]) == 2  # guide.md, and inside.md read through its link


def test_symlinks_named_on_the_command_line_cannot_widen_the_root(tmp_path):
    _repository_with_a_leaking_symlink(tmp_path)
    _, report, _ = json_report(tmp_path, "docs/index.md", "docs/private.md", "docs/config.md")
    assert SECRET not in json.dumps(report)
    assert sum("outside" in error for error in report["errors"]) == 2, report["errors"]
    assert [link["url"] for link in report["links"]] == ["guide.md"]  # the control: index.md was read


@pytest.mark.parametrize("git", [True, False])
def test_a_file_named_through_a_directory_symlink_does_not_widen_the_root(tmp_path, git):
    """`docs/shared -> ../../elsewhere`: naming `docs/shared/private.md` must not make
    `elsewhere` (or a directory above both) part of the project, for that file or for the
    pages read on demand for a #fragment (issue 27, finding 10)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "private.md").write_text(f"# Private\n\n[x](https://example.com/{SECRET})\n", encoding="utf-8")
    (elsewhere / "notes.md").write_text(f"# Notes\n\n## {SECRET}\n", encoding="utf-8")
    repository = tmp_path / "repository"
    (repository / "docs").mkdir(parents=True)
    if git:
        (repository / ".git").mkdir()
    (repository / "docs" / "index.md").write_text("# Home\n\n[notes](shared/notes.md#c2vjcmv0lxrva2vu)\n", encoding="utf-8")
    (repository / "docs" / "shared").symlink_to("../../elsewhere")
    _, report, _ = json_report(repository, "docs/index.md", "docs/shared/private.md")
    assert SECRET not in json.dumps(report)
    assert any("private.md" in error and "outside" in error for error in report["errors"]), report["errors"]
    assert [link["url"] for link in report["links"]] == ["shared/notes.md#c2vjcmv0lxrva2vu"]  # the control: index.md was read


def test_a_mkdocs_project_may_link_its_own_readme_but_not_git(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(GIT_CONFIG, encoding="utf-8")
    (tmp_path / "README.md").write_text("# Project\n\n[changes](https://example.com/changes)\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").symlink_to("../README.md")  # a common MkDocs idiom
    (docs / "config.md").symlink_to("../.git/config")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    _, report, _ = json_report(tmp_path, "mkdocs.yml")
    assert [link["url"] for link in report["links"]] == ["https://example.com/changes"]
    assert SECRET not in json.dumps(report)
    assert any("config.md" in error and "outside" in error for error in report["errors"])


# -- issue 27, finding 9: INHERIT and docs_dir lead only within the project --------------------------
def _outside_the_project(tmp_path: Path) -> Path:
    """A repository (no git: its directory is the project) beside a directory of private files."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.yml").write_text(f'site_name: x\ntoken: "{SECRET}\n  : [\n', encoding="utf-8")  # a YAML error on the secret's line
    (outside / "private.md").write_text(f"# Private\n\n[x](https://example.com/{SECRET})\n", encoding="utf-8")
    repository = tmp_path / "repository"
    (repository / "docs").mkdir(parents=True)
    (repository / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    return repository


@pytest.mark.parametrize("setting", ["INHERIT: ../outside/base.yml", "docs_dir: ../outside", "INHERIT: /etc/passwd"])
def test_inherit_or_docs_dir_outside_the_project_is_refused_and_nothing_of_it_shown(tmp_path, setting):
    repository = _outside_the_project(tmp_path)
    (repository / "mkdocs.yml").write_text(f"site_name: x\n{setting}\n", encoding="utf-8")
    done = linkfix(repository, "check", "--offline", "--no-cache", "-f", "json", "-o", "report.json", "mkdocs.yml")
    assert done.returncode == 2, done.stderr
    name = setting.split(":")[0]
    assert f"{name} '{setting.split(': ')[1]}'" in done.stderr and "is outside the project" in done.stderr, done.stderr
    assert SECRET not in done.stderr and "root:" not in done.stderr and not (repository / "report.json").exists()


def test_a_mkdocs_yml_that_is_a_symlink_out_of_the_project_is_not_read(tmp_path):
    repository = _outside_the_project(tmp_path)
    (repository / "mkdocs.yml").symlink_to(tmp_path / "outside" / "base.yml")
    done = linkfix(repository, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert done.returncode == 2, done.stderr
    assert "leads outside the project" in done.stderr and SECRET not in done.stderr


def test_inherit_and_docs_dir_may_lead_anywhere_in_the_git_work_tree(tmp_path):
    """The control: a translation's config inherits its sibling's (FastAPI's docs/de/ -> ../en/),
    inside the git work tree that holds both."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "mkdocs.yml").write_text("site_name: x\nmarkdown_extensions: [toc]\n", encoding="utf-8")
    (tmp_path / "docs" / "de").mkdir()
    (tmp_path / "docs" / "de" / "mkdocs.yml").write_text("INHERIT: ../en/mkdocs.yml\ndocs_dir: ../../pages\n", encoding="utf-8")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "index.md").write_text("# Start\n\n[missing](nowhere.md)\n", encoding="utf-8")
    code, report, _ = json_report(tmp_path, "docs/de/mkdocs.yml")
    assert code == 1 and [link["url"] for link in report["links"]] == ["nowhere.md"]


# -- finding 8: YAML bombs ----------------------------------------------------------------------------
def billion_laughs(key: str) -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 9):
        name, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]")
    return "\n".join(lines) + f"\n{key}: [*i]\n"


@pytest.mark.parametrize("nav", ["billion-laughs", "self-reference", "deep"])
def test_a_hostile_mkdocs_nav_is_refused_with_exit_2(tmp_path, nav):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    text = {
        "billion-laughs": "site_name: x\n" + billion_laughs("nav"),
        "self-reference": "site_name: x\nnav: &n [*n]\n",
        "deep": "site_name: x\nnav: " + "[" * 5000 + "]" * 5000 + "\n",
    }[nav]
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "mkdocs.yml" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("shape", ["loop", "deep"])
def test_inherit_chains_are_bounded(tmp_path, shape):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    if shape == "loop":
        (tmp_path / "mkdocs.yml").write_text("site_name: x\nINHERIT: base.yml\n", encoding="utf-8")
        (tmp_path / "base.yml").write_text("INHERIT: mkdocs.yml\n", encoding="utf-8")
        expected = "INHERIT loop"
    else:
        (tmp_path / "mkdocs.yml").write_text("site_name: x\nINHERIT: c0.yml\n", encoding="utf-8")
        for i in range(40):
            (tmp_path / f"c{i}.yml").write_text(f"INHERIT: c{i + 1}.yml\n", encoding="utf-8")
        (tmp_path / "c40.yml").write_text("docs_dir: docs\n", encoding="utf-8")
        expected = "INHERIT chain"
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr


@pytest.mark.parametrize("text", [billion_laughs("exclude"), "exclude: &e [*e]\n", "hosts: &h {x: *h}\n"])
def test_a_hostile_linkfix_yml_is_refused_with_exit_2(tmp_path, text):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "linkfix.yml").write_text(text, encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "docs")
    assert done.returncode == 2, done.stderr
    assert "linkfix.yml" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("config", ["mkdocs.yml", "linkfix.yml"])
@pytest.mark.parametrize(("character", "shown"), [("\x00", "#x0000"), ("\x1b", "#x001b"), ("\x07", "#x0007")])
def test_a_control_character_in_a_config_is_exit_2_shown_escaped(tmp_path, config, character, shown):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    # The second line, 14th column: `site_name: 'a` / `timeout: 3\nuser_agent: 'a` then the character.
    text = f"# {config}\nuser_agent: 'a{character}[31mb'\n"
    (tmp_path / config).write_text(("site_name: x\n" if config == "mkdocs.yml" else "") + text, encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert done.returncode == 2, done.stderr
    line = 3 if config == "mkdocs.yml" else 2
    assert f"{config}:{line}:15: not valid YAML: character {shown} is not allowed" in done.stderr, done.stderr
    assert character not in done.stderr and "Traceback" not in done.stderr


# -- finding 12: config values checked up front -------------------------------------------------------
@pytest.mark.parametrize(
    "text, named",
    [
        ('hosts: {docs.example.com: {concurrency: "two"}}', "hosts.docs.example.com.concurrency: expects a whole number >= 1, got 'two'"),
        ("hosts: {docs.example.com: {concurrency: 0}}", "hosts.docs.example.com.concurrency: expects a whole number >= 1"),
        ('hosts: {docs.example.com: {request_interval: "slow"}}', "hosts.docs.example.com.request_interval: expects a number"),
        ('hosts: {docs.example.com: {headers: "h"}}', "hosts.docs.example.com.headers: expects a mapping"),
        ('hosts: {docs.example.com: {headers: {X-Key: "a\\r\\nInjected: 1"}}}', "hosts.docs.example.com.headers.X-Key"),
        ('hosts: {docs.example.com: {headers: {"Bad Name": "v"}}}', "hosts.docs.example.com.headers.Bad Name"),
        ('hosts: {docs.example.com: {header: {X: "v"}}}', "hosts.docs.example.com: unknown key 'header' (did you mean 'headers'?)"),
        ('hosts: {"https://docs.example.com/": {concurrency: 1}}', "hosts.https://docs.example.com/: expects a host name"),
        ('user_agent: "linkfix\\r\\nX-Injected: 1"', "user_agent: expects"),
        (r"remap: ['^https://(a)\.test/ https://b.test/\3']", "remap[0]: replacement 'https://b.test/\\\\3' cannot be applied"),
        (r"remap: ['^https://a\.test/ https://b.test/\q']", "remap[0]: replacement 'https://b.test/\\\\q' cannot be applied"),
        ("archive: [{provider: nope}]", "archive[0].provider: unknown provider 'nope' (choose from memento, wayback)"),
        ("search: [{provider: site}, {provider: searxng, urll: 'https://s.test'}]", "search[1]: unknown key 'urll' (did you mean 'url'?)"),
        ("search: [{url: 'https://s.test'}]", "search[0]: missing key 'provider'"),
        ("archive: [{provider: wayback, requests_per_minute: -1}]", "archive[0].requests_per_minute: expects a number >= 0, got -1"),
        ("max_concurrency: 0", "max_concurrency: expects a whole number >= 1, got 0"),
        ("timeout: 0", "timeout: expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m (at most 5m), got 0"),
        # Bounds a repository's config cannot lift: every link's requests end in bounded time.
        ("max_retries: 1000000000", "max_retries: expects a whole number from 0 to 10, got 1000000000"),
        ("max_redirects: 100000", "max_redirects: expects a whole number from 0 to 20, got 100000"),
        ("timeout: .inf", "timeout: expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m (at most 5m), got inf"),
        ("timeout: -1", "timeout: expects a number of seconds > 0 and <= 300"),
        ("timeout: .nan", "timeout: expects a number of seconds > 0 and <= 300"),
        ("timeout: 1h", "timeout: expects a number of seconds > 0 and <= 300"),
        ("request_interval: .inf", "request_interval: expects a number of seconds from 0 to 3600"),
        ("max_seconds: .inf", "max_seconds: expects a number of seconds > 0 and <= 3600"),
        ("hosts: {docs.example.com: {request_interval: .inf}}", "hosts.docs.example.com.request_interval: expects a number of seconds from 0 to 3600"),
        # Headers of the connection are linkfix's: a Host header would send one site's request to another.
        ("hosts: {docs.example.com: {headers: {Host: internal.example}}}",
         "hosts.docs.example.com.headers.Host: expects an HTTP header name (letters, digits, - and !#$%&'*+.^_`|~) other than Host,"),
        ("hosts: {docs.example.com: {headers: {content-length: '0'}}}", "hosts.docs.example.com.headers.content-length: expects an HTTP header name"),
        ("hosts: {docs.example.com: {headers: {Transfer-Encoding: chunked}}}", "hosts.docs.example.com.headers.Transfer-Encoding: expects"),
        ("hosts: {docs.example.com: {headers: {CONNECTION: close}}}", "hosts.docs.example.com.headers.CONNECTION: expects"),
        ("similarity: 2", "similarity: expects a number from 0 to 1, got 2"),
    ],
)
def test_bad_config_values_exit_2_naming_the_key(tmp_path, text, named):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[x](https://example.com/)\n", encoding="utf-8")
    (tmp_path / "linkfix.yml").write_text(text + "\n", encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", "docs")
    assert done.returncode == 2, done.stderr
    assert f"linkfix.yml: {named}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--hosts", '{"docs.example.com": {"concurrency": "two"}}'], "--hosts: hosts.docs.example.com.concurrency: expects a whole number >= 1, got 'two'"),
        (["--search", '[{"provider": "nope"}]'], "--search: search[0].provider: unknown provider 'nope'"),
        (["--user-agent", "x\ny: z"], "--user-agent: expects"),
        (["--host-concurrency", "0"], "--host-concurrency: expects a whole number >= 1, got 0"),
        (["--max-retries", "11"], "--max-retries: expects a whole number from 0 to 10, got 11"),
        (["--timeout", "301"], "--timeout: expects a number of seconds > 0 and <= 300"),
        (["--timeout", "6m"], "--timeout: expects a number of seconds > 0 and <= 300"),
    ],
)
def test_bad_flag_values_exit_2_naming_the_key(tmp_path, flags, named):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    done = linkfix(tmp_path, "check", "--offline", "--no-cache", *flags, "docs")
    assert done.returncode == 2, done.stderr
    assert named in done.stderr, done.stderr
