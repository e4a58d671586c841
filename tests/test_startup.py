"""Start-up: the server answers at once, and what needs the services waits for them."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

from app.api import include_routes, secure
from app.container import Container
from app.settings import Settings
from app.startup import Services
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder


async def test_health_answers_while_the_services_are_still_being_built(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    container = Container(settings, llm=FakeChatModel(), embedder=FakeEmbedder())
    released = threading.Event()

    def build() -> Container:  # the heavy imports and models, held back by the test
        released.wait(60)
        return container

    services = Services(build, on_ready=lambda: include_routes(app))
    app = FastAPI()
    secure(app, services, settings, container.token)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        headers = {"Authorization": f"Bearer {container.token}"}
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=30
        ) as client:
            status = asyncio.create_task(client.get("/api/status"))
            health = await client.get("/api/health")
            assert health.status_code == 200 and health.json() == {"status": "ok"}
            assert not status.done()  # it waits for the services, as it should
            released.set()
            assert (await status).status_code == 200
    finally:
        released.set()
        await services.stop()
        server.should_exit = True
        await serving
