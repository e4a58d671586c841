"""A question survives the app being killed mid-answer: `run.py` is SIGKILLed while a
summary and a plain question wait on the model, then started again on the same data."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import ServedProcess, eventually, served_process

SUMMARY = "Summarise @notes.md"
QUESTION = "Where is the spare key?"
INTERRUPTED = "This answer was interrupted. Ask again."


def _client(app: ServedProcess) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=app.url, headers={"Authorization": f"Bearer {app.token}"}, timeout=30
    )


async def _messages(app: ServedProcess, session_id: str) -> list[dict[str, Any]]:
    async with _client(app) as client:
        response = await client.get(f"/api/sessions/{session_id}")
    if response.status_code == 404:
        return []
    assert response.status_code == 200, response.text
    return list(response.json()["messages"])


async def _ask(app: ServedProcess, session_id: str, message: str, mode: str) -> None:
    """Send a message and wait for the stream that the kill cuts off."""
    body = {"message": message, "session_id": session_id, "mode": mode}
    async with _client(app) as client:
        try:
            async with client.stream("POST", "/api/chat", json=body) as response:
                async for _ in response.aiter_lines():
                    pass
        except httpx.HTTPError:
            pass  # the app died under it, as it should


async def _held_then_killed(app: ServedProcess, ollama: FakeOllamaServer) -> None:
    """Start a summary, then a plain question; check each shows as asked, not as
    interrupted, while it runs; then kill -9 the app."""
    summary = asyncio.create_task(_ask(app, "summary", SUMMARY, "document"))
    # The model holds the summary's reading at the gate: the slow work has begun.
    await eventually(ollama.holding.is_set, timeout=60, what="the summary held at the gate")
    plain = asyncio.create_task(_ask(app, "plain", QUESTION, "rag"))
    for session_id, question in (("summary", SUMMARY), ("plain", QUESTION)):

        async def saved(session_id: str = session_id) -> bool:
            return bool(await _messages(app, session_id))

        await eventually(saved, timeout=30, what=f"the {session_id} question saved")
        running = await _messages(app, session_id)
        assert [(m["role"], m["content"]) for m in running] == [("user", question)]
    app.process.kill()
    app.process.wait()
    await asyncio.gather(summary, plain)


def test_a_question_cut_off_by_kill_9_is_kept_and_marked_interrupted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "documents").mkdir(parents=True)
    (data / "documents" / "notes.md").write_text("The spare key is under the blue flowerpot.\n")
    gate = threading.Event()
    with FakeOllamaServer() as ollama:
        try:
            with served_process(data, "--ollama-host", ollama.url) as first:

                async def indexed() -> bool:
                    async with _client(first) as client:
                        documents = (await client.get("/api/documents")).json()["documents"]
                    return [d["status"] for d in documents] == ["ready"]

                asyncio.run(eventually(indexed, timeout=60, what="notes.md indexed"))
                ollama.first_token_gate = gate
                asyncio.run(_held_then_killed(first, ollama))
        finally:
            gate.set()  # the fake's handler threads let go of the dead app's requests
        ollama.first_token_gate = None

        with served_process(data, "--ollama-host", ollama.url) as second:
            for session_id, question in (("summary", SUMMARY), ("plain", QUESTION)):
                messages = asyncio.run(_messages(second, session_id))
                assert [(m["role"], m["content"], m["interrupted"]) for m in messages] == [
                    ("user", question, False),
                    ("assistant", INTERRUPTED, True),
                ]

            async def exported() -> str:
                async with _client(second) as client:
                    response = await client.get("/api/sessions/summary/export")
                assert response.status_code == 200
                return response.text

            markdown = asyncio.run(exported())
            assert SUMMARY in markdown and "interrupted" in markdown
