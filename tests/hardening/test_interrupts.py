"""Interrupted runs: `linkfix check` stopped by SIGINT/SIGTERM mid-check, `linkfix fix` killed
at random points mid-write. The cache must still open and serve the next run; every source
file must be either its old or its new content, and no temporary file may be left behind.

The CLI runs as a real subprocess (`python -m linkfix`), against the simulated web served by
the test's own event loop on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from pathlib import Path

import pytest

from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.report.json_format import format_json
from linkfix.store.cache import Cache
from linkfix_simweb import SimWeb

REPO = Path(__file__).resolve().parents[2]
N_URLS = 40
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")])), "CI": "1"}


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as for a background job (`cmd &` in a script)


def _default_sigint() -> None:
    # as from a terminal, even when these tests themselves run as a background job (which
    # inherits an ignored SIGINT, and so would every linkfix started here)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def _linkfix(*argv: str, cwd: Path, sigint_ignored: bool = False) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "linkfix", *argv, cwd=cwd, env=ENV,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=_ignore_sigint if sigint_ignored else _default_sigint,
    )


async def _wait_for(condition, *, limit: float = 20.0) -> None:
    """Poll `condition` (bounded: a broken product fails the test instead of hanging it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
async def slow_web():
    """One host on 127.0.0.1 (no DNS needed by the subprocess), 0.15 s per answer."""
    web = SimWeb(latency=0.15)
    web.add_site("127.0.0.1")
    async with web:
        yield web


def _docs(tmp_path: Path, web: SimWeb) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    links = "\n".join(f"- [page {i}]({web.url('127.0.0.1', f'/ok/p{i}.html')})" for i in range(N_URLS))
    (docs / "index.md").write_text(f"# Links\n\n{links}\n", encoding="utf-8")
    return docs


def _check_argv(docs: Path, cache_dir: Path) -> list[str]:
    return [
        "check", str(docs), "--allow-private", "--cache-dir", str(cache_dir), "--host-concurrency", "2",
        "--timeout", "5", "--format", "json", "--output", str(docs.parent / "report.json"),
    ]


@pytest.mark.parametrize(
    ("signum", "sigint_ignored", "code", "message"),
    [
        (signal.SIGINT, False, 130, "interrupted"),
        (signal.SIGTERM, False, 143, "terminated"),
        (signal.SIGTERM, True, 143, "terminated"),  # SIGTERM must not inherit an ignored SIGINT
    ],
)
async def test_check_stopped_mid_run_leaves_a_usable_cache(slow_web, tmp_path, signum, sigint_ignored, code, message):
    docs, cache_dir = _docs(tmp_path, slow_web), tmp_path / "cache"
    process = await _linkfix(*_check_argv(docs, cache_dir), cwd=tmp_path, sigint_ignored=sigint_ignored)
    # stop it once a few URLs are done and others are in flight
    await _wait_for(lambda: slow_web.stats("127.0.0.1").requests >= 16)
    process.send_signal(signum)
    _, err = await asyncio.wait_for(process.communicate(), 20)
    stderr = err.decode()
    assert process.returncode == code, stderr
    assert f"linkfix: {message}" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "report.json").exists()  # no report pretending the run was complete
    first_requests = slow_web.stats("127.0.0.1").requests
    assert first_requests < N_URLS  # it really was stopped mid-run

    with Cache(cache_dir) as cache:  # the cache opens, and holds what the first run finished
        cached = [i for i in range(N_URLS) if cache.get_result(slow_web.url("127.0.0.1", f"/ok/p{i}.html")) is not None]
    assert 0 < len(cached) < N_URLS

    slow_web.reset_stats()
    slow_web.latency = 0.0  # the second run need not be slow
    process = await _linkfix(*_check_argv(docs, cache_dir), cwd=tmp_path)
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    report = json.loads((tmp_path / "report.json").read_text())
    statuses = [link["status"] for link in report["links"]]
    assert statuses == ["ok"] * N_URLS
    # the second run asked only for what the first did not finish
    asked = slow_web.stats("127.0.0.1").paths
    assert all(asked[f"/ok/p{i}.html"] == 0 for i in cached)
    assert all(asked[f"/ok/p{i}.html"] > 0 for i in range(N_URLS) if i not in cached)


