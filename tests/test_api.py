"""The HTTP API's guards and routes, against the real app around in-process fakes."""

from __future__ import annotations

import stat
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import RunningApp, eventually, read_sse, running_app, wait_ready


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    settings = Settings(data_dir=tmp_path / "data", max_message_chars=16_000)
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(
        "# Notes\n\nThe spare key is under the blue flowerpot.\n", encoding="utf-8"
    )
    container = build_services(
        settings, llm=FakeChatModel(token_delay=0.01), embedder=FakeEmbedder()
    )
    async with running_app(container) as running:
        await wait_ready(running, 1)
        yield running


async def test_health_needs_no_token(app: RunningApp) -> None:
    async with httpx.AsyncClient(base_url=app.url) as anonymous:
        response = await anonymous.get("/api/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Basic abc", "Bearer"])
async def test_wrong_or_missing_token_gets_401(app: RunningApp, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    async with httpx.AsyncClient(base_url=app.url, headers=headers) as client:
        for method, path in [
            ("GET", "/api/status"),
            ("POST", "/api/chat"),
            ("GET", "/api/documents"),
            ("POST", "/api/search"),
        ]:
            response = await client.request(method, path, json={"message": "hi", "query": "x"})
            assert response.status_code == 401, path
            error = response.json()["error"]
            assert error["code"] == "unauthorized" and "run.py token" in error["message"]


async def test_token_file_is_private_and_stable(app: RunningApp) -> None:
    path = app.container.settings.paths.token_path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == app.container.token


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "192.168.1.5"])
async def test_foreign_host_header_gets_403(app: RunningApp, host: str) -> None:
    response = await app.client.get("/api/health", headers={"Host": host})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden_host"


@pytest.mark.parametrize("host", ["localhost:8080", "127.0.0.1", "[::1]:8080"])
async def test_loopback_host_headers_pass(app: RunningApp, host: str) -> None:
    assert (await app.client.get("/api/health", headers={"Host": host})).status_code == 200


async def test_too_long_message_gets_413(app: RunningApp) -> None:
    response = await app.client.post("/api/chat", json={"message": "x" * 16_001})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "message_too_long"


async def test_invalid_body_gets_a_json_error(app: RunningApp) -> None:
    response = await app.client.post("/api/chat", json={"mode": "telepathy"})
    assert response.status_code == 422
    assert "message" in response.json()["error"]["message"]


async def test_busy_session_gets_429(app: RunningApp) -> None:
    body = {"message": "Where is the spare key?", "session_id": "s1"}
    async with app.client.stream("POST", "/api/chat", json=body) as first:
        second = await app.client.post("/api/chat", json=body)
        events = await read_sse(first)
    assert second.status_code == 429
    assert second.json()["error"]["code"] == "session_busy"
    assert events[-1][0] == "done"


async def test_chat_without_stream_returns_json(app: RunningApp) -> None:
    response = await app.client.post(
        "/api/chat", json={"message": "Where is the spare key?", "stream": False}
    )
    assert response.status_code == 200
    body = response.json()
    # A search answer is checked (tests/test_api_support.py): `support` comes with it.
    assert {"session_id", "answer", "sources", "trace", "support"} <= set(body)
    assert body["sources"][0]["file"] == "notes.md" and body["sources"][0]["page"] is None
    assert body["trace"]["route"] == "rag"


async def test_search_and_documents(app: RunningApp) -> None:
    results = (await app.client.post("/api/search", json={"query": "spare key"})).json()
    assert results["results"][0]["file"] == "notes.md"
    assert "flowerpot" in results["results"][0]["text"]
    filtered = await app.client.post("/api/search", json={"query": "key", "files": ["none.pdf"]})
    assert filtered.json()["results"] == []
    docs = (await app.client.get("/api/documents")).json()["documents"]
    assert [(d["path"], d["status"]) for d in docs] == [("notes.md", "ready")]
    assert docs[0]["chunks"] >= 1


async def test_status_reports_index_and_ollama(app: RunningApp) -> None:
    status = (await app.client.get("/api/status")).json()
    assert status["ollama"]["reachable"] is True
    assert status["ollama"]["chat_model"] == "fake-chat"
    assert status["index"] == {
        "documents": 1,
        "chunks": status["index"]["chunks"],
        "queued": 0,
        "errors": 0,
        "waiting_for_space": 0,
        "disk_full": None,
    }
    assert status["index"]["chunks"] >= 1
    assert status["embed_model"] == "fake-embedder"


async def test_disconnected_client_does_not_lose_the_answer(app: RunningApp) -> None:
    body = {"message": "Where is the spare key?", "session_id": "gone"}
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("event: token"):
                break  # hang up mid-answer
    chat = app.container.chat
    await eventually(lambda: not chat.is_busy("gone"), what="the turn to finish without its client")
    messages = await chat.messages("gone")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"].startswith("Echo:")
