"""The Chroma store: per embedding model and kind of vector, a collection of chunks and one
of document vectors (``-documents``, for questions that share few words with their page).

Version-2 vectors embed a chunk behind its title and heading path; a version-1 collection
keeps its own name and is re-embedded in the background while it answers (``ModelSwitch``).
We always pass embeddings, so chromadb never loads (or downloads) its default ONNX model.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, cast

from ingest.document_parts import Chunk, DocumentVector, Hit
from ingest.index.chroma_calls import RECORDS_PER_CALL, ChromaCalls
from ingest.index.chroma_collections import ChromaCollections
from ingest.index.chroma_rows import (
    ChromaRecord,
    chroma_records,
    chunk_from,
    chunks_from,
    row_id,
    row_key,
)
from ingest.index.chunk_context import VECTOR_TEXT_VERSION, document_text, text_for_vector
from ingest.index.group_commit import GroupCommit
from ingest.index.key_paths import NO_FILES, KeyLookup, files_filter, resolve_hits
from models.protocols import Embedder

EMBED_BATCH = 512
"""Texts per call to the embedder: large, since the embedder sorts one call's texts by
length to pad little, yet bounded so a huge document doesn't hold every vector at once."""

_CHUNKS_KEY = "chunks"
"""Document vectors' metadata: how many chunks the document has."""
_SLACK = 8
"""Extra results asked of Chroma, so dropping content no path holds still leaves k."""


def collection_name(embedder_name: str, vector_text: int = VECTOR_TEXT_VERSION) -> str:
    """A Chroma collection name for a model and kind of vector: ``docent-<model>-ctx``."""
    # Chroma allows 3-512 characters from [a-zA-Z0-9._-], alphanumeric at both ends, no "..".
    slug = re.sub(r"[^a-z0-9._-]+", "-", embedder_name.lower())
    slug = re.sub(r"\.{2,}", ".", slug)
    slug = re.sub(r"-{2,}", "-", slug).strip("._-")
    suffix = {1: "", 2: "-ctx"}.get(vector_text, f"-ctx{vector_text}")
    return f"docent-{slug or 'default'}"[: 512 - len(suffix)].rstrip("._-") + suffix


