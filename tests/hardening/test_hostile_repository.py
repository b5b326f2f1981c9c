"""The third attack pass (issue 38): a stranger's pull request, its configs, its cache and its
git directory are hostile, and linkfix runs on it in CI. Each test plays one finding through the
command line in a child process (memory and time limits: a regression fails the test, it does
not take the machine down) and fails on the code before its fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from linkfix.model import CheckResult, Status
from linkfix.store.cache import Cache

from .test_hostile_inputs import ROOT, _limits, linkfix


def _mkdocs_project(root: Path, config: str, pages: dict[str, str] | None = None) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)  # the project: this work tree
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in (pages or {"index.md": "# Home\n\n[gone](missing.md)\n"}).items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: x\n" + config, encoding="utf-8")
    return root


# -- finding 4: hook and gen-files scripts are read as config files are ---------------------------
def test_a_hook_that_is_a_device_a_fifo_or_outside_the_project_is_not_read(tmp_path):
    """`hooks: [/dev/zero]` grew to 2.7 GB, a FIFO hung the run, and a hook outside the project
    was read and parsed (was: a plain read_bytes())."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "hook.py").write_text("def on_page_markdown(markdown, **kwargs):\n    return markdown.replace('zzz', 'y')\n",
                                     encoding="utf-8")
    project = _mkdocs_project(tmp_path / "repo", "hooks: [/dev/zero, pipe.py, ../outside/hook.py]\n"
                                                  "plugins: [{gen-files: {scripts: [/dev/zero, gen.py]}}]\n")
    os.mkfifo(project / "pipe.py")
    (project / "gen.py").symlink_to(outside / "hook.py")
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    stderr = " ".join(done.stderr.split())
    assert "pipe.py cannot be read (not a regular file (FIFO); not read)" in stderr, stderr
    assert stderr.count("outside the project") >= 4, stderr  # /dev/zero twice, the hook, the script's symlink
    assert "missing.md" in done.stdout and "unverified" in done.stdout  # what an unread hook may touch


# -- finding 6: theme.custom_dir and a monorepo's docs stay in the project -----------------------
def _outside_with_a_file(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    (outside / "docs").mkdir(parents=True)
    (outside / "passwd").write_text("root:x:0:0\n", encoding="utf-8")
    (outside / "docs" / "passwd").write_text("root:x:0:0\n", encoding="utf-8")
    (outside / "mkdocs.yml").write_text("site_name: sub\n", encoding="utf-8")
    return outside


def test_a_custom_dir_outside_the_project_is_refused_not_walked(tmp_path):
    """`custom_dir: /etc` made a link to `passwd` ok: an oracle on the runner's files (and `/`
    walked the whole disk)."""
    outside = _outside_with_a_file(tmp_path)
    project = _mkdocs_project(tmp_path / "repo", f"theme: {{name: mkdocs, custom_dir: {outside}}}\n",
                              {"index.md": "# Home\n\n[p](passwd)\n"})
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "theme.custom_dir" in done.stderr and "outside the project" in done.stderr


def test_a_monorepo_include_or_its_docs_dir_outside_the_project_is_refused(tmp_path):
    outside = _outside_with_a_file(tmp_path)
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "mkdocs.yml").write_text(f"site_name: sub\ndocs_dir: {outside / 'docs'}\n", encoding="utf-8")
    for include, named in ((f"{outside}/mkdocs.yml", "!include"), ("sub/mkdocs.yml", "docs_dir")):
        project = _mkdocs_project(tmp_path / "repo", f"plugins: [monorepo]\nnav: [{{Home: index.md}}, {{Sub: '!include {include}'}}]\n",
                                  {"index.md": "# Home\n\n[p](sub/passwd)\n"})
        done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
        assert done.returncode == 2, (include, done.returncode, done.stdout, done.stderr)
        assert named in done.stderr and "outside the project" in done.stderr, done.stderr


