"""Embedding a file's chunks for each vector index and holding them for the next write
(during a model switch, the old and the new collection each get their own vectors)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from ingest.document_parts import Chunk
from ingest.index.chunk_context import Outline
from ingest.index.write_ports import VectorIndex
from ingest.pipeline.batcher import EmbedBatcher, shares_batches
from ingest.pipeline.write_behind import WriteBehind
from models.protocols import Embedder


class VectorWrites:
    """Embeds what each vector index lacks of a file, and holds it for ``writes``."""

    def __init__(self, writes: WriteBehind, timings: dict[str, float]) -> None:
        self.writes = writes
        self.timings = timings
        """The pipeline's seconds per stage; embedding adds to ``embed``, storing to ``store``."""
        self._lock = threading.Lock()
        self._batchers: dict[int, EmbedBatcher] = {}

    def batcher(self, embedder: Embedder) -> EmbedBatcher | None:
        """The batcher that shares ``embedder``'s calls between files, if it allows that."""
        if not shares_batches(embedder):
            return None
        with self._lock:
            if id(embedder) not in self._batchers:
                self._batchers[id(embedder)] = EmbedBatcher(embedder)
            return self._batchers[id(embedder)]

    def write(
        self,
        key: str,
        chunks: list[Chunk],
        indexes: list[VectorIndex],
        held: list[set[int]],
        firsts: dict[tuple[int, int], tuple[str, Sequence[float]]],
    ) -> int:
        """Embed what each vector index lacks, once per embedder, and write each its share.

        ``firsts`` keeps the first chunk's text and vector: often a document's outline too.
        """
        computed: dict[tuple[int, int], dict[int, Sequence[float]]] = {}
        embedded = 0
        for index, have in zip(indexes, held, strict=True):
            missing = [c for c in chunks if c.index not in have]
            if not missing:
                continue
            embedder = index.embedder
            cache = computed.setdefault((id(embedder), index.vector_text), {})
            needed = [c for c in missing if c.index not in cache]
            if needed:
                started = time.perf_counter()
                texts = index.embedding_texts(needed)
                vectors = (self.batcher(embedder) or embedder).embed(texts)
                self.timings["embed"] += time.perf_counter() - started
                cache.update(zip((c.index for c in needed), vectors, strict=True))
                if needed[0].index == 0:
                    firsts[(id(embedder), index.vector_text)] = (texts[0], vectors[0])
                embedded += len(needed)
            index.hold_chunks(key, missing, [cache[c.index] for c in missing])
            self.writes.held(len(missing))
        return embedded

    def write_document(
        self,
        key: str,
        outline: Outline,
        count: int,
        indexes: list[VectorIndex],
        firsts: dict[tuple[int, int], tuple[str, Sequence[float]]],
    ) -> None:
        """Embed the document's outline once per embedder and store it in each index."""
        text = outline.text()
        if text is None:
            return
        computed = {eid: vector for (eid, _), (first, vector) in firsts.items() if first == text}
        for index in indexes:
            embedder = index.embedder
            if id(embedder) not in computed:
                started = time.perf_counter()
                computed[id(embedder)] = (self.batcher(embedder) or embedder).embed([text])[0]
                self.timings["embed"] += time.perf_counter() - started
            started = time.perf_counter()
            index.set_document_vector(key, computed[id(embedder)], count)
            self.timings["store"] += time.perf_counter() - started
