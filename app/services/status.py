"""StatusService: what Docent holds and whether it can answer, for `/api/status`, `run.py
status` and the window. Health is passed in: `run.py status` asks the server with the
standard library, so it answers in about a second without loading httpx, Chroma or the graph.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from ingest.disk import DiskFull
from ingest.document_parts import DocStatus
from ingest.index.registry import Registry
from models.protocols import Health


@dataclass(frozen=True)
class IndexCounts:
    """The library: documents by status, chunks, and files not finished yet."""

    by_status: Mapping[DocStatus, int]
    chunks: int
    """Chunks stored, counted once per content (identical files share theirs)."""
    queued: int
    """Files waiting, being indexed, or waiting for disk space (0 when nothing indexes)."""
    waiting_for_space: int = 0
    """Of those, the files waiting for the data dir's disk to have room."""
    disk_full: str | None = None
    """While the data dir's disk is too full to index: why, naming it and the fix."""

    @property
    def documents(self) -> int:
        return sum(self.by_status.values())

    @property
    def errors(self) -> int:
        return self.by_status.get(DocStatus.ERROR, 0)


@dataclass(frozen=True)
class Status:
    """One look at Docent: the model server, the models, the library."""

    ollama: Health
    chat_model: str
    embed_model: str
    index: IndexCounts
    starting: bool = False
    """The library's search, indexing and chat are still loading (questions wait for them)."""


class StatusService:
    """Answers "what does Docent know, and can it answer?" for every entry point."""

    def __init__(
        self,
        registry: Registry,
        health: Callable[[], Awaitable[Health]],
        *,
        chat_model: Callable[[], str],
        embed_model: Callable[[], str],
        queued: Callable[[], int] = lambda: 0,
        disk_full: Callable[[], DiskFull | None] = lambda: None,
        starting: bool = False,
    ) -> None:
        self._registry = registry
        self._health = health
        self._chat_model = chat_model
        self._embed_model = embed_model
        self._queued = queued
        self._waiting: Callable[[], int] = lambda: 0
        self._disk_full = disk_full
        self._starting = starting
        """Said until ``follow`` hands the built services' figures over."""

    def follow(
        self,
        *,
        embed_model: Callable[[], str],
        queued: Callable[[], int],
        waiting_for_space: Callable[[], int],
        disk_full: Callable[[], DiskFull | None],
    ) -> None:
        """Take the embedding model's name and the queue from the services once built."""
        self._embed_model = embed_model
        self._queued = queued
        self._waiting = waiting_for_space
        self._disk_full = disk_full
        self._starting = False

    def index(self) -> IndexCounts:
        """The library's counts, from the registry; files waiting, and why, from the queue."""
        full = self._disk_full()
        return IndexCounts(
            by_status=self._registry.counts(),
            chunks=self._registry.chunk_total(),
            queued=self._queued(),
            waiting_for_space=self._waiting(),
            disk_full=str(full) if full is not None else None,
        )

    async def status(self) -> Status:
        """The model server's health (asked now) and the library's counts."""
        health, index = await asyncio.gather(self._health(), asyncio.to_thread(self.index))
        return Status(health, self._chat_model(), self._embed_model(), index, self._starting)
