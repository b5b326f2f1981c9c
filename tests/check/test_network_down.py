"""Offline is not broken: "host name not found" counts as a dead link only when DNS demonstrably
works. DNS is a stand-in resolver here (never the real one); no request leaves the machine."""

from __future__ import annotations

import asyncio
import errno
import shlex
import socket
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from aiohttp.abc import AbstractResolver, ResolveResult

from linkfix.check.http import HttpChecker
from linkfix.cli import build_parser, config_from_args
from linkfix.config import Config
from linkfix.errors import NetworkDownError
from linkfix.model import Status
from linkfix.pipeline import run_check
from linkfix.report.text import summarize
from linkfix.store.cache import Cache

REPO = Path(__file__).resolve().parents[2]


class StandInDNS(AbstractResolver):
    """Knows `names` (at a documentation address no test connects to); every other name does
    not exist. `hang`: answers nothing, ever."""

    def __init__(self, names=(), *, hang=False) -> None:
        self.names, self.hang = set(names), hang
        self.asked: list[str] = []

    async def resolve(self, host, port=0, family=socket.AF_INET):
        self.asked.append(host)
        if self.hang:
            await asyncio.Event().wait()
        if host in self.names:
            return [ResolveResult(hostname=host, host="192.0.2.1", port=port, family=socket.AF_INET, proto=0, flags=0)]
        raise OSError(socket.EAI_NONAME, f"Name or service not known: {host}")

    async def close(self):
        return None


def config(**settings) -> Config:
    return Config(**{"cache": False, "max_retries": 0, "timeout": 2.0, **settings})


async def check_urls(urls, dns, **settings):
    async with HttpChecker(config(**settings), Cache(None), resolver=dns) as checker:
        targets = [(url, "") for url in urls]
        for url, fragment in targets:
            checker.submit(url, fragment)
        return await checker.results(targets)


async def test_an_unknown_host_on_a_working_network_is_broken():
    dns = StandInDNS({"example.com"})
    results = await check_urls(["https://gone.example.net/page"], dns)
    (result,) = results.values()
    assert (result.status, result.reason) == (Status.BROKEN, "dns")
    assert "example.com" in dns.asked  # the probe name was asked, once
    assert dns.asked.count("example.com") == 1


async def test_an_unknown_host_with_nothing_resolving_is_network_down():
    with pytest.raises(NetworkDownError, match=r"network down: no host name resolves .*not even example\.com resolves"):
        await check_urls(["https://gone.example.net/page"], StandInDNS())


async def test_the_probe_name_is_configurable():
    results = await check_urls(["https://gone.example.net/"], StandInDNS({"dns.internal.test"}), network_probe="dns.internal.test")
    assert {r.reason for r in results.values()} == {"dns"}
    with pytest.raises(NetworkDownError):
        await check_urls(["https://gone.example.net/"], StandInDNS({"example.com"}), network_probe="dns.internal.test")


async def test_many_dead_hosts_on_a_working_dns_are_link_rot():
    urls = [f"https://dead{i}.example.net/" for i in range(8)]  # more than NETWORK_DOWN_HOSTS, none answering
    results = await check_urls(urls, StandInDNS({"example.com"}))
    assert {(r.status, r.reason) for r in results.values()} == {(Status.BROKEN, "dns")}


async def test_a_resolver_that_never_answers_is_not_waited_for_forever():
    dns = StandInDNS(hang=True)
    async with HttpChecker(config(timeout=0.3), Cache(None), resolver=dns) as checker:
        assert await checker.transport.resolves("example.com") is False


