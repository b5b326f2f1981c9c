"""The shared store (`cache_url`) is the runner's to choose, never the checked repository's.

A store a repository could name would get the CI job's store credentials (LINKFIX_CACHE_PASSWORD
is in the job's environment) and would decide the job's verdicts, and through them the fixes.
So a config file that sets `cache_url` is refused before anything connects (exit 2, naming the
flag), mkdocs.yml has no such option, and no URL carries a password (it would sit in a workflow
file and in every log line that names the store).
"""

from __future__ import annotations

import socket
import textwrap

import pytest

from linkfix.cli import main


@pytest.fixture
def stand_in_server():
    """A listening socket on loopback standing in for a stranger's Redis: what connects to it."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        yield listener


def connected(listener: socket.socket) -> bool:
    try:
        listener.accept()[0].close()
    except TimeoutError:
        return False
    return True


@pytest.mark.parametrize(("name", "text"), [
    ("linkfix.yml", "cache_url: redis://127.0.0.1:{port}/0\n"),
    ("pyproject.toml", '[tool.linkfix]\ncache_url = "redis://127.0.0.1:{port}/0"\n'),
])
def test_a_repository_config_cannot_choose_the_shared_store(tmp_path, monkeypatch, capsys, stand_in_server, name, text):
    port = stand_in_server.getsockname()[1]
    (tmp_path / name).write_text(text.format(port=port))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("[a](https://a.example.test/)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LINKFIX_CACHE_PASSWORD", "the-job-s-secret")
    assert main(["check", "docs", "--network-probe", ""]) == 2
    err = capsys.readouterr().err
    assert "'cache_url' decides where the run's results and the shared store's credentials go" in err and "--cache-url" in err
    assert not connected(stand_in_server)


def test_mkdocs_yml_has_no_shared_store_option():
    from mkdocs_linkfix.plugin import LinkfixPlugin

    assert "cache_url" not in dict(LinkfixPlugin.config_scheme)
    assert "cache_dir" in dict(LinkfixPlugin.config_scheme)  # the other cache keys are options


@pytest.mark.parametrize("url", ["redis://:pw@127.0.0.1:6379/0", "redis://user:pw@127.0.0.1:6379/0", "redis://user@127.0.0.1/0",
                                 "http://127.0.0.1:6379/0", "redis://"])
def test_a_store_url_holds_no_credentials_and_is_a_redis_url(tmp_path, monkeypatch, capsys, url):
    (tmp_path / "index.md").write_text("# Home\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "index.md", "--cache-url", url]) == 2
    assert "LINKFIX_CACHE_PASSWORD" in capsys.readouterr().err


def test_the_shared_store_without_its_client_is_a_clear_error(tmp_path, monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "redis" else real(name, *a))
    (tmp_path / "index.md").write_text(textwrap.dedent("""\
        [a](http://127.0.0.1:9/x)
    """))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "index.md", "--allow-private", "--network-probe", "", "--cache-url", "redis://127.0.0.1:9/0"]) == 2
    assert "pip install 'linkfix[redis]'" in capsys.readouterr().err
