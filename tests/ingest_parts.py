"""The pieces the indexer and watcher tests stand on: a folder, registry and store."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import ingest.pipeline.process as pipeline_module
from ingest.document_parts import DocStatus
from ingest.index.chroma_calls import open_chroma
from ingest.index.registry import Registry
from ingest.index.vectors import ChromaStore
from ingest.parsing import ParserPool
from tests.fakes.embedder import FakeEmbedder


@contextmanager
def warm_parsers(workers: int) -> Iterator[ParserPool]:
    """A parser pool with ``workers`` processes started and idle: a test of a time budget
    then times parsing alone, not how fast a loaded machine starts a process."""
    pool = ParserPool()
    leases = [pool.lease() for _ in range(workers)]
    for lease in leases:
        lease.release()
    try:
        yield pool
    finally:
        pool.close()


@dataclass
class IngestParts:
    docs: Path
    registry: Registry
    store: ChromaStore
    embedder: FakeEmbedder

    def status(self, rel: str) -> DocStatus | None:
        record = self.registry.get_by_path(rel)
        return record.status if record else None

    def key(self, rel: str) -> str | None:
        """The content key the path's chunks are filed under."""
        record = self.registry.get_by_path(rel)
        return record.content_key if record else None


@contextmanager
def ingest_parts(tmp_path: Path) -> Iterator[IngestParts]:
    """An empty documents folder, registry and embedded store under ``tmp_path``."""
    docs = tmp_path / "documents"
    docs.mkdir()
    registry = Registry(tmp_path / "docent.db")
    client = open_chroma(tmp_path)
    embedder = FakeEmbedder()
    try:
        yield IngestParts(docs, registry, ChromaStore(client, embedder, lookup=registry), embedder)
    finally:
        registry.close()
        client.close()


def slow_after_first_page(
    monkeypatch: pytest.MonkeyPatch, name: str, rest: threading.Event
) -> None:
    """Make the file called ``name`` slow to parse: its pages after the first wait for
    ``rest`` (set it when the test is done, or they go on after 30 s)."""
    real_open = pipeline_module.open_source

    def slow_open(path: Path, *args: Any) -> Any:
        loaded = real_open(path, *args)
        if path.name != name:
            return loaded
        pages = loaded.pages

        def slow_pages() -> Iterator[Any]:
            read = pages()
            yield next(read)
            rest.wait(30)
            yield from read

        loaded.pages = slow_pages  # type: ignore[method-assign]
        return loaded

    monkeypatch.setattr(pipeline_module, "open_source", slow_open)
