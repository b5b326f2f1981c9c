"""The generated external web: the ground truth agrees with what the server really does."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import aiohttp
import pytest

from linkfix_simweb.generate import (
    build_external_web,
    external_hosts,
    generate_external_site,
    plan_urls,
    restrict_to_truth,
    soft404_hosts,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_hosts_are_loopback_addresses_from_10():
    assert external_hosts(40)[0] == "127.0.0.10" and external_hosts(40)[-1] == "127.0.0.49"
    assert soft404_hosts(40) == ["127.0.0.17", "127.0.0.25", "127.0.0.33", "127.0.0.41", "127.0.0.49"]
    assert soft404_hosts(3) == ["127.0.0.12"]
    with pytest.raises(ValueError):
        external_hosts(0)


def test_plan_is_deterministic_and_mixed():
    first = plan_urls(2000, 40, seed=7, port=1234)
    assert first == plan_urls(2000, 40, seed=7, port=1234)
    assert first != plan_urls(2000, 40, seed=8, port=1234)
    counts = Counter(first.values())
    assert set(counts) == {"ok", "broken", "redirected", "blocked", "error"}
    assert len(first) == 2000 and counts["ok"] > counts["broken"] > counts["error"]


def test_docs_tree_links_every_url(tmp_path):
    docs, truth = generate_external_site(600, 5, seed=3, port=4321, directory=tmp_path)
    text = "\n".join(p.read_text(encoding="utf-8") for p in docs.rglob("*") if p.is_file())
    assert all(url in text for url in truth)
    assert {p.suffix for p in docs.rglob("*.*")} == {".md", ".html"}
    assert json.loads((tmp_path / "ground_truth.json").read_text()) == truth
    assert not (docs / "ground_truth.json").exists()


async def classify(session: aiohttp.ClientSession, url: str) -> str:
    """An independent oracle: what a careful checker concludes from real responses."""
    page, _, fragment = url.partition("#")
    for _ in range(3):  # the catalogue's transient failures clear after one retry
        async with session.get(page) as response:
            body = await response.text(errors="replace")
            if response.status not in (429, 503):
                break
    if response.status in (403, 999):
        return "blocked"
    if response.status in (404, 410):
        return "broken"
    if response.status >= 500:
        return "error"
    assert response.status == 200
    path = page.split(":", 2)[2].split("/", 1)[1]
    if "Sorry" in body or "not found" in body.lower() or "lost that page" in body or "Nothing was found" in body:
        assert "/" + path in body  # a soft-404 names the path it did not find
        return "broken"
    if fragment and f'id="{fragment}"' not in body:
        return "broken"
    return "redirected" if response.history else "ok"


async def test_ground_truth_matches_the_served_web(tmp_path):
    web = build_external_web(n_hosts=16)
    async with web:
        _, truth = generate_external_site(400, 16, seed=5, port=web.port, directory=tmp_path)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=32)) as session:
            verdicts = await asyncio.gather(*(classify(session, url) for url in truth))
    mismatches = {url: (want, got) for (url, want), got in zip(truth.items(), verdicts) if want != got}
    assert mismatches == {}
    assert sum(web.stats(h).requests for h in external_hosts(16)) >= len(truth)


async def _status(session, url: str) -> int:
    async with session.get(url) as response:
        return response.status


async def test_restricted_generated_web_serves_every_planned_url_and_404s_probes(tmp_path):
    web = build_external_web(n_hosts=16)
    async with web:
        _, truth = generate_external_site(
            600, 16, seed=9, port=web.port, directory=tmp_path, spread="skewed", without={"429-then-ok"}
        )
        restrict_to_truth(web, truth)
        soft = set(soft404_hosts(16))
        probes = {
            host: f"http://{host}:{web.port}/ok/guide/linkfix-3fa9c2.html" for host in external_hosts(16)
        }
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=32)) as session:
            for url, want in truth.items():
                assert await classify(session, url) == want, url
            for host, probe in probes.items():
                assert (await _status(session, probe)) == (200 if host in soft else 404), host


def test_command_line_serves_until_terminated(tmp_path):
    env = {**os.environ, "PYTHONPATH": f"{FIXTURES}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "linkfix_simweb", "--sites", "3", "--urls", "30", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        lines = [process.stdout.readline().strip() for _ in range(4)]
        port = int(lines[0].split()[1])
        truth = json.loads((tmp_path / "ground_truth.json").read_text())
        assert len(truth) == 30 and all(f":{port}/" in url for url in truth)

        async def fetch_home() -> int:
            async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.11:{port}/") as response:
                return response.status

        assert asyncio.run(fetch_home()) == 200
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        process.stdout.close()


def test_command_line_rejects_bad_arguments():
    env = {**os.environ, "PYTHONPATH": str(FIXTURES)}
    result = subprocess.run(
        [sys.executable, "-m", "linkfix_simweb", "--sites", "0"], capture_output=True, text=True, env=env, timeout=30
    )
    assert result.returncode == 2 and "--sites" in result.stderr


def test_command_line_passes_spread_without_and_only_linked(tmp_path):
    env = {**os.environ, "PYTHONPATH": f"{FIXTURES}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "linkfix_simweb", "--sites", "9", "--urls", "300", "--spread", "skewed",
         "--without", "429-then-ok", "--only-linked", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )  # fmt: skip
    try:
        port = int(process.stdout.readline().split()[1])
        for _ in range(3):
            process.stdout.readline()
        truth = json.loads((tmp_path / "ground_truth.json").read_text())
        assert truth == plan_urls(300, 9, 1, port, spread="skewed", without={"429-then-ok"})

        async def probe(host: str) -> int:
            async with aiohttp.ClientSession() as session, session.get(f"http://{host}:{port}/ok/guide/nobody-linked-1.html") as response:
                return response.status

        assert asyncio.run(probe("127.0.0.10")) == 404  # a normal host: only linked paths exist
        assert asyncio.run(probe("127.0.0.17")) == 200  # the soft-404 host
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        process.stdout.close()
