"""Who may talk to Docent: one decision for the window, its socket and the API (the rules
are in docs/api.md). A pure ASGI middleware in front of everything, so it decides from the
headers alone (Host, Origin, token or login cookie, body size) before a body byte is read.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.guard.body_limits import BodyExchange, BodyLimits, BodyTooLarge, too_large
from app.api.guard.login import (
    COOKIE_PATH,
    LINK_REFUSED_PAGE,
    LOCKED_PAGE,
    LOGIN_PATH,
    LOGIN_QUERY,
    OPEN_COMMAND,
    LoginLinks,
    cookie_name,
    set_cookie_header,
)
from app.api.guard.login_sessions import LoginSessions
from app.api.guard.refusals import (
    Refusal,
    refuse,
    start_response,
)
from app.api.guard.socket_activity import SocketWatch, is_socket_path

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
API_PREFIXES = ("/api", "/v1", "/mcp")
PUBLIC_PATHS = frozenset({"/api/health"})

TOKEN_HELP = (
    "Missing or wrong API token. Send 'Authorization: Bearer <token>'; "
    "`uv run run.py token` prints it."
)


def is_api_path(path: str) -> bool:
    """Paths that answer JSON: the API, /v1 and /mcp, never the window's page."""
    return any(path == p or path.startswith(p + "/") for p in API_PREFIXES)


def hostname(host_header: str) -> str:
    """'example:8080' → 'example'; '[::1]:8080' → '[::1]'."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _port(host_header: str, scheme: str) -> int | None:
    tail = host_header.strip().rsplit("]", 1)[-1]
    if ":" in tail:
        digits = tail.rsplit(":", 1)[1]
        return int(digits) if digits.isdigit() else None
    return 443 if scheme in ("https", "wss") else 80


class Access:
    """This instance's rules: its token, login links and sessions, host names, body caps."""

    def __init__(
        self,
        *,
        token: str,
        links: LoginLinks,
        sessions: LoginSessions,
        allowed_hosts: Iterable[str],
        body_limits: BodyLimits,
    ) -> None:
        self.token = token
        self.links = links
        self.sessions = sessions
        self.allowed_hosts = LOOPBACK_NAMES | {h.lower() for h in allowed_hosts}
        self.body_limits = body_limits

    def check(self, scope: Scope, headers: Headers) -> Refusal | None:
        """Why this request may not go on, or None: Host, then Origin, then credentials."""
        host_header = headers.get("host", "")
        host = hostname(host_header)
        if host not in self.allowed_hosts:
            return Refusal(403, "forbidden_host", f"Host '{host}' is not allowed.")
        origin = headers.get("origin")
        if origin is not None and not self.own_origin(origin, host_header, scope["scheme"]):
            return Refusal(
                403,
                "forbidden_origin",
                f"Requests from the web page at '{origin}' are not allowed; only Docent's "
                "own window may call it from a browser.",
            )
        path = scope["path"]
        public = path in PUBLIC_PATHS or path == LOGIN_PATH
        # Opening the socket is not use of the login: a page that reconnects does it alone.
        activity = not is_socket_path(path)
        if (public and scope["type"] == "http") or self.authorized(
            headers, scope["scheme"], activity=activity
        ):
            return None
        if is_api_path(path):
            return Refusal(401, "unauthorized", TOKEN_HELP)
        page = LOCKED_PAGE if scope.get("method") in ("GET", "HEAD") else None
        return Refusal(
            401,
            "unauthorized",
            f"Log in to the window with the link `{OPEN_COMMAND}` prints.",
            page=page,
        )

    def own_origin(self, origin: str, host_header: str, scheme: str) -> bool:
        """A browser page's Origin is ours when it names an allowed host at our port."""
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.hostname is None:
            return False  # includes "null": sandboxed frames, file:// pages
        try:
            origin_port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        same_port = origin_port == _port(host_header, scheme)
        return same_port and parts.hostname.lower() in self.allowed_hosts

    def authorized(self, headers: Headers, scheme: str, *, activity: bool = True) -> bool:
        """The bearer token, or a cookie naming a live login (``activity``: count as use)."""
        if self.has_token(headers):
            return True
        session_id = self.window_login(headers, scheme)
        return session_id is not None and self.sessions.check(session_id, activity=activity)

    def has_token(self, headers: Headers) -> bool:
        kind, _, given = headers.get("authorization", "").partition(" ")
        return kind.lower() == "bearer" and secrets.compare_digest(
            given.strip().encode(), self.token.encode()
        )

    def window_login(self, headers: Headers, scheme: str) -> str | None:
        """The login session id this request's cookie names, live or not."""
        port = _port(headers.get("host", ""), scheme)
        return cookie_parser(headers.get("cookie", "")).get(cookie_name(port or 0))

    def login_cookie(self, secret: str, host_header: str, scheme: str) -> str | None:
        """The Set-Cookie value for a valid one-time secret (a new session), else None."""
        if not self.links.redeem(secret):
            return None
        return self.cookie_for(self.sessions.start(), host_header, scheme)

    def cookie_for(self, session_id: str, host_header: str, scheme: str) -> str:
        """The Set-Cookie value naming ``session_id``, kept by the browser if remembered."""
        port = _port(host_header, scheme) or 0
        remembered = self.sessions.is_remembered(session_id)
        return set_cookie_header(cookie_name(port), session_id, remembered=remembered)


