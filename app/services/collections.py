"""The index's collections: one per embedding model and kind of vector, and which answers.

Opened once at start: an index built with another model, or with vectors of an older kind
(docs/retrieval.md), keeps answering while the new collection is built (a switch left
unfinished resumes). ``EmbeddingModels`` takes them over from there.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from app.services.embedders import embedder_from, embedder_spec
from app.settings import Settings
from ingest.index.chroma_calls import ChromaCalls
from ingest.index.chunk_context import VECTOR_TEXT_VERSION
from ingest.index.registry import Registry
from ingest.index.vectors import ChromaStore, collection_name
from ingest.index.write_ports import ChunkIndex
from ingest.pipeline.progress import EventBus
from ingest.pipeline.switch import ModelSwitch
from models.embeddings import EmbedderUnavailable
from models.protocols import Embedder

log = logging.getLogger(__name__)


@dataclass
class Collections:
    """The collection that answers, every index the pipeline writes, and a switch under way."""

    settings: Settings
    chroma: ChromaCalls
    registry: Registry
    events: EventBus
    embedder: Embedder
    """The configured model: the one answering, or the one being built."""
    store: ChromaStore
    indexes: list[ChunkIndex]
    """The same list the indexer writes through (the keyword index joins it)."""
    switch: ModelSwitch | None


def open_collections(
    settings: Settings,
    chroma: ChromaCalls,
    registry: Registry,
    events: EventBus,
    embedder: Embedder,
    *,
    previous: Embedder | None = None,
) -> Collections:
    """The configured model's collection, or the old model's while a switch resumes."""
    store = ChromaStore(chroma, embedder, lookup=registry)
    found = Collections(settings, chroma, registry, events, embedder, store, [store], None)
    active = registry.state("embedder")
    spec = json.loads(active) if active is not None else {"name": embedder.name}
    same_model = spec["name"] == embedder.name
    old_text = int(spec.get("vector_text", 1 if active is not None else VECTOR_TEXT_VERSION))
    if same_model and old_text == VECTOR_TEXT_VERSION:
        registry.set_state("embedder", embedder_spec(embedder, settings))
        return found
    names = chroma.collection_names()
    old_name = collection_name(spec["name"], old_text)
    try:
        if old_name not in names:
            raise EmbedderUnavailable(f"no collection {old_name}")
        old_embedder = embedder if same_model else previous or embedder_from(spec, settings)
    except Exception as exc:  # the old model is gone: rebuild from the files instead
        log.warning("embedding model changed; rebuilding the index from files (%s)", exc)
        registry.set_state("embedder", embedder_spec(embedder, settings))
        return found
    old = ChromaStore(chroma, old_embedder, lookup=registry, name=old_name, vector_text=old_text)
    store.building = True
    found.store, found.indexes[:] = old, [old, store]  # the old one answers until the swap
    found.switch = ModelSwitch(registry, old, store, events)
    return found
