"""The HTTP API as an app of its own, for tests and for scripts that want no window."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import install_api
from app.container import Container
from app.startup import Services


def create_api_app(container: Container, *, watch: bool = True) -> FastAPI:
    """A FastAPI app serving only the HTTP API, running the container for its lifetime."""
    services = Services.of(container, watch=watch)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await services.container()
        try:
            yield
        finally:
            await services.stop()

    # No FastAPI docs page: install_docs serves one whose assets don't come from a CDN.
    app = FastAPI(title="Docent API", lifespan=lifespan, docs_url=None, redoc_url=None)
    install_api(app, services, container.settings, container.token)
    return app
