"""The HTTP API as an app of its own, for tests and for scripts that want no window."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import install_api
from app.container import Container


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
