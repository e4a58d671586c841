"""The janitor: what the indexer does once the library is idle, not for any one file.

It never runs while files wait for disk space: deleting writes too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ingest.index.write_ports import VectorIndex
from ingest.pipeline.process import Pipeline
from ingest.pipeline.reconcile import Reconciler

log = logging.getLogger(__name__)


class Janitor:
    """Collects unused contents and fills document vectors while the queue is idle."""

    def __init__(
        self,
        reconciler: Reconciler,
        pipeline: Pipeline,
        *,
        idle: Callable[[], bool],
        running: Callable[[], bool],
        on_hold: Callable[[], bool],
        delay: float = 5.0,
    ) -> None:
        self.reconciler = reconciler
        self.pipeline = pipeline
        self._idle = idle
        """Whether nothing is queued or being indexed."""
        self._running = running
        """Whether the indexer's workers run (a stopped indexer starts no collection)."""
        self._on_hold = on_hold
        """Whether files wait for disk space: then nothing is collected."""
        self.delay = delay
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._vectors_filled = False

    def collect_later(self) -> None:
        """Collect unused contents once the library has been idle ``delay`` seconds (a
        rename arrives as a removal then a creation, which reuses the content)."""
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()

        def spawn() -> None:
            self._timer = None
            if self._idle() and self._running():
                self._task = loop.create_task(self.collect())

        self._timer = loop.call_later(self.delay, spawn)

    def stop(self) -> None:
        """Cancel a collection waiting for its delay, or under way."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None:
            self._task.cancel()

    async def collect(self) -> None:
        """Delete contents no file uses any more (renames and duplicates had their chance)."""
        if self._on_hold():  # deleting writes too; the files waiting call for it later
            return
        async with self._lock:
            try:
                garbage = await asyncio.to_thread(self.reconciler.garbage)
                if garbage:
                    await asyncio.to_thread(self.reconciler.collect, garbage)
                await asyncio.to_thread(self.pipeline.sweep_kept)
            except Exception:
                log.exception("could not collect unused chunks; the next start tries again")
            await self._fill_document_vectors()

    async def _fill_document_vectors(self) -> None:
        """While idle, give documents indexed by an older version their document vector
        (once all are done, never again in this run)."""
        indexes = [ix for ix in self.reconciler.indexes if isinstance(ix, VectorIndex)]
        # During a model switch the new collection gets them as it is built, and the old
        # one is about to go.
        if self._vectors_filled or any(index.building for index in indexes):
            return
        done = True
        for index in indexes:
            try:
                filled = await asyncio.to_thread(index.fill_document_vectors, self._idle)
            except Exception:
                log.exception("could not fill document vectors; the next start tries again")
                done = False
                continue
            if filled:
                log.info("gave %d documents their document vector", filled)
            done = done and self._idle()
        self._vectors_filled = done
