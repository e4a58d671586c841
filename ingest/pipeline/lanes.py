"""The indexer's worker tasks: each lane's places, and what follows each file's run.

Six typed places by default, since files in flight share embedding calls; a file waiting
for its write gives its place up, so each place has several tasks. The OCR lane has one
place and one single-threaded OCR process, leaving typed files a core; a file ending its
turn goes to the back and continues where it stopped. A busy file is retried with backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from ingest.disk import is_disk_full
from ingest.loaders import needs_ocr
from ingest.pipeline.file_handler import FileHandler, Next
from ingest.pipeline.index_options import WAITING_PER_PLACE, IndexOptions
from ingest.pipeline.queue import Job, Lane, WorkQueue

log = logging.getLogger(__name__)


class Lanes:
    """The work queue, the worker tasks of each lane, their places, and retries."""

    def __init__(
        self,
        files: FileHandler,
        options: IndexOptions,
        *,
        ocr: bool,
        on_space: Callable[[str], None],
        on_idle: Callable[[], None],
    ) -> None:
        self.files = files
        self.options = options
        self.ocr = ocr
        """Whether the OCR lane runs."""
        self._on_space = on_space
        """Holds a path until the disk has room."""
        self._on_idle = on_idle
        """Called each time the queue runs dry."""
        self.queue = WorkQueue()
        self._places = asyncio.Semaphore(options.workers)
        """Files being read or embedded at once; one waiting for its write holds none."""
        self._scan_places = asyncio.Semaphore(1)
        """The OCR lane's one place."""
        self._scanned: set[str] = set()
        """Paths found to need OCR: queued in the OCR lane from now on."""
        self._attempts: dict[str, int] = {}
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def running(self) -> bool:
        """Whether the worker tasks run."""
        return bool(self._tasks)

    def start(self) -> None:
        """Start the worker tasks (once), on the running loop."""
        if self._tasks:
            return
        self.queue.reopen()
        self._places = asyncio.Semaphore(self.options.workers)  # bound to this loop
        self._scan_places = asyncio.Semaphore(1)
        self._tasks = [
            asyncio.create_task(self._work("typed"), name=f"docent-indexer-{n}")
            for n in range(self.options.threads(ocr=False))
        ]
        if self.ocr:
            self._tasks += [
                asyncio.create_task(self._work("ocr"), name=f"docent-ocr-{n}")
                for n in range(WAITING_PER_PLACE)
            ]

    async def stop(self) -> None:
        """Close the queue and cancel the worker tasks (files stop at their next check)."""
        self.queue.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def lane_for(self, rel: str) -> Lane:
        """Where ``rel`` is read: pictures and files found to need OCR in the OCR lane."""
        if self.ocr and (rel in self._scanned or needs_ocr(Path(rel))):
            return "ocr"
        return "typed"

    def put(self, rel: str, size: int, *, urgent: bool) -> bool:
        """Queue ``rel`` in its lane; False if it was waiting already."""
        return self.queue.put(rel, size=size, urgent=urgent, lane=self.lane_for(rel))

    def cancel(self, rel: str) -> None:
        """Drop ``rel`` from the queue and cancel its run, if any."""
        self.queue.cancel(rel)
        self._attempts.pop(rel, None)

    async def _work(self, lane: Lane) -> None:
        places = self._scan_places if lane == "ocr" else self._places
        while True:
            # A place first, then the most urgent job: a job taken early would wait for
            # a place while a more urgent one arrived.
            await places.acquire()
            place = _Place(places)
            try:
                job = await self.queue.get(lane)
                if job is None:  # the queue was closed: stop
                    return
                try:
                    self._then(job, *await self.files.handle(job, place.give_back))
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # a worker must never die
                    if is_disk_full(error):
                        self._on_space(job.rel)
                    else:
                        log.exception("indexing %s failed unexpectedly", job.rel)
                finally:
                    self.queue.done(job)
            finally:
                place.give_back()
            if self.queue.idle:
                self._on_idle()

    def _then(self, job: Job, then: Next, why: str) -> None:
        """Do what comes next for ``job``'s path, as its run said."""
        if then == "done":
            self._attempts.pop(job.rel, None)
        elif then == "retry":
            self._retry_later(job, why)
        elif then == "ocr":
            self._scanned.add(job.rel)
            self.queue.hand_over(job, "ocr")
        elif then == "requeue":
            self.queue.requeue(job)
        elif then == "space":
            self._on_space(job.rel)

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
        self.queue.retry_later(job.rel, delay, size=job.size, lane=job.lane)


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
