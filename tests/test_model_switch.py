"""Changing the embedding model: the old collection answers until the new one is complete."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.container import Services, build_services
from app.services.embedders import CHECK_TEXT
from app.services.embedding_state import EmbeddingState, EmbeddingUnavailable
from app.settings import Settings
from ingest.index.chroma_collections import DOCUMENTS_SUFFIX
from ingest.index.vectors import ChromaStore
from ingest.pipeline.progress import IngestEvent
from models.embeddings import MODEL_NAME, EmbedderUnavailable
from models.protocols import Embedder
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import eventually


class SlowStart(FakeEmbedder):
    """A new model that waits for a signal before its first vectors (the switch is busy)."""

    def __init__(self, name: str) -> None:
        super().__init__(dim=32, name=name)
        self.go = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.go.wait(30)
        return super().embed(texts)


async def test_new_model_builds_in_the_background_then_swaps(tmp_path: Path) -> None:
    settings = Settings.model_validate({"data_dir": tmp_path / "data"})
    settings.paths.docs_dir.mkdir(parents=True)
    for i in range(3):
        (settings.paths.docs_dir / f"n{i}.md").write_text(f"# Note {i}\n\nHedgehogs number {i}.")
    old_model = FakeEmbedder(name="model-a")
    first = build_services(settings, llm=FakeChatModel(), embedder=old_model)
    await first.indexer.index_all()
    first.registry.close()
    first.index_lock.release()

    new_model = SlowStart("model-b")
    second = build_services(
        settings, llm=FakeChatModel(), embedder=new_model, previous_embedder=old_model
    )
    switch_events: list[IngestEvent] = []
    second.events.subscribe(lambda e: switch_events.append(e) if e.kind == "switch" else None)
    await second.start(watch=False)
    try:
        assert second.embedding.switch is not None
        # The new model is stuck: the old collection still answers every search.
        assert second.embedding.store.embedder is old_model
        assert second.embedding.store.search("hedgehogs", k=3)
        assert (await second.indexer.check()).differences() == []
        files_embedded = len(old_model.calls)

        new_model.go.set()
        await eventually(lambda: second.embedding.switch is None, what="the swap")

        assert (
            second.embedding.store.embedder is new_model
            and second.retriever.reader.dense is second.embedding.store
        )
        assert len(second.embedding.store.search("hedgehogs", k=5)) == 3
        assert len(old_model.calls) == files_embedded  # nothing re-read or re-embedded old
        # The old collection is gone once no search reads it.
        await eventually(
            lambda: collections(second) == with_documents(second.embedding.store.name),
            what="the drop",
        )
        assert (await second.indexer.check()).differences() == []
        assert switch_events and switch_events[-1].pages_done == switch_events[-1].pages_total == 3
    finally:
        new_model.go.set()
        await second.stop()

    third = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder(name="model-b"))
    try:
        assert third.embedding.switch is None  # the switch is remembered
    finally:
        third.registry.close()
        third.index_lock.release()


class HeldModel(FakeEmbedder):
    """A model that loads at once but holds its vectors for documents until ``go`` is set."""

    def __init__(self, name: str, dim: int = 32) -> None:
        super().__init__(dim=dim, name=name)
        self.go = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if list(texts) != [CHECK_TEXT]:
            self.go.wait(30)
        return super().embed(texts)


class StallingModel(FakeEmbedder):
    """The answering model; one query (``stall``) waits inside the embedding until released."""

    def __init__(self, name: str, stall: str) -> None:
        super().__init__(name=name)
        self.stall = stall
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if list(texts) == [self.stall]:
            self.entered.set()
            self.release.wait(30)
        return super().embed(texts)


async def running_app(tmp_path: Path, old: FakeEmbedder, **models: FakeEmbedder) -> Services:
    """The app answering with ``old`` over three notes; ``models`` are what Settings may pick
    (a name missing from them can't be loaded)."""
    settings = Settings.model_validate({"data_dir": tmp_path / "data"})
    settings.paths.docs_dir.mkdir(parents=True)
    for i in range(3):
        (settings.paths.docs_dir / f"n{i}.md").write_text(f"# Note {i}\n\nHedgehogs number {i}.")

    def load(chosen: Settings) -> Embedder:
        if chosen.models.embed_model not in models:
            raise EmbedderUnavailable(f"no weights for {chosen.models.embed_model} on this machine")
        return models[chosen.models.embed_model]

    app = build_services(settings, llm=FakeChatModel(), embedder=old, embedder_factory=load)
    await app.start(watch=False)
    await eventually(lambda: len(app.registry.ready_paths()) == 3, what="the notes indexed")
    return app


def collections(app: Services) -> set[str]:
    return app.embedding.store.chroma.collection_names()


def with_documents(name: str) -> set[str]:
    """A collection of chunks and its collection of document vectors."""
    return {name, name + DOCUMENTS_SUFFIX}


async def test_settings_switch_the_model_live_and_search_keeps_answering(tmp_path: Path) -> None:
    old = StallingModel("model-a", stall="hedgehogs number 2")
    new = HeldModel("model-b")  # 32 dims against 64: a vector of the wrong model fails
    app = await running_app(tmp_path, old, **{"model-b": new})
    try:
        states: list[EmbeddingState] = []
        app.embedding.subscribe(states.append)
        restart = app.preferences.update({"embed_backend": "ollama", "embed_model": "model-b"})
        assert restart == []  # nothing waits for a restart
        assert app.embedding.pending is not None
        assert "Rebuilding the index with model-b" in await app.embedding.pending
        assert app.embedding.switch is not None and app.embedding.state().building == "model-b"

        # While model-b's collection is built, the old one answers, with model-a's vectors.
        found = await asyncio.to_thread(app.retriever.retrieve, "hedgehogs number 1")
        assert found.passages and ["hedgehogs number 1"] in old.calls
        assert ["hedgehogs number 1"] not in new.calls
        with app.retriever.begin() as search:
            assert await asyncio.to_thread(search.probe, "hedgehogs number 1") > 0

        # A search that embedded its query with model-a before the swap reads model-a's
        # collection after it: the swap waits for it before dropping that collection.
        straddling = asyncio.create_task(
            asyncio.to_thread(app.retriever.retrieve, "hedgehogs number 2")
        )
        await eventually(old.entered.is_set, what="the search to embed its query")
        old_collection = app.embedding.store.name
        new.go.set()
        await eventually(lambda: app.embedding.switch is None, what="the swap")
        assert (
            app.embedding.store.embedder is new
            and app.retriever.reader.dense is app.embedding.store
        )
        assert old_collection in collections(app)  # a search still reads it
        old.release.set()
        straddled = await straddling  # model-a's 64 dims against model-b's 32 would fail
        assert straddled.passages and straddled.passages[0].path == "n2.md"
        await eventually(lambda: old_collection not in collections(app), what="the old dropped")

        calls = len(old.calls)
        found = await asyncio.to_thread(app.retriever.retrieve, "hedgehogs number 0")
        assert found.passages and ["hedgehogs number 0"] in new.calls
        assert len(old.calls) == calls
        assert states[-1] == EmbeddingState(answering="model-b")
        assert any(s.building == "model-b" and s.done == s.total == 3 for s in states)
        assert (await app.indexer.check()).differences() == []
    finally:
        new.go.set()
        old.release.set()
        await app.stop()
    saved = json.loads((app.settings.paths.data_dir / "preferences.json").read_text())
    assert saved["embed_model"] == "model-b" and saved["embed_backend"] == "ollama"
    again = build_services(app.settings, llm=FakeChatModel(), embedder=FakeEmbedder(32, "model-b"))
    try:
        assert again.embedding.switch is None  # the switch is remembered
    finally:
        again.registry.close()
        again.index_lock.release()


async def test_a_model_that_cannot_load_changes_nothing_and_says_why(tmp_path: Path) -> None:
    old = FakeEmbedder(name="model-a")
    app = await running_app(tmp_path, old)
    try:
        app.preferences.update({"embed_backend": "ollama", "embed_model": "model-x"})
        assert app.embedding.pending is not None
        with pytest.raises(EmbeddingUnavailable) as failed:
            await app.embedding.pending
        message = str(failed.value)
        assert "model-x" in message and "no weights for model-x on this machine" in message
        assert "keeps answering with model-a" in message
        assert app.embedding.state().problem == message
        assert app.embedding.switch is None and app.embedding.store.embedder is old
        assert app.settings.models.embed_model != "model-x"
        saved = app.settings.paths.data_dir / "preferences.json"
        assert not saved.exists() or "model-x" not in saved.read_text()
        assert (await asyncio.to_thread(app.retriever.retrieve, "hedgehogs")).passages
    finally:
        await app.stop()


async def test_an_ollama_model_that_is_not_pulled_is_refused_with_the_fix(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    ollama_server.models = ["llama3.2:latest"]
    settings = Settings.model_validate({"data_dir": tmp_path / "data"})
    app = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder(name="model-a"))
    await app.start(watch=False)
    try:
        app.preferences.update(
            {
                "embed_backend": "ollama",
                "embed_model": "nomic-embed-text",
                "embed_host": ollama_server.url,
            }
        )
        assert app.embedding.pending is not None
        with pytest.raises(EmbeddingUnavailable, match="ollama pull nomic-embed-text"):
            await app.embedding.pending
        assert app.embedding.switch is None and app.embedding.store.embedder.name == "model-a"
    finally:
        await app.stop()


async def test_choosing_again_during_a_rebuild_cancels_it(tmp_path: Path) -> None:
    old = FakeEmbedder(name="model-a")
    b, c = HeldModel("model-b"), HeldModel("model-c", dim=48)
    app = await running_app(
        tmp_path, old, **{"model-a": FakeEmbedder(name="model-a"), "model-b": b, "model-c": c}
    )
    try:
        app.preferences.update({"embed_backend": "ollama", "embed_model": "model-b"})
        assert app.embedding.pending is not None
        await app.embedding.pending
        building = app.embedding.switch
        assert building is not None
        partial = building.new.name

        # Another model: model-b's rebuild stops after the document it is copying.
        app.preferences.update({"embed_model": "model-c"})
        choosing = app.embedding.pending
        assert choosing is not None
        await eventually(building.stop.is_set, what="the rebuild asked to stop")
        b.go.set()
        assert "model-c" in await choosing
        assert app.embedding.switch is not None and app.embedding.switch.new.embedder is c
        await eventually(lambda: partial not in collections(app), what="model-b's part dropped")

        # Back to the model that answers: the rebuild is cancelled, nothing else changes.
        app.preferences.update({"embed_model": "model-a"})
        choosing = app.embedding.pending
        assert choosing is not None
        c.go.set()
        assert "model-a" in await choosing
        assert app.embedding.switch is None and app.embedding.store.embedder.name == "model-a"
        await eventually(
            lambda: collections(app) == with_documents(app.embedding.store.name),
            what="only model-a's",
        )
        assert (await asyncio.to_thread(app.retriever.retrieve, "hedgehogs")).passages
    finally:
        b.go.set()
        c.go.set()
        await app.stop()


async def test_switching_to_the_built_in_model_loads_its_shipped_weights(tmp_path: Path) -> None:
    settings = Settings.model_validate(
        {"data_dir": tmp_path / "data", "embed_backend": "ollama", "embed_model": "model-a"}
    )
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "n.md").write_text("# Hedgehogs\n\nHedgehogs eat beetles at night.")
    app = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder(name="model-a"))
    await app.start(watch=False)
    try:
        await eventually(lambda: bool(app.registry.ready_paths()), what="the note indexed")
        app.preferences.update({"embed_backend": "minilm"})
        assert app.embedding.pending is not None
        assert "all-MiniLM-L6-v2" in await app.embedding.pending
        await eventually(lambda: app.embedding.switch is None, timeout=60, what="the swap")
        assert app.embedding.store.embedder.name == MODEL_NAME
        found = await asyncio.to_thread(app.retriever.retrieve, "what do hedgehogs eat")
        assert found.passages and found.passages[0].path == "n.md"
    finally:
        await app.stop()


