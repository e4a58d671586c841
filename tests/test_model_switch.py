"""Changing the embedding model: the old collection answers until the new one is complete."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from app.container import Container
from app.settings import Settings
from ingest.events import IngestEvent
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
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
    settings.docs_dir.mkdir(parents=True)
    for i in range(3):
        (settings.docs_dir / f"n{i}.md").write_text(f"# Note {i}\n\nHedgehogs number {i}.")
    old_model = FakeEmbedder(name="model-a")
    first = Container(settings, llm=FakeChatModel(), embedder=old_model)
    await first.indexer.index_all()
    first.registry.close()
    first.index_lock.release()

    new_model = SlowStart("model-b")
    second = Container(
        settings, llm=FakeChatModel(), embedder=new_model, previous_embedder=old_model
    )
    switch_events: list[IngestEvent] = []
    second.events.subscribe(lambda e: switch_events.append(e) if e.kind == "switch" else None)
    await second.start(watch=False)
    try:
        assert second.switch is not None
        # The new model is stuck: the old collection still answers every search.
        assert second.store.embedder is old_model
        assert second.store.search("hedgehogs", k=3)
        assert (await second.indexer.check()).differences() == []
        files_embedded = len(old_model.calls)

        new_model.go.set()
        await eventually(lambda: second.switch is None, what="the swap")

        assert second.store.embedder is new_model and second.nearest.inner is second.store
        assert len(second.store.search("hedgehogs", k=5)) == 3
        assert len(old_model.calls) == files_embedded  # nothing re-read or re-embedded old
        names = {c.name for c in second.store.client.list_collections()}
        assert names == {second.store.name}  # the old collection is gone
        assert (await second.indexer.check()).differences() == []
        assert switch_events and switch_events[-1].pages_done == switch_events[-1].pages_total == 3
    finally:
        new_model.go.set()
        await second.stop()

    third = Container(settings, llm=FakeChatModel(), embedder=FakeEmbedder(name="model-b"))
    try:
        assert third.switch is None  # the switch is remembered
    finally:
        third.registry.close()
        third.index_lock.release()
