"""Many sessions at once over HTTP: each gets its own answer, all saved, no lock errors."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import RunningApp, read_sse, running_app, wait_ready

SESSIONS = 20


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    settings = Settings(data_dir=tmp_path / "data")
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(
        "The spare key is under the blue flowerpot.\n"
    )
    llm = FakeChatModel(token_delay=0.005)  # echoes each question back, word by word
    async with running_app(build_services(settings, llm=llm, embedder=FakeEmbedder())) as running:
        await wait_ready(running, 1)
        yield running


async def test_twenty_concurrent_streams_each_get_their_own_answer(
    app: RunningApp, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)

    async def converse(n: int) -> list[tuple[str, dict]]:
        body = {"message": f"Where is item-{n}-marker kept?", "session_id": f"s{n}", "mode": "chat"}
        async with app.client.stream("POST", "/api/chat", json=body) as response:
            assert response.status_code == 200
            return await read_sse(response)

    results = await asyncio.gather(*(converse(n) for n in range(SESSIONS)))

    for n, events in enumerate(results):
        assert events[-1][0] == "done", events[-1]
        tokens = "".join(data["text"] for kind, data in events if kind == "token")
        assert tokens == events[-1][1]["answer"]
        assert f"item-{n}-marker" in tokens
        others = [m for m in range(SESSIONS) if m != n and f"item-{m}-marker" in tokens]
        assert others == [], f"session {n} got tokens of sessions {others}"
    for n in range(SESSIONS):  # every turn was saved in its own session
        messages = await app.container.chat.messages(f"s{n}")
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert f"item-{n}-marker" in messages[1]["content"]
    problems = [r.getMessage() for r in caplog.records if "locked" in r.getMessage().lower()]
    assert problems == []
