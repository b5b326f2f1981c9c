"""Shared pytest fixtures. The simulated web, `linkfix_simweb`, is a test asset in fixtures/
(never installed): pyproject's pytest `pythonpath` setting puts fixtures/ on the path."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import settings

from linkfix_simweb import SimWeb

pytest_plugins = ["pytester"]  # tests/test_skip_summary.py runs a small suite with this file

# Hypothesis' example counts, one for the whole suite: `quick` (Hypothesis' own 100, which found
# every bug these properties have caught) unless LINKFIX_HYPOTHESIS=thorough asks for 500 (before
# a release, or after a change to a parser). Built on the profile Hypothesis chose itself (its
# `ci` one under CI: derandomized, no example database). No deadline: a loaded machine misses it.
settings.register_profile("quick", settings.default, max_examples=100, deadline=None)
settings.register_profile("thorough", settings.default, max_examples=500, deadline=None)
settings.load_profile(os.environ.get("LINKFIX_HYPOTHESIS", "quick"))


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

# A test that needs corpus data at a fixed path (the real projects of ../shared/realdocs and
# /work/realdocs-more, the real-moves sets of ../shared/recovery-dev) skips with a reason that
# starts so, then names the missing directory: the summary below counts those skips as one.
CORPUS_ABSENT = "corpus absent: "


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line on why tests were skipped, also under -q: most skips need corpus data that a
    fresh checkout does not have (docs/development.md says where it comes from)."""
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped:
        terminalreporter.write_line(skip_summary([_skip_reason(report) for report in skipped]))


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def skip_summary(reasons: list[str]) -> str:
    """`N skipped: K corpus absent (dirs); M <reason>; ... — see docs/development.md`, the
    largest group first."""
    absent = sorted({reason[len(CORPUS_ABSENT):].split(" (")[0] for reason in reasons if reason.startswith(CORPUS_ABSENT)})
    groups = Counter(f"real-project corpus absent ({', '.join(absent)})" if reason.startswith(CORPUS_ABSENT) else reason for reason in reasons)
    parts = [f"{count} {label}" for label, count in sorted(groups.items(), key=lambda item: (-item[1], item[0]))]
    return f"{len(reasons)} skipped: {'; '.join(parts)} — see docs/development.md"
