"""Query embeddings cached by the text's hash: a repeated or rephrased-back query is free.

A query asked for while the same text is being embedded waits for that embedding instead
of computing it again, so a turn can start embedding its question early (``warm``) and
the search that follows takes the vector up where it is.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from concurrent.futures import Executor, Future

from models.protocols import Embedder

DEFAULT_ENTRIES = 2048
"""About 3 MB of 384-dim vectors: enough for every query of a long session."""


class CachedQueryEmbedder:
    """Embeds one query at a time through ``embedder``; keeps the last ``max_entries``."""

    def __init__(self, embedder: Embedder, max_entries: int = DEFAULT_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.embedder = embedder
        self.max_entries = max_entries
        self._cache: OrderedDict[bytes, list[float]] = OrderedDict()
        self._running: dict[bytes, Future[list[float]]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed_query(self, text: str) -> list[float]:
        """The query's vector, computed once per distinct text while it stays cached."""
        key = _key(text)
        with self._lock:
            vector = self._cache.get(key)
            if vector is not None:
                self._cache.move_to_end(key)
                self.hits += 1
                return vector
            running = self._running.get(key)
            if running is None:
                mine: Future[list[float]] = Future()
                self._running[key] = mine
        if running is not None:  # being embedded by another thread: share its result
            return running.result()
        try:
            vector = self.embedder.embed([text])[0]
        except BaseException as error:
            with self._lock:
                del self._running[key]
            mine.set_exception(error)
            raise
        with self._lock:
            self.misses += 1
            del self._running[key]
            self._cache[key] = vector
            self._cache.move_to_end(key)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        mine.set_result(vector)
        return vector

    def warm(self, text: str, executor: Executor) -> None:
        """Start embedding ``text`` on ``executor`` unless it is cached or under way."""
        key = _key(text)
        with self._lock:
            if key in self._cache or key in self._running:
                return
        executor.submit(self._warm, text)

    def _warm(self, text: str) -> None:
        try:
            self.embed_query(text)
        except Exception:  # the search that wants the vector meets the error and reports it
            pass

    def __len__(self) -> int:
        return len(self._cache)


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