# -- fix ---------------------------------------------------------------------------------------------
N_FILES = 100
OLD, NEW = "http://old.test/manual", "https://new.test/manual/"


def _fix_project(root: Path) -> dict[str, tuple[bytes, bytes]]:
    """N_FILES markdown files of ~64 KiB, one broken link each, and a saved result that fixes them
    all. Returns {name: (old bytes, new bytes)}."""
    filler = ("Lorem ipsum dolor sit amet. " * 40 + "\n\n") * 55
    items, expected = [], {}
    for i in range(N_FILES):
        name = f"doc{i:03}.md"
        text = f"# Doc {i}\n\nSee [the manual]({OLD}) now.\n\n{filler}"
        (root / name).write_text(text, encoding="utf-8")
        start = text.index(OLD)
        span = Span(path=name, line=3, column=18, start=start, end=start + len(OLD))
        link = Link(url=OLD, kind=LinkKind.INLINE, span=span, page=Page(path=name), anchor_text="the manual")
        items.append(LinkResult(
            link=link, resolved=OLD, scope=Scope.EXTERNAL,
            result=CheckResult(url=OLD, status=Status.BROKEN, reason="404", http_status=404),
            suggestions=(Candidate(url=NEW, confidence=0.99, method="same-site"),),
        ))
        expected[name] = (text.encode(), text.replace(OLD, NEW, 1).encode())
    (root / "result.json").write_text(format_json(Report(results=tuple(items), files=N_FILES)), encoding="utf-8")
    return expected


