"""Every route, and /mcp: one call that works, a foreign Origin refused, its body cap.

The tables name every route in /openapi.json; a new route without a row fails here.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.api_app import api_app, error_code
from tests.running import RunningApp

MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
UPLOAD = (
    b'--b\r\nContent-Disposition: form-data; name="files"; filename="memo.md"\r\n\r\n'
    b"# Memo\r\n\r\nThe meeting moved to Thursday.\r\n--b--\r\n"
)
UPLOAD_TYPE = "multipart/form-data; boundary=b"

# (method, path as the schema names it): (path with ids filled in, request keywords, status)
CALLS: dict[tuple[str, str], tuple[str, dict[str, Any], int]] = {
    ("GET", "/api/health"): ("/api/health", {}, 200),
    ("POST", "/api/login-link"): ("/api/login-link", {}, 200),
    ("GET", "/api/status"): ("/api/status", {}, 200),
    ("POST", "/api/chat"): (
        "/api/chat",
        {"json": {"message": "Where is the spare key?", "stream": False}},
        200,
    ),
    ("GET", "/api/documents"): ("/api/documents", {}, 200),
    ("POST", "/api/documents"): (
        "/api/documents",
        {"content": UPLOAD, "headers": {"Content-Type": UPLOAD_TYPE}},
        201,
    ),
    ("POST", "/api/search"): ("/api/search", {"json": {"query": "spare key"}}, 200),
    ("POST", "/api/find"): ("/api/find", {"json": {"query": "spare key"}}, 200),
    ("POST", "/api/verify"): ("/api/verify", {"json": {"text": "The key is under a pot."}}, 200),
    ("GET", "/api/documents/{doc_id}/file"): ("/api/documents/{doc}/file", {}, 200),
    ("POST", "/api/documents/reindex"): ("/api/documents/reindex", {"json": {"id": "{doc}"}}, 202),
    ("DELETE", "/api/documents/{doc_id}"): ("/api/documents/{doc}", {}, 204),
    ("GET", "/api/sessions"): ("/api/sessions", {}, 200),
    ("GET", "/api/sessions/{session_id}"): ("/api/sessions/{session}", {}, 200),
    ("PATCH", "/api/sessions/{session_id}"): (
        "/api/sessions/{session}",
        {"json": {"title": "The key"}},
        200,
    ),
    ("GET", "/api/sessions/{session_id}/export"): ("/api/sessions/{session}/export", {}, 200),
    ("DELETE", "/api/sessions/{session_id}"): ("/api/sessions/{session}", {}, 204),
    ("GET", "/v1/models"): ("/v1/models", {}, 200),
    ("POST", "/v1/chat/completions"): (
        "/v1/chat/completions",
        {"json": {"model": "docent", "messages": [{"role": "user", "content": "The key?"}]}},
        200,
    ),
    ("POST", "/mcp"): ("/mcp", {"json": MCP_INIT, "headers": MCP_HEADERS}, 200),
}


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path) as running:
        yield running


async def schema_routes(app: RunningApp) -> set[tuple[str, str]]:
    schema = (await app.client.get("/openapi.json")).json()
    found = {(m.upper(), path) for path, ops in schema["paths"].items() for m in ops}
    return found | {("POST", "/mcp")}


def fill(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with ``{doc}`` and ``{session}`` replaced by real ids."""
    if isinstance(value, str):
        return re.sub(r"\{(doc|session)\}", lambda m: ids.get(m.group(1), "some-id"), value)
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    return value


async def test_every_route_has_a_call_that_works(app: RunningApp) -> None:
    assert set(CALLS) == await schema_routes(app), "a route without a row in CALLS"
    ids: dict[str, str] = {}
    for (method, _), (path, request, status) in CALLS.items():
        response = await app.client.request(method, fill(path, ids), **fill(request, ids))
        assert response.status_code == status, (method, path, response.text)
        if path == "/api/chat":
            ids["session"] = response.json()["session_id"]
        if method == "POST" and path == "/api/documents":
            (added,) = response.json()["documents"]
            ids["doc"] = added["id"]
            assert added["path"] == "memo.md"
    memo = app.container.settings.paths.docs_dir / "memo.md"
    assert not memo.exists()  # the DELETE row removed the uploaded file
    assert await app.container.chat.messages(ids["session"]) == []


ORIGINS = ["http://evil.example", "null", "http://127.0.0.1:1", "https://localhost.evil.example"]


@pytest.mark.parametrize("origin", ORIGINS)
async def test_every_route_refuses_a_foreign_origin(app: RunningApp, origin: str) -> None:
    docs = app.container.settings.paths.docs_dir
    before = sorted(docs.rglob("*"))
    notes_id = (await app.client.get("/api/documents")).json()["documents"][0]["id"]
    ids = {"doc": notes_id, "session": "some-id"}
    for (method, _), (path, request, _) in CALLS.items():
        request = fill(request, ids)
        headers = {**request.pop("headers", {}), "Origin": origin}
        response = await app.client.request(method, fill(path, ids), headers=headers, **request)
        # A web page learns nothing and changes nothing, public routes included.
        assert response.status_code == 403, (method, path, origin, response.text)
        assert error_code(response) == "forbidden_origin"
    assert sorted(docs.rglob("*")) == before
    assert (await app.client.get("/api/sessions")).json()["sessions"] == []


async def test_our_own_origin_is_let_through(app: RunningApp) -> None:
    for path in ("/api/documents", "/api/sessions", "/v1/models"):
        response = await app.client.get(path, headers={"Origin": app.url})
        assert response.status_code == 200, (path, response.text)


async def declared(app: RunningApp, method: str, path: str, length: int) -> bytes:
    """The answer to a request head declaring a body of ``length`` bytes (none sent)."""
    host, port = app.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {app.container.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode()
    )
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def test_every_route_with_a_body_caps_it(app: RunningApp) -> None:
    from app.api.routes.uploads import upload_body_cap

    default = int(app.container.settings.server.max_body_mb * 1024 * 1024)
    cap = {("POST", "/api/documents"): upload_body_cap(app.container.settings)}
    ids = {"doc": "some-id", "session": "some-id"}
    for (method, name), (path, _, _) in CALLS.items():
        if method not in ("POST", "PATCH"):
            continue
        limit = cap.get((method, name), default)
        answer = await declared(app, method, fill(path, ids), limit + 1)
        assert answer.startswith(b"HTTP/1.1 413"), (method, path, answer[:200])
        assert b"body_too_large" in answer
    assert (await app.client.get("/api/sessions")).json()["sessions"] == []
