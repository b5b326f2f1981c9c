"""Shared pytest fixtures. Makes the fixtures/ packages importable before the package is installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

try:
    import linkfix_simweb  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fixtures"))

from linkfix_simweb import SimWeb  # noqa: E402


@pytest.fixture
async def simweb():
    """A started, empty simulated web (latency 0), stopped after the test. Add sites freely;
    IP-address sites need their own SimWeb built before start()."""
    async with SimWeb(latency=0.0) as web:
        yield web


@pytest.fixture
async def simweb_session(simweb):
    """An aiohttp client session that resolves the `simweb` sites' names (no redirects followed
    unless a test asks for them per request)."""
    import aiohttp

    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        yield session
