"""Starting Docent: the API alone (tests, scripts) or the API with the NiceGUI window."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import install_api
from app.container import Container
from app.settings import Settings

log = logging.getLogger(__name__)


def create_api_app(container: Container, *, watch: bool = True) -> FastAPI:
    """A FastAPI app serving only the HTTP API, running the container for its lifetime."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await container.start(watch=watch)
        try:
            yield
        finally:
            await container.stop()

    app = FastAPI(title="Docent API", lifespan=lifespan)
    install_api(app, container)
    return app


def serve(settings: Settings) -> None:
    """Run the window and the API in this process until it is stopped."""
    from nicegui import app, ui

    from ui.page import chat_page

    container = Container(settings)
    install_api(app, container)
    app.on_startup(container.start)
    app.on_shutdown(container.stop)
    print(f"Docent is at http://{settings.host}:{settings.port}  (documents: {settings.docs_dir})")
    ui.run(
        lambda: chat_page(container),
        host=settings.host,
        port=settings.port,
        title="Docent",
        native=settings.native,
        show=settings.open_browser and not settings.native,
        reload=False,
        show_welcome_message=False,
        favicon="📚",
    )
