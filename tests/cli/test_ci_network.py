"""Issue 22: a CI run on a machine without network must fail, never pass having checked nothing.

The real command line in a child process whose resolver answers every name as a machine without
network does ("temporary failure in name resolution", EAI_AGAIN): socket.getaddrinfo, the layer
the HTTP client's resolver calls, fails before any packet could leave. Nothing is connected to.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

NO_NETWORK = """
import socket, sys
def getaddrinfo(*args, **kwargs):
    raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
socket.getaddrinfo = getaddrinfo
from linkfix.cli import main
sys.exit(main(sys.argv[1:]))
"""


def linkfix_without_network(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_NETWORK, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def docs(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n")
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    return tmp_path


def test_the_ci_command_fails_on_a_dead_network(docs):
    (docs / "docs" / "index.md").write_text("# Home\n\n[PyPI](https://pypi.example.org/p/x) and [docs](https://docs.example.net/)\n")
    run = linkfix_without_network("check", "docs", cwd=docs)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "network down" in run.stderr and "not even example.com resolves" in run.stderr
    # a warm cache (the first run wrote one) does not make the next run pass
    again = linkfix_without_network("check", "docs", cwd=docs)
    assert again.returncode == 2, again.stdout + again.stderr


def test_the_ci_command_passes_on_a_clean_tree_without_external_links(docs):
    run = linkfix_without_network("check", "docs", cwd=docs)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "network down" not in run.stderr
