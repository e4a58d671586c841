"""Changing the embedding model (or what vectors are made from): build the new
collection while the old one answers, from the chunks the old one stores (no file read).
Meanwhile new files are written to both; the caller swaps stores when the new one is full.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.index.chunk_context import Outline
from ingest.index.registry import READY, Registry
from ingest.index.vectors import ChromaStore
from ingest.pipeline.progress import EventBus, IngestEvent

log = logging.getLogger(__name__)

_BATCH = 64


@dataclass(frozen=True)
class SwitchProgress:
    """How far the new collection is: contents done of total."""

    done: int
    total: int
    finished: bool


class ModelSwitch:
    """Copies every ready content from ``old`` to ``new``, embedding with the new model."""

    def __init__(
        self, registry: Registry, old: ChromaStore, new: ChromaStore, events: EventBus
    ) -> None:
        self.registry = registry
        self.old = old
        self.new = new
        self.events = events
        self.done = 0
        self.total = 0
        self.finished = False
        self.stop = threading.Event()

    def progress(self) -> SwitchProgress:
        """Where the switch is."""
        return SwitchProgress(self.done, self.total, self.finished)

    def run(self) -> bool:
        """Fill the new collection (in a thread); True when it holds every ready content."""
        keys = sorted(c.key for c in self.registry.contents() if c.state == READY)
        self.total, self.done = len(keys), 0
        # Said before the first document, which may take a while with a large library.
        self.events.publish_threadsafe(
            IngestEvent("switch", self.new.embedder.name, "", 0, self.total)
        )
        for key in keys:
            if self.stop.is_set():
                return False
            self._copy(key)
            self.done += 1
            self.events.publish_threadsafe(
                IngestEvent("switch", self.new.embedder.name, key, self.done, self.total)
            )
        # Contents that became ready meanwhile were written to both collections.
        self.finished = True
        return True

    def catch_up(self) -> int:
        """Copy the ready contents the new collection still lacks (a file being indexed as
        the switch began went to the old one only); returns how many."""
        have = self.new.document_ids()
        ready = {c.key for c in self.registry.contents() if c.state == READY}
        missing = sorted(ready - have)
        for key in missing:
            if self.stop.is_set():
                break
            self._copy(key)
        return len(missing)

    def _copy(self, key: str) -> None:
        have = self.new.chunk_indexes(key)
        outline, count = Outline(), 0
        first: tuple[str, Sequence[float]] | None = None
        for chunks in self.old.chunks_of(key, _BATCH):
            outline.add(chunks)
            count += len(chunks)
            missing = [c for c in chunks if c.index not in have]
            if missing:
                texts = self.new.embedding_texts(missing)
                vectors = self.new.embedder.embed(texts)
                self.new.add_chunks(key, missing, vectors)
                if missing[0].index == 0:
                    first = texts[0], vectors[0]
        text = outline.text()
        if text is not None:
            # A one-section document's outline is often its first chunk's words.
            vector = first[1] if first and first[0] == text else self.new.embedder.embed([text])[0]
            self.new.set_document_vector(key, vector, count)
