"""The pieces the indexer and watcher tests stand on: a folder, registry and store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ingest.registry import Registry
from ingest.store import ChromaStore, make_chroma_client
from ingest.types import DocStatus
from tests.fakes.embedder import FakeEmbedder


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
    client = make_chroma_client(tmp_path)
    embedder = FakeEmbedder()
    try:
        yield IngestParts(docs, registry, ChromaStore(client, embedder, lookup=registry), embedder)
    finally:
        registry.close()
        client.close()
