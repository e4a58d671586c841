"""The HTTP API as an app of its own, for tests and for scripts that want no window."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import install_api
from app.container import Services
from app.startup import Starting


def create_api_app(services: Services, *, watch: bool = True) -> FastAPI:
    """A FastAPI app serving only the HTTP API, running the services for its lifetime."""
    starting = Starting.of(services, watch=watch)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with starting.lifespan():
            yield

    # No FastAPI docs page: install_docs serves one whose assets don't come from a CDN.
    app = FastAPI(title="Docent API", lifespan=lifespan, docs_url=None, redoc_url=None)
    install_api(app, starting, services.settings, services.token)
    return app
