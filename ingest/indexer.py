"""The indexer: one asyncio worker that keeps registry and store in step with the folder.

Paths go onto a queue (deduplicated); the worker takes them one at a time and looks at
the file system to decide: a file that exists is (re)indexed if its bytes changed, a
file that is gone is removed. Blocking work runs in ``asyncio.to_thread``; registry
writes and ``on_change`` callbacks happen on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ingest.chunker import chunk_pages
from ingest.folder import is_candidate, sha256_file, walk
from ingest.index import ChunkIndex
from ingest.loaders import UnreadableFile, UnsupportedFile, load
from ingest.registry import Registry, doc_id_for
from ingest.types import Chunk, DocStatus, DocumentRecord

log = logging.getLogger(__name__)

_FRESH_SECONDS = 2.0
"""Files modified longer ago than this are not checked for still being written."""

_T = TypeVar("_T")
Listener = Callable[[DocumentRecord], None]
Progress = Callable[[int, int, DocumentRecord], None]


class _Retry(Exception):
    """The file is busy (being written, or locked): try again later."""


@dataclass(frozen=True)
class _Indexed:
    pages: int | None
    chunks: int


class Indexer:
    """Indexes the documents folder in the background, one file at a time."""

    def __init__(
        self,
        docs_dir: Path,
        registry: Registry,
        store: ChunkIndex,
        *,
        chunk_size: int = 1000,
        chunk_overlap: int = 150,
        settle_seconds: float = 0.2,
        retry_seconds: float = 1.0,
        max_retries: int = 10,
    ) -> None:
        self.docs_dir = Path(os.path.abspath(docs_dir))
        self.registry = registry
        self.store = store
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.settle_seconds = settle_seconds
        self.retry_seconds = retry_seconds
        self.max_retries = max_retries
        self.on_change: list[Listener] = []
        """Called on the event loop with the new record after every status change."""
        self.on_remove: list[Listener] = []
        """Called on the event loop with the last record of a document that is gone."""
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._queued: set[str] = set()
        self._was_ready: set[str] = set()
        self._retries: dict[str, asyncio.TimerHandle] = {}
        self._attempts: dict[str, int] = {}
        self._current: str | None = None
        self._inflight: asyncio.Future[Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    # -- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the worker task (once)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._work(), name="docent-indexer")
        if self._queued:
            self._idle.clear()

    async def stop(self, timeout: float = 30.0) -> None:
        """Stop the worker; a file half-way through finishes its thread first.

        Paths still queued stay ``queued`` in the registry; the next ``scan`` takes
        them up again.
        """
        for handle in self._retries.values():
            handle.cancel()
        self._retries.clear()
        self._idle.set()  # release waiters; what is left is picked up by the next scan
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self._inflight is not None and not self._inflight.done():
            await asyncio.wait({self._inflight}, timeout=timeout)

    @property
    def queued(self) -> int:
        """Files not finished yet: waiting, waiting to retry, or being indexed now."""
        return len(self._queued) + len(self._retries) + int(self._current is not None)

    async def wait_idle(self) -> None:
        """Return once nothing is queued, retrying or in progress."""
        await self._idle.wait()

    # -- feeding the queue -----------------------------------------------------------

    def enqueue(self, path: Path) -> bool:
        """Queue a file for indexing and mark it ``queued``; False if it is ignored.

        Call on the event loop. A path that no longer exists is queued for removal. A
        ready file whose bytes turn out unchanged is not indexed again.
        """
        return self._enqueue(path, force=False)

    def _enqueue(self, path: Path, *, force: bool) -> bool:
        rel = self._rel(path)
        if rel is None or not is_candidate(rel):
            return False
        full = self.docs_dir / rel
        if not full.exists():
            return self.enqueue_removal(full)
        if full.is_dir():
            return False
        if force:
            self._was_ready.discard(rel)
        if rel not in self._queued:
            record = self.registry.get_by_path(rel)
            if not force and record is not None and record.status == DocStatus.READY:
                self._was_ready.add(rel)  # lets the worker skip it if the bytes match
            self._set(rel, DocStatus.QUEUED)
        self._put(rel)
        return True

    def enqueue_removal(self, path: Path) -> bool:
        """Queue removal of a file, or of every document under a folder that is gone."""
        rel = self._rel(path)
        if rel is None:
            return False
        targets = [
            record.path
            for record in self.registry.list()
            if rel in ("", record.path) or record.path.startswith(f"{rel}/")
        ]
        for target in targets:
            self._put(target)
        return bool(targets)

    async def scan(self) -> int:
        """Reconcile with the folder: queue new, changed and unfinished files, and queue
        removal of documents whose file is gone. Returns how many files were queued."""
        return len(await self._scan())

    async def index_all(self, progress: Progress | None = None) -> list[DocumentRecord]:
        """Scan and wait until done (for the CLI); returns the records of queued files.

        ``progress(done, total, record)`` is called as each queued file ends ready or
        in error. Starts and stops the worker itself if it was not running.
        """
        started_here = self._task is None or self._task.done()
        finished: dict[str, DocumentRecord] = {}
        wanted: set[str] = set()

        def on_change(record: DocumentRecord) -> None:
            if record.path in wanted and record.status in (DocStatus.READY, DocStatus.ERROR):
                finished[record.path] = record
                if progress is not None:
                    progress(len(finished), len(wanted), record)

        self.on_change.append(on_change)
        try:
            wanted.update(await self._scan())
            if started_here:
                await self.start()
            await self.wait_idle()
        finally:
            self.on_change.remove(on_change)
            if started_here:
                await self.stop()
        return sorted(finished.values(), key=lambda record: record.path)

    async def _scan(self) -> list[str]:
        found = await asyncio.to_thread(self._walk_folder)
        store_ids = await asyncio.to_thread(self.store.document_ids)
        records = {record.path: record for record in self.registry.list()}
        for doc_id in store_ids - {record.id for record in records.values()}:
            await asyncio.to_thread(self.store.delete_document, doc_id)  # orphaned chunks
        # No await from here on: the worker cannot start on these before we return.
        queued = [
            rel
            for rel, sha in sorted(found.items())
            if self._needs_indexing(records.get(rel), sha, store_ids)
            and self._enqueue(self.docs_dir / rel, force=True)
        ]
        for rel in sorted(records.keys() - found.keys()):
            self._put(rel)
        return queued

    # -- the worker ------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            rel = await self._queue.get()
            if rel not in self._queued:  # a duplicate entry already handled
                self._queue.task_done()
                continue
            self._queued.discard(rel)
            self._current = rel
            try:
                await self._handle(rel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker must never die
                log.exception("indexing %s failed unexpectedly", rel)
            finally:
                self._current = None
                self._queue.task_done()
                self._update_idle()

    async def _handle(self, rel: str) -> None:
        full = self.docs_dir / rel
        if not full.is_file() or not is_candidate(rel):
            await self._remove(rel)
            return
        try:
            await self._settle(full)
            sha = await self._in_thread(sha256_file, full)
            record = self.registry.get_by_path(rel)
            was_ready = rel in self._was_ready
            self._was_ready.discard(rel)
            if record is not None and record.sha256 == sha and was_ready:
                self._attempts.pop(rel, None)
                self._set(rel, DocStatus.READY)
                return
            self._set(rel, DocStatus.INDEXING, sha256=sha)
            done = await self._in_thread(self._index_file, rel, full, sha)
        except _Retry as busy:
            await self._retry_later(rel, str(busy))
            return
        except FileNotFoundError:
            await self._remove(rel)
            return
        except (UnreadableFile, UnsupportedFile) as exc:
            reason = exc.reason if isinstance(exc, UnreadableFile) else str(exc)
            await self._fail(rel, reason)
            return
        except Exception as exc:
            log.exception("indexing %s failed", rel)
            await self._fail(rel, f"indexing failed: {type(exc).__name__}: {exc}"[:300])
            return
        self._attempts.pop(rel, None)
        self._set(rel, DocStatus.READY, pages=done.pages, chunks=done.chunks)

    def _index_file(self, rel: str, full: Path, sha: str) -> _Indexed:
        """Load, chunk, embed and store one file (runs in a worker thread)."""
        try:
            pages = load(full)
        except PermissionError as exc:
            raise _Retry("permission denied") from exc
        doc_id = doc_id_for(rel)
        chunks = [
            Chunk(
                doc_id=doc_id,
                path=rel,
                file=full.name,
                page=piece.page,
                index=index,
                start=piece.start,
                end=piece.end,
                text=piece.text,
                sha256=sha,
            )
            for index, piece in enumerate(chunk_pages(pages, self.chunk_size, self.chunk_overlap))
        ]
        if not chunks:
            raise UnreadableFile("no text to index")
        self.store.replace_document(doc_id, chunks)
        paged = pages[0].number is not None
        return _Indexed(pages=len(pages) if paged else None, chunks=len(chunks))

    async def _settle(self, full: Path) -> None:
        """Raise _Retry if the file is still growing (only checked for fresh files)."""
        try:
            before = full.stat()
        except PermissionError as exc:
            raise _Retry("permission denied") from exc
        if time.time() - before.st_mtime > _FRESH_SECONDS:
            return
        await asyncio.sleep(self.settle_seconds)
        after = full.stat()
        if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
            raise _Retry("the file is still being written")

    async def _in_thread(self, func: Callable[..., _T], *args: Any) -> _T:
        # Shielded so that stop() can wait for a thread that is already running.
        self._inflight = asyncio.ensure_future(asyncio.to_thread(func, *args))
        try:
            return await asyncio.shield(self._inflight)
        except PermissionError as exc:
            raise _Retry("permission denied") from exc

    async def _fail(self, rel: str, reason: str) -> None:
        self._attempts.pop(rel, None)
        try:  # chunks of an earlier version would be stale now
            await self._in_thread(self.store.delete_document, doc_id_for(rel))
        except Exception:
            log.exception("could not drop the old chunks of %s", rel)
        self._set(rel, DocStatus.ERROR, pages=None, chunks=0, error=reason)

    async def _remove(self, rel: str) -> None:
        self._attempts.pop(rel, None)
        self._was_ready.discard(rel)
        doc_id = doc_id_for(rel)
        await self._in_thread(self.store.delete_document, doc_id)
        record = self.registry.get(doc_id)
        if self.registry.remove(doc_id) and record is not None:
            self._notify(self.on_remove, record)

    async def _retry_later(self, rel: str, why: str) -> None:
        attempt = self._attempts.get(rel, 0) + 1
        if attempt > self.max_retries:
            await self._fail(
                rel, f"could not read the file: {why} (Docent tries again when it changes)"
            )
            return
        self._attempts[rel] = attempt
        delay = min(self.retry_seconds * attempt, 30.0)
        log.debug("%s is busy (%s); retry %d in %.1fs", rel, why, attempt, delay)
        loop = asyncio.get_running_loop()
        self._retries[rel] = loop.call_later(delay, self._retry_now, rel)

    def _retry_now(self, rel: str) -> None:
        self._retries.pop(rel, None)
        self._put(rel)

    # -- helpers ---------------------------------------------------------------------

    def _put(self, rel: str) -> None:
        handle = self._retries.pop(rel, None)
        if handle is not None:
            handle.cancel()
        if rel not in self._queued:
            self._queued.add(rel)
            self._queue.put_nowait(rel)
        self._idle.clear()

    def _update_idle(self) -> None:
        if not self._queued and not self._retries and self._current is None:
            self._idle.set()

    def _set(self, rel: str, status: DocStatus, **fields: Any) -> DocumentRecord:
        record = self.registry.upsert(rel, status=status, **fields)
        self._notify(self.on_change, record)
        return record

    def _notify(self, listeners: list[Listener], record: DocumentRecord) -> None:
        for listener in list(listeners):
            try:
                listener(record)
            except Exception:
                log.exception("a document listener failed")

    def _rel(self, path: Path) -> str | None:
        """The path relative to the documents folder, with forward slashes."""
        full = Path(os.path.abspath(path if path.is_absolute() else self.docs_dir / path))
        try:
            rel = full.relative_to(self.docs_dir).as_posix()
        except ValueError:
            return None
        return "" if rel == "." else rel

    def _walk_folder(self) -> dict[str, str]:
        return walk(self.docs_dir)

    @staticmethod
    def _needs_indexing(record: DocumentRecord | None, sha: str, store_ids: set[str]) -> bool:
        if record is None or record.sha256 != sha:
            return True
        if record.status == DocStatus.READY:
            # Ready but missing from the store: a new embedding model, or a lost index.
            return record.chunks > 0 and record.id not in store_ids
        # queued/indexing were interrupted; errors are retried (the cause may be gone).
        return True
