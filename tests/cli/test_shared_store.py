"""`linkfix check --cache-url` when the store fails: the run's report and exit code are what they
are without a store, and it says so once. The real command line in a child process, against the
simulated web on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import pytest

from linkfix_simweb import SimWeb

ROOT = Path(__file__).resolve().parents[2]
SITE = "127.0.0.31"


async def linkfix(*args: str, cwd: Path) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins")])}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "linkfix", *args, cwd=cwd, env=env,
                                                   stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, err.decode()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
async def site(tmp_path):
    web = SimWeb()
    web.add_site(SITE)
    async with web:
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "index.md").write_text(
            f"[ok]({web.url(SITE, '/ok/a.html')}) [gone]({web.url(SITE, '/status/404/b')}) [moved]({web.url(SITE, '/redirect/301/ok/c.html')})\n")
        yield tmp_path


async def check(root: Path, name: str, *extra: str) -> tuple[int, list[tuple[str, str]], str]:
    code, err = await linkfix("check", "docs", "--allow-private", "--network-probe", "", "--cache-dir", name, "--format", "json",
                              "--output", f"{name}.json", *extra, cwd=root)
    report = json.loads((root / f"{name}.json").read_text())
    return code, sorted((link["url"], link["status"]) for link in report["links"]), err


async def test_an_unreachable_store_changes_neither_report_nor_exit_code(site):
    url = f"redis://127.0.0.1:{closed_port()}/0"
    alone = await check(site, "alone")
    without = await check(site, "unreachable", "--cache-url", url)
    assert without[:2] == alone[:2] and alone[0] == 1
    assert without[2].count("shared cache") == 1 and "going on with the local cache" in without[2]


async def test_a_store_that_never_answers_holds_no_run(site):
    accepted = []
    silent = await asyncio.start_server(lambda reader, writer: accepted.append(writer), "127.0.0.1", 0)
    async with silent:
        port = silent.sockets[0].getsockname()[1]
        alone = await check(site, "alone")
        slow = await check(site, "silent", "--cache-url", f"redis://127.0.0.1:{port}/0")
    for writer in accepted:
        writer.close()
    assert slow[:2] == alone[:2]
    assert slow[2].count("shared cache") == 1
