"""Files waiting for disk space: held while the data dir's disk is full, queued again in
order once it has room (docs/disk-full.md). Nothing is read or written for them meanwhile:
a write Chroma itself refuses can leave it stuck.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ingest.disk import DiskFull, has_room, is_disk_full, short_of_room
from ingest.document_parts import DocStatus
from ingest.index.registry import Registry
from ingest.keys import doc_id_for
from ingest.pipeline.progress import EventBus, IngestEvent

log = logging.getLogger(__name__)


class SpaceWait:
    """The paths that met a full disk, and the task that queues them again."""

    def __init__(
        self,
        registry: Registry,
        events: EventBus,
        requeue: Callable[[str], object],
        *,
        retry_seconds: float = 5.0,
    ) -> None:
        self.registry = registry
        self.events = events
        self.data_dir = registry.db_path.parent
        """Where the registry and the indexes are written."""
        self._requeue = requeue
        """Queues a path again (on the event loop); may raise DiskFull, which holds it."""
        self.retry_seconds = retry_seconds
        self._held: dict[str, None] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> list[str]:
        """Paths held until the disk has room, in the order they met the full disk."""
        return list(self._held)

    def __len__(self) -> int:
        return len(self._held)

    @property
    def disk_full(self) -> DiskFull | None:
        """Why files wait for space (or would), naming the disk; None while it has room."""
        full = short_of_room(self.data_dir)
        if full is None and self._held:  # a quota, or room a moment ago
            full = DiskFull(self.data_dir)
        return full

    def hold(self, rel: str) -> None:
        """Hold ``rel`` until the disk has room again (call on the event loop)."""
        if not self._held:
            log.warning("the disk holding %s is full; files wait until it has space", self.data_dir)
        self._held[rel] = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._retry_when_space(), name="docent-wait-for-space"
            )
        record = self.registry.get_by_path(rel)
        if record is not None and record.status == DocStatus.INDEXING:
            try:  # it waits like any file not started (the registry has room, most often)
                self.registry.upsert(rel, status=DocStatus.QUEUED)
            except Exception as error:
                if not is_disk_full(error):
                    raise
        self.events.publish(IngestEvent("queued", rel, doc_id_for(rel)))  # the window says why

    def stop(self) -> None:
        """Stop looking at the disk; the paths stay held (the next scan finds them)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _retry_when_space(self) -> None:
        while self._held:
            await asyncio.sleep(self.retry_seconds)
            if not await asyncio.to_thread(has_room, self.data_dir):
                continue
            waiting, self._held = list(self._held), {}
            log.info("the disk has space again: queueing %d files", len(waiting))
            for rel in waiting:
                try:
                    self._requeue(rel)
                except DiskFull:
                    pass  # full again: the path is held once more
                except Exception:
                    log.exception("could not queue %s again", rel)
