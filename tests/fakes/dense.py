"""An in-memory dense index and library: the read side retrieval needs, without Chroma."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from ingest.types import Chunk, Hit
from tests.fakes.embedder import FakeEmbedder


class FakeDenseIndex:
    """Implements ``graph.retrieval.ports.DenseIndex`` and ``ChunkIndex`` over a dict."""

    def __init__(self, embedder: FakeEmbedder | None = None) -> None:
        self.embedder = embedder or FakeEmbedder()
        self.chunks: dict[tuple[str, int], Chunk] = {}
        self.vectors: dict[tuple[str, int], list[float]] = {}
        self.filters: list[list[str] | None] = []

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self.delete_document(doc_id)
        for chunk, vector in zip(
            chunks, self.embedder.embed([c.text for c in chunks]), strict=True
        ):
            self.chunks[(doc_id, chunk.index)] = chunk
            self.vectors[(doc_id, chunk.index)] = vector

    def delete_document(self, doc_id: str) -> None:
        for key in [k for k in self.chunks if k[0] == doc_id]:
            del self.chunks[key], self.vectors[key]

    def document_ids(self) -> set[str]:
        return {k[0] for k in self.chunks}

    def query_vector(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[Hit]:
        self.filters.append(sorted(doc_ids) if doc_ids is not None else None)
        q = np.asarray(vector)
        hits = [
            Hit(chunk, float(np.dot(q, self.vectors[key])))
            for key, chunk in self.chunks.items()
            if doc_ids is None or key[0] in doc_ids
        ]
        return sorted(hits, key=lambda h: -h.score)[:k]

    def get_chunks(
        self, keys: Sequence[tuple[str, int]], *, vectors: bool = False
    ) -> list[tuple[Chunk, list[float] | None]]:
        return [
            (self.chunks[k], self.vectors[k] if vectors else None) for k in keys if k in self.chunks
        ]

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return sorted((c for k, c in self.chunks.items() if k[0] == doc_id), key=lambda c: c.index)


class FakeLibrary:
    """Implements ``graph.retrieval.ports.Library``: document keys are ``id-<path>``."""

    def __init__(self, paths: Sequence[str] = ()) -> None:
        self.paths = {f"id-{p}": p for p in paths}

    def path_of(self, doc_id: str) -> str | None:
        return self.paths.get(doc_id)

    def keys_for(self, files: Sequence[str]) -> list[str]:
        return [d for d, p in self.paths.items() if p in files or p.rsplit("/", 1)[-1] in files]
