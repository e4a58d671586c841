"""Every documented route, and /mcp, sits behind the token and the Host check."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.api_app import anonymous, api_app, error_code
from tests.running import RunningApp

PUBLIC = {("GET", "/api/health")}
"""Routes that answer without the token (the Host check still applies)."""


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path) as running:
        yield running


async def every_route(app: RunningApp) -> list[tuple[str, str]]:
    schema = (await app.client.get("/openapi.json")).json()
    routes = [
        (method.upper(), re.sub(r"\{[a-z_]+\}", "some-id", path))
        for path, operations in schema["paths"].items()
        for method in operations
    ]
    assert len(routes) >= 11
    return [*routes, ("POST", "/mcp")]


async def test_every_route_needs_the_token(app: RunningApp) -> None:
    bodies = [None, {"message": "hi", "query": "x", "title": "t"}, {"junk": True}]
    async with anonymous(app) as client, anonymous(app, Authorization="Bearer nope") as wrong:
        for method, path in await every_route(app):
            if (method, path) in PUBLIC:
                continue
            for body in bodies:
                for caller in (client, wrong):
                    response = await caller.request(method, path, json=body)
                    # The token is checked before the body: a stranger learns nothing.
                    assert response.status_code == 401, (method, path, body, response.text)
                    assert error_code(response) == "unauthorized"
    assert await app.container.chat.messages("some-id") == []
    assert (await app.client.get("/api/sessions")).json()["sessions"] == []


async def test_every_route_checks_the_host(app: RunningApp) -> None:
    for method, path in await every_route(app):
        for host in ("evil.example", "evil.example:8080", "192.168.1.5", "localhost.evil.example"):
            response = await app.client.request(
                method, path, json={"message": "hi"}, headers={"Host": host}
            )
            assert response.status_code == 403, (method, path, host)
            assert error_code(response) == "forbidden_host"


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/api/chat", {"message": "hi", "mode": "telepathy"}, "mode"),
        ("POST", "/api/chat", {"message": ["hi"]}, "message"),
        ("POST", "/api/chat", {"message": "hi", "stream": "maybe"}, "stream"),
        ("POST", "/api/search", {"query": ""}, "query"),
        ("POST", "/api/search", {"query": "key", "k": 0}, "k"),
        ("POST", "/api/search", {"query": "key", "files": "notes.md"}, "files"),
        ("POST", "/v1/chat/completions", {"model": "docent", "messages": "hi"}, "messages"),
    ],
)
async def test_invalid_body_gets_422_naming_the_field(
    app: RunningApp, method: str, path: str, body: dict, field: str
) -> None:
    response = await app.client.request(method, path, json=body)
    assert response.status_code == 422 and error_code(response) == "invalid_request"
    assert field in response.json()["error"]["message"]


async def test_body_that_is_not_json_gets_422(app: RunningApp) -> None:
    for path in ("/api/chat", "/api/search", "/v1/chat/completions"):
        response = await app.client.post(
            path, content=b"{not json", headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422 and error_code(response) == "invalid_request"


ECHOED = 100_000
"""How many items, or characters, of a request an error might repeat back."""


async def test_no_error_repeats_more_than_a_few_hundred_characters_of_the_request(
    app: RunningApp,
) -> None:
    wrong = [0] * ECHOED  # each one a problem of its own
    climbing = "../" + "a" * ECHOED
    bodies = [
        {"message": "hi", "query": "x", "text": "Tea.", "title": "t", "scope": wrong},
        {"query": "x", "text": "Tea.", "title": "t", "scope": climbing},
    ]
    for method, path in await every_route(app):
        for body in bodies:
            response = await app.client.request(method, path, json=body)
            # The MCP SDK's JSON-RPC errors name each of a few problems, with pydantic's
            # shortened view of the input: bounded, if not as tightly as ours.
            most = 4_000 if path == "/mcp" else 1_000
            if response.status_code >= 400:
                assert len(response.content) < most, (method, path, response.text[:300])
    # The audit's: a scope of 100,000 folders, of which the error names a few.
    folders = [f"folder-{i:06d}/" for i in range(ECHOED)]
    response = await app.client.post("/api/verify", json={"text": "Tea.", "scope": folders})
    assert response.status_code == 404 and error_code(response) == "scope_empty"
    message = response.json()["error"]["message"]
    assert "'folder-000000/', 'folder-000001/', 'folder-000002/' and 99,997 more" in message
    assert message.endswith("GET /api/documents lists them.")
