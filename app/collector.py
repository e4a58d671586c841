"""Python's cyclic garbage collector, set for a long-lived process that parses PDFs.

pypdf makes container objects by the hundred thousand per page, and every hundredth run of
the collector walks all the process holds (about 210,000 objects: 0.2 s with the GIL held).
Indexing 150 files spent 4.3 s in it; with the services' objects frozen out of its walks and
fewer runs on the young ones, 0.8 s. Only a cycle among frozen objects is never collected.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
"""Allocations between two runs on the youngest objects (Python's default: 700)."""
OLDER_THRESHOLD = 20
"""Runs of a generation between two runs of the next (Python's default: 10)."""

_settled = False


def settle() -> None:
    """Freeze what exists now and collect less often; later calls in the process do nothing."""
    global _settled
    if _settled:
        return
    _settled = True
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD)
