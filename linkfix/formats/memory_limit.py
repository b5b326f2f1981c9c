"""A bound on the memory one piece of work may take, that fails it when it is over.

A page's Jinja rendering runs the repository's template: `"x".center(3000000000)`, a join with a
20 MB separator, a string doubled in a loop each allocate their whole result in one C call,
before any check of the value could see it (3 GB from a 70-byte page). No list of such
operations is complete, so the bound is on what the process may map: the soft RLIMIT_AS is set
to what the process has mapped when the work starts plus `extra` bytes, and put back after. An
allocation past it fails with MemoryError inside the work, which the caller turns into its
own refusal; the hard limit is never touched, so the soft one can always be restored.

The limit is the process's: another thread allocating while the work runs shares it, which is
why the work is short (one page's rendering) and the margin generous. Where there is no
RLIMIT_AS or no /proc/self/statm to read the mapped size from, the work runs unbounded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import resource
except ImportError:  # not on this platform
    resource = None  # type: ignore[assignment]


def _mapped_bytes() -> int | None:
    """The process's mapped address space (VmSize), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def memory_limit(extra: int) -> Iterator[None]:
    """Run the body with at most `extra` more bytes of address space than the process has now;
    an allocation past that raises MemoryError in the body."""
    mapped = _mapped_bytes() if resource is not None and hasattr(resource, "RLIMIT_AS") else None
    if mapped is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = mapped + extra
    if any(limit != resource.RLIM_INFINITY and limit <= wanted for limit in (soft, hard)):
        yield  # the runner's own limit is tighter already
        return
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
