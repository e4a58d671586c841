"""Progress events of the ingest pipeline, and the library-wide progress they add up to.

Listeners run on the event loop; the pipeline's threads use ``publish_threadsafe``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ingest.pipeline.threads import call_soon

log = logging.getLogger(__name__)

EventKind = Literal["queued", "started", "pages", "ready", "error", "removed", "switch"]
"""``switch``: the embedding model is changing; ``pages_done`` of ``pages_total`` contents
are in the new collection (``path`` is the new model's name)."""


@dataclass(frozen=True)
class IngestEvent:
    """One step of one document: queued, started, pages done of total, ready, error, removed."""

    kind: EventKind
    path: str
    doc_id: str
    pages_done: int = 0
    pages_total: int | None = None
    """Known up front for paged formats; None otherwise."""
    chunks: int = 0
    error: str | None = None
    ocr: bool = False
    """The document is read in the OCR lane: its pages count toward OCR progress."""
    note: str | None = None
    """On ``ready``: what a person should know about it ("2 pages read with low
    confidence")."""


Listener = Callable[[IngestEvent], None]


@dataclass(frozen=True)
class DocumentProgress:
    """How far one document being indexed has got."""

    pages_done: int
    pages_total: int | None
    chunks_done: int


@dataclass(frozen=True)
class OcrProgress:
    """Pages of the documents in the OCR lane read so far, with rate and ETA."""

    pages_done: int
    pages_total: int
    pages_per_second: float
    eta_seconds: float | None
    """None while there is not enough to go on, or nothing left to read."""

    def summary(self) -> str:
        """'OCR: 12 of 200 pages · 0.4 pages/s · about 8 min left', for the window and CLI."""
        parts = [f"OCR: {self.pages_done:,} of {self.pages_total:,} pages"]
        if self.pages_per_second:
            parts.append(f"{self.pages_per_second:.2g} pages/s")
        eta = self.eta_seconds
        if eta and eta >= 1:
            parts.append(
                "about " + (f"{eta / 60:.0f} min" if eta >= 90 else f"{eta:.0f} s") + " left"
            )
        return " · ".join(parts)


@dataclass(frozen=True)
class LibraryProgress:
    """Files and chunks done of the current batch of work, with rate and ETA."""

    files_done: int
    files_total: int
    failed: int
    chunks_done: int
    chunks_per_second: float
    eta_seconds: float | None
    """None while there is not enough to go on, or nothing left to do."""
    ocr: OcrProgress | None = None
    """Pages read by OCR in this batch; None when no document of it needed OCR."""


@dataclass
class _Tracker:
    """Counts a batch of work, from busy to idle, by path and each file's latest outcome
    (counting events counted a file queued again twice, and one gone as one more done)."""

    outcome: dict[str, str | None] = field(default_factory=dict)
    """Each file of the batch: None while to do, else "ready" or "error"."""
    chunks_done: int = 0
    started: float = 0.0
    recent: deque[tuple[float, int, int]] = field(default_factory=lambda: deque(maxlen=64))
    scans: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each document of the OCR lane seen in this batch: (pages read, pages it has)."""
    scanned: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=32))
    """(time, pages read by OCR in all) as pages came in, for the rate."""

    @property
    def files_total(self) -> int:
        return len(self.outcome)

    @property
    def files_done(self) -> int:
        return sum(o is not None for o in self.outcome.values())

    @property
    def failed(self) -> int:
        return sum(o == "error" for o in self.outcome.values())


class EventBus:
    """Fans events out to listeners and keeps live per-document and library progress."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._live: dict[str, DocumentProgress] = {}
        self._pending: set[str] = set()
        self._batch = _Tracker()
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that listeners run on."""
        self._loop = loop

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def publish_threadsafe(self, event: IngestEvent) -> None:
        """Publish from a worker thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        call_soon(loop, self.publish, event)

    def publish(self, event: IngestEvent) -> None:
        """Record ``event`` and hand it to every listener (on the event loop)."""
        self._account(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("an ingest listener failed")

    def document(self, path: str) -> DocumentProgress | None:
        """Live progress of a document being indexed now, if it is."""
        return self._live.get(path)

    def library(self) -> LibraryProgress:
        """Progress of the current batch (the last one, once idle)."""
        batch = self._batch
        now = time.monotonic()
        chunk_rate = file_rate = 0.0
        if len(batch.recent) >= 2:
            (t0, f0, c0), (t1, f1, c1) = batch.recent[0], batch.recent[-1]
            if t1 > t0:
                file_rate, chunk_rate = (f1 - f0) / (t1 - t0), (c1 - c0) / (t1 - t0)
        elif batch.files_done and now > batch.started:
            file_rate = batch.files_done / (now - batch.started)
            chunk_rate = batch.chunks_done / (now - batch.started)
        left = batch.files_total - batch.files_done
        eta = left / file_rate if left > 0 and file_rate > 0 else None
        return LibraryProgress(
            files_done=batch.files_done,
            files_total=batch.files_total,
            failed=batch.failed,
            chunks_done=batch.chunks_done,
            chunks_per_second=chunk_rate,
            eta_seconds=eta,
            ocr=_ocr_progress(batch),
        )

    def _account(self, event: IngestEvent) -> None:
        batch = self._batch
        if event.kind == "queued":
            if not self._pending:  # idle until now: a new batch starts
                self._batch = batch = _Tracker(started=time.monotonic())
                batch.recent.append((batch.started, 0, 0))
            self._pending.add(event.path)
            batch.outcome[event.path] = None  # queued again: to do again, still one file
        elif event.kind in ("started", "pages"):
            self._live[event.path] = DocumentProgress(
                event.pages_done, event.pages_total, event.chunks
            )
            if event.ocr:
                _count_scan(batch, event.path, event.pages_done, event.pages_total)
        elif event.kind in ("ready", "error", "removed"):
            live = self._live.pop(event.path, None)
            if event.path in self._pending:
                self._pending.discard(event.path)
                if event.kind == "removed":  # gone from the list: not a file of the batch
                    batch.outcome.pop(event.path, None)
                else:
                    batch.outcome[event.path] = event.kind
                batch.chunks_done += event.chunks if event.kind == "ready" else 0
                batch.recent.append((time.monotonic(), batch.files_done, batch.chunks_done))
            elif event.kind == "removed":
                batch.outcome.pop(event.path, None)
            elif live is not None:
                batch.chunks_done += event.chunks if event.kind == "ready" else 0


def _count_scan(batch: _Tracker, path: str, done: int, total: int | None) -> None:
    """Note that ``path`` (in the OCR lane) has ``done`` of ``total`` pages read."""
    before, _ = batch.scans.get(path, (0, 0))
    batch.scans[path] = (max(done, before), max(total or 0, done))
    pages = sum(read for read, _ in batch.scans.values())
    if not batch.scanned:
        batch.scanned.append((time.monotonic(), pages - (done - before)))
    batch.scanned.append((time.monotonic(), pages))


def _ocr_progress(batch: _Tracker) -> OcrProgress | None:
    if not batch.scans:
        return None
    done = sum(read for read, _ in batch.scans.values())
    total = sum(pages for _, pages in batch.scans.values())
    rate = 0.0
    if len(batch.scanned) >= 2:
        (t0, p0), (t1, p1) = batch.scanned[0], batch.scanned[-1]
        rate = (p1 - p0) / (t1 - t0) if t1 > t0 else 0.0
    left = total - done
    eta = left / rate if left > 0 and rate > 0 else None
    return OcrProgress(done, total, rate, eta)
