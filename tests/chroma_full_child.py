"""A child process for tests/test_chroma_calls.py: the Chroma store on a disk that fills up.

    python -m tests.chroma_full_child {refused|failed} SMALL_DISK

It runs apart from the test because a Chroma write that never returns holds the GIL, and
would stop the test with it; the test gives it a deadline instead. The store lives on
SMALL_DISK (a tmpfs the test mounted). ``refused``: the disk fills before a write, which
the store's room check then sees. ``failed``: it fills after the check, before Chroma
writes, as when another program fills it meanwhile, so Chroma itself meets the full disk.
Each round fills the disk, tries a write, frees the disk and writes again. Prints one JSON
line: what each write raised, the chunks stored, and how often the client was reopened.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from chromadb.api.client import Client

from ingest.index.chroma_calls import ChromaCalls, make_chroma_client
from ingest.index.vectors import ChromaStore
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.search import make_chunk
from tests.small_disk import SmallDisk

ROUNDS = 5
"""A write after a failed one hung in about two runs of three: five rounds all but
always meet it when nothing reopens the client."""
LEFT_FREE = 64 << 10
"""What the filled disk keeps, as in the audit."""

T = TypeVar("T")


class FilledMeanwhile(ChromaCalls):
    """Another program fills the disk once a write has passed the room check."""

    def __init__(self, disk: SmallDisk) -> None:
        super().__init__(lambda: make_chroma_client(disk.path), disk.path / "chroma")
        self.small = disk
        self.filling = False

    def write(self, call: Callable[[Client], T], *, records: int = 0) -> T:
        def filled_first(client: Client) -> T:
            if self.filling:
                self.small.fill(leave=LEFT_FREE)
            return call(client)

        return super().write(filled_first, records=records)


def write(store: ChromaStore, doc_id: str) -> str:
    """Store 200 chunks of about 1,000 characters; what it raised, or "ok"."""
    text = "The tide tables are printed every spring, and the harbour master keeps them. "
    chunks = [make_chunk(f"{doc_id}.md", None, text * 13, i, doc_id=doc_id) for i in range(200)]
    try:
        store.add_chunks(doc_id, chunks, store.embedder.embed([c.text for c in chunks]))
    except Exception as error:
        return type(error).__name__
    return "ok"


def main() -> None:
    mode, disk = sys.argv[1], SmallDisk(Path(sys.argv[2]))
    chroma = FilledMeanwhile(disk)
    store = ChromaStore(chroma, FakeEmbedder())
    seen: dict[str, Any] = {"before": write(store, "before"), "full": [], "freed": []}
    for n in range(ROUNDS):
        if mode == "refused":
            disk.fill(leave=LEFT_FREE)
        chroma.filling = mode == "failed"
        seen["full"].append(write(store, f"full{n}"))
        chroma.filling = False
        disk.free()
        seen["freed"].append(write(store, f"freed{n}"))
    seen["stored"] = sorted(store.document_ids())
    seen["reopened"] = chroma.reopened
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    main()
