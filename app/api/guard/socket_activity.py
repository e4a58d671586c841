"""The window's socket and its login: a Socket.IO ``event`` (a click, a key) counts as use
of the login, the transport's pings and acks don't, so a tab left open does not keep it
alive. Every frame (a ping at least every 25 s) checks the login: once it has ended, the
socket is closed and docent.js shows the page that asks for a login link.
"""

from __future__ import annotations

import re

from starlette.types import Message, Receive, Send

from app.api.guard.login_sessions import LoginSessions

SOCKET_PREFIX = "/_nicegui_ws/"
"""Where NiceGUI serves its Socket.IO endpoint (polling and websocket)."""
LOGGED_OUT = 4401
"""The close code of a socket whose login ended (4000-4999 are the application's)."""

_EVENT = re.compile(r'^42\d*\["event"')
"""An Engine.IO message ('4') holding a Socket.IO EVENT ('2', then an optional ack id)
named ``event``: NiceGUI's name for everything an element or ``emitEvent`` sends."""


def is_socket_path(path: str) -> bool:
    return path.startswith(SOCKET_PREFIX)


def carries_use(payload: str | bytes) -> bool:
    """Whether an Engine.IO payload holds something the person did in the window (a polling
    body holds several packets, split by the record separator 0x1e)."""
    text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    return any(_EVENT.match(packet) for packet in text.split("\x1e"))


class SocketWatch:
    """One socket request's receive and send, as seen by the login ``session_id`` rides on."""

    def __init__(
        self, sessions: LoginSessions, session_id: str, receive: Receive, send: Send
    ) -> None:
        self.sessions = sessions
        self.session_id = session_id
        self._receive = receive
        self._send = send
        self.closed = False

    async def receive(self) -> Message:
        message = await self._receive()
        kind = message["type"]
        if kind == "websocket.receive":
            payload = message.get("text") or message.get("bytes") or ""
            if not self.sessions.check(self.session_id, activity=carries_use(payload)):
                self.closed = True
                await self._send({"type": "websocket.close", "code": LOGGED_OUT})
                return {"type": "websocket.disconnect", "code": LOGGED_OUT}
        elif kind == "http.request" and carries_use(message.get("body", b"")):
            self.sessions.check(self.session_id, activity=True)  # polling: the guard let it in
        return message

    async def send(self, message: Message) -> None:
        if not self.closed:  # the app may still say goodbye on a socket we closed
            await self._send(message)