def _states(root: Path, expected: dict[str, tuple[bytes, bytes]]) -> tuple[int, int]:
    """(old, new) file counts; fails on any file that is neither."""
    old = new = 0
    for name, (before, after) in expected.items():
        data = (root / name).read_bytes()
        assert data in (before, after), f"{name} is half-written ({len(data)} bytes)"
        old += data == before
        new += data == after
    return old, new


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.endswith(".linkfix-tmp"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
async def test_fix_killed_at_random_points_never_half_writes(tmp_path, signum):
    rng = random.Random(f"fix-{signum}")  # reproducible "random" kill points
    expected = _fix_project(tmp_path)
    stopped_mid_way = 0
    for _ in range(3):
        done_before = _states(tmp_path, expected)[1]
        process = await _linkfix("fix", "--from", "result.json", cwd=tmp_path)
        # wait until this run is writing (one more file changed), then a random short delay
        await _wait_for(lambda before=done_before, running=process: _states(tmp_path, expected)[1] > before or running.returncode is not None)
        await asyncio.sleep(rng.uniform(0.0, 0.05))
        if process.returncode is None:
            process.send_signal(signum)
        _, err = await asyncio.wait_for(process.communicate(), 20)
        assert "Traceback" not in err.decode()
        _, new = _states(tmp_path, expected)  # every file old or new, never torn
        stopped_mid_way += 0 < new < N_FILES
        if signum != signal.SIGKILL:
            assert _leftovers(tmp_path) == []  # an orderly stop cleans its temporary file
        if new == N_FILES:
            break
        # next round: the saved result still holds for the files not yet fixed (the fixed ones
        # are refused as changed since the check)
    assert stopped_mid_way > 0  # the kill did land in the middle at least once
    # the next, uninterrupted run finishes the job
    process = await _linkfix("fix", "--from", "result.json", cwd=tmp_path)
    await asyncio.wait_for(process.communicate(), 30)
    assert _states(tmp_path, expected) == (0, N_FILES)
    assert _leftovers(tmp_path) == []  # a SIGKILL's temporary file is swept by the next write


# -- the same guarantees, deterministically (no timing involved) -----------------------------------------
def _one_edit(root: Path) -> tuple[Path, list, str]:
    from linkfix.fix.patch import Edit, digest_bytes

    text = f"# Doc\n\nSee [the manual]({OLD}) now.\n"
    path = root / "doc.md"
    path.write_text(text, encoding="utf-8")
    start = text.index(OLD)
    span = Span(path="doc.md", line=3, column=18, start=start, end=start + len(OLD))
    return path, [Edit(span=span, old=OLD, new=NEW)], digest_bytes(text.encode())


@pytest.mark.parametrize("stage", ["fsync", "replace"])
def test_interrupt_inside_the_atomic_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, stage):
    from linkfix.fix import patch

    path, edits, digest = _one_edit(tmp_path)
    before = path.read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(patch.os, stage, interrupted)  # Ctrl-C arriving at that exact call
    with pytest.raises(KeyboardInterrupt):
        patch.apply_file_edits(path, edits, expected_digest=digest, root=tmp_path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_temp_file_left_by_a_killed_run_is_swept_by_the_next_write(tmp_path):
    from linkfix.fix import patch

    path, edits, digest = _one_edit(tmp_path)
    stale = tmp_path / ".doc.md.0badc0ffee42.linkfix-tmp"  # what SIGKILL between write and rename leaves
    stale.write_bytes(b"half")
    unrelated = tmp_path / ".other.md.0badc0ffee42.linkfix-tmp"  # another file's: not this write's business
    unrelated.write_bytes(b"half")
    longer = tmp_path / ".doc.md.orig.0badc0ffee42.linkfix-tmp"  # nor is doc.md.orig's (same prefix)
    longer.write_bytes(b"half")
    assert patch.apply_file_edits(path, edits, expected_digest=digest, root=tmp_path)
    assert NEW in path.read_text(encoding="utf-8")
    assert _leftovers(tmp_path) == sorted([unrelated.name, longer.name])


def _report_leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != "report.json")


@pytest.mark.parametrize("stage", ["fsync", "replace"])
@pytest.mark.parametrize("signal_exception", [KeyboardInterrupt, SystemExit])
def test_interrupt_while_a_report_is_written_leaves_the_old_report_and_no_temp(tmp_path, monkeypatch, stage, signal_exception):
    from linkfix.report.files import write_report_file

    report = tmp_path / "report.json"
    report.write_text('{"old": true}\n', encoding="utf-8")

    def interrupted(*args, **kwargs):
        raise signal_exception

    monkeypatch.setattr(os, stage, interrupted)  # Ctrl-C (or SIGTERM's exit) arriving at that exact call
    with pytest.raises(signal_exception):
        write_report_file(report, '{"new": true}\n')
    monkeypatch.undo()
    assert report.read_text(encoding="utf-8") == '{"old": true}\n'
    assert _report_leftovers(tmp_path) == []


def test_interrupt_while_a_report_streams_leaves_the_old_report_and_no_temp(tmp_path):
    from linkfix.report.files import write_report_file

    report = tmp_path / "report.json"
    report.write_text('{"old": true}\n', encoding="utf-8")

    def pieces():
        yield b'{"links": ['
        raise KeyboardInterrupt  # Ctrl-C while a streamed format is still rendering

    with pytest.raises(KeyboardInterrupt):
        write_report_file(report, pieces())
    assert report.read_text(encoding="utf-8") == '{"old": true}\n'
    assert _report_leftovers(tmp_path) == []