# -- finding 7: the macros sandbox bounds memory, not only `*` ---------------------------------
# The child's peak RSS, read by a parent of its own (os.wait4): the suite's other children do not count.
_MEASURED = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-m", "linkfix", *sys.argv[1:]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(usage.ru_maxrss // 1024, os.waitstatus_to_exitcode(status))
"""


def _peak_memory_mb(cwd: Path, *argv: str, timeout: float = 120) -> tuple[int, int, str]:
    """`linkfix ARGV` in a child (the limits of `linkfix`): its exit code, its peak RSS in MB, its stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins"), str(ROOT / "fixtures")]), "HOME": str(cwd)}
    try:
        done = subprocess.run([sys.executable, "-c", _MEASURED, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout, preexec_fn=_limits)
    except subprocess.TimeoutExpired:
        pytest.fail(f"linkfix {' '.join(argv)} did not finish in {timeout} s")
    peak, code = done.stdout.split()
    return int(code), int(peak), done.stderr


@pytest.mark.parametrize("expression", ['"x".center(1500000000)', '"%1500000000s" % "x"', '"{:>1500000000}".format("x")',
                                        '"x".zfill(1500000000)', '["y"]|join("x" * 10000000) ~ (range(150)|join("x" * 10000000))'])
def test_a_macros_page_cannot_take_the_memory_of_the_machine(tmp_path, expression):
    """`"x".center(3000000000)` made 3 GB from a 70-byte page: only `*` and `**` were bounded."""
    project = _mkdocs_project(tmp_path, "plugins: [macros]\n", {"index.md": f"# Home\n\n[x](https://example.com/{{{{ {expression} }}}})\n"})
    code, peak, stderr = _peak_memory_mb(project, "check", "--offline", "--no-cache", "mkdocs.yml")
    assert code in (0, 1), stderr
    assert peak < 900, f"{expression}: {peak} MB"  # each takes 1.5 GB when it is made


# -- finding 8: a planted cache record is trusted only within the run's --max-cache-age ------------
class _Gone(BaseHTTPRequestHandler):
    asked: list[str] = []  # noqa: RUF012  (the server's one log, read by the test)

    def do_HEAD(self) -> None:
        self.asked.append(self.path)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args: object) -> None:
        pass


