"""A full data disk, replayed against `run.py` as a user starts it: the app keeps answering,
says why indexing waits, and indexes every file once the disk has space again.

This is the audit's case: the data dir on a 64 MB tmpfs, filled while files arrive. It runs
in a subprocess because what went wrong there stops a whole process: the embedded Chroma
holds the GIL for the whole of each call, and a call that never returned froze the event
loop, the API and the window with it. Only another process can see that, so this one asks
`/api/health` all along, with a one-second timeout on each request (a check that the app
answers at all, not a measure of its speed).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import ServedProcess, eventually, served_process
from tests.small_disk import SmallDisk, small_disk

ANSWER_WITHIN = 1.0
"""Seconds each health request may take: far more than it needs, far less than a freeze."""
LEFT_FREE = 256 << 10
"""What the filled disk keeps free, as in the audit: room for the registry's rows, none for
the chunks of a 340 kB file."""


def log_text(n: int) -> str:
    """About 340 kB of Markdown: enough chunks that writing them needs megabytes."""
    lines = [
        f"Reading {i} of gauge {n}: the tide stood at {(i * 37 + n) % 500} cm, the wind"
        f" {(i * 11) % 40} knots from bearing {(i * 53) % 360}, logged by keeper {i % 17}."
        for i in range(2_600)
    ]
    return f"# Harbour log {n}\n\n" + "\n\n".join(lines) + "\n"


class HealthWatch:
    """Asks `/api/health` over and over until stopped, and keeps every failure."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.failures: list[str] = []
        self.asked = 0

    async def run(self) -> None:
        async with httpx.AsyncClient(base_url=self.url, timeout=ANSWER_WITHIN) as client:
            while True:
                try:
                    response = await client.get("/api/health")
                    if response.status_code != 200:
                        self.failures.append(f"health answered {response.status_code}")
                except httpx.HTTPError as error:
                    self.failures.append(f"health did not answer: {type(error).__name__}")
                self.asked += 1
                await asyncio.sleep(0.1)

    def check(self) -> None:
        assert not self.failures, f"the app stopped answering: {self.failures[:3]}"


@contextlib.asynccontextmanager
async def watched(app: ServedProcess) -> AsyncIterator[HealthWatch]:
    watch = HealthWatch(app.url)
    task = asyncio.create_task(watch.run())
    try:
        yield watch
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def replay(app: ServedProcess, disk: SmallDisk, docs: Path) -> None:
    headers = {"Authorization": f"Bearer {app.token}"}
    async with (
        httpx.AsyncClient(base_url=app.url, headers=headers, timeout=10) as client,
        watched(app) as watch,
    ):

        async def get(path: str) -> Any:
            try:
                return (await client.get(path)).json()
            except httpx.TimeoutException:
                watch.check()  # a frozen app: say so rather than "timed out"
                raise

        async def loaded() -> bool:
            return (await get("/api/status"))["starting"] is False

        await eventually(loaded, timeout=120, what="search and indexing loaded")
        disk.fill(leave=LEFT_FREE)
        for n in (1, 2):
            (docs / f"log{n}.md").write_text(log_text(n))
        upload = await client.post(
            "/api/documents", files={"files": ("log3.md", log_text(3).encode())}
        )
        assert upload.status_code == 201, upload.text
        names = {"log1.md", "log2.md", "log3.md"}

        async def waiting() -> bool:
            watch.check()
            index = (await get("/api/status"))["index"]
            return index["waiting_for_space"] == len(names) and bool(index["disk_full"])

        await eventually(waiting, timeout=90, what="status to say the files wait for space")
        index = (await get("/api/status"))["index"]
        assert str(disk.path) in index["disk_full"], index
        listed = (await get("/api/documents"))["documents"]
        assert {d["path"]: d["status"] for d in listed} == dict.fromkeys(names, "queued")

        disk.free()

        async def indexed() -> bool:
            watch.check()
            listed = (await get("/api/documents"))["documents"]
            assert not [d for d in listed if d["status"] == "error"], listed
            return {d["path"] for d in listed if d["status"] == "ready"} == names

        await eventually(indexed, timeout=180, what="every file indexed once space returned")
        index = (await get("/api/status"))["index"]
        assert index["waiting_for_space"] == 0 and index["disk_full"] is None, index
        watch.check()
        assert watch.asked > 10  # it really asked all along


def test_a_full_data_disk_never_freezes_the_app_and_every_file_is_indexed_later(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "documents"
    docs.mkdir()
    with (
        small_disk(tmp_path / "data", 64) as disk,
        FakeOllamaServer() as ollama,
        served_process(disk.path, "--docs", str(docs), "--ollama-host", ollama.url) as app,
    ):
        asyncio.run(replay(app, disk, docs))