def test_report_temp_file_left_by_a_killed_run_is_swept_by_the_next_write(tmp_path):
    from linkfix.report.files import write_report_file

    stale = tmp_path / ".report.json.0123456789ab.linkfix-tmp"
    stale.write_text("half", encoding="utf-8")
    write_report_file(tmp_path / "report.json", "{}\n")
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == "{}\n"
    assert _report_leftovers(tmp_path) == []


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line mentions `text` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="looks for leftover processes in /proc")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
async def test_stopped_while_a_worker_parses_leaves_no_process_behind(slow_web, tmp_path, signum, code):
    from linkfix.extract.worker import MIN_FILES

    docs = tmp_path / "many-docs"
    docs.mkdir()
    for i in range(MIN_FILES * 20):  # enough parsing that the signal lands while it goes on
        links = "\n".join(f"- [p{i}-{j}]({slow_web.url('127.0.0.1', f'/ok/{i}/{j}.html')}) and *more* text" for j in range(30))
        (docs / f"page-{i:04d}.md").write_text(f"# Page {i}\n\n{links}\n", encoding="utf-8")
    process = await _linkfix(*_check_argv(docs, tmp_path / "cache"), cwd=tmp_path)
    await _wait_for(lambda: slow_web.stats("127.0.0.1").requests >= 1)
    process.send_signal(signum)
    _, err = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == code, err.decode()
    assert "Traceback" not in err.decode()
    await _wait_for(lambda: not _processes_mentioning(str(docs)), limit=10)


# -- a page that holds the event loop (issue 27, finding 6: SIGTERM took effect after 286 s) -----------------
def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (Linux /proc), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _end_left_behind(process: asyncio.subprocess.Process) -> None:
    """A run that did not stop, and its workers, are not left behind."""
    if process.returncode is None:
        for pid in _children(process.pid):
            os.kill(pid, signal.SIGKILL)
        process.kill()
        await process.wait()


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


async def _cpu_after(pids: list[int], running: asyncio.Task) -> dict[int, float]:
    """The CPU time each of `pids` had when last seen, watched until each is gone and `running` is done."""
    last = {pid: _cpu_seconds(pid) for pid in pids}
    while not running.done() or any(Path(f"/proc/{pid}").exists() for pid in last):
        last = {pid: max(seconds, _cpu_seconds(pid)) for pid, seconds in last.items()}
        await asyncio.sleep(0.01)
    return last


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="watches the run's CPU time in /proc")
@pytest.mark.parametrize("where", ["in-process", "worker", "offline-workers"])
async def test_sigterm_stops_a_run_promptly_while_a_hostile_page_renders(tmp_path, where):
    """A page of a million `[` keeps Python-Markdown busy for its whole bound (15 s of CPU here).
    SIGTERM stops the run at once all the same: in this process the signal is delivered again
    when the event loop does not run, and an extraction worker is killed, not waited for.
    Measured in CPU time, which a busy machine does not stretch: after the signal the renderer
    and the run use a fraction of a second of it, where waiting would use the rest of the bound."""
    from linkfix.extract.worker import MIN_FILES

    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    for i in range(0 if where == "in-process" else MIN_FILES):
        (docs / f"page-{i:03d}.md").write_text(f"# Page {i}\n\n[next](page-{i + 1:03d}.md)\n", encoding="utf-8")
    (docs / "zz-slow.md").write_text("# Slow\n\n" + "[" * 1_000_000 + "\n", encoding="utf-8")
    # Few files are parsed in-process; many, in a worker (online) or in workers (offline).
    argv = ["check", "mkdocs.yml", "--no-cache"] if where == "in-process" else ["check", "mkdocs.yml", "--cache-dir", "cache"]
    process = await _linkfix(*argv, "--timeout=5" if where == "worker" else "--offline", cwd=tmp_path)

    def renderers() -> list[int]:  # the page is being rendered: CPU time well past start-up, in the process doing it
        if where == "in-process":
            return [process.pid] if _cpu_seconds(process.pid) > 3.0 else []
        return [child for child in _children(process.pid) if _cpu_seconds(child) > 1.0]

    try:
        await _wait_for(renderers, limit=120)
        before = {pid: _cpu_seconds(pid) for pid in sorted({process.pid, *renderers()})}
        process.send_signal(signal.SIGTERM)
        running = asyncio.ensure_future(process.communicate())
        after = await asyncio.wait_for(_cpu_after(list(before), running), 120)  # a bound for a hang, not for promptness
        _, err = running.result()
    finally:
        await _end_left_behind(process)
    spent = {pid: round(after[pid] - before[pid], 2) for pid in before}
    assert all(seconds < 4.0 for seconds in spent.values()), f"CPU seconds after SIGTERM: {spent}"
    assert process.returncode == 143, err.decode()
    assert "linkfix: terminated" in err.decode() and "Traceback" not in err.decode()
    await _wait_for(lambda: not _processes_mentioning(str(tmp_path)), limit=10)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="watches the run's worker processes in /proc")