def test_a_planted_cache_record_does_not_outlive_the_runs_max_cache_age(tmp_path):
    """A record in the checkout's .linkfix-cache/ saying `ok`, fresh for ten years, was trusted
    whatever --max-cache-age said: the dead link was ok and never asked."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gone)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/gone"
        (tmp_path / "linkfix.yml").write_text("allow_private: true\nmax_retries: 0\n", encoding="utf-8")
        (tmp_path / "index.md").write_text(f"# Home\n\n[dead]({url})\n", encoding="utf-8")
        with Cache(tmp_path / ".linkfix-cache", max_age=10 * 365 * 86400) as planted:  # what a pull request can commit
            planted.put_result(url, CheckResult(url=url, status=Status.OK, http_status=200, checked_at=time.time() - 30 * 86400))
        (tmp_path / ".linkfix-cache").chmod(0o777)
        done = linkfix(tmp_path, "check", "--max-cache-age", "1d", "index.md", timeout=60)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 1, (done.stdout, done.stderr)  # broken, asked again
    assert _Gone.asked, "the planted record answered for the dead link"
    assert "writable by every user" in done.stderr, done.stderr


# -- finding 9: deep JSON, TOML and Python are input errors, never a traceback ---------------------
# (ids of their own: pytest puts a test's id in PYTEST_CURRENT_TEST, and 200 kB of `[` there is
# more than one environment string may hold, so the child could not be started)
@pytest.mark.parametrize(("name", "text"), [("docs/vercel.json", "[" * 200_000), ("netlify.toml", "a = " + "[" * 200_000)],
                         ids=["vercel.json", "netlify.toml"])
def test_a_redirect_file_nested_too_deep_is_exit_2_naming_it(tmp_path, name, text):
    project = _mkdocs_project(tmp_path, "")
    (project / name).write_text(text, encoding="utf-8")
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
    assert done.returncode == 2, (done.returncode, done.stderr[-1500:])
    assert "Traceback" not in done.stderr and "nested too deeply" in done.stderr and Path(name).name in done.stderr, done.stderr[-1500:]


def test_a_hook_nested_too_deep_is_not_read_and_its_pages_unverified(tmp_path):
    project = _mkdocs_project(tmp_path, "hooks: [hook.py]\n")
    (project / "hook.py").write_text("def on_page_markdown(markdown, **kwargs):\n    x = a" + ".b" * 1500 + "\n"
                                     "    return markdown.replace('zzz', 'y')\n", encoding="utf-8")
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=60)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-1500:]
    assert "hook.py cannot be read (its code is nested deeper than linkfix reads)" in done.stderr, done.stderr[-1500:]
    assert "unverified" in done.stdout


# -- finding 10: git in the checked tree runs none of its config's programs ----------------------
def _git_repository_that_runs_programs(root: Path) -> Path:
    """A work tree whose page guide.md was renamed (what --suggest reads in git), with a page
    changed since, and a .git/config whose fsmonitor, filter, diff driver and signature
    program each write a marker."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=root, check=True, capture_output=True)

    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n\n[old](guide.md#setup)\n", encoding="utf-8")
    (root / "docs" / "guide.md").write_text("# Guide\n\n## Setup\n", encoding="utf-8")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    git("mv", "docs/guide.md", "docs/manual.md")
    git("commit", "-qm", "two")
    (root / "docs" / "index.md").write_text("# Home\n\n[old](guide.md#setup)\n\n[new](https://example.com/x)\n", encoding="utf-8")
    program = root / ".git" / "program.sh"
    program.write_text(f"#!/bin/sh\necho \"$*\" >> {root / 'MARKER'}\ncat\n", encoding="utf-8")
    program.chmod(0o755)
    (root / ".git" / "info" / "attributes").write_text("*.md diff=run filter=run\n", encoding="utf-8")
    for key, value in (("core.fsmonitor", f"{program} fsmonitor"), ("filter.run.clean", f"{program} clean"),
                       ("filter.run.required", "true"), ("diff.run.textconv", f"{program} textconv"),
                       ("log.showSignature", "true"), ("gpg.program", f"{program} gpg")):
        git("config", key, value)
    return root


@pytest.mark.parametrize("flags", [("--suggest",), ("--changed-since", "HEAD~1")])
def test_suggest_and_changed_since_run_no_program_of_the_checked_trees_git_config(tmp_path, flags):
    root = _git_repository_that_runs_programs(tmp_path)
    done = linkfix(root, "check", "--offline", "--no-cache", *flags, "docs", timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert not (root / "MARKER").exists(), (root / "MARKER").read_text()
    if flags == ("--suggest",):  # and git still answers: the rename is found
        assert "manual.md#setup" in done.stdout, done.stdout


def test_blame_runs_no_program_of_the_checked_trees_git_config(tmp_path):
    from linkfix.recover.gittime import _blame

    root = _git_repository_that_runs_programs(tmp_path)
    dated = _blame(root / "docs" / "index.md")
    assert not (root / "MARKER").exists(), (root / "MARKER").read_text()
    assert dated  # and git still answers: the committed lines are dated


# -- finding 11: bounded memory for a tag of millions of attributes -----------------------------
def test_a_tag_of_millions_of_attributes_takes_bounded_memory(tmp_path):
    """One `<a>` of 3 million attributes (27 MB) took 888 MB: every attribute was kept."""
    (tmp_path / "page.html").write_text('<a href="other.html" ' + " ".join(f"x{n:x}" for n in range(3_000_000)) + ">x</a>\n",
                                        encoding="utf-8")
    (tmp_path / "other.html").write_text("<p>other</p>\n", encoding="utf-8")
    code, peak, stderr = _peak_memory_mb(tmp_path, "check", "--offline", "--no-cache", "page.html")
    assert code == 0, stderr
    assert peak < 300, f"{peak} MB"  # 71 MB with the fix


# -- finding 12: a page through a symlink out of the project is refused like any other --------------
@pytest.mark.parametrize("config", ["plugins: [mkdocs-jupyter]\n", ""])
def test_links_to_pages_symlinked_outside_the_project_are_refused_whatever_is_there(tmp_path, config):
    """A notebook page symlinked outside was ok or broken by whether its target existed (an
    oracle on the runner's files), and `p.md#x` through an outside symlink was ok, its fragment
    unchecked."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "nb.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    (outside / "p.md").write_text("# P\n\n## Real\n", encoding="utf-8")
    project = _mkdocs_project(tmp_path / "repo", config, {"index.md": "# Home\n\n[a](nb.ipynb) [b](gone.ipynb) [c](p.md#x) [d](p.md#real)\n"})
    for name, target in (("nb.ipynb", "nb.ipynb"), ("gone.ipynb", "gone.ipynb"), ("p.md", "p.md")):
        (project / "docs" / name).symlink_to(outside / target)
    done = linkfix(project, "check", "--offline", "--no-cache", "-f", "json", "-o", "report.json", "mkdocs.yml", timeout=60)
    assert done.returncode == 2, done.stderr  # p.md, a page symlinked outside, is not read: an input error beside the broken links
    links = json.loads((project / "report.json").read_text(encoding="utf-8"))["links"]
    assert {(link["url"], link["status"], link["reason"]) for link in links} == {
        (url, "broken", "outside-root") for url in ("nb.ipynb", "gone.ipynb", "p.md#x", "p.md#real")}, links


# -- finding 5: a repository's regular expressions are matched within a time bound ------------------
# Each pattern backtracks for hours in `re` on the string the page gives it (minutes at the least);
# bounded, the run takes seconds. The margin: 30 s for what takes about 2 s here.
_BOUNDED_RUN = 30


def test_a_hooks_f_string_shape_does_not_backtrack_without_bound(tmp_path):
    """`f"x{a}{b}...{l}.md"` is read as the shape `x.+.+...\\.md`, matched against every link's path."""
    shape = "".join(f"{{v{n}}}" for n in range(12))
    project = _mkdocs_project(tmp_path, "hooks: [hook.py]\n", {"index.md": f"# Home\n\n[x](x{'a' * 120}.png)\n"})
    (project / "hook.py").write_text(f"def on_files(files, **kwargs):\n    name = f\"x{shape}.md\"\n", encoding="utf-8")
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=_BOUNDED_RUN)
    assert done.returncode == 1, done.stderr  # the hook names no .png: the link is broken


def test_a_redirect_source_does_not_backtrack_without_bound(tmp_path):
    project = _mkdocs_project(tmp_path, "", {"index.md": f"# Home\n\n[x](/{'a' * 200}/)\n"})
    (project / "docs" / "vercel.json").write_text(json.dumps({"redirects": [{"source": "/" + "(.*)" * 12 + "x", "destination": "/"}]}),
                                                   encoding="utf-8")
    done = linkfix(project, "check", "--offline", "--no-cache", "mkdocs.yml", timeout=_BOUNDED_RUN)
    assert done.returncode == 1, done.stderr  # the link is broken: no rule that matches it was found


@pytest.mark.parametrize("rule", [
    "exclude: ['^http://127\\.0\\.0\\.1:\\d+/((a+)+)+$']",
    # the requests' remap (check/http/transport) compiled the rules again with plain `re`
    "remap: ['^http://127\\.0\\.0\\.1:\\d+/((a+)+)+$ http://127.0.0.1:9/x']",
])
def test_an_exclude_or_remap_pattern_does_not_backtrack_without_bound(tmp_path, rule):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gone)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{'a' * 40}!"
        (tmp_path / "linkfix.yml").write_text(f"allow_private: true\nmax_retries: 0\n{rule}\n", encoding="utf-8")
        (tmp_path / "index.md").write_text(f"# Home\n\n[dead]({url})\n", encoding="utf-8")
        done = linkfix(tmp_path, "check", "--no-cache", "index.md", timeout=_BOUNDED_RUN)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 1, (done.stdout, done.stderr)  # neither excluded nor remapped: requested as written, broken


def test_a_pattern_that_runs_away_is_stopped_once_said_once_and_answered_safely(caplog):
    from linkfix.config.patterns import repository_pattern

    pattern = repository_pattern("(x+x+)+y", origin="a test's exclude")  # exponential in `re` and in `regex` alike
    started = time.monotonic()
    assert pattern.matches("x" * 5000, otherwise=True) is True
    assert pattern.matches("x" * 5000, otherwise=False) is False  # not matched again: answered at once
    assert time.monotonic() - started < 10  # its bound is 0.25 s (of the machine's time, not the process's)
    said = [record.getMessage() for record in caplog.records if "backtracks without bound" in record.getMessage()]
    assert len(said) == 1 and "a test's exclude" in said[0], said
    assert repository_pattern("^x+y$", origin="t").matches("xxy", otherwise=False)  # and ordinary ones match as before
