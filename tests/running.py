"""Start the real app on a real socket and read its SSE: the API in-process around fakes
(``running_app``), or `run.py` as a user starts it, in a subprocess (``served_process``)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from app.api_without_window import create_api_app
from app.container import Services

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class RunningApp:
    container: Services
    url: str
    client: httpx.AsyncClient
    """Talks to ``url`` with the bearer token already set."""
    app: FastAPI
    """The app being served (its routes, its guard's rules in ``app.state.access``)."""


@asynccontextmanager
async def running_app(container: Services, *, watch: bool = True) -> AsyncIterator[RunningApp]:
    """Serve the API for ``container`` on 127.0.0.1 at a free port until the block ends
    (``watch=False``: the folder is scanned at start, then not watched)."""
    app = create_api_app(container, watch=watch)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    port = await listening(server, task)
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {container.token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        try:
            yield RunningApp(container, url, client, app)
        finally:
            server.should_exit = True
            await task


async def listening(server: uvicorn.Server, task: asyncio.Task[None], timeout: float = 60) -> int:
    """The port ``server`` (run by ``task``) listens on, once it does; fails with what
    stopped it if it stops first, and at the deadline if it never starts."""

    def started() -> bool:
        if task.done():
            task.result()  # raises what stopped the server
            raise AssertionError("the server stopped before it listened")
        return bool(server.started)

    await eventually(started, timeout=timeout, what="the server to listen")
    return int(server.servers[0].sockets[0].getsockname()[1])


def unmarked(text: str) -> str:
    """``text`` without its citation marks (nor the spaces before them): what a checked
    answer shares with the draft streamed before its marks were corrected."""
    return re.sub(r"[ \t]*\[\d{1,3}(?:\s*(?:,|;|-|–)\s*\d{1,3})*\]", "", text)


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


@dataclass
class ServedProcess:
    """`run.py` (window and API) running in a subprocess, as a user starts it."""

    process: subprocess.Popen[str]
    url: str
    data_dir: Path
    output: list[str]
    """What it printed (stdout and stderr), line by line, as it arrives."""

    @property
    def token(self) -> str:
        return (self.data_dir / "api-token").read_text().strip()

    def rss_mb(self) -> float:
        """Resident memory of the process, from /proc."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


def user_environment() -> dict[str, str]:
    """This test's environment without pytest's marks: NiceGUI behaves differently under
    pytest, and a user's `run.py` does not run under pytest."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}


def run_py(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """`python run.py ARGS` from the repository root, its output captured."""
    return subprocess.run(
        [sys.executable, "run.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=user_environment(),
        **kwargs,
    )


@contextmanager
def served_process(
    data_dir: Path,
    *flags: str,
    timeout: float = 180,
    env: dict[str, str] | None = None,
    wrap: Sequence[str] = (),
) -> Iterator[ServedProcess]:
    """Start `run.py --no-browser` on a free port; wait until its services are ready.

    Its settings are the flags alone, and ``env`` on top of the user's environment: a
    module-scoped fixture starts before the autouse one that clears the developer's
    DOCENT_* variables. ``wrap`` is a command that runs it (``strace -o log``, say): then
    the two get a process group of their own, and the stopping Ctrl+C goes to the group,
    since such a wrapper need not pass it on."""
    port = free_port()
    environment = {
        k: v
        for k, v in user_environment().items()
        if not k.startswith("DOCENT_") and k != "OLLAMA_HOST"
    } | (env or {})
    process = subprocess.Popen(
        [
            *wrap,
            sys.executable,
            "run.py",
            "--no-browser",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
            *flags,
        ],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=bool(wrap),
    )
    assert process.stdout is not None
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    served = ServedProcess(process, f"http://127.0.0.1:{port}", data_dir, output)

    async def services_ready() -> bool:
        assert process.poll() is None, "".join(output)
        try:
            async with httpx.AsyncClient(base_url=served.url) as client:
                status = await client.get(
                    "/api/status", headers={"Authorization": f"Bearer {served.token}"}
                )
        except (httpx.HTTPError, OSError):
            return False
        return status.status_code == 200

    try:
        asyncio.run(eventually(services_ready, timeout=timeout, what="run.py to serve"))
        yield served
    finally:
        if wrap:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            if wrap:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
            process.wait()
        reader.join(timeout=5)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
