"""Shared pytest fixtures. The simulated web, `linkfix_simweb`, is a test asset in fixtures/
(never installed): pyproject's pytest `pythonpath` setting puts fixtures/ on the path."""

from __future__ import annotations

import pytest

from linkfix_simweb import SimWeb


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


@pytest.fixture
def redis_server():
    """A real redis-server on 127.0.0.1 (a free port, a temp dir, nothing persisted), stopped
    after the test; skipped where Debian's redis-server is not installed (.ci/run installs it)."""
    from linkfix_simweb.store_server import RedisServer

    if not RedisServer.available():
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    with RedisServer() as server:
        yield server
