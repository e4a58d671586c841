"""Reading the index with one embedding model from start to end, while the model may switch.

A search embeds the query, then reads the collection: both steps must use the same model,
or the vector is compared with vectors of another model (a wrong answer when the sizes
match, an error when they don't). The embedding switch swaps the model that answers
between two searches; each search holds the ``Reader`` it started with until it ends, and
the old collection is dropped only once no search holds its reader.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graph.prefetch import VectorProbe
from graph.retrieval.ports import KeywordSearch, Library
from graph.retrieval.retriever import RetrievalSettings, Retriever
from graph.retrieval.shared import SharedNearest
from graph.retrieval.types import Retrieval
from ingest.store import ChromaStore
from ingest.types import Hit
from models.protocols import Reranker
from models.query_cache import CachedQueryEmbedder


@dataclass(eq=False)
class Reader:
    """One embedding model's read side: its collection, and queries embedded by that model."""

    store: ChromaStore
    nearest: SharedNearest
    """The probe's search, taken up by the retriever: one store search a turn."""
    embedder: CachedQueryEmbedder
    users: int = 0
    """Searches reading through this reader now."""


def reader_for(store: ChromaStore, pool: int) -> Reader:
    """The reader of ``store``, with a query cache of its own model."""
    return Reader(store, SharedNearest(store, pool), CachedQueryEmbedder(store.embedder))


class ModelBoundRetriever(Retriever):
    """``Retriever`` whose every retrieval embeds and reads with the reader it started with.

    Its own ``dense`` and ``embedder`` are the active reader's (for the calls that only
    read chunks by key, which every collection holds alike).
    """

    def __init__(
        self,
        reader: Reader,
        keyword: KeywordSearch,
        reranker: Reranker,
        library: Library,
        settings: RetrievalSettings | None = None,
    ) -> None:
        super().__init__(reader.nearest, keyword, reader.embedder, reranker, library, settings)
        self.reader = reader
        self._users = threading.Condition()

    def activate(self, reader: Reader) -> Reader:
        """Answer with ``reader`` from the next search on; returns the one it replaces."""
        with self._users:
            old, self.reader = self.reader, reader
            self.dense, self.embedder = reader.nearest, reader.embedder
        return old

    def retrieve(
        self,
        query: str,
        files: Sequence[str] = (),
        k: int | None = None,
        *,
        whole: bool = False,
        on_rerank: Callable[[int], None] | None = None,
    ) -> Retrieval:
        """``Retriever.retrieve`` with one reader throughout."""
        reader = self._hold()
        try:
            pinned = copy.copy(self)
            pinned.dense, pinned.embedder = reader.nearest, reader.embedder
            return Retriever.retrieve(pinned, query, files, k, whole=whole, on_rerank=on_rerank)
        finally:
            self._release(reader)

    def probe(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The router's vector probe, with one reader throughout."""
        reader = self._hold()
        try:
            return VectorProbe(reader.nearest, reader.embedder).search(query, k, files)
        finally:
            self._release(reader)

    def wait_unused(self, reader: Reader, timeout: float | None = None) -> bool:
        """Block until no search reads through ``reader`` (it is no longer the active one)."""
        with self._users:
            return self._users.wait_for(lambda: reader.users == 0, timeout)

    def _hold(self) -> Reader:
        with self._users:
            reader = self.reader
            reader.users += 1
            return reader

    def _release(self, reader: Reader) -> None:
        with self._users:
            reader.users -= 1
            self._users.notify_all()


class BoundProbe:
    """``PassageSearch`` for the router's probe: the retriever's active model, pinned."""

    def __init__(self, retriever: ModelBoundRetriever) -> None:
        self.retriever = retriever

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The ``k`` chunks nearest ``query`` in the whole library (cosine similarity)."""
        return self.retriever.probe(query, k, files)