class Guard:
    """The ASGI middleware that applies ``Access`` before the app sees a request."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.access.check(scope, headers)
        if refusal is not None:
            await refuse(scope, send, refusal, body_pending=_has_body(scope, headers))
            return
        login = self.access.window_login(headers, scope["scheme"])
        if is_socket_path(scope["path"]) and login and not self.access.has_token(headers):
            watch = SocketWatch(self.access.sessions, login, receive, send)
            receive, send = watch.receive, watch.send
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        if scope["path"] == LOGIN_PATH and scope["method"] in ("GET", "HEAD"):
            await self._login(scope, headers, send)
            return
        if scope["path"] == COOKIE_PATH and scope["method"] == "POST" and login:
            await self._set_cookie(login, headers, scope, send)
            return
        cap = self.access.body_limits.for_request(scope["method"], scope["path"])
        limit = cap.max_bytes
        length = headers.get("content-length")
        if (
            limit is not None
            and length is not None
            and (not length.isdigit() or int(length) > limit)
        ):
            await refuse(scope, send, too_large(limit, cap.setting), body_pending=True)
            return
        exchange = BodyExchange(receive, send, cap)
        try:
            await self.app(scope, exchange.receive, exchange.send)
        except BodyTooLarge:
            log.info("refused a request body over %s bytes to %s", limit, scope["path"])

    async def _login(self, scope: Scope, headers: Headers, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        secret = (query.get(LOGIN_QUERY) or [""])[0]
        cookie = self.access.login_cookie(secret, headers.get("host", ""), scope["scheme"])
        if cookie is None:
            refusal = Refusal(401, "login_link_invalid", "", page=LINK_REFUSED_PAGE)
            await refuse(scope, send, refusal, body_pending=False)
            return
        await start_response(
            send,
            303,
            [(b"location", b"/"), (b"set-cookie", cookie.encode()), (b"content-length", b"0")],
        )
        await send({"type": "http.response.body", "body": b""})

    async def _set_cookie(
        self, session_id: str, headers: Headers, scope: Scope, send: Send
    ) -> None:
        """Set the login cookie again as its session now is (remembered or not)."""
        cookie = self.access.cookie_for(session_id, headers.get("host", ""), scope["scheme"])
        await start_response(
            send, 204, [(b"set-cookie", cookie.encode()), (b"content-length", b"0")]
        )
        await send({"type": "http.response.body", "body": b""})


def _has_body(scope: Scope, headers: Headers) -> bool:
    if scope["type"] != "http":
        return False
    return headers.get("content-length", "0") != "0" or "transfer-encoding" in headers


def install_guard(app: Starlette, access: Access) -> None:
    """Put the guard in front of everything ``app`` serves."""
    app.state.access = access
    wrap_outermost(app, lambda inner: Guard(inner, access))


def wrap_outermost(app: Starlette, wrap: Callable[[ASGIApp], ASGIApp]) -> None:
    """Wrap ``app``'s whole middleware stack; the last wrapper installed sees requests first.
    (``add_middleware`` would not do: NiceGUI's ``ui.run`` adds its own in front of ours.)"""
    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: wrap(build())  # type: ignore[method-assign]
