"""Safety: what linkfix contacts, what it sends, what it keeps, what it writes where.

- loopback/private/link-local addresses are never contacted unless allowed, metadata addresses
  never, whether written in the link, reached by a redirect, or given by DNS;
- credentials (per-host `headers`, GITHUB_TOKEN) go to their own host only, and never into the
  cache directory or a report;
- response bodies are read up to a cap;
- fetched strings are escaped in every report format, and so are bidi controls, line
  separators and control characters in link URLs, anchor texts, file paths and log lines;
- a file name that is not UTF-8 is reported in every format, escaped where people read it and
  exactly where programs read it (the JSON report, which `fix --from` uses);
- links cannot make linkfix read outside the project root, nor `fix` write outside it.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import stat
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
import yarl
from aiohttp import web as aioweb
from lxml import etree
from lxml import html as lxml_html
from markdown_it import MarkdownIt

from linkfix.check.http import PAGE_BYTES, HttpChecker
from linkfix.cli import main
from linkfix.config import Config
from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.pipeline import run_check
from linkfix.report import FORMATS
from linkfix.report.json_format import format_json
from linkfix.store.cache import Cache

MIB = 1024 * 1024
HOST, OTHER = "docs.example.test", "other.example.test"


def checker(cfg: Config, resolver=None, socket_factory=None) -> HttpChecker:
    return HttpChecker(cfg, Cache(None), resolver=resolver, socket_factory=socket_factory, backoff=0.01, max_retry_after=0.2)


# -- forbidden addresses -------------------------------------------------------------------------------
FORBIDDEN_TARGETS = {
    "/to-private": ("http://10.0.0.5/admin", "private-address"),
    "/to-loopback": ("http://127.0.0.1:9/", "private-address"),
    "/to-decimal-loopback": ("http://2130706433/", "private-address"),
    "/to-localhost": ("http://localhost/", "private-address"),
    "/to-link-local": ("http://169.254.10.10/", "private-address"),
    "/to-ipv6-loopback": ("http://[::1]/", "private-address"),
    "/to-metadata": ("http://169.254.169.254/latest/meta-data/iam/", "metadata-address"),
    "/to-mapped-metadata": ("http://[::ffff:169.254.169.254]/", "metadata-address"),
    "/to-metadata-name": ("http://metadata.google.internal/computeMetadata/v1/", "metadata-address"),
    # Spellings the HTTP client reads as an IP address (IDNA/UTS-46): judged as that address.
    "/to-fullwidth-loopback": ("http://１２７.０.０.１:9/", "private-address"),
    "/to-ideographic-private": ("http://10。0。0。5/admin", "private-address"),
    "/to-enclosed-loopback": ("http://①②⑦.0.0.1:9/", "private-address"),
    "/to-fullwidth-metadata": ("http://１６９.２５４.１６９.２５４/latest/meta-data/", "metadata-address"),
    "/to-ideographic-metadata": ("http://169。254。169。254/latest/meta-data/", "metadata-address"),
    "/to-enclosed-metadata": ("http://⑯⑨.254.169.254/latest/meta-data/", "metadata-address"),
    "/to-6to4-loopback": ("http://[2002:7f00:1::]:9/", "private-address"),
    "/to-6to4-metadata": ("http://[2002:a9fe:a9fe::]/", "metadata-address"),
    "/to-site-local": ("http://[fec0::1]/", "private-address"),
}


@pytest.fixture
async def redirecting_proxy(monkeypatch):
    """A forward proxy on loopback (HTTP_PROXY) playing a public site whose pages redirect to
    forbidden addresses. It records every URL it was asked for: a forbidden one would be there."""
    seen: list[str] = []

    async def handle(request):
        seen.append(str(request.url))
        target = FORBIDDEN_TARGETS.get(request.path)
        if target is not None:
            return aioweb.Response(status=302, headers={"Location": target[0]})
        return aioweb.Response(status=404)

    runner = aioweb.ServerRunner(aioweb.Server(handle))
    await runner.setup()
    site = aioweb.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    for name in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    yield seen
    await runner.cleanup()


@pytest.mark.parametrize("allow_private", [False, True])
async def test_redirects_to_forbidden_addresses_are_not_followed(redirecting_proxy, allow_private):
    seen = redirecting_proxy
    cfg = Config(allow_private=allow_private, max_retries=0, timeout=2.0)
    async with checker(cfg) as c:
        results = {path: await c.check(f"http://public.example.test{path}") for path in FORBIDDEN_TARGETS}
    for path, (_, reason) in FORBIDDEN_TARGETS.items():
        if allow_private and reason == "private-address":
            continue  # allowed: it would be fetched (through the proxy, here)
        assert (results[path].status, results[path].reason) == (Status.EXCLUDED, reason), path
    asked_hosts = {url.split("/")[2] for url in seen}
    assert "public.example.test" in asked_hosts  # the control: the first hop went out
    for target, reason in FORBIDDEN_TARGETS.values():
        if reason == "metadata-address" or not allow_private:
            as_sent = yarl.URL(target)  # how the client (and so the proxy) would spell it
            assert target not in seen and str(as_sent) not in seen, target
            assert target.split("/")[2] not in asked_hosts and as_sent.raw_authority not in asked_hosts, target


async def test_a_proxy_named_by_a_private_name_is_trusted_and_its_targets_still_judged(redirecting_proxy, monkeypatch):
    seen = redirecting_proxy
    port = os.environ["HTTP_PROXY"].rsplit(":", 1)[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://localhost:{port}")  # resolves to loopback: the user's choice
    async with checker(Config(max_retries=0, timeout=2.0)) as c:
        result = await c.check("http://public.example.test/to-fullwidth-metadata")
    assert seen == ["http://public.example.test/to-fullwidth-metadata"]  # through the proxy, once
    assert (result.status, result.reason) == (Status.EXCLUDED, "metadata-address")


@pytest.mark.parametrize(("probe", "allow_private"), [("http://10.0.0.5/admin", False), ("http://localhost:9/", False),
                                                      ("http://169.254.169.254/latest/meta-data/", True)])
async def test_the_network_probe_through_a_proxy_is_judged_like_every_request(redirecting_proxy, probe, allow_private):
    """`network_probe` is sent before the first request; through a proxy the connection guard
    sees only the proxy, so the probe's host is judged where the proxy is chosen (issue 27,
    finding 7: it went through unjudged). A refused probe is a probe that did not answer."""
    from linkfix.errors import NetworkDownError

    seen = redirecting_proxy
    async with checker(Config(max_retries=0, timeout=2.0, network_probe=probe, allow_private=allow_private)) as c:
        with pytest.raises(NetworkDownError, match=r"did not answer \((private|metadata)-address"):
            await c.check("http://public.example.test/page")
    assert seen == []  # neither the probe nor the link went to the proxy
    async with checker(Config(max_retries=0, timeout=2.0, network_probe="http://probe.example.test/")) as c:
        result = await c.check("http://public.example.test/page")
    assert seen[0] == "http://probe.example.test/" and set(seen[1:]) == {"http://public.example.test/page"}  # the control
    assert result.status is Status.BROKEN


class FixedResolver:
    """DNS that answers every name with the given addresses (a rebinding attacker's DNS)."""

    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses

    async def resolve(self, host, port=0, family=socket.AF_INET):
        return [{"hostname": host, "host": a, "port": port, "family": socket.AF_INET, "proto": 0, "flags": 0} for a in self.addresses]

    async def close(self):
        return None


async def test_dns_answers_with_forbidden_addresses_are_not_contacted(simweb):
    simweb.add_site(HOST)
    url = simweb.url(HOST, "/ok/page.html")  # a real listener on 127.0.0.1 answers this
    async with checker(Config(max_retries=0), FixedResolver("127.0.0.1")) as c:
        loopback = await c.check(url)
    async with checker(Config(max_retries=0), FixedResolver("93.184.216.34", "127.0.0.1")) as c:
        mixed = await c.check(url)  # one public, one private record: refused as a whole
    async with checker(Config(max_retries=0, allow_private=True), FixedResolver("169.254.169.254")) as c:
        metadata = await c.check(url)
    refused_requests = simweb.stats(HOST).requests
    async with checker(Config(max_retries=0, allow_private=True), FixedResolver("127.0.0.1")) as c:
        allowed = await c.check(url)  # the control: when allowed, the same answer is fetched
    assert (loopback.status, loopback.reason) == (Status.EXCLUDED, "private-address")
    assert (mixed.status, mixed.reason) == (Status.EXCLUDED, "private-address")
    assert (metadata.status, metadata.reason) == (Status.EXCLUDED, "metadata-address")
    assert allowed.status is Status.OK
    assert refused_requests == 0 and simweb.stats(HOST).requests > 0


async def test_literal_forbidden_addresses_are_not_contacted(simweb):
    simweb.add_site(HOST)
    async with checker(Config(max_retries=0), simweb.resolver) as c:
        direct = await c.check(f"http://127.0.0.1:{simweb.port}/ok/page.html")
    async with checker(Config(max_retries=0, allow_private=True), simweb.resolver) as c:
        metadata = await c.check("http://169.254.169.254/latest/meta-data/")
    assert (direct.status, direct.reason) == (Status.EXCLUDED, "private-address")
    assert (metadata.status, metadata.reason) == (Status.EXCLUDED, "metadata-address")
    assert simweb.stats(HOST).requests == 0 and not simweb.unknown_hosts


class SocketRecorder:
    """Stands in for socket creation under the connection guard: records every address a
    connection is asked for; opens loopback ones (the simulated web) and refuses the rest, so
    nothing ever leaves loopback, whatever the code under test does."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, addr_info):
        self.asked.append(addr_info[4][0])
        if not ipaddress.ip_address(addr_info[4][0]).is_loopback:
            raise ConnectionRefusedError(111, "refused by the test's recorder")
        return socket.socket(addr_info[0], addr_info[1], addr_info[2])


NON_ASCII_PRIVATE = ["http://１２７.０.０.１:{port}/ok/page.html", "http://127。0。0。1:{port}/ok/page.html", "http://①②⑦.0.0.1:{port}/ok/page.html"]
NON_ASCII_METADATA = [
    "http://１６９.２５４.１６９.２５４/latest/meta-data/",
    "http://169。254。169。254/latest/meta-data/",
    "http://⑯⑨.254.169.254/latest/meta-data/",
    "http://[2002:a9fe:a9fe::]/latest/meta-data/",  # 6to4 of the metadata address
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
]


async def test_non_ascii_ip_literals_in_links_are_not_contacted(simweb):
    simweb.add_site(HOST)
    recorder = SocketRecorder()
    async with checker(Config(max_retries=0), simweb.resolver, recorder) as c:
        private = [await c.check(url.format(port=simweb.port)) for url in NON_ASCII_PRIVATE]
        site_local = await c.check("http://[fec0::1]/")
    async with checker(Config(max_retries=0, allow_private=True), simweb.resolver, recorder) as c:
        metadata = [await c.check(url) for url in NON_ASCII_METADATA]
        fetched = await c.fetch(NON_ASCII_METADATA[0])
        control = await c.check(simweb.url(HOST, "/ok/page.html"))
    assert [(r.status, r.reason) for r in [*private, site_local]] == [(Status.EXCLUDED, "private-address")] * 4
    assert [(r.status, r.reason) for r in metadata] == [(Status.EXCLUDED, "metadata-address")] * len(NON_ASCII_METADATA)
    assert (fetched.status, fetched.error) == (0, "metadata-address")
    assert control.status is Status.OK and recorder.asked  # the control: the recorder sees connections
    assert set(recorder.asked) == {"127.0.0.1"}  # only the control's


async def test_redirects_to_non_ascii_ip_literals_are_not_followed(simweb):
    targets = {f"/hop/{i}": url for i, url in enumerate(NON_ASCII_METADATA)}

    async def redirect(request):
        target = targets.get(request.path)
        return aioweb.Response(status=302, headers={"Location": target}) if target else None

    simweb.add_site(HOST).mount(redirect)
    recorder = SocketRecorder()
    async with checker(Config(max_retries=0, allow_private=True), simweb.resolver, recorder) as c:
        results = [await c.check(simweb.url(HOST, path)) for path in targets]
    assert [(r.status, r.reason) for r in results] == [(Status.EXCLUDED, "metadata-address")] * len(targets)
    assert [[hop.status for hop in r.redirects] for r in results] == [[302]] * len(targets)  # the hop was seen, not followed
    assert recorder.asked and set(recorder.asked) == {"127.0.0.1"}  # the first hops, nothing else


# -- credentials -----------------------------------------------------------------------------------------
HOST_SECRET = "Bearer host-s3cr3t-7f1c"
GITHUB_SECRET = "ghp_github-s3cr3t-90ab"


async def test_credentials_stay_with_their_host_and_out_of_cache_and_reports(simweb, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_SECRET)
    received: dict[str, list[dict]] = {}

    def recorder(name):
        async def handler(request):
            received.setdefault(name, []).append(dict(request.headers))
            return None  # on to the catalogue

        return handler

    for name in (HOST, OTHER, "api.github.com"):
        simweb.add_site(name).mount(recorder(name))
    to_other = simweb.url(OTHER, "/ok/landing.html")
    project = tmp_path / "docs"
    project.mkdir()
    (project / "index.md").write_text(
        f"- [moved]({simweb.url(HOST, f'/redirect/302/x?to={to_other}')})\n"
        f"- [gone]({simweb.url(HOST, '/status/404/gone.html')})\n"
        "- [repo](https://api.github.com/repos/owner/name)\n",
        encoding="utf-8",
    )
    cache_dir = tmp_path / "cache"
    cfg = Config(
        allow_private=True, max_retries=0, cache_dir=str(cache_dir), suggest=True, archive=[], search=[{"provider": "site"}],
        hosts={HOST: {"headers": {"Authorization": HOST_SECRET}}},
        remap=[rf"^https://api\.github\.com/ http://api.github.com:{simweb.port}/"],
    )
    report = await run_check([str(project)], cfg, resolver=simweb.resolver)
    assert len(report.results) == 3
    # the host's own header went to it, and to nobody else; the token never over plain http
    assert received[HOST] and all(h.get("Authorization") == HOST_SECRET for h in received[HOST])
    assert received[OTHER] and all("Authorization" not in h for h in received[OTHER])
    assert received["api.github.com"] and all("Authorization" not in h for h in received["api.github.com"])
    # nothing secret kept on disk or written into any report
    files = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert files  # the control: the cache was written
    for path in files:
        data = path.read_bytes()
        assert b"s3cr3t" not in data, path
    for name, formatter in FORMATS.items():
        assert "s3cr3t" not in formatter(report), name


# -- size caps -------------------------------------------------------------------------------------------
async def test_response_bodies_are_read_up_to_a_cap(simweb):
    simweb.add_site(HOST)
    big = simweb.url(HOST, "/big?mb=200")
    tracemalloc.start()
    try:
        async with checker(Config(allow_private=True, max_retries=0, timeout=10.0), simweb.resolver) as c:
            fragment = await c.check(big, fragment="section")  # a GET that reads the page for ids
            fetched = await c.fetch(big, max_bytes=MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fetched.status == 200 and len(fetched.text) == MIB
    assert fragment.status in (Status.OK, Status.BROKEN)  # a verdict, not an error: the body was cut, not failed
    assert peak < 4 * PAGE_BYTES  # 200 MiB offered; a few times the 8 MiB page cap held at most


# -- report escaping -------------------------------------------------------------------------------------
INJECTIONS = (
    "::error::pwned",
    "%0A::warning file=x::pwned",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "[x](javascript:alert(3))",
    "\x1b]8;;http://evil.test\x07link\x1b[2J",
)
HOSTILE = " ".join(INJECTIONS)


def _hostile_report() -> Report:
    """A report whose fetched fields (detail, candidate URL and evidence, final URL, archived
    title) all carry the injections, as a hostile server or search result would make them."""
    from linkfix.model import Archived, Redirect

    text = "# Doc\n\nSee [the manual](http://old.test/manual) now.\n"
    start = text.index("http://old.test/manual")
    span = Span(path="doc.md", line=3, column=18, start=start, end=start + 22)
    link = Link(url="http://old.test/manual", kind=LinkKind.INLINE, span=span, page=Page(path="doc.md", title="Doc"), anchor_text="the manual")
    hostile_url = "https://new.test/x?q=" + HOSTILE.replace(" ", "%20")
    return Report(
        results=(
            LinkResult(
                link=link,
                resolved=link.url,
                scope=Scope.EXTERNAL,
                result=CheckResult(
                    url=link.url, status=Status.BROKEN, reason="404", detail=HOSTILE, http_status=404,
                    redirects=(Redirect(url=link.url, status=301, location=HOSTILE),), final_url=HOSTILE,
                ),
                suggestions=(
                    Candidate(url=hostile_url, confidence=0.95, method="search", evidence={"title": HOSTILE, "query": HOSTILE}),
                    Candidate(url="javascript:alert(4)", confidence=0.5, method="search", evidence={"title": HOSTILE}),
                ),
                archived=Archived(url="https://web.archive.org/web/2020/http://old.test/manual", datetime="2020-01-01T00:00:00Z", title=HOSTILE),
            ),
        ),
        files=1,
        errors=(f"doc.md: {HOSTILE}",),
    )


def test_fetched_strings_are_escaped_in_every_report_format():
    report = _hostile_report()
    outputs = {name: formatter(report) for name, formatter in FORMATS.items()}
    assert set(outputs) >= {"text", "json", "markdown", "html", "sarif", "junit", "github"}
    for name in ("text", "markdown", "github"):  # printed to terminals and CI logs, which obey escapes
        assert "\x1b" not in outputs[name] and "\x07" not in outputs[name], f"{name}: terminal escape passed through"

    # github: one workflow command per line, none injected; %0A must not decode to a newline
    for line in outputs["github"].splitlines():
        assert line.startswith("::") and not line.startswith(("::warning file=x", "::error::pwned")), line
    assert "%0A::warning" not in outputs["github"] and "%250A::warning" in outputs["github"]

    # html: the hostile strings are text, never markup
    tree = lxml_html.fromstring(outputs["html"])
    assert not [s for s in tree.iter("script") if "alert" in (s.text or "")]
    assert not tree.xpath("//*[@onerror]")
    assert not [a for a in tree.iter("a") if a.get("href", "").strip().lower().startswith("javascript:")]
    assert "<script>alert(1)</script>" not in outputs["html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in outputs["html"]  # the control: it is there, as text

    # markdown (rendered as GitHub would, raw HTML on): no script, no handler, no javascript: link
    assert "&lt;script&gt;alert" in outputs["markdown"]
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(outputs["markdown"])
    doc = lxml_html.fromstring(f"<div>{rendered}</div>")
    assert not list(doc.iter("script")) and not doc.xpath("//*[@onerror]")
    assert not [a for a in doc.iter("a") if a.get("href", "").strip().lower().startswith("javascript:")]

    # machine formats: well-formed, and the strings survive as data
    assert HOSTILE.replace("\x1b", "").replace("\x07", "")[:20] in json.dumps(json.loads(outputs["json"]), ensure_ascii=False)
    json.loads(outputs["sarif"])
    junit = etree.fromstring(outputs["junit"].encode("utf-8"))
    assert not list(junit.iter("script"))


# Bidirectional controls (Trojan Source), separators and NEL: a viewer acts on them, so the
# formats people read show them escaped, wherever in a link they come from.
REORDERING = "\u202e\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029\x85\x1b"


def _reordering_report() -> Report:
    odd = "evil\u202egnp.\u2066\x1b[2J.md"
    span = Span(path=f"docs/{odd}", line=1, column=2, start=1, end=20)
    page = Page(path=span.path, title="title\u202e\u2029x")
    link = Link(url=f"https://a.test/\u202e{odd}\u2028\x85", kind=LinkKind.INLINE, span=span, page=page, anchor_text="a\u2067b")
    result = CheckResult(url=link.url, status=Status.BROKEN, reason="404\u200f", detail="gone \u202d\u2068 \u061c\u200e")
    suggestion = Candidate(url="https://b.test/\u202eexe.txt", confidence=0.9, method="search\u202b\u202c")
    item = LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=result, suggestions=(suggestion,))
    return Report(results=(item,), files=1, errors=(f"docs/{odd}: \u2069not UTF-8",))


@pytest.mark.parametrize("name", ["text", "markdown", "github"])
def test_bidi_controls_and_separators_are_escaped_where_people_read(name):
    out = FORMATS[name](_reordering_report())
    assert not set(out) & set(REORDERING), sorted(hex(ord(c)) for c in set(out) & set(REORDERING))
    assert "\\u202e" in out


def _linkfix(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a child process whose stdout is strict UTF-8, as on a UTF-8 terminal or pipe
    (C.UTF-8 would make Python escape surrogates itself and hide the crash)."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "linkfix", *args], cwd=cwd, env=env, capture_output=True, timeout=120)


def test_log_lines_on_stderr_are_escaped(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "evil\u202e\x1b[2J\u2028x.md").write_bytes(b"\xff\xfe [a](b.md)\n")  # not UTF-8: logged
    done = _linkfix(["check", "docs", "--offline"], tmp_path)
    err = done.stderr.decode("utf-8")
    assert "not valid UTF-8" in err and "Traceback" not in err
    assert "docs/evil\\u202e\\x1b[2J\\u2028x.md" in err
    assert not set(err) & set(REORDERING)


def test_error_messages_are_escaped(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "gone\u202e\x1b[2J.json"]) == 2
    err = capsys.readouterr().err
    assert "gone\\u202e\\x1b[2J.json: cannot read" in err and "\x1b" not in err


ODD_NAME = b"docs/\xff\xfe.md"  # not UTF-8: os.fsdecode gives "docs/\udcff\udcfe.md"


@pytest.fixture
def odd_project(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / os.fsdecode(ODD_NAME)).write_text("# Odd\n\n[gone](missing.md)\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("[odd](\u00ff\u00fe.md) [also](missing.md)\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["text", "json", "markdown", "html", "sarif", "junit", "github"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(odd_project, name):
    # The same format twice: to a file and to stdout.
    done = _linkfix(["check", "docs", "--offline", "-f", f"{name},{name}", "-o", f"out.{name}", "-o", "-"], odd_project)
    assert done.returncode == 1, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    written = (odd_project / f"out.{name}").read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert done.stdout.decode("utf-8") == written
    if name == "json":
        files = {link["file"] for link in json.loads(written)["links"]}
        assert os.fsdecode(ODD_NAME) in files  # exactly the name: `fix --from` finds the file
        assert '"file": "docs/\\udcff\\udcfe.md"' in written
    elif name == "sarif":
        assert '"uri": "docs/%FF%FE.md"' in written  # the file's bytes, percent-encoded
    elif name == "markdown":
        assert "docs/\\\\xff\\\\xfe.md" in written  # shown escaped, the backslash escaped for markdown
    else:
        assert "docs/\\xff\\xfe.md" in written  # shown escaped, byte by byte


def test_fix_from_a_result_finds_a_file_whose_name_is_not_utf8(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"\xff.md")
    text = "# Doc\n\nSee [the manual](http://old.test/manual) now.\n"
    (tmp_path / name).write_text(text, encoding="utf-8")
    _saved_result(tmp_path, name, text)
    assert "\\udcff.md" in (tmp_path / "result.json").read_text(encoding="utf-8")
    assert main(["report", "result.json", "-f", "text"]) == 0
    assert "\\xff.md:3:18  BROKEN" in capsys.readouterr().out
    assert main(["fix", "--from", "result.json"]) == 1, capsys.readouterr().err
    assert (tmp_path / name).read_text(encoding="utf-8") == text.replace("http://old.test/manual", "https://new.test/manual/")


# -- path safety -----------------------------------------------------------------------------------------
async def test_links_cannot_read_outside_the_project_root(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n\n<a id='token'></a>\n", encoding="utf-8")
    project = tmp_path / "site" / "docs"
    project.mkdir(parents=True)
    (project / "index.md").write_text(
        "- [a](../secret.md)\n- [b](../../secret.md#token)\n- [c](../../../../../../../etc/passwd)\n- [d](/../secret.md)\n",
        encoding="utf-8",
    )
    report = await run_check([str(project)], Config(offline=True))
    assert [(r.result.status, r.result.reason) for r in report.results] == [(Status.BROKEN, "outside-root")] * 4


async def test_an_explicit_root_dir_is_the_root(tmp_path):
    elsewhere = tmp_path / "published"
    elsewhere.mkdir()
    (elsewhere / "page.md").write_text("# Page\n", encoding="utf-8")
    project = tmp_path / "docs"
    project.mkdir()
    (project / "index.md").write_text("- [p](/page.md)\n- [up](/../docs/index.md)\n", encoding="utf-8")
    report = await run_check([str(project)], Config(offline=True, root_dir=str(elsewhere)))
    # root-relative links resolve in the configured root, and still cannot climb out of it
    assert report.results[0].result.status is Status.OK
    assert report.results[1].result.reason == "outside-root"


def _saved_result(root: Path, name: str, text: str) -> None:
    start = text.index("http://old.test/manual")
    span = Span(path=name, line=3, column=18, start=start, end=start + 22)
    link = Link(url="http://old.test/manual", kind=LinkKind.INLINE, span=span, page=Page(path=name), anchor_text="the manual")
    item = LinkResult(
        link=link, resolved=link.url, scope=Scope.EXTERNAL,
        result=CheckResult(url=link.url, status=Status.BROKEN, reason="404", http_status=404),
        suggestions=(Candidate(url="https://new.test/manual/", confidence=0.99, method="same-site"),),
    )
    (root / "result.json").write_text(format_json(Report(results=(item,), files=1)), encoding="utf-8")


@pytest.mark.parametrize("how", ["file-symlink", "dir-symlink", "dotdot"])
def test_fix_never_writes_outside_the_project(tmp_path, monkeypatch, capsys, how):
    text = "# Doc\n\nSee [the manual](http://old.test/manual) now.\n"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "doc.md").write_text(text, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    if how == "file-symlink":
        (project / "doc.md").symlink_to(outside / "doc.md")
        name = "doc.md"
    elif how == "dir-symlink":
        (project / "sub").symlink_to(outside, target_is_directory=True)
        name = "sub/doc.md"
    else:
        name = "../outside/doc.md"
    _saved_result(project, name, text)
    monkeypatch.chdir(project)
    code = main(["fix", "--from", "result.json"])
    assert code == 2, capsys.readouterr()
    assert "outside the project root" in capsys.readouterr().err
    assert (outside / "doc.md").read_text(encoding="utf-8") == text
    assert not list(outside.glob(".*linkfix-tmp"))


# -- fix edits link targets of documentation files, nothing else ------------------------------------------
OLD_URL = "http://old.test/manual"


def _crafted_result(root: Path, name: str, text: str, *, nth: int = 0) -> None:
    """A saved result pointing at the `nth` occurrence of OLD_URL in `name`, whatever it is."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(OLD_URL, start + 1)
    line = text.count("\n", 0, start) + 1
    span = Span(path=name, line=line, column=start - text.rfind("\n", 0, start), start=start, end=start + len(OLD_URL))
    link = Link(url=OLD_URL, kind=LinkKind.INLINE, span=span, page=Page(path=name), anchor_text="x")
    item = LinkResult(
        link=link, resolved=OLD_URL, scope=Scope.EXTERNAL,
        result=CheckResult(url=OLD_URL, status=Status.BROKEN, reason="404", http_status=404),
        suggestions=(Candidate(url="https://evil.test/payload", confidence=0.99, method="same-site"),),
    )
    (root / "result.json").write_text(format_json(Report(results=(item,), files=1)), encoding="utf-8")


NOT_LINK_TARGETS = {
    # not documentation at all
    ".git/config": f'[remote "origin"]\n\turl = {OLD_URL}\n',
    ".github/workflows/ci.yml": f"jobs:\n  build:\n    steps:\n      - run: curl -s {OLD_URL} | sh\n",
    "tool.py": f'import os\nos.system("curl {OLD_URL}")\n',
    # documentation, but a markdown file under a directory linkfix never reads
    ".git/notes.md": f"[m]({OLD_URL})\n",
    "node_modules/pkg/README.md": f"[m]({OLD_URL})\n",
    # documentation, at places that are not link targets
    "code-block.md": f"# Doc\n\n```sh\ncurl {OLD_URL}\n```\n",
    "inline-code.md": f"# Doc\n\nRun `curl {OLD_URL}` first.\n",
    "anchor-text.md": f"# Doc\n\n[{OLD_URL}](https://kept.test/)\n",
    "comment.html": f"<p>x</p>\n<!-- {OLD_URL} -->\n",
    "html-text.html": f"<p>Visit {OLD_URL} today</p>\n",
}


@pytest.mark.parametrize("how", ["from", "apply"])
@pytest.mark.parametrize("name", sorted(NOT_LINK_TARGETS))
def test_fix_refuses_what_is_not_a_link_target_of_a_documentation_file(tmp_path, monkeypatch, capsys, name, how):
    text = NOT_LINK_TARGETS[name]
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    _crafted_result(tmp_path, name, text)
    if how == "apply":
        item = json.loads((tmp_path / "result.json").read_text())["links"][0]
        decisions = {"schema": "https://linkfix.dev/schema/decisions-1.json", "version": 1, "decisions": [{
            "file": name, "line": item["line"], "column": item["column"], "start": item["start"], "end": item["end"],
            "url": OLD_URL, "kind": "inline", "tag": "", "replacement": "https://evil.test/payload", "decision": "accept",
        }]}
        (tmp_path / "decisions.json").write_text(json.dumps(decisions), encoding="utf-8")
        argv = ["fix", "--apply", "decisions.json"]
    else:
        argv = ["fix", "--from", "result.json"]
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "refused" in err and name in err
    assert target.read_text(encoding="utf-8") == text
    assert not list(target.parent.glob(".*linkfix-tmp"))


def test_fix_edits_the_link_and_refuses_the_code_sample_in_one_file(tmp_path, monkeypatch, capsys):
    text = f"# Doc\n\nSee [the manual]({OLD_URL}).\n\n```sh\ncurl {OLD_URL}\n```\n"
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    _crafted_result(tmp_path, "doc.md", text, nth=0)
    first = json.loads((tmp_path / "result.json").read_text())
    _crafted_result(tmp_path, "doc.md", text, nth=1)
    second = json.loads((tmp_path / "result.json").read_text())
    first["links"] += second["links"]
    (tmp_path / "result.json").write_text(json.dumps(first), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--from", "result.json"]) == 2
    err = capsys.readouterr().err
    assert "doc.md:6: " in err and "not a link target" in err
    assert (tmp_path / "doc.md").read_text(encoding="utf-8") == text.replace(OLD_URL, "https://evil.test/payload", 1)


@pytest.mark.parametrize("points_to", [".git/config", "tool.py"])
def test_fix_refuses_a_documentation_name_that_links_to_something_else(tmp_path, monkeypatch, capsys, points_to):
    text = f"[m]({OLD_URL})\n"
    real = tmp_path / points_to
    real.parent.mkdir(parents=True, exist_ok=True)
    real.write_text(text, encoding="utf-8")
    (tmp_path / "doc.md").symlink_to(real)
    _crafted_result(tmp_path, "doc.md", text)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--from", "result.json"]) == 2
    assert "refused" in capsys.readouterr().err
    assert real.read_text(encoding="utf-8") == text


# -- fix keeps a file's owner, and leaves read-only files alone unless asked ------------------------------
def _one_link_project(root: Path) -> tuple[Path, str]:
    text = f"# Doc\n\nSee [the manual]({OLD_URL}) now.\n"
    path = root / "doc.md"
    path.write_text(text, encoding="utf-8")
    _crafted_result(root, "doc.md", text)
    return path, text


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root")
def test_fix_run_as_root_keeps_the_files_owner(tmp_path, monkeypatch):
    path, _ = _one_link_project(tmp_path)
    os.chown(path, 1000, 1000)
    path.chmod(0o640)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--from", "result.json"]) == 1
    assert "https://evil.test/payload" in path.read_text(encoding="utf-8")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1000, 1000, 0o640)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root")
def test_fix_says_so_and_writes_nothing_when_the_owner_cannot_be_kept(tmp_path, monkeypatch, capsys):
    path, text = _one_link_project(tmp_path)
    os.chown(path, 1000, 1000)

    def refused(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refused)  # e.g. root squashed on a network file system
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--from", "result.json"]) == 2
    assert "doc.md: cannot write: cannot keep its owner 1000:1000" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text and path.stat().st_uid == 1000
    assert not list(tmp_path.glob(".*linkfix-tmp"))


def test_fix_refuses_read_only_files_unless_asked(tmp_path, monkeypatch, capsys):
    path, text = _one_link_project(tmp_path)
    path.chmod(0o444)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--from", "result.json"]) == 2
    err = capsys.readouterr().err
    assert "doc.md" in err and "read-only" in err and "--rewrite-read-only" in err
    assert path.read_text(encoding="utf-8") == text
    assert main(["fix", "--from", "result.json", "--dry-run"]) == 2  # a dry run says so too
    assert "read-only" in capsys.readouterr().err

    assert main(["fix", "--from", "result.json", "--rewrite-read-only"]) == 1
    assert "https://evil.test/payload" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o444  # and it stays read-only


# -- fix --update-redirects writes only what a request saw ----------------------------------------------
async def test_fix_update_redirects_writes_no_redirect_the_cache_alone_holds(tmp_path):
    """A cache record is input (issue 27, finding 8: a poisoned `final_url` was written into the
    docs): a cached permanent redirect is asked again, with the checker's rules and no cache,
    and what that request sees is what `fix --update-redirects` writes."""
    import asyncio
    import time

    from linkfix.model import Redirect

    seen: list[str] = []

    async def handle(request):
        seen.append(request.path)
        if request.path == "/moved":
            return aioweb.Response(status=301, headers={"Location": "/new"})
        if request.path in ("/new", "/stays"):
            return aioweb.Response(text=f"<html><head><title>{request.path}</title></head><body>here</body></html>", content_type="text/html")
        return aioweb.Response(status=404, text="not found")

    runner = aioweb.ServerRunner(aioweb.Server(handle))
    await runner.setup()
    site = aioweb.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    try:
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "index.md").write_text(f"# Home\n\n[moved]({base}/moved) and [stays]({base}/stays)\n", encoding="utf-8")
        with Cache(tmp_path / "cache") as cache:  # what a poisoned cache directory says about both
            for path in ("/moved", "/stays"):
                hop = Redirect(url=base + path, status=301, location="https://attacker.example/landing")
                cache.put_result(base + path, CheckResult(url=base + path, status=Status.REDIRECTED, redirects=(hop,), permanent=True,
                                                          final_url="https://attacker.example/landing", checked_at=time.time()))
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "linkfix", "fix", "docs", "--update-redirects", "--allow-private", "--cache-dir", "cache",
            "--archive", "[]", "--search", "[]", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        await runner.cleanup()
    text = (tmp_path / "docs" / "index.md").read_text(encoding="utf-8")
    assert "attacker.example" not in text, err.decode()
    assert text == f"# Home\n\n[moved]({base}/new) and [stays]({base}/stays)\n", err.decode()  # what the requests saw
    assert process.returncode == 1 and {"/moved", "/stays"} <= set(seen)