class HoldsContext(FakeEmbedder):
    """A model whose vectors of chunks behind their context wait for ``go`` (the
    re-embedding is under way); questions and plain texts pass."""

    def __init__(self, name: str) -> None:
        super().__init__(dim=32, name=name)
        self.go = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any(": " in text for text in texts):
            self.go.wait(30)
        return super().embed(texts)


async def test_a_library_of_text_only_vectors_is_re_embedded_while_it_answers(
    tmp_path: Path,
) -> None:
    settings = Settings.model_validate({"data_dir": tmp_path / "data"})
    settings.paths.docs_dir.mkdir(parents=True)
    for i in range(3):
        (settings.paths.docs_dir / f"n{i}.md").write_text(f"# Note {i}\n\nHedgehogs number {i}.")
    model = FakeEmbedder(dim=32, name="model-a")
    first = build_services(settings, llm=FakeChatModel(), embedder=model)
    await first.indexer.index_all()
    # Make it the library an older Docent left: vectors of the text alone, in the model's
    # plain collection, and a registry that does not say what its vectors are made from.
    old = ChromaStore(first.embedding.store.chroma, model, vector_text=1)
    for key in first.embedding.store.document_ids():
        chunks = first.embedding.store.document_chunks(key)
        old.add_chunks(key, chunks, model.embed([c.text for c in chunks]))
    first.embedding.store.drop()
    spec = json.loads(first.registry.state("embedder") or "{}")
    del spec["vector_text"]
    first.registry.set_state("embedder", json.dumps(spec))
    first.registry.close()
    first.index_lock.release()

    held = HoldsContext("model-a")
    second = build_services(settings, llm=FakeChatModel(), embedder=held)
    await second.start(watch=False)
    try:
        assert second.embedding.switch is not None
        # The text-only collection answers, alone, until every document has a new vector.
        assert (second.embedding.store.name, second.embedding.store.vector_text) == (
            "docent-model-a",
            1,
        )
        assert second.retriever.reader.dense is second.embedding.store
        assert len(second.embedding.store.search("hedgehogs", k=5)) == 3

        held.go.set()
        await eventually(lambda: second.embedding.switch is None, what="the re-embedding")
        assert (second.embedding.store.name, second.embedding.store.vector_text) == (
            "docent-model-a-ctx",
            2,
        )
        assert second.retriever.reader.dense is second.embedding.store
        assert len(second.embedding.store.search("hedgehogs", k=5)) == 3
        embedded = [t for call in held.calls for t in call if "Hedgehogs" in t]
        assert sorted(embedded) == [
            f"n{i} > Note {i}: # Note {i}\n\nHedgehogs number {i}." for i in range(3)
        ]
        await eventually(
            lambda: collections(second) == with_documents(second.embedding.store.name),
            what="the drop",
        )
        assert json.loads(second.registry.state("embedder") or "{}")["vector_text"] == 2
    finally:
        held.go.set()
        await second.stop()
