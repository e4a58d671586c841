"""Start the real app (container, API, watcher) on a real socket, and read its SSE."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from app.container import Container
from app.server import create_api_app


@dataclass
class RunningApp:
    container: Container
    url: str
    client: httpx.AsyncClient
    """Talks to ``url`` with the bearer token already set."""


@asynccontextmanager
async def running_app(container: Container) -> AsyncIterator[RunningApp]:
    """Serve the API for ``container`` on 127.0.0.1 at a free port until the block ends."""
    config = uvicorn.Config(
        create_api_app(container), host="127.0.0.1", port=0, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # raises what stopped the server
        await asyncio.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {container.token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        try:
            yield RunningApp(container, url, client)
        finally:
            server.should_exit = True
            await task


async def read_sse(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    """Parse an SSE body into (event, data) pairs, skipping comments such as pings."""
    events: list[tuple[str, dict[str, Any]]] = []
    name, data = "message", list[str]()
    async for line in response.aiter_lines():
        if line == "":
            if data:
                events.append((name, json.loads("\n".join(data))))
            name, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    return events


async def eventually(
    check: Callable[[], bool | Awaitable[bool]], *, timeout: float = 10, what: str = "condition"
) -> float:
    """Poll ``check`` (plain or async) until it holds; return the seconds it took."""
    started = time.monotonic()
    while True:
        result = check()
        if await result if inspect.isawaitable(result) else result:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


async def wait_ready(app: RunningApp, count: int, timeout: float = 60) -> float:
    """Wait until ``count`` documents are ready; fail early on an error status."""

    async def ready() -> bool:
        docs = (await app.client.get("/api/documents")).json()["documents"]
        errors = [d for d in docs if d["status"] == "error"]
        assert not errors, errors
        return sum(d["status"] == "ready" for d in docs) >= count

    return await eventually(ready, timeout=timeout, what=f"{count} documents ready")
