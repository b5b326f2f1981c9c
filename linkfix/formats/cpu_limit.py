"""A bound on the CPU time one piece of work may take, that interrupts it when it is over.

Python-Markdown has quadratic (and worse) cases a page can be written to hit: `[` 20,000 times
in 20 KB took 76 s, `[a](` 20,000 times more than 120 s. Nothing in its input tells them
apart from a long page beforehand, so the bound is on what rendering costs: a process CPU-time
timer (ITIMER_PROF, SIGPROF) whose signal stops the code it interrupts; `cpu_limit` then raises
`CpuLimitExceeded`.
CPU time, not wall time: a page is not cut short because the machine is busy with others.

Python runs signal handlers in the main thread only, so the limit applies there (a command, the
extraction worker process); elsewhere, and where there is no such timer, the work runs
unbounded. What the signal raises in the body derives from BaseException, so that code under
the limit (extensions included) that catches Exception does not swallow it; once the body is
left, it becomes `CpuLimitExceeded`, an InputError of the error tree like any other.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import InputError


class CpuLimitExceeded(InputError):
    """The work under `cpu_limit` used up its CPU time."""


class _OutOfCpuTime(BaseException):
    """Raised by the timer's signal inside the body: no `except Exception` there stops it."""


@contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Run the body with at most `seconds` of this process's CPU time; the body is stopped when
    they are spent, and CpuLimitExceeded raised. Not nested: the process has one such timer."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    armed = [True]

    def interrupt(signum: int, frame: object) -> None:
        if armed[0]:  # not once the body is done (a signal already on its way)
            raise _OutOfCpuTime

    previous = signal.signal(signal.SIGPROF, interrupt)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    except _OutOfCpuTime:
        raise CpuLimitExceeded(f"more than {seconds:g} s of CPU time") from None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
