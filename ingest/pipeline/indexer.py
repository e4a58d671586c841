"""The indexer: keeps the registry and every index in step with the documents folder.

What the app calls; it only coordinates (who owns the rest: docs/ingest.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

from ingest.disk import DiskFull, is_disk_full
from ingest.document_parts import DocStatus, DocumentRecord
from ingest.index.registry import Registry
from ingest.index.write_ports import ChunkIndex
from ingest.keys import doc_id_for
from ingest.loaders.errors import OLD_SCANNED
from ingest.parsing import ParserPool
from ingest.pipeline.file_handler import FileHandler
from ingest.pipeline.folder import is_candidate, relative
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.janitor import Janitor
from ingest.pipeline.lanes import Lanes
from ingest.pipeline.process import Pipeline
from ingest.pipeline.progress import EventBus, IngestEvent
from ingest.pipeline.reconcile import Reconciler, Report
from ingest.pipeline.space import SpaceWait
from models.protocols import Embedder

log = logging.getLogger(__name__)

OCR_RETRIED = "ocr_retried"
"""Registry state: files that ended 'scanned' before OCR were queued again, once."""


class Indexer:
    """Keeps the registry and every index in step with the documents folder."""

    def __init__(
        self,
        docs_dir: Path,
        registry: Registry,
        indexes: list[ChunkIndex],
        embedder: Embedder,
        *,
        options: IndexOptions | None = None,
        events: EventBus | None = None,
        parsers: ParserPool | None = None,
        ocr_parsers: ParserPool | None = None,
        on_collected: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.docs_dir = Path(os.path.abspath(docs_dir))
        self.registry = registry
        self.options = options = options or IndexOptions()
        """Read live by every part: a change applies to the next file."""
        self.events = events or EventBus()
        self._owns_parsers = parsers is None
        self.parsers = parsers or ParserPool(size=options.workers)
        """The worker processes files are parsed in; closed by ``stop`` when built here."""
        self.ocr_parsers = ocr_parsers
        """The OCR lane's worker (its owner closes it); None when OCR is off."""
        self.pipeline = Pipeline(
            registry,
            indexes,
            embedder,
            self.events,
            parsers=self.parsers,
            ocr_parsers=ocr_parsers,
            chunk_size=options.chunk_size,
            chunk_overlap=options.chunk_overlap,
            ocr_max_pages=options.ocr_max_pages,
            loaders=options.threads(ocr=ocr_parsers is not None),
        )
        self.files = FileHandler(self.docs_dir, registry, self.pipeline, self.events, options)
        """Runs one file taken off the queue and writes down how it ended."""
        self.reconciler = Reconciler(
            self.docs_dir,
            registry,
            indexes,
            self.pipeline.key_for,
            self.pipeline.busy_keys,
            on_collected=on_collected,
        )
        self.lanes = Lanes(
            self.files,
            options,
            ocr=ocr_parsers is not None,
            on_space=lambda rel: self.space.hold(rel),
            on_idle=lambda: self.janitor.collect_later(),
        )
        """The work queue, the worker tasks of each lane, and retries."""
        self.janitor = Janitor(
            self.reconciler,
            self.pipeline,
            idle=lambda: self.lanes.queue.idle,
            running=lambda: self.lanes.running,
            on_hold=lambda: len(self.space) > 0,
            delay=options.gc_delay,
        )
        """Collects what no file uses any more, and fills document vectors, while idle."""
        self.space = SpaceWait(
            registry,
            self.events,
            lambda rel: self.enqueue(self.docs_dir / rel),
            retry_seconds=options.space_retry_seconds,
        )
        """Paths that met a full disk: queued again once writes succeed."""

    async def start(self) -> None:
        """Start the workers (once)."""
        self.events.bind(asyncio.get_running_loop())
        self.lanes.start()

    async def stop(self, timeout: float = 3.0) -> None:
        """Stop the workers and cancel running files, waiting ``timeout`` s at most; the next
        scan resumes unfinished files from the chunks they wrote."""
        self.janitor.stop()
        self.space.stop()
        await self.lanes.stop()
        # Files waiting for their shared write need not wait for their patience.
        await asyncio.to_thread(self.pipeline.writes.drain)
        await self.files.runner.wait_stopped(timeout)
        self.pipeline.loaders.close()
        if self._owns_parsers:  # a pool passed in is its owner's to close
            await asyncio.to_thread(self.parsers.close)
        await asyncio.to_thread(self.pipeline.kept.close)

    @property
    def queued(self) -> int:
        """Files not finished yet: waiting, to retry, for disk space, or being indexed."""
        return self.lanes.queue.pending + len(self.space)

    @property
    def waiting_for_space(self) -> list[str]:
        """Paths that met a full disk; they are queued again once writes succeed."""
        return self.space.waiting

    @property
    def disk_full(self) -> DiskFull | None:
        """Why files wait for space (or would), naming the disk; None while it has room."""
        return self.space.disk_full

    async def wait_idle(self) -> None:
        """Return once nothing is queued, retrying or in progress, and unused chunks are gone."""
        while True:
            await self.lanes.queue.wait_idle()
            await self.janitor.collect()
            if self.lanes.queue.idle:
                return

    def enqueue(self, path: Path, *, urgent: bool = True) -> bool:
        """Queue a file for a look (call on the event loop); False if it is ignored. A path
        gone is queued for removal; only a new file's row shows ``queued`` at once."""
        rel = relative(self.docs_dir, path)
        if rel is None or not is_candidate(rel):
            return False
        full = self.docs_dir / rel
        if not os.path.lexists(full):
            return self.enqueue_removal(full)
        if full.is_dir():
            return False
        size = full.stat().st_size if full.exists() else 0
        return self._put(rel, size, urgent=urgent)

    def enqueue_removal(self, path: Path) -> bool:
        """Queue removal of a file, or of every document under a folder that is gone."""
        rel = relative(self.docs_dir, path)
        if rel is None:
            return False
        targets = [
            record.path
            for record in self.registry.list()
            if rel in ("", record.path) or record.path.startswith(f"{rel}/")
        ]
        for target in targets:
            self._put(target, 0, urgent=True)
        return bool(targets)

    def _put(self, rel: str, size: int, *, urgent: bool) -> bool:
        """Queue ``rel``; DiskFull (the path remembered) when the registry can't be written."""
        self.events.bind(asyncio.get_running_loop())
        if self.registry.get_by_path(rel) is None and os.path.lexists(self.docs_dir / rel):
            try:
                self.registry.upsert(rel, status=DocStatus.QUEUED)  # show new files at once
            except Exception as error:
                if not is_disk_full(error):
                    raise
                self.space.hold(rel)
                raise DiskFull(self.data_dir) from error
        added = self.lanes.put(rel, size, urgent=urgent)
        if added:
            self.events.publish(IngestEvent("queued", rel, doc_id_for(rel)))
        return added

    async def check(self) -> Report:
        """Compare the folder, the registry and every index (changes nothing)."""
        return await asyncio.to_thread(self.reconciler.check)

    async def scan(self, *, retry_errors: bool = False) -> int:
        """Reconcile the folder with the indexes; returns how many files were queued. Files
        that failed for their bytes are retried only if they change, or ``retry_errors``."""
        if retry_errors:
            for record in self.registry.list():
                if record.status == DocStatus.ERROR and not record.retry:
                    self.registry.upsert(record.path, status=DocStatus.ERROR, retry=True)
        if self.ocr_parsers is not None and self.registry.state(OCR_RETRIED) is None:
            # Files that ended "scanned" before Docent had OCR: tried once more, and only
            # they (their bytes did not change, so nothing else is re-read).
            retried = self.registry.retry_errors(OLD_SCANNED)
            self.registry.set_state(OCR_RETRIED, str(retried))
        report = await self.check()
        visit = await asyncio.to_thread(self.reconciler.repair, report)
        queued = [rel for rel in visit if self._put_or_hold(rel, report.found[rel].size)]
        for rel in report.gone:
            self._put_or_hold(rel, 0)
        if self.lanes.queue.idle:  # nothing to do, so nothing will call for a collection later
            self.janitor.collect_later()
        return len(queued)

    def _put_or_hold(self, rel: str, size: int) -> bool:
        """Queue ``rel`` in the background; on a full disk it waits for space instead."""
        try:
            return self._put(rel, size, urgent=False)
        except DiskFull:
            return False

    async def remove(self, rel: str) -> None:
        """Forget a document now (its file is gone): cancel its work, drop its row."""
        self.lanes.cancel(rel)
        await self.files.remove(rel)
        if self.lanes.queue.idle and self.lanes.running:
            self.janitor.collect_later()

    async def reindex(self, rel: str) -> bool:
        """Index one file again from scratch, whatever the registry says; False if ignored."""
        record = self.registry.get_by_path(rel)
        if record is not None:
            key = record.content_key
            self.registry.upsert(rel, status=record.status, size=None, mtime_ns=None, retry=True)
            if key is not None:
                self.registry.reopen_content(key)
                for index in self.reconciler.indexes:
                    await asyncio.to_thread(index.delete_document, key)
        return self.enqueue(self.docs_dir / rel)

    async def index_all(
        self, on_event: Callable[[IngestEvent], None] | None = None
    ) -> list[DocumentRecord]:
        """Scan and wait until done (for the CLI); returns the records of files visited."""
        started_here = not self.lanes.running
        visited: set[str] = set()

        def listen(event: IngestEvent) -> None:
            visited.add(event.path)
            if on_event is not None:
                on_event(event)

        unsubscribe = self.events.subscribe(listen)
        try:
            if started_here:
                await self.start()
            await self.scan()
            await self.wait_idle()
        finally:
            unsubscribe()
            if started_here:
                await self.stop()
        records = (self.registry.get_by_path(rel) for rel in sorted(visited))
        return [record for record in records if record is not None]

    @property
    def data_dir(self) -> Path:
        """Where the registry and the indexes are written."""
        return self.space.data_dir
