"""Running the event loop: uvloop when it is installed, asyncio's own loop otherwise.

Checking external links is CPU-bound in the event loop itself (thousands of small exchanges a
second); uvloop's libuv-based loop and transports roughly halve that cost. It is a declared
dependency where it builds (not on Windows); everything works the same without it.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


def loop_factory():  # noqa: ANN201 - a callable returning a new loop, or None for asyncio's
    if os.environ.get("LINKFIX_LOOP", "").lower() == "asyncio":  # to rule uvloop out when debugging
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, on uvloop when available (same Ctrl-C handling: asyncio.Runner's)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coroutine)
