"""The guard in front of the API: Origin, login links, body caps, JSON 404s, headers.

Real HTTP against the API app on a real socket (tests/running.py), around fakes.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import Request, Response

from app.api.guard.guard import Access
from app.api.guard.headers import PAGE_POLICY, secured
from app.api.guard.login import LINK_SECONDS, LoginLinks
from app.api.guard.login_sessions import LoginSessions
from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import RunningApp, running_app, wait_ready

CAP = 20_000
STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
"""The body cap these tests run with (max_body_mb)."""


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    settings = Settings(data_dir=tmp_path / "data", max_body_mb=CAP / 1024 / 1024)
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(
        "The spare key is under the blue flowerpot.\n"
    )
    container = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder())
    async with running_app(container) as running:
        await wait_ready(running, 1)
        yield running


def state_changing_routes(app: RunningApp) -> Iterator[tuple[str, str]]:
    """Every (method, path) of the app that changes state, path parameters filled in."""
    for path, operations in app.app.openapi()["paths"].items():
        for method in sorted({m.upper() for m in operations} & STATE_CHANGING):
            yield method, re.sub(r"\{[^}]+\}", "x", path)


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://localhost:1", "null", "http://127.0.0.1.evil.io"]
)
async def test_every_state_changing_route_refuses_a_foreign_origin(
    app: RunningApp, origin: str
) -> None:
    routes = [*state_changing_routes(app), ("POST", "/mcp")]  # /mcp is not in the schema
    assert {
        ("POST", "/api/chat"),
        ("POST", "/api/login-link"),
        ("DELETE", "/api/sessions/x"),
    }.issubset(routes)
    assert ("POST", "/v1/chat/completions") in routes
    for method, path in routes:
        response = await app.client.request(
            method, path, headers={"Origin": origin}, json={"message": "hi", "query": "key"}
        )
        assert response.status_code == 403, (method, path)
        assert response.json()["error"]["code"] == "forbidden_origin"


async def test_own_origin_and_no_origin_are_served(app: RunningApp) -> None:
    port = app.url.rsplit(":", 1)[1]
    for headers in ({"Origin": app.url}, {"Origin": f"http://localhost:{port}"}, {}):
        response = await app.client.post("/api/search", json={"query": "key"}, headers=headers)
        assert response.status_code == 200, headers


async def test_unknown_api_paths_get_json_errors(app: RunningApp) -> None:
    for path in ("/api/nope", "/api", "/v1/chat/nowhere", "/mcp/nope", "/api/documents/x/y"):
        response = await app.client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found", path
    wrong_method = await app.client.delete("/api/status")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"
    async with httpx.AsyncClient(base_url=app.url) as anonymous:
        hidden = await anonymous.get("/api/nope")
    assert hidden.status_code == 401 and hidden.json()["error"]["code"] == "unauthorized"


async def test_every_response_forbids_framing_and_loads_nothing_from_elsewhere(
    app: RunningApp,
) -> None:
    async with httpx.AsyncClient(base_url=app.url) as anonymous:
        responses = [
            await anonymous.get("/api/health"),
            await anonymous.get("/"),
            await anonymous.get("/api/status"),
            await app.client.get("/api/status"),
            await app.client.get("/api/nope"),
        ]
    for response in responses:
        assert response.headers.get_list("content-security-policy") == [PAGE_POLICY]
        assert response.headers["x-frame-options"] == "DENY"
    policy = dict(d.split(" ", 1) for d in PAGE_POLICY.split("; "))
    assert policy["default-src"] == "'self'" and policy["connect-src"] == "'self'"
    assert policy["img-src"] == "'self' data: blob:" and policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == policy["base-uri"] == "'none'"


def test_a_policy_of_its_own_is_merged_never_dropped() -> None:
    own = [(b"content-type", b"text/plain"), (b"content-security-policy", b"sandbox")]
    merged = dict(secured(own))
    assert merged[b"content-security-policy"] == b"sandbox; frame-ancestors 'none'"
    assert merged[b"x-frame-options"] == b"DENY"
    assert merged[b"x-content-type-options"] == b"nosniff"
    framed = [(b"content-security-policy", b"frame-ancestors 'self'")]
    assert secured(framed)[0] == framed[0]  # says who may frame it: kept as it is
    assert b"x-frame-options" not in dict(secured(framed))  # no DENY to contradict it
    nothing = dict(secured([]))
    assert nothing[b"content-security-policy"] == PAGE_POLICY.encode()


async def test_a_response_with_its_own_frame_policy_keeps_it(app: RunningApp) -> None:
    """The window's PDF viewer frames one kind of response from its own origin."""

    def framed() -> Response:
        own = {"Content-Security-Policy": "frame-ancestors 'self'", "X-Frame-Options": "SAMEORIGIN"}
        return Response(b"%PDF-1.4", media_type="application/pdf", headers=own)

    app.app.add_api_route("/framed-by-us", framed)
    response = await app.client.get("/framed-by-us")
    assert response.headers.get_list("content-security-policy") == ["frame-ancestors 'self'"]
    assert response.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert response.headers["x-content-type-options"] == "nosniff"
    async with httpx.AsyncClient(base_url=app.url) as anonymous:
        refused = await anonymous.get("/framed-by-us")  # still behind the login
    assert refused.status_code == 401
    assert refused.headers["content-security-policy"] == PAGE_POLICY


