"""Request body caps: one default, and routes (uploads) that raise their own. A chunked
body is counted as it arrives and cut off at the cap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from starlette.types import Message, Receive, Send

from app.api.guard.headers import secured
from app.api.guard.refusals import Refusal, send_refusal

MB = 1024 * 1024


class BodyCap(NamedTuple):
    """A route's body cap in bytes (``None``: the route caps it) and the setting behind it."""

    max_bytes: int | None
    setting: str


@dataclass
class BodyLimits:
    """The largest request body each route may send; ``None`` means the route caps it."""

    default: int
    routes: dict[tuple[str, str], BodyCap] = field(default_factory=dict)
    default_setting: str = "max_body_mb"

    def allow(
        self, method: str, path: str, max_bytes: int | None, *, setting: str = "max_body_mb"
    ) -> None:
        """Give one route its own cap, e.g. uploads, which cap each file as they stream it.
        A ``path`` ending in ``*`` is a prefix; ``setting`` is named in the 413's message."""
        self.routes[(method.upper(), path)] = BodyCap(max_bytes, setting)

    def for_request(self, method: str, path: str) -> BodyCap:
        if (method, path) in self.routes:
            return self.routes[(method, path)]
        for (allowed_method, pattern), cap in self.routes.items():
            if allowed_method == method and pattern.endswith("*") and path.startswith(pattern[:-1]):
                return cap
        return BodyCap(self.default, self.default_setting)


class BodyTooLarge(Exception):
    """The client kept sending past the cap; the 413 has already been sent."""


class BodyExchange:
    """One request's receive and send: counts the body against the cap, adds the headers."""

    def __init__(self, receive: Receive, send: Send, cap: BodyCap) -> None:
        self._receive = receive
        self._send = send
        self.cap = cap
        self.limit = cap.max_bytes
        self.received = 0
        self.started = False
        self.refused = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request" and self.limit is not None:
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                if not self.started:
                    self.refused = True
                    refusal = too_large(self.limit, self.cap.setting)
                    await send_refusal(self._send, refusal, close=True, html=False)
                raise BodyTooLarge
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return  # the app's own answer to a body it never got whole
        if message["type"] == "http.response.start":
            self.started = True
            message = {**message, "headers": secured(list(message.get("headers", [])))}
        await self._send(message)


def too_large(limit: int, setting: str) -> Refusal:
    return Refusal(
        413,
        "body_too_large",
        f"The request body is over the {limit / MB:g} MB limit "
        f"(setting {setting}, DOCENT_{setting.upper()}).",
    )
