"""When Python's cyclic garbage collector runs during a check.

Extraction and checking allocate a million small acyclic objects; the collector, run every 700
allocations by default, would scan them again and again (a fifth of an offline check). During
a run, instead: the young generation every 50,000 allocations (each pause scans only those,
~30 ms, while answers wait in the event loop), the older generations not at all (hundreds of
thousands of live objects: pauses of ~0.5 s). Cycles that outlive a young collection wait for
the end of the run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# When Python's cyclic garbage collector runs during a check. Extraction and checking allocate a
# million small acyclic objects; the collector, run every 700 allocations by default, would scan
# them again and again (a fifth of an offline check). During a run, instead: the young
# generation every 50,000 allocations (each pause scans only those, ~30 ms, while answers wait in
# the event loop), the older generations not at all (hundreds of thousands of live objects:
# pauses of ~0.5 s). Cycles that outlive a young collection wait for the end of the run.
GC_THRESHOLDS = (50_000, 1000, 1000)



@contextmanager
def rare_collection() -> Iterator[None]:
    """GC_THRESHOLDS for the duration; the previous ones after (for a library caller: a mkdocs
    build or serve process)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)



def keep_rare_collection() -> None:
    """A command-line run lives only for its command: keep GC_THRESHOLDS to its end. Setting
    the defaults back after the check made the next allocations (the report's) pay for a
    collection of everything the check left alive: 0.15-0.3 s on 10k links, for nothing, as
    the process exits right after."""
    gc.set_threshold(*GC_THRESHOLDS)