class ChromaStore(ChromaCollections):
    """Chunks and their vectors for one embedding model, keyed by content; with a ``lookup``,
    search names each chunk by its current paths and leaves out content no path holds."""

    building = False
    """True while a new model's collection is filled: reconcile leaves it alone."""

    def __init__(
        self,
        chroma: ChromaCalls,
        embedder: Embedder,
        *,
        lookup: KeyLookup | None = None,
        name: str | None = None,
        vector_text: int = VECTOR_TEXT_VERSION,
    ) -> None:
        self.embedder = embedder
        self.lookup = lookup
        name = name or collection_name(embedder.name, vector_text)
        super().__init__(chroma, name, embedder.name, vector_text)
        # Files indexed at once write together: a Chroma call costs ~25 ms of CPU however
        # few records it holds (see ingest.group_commit).
        limit = self.chroma.read(lambda client: client.get_max_batch_size())
        self.writes = GroupCommit(self._upsert, max(1, min(limit, RECORDS_PER_CALL)))
        self._held: list[tuple[str, list[ChromaRecord]]] = []
        self._holding = threading.Lock()

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        """Make ``chunks`` the document's only chunks (ids ``f"{doc_id}:{index}"``)."""
        vectors: list[list[float]] = []
        for start in range(0, len(chunks), EMBED_BATCH):
            vectors.extend(
                self.embedder.embed(self.embedding_texts(chunks[start : start + EMBED_BATCH]))
            )
        if len(vectors) != len(chunks):
            raise ValueError(f"embedder returned {len(vectors)} vectors for {len(chunks)} texts")
        whole = self.embedder.embed([document_text(chunks)])[0] if chunks else None
        # Deleted only once all is embedded: a failing embedder leaves the old version.
        self.delete_document(doc_id)
        self.add_chunks(doc_id, chunks, vectors)
        if whole is not None:
            self.set_document_vector(doc_id, whole, len(chunks))

    def set_document_vector(self, doc_id: str, vector: Sequence[float], chunks: int) -> None:
        """Store the document's vector (of ``document_text``) and its number of chunks."""
        self._write(
            lambda _, documents: documents.upsert(
                ids=[doc_id],
                embeddings=cast(Any, [list(vector)]),
                metadatas=[{_CHUNKS_KEY: chunks}],
            ),
            records=1,
        )

    def document_vectors(self, doc_ids: Collection[str]) -> dict[str, DocumentVector]:
        """The stored vectors of these documents, for those that have one."""
        if not doc_ids:
            return {}
        page = self._get(documents=True, ids=sorted(doc_ids), include=["embeddings", "metadatas"])
        embeddings = page.get("embeddings")
        if embeddings is None:
            return {}
        return {
            doc_id: DocumentVector(vector, int(cast(Any, meta).get(_CHUNKS_KEY, 0)))
            for doc_id, vector, meta in zip(
                page["ids"], embeddings, page["metadatas"] or [], strict=True
            )
        }

    def fill_document_vectors(self, keep_going: Callable[[], bool] = lambda: True) -> int:
        """Give documents stored without a vector one, from their chunks; returns how many."""
        filled = 0
        for doc_id in sorted(self.documents_without_vector()):
            if not keep_going():
                break
            chunks = self.document_chunks(doc_id)
            if chunks:
                vector = self.embedder.embed([document_text(chunks)])[0]
                self.set_document_vector(doc_id, vector, len(chunks))
                filled += 1
        return filled

    def documents_without_vector(self) -> set[str]:
        """Documents with chunks but no document vector (indexed by an older version)."""
        have = {doc_id for page in self._pages([], documents=True) for doc_id in page["ids"]}
        return self.document_ids() - have

    def embedding_texts(self, chunks: Sequence[Chunk]) -> list[str]:
        """What the embedder reads for these chunks, in this collection's kind of vector."""
        return [text_for_vector(chunk, self.vector_text) for chunk in chunks]

    def add_chunks(
        self, doc_id: str, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Write (or overwrite) these chunks of ``doc_id`` with their vectors."""
        self.writes.submit(chroma_records(doc_id, chunks, vectors))

    def hold_chunks(
        self, doc_id: str, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Keep these chunks for the next ``flush``; DiskFull when the disk has no room for
        them (the file waits, embedding no more than it can write)."""
        self.chroma.check_room(len(chunks))
        with self._holding:
            self._held.append((doc_id, chroma_records(doc_id, chunks, vectors)))

    def flush(self) -> dict[str, BaseException]:
        """Write every held chunk; returns the documents whose chunks failed, with the error."""
        with self._holding:
            parts, self._held = self._held, []
        try:
            errors = self.writes.submit_parts([records for _, records in parts])
        except BaseException:  # interrupted: nothing is known written, so hold it all again
            with self._holding:
                self._held[:0] = parts
            raise
        failed = zip((doc_id for doc_id, _ in parts), errors, strict=True)
        return {doc_id: error for doc_id, error in failed if error is not None}

    def chunk_indexes(self, doc_id: str) -> set[int]:
        """Indexes of the chunks of ``doc_id`` already stored (to resume a document)."""
        found = self._get(where={"doc_id": doc_id}, include=[])
        return {row_key(cid)[1] for cid in found["ids"]}

    def chunks_of(self, doc_id: str, batch: int = 64) -> Iterator[list[Chunk]]:
        """Every stored chunk of ``doc_id``, ``batch`` at a time (to copy them elsewhere)."""
        found = self._get(where={"doc_id": doc_id}, include=["metadatas"])
        ids = sorted(found["ids"], key=lambda cid: row_key(cid)[1])
        for start in range(0, len(ids), batch):
            yield chunks_from(
                self._get(ids=ids[start : start + batch], include=["documents", "metadatas"])
            )

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The ``k`` chunks nearest ``query``; ``files`` (names or relative paths) limit it."""
        if not query.strip() or k <= 0:
            return []
        where = files_filter(self.lookup, files) if files else None
        if where is NO_FILES:
            return []
        vector = self.embedder.embed([query])[0]
        n = k if self.lookup is None else k + _SLACK
        result = self._query(vector, n, where, ["documents", "metadatas", "distances"])
        documents = (result.get("documents") or [[]])[0]
        metadatas = (result.get("metadatas") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        hits = [
            Hit(chunk=chunk_from(meta, text), score=1.0 - float(distance))
            for text, meta, distance in zip(documents, metadatas, distances, strict=True)
        ]
        return resolve_hits(self.lookup, hits)[:k]

    def nearest(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[tuple[tuple[str, int], float]]:
        """The keys of the ``k`` chunks nearest ``vector`` with their cosine, best first; no
        texts, which are most of a query's cost (``get_chunks`` reads them)."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        where: Any = {"doc_id": {"$in": sorted(doc_ids)}} if doc_ids is not None else None
        result = self._query(vector, k, where, ["distances"])
        ids = (result.get("ids") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        return [
            (row_key(chunk_id), 1.0 - float(distance))
            for chunk_id, distance in zip(ids, distances, strict=True)
        ]

    def vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Sequence[float]]:
        """The stored vectors of the chunks with these keys that exist."""
        if not keys:
            return {}
        page = self._get(ids=[row_id(key) for key in keys], include=["embeddings"])
        embeddings = page.get("embeddings")
        if embeddings is None:
            return {}
        return dict(zip(map(row_key, page["ids"]), embeddings, strict=True))

    def get_chunks(self, keys: Sequence[tuple[str, int]]) -> list[Chunk]:
        """The chunks with these (doc id, index) keys that exist."""
        if not keys:
            return []
        return chunks_from(
            self._get(ids=[row_id(key) for key in keys], include=["documents", "metadatas"])
        )

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """Every chunk of one document, in order."""
        chunks = chunks_from(
            self._get(where={"doc_id": doc_id}, include=["documents", "metadatas"])
        )
        return sorted(chunks, key=lambda chunk: chunk.index)

    def chunk_counts(self) -> Counter[str]:
        """How many chunks each stored document has (for the consistency check)."""
        counts: Counter[str] = Counter()
        for page in self._pages([]):
            counts.update(cid.rsplit(":", 1)[0] for cid in page["ids"])
        return counts

    def document_ids(self) -> set[str]:
        """Ids of every document with at least one chunk."""
        return set(self.chunk_counts())

    def texts(self) -> Iterator[str]:
        """Every stored chunk's text, in no particular order (for checks and benchmarks)."""
        for page in self._pages(["documents", "metadatas"]):
            yield from (chunk.text for chunk in chunks_from(page))
