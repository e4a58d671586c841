"""Lets the router start a search that the retriever then picks up instead of repeating."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from graph.deps import PassageSearch
from graph.retrieval.ports import DenseIndex, QueryEmbedder
from ingest.types import Hit

KEEP_SECONDS = 30.0
"""A prefetched result nobody asked for within this long is dropped: the index may have
changed since, and the turn that wanted it has long moved on."""


class PrefetchingSearch:
    """``PassageSearch`` whose ``prefetch`` starts a search in the background; the next
    ``search`` with the same query and files (and no larger ``k``) takes that result.

    A result is handed out once: later identical calls search again, so nothing stale
    outlives the turn that prefetched it. Other attributes are the wrapped search's.
    """

    def __init__(self, inner: PassageSearch, *, workers: int = 2) -> None:
        self.inner = inner
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="prefetch")
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, tuple[str, ...]], tuple[int, float, Future[list[Hit]]]] = {}

    def prefetch(self, query: str, k: int, files: Sequence[str] | None = None) -> Future[list[Hit]]:
        """Start searching now; the future holds the hits."""
        key = (query, tuple(sorted(files or ())))
        with self._lock:
            self._expire()
            pending = self._pending.get(key)
            if pending is not None and pending[0] >= k:
                return pending[2]
            future = self._pool.submit(self.inner.search, query, k, files or None)
            self._pending[key] = (k, time.monotonic(), future)
            return future

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The prefetched hits for exactly this search if there are any, else a new search."""
        key = (query, tuple(sorted(files or ())))
        with self._lock:
            pending = self._pending.get(key)
            if pending is not None and pending[0] >= k:
                del self._pending[key]
            else:
                pending = None
        if pending is not None:
            try:
                return pending[2].result()[:k]
            except Exception:  # the prefetch failed: searching again reports it properly
                pass
        return self.inner.search(query, k, files)

    def close(self) -> None:
        """Stop the worker threads (searches under way finish first)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __getattr__(self, name: str) -> Any:
        # Richer search methods of the wrapped object stay reachable through the wrapper.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _expire(self) -> None:
        cutoff = time.monotonic() - KEEP_SECONDS
        for key in [key for key, (_, made, _f) in self._pending.items() if made < cutoff]:
            del self._pending[key]


class VectorProbe:
    """``PassageSearch`` by vector similarity alone, for the router's probe.

    It embeds through the retriever's query embedder, whose cache then hands the same
    vector to the retriever when the turn goes on to search the same text: the probe's
    embedding, the costly part, is not repeated.
    """

    def __init__(self, dense: DenseIndex, embedder: QueryEmbedder) -> None:
        self.dense = dense
        self.embedder = embedder

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The ``k`` chunks nearest ``query`` in the whole library (cosine similarity)."""
        if files:
            raise ValueError("the probe searches the whole library")
        return self.dense.query_vector(self.embedder.embed_query(query), k)
