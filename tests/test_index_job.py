"""One owner per file: the registry is read once per decision, and files share a bounded
pool of threads instead of a new thread each."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.document_parts import DocStatus, DocumentRecord
from ingest.index.registry import Registry
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.process import Pipeline
from ingest.pipeline.read_ahead import ReadAhead
from tests.ingest_parts import IngestParts, ingest_parts

FILES = 12


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[IngestParts]:
    with ingest_parts(tmp_path) as made:
        for n in range(FILES):
            (made.docs / f"note{n}.md").write_text(f"# Note {n}\n\nTide table {n} for the bay.\n")
        yield made


async def test_files_run_on_a_bounded_pool_of_daemon_threads(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: set[threading.Thread] = set()
    loaders: set[threading.Thread] = set()
    real_process, real_chunks = Pipeline.process, ReadAhead._chunks

    def process(self: Pipeline, *args: Any, **kwargs: Any) -> Any:
        runs.add(threading.current_thread())
        return real_process(self, *args, **kwargs)

    def chunks(self: ReadAhead, *args: Any) -> Any:  # in the thread that reads ahead
        loaders.add(threading.current_thread())
        yield from real_chunks(self, *args)

    monkeypatch.setattr(Pipeline, "process", process)
    monkeypatch.setattr(ReadAhead, "_chunks", chunks)
    indexer = Indexer(
        parts.docs, parts.registry, [parts.store], parts.embedder, options=IndexOptions(workers=1)
    )

    records = await indexer.index_all()

    assert [r.status for r in records] == [DocStatus.READY] * FILES
    # One place, and three more worker tasks for files waiting for their write.
    assert 1 <= len(runs) <= 4 and 1 <= len(loaders) <= 4
    assert all(t.daemon for t in runs | loaders)  # a frozen file never holds the exit


async def test_a_file_s_registry_row_is_read_once_per_decision(
    parts: IngestParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: Counter[str] = Counter()
    real = Registry.get_by_path

    def counted(self: Registry, rel: str) -> DocumentRecord | None:
        reads[rel] += 1
        return real(self, rel)

    indexer = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
    await indexer.start()
    monkeypatch.setattr(Registry, "get_by_path", counted)
    try:
        for n in range(FILES):
            indexer.enqueue(parts.docs / f"note{n}.md")
        await indexer.wait_idle()
    finally:
        monkeypatch.undo()
        await indexer.stop()

    assert [parts.status(f"note{n}.md") for n in range(FILES)] == [DocStatus.READY] * FILES
    # Once when queued (a new file shows "queued" at once), once when the indexer
    # decides what to do with it; the pipeline decides from that same row.
    assert reads == dict.fromkeys((f"note{n}.md" for n in range(FILES)), 2)