# -- the policy: fail (CI) or warn (pre-commit, the mkdocs plugin) ------------------------------------------------
@pytest.fixture
def docs(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[a](a.md) [web](https://gone.example.net/x)\n")
    (tmp_path / "docs" / "a.md").write_text("# A\n\n[missing](nope.md)\n")
    return tmp_path / "docs"


async def test_network_down_fails_the_run_by_default(docs):
    with pytest.raises(NetworkDownError):
        await run_check([str(docs)], config(), resolver=StandInDNS())


async def test_network_down_warn_reports_external_links_not_checked_and_keeps_internal_ones(docs):
    report = await run_check([str(docs)], config(network_down="warn"), resolver=StandInDNS())
    by_url = {r.link.url: r.result for r in report.results}
    assert (by_url["https://gone.example.net/x"].status, by_url["https://gone.example.net/x"].reason) == (Status.ERROR, "network-down")
    assert by_url["nope.md"].status is Status.BROKEN  # internal links still checked, still failing
    assert [r.link.url for r in report.results if r.failing] == ["nope.md"]


def hook_entry(hook_id: str) -> list[str]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    entry = next(h["entry"] for h in hooks if h["id"] == hook_id)
    return shlex.split(entry)


@pytest.mark.parametrize("hook_id", ["linkfix-external", "linkfix-fix"])
def test_the_hooks_that_touch_the_network_warn_when_it_is_down(hook_id):
    assert "--network-down=warn" in hook_entry(hook_id)


async def test_the_external_hook_run_offline_does_not_block_a_commit(docs, monkeypatch):
    """The hook's own command line (from .pre-commit-hooks.yaml) on the staged files, with DNS
    down: exit 0 while the internal links are fine, 1 once one is broken."""
    (docs / "a.md").write_text("# A\n")
    monkeypatch.chdir(docs.parent)
    staged = ["docs/index.md", "docs/a.md"]
    program, command, *flags = hook_entry("linkfix-external")
    assert (program, command) == ("linkfix", "check")

    async def hook_exit(files):
        argv = [command, *flags, "--no-cache", *files]
        args = build_parser(argv).parse_args(argv)
        report = await run_check(args.inputs, config_from_args(args), resolver=StandInDNS())
        return 1 if any(r.failing for r in report.results) else 0

    assert await hook_exit(staged) == 0
    (docs / "a.md").write_text("# A\n\n[missing](nope.md)\n")
    assert await hook_exit(staged) == 1


# -- issue 22: no network at all, however few hosts ------------------------------------------------------------
class NoNetworkDNS(AbstractResolver):
    """What a machine without network gets from its resolver for every name: "temporary failure
    in name resolution" (EAI_AGAIN), not "no such name"."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def resolve(self, host, port=0, family=socket.AF_INET):
        self.asked.append(host)
        raise OSError(socket.EAI_AGAIN, "Temporary failure in name resolution")

    async def close(self):
        return None


@pytest.fixture
def two_hosts(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[a](https://one.example.org/a) and [b](https://two.example.net/b)\n")
    return tmp_path / "docs"


async def test_two_external_links_with_no_network_fail_the_run(two_hosts):
    """The issue's reproduction: two hosts whose names cannot be resolved (not "not found"),
    nothing answering. It was two `error` lines and exit 0."""
    dns = NoNetworkDNS()
    with pytest.raises(NetworkDownError, match=r"network down: no host name resolves \(2 hosts failed.*not even example\.com resolves"):
        await run_check([str(two_hosts)], config(), resolver=dns)
    assert "example.com" in dns.asked  # the probe settled it


async def test_one_external_link_with_no_network_fails_the_run(tmp_path):
    (tmp_path / "index.md").write_text("[a](https://one.example.org/a)\n")
    with pytest.raises(NetworkDownError):
        await run_check([str(tmp_path)], config(), resolver=NoNetworkDNS())


async def test_a_temporary_resolver_failure_on_a_working_network_is_an_error_not_network_down():
    results = await check_urls(["https://flaky.example.org/"], FlakyThenKnown({"example.com"}))
    assert {(r.status, r.reason) for r in results.values()} == {(Status.ERROR, "dns-error")}


class FlakyThenKnown(StandInDNS):
    """Knows `names`; every other name fails temporarily (EAI_AGAIN)."""

    async def resolve(self, host, port=0, family=socket.AF_INET):
        if host in self.names:
            return await super().resolve(host, port, family)
        self.asked.append(host)
        raise OSError(socket.EAI_AGAIN, "Temporary failure in name resolution")


def no_route(addr_info):
    raise OSError(errno.ENETUNREACH, "Network is unreachable")


async def test_no_route_to_the_network_is_network_down_even_when_names_resolve():
    """DNS answers (a local cache, /etc/hosts) but nothing can be connected to: the probe name
    resolving proves nothing about routes."""
    dns = StandInDNS({"one.example.org", "two.example.net", "example.com"})
    async with HttpChecker(config(allow_private=True), Cache(None), resolver=dns, socket_factory=no_route) as checker:
        targets = [("https://one.example.org/a", ""), ("https://two.example.net/b", "")]
        for target in targets:
            checker.submit(*target)
        with pytest.raises(NetworkDownError, match="no route to the network"):
            await checker.results(targets)


async def test_a_tree_without_external_links_passes_with_no_network(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n\n[a](a.md)\n")
    (tmp_path / "a.md").write_text("# A\n")
    dns = NoNetworkDNS()
    report = await run_check([str(tmp_path)], config(), resolver=dns)
    assert not any(r.failing for r in report.results) and dns.asked == []


async def test_all_hosts_answering_passes(simweb, tmp_path):
    site = simweb.add_site("docs.example.test")
    (tmp_path / "index.md").write_text(f"[a]({simweb.url(site.name, '/ok/a.html')}) [b]({simweb.url(site.name, '/ok/b.html')})\n")
    report = await run_check([str(tmp_path)], config(allow_private=True), resolver=simweb.resolver)
    assert {r.result.status for r in report.results} == {Status.OK}


async def test_a_warm_cache_does_not_hide_a_dead_network(simweb, tmp_path):
    """One URL checked earlier (fresh in the cache), one new: with the network gone the cached
    answer is no evidence that the network works now. `fail` stops the run; `warn` keeps the
    cached result, says how old it is, and reports the new one not checked."""
    site = simweb.add_site("docs.example.test")
    old, new = simweb.url(site.name, "/ok/old.html"), simweb.url(site.name, "/ok/new.html")
    docs = tmp_path / "docs"
    docs.mkdir()
    cached = config(cache=True, cache_dir=str(tmp_path / "cache"), allow_private=True)
    (docs / "index.md").write_text(f"[old]({old})\n")
    await run_check([str(docs)], cached, resolver=simweb.resolver)
    (docs / "index.md").write_text(f"[old]({old}) [new]({new})\n")
    with pytest.raises(NetworkDownError):
        await run_check([str(docs)], cached, resolver=NoNetworkDNS())
    report = await run_check([str(docs)], replace(cached, network_down="warn"), resolver=NoNetworkDNS())
    by_url = {r.link.url: r.result for r in report.results}
    assert by_url[old].status is Status.OK and by_url[old].from_cache
    assert (by_url[new].status, by_url[new].reason) == (Status.ERROR, "network-down")


async def test_a_run_on_cached_results_only_says_so(simweb, tmp_path):
    """Nothing was requested: the summary says the external results are the cache's, and how
    old, instead of passing them off as checked now (whatever the network does meanwhile)."""
    site = simweb.add_site("docs.example.test")
    (tmp_path / "index.md").write_text(f"[a]({simweb.url(site.name, '/ok/a.html')}) [b]({simweb.url(site.name, '/ok/b.html')})\n")
    cached = config(cache=True, cache_dir=str(tmp_path / ".cache"), allow_private=True)
    first = await run_check([str(tmp_path)], cached, resolver=simweb.resolver)
    assert "cache" not in summarize(first)
    warm = await run_check([str(tmp_path)], cached, resolver=NoNetworkDNS())
    assert {r.result.status for r in warm.results} == {Status.OK}
    assert "all 2 external results from the cache (the oldest 0 s old): none checked in this run" in summarize(warm)
