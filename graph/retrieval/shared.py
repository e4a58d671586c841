"""One nearest-neighbour search per question: the router's probe searches the store, and
the retriever, a moment later, takes that result instead of searching again."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from graph.retrieval.ports import DenseIndex
from graph.retrieval.types import Key
from ingest.types import Chunk, Hit

KEEP_SECONDS = 30.0
"""A probe's result nobody took within this long is dropped: the library may have changed."""
MAX_KEPT = 16


class SharedNearest:
    """``DenseIndex`` over ``inner``: ``query_vector`` (the probe) searches ``pool`` deep and
    keeps the keys and scores; the next whole-library ``nearest`` for the same vector and
    at most that depth takes them, once. Everything else is ``inner``'s."""

    def __init__(self, inner: DenseIndex, pool: int) -> None:
        self.inner = inner
        self.pool = pool
        self._kept: OrderedDict[bytes, tuple[float, int, list[tuple[Key, float]]]] = OrderedDict()
        self._lock = threading.Lock()
        self.reused = 0

    def query_vector(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[Hit]:
        """The ``k`` chunks nearest ``vector``, texts included, best first."""
        if doc_ids is not None:
            return self.inner.query_vector(vector, k, doc_ids)
        depth = max(k, self.pool)
        found = self.inner.nearest(vector, depth)
        with self._lock:
            self._kept[_digest(vector)] = (time.monotonic(), depth, found)
            while len(self._kept) > MAX_KEPT:
                self._kept.popitem(last=False)
        top = found[:k]
        chunks = {(c.doc_id, c.index): c for c in self.inner.get_chunks([key for key, _ in top])}
        return [Hit(chunk=chunks[key], score=score) for key, score in top if key in chunks]

    def nearest(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[tuple[Key, float]]:
        """Keys of the ``k`` chunks nearest ``vector`` with their cosine, best first."""
        if doc_ids is None:
            digest = _digest(vector)
            with self._lock:
                kept = self._kept.pop(digest, None)
            if kept is not None and time.monotonic() - kept[0] < KEEP_SECONDS:
                _, depth, found = kept
                if k <= depth:
                    self.reused += 1
                    return found[:k]
        return self.inner.nearest(vector, k, doc_ids)

    def vectors(self, keys: Sequence[Key]) -> Mapping[Key, Sequence[float]]:
        """``inner``'s."""
        return self.inner.vectors(keys)

    def get_chunks(self, keys: Sequence[Key]) -> list[Chunk]:
        """``inner``'s."""
        return self.inner.get_chunks(keys)

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """``inner``'s."""
        return self.inner.document_chunks(doc_id)


def _digest(vector: Sequence[float]) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()
