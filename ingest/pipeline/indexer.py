"""The indexer: workers that take paths off the work queue and run the pipeline on them.

This module only coordinates: ``queue`` decides what runs next, ``pipeline`` does one
file, ``reconcile`` compares the folder with the registry and the indexes. Each file runs
in a daemon thread under a time budget, and is parsed in a worker process of the
``ParserPool``: a file past its budget ends ``error`` and its worker is killed while the
indexer moves on, and stopping never waits for a thread for long. Six files run at once by
default: the embedding of the files in flight is shared (``batcher``), and a window with
texts of several files sorts by length far better than one file's few chunks. A file
that has embedded everything and waits for its chunks to be written together with
other files' (``write_behind``) gives its place to the next file.

Files read by OCR run in a lane of their own (``queue``): one place, one OCR worker
process with onnxruntime on one thread, so a long scan holds none of the places typed
files need and leaves them a core. A picture goes there at once; a PDF goes there when
its typed run meets a page without usable text (NeedsOcr). Its time budget grows by
``ocr_page_seconds`` for each page OCR may read. Files there take turns, and what OCR
read is kept page by page (``scans``): a file ending its turn (TurnOver) goes to the back
of the lane and later continues where it stopped, as a file does after a crash.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

from ingest.disk import DiskFull, is_disk_full
from ingest.index.ports import ChunkIndex
from ingest.index.registry import Registry
from ingest.keys import doc_id_for
from ingest.loaders import needs_ocr
from ingest.loaders.errors import OLD_SCANNED
from ingest.parsing import ParserPool
from ingest.pipeline.file_handler import FileHandler, Next
from ingest.pipeline.folder import is_candidate, relative
from ingest.pipeline.janitor import Janitor
from ingest.pipeline.options import WAITING_PER_PLACE, IndexOptions
from ingest.pipeline.process import Pipeline
from ingest.pipeline.progress import EventBus, IngestEvent
from ingest.pipeline.queue import Job, Lane, WorkQueue
from ingest.pipeline.reconcile import Reconciler, Report
from ingest.pipeline.space import SpaceWait
from ingest.types import DocStatus, DocumentRecord
from models.protocols import Embedder

log = logging.getLogger(__name__)

OCR_RETRIED = "ocr_retried"
"""Registry state: files that ended 'scanned' before OCR were queued again, once."""


class Indexer:
    """Keeps the registry and every index in step with the documents folder: the queue,
    its lanes and places, retries, and files waiting for disk space."""

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
        self._places = asyncio.Semaphore(options.workers)
        """Files being read or embedded at once; one waiting for its write holds none."""
        self._scan_places = asyncio.Semaphore(1)
        """The OCR lane's one place."""
        self._scanned: set[str] = set()
        """Paths found to need OCR: queued in the OCR lane from now on."""
        self._queue = WorkQueue()
        self._attempts: dict[str, int] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.janitor = Janitor(
            self.reconciler,
            self.pipeline,
            idle=lambda: self._queue.idle,
            running=lambda: bool(self._tasks),
            on_hold=lambda: len(self.space) > 0,
            delay=options.gc_delay,
        )
        """Collects what no file uses any more, and fills document vectors, while idle."""
        self.space = SpaceWait(
            self.data_dir,
            lambda rel: self.enqueue(self.docs_dir / rel),
            retry_seconds=options.space_retry_seconds,
        )
        """Paths that met a full disk: queued again once writes succeed."""

    # -- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers (once)."""
        self.events.bind(asyncio.get_running_loop())
        if not self._tasks:
            self._queue.reopen()
            self._places = asyncio.Semaphore(self.options.workers)  # bound to this loop
            self._scan_places = asyncio.Semaphore(1)
            self._tasks = [
                asyncio.create_task(self._work("typed"), name=f"docent-indexer-{n}")
                for n in range(self.options.threads(ocr=False))
            ]
            if self.ocr_parsers is not None:
                self._tasks += [
                    asyncio.create_task(self._work("ocr"), name=f"docent-ocr-{n}")
                    for n in range(WAITING_PER_PLACE)
                ]

    async def stop(self, timeout: float = 3.0) -> None:
        """Stop the workers and cancel running files; waits ``timeout`` s at most for them.

        Unfinished files stay ``queued``/``indexing`` in the registry with the chunks
        written so far; the next scan resumes them.
        """
        self._queue.close()
        self.janitor.stop()
        self.space.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
        self._tasks = []
        # Files waiting for their shared write need not wait for their patience.
        await asyncio.to_thread(self.pipeline.writes.drain)
        await self.files.runner.wait_stopped(timeout)
        if self._owns_parsers:  # a pool passed in is its owner's to close
            await asyncio.to_thread(self.parsers.close)
        await asyncio.to_thread(self.pipeline.kept.close)

    @property
    def queued(self) -> int:
        """Files not finished yet: waiting, waiting to retry (or for disk space), or being
        indexed now."""
        return self._queue.pending + len(self.space)

    @property
    def waiting_for_space(self) -> list[str]:
        """Paths that met a full disk; they are queued again once writes succeed."""
        return self.space.waiting

    @property
    def disk_full(self) -> DiskFull | None:
        """Why files wait for space (or would), naming the disk; None while it has room."""
        return self.space.disk_full

    def is_pending(self, rel: str) -> bool:
        """Whether this path is waiting or being indexed."""
        return self._queue.is_pending(rel)

    def lane_for(self, rel: str) -> Lane:
        """Where ``rel`` is read: pictures and files found to need OCR in the OCR lane
        (when OCR is on), everything else in the typed lane."""
        if self.ocr_parsers is not None and (rel in self._scanned or needs_ocr(Path(rel))):
            return "ocr"
        return "typed"

    async def wait_idle(self) -> None:
        """Return once nothing is queued, retrying or in progress, and unused chunks are gone."""
        while True:
            await self._queue.wait_idle()
            await self.janitor.collect()
            if self._queue.idle:
                return

    # -- feeding the queue -----------------------------------------------------------

    def enqueue(self, path: Path, *, urgent: bool = True) -> bool:
        """Queue a file for a look (call on the event loop); False if it is ignored.

        A path that no longer exists is queued for removal. The registry row is not
        touched until the pipeline knows the file changed (a new file shows ``queued``).
        """
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
        """Queue ``rel``; raises DiskFull (and remembers the path) when the registry
        cannot be written."""
        self.events.bind(asyncio.get_running_loop())
        if self.registry.get_by_path(rel) is None and os.path.lexists(self.docs_dir / rel):
            try:
                self.registry.upsert(rel, status=DocStatus.QUEUED)  # show new files at once
            except Exception as error:
                if not is_disk_full(error):
                    raise
                self._wait_for_space(rel)
                raise DiskFull(self.data_dir) from error
        added = self._queue.put(rel, size=size, urgent=urgent, lane=self.lane_for(rel))
        if added:
            self.events.publish(IngestEvent("queued", rel, doc_id_for(rel)))
        return added

    async def check(self) -> Report:
        """Compare the folder, the registry and every index (changes nothing)."""
        return await asyncio.to_thread(self.reconciler.check)

    async def scan(self, *, retry_errors: bool = False) -> int:
        """Reconcile: repair the indexes, queue what changed or was left unfinished, and
        queue removal of documents whose file is gone. Returns how many files were queued.

        Files that failed because of their bytes are retried only when the bytes change,
        or with ``retry_errors``.
        """
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
        if self._queue.idle:  # nothing to do, so nothing will call for a collection later
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
        self._queue.cancel(rel)
        self._attempts.pop(rel, None)
        await self.files.remove(rel)
        if self._queue.idle and self._tasks:
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
        """Scan and wait until done (for the CLI); returns the records of files visited.

        Starts and stops the workers itself if they were not running.
        """
        started_here = not self._tasks
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

    # -- the workers -----------------------------------------------------------------

    async def _work(self, lane: Lane) -> None:
        places = self._scan_places if lane == "ocr" else self._places
        while True:
            # A place first, then the most urgent job: a job taken early would wait for
            # a place while a more urgent one arrived.
            await places.acquire()
            place = _Place(places)
            try:
                job = await self._queue.get(lane)
                if job is None:  # the queue was closed: stop
                    return
                try:
                    self._then(job, *await self.files.handle(job, place.give_back))
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # a worker must never die
                    if is_disk_full(error):
                        self._wait_for_space(job.rel)
                    else:
                        log.exception("indexing %s failed unexpectedly", job.rel)
                finally:
                    self._queue.done(job)
            finally:
                place.give_back()
            if self._queue.idle:
                self.janitor.collect_later()

    def _then(self, job: Job, then: Next, why: str) -> None:
        """Do what comes next for ``job``'s path, as its run said."""
        if then == "done":
            self._attempts.pop(job.rel, None)
        elif then == "retry":
            self._retry_later(job, why)
        elif then == "ocr":
            self._scanned.add(job.rel)
            self._queue.hand_over(job, "ocr")
        elif then == "requeue":
            self._queue.requeue(job)
        elif then == "space":
            self._wait_for_space(job.rel)

    def _retry_later(self, job: Job, why: str) -> None:
        attempt = self._attempts.get(job.rel, 0) + 1
        if attempt > self.options.max_retries:
            self._attempts.pop(job.rel, None)
            self.files.fail(
                job.rel,
                f"could not read the file: {why} (Docent tries again when it changes)",
                retry=True,
            )
            return
        self._attempts[job.rel] = attempt
        delay = min(self.options.retry_seconds * attempt, 30.0)
        log.debug("%s is busy (%s); retry %d in %.1fs", job.rel, why, attempt, delay)
        self._queue.retry_later(job.rel, delay, size=job.size, lane=job.lane)

    @property
    def data_dir(self) -> Path:
        """Where the registry and the indexes are written."""
        return self.registry.db_path.parent

    def _wait_for_space(self, rel: str) -> None:
        """Hold ``rel`` until the data dir has room again, then queue it once more."""
        self.space.hold(rel)
        record = self.registry.get_by_path(rel)
        if record is not None and record.status == DocStatus.INDEXING:
            try:  # it waits like any file not started (the registry has room, most often)
                self.registry.upsert(rel, status=DocStatus.QUEUED)
            except Exception as error:
                if not is_disk_full(error):
                    raise
        self.events.publish(IngestEvent("queued", rel, doc_id_for(rel)))  # the window says why


class _Place:
    """One of the places where a file is read and embedded, given back once."""

    def __init__(self, places: asyncio.Semaphore) -> None:
        self._places = places
        self._held = True

    def give_back(self) -> None:
        """Free the place (on the event loop's thread); a second call does nothing."""
        if self._held:
            self._held = False
            self._places.release()
