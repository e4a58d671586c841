"""The retriever: the long-lived indexes, settings and answering embedding model. Each unit of work
gets a ``Search`` from ``begin`` that keeps its model until closed, so a model switch drops the old
collection only once no search holds its reader (``wait_unused``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from graph.retrieval.fusion import Fusion, adaptive
from graph.retrieval.ports import DenseIndex, KeywordSearch, Library, Reader
from graph.retrieval.scored import Retrieval
from graph.retrieval.settings import RetrievalSettings
from graph.retrieval.turn_search import Search
from models.protocols import Embedder, Reranker


class Retriever:
    """Hybrid search with adaptive fusion, reranking, neighbours and a relevance floor."""

    def __init__(
        self,
        dense: DenseIndex,
        keyword: KeywordSearch,
        embedder: Embedder,
        reranker: Reranker,
        library: Library,
        settings: RetrievalSettings | None = None,
        fusion: Fusion = adaptive,
    ) -> None:
        self.reader = Reader(dense, embedder)
        """The embedding model that answers, with its collection."""
        self.keyword = keyword
        self.reranker = reranker
        self.library = library
        self.settings = settings or RetrievalSettings()
        """Replaced whole when a setting changes: each search keeps the one it began with."""
        self.fusion = fusion
        self._users = threading.Condition()

    def begin(self) -> Search:
        """A search reading with the answering model until it is closed."""
        with self._users:
            reader = self.reader
            reader.users += 1
        return Search(self, reader)

    def retrieve(self, query: str, files: Sequence[str] = (), k: int | None = None) -> Retrieval:
        """One search on its own (``POST /api/search``): ``Search.retrieve``, then closed."""
        with self.begin() as search:
            return search.retrieve(query, files, k)

    def activate(self, reader: Reader) -> Reader:
        """Answer with ``reader`` from the next search on; returns the one it replaces."""
        with self._users:
            old, self.reader = self.reader, reader
        return old

    def release(self, reader: Reader) -> None:
        """A search that read through ``reader`` has ended (``Search.close`` calls it)."""
        with self._users:
            reader.users -= 1
            self._users.notify_all()

    def wait_unused(self, reader: Reader, timeout: float | None = None) -> bool:
        """Block until no search reads through ``reader`` (it is no longer the active one)."""
        with self._users:
            return self._users.wait_for(lambda: reader.users == 0, timeout)
