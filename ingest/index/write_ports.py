"""The write side of the indexes (Chroma, keyword): adding an index is implementing these.

``doc_id`` here is the content key (``ingest.keys.content_key``): identical files share it
and a rename does not change it. A ``VectorIndex`` gets chunks batch by batch with vectors
computed once, and says which it holds, so an interrupted document resumes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from ingest.document_parts import Chunk
from models.protocols import Embedder


@runtime_checkable
class ChunkIndex(Protocol):
    """An index of chunks, written per document."""

    name: str
    """How the index is named in a consistency report."""
    building: bool
    """True while it is first filled (a new model's collection): reconcile leaves it alone."""

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        """Make ``chunks`` the document's only chunks, atomically for readers where possible."""
        ...

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of the document; no error if it has none."""
        ...

    def document_ids(self) -> set[str]:
        """Ids of every document with at least one chunk (for reconcile)."""
        ...

    def chunk_counts(self) -> Mapping[str, int] | None:
        """Chunks held per document, or None when the index can't count them cheaply."""
        ...


@runtime_checkable
class VectorIndex(ChunkIndex, Protocol):
    """An index of chunks with vectors, written incrementally."""

    embedder: Embedder
    """The model its vectors come from (two collections, two models, during a switch)."""
    vector_text: int
    """What its vectors are made from (``ingest.index.chunk_context.VECTOR_TEXT_VERSION``):
    chunks embedded once serve every index of the same model and version."""

    def embedding_texts(self, chunks: Sequence[Chunk]) -> list[str]:
        """The texts its embedder is given for ``chunks`` (their context, then the text)."""
        ...

    def add_chunks(
        self, doc_id: str, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Write (or overwrite, by chunk id) these chunks of ``doc_id`` with their vectors."""
        ...

    def hold_chunks(
        self, doc_id: str, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Keep these chunks until the next ``flush``; DiskFull when the disk has no room."""
        ...

    def set_document_vector(self, doc_id: str, vector: Sequence[float], chunks: int) -> None:
        """Store the vector of the document's outline and how many chunks it has."""
        ...

    def fill_document_vectors(self, keep_going: Callable[[], bool]) -> int:
        """Store a vector for each document with chunks but none, while ``keep_going()``."""
        ...

    def flush(self) -> dict[str, BaseException]:
        """Write every held chunk; return the documents whose chunks failed, with why.
        Interrupted, it holds again what it took: a held chunk is never dropped unwritten."""
        ...

    def chunk_indexes(self, doc_id: str) -> set[int]:
        """Which chunk indexes of ``doc_id`` the index holds."""
        ...
