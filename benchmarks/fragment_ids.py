"""Peak memory of checking `#fragment` links into remote pages with very many ids.

    python benchmarks/fragment_ids.py                       # 40 links, a 600,000-id page
    python benchmarks/fragment_ids.py --links 40 --ids 600000 --cache

A loopback server answers /page (any query) with the same page of `--ids` short ids (`<i id=a0>`...,
inside the 8 MiB a fragment check reads); `--links` distinct URLs (`/page?n=i#a<i>`) are checked
as the pipeline checks them (submit all, then collect), in a child process whose peak resident
memory (ru_maxrss) is printed, with the time taken and whether every fragment was judged right
(the fragments asked are ids of the page, and one link asks for an id it does not have).
`--cache` keeps the results in a cache directory (a temporary one), as a run with the cache does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def page(ids: int) -> bytes:
    return ("<!DOCTYPE html><html><head><title>Many ids</title></head><body>"
            + "".join(f"<i id=a{n:x}>" for n in range(ids)) + "</body></html>").encode()


async def measure(links: int, ids: int, cache_dir: str) -> dict:
    from aiohttp import web

    from linkfix.check.http import HttpChecker
    from linkfix.config import Config
    from linkfix.model import Status
    from linkfix.store.cache import Cache

    body = page(ids)

    async def handle(request: web.BaseRequest) -> web.Response:
        if request.path != "/page":  # a real 404 (the soft-404 probe asks for a made-up page)
            return web.Response(status=404, text="not found")
        return web.Response(body=body, content_type="text/html")

    runner = web.ServerRunner(web.Server(handle))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    # Every link asks for an id the page has, but the last, which asks for one it lacks.
    targets = [(f"http://127.0.0.1:{port}/page?n={i}", f"a{(i * 14983) % ids:x}" if i < links - 1 else "missing") for i in range(links)]
    started = time.perf_counter()
    cache = Cache(Path(cache_dir) if cache_dir else None)
    try:
        async with HttpChecker(Config(allow_private=True, max_retries=0, timeout=60), cache) as checker:
            for url, fragment in targets:
                checker.submit(url, fragment)
            results = await checker.results(targets)
    finally:
        cache.close()
        await runner.cleanup()
    right = all(results[t].status is Status.OK for t in targets[:-1]) and results[targets[-1]].status is Status.BROKEN
    return {"links": links, "ids": ids, "page_bytes": len(body), "seconds": round(time.perf_counter() - started, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "all_judged_right": right,
            "last": results[targets[-1]].detail}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--links", type=int, default=40)
    parser.add_argument("--ids", type=int, default=600_000)
    parser.add_argument("--cache", action="store_true", help="keep results in a (temporary) cache directory")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure(args.links, args.ids, args.cache_dir))))
        return
    with tempfile.TemporaryDirectory() as directory:
        argv = [sys.executable, __file__, "--child", "--links", str(args.links), "--ids", str(args.ids)]
        if args.cache:
            argv += ["--cache-dir", str(Path(directory) / "cache")]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        sys.exit(done.stderr)
    print(done.stdout.strip())


if __name__ == "__main__":
    main()
