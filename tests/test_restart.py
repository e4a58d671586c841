"""What a restarted app keeps: its sessions and its index."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually

ANSWER = "The spare key is under the flowerpot [1]."
"""Copied from notes.md: the answer check lets it stand as the model wrote it."""


async def test_sessions_and_index_survive_a_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text("The spare key is under the flowerpot.\n")

    first = build_services(
        settings, llm=FakeChatModel(default_reply=ANSWER), embedder=FakeEmbedder()
    )
    await first.start(watch=False)
    await eventually(lambda: bool(first.registry.ready_paths()), what="notes.md indexed")
    await first.chat.start_turn("s1", "Where is the spare key?").result()
    await first.stop()

    embedder = FakeEmbedder()
    second = build_services(settings, llm=FakeChatModel(), embedder=embedder)
    await second.start(watch=False)
    try:
        assert [s.id for s in second.sessions.list()] == ["s1"]
        messages = await second.chat.messages("s1")
        assert [(m["role"], m["content"]) for m in messages] == [
            ("user", "Where is the spare key?"),
            ("assistant", ANSWER),
        ]
        assert messages[1]["sources"][0]["file"] == "notes.md"
        assert await second.indexer.scan() == 0  # nothing changed, nothing to redo
        await asyncio.wait_for(second.indexer.wait_idle(), 60)
        assert second.registry.ready_paths() == ["notes.md"]
        assert embedder.calls == []  # unchanged files are not embedded again
        assert second.embedding.store.search("spare key", 1)[0].chunk.file == "notes.md"
    finally:
        await second.stop()
