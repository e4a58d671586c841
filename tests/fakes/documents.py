"""An in-process stand-in for ``app.documents.DocumentService`` (SEAMS.md), for window tests.

It keeps its own list, scripted by the test (``put``), and "indexes" an added file page by
page with ``page_delay`` between pages, publishing the same events the real pipeline does
(queued, started, pages, ready, error, removed). Files it is given are written into the
documents folder, so the real indexer of the app under test can pick them up too.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pypdf import PdfReader


@dataclass(frozen=True)
class FakeDocumentView:
    id: str
    path: str
    status: str
    pages: int | None = None
    chunks: int = 0
    error: str | None = None
    updated_at: str = ""
    pages_done: int | None = None
    pages_total: int | None = None


@dataclass(frozen=True)
class FakeIngestEvent:
    kind: str
    path: str
    doc_id: str
    pages_done: int = 0
    pages_total: int | None = None
    chunks: int = 0
    error: str | None = None


@dataclass(frozen=True)
class FakeLibraryProgress:
    files_done: int
    files_total: int
    failed: int
    chunks_done: int
    chunks_per_second: float
    files_per_second: float
    eta_seconds: float | None


class FakeDocumentNotFound(Exception):
    pass


class FakeUnsupportedType(Exception):
    pass


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def fake_id(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()[:16]


class FakeDocumentService:
    """Implements the window's view of ``DocumentService``; see the module docstring."""

    supported_suffixes = frozenset({".pdf", ".md", ".txt"})

    def __init__(self, docs_dir: Path, *, page_delay: float = 0.0, chunks_per_page: int = 3):
        self.docs_dir = docs_dir
        self.page_delay = page_delay
        self.chunks_per_page = chunks_per_page
        self.docs: dict[str, FakeDocumentView] = {}
        self.removed: list[str] = []
        self.reindexed: list[str | None] = []
        self._listeners: list[Callable[[Any], None]] = []
        self._batch = [0, 0, 0, 0]  # files total, files done, failed, chunks done
        self._started = time.monotonic()
        self._tasks: set[asyncio.Task[None]] = set()

    # -- scripting -------------------------------------------------------------------

    def put(self, path: str, status: str = "ready", **fields: Any) -> FakeDocumentView:
        """Set a document's record as the pipeline would, and tell the listeners."""
        doc_id = fake_id(path)
        view = FakeDocumentView(doc_id, path, status, updated_at=_now(), **fields)
        self.docs[doc_id] = view
        kind = {"indexing": "pages" if view.pages_done else "started"}.get(status, status)
        self._publish(
            FakeIngestEvent(kind, path, doc_id, view.pages_done or 0, view.pages_total, view.chunks)
        )
        return view

    def adopt_folder(self) -> None:
        """List the files already in the folder as ready (as after an earlier run)."""
        for file in sorted(self.docs_dir.rglob("*")):
            if file.is_file() and file.suffix.lower() in self.supported_suffixes:
                pages = len(PdfReader(file).pages) if file.suffix.lower() == ".pdf" else None
                chunks = (pages or 1) * self.chunks_per_page
                self.put(file.relative_to(self.docs_dir).as_posix(), pages=pages, chunks=chunks)

    # -- the service -------------------------------------------------------------------

    def list(self) -> list[FakeDocumentView]:
        return sorted(self.docs.values(), key=lambda d: d.path)

    def get(self, doc_id: str) -> FakeDocumentView | None:
        return self.docs.get(doc_id)

    def file_path(self, doc_id: str) -> Path:
        doc = self.docs.get(doc_id)
        if doc is None:
            raise FakeDocumentNotFound(f"No document {doc_id}.")
        return self.docs_dir / doc.path

    def subscribe(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def progress(self) -> FakeLibraryProgress:
        total, done, failed, chunks = self._batch
        elapsed = max(time.monotonic() - self._started, 1e-6)
        rate = done / elapsed
        eta = (total - done) / rate if rate and total > done else None
        return FakeLibraryProgress(done, total, failed, chunks, chunks / elapsed, rate, eta)

    async def add(
        self, name: str, data: AsyncIterator[bytes], *, folder: str | None = None
    ) -> FakeDocumentView:
        suffix = Path(name).suffix.lower()
        if suffix not in self.supported_suffixes:
            raise FakeUnsupportedType(f"{name}: Docent reads PDF, .md and .txt files.")
        rel = f"{folder}/{name}" if folder else name
        target = self.docs_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as out:
            async for piece in data:
                out.write(piece)
        pages = len(PdfReader(target).pages) if suffix == ".pdf" else None
        if not any(d.status in ("queued", "indexing") for d in self.docs.values()):
            self._batch = [0, 0, 0, 0]
            self._started = time.monotonic()
        self._batch[0] += 1
        view = self.put(rel, "queued", pages=pages)
        task = asyncio.create_task(self._index(view))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return view

    async def remove(self, doc_id: str) -> None:
        doc = self.docs.pop(doc_id, None)
        if doc is None:
            raise FakeDocumentNotFound(f"No document {doc_id}.")
        self.removed.append(doc.path)
        (self.docs_dir / doc.path).unlink(missing_ok=True)
        self._publish(FakeIngestEvent("removed", doc.path, doc_id))

    async def reindex(self, doc_id: str | None = None) -> int:
        self.reindexed.append(doc_id)
        return 1

    # -- inside --------------------------------------------------------------------------

    async def _index(self, view: FakeDocumentView) -> None:
        total = view.pages or 1
        for done in range(total + 1):
            await asyncio.sleep(self.page_delay)
            view = replace(view, status="indexing", pages_done=done, pages_total=view.pages)
            self.docs[view.id] = view
            kind = "started" if done == 0 else "pages"
            self._publish(FakeIngestEvent(kind, view.path, view.id, done, view.pages))
        chunks = total * self.chunks_per_page
        view = replace(view, status="ready", chunks=chunks, pages_done=None, pages_total=None)
        self.docs[view.id] = view
        self._batch[1] += 1
        self._batch[3] += chunks
        self._publish(FakeIngestEvent("ready", view.path, view.id, chunks=chunks))

    def _publish(self, event: FakeIngestEvent) -> None:
        for listener in list(self._listeners):
            listener(event)
