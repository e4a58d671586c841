"""The localhost HTTP API: thin routers over the container's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI

from app.api import (
    chat_router,
    documents_router,
    mcp_router,
    openai_router,
    sessions_router,
    status_router,
)
from app.api.docs_router import install_docs
from app.api.errors import install_error_handlers
from app.api.security import HostCheckMiddleware

if TYPE_CHECKING:
    from app.container import Container


def install_api(app: FastAPI, container: Container) -> None:
    """Add the API routes, /mcp, the Host check and JSON errors to ``app``."""
    app.state.container = container
    app.add_middleware(HostCheckMiddleware, allowed=[container.settings.host])
    install_error_handlers(app)
    app.include_router(status_router.public)
    app.include_router(status_router.router)
    app.include_router(chat_router.router)
    app.include_router(documents_router.router)
    app.include_router(sessions_router.router)
    app.include_router(openai_router.router)
    app.include_router(mcp_router.router)
    install_docs(app)
