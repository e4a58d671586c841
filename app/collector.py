"""Python's cyclic garbage collector, set for a long-lived process that parses PDFs.

pypdf builds container objects by the hundred thousand for every page it reads, and the
collector runs every 700 allocations; every hundredth run walks every object the process
holds (about 210,000 once the services are built: 0.2 s, with the GIL held). Indexing
150 files spent 4.3 s in the collector, about 2% of the CPU.

Once the services are built their objects live as long as the process, so they are
frozen out of the collector's walks, and it runs less often on the young ones. The same
run then spent 0.8 s in it. Reference counting still frees an object as soon as nothing
holds it; only a cycle among the frozen objects would never be collected.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
"""Allocations between two runs on the youngest objects (Python's default: 700)."""
OLDER_THRESHOLD = 20
"""Runs of a generation between two runs of the next (Python's default: 10)."""

_settled = False


def settle() -> None:
    """Freeze what exists now and collect less often; once per process, later calls do
    nothing (a process that serves twice, as the tests do, freezes only the first time)."""
    global _settled
    if _settled:
        return
    _settled = True
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD)
