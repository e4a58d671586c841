"""The localhost HTTP API: thin routers over the container's services, added in two steps
(``secure``, then ``include_routes``) so a serving app listens before the graph is imported."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI

from app.api import entry
from app.api.errors import install_error_handlers
from app.api.guard.body_limits import MB, BodyLimits
from app.api.guard.guard import Access, install_guard, is_api_path, wrap_outermost
from app.api.guard.login import LoginLinks
from app.api.guard.login_sessions import SESSIONS_FILE, LoginSessions
from app.api.routes import status
from app.api.routes.uploads import UPLOAD_PATH, upload_body_cap
from app.startup import WaitForServices

if TYPE_CHECKING:
    from app.settings import Settings
    from app.startup import Starting


def install_api(app: FastAPI, starting: Starting, settings: Settings, token: str) -> Access:
    """The whole API on ``app``: ``secure`` then ``include_routes``."""
    access = secure(app, starting, settings, token)
    include_routes(app)
    return access


def secure(app: FastAPI, starting: Starting, settings: Settings, token: str) -> Access:
    """Put the guard in front of ``app`` and add the routes that need no services."""
    access = new_access(settings, token)
    # Uploads stream each file to disk and cap it there; the body cap only bounds the total.
    access.body_limits.allow(
        "POST", UPLOAD_PATH, upload_body_cap(settings), setting="max_upload_mb"
    )
    app.state.starting = starting
    app.state.data_dir = settings.paths.data_dir  # named when its disk is full
    app.state.login_links = access.links
    wrap_outermost(app, lambda inner: WaitForServices(inner, starting, _needs_services))
    install_guard(app, access)
    install_error_handlers(app)
    app.include_router(entry.public)
    app.include_router(entry.router)
    app.include_router(status.router)
    return access


def new_access(settings: Settings, token: str) -> Access:
    """This instance's rules, from its settings; its remembered logins are read here."""
    sessions = LoginSessions(
        settings.paths.data_dir / SESSIONS_FILE,
        idle_seconds=settings.server.session_idle_hours * 3600,
    )
    return Access(
        token=token,
        links=LoginLinks(),
        sessions=sessions,
        allowed_hosts=[settings.server.host],
        body_limits=BodyLimits(default=int(settings.server.max_body_mb * MB)),
    )


def _needs_services(path: str) -> bool:
    return is_api_path(path) and path not in entry.PATHS | status.PATHS


def api_routers() -> list[APIRouter]:
    """The routers; importing them loads the graph, the chat service and the MCP SDK
    (seconds), so a serving app does it in a worker thread. A new router goes here."""
    from app.api.routes import chat, documents, library, mcp, openai, search, sessions

    return [
        chat.router,
        documents.router,
        library.router,
        search.router,
        sessions.router,
        openai.router,
        mcp.router,
    ]


def include_routes(app: FastAPI, routers: list[APIRouter] | None = None) -> None:
    """Add the API's routers, then its OpenAPI schema and /docs, to ``app``."""
    from app.api.routes.docs import install_docs

    for router in api_routers() if routers is None else routers:
        app.include_router(router)
    install_docs(app)  # after the routes: the schema is built from them
