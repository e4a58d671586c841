"""The write side of the indexes: what the indexer keeps in step with the folder.

The Chroma store is one such index; the keyword (BM25) index is another. The indexer
writes to every index through this protocol, so adding an index is adding an object
that implements it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ingest.types import Chunk


@runtime_checkable
class ChunkIndex(Protocol):
    """An index of chunks, written per document."""

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        """Make ``chunks`` the document's only chunks, atomically for readers where possible."""
        ...

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of the document; no error if it has none."""
        ...

    def document_ids(self) -> set[str]:
        """Ids of every document with at least one chunk (for reconcile)."""
        ...