async def test_login_link_works_once_and_sets_a_strict_cookie(app: RunningApp) -> None:
    link = (await app.client.post("/api/login-link")).json()["url"]
    assert link.startswith(f"{app.url}/login?key=")
    async with httpx.AsyncClient() as browser:
        before = await browser.get(f"{app.url}/api/status")
        login = await browser.get(link)
        after = await browser.get(f"{app.url}/api/status")
        again = await httpx.AsyncClient().get(link)
    assert before.status_code == 401
    assert login.status_code == 303 and login.headers["location"] == "/"
    cookie = login.headers["set-cookie"]
    port = app.url.rsplit(":", 1)[1]
    assert cookie.startswith(f"docent-{port}=")
    for attribute in ("HttpOnly", "SameSite=Strict", "Path=/"):
        assert attribute in cookie
    assert "Max-Age" not in cookie and "Expires" not in cookie  # gone with the browser
    assert after.status_code == 200
    assert again.status_code == 401 and "run.py open" in again.text
    assert app.container.token not in login.text + after.text + again.text


async def test_forged_or_foreign_cookies_are_refused(app: RunningApp) -> None:
    port = app.url.rsplit(":", 1)[1]
    access: Access = app.app.state.access
    other = LoginSessions(app.container.settings.paths.data_dir / "other", idle_seconds=60).start()
    mine = access.sessions.start()
    for name, value in [
        (f"docent-{port}", other),  # another instance's session
        (f"docent-{port}", mine[:-1] + ("A" if mine[-1] != "A" else "B")),
        (f"docent-{port}", ""),
        (f"docent-{int(port) + 1}", mine),  # named for another port
    ]:
        async with httpx.AsyncClient(base_url=app.url, cookies={name: value}) as client:
            assert (await client.get("/api/status")).status_code == 401, (name, value)
    async with httpx.AsyncClient(base_url=app.url, cookies={f"docent-{port}": mine}) as client:
        assert (await client.get("/api/status")).status_code == 200


def test_login_links_expire_and_work_once() -> None:
    now = [1_000_000.0]
    links = LoginLinks(clock=lambda: now[0])
    late = links.issue("http://127.0.0.1:8080").rsplit("=", 1)[1]
    once = links.issue("http://127.0.0.1:8080").rsplit("=", 1)[1]
    assert links.redeem(once) and not links.redeem(once)
    now[0] += LINK_SECONDS + 1
    assert not links.redeem(late)


async def test_a_body_over_the_cap_is_refused_before_it_is_read(app: RunningApp) -> None:
    big = {"message": "x" * CAP}
    response = await app.client.post("/api/chat", json=big)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    assert "max_body_mb" in response.json()["error"]["message"]

    # Chunked: no length up front; the guard counts and answers once the cap is passed.
    # (In a thread: the server runs on this test's event loop.)
    reply = await asyncio.to_thread(send_chunked, app, b"x" * (CAP + 1), app.container.token)
    assert reply.startswith("HTTP/1.1 413") and "body_too_large" in reply
    small = await app.client.post("/api/search", json={"query": "key"})
    assert small.status_code == 200


def send_chunked(app: RunningApp, body: bytes, token: str) -> str:
    """POST ``body`` to /api/chat in chunks, like a client that reads while it sends."""
    host, port = app.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
            + f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\r\n".encode()
        )
        for start in range(0, len(body), 4096):
            piece = body[start : start + 4096]
            sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        return read_until_closed(sock)


def send_headers_only(app: RunningApp, headers: bytes) -> str:
    """Announce a body, send none of it, and return the server's reply."""
    host, port = app.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(headers)
        return read_until_closed(sock)


def read_until_closed(sock: socket.socket) -> str:
    """Everything the server sends until it hangs up (the refusals close the connection)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received.decode()


async def test_unauthenticated_body_gets_401_before_any_byte_is_read(app: RunningApp) -> None:
    reply = await asyncio.to_thread(
        send_headers_only,
        app,
        b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 500000000\r\n\r\n",
    )
    assert reply.startswith("HTTP/1.1 401")
    assert "connection: close" in reply.lower()


async def test_a_route_can_raise_its_own_cap(app: RunningApp) -> None:
    access: Access = app.app.state.access

    @app.app.post("/api/echo-size")
    async def echo_size(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    @app.app.post("/api/uploads/{name}")
    async def upload(name: str, request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    body = b"x" * (CAP * 3)
    capped = await app.client.post("/api/echo-size", content=body)
    access.body_limits.allow("POST", "/api/echo-size", max_bytes=None)
    access.body_limits.allow("POST", "/api/uploads/*", max_bytes=CAP * 4)
    raised = await app.client.post("/api/echo-size", content=body)
    under_its_cap = await app.client.post("/api/uploads/a.pdf", content=body)
    over_its_cap = await app.client.post("/api/uploads/b.pdf", content=body * 2)
    other = await app.client.post("/api/chat", content=body)
    assert capped.status_code == 413
    assert raised.status_code == 200 and raised.json() == {"size": CAP * 3}
    assert under_its_cap.status_code == 200 and over_its_cap.status_code == 413
    assert other.status_code == 413