async def test_sigterm_stops_an_offline_run_while_its_workers_send_large_pages(tmp_path):
    """An offline check of many large pages reads them in worker processes, whose answers are
    larger than a pipe holds. A worker ended while it sent one left half a message in the pipe,
    and the run then waited for the rest for ever (python3.11-doc, SIGTERM): the run closes its
    own end of that pipe, so that its reader sees the end once the killed workers' ends are gone."""
    from linkfix.extract.worker import MIN_FILES

    site = tmp_path / "site"
    site.mkdir()
    links = "\n".join(f'<p><a href="p{j % 50}.html#s{j}">section {j} of the guide</a></p>' for j in range(3000))
    for i in range(MIN_FILES * 4):
        (site / f"p{i}.html").write_text(f"<html><body><h1 id='s{i}'>Page {i}</h1>\n{links}\n</body></html>\n", encoding="utf-8")
    for attempt in range(3):  # the signal at a few points of the run
        process = await _linkfix("check", str(site), "--offline", "--no-cache", cwd=tmp_path)
        try:
            busy = 0.2 * (attempt + 1)
            await _wait_for(lambda pid=process.pid, busy=busy: any(_cpu_seconds(child) > busy for child in _children(pid)), limit=60)
            process.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(process.communicate(), 20)
        finally:
            await _end_left_behind(process)
        assert process.returncode in (143, 1), err.decode()  # 1: it finished first (broken fragments)
        assert "Traceback" not in err.decode()
        await _wait_for(lambda: not _processes_mentioning(str(site)), limit=10)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="watches the run's worker processes in /proc")
async def test_an_offline_run_whose_worker_is_killed_reads_every_file_and_says_so_once(tmp_path):
    """A worker killed mid-run (out of memory, an operator): the files it had, and those queued
    behind them, are parsed in the run's own process; every file is read, and the warning is
    given once, not once per file."""
    from linkfix.extract.worker import MIN_FILES

    site = tmp_path / "site"
    site.mkdir()
    links = "\n".join(f'<p><a href="p{j % 50}.html">section {j} of the guide</a></p>' for j in range(3000))
    pages = MIN_FILES * 4
    for i in range(pages):
        (site / f"p{i}.html").write_text(f"<html><body><h1>Page {i}</h1>\n{links}\n<a href='gone.html'>x</a></body></html>\n", encoding="utf-8")
    process = await _linkfix("check", str(site), "--offline", "--no-cache", cwd=tmp_path)
    try:
        await _wait_for(lambda: any(_cpu_seconds(child) > 0.2 for child in _children(process.pid)), limit=60)
        os.kill(_children(process.pid)[0], signal.SIGKILL)
        out, err = await asyncio.wait_for(process.communicate(), 120)
    finally:
        await _end_left_behind(process)
    assert process.returncode == 1, err.decode()  # the broken gone.html of every page, as without the kill
    assert f"{pages * 3001} links in {pages} files: {pages * 3000} ok, {pages} broken" in out.decode()
    assert err.decode().count("extraction worker stopped") == 1, err.decode()
    assert "Traceback" not in err.decode()
