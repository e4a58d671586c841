"""Query embeddings cached by the text's hash: a repeated or rephrased-back query is free."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

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
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed_query(self, text: str) -> list[float]:
        """The query's vector, computed once per distinct text while it stays cached."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        with self._lock:
            vector = self._cache.get(key)
            if vector is not None:
                self._cache.move_to_end(key)
                self.hits += 1
                return vector
        vector = self.embedder.embed([text])[0]
        with self._lock:
            self.misses += 1
            self._cache[key] = vector
            self._cache.move_to_end(key)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return vector

    def __len__(self) -> int:
        return len(self._cache)
