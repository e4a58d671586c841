"""An in-memory dense index and library: the read side retrieval needs, without Chroma."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

import numpy as np

from ingest.document_parts import Chunk, DocumentVector
from ingest.index.chunk_context import document_text
from tests.fakes.embedder import FakeEmbedder


class FakeDenseIndex:
    """Implements ``graph.retrieval.ports.DenseIndex`` and ``ChunkIndex`` over a dict."""

    name = "fake-dense"
    building = False

    def __init__(self, embedder: FakeEmbedder | None = None) -> None:
        self.embedder = embedder or FakeEmbedder()
        self.chunks: dict[tuple[str, int], Chunk] = {}
        self.stored: dict[tuple[str, int], list[float]] = {}
        self.documents: dict[str, DocumentVector] = {}
        self.filters: list[list[str] | None] = []
        self.reads: list[list[tuple[str, int]]] = []
        """The keys of each ``get_chunks`` call: what texts retrieval read."""

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self.delete_document(doc_id)
        for chunk, vector in zip(
            chunks, self.embedder.embed([c.text for c in chunks]), strict=True
        ):
            self.chunks[(doc_id, chunk.index)] = chunk
            self.stored[(doc_id, chunk.index)] = vector
        if chunks:
            outline = self.embedder.embed([document_text(chunks)])[0]
            self.documents[doc_id] = DocumentVector(outline, len(chunks))

    def delete_document(self, doc_id: str) -> None:
        for key in [k for k in self.chunks if k[0] == doc_id]:
            del self.chunks[key], self.stored[key]
        self.documents.pop(doc_id, None)

    def document_ids(self) -> set[str]:
        return {k[0] for k in self.chunks}

    def chunk_counts(self) -> dict[str, int]:
        return dict(Counter(k[0] for k in self.chunks))

    def nearest(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[tuple[tuple[str, int], float]]:
        self.filters.append(sorted(doc_ids) if doc_ids is not None else None)
        q = np.asarray(vector)
        scored = [
            (key, float(np.dot(q, self.stored[key])))
            for key in self.chunks
            if doc_ids is None or key[0] in doc_ids
        ]
        return sorted(scored, key=lambda pair: -pair[1])[:k]

    def vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], list[float]]:
        return {k: self.stored[k] for k in keys if k in self.stored}

    def document_vectors(self, doc_ids: Collection[str]) -> dict[str, DocumentVector]:
        return {d: self.documents[d] for d in doc_ids if d in self.documents}

    def get_chunks(self, keys: Sequence[tuple[str, int]]) -> list[Chunk]:
        self.reads.append(list(keys))
        return [self.chunks[k] for k in keys if k in self.chunks]

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return sorted((c for k, c in self.chunks.items() if k[0] == doc_id), key=lambda c: c.index)


class FakeLibrary:
    """Implements ``graph.retrieval.ports.Library``: document keys are ``id-<path>``."""

    def __init__(self, paths: Sequence[str] = ()) -> None:
        self.paths = {f"id-{p}": p for p in paths}

    def path_of(self, doc_id: str) -> str | None:
        return self.paths.get(doc_id)

    def paths_of(self, doc_id: str) -> list[str]:
        path = self.paths.get(doc_id)
        return [path] if path is not None else []

    def keys_for(self, files: Sequence[str]) -> list[str]:
        return [d for d, p in self.paths.items() if p in files or p.rsplit("/", 1)[-1] in files]
