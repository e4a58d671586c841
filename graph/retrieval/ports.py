"""What retrieval needs from the indexes and the library, as protocols."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from graph.retrieval.fusion import Fusion
from graph.retrieval.scored import Key
from graph.retrieval.settings import RetrievalSettings
from ingest.document_parts import Chunk, DocumentVector
from ingest.index.keyword.index import KeywordScores
from models.protocols import Embedder, Reranker


class DenseIndex(Protocol):
    """The vector store's read side (``ChromaStore`` implements it)."""

    def nearest(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[tuple[Key, float]]:
        """Keys of the ``k`` chunks nearest ``vector`` with their cosine, best first."""
        ...

    def vectors(self, keys: Sequence[Key]) -> Mapping[Key, Sequence[float]]:
        """The stored vectors of the chunks with these keys that exist."""
        ...

    def document_vectors(self, doc_ids: Collection[str]) -> Mapping[str, DocumentVector]:
        """The vectors of these documents' outlines, for those that have one."""
        ...

    def get_chunks(self, keys: Sequence[Key]) -> list[Chunk]:
        """The chunks with these keys that exist (texts and where they are)."""
        ...

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """Every chunk of one document, in order."""
        ...


class KeywordSearch(Protocol):
    """The keyword index's read side (``KeywordIndex`` implements it)."""

    def search(self, query: str, doc_ids: Collection[str] | None = None) -> KeywordScores:
        """Scores of every chunk for ``query``."""
        ...

    def term_weights(self, query: str) -> dict[str, float]:
        """The query's index terms, each with the idf a search weighs it by."""
        ...


class Library(Protocol):
    """Turns document keys into paths and back: the one place that knows the mapping."""

    def path_of(self, doc_id: str) -> str | None:
        """The relative path a document key is shown under, or None if it is gone."""
        ...

    def paths_of(self, doc_id: str) -> list[str]:
        """Every relative path holding this document key, first shown first; empty if gone."""
        ...

    def keys_for(self, files: Sequence[str]) -> list[str]:
        """Document keys of the named files (relative paths or file names)."""
        ...


@dataclass(eq=False)
class Reader:
    """One embedding model's collection and query embedder: vectors of two models never meet."""

    dense: DenseIndex
    embedder: Embedder
    users: int = 0
    """Searches reading through this reader now (kept by ``Retriever``)."""


class Begun(Protocol):
    """What a search takes from the retriever that began it (``Retriever`` implements it)."""

    keyword: KeywordSearch
    reranker: Reranker
    library: Library
    settings: RetrievalSettings
    fusion: Fusion

    def release(self, reader: Reader) -> None:
        """A search that read through ``reader`` has ended."""
        ...
