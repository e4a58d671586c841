"""Start-up: the server answers at once, and what needs the services waits for them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from app.api import include_routes, secure
from app.container import Services, build_services
from app.core import open_core
from app.services.embedders import build_embedder, embedder_name
from app.services.status import StatusService
from app.settings import Settings
from app.startup import Starting
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import listening


@asynccontextmanager
async def serving(app: FastAPI, services: Starting, token: str) -> AsyncIterator[httpx.AsyncClient]:
    """``app`` served on a free port, and a client that holds ``token``; the services are
    stopped at the end (release a held build first)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        port = await listening(server, task)
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        ) as client:
            yield client
    finally:
        await services.stop()
        server.should_exit = True
        await task


async def test_health_answers_while_the_services_are_still_being_built(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    container = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder())
    released = threading.Event()

    def build() -> Services:  # the heavy imports and models, held back by the test
        released.wait(60)
        return container

    services = Starting(build, on_ready=lambda: include_routes(app))
    app = FastAPI()
    secure(app, services, settings, container.token)
    async with serving(app, services, container.token) as client:
        try:
            status = asyncio.create_task(client.get("/api/status"))
            health = await client.get("/api/health")
            assert health.status_code == 200 and health.json() == {"status": "ok"}
            assert not status.done()  # it waits for the services, as it should
            released.set()
            assert (await status).status_code == 200
        finally:
            released.set()


async def test_status_answers_from_the_light_services_while_the_rest_loads(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    core = open_core(settings, llm=FakeChatModel())
    status: Future[StatusService] = Future()
    status.set_result(core.status)
    released = threading.Event()

    def build() -> Services:  # the heavy imports and models, held back by the test
        released.wait(60)
        return build_services(settings, core=core, embedder=FakeEmbedder())

    services = Starting(build, status=status, watch=False, on_ready=lambda: include_routes(app))
    app = FastAPI()
    secure(app, services, settings, core.token)
    async with serving(app, services, core.token) as client:
        try:
            early = await client.get("/api/status")
            assert early.status_code == 200
            assert early.json()["starting"] is True
            assert early.json()["embed_model"] == "all-MiniLM-L6-v2"
            assert early.json()["index"] == {
                "documents": 0,
                "chunks": 0,
                "queued": 0,
                "errors": 0,
                "waiting_for_space": 0,
                "disk_full": None,
            }
            documents = asyncio.create_task(client.get("/api/documents"))
            assert (await client.get("/api/status")).json()["starting"] is True
            assert not documents.done() and not services.ready  # this one waits
            released.set()
            assert (await documents).status_code == 200
            assert (await client.get("/api/status")).json()["starting"] is False
        finally:
            released.set()


@pytest.mark.parametrize("backend", ["minilm", "ollama", "openai"])
def test_the_status_names_the_embedder_before_it_is_loaded(tmp_path: Path, backend: str) -> None:
    settings = Settings(
        data_dir=tmp_path, embed_backend=backend, embed_model="bge-m3", llm_api_key="k"
    )
    assert embedder_name(settings) == build_embedder(settings).name


def test_the_window_loads_none_of_the_heavy_packages_before_it_listens() -> None:
    """What the server imports before its socket listens stays light: the graph, Chroma,
    the embedder's runtime and numpy load behind it (``ui.window.HEAVY``). A window module
    that pulls in one of them, even for a constant, costs every start seconds."""
    heavy = ("langgraph", "langchain_core", "chromadb", "onnxruntime", "numpy")
    probe = (
        "import sys, ui.window\n"
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert loaded == []


def test_what_the_status_waits_for_leaves_out_what_only_an_answer_needs() -> None:
    """run.py, the window and the status's half of the services (``app.core``) load neither
    httpx's command-line client (rich, pygments' lexers) nor the Markdown parser, which the
    first answer shown loads: every start would import them before /api/status answers."""
    probe = (
        "import sys, run, ui.window, app.core\n"
        "print(' '.join(m for m in ('rich', 'pygments.lexers', 'markdown_it') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert loaded == []
