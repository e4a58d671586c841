"""How the guard says no: JSON errors for programs, a page for a person, headers on all."""

from __future__ import annotations

import json
from dataclasses import dataclass

from starlette.types import Scope, Send

from app.api.guard.headers import SECURITY_HEADERS
from app.error_text import bounded


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str
    page: str | None = None
    """HTML to show a person in a browser instead of the JSON error."""


async def start_response(send: Send, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"cache-control", b"no-store"), *SECURITY_HEADERS],
        }
    )


async def send_refusal(send: Send, refusal: Refusal, *, close: bool, html: bool) -> None:
    if html and refusal.page is not None:
        body, kind = refusal.page.encode(), b"text/html; charset=utf-8"
    else:
        body, kind = _json_body(refusal), b"application/json"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    if close:
        # Unread body bytes would otherwise be drained from the socket: hang up instead.
        headers.append((b"connection", b"close"))
    await start_response(send, refusal.status, headers)
    await send({"type": "http.response.body", "body": body})


async def refuse(scope: Scope, send: Send, refusal: Refusal, *, body_pending: bool) -> None:
    if scope["type"] == "http":
        await send_refusal(send, refusal, close=body_pending, html=True)
    elif "websocket.http.response" in scope.get("extensions", {}):
        body = _json_body(refusal)
        await send(
            {
                "type": "websocket.http.response.start",
                "status": refusal.status,
                "headers": [(b"content-type", b"application/json"), *SECURITY_HEADERS],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})


def _json_body(refusal: Refusal) -> bytes:
    """The contract's error body; the message bounded, as app/api/errors.py bounds it."""
    return json.dumps(
        {"error": {"code": refusal.code, "message": bounded(refusal.message)}}
    ).encode()
