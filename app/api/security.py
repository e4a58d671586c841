"""Who may talk to the API: a Host header check for everything, a bearer token for the API."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable

from fastapi import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import ApiError

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]", "::1"}


def _hostname(host_header: str) -> str:
    """'example:8080' → 'example'; '[::1]:8080' → '[::1]'."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostCheckMiddleware:
    """Refuse requests whose Host isn't ours: a web page can't reach us by DNS rebinding."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = LOOPBACK_NAMES | {name.lower() for name in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            host = _hostname(headers.get(b"host", b"").decode("latin-1"))
            if host not in self.allowed:
                await self._refuse(scope, send, host)
                return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, host: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps(
            {"error": {"code": "forbidden_host", "message": f"Host '{host}' is not allowed."}}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


def require_token(request: Request) -> None:
    """FastAPI dependency: the bearer token from ``<data dir>/api-token``."""
    expected: str = request.app.state.container.token
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secrets.compare_digest(given.strip(), expected):
        raise ApiError(
            401,
            "unauthorized",
            "Missing or wrong API token. Send 'Authorization: Bearer <token>'; "
            "`uv run run.py token` prints it.",
        )
