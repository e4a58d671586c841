"""One file taken off the queue: looked at, decided from one read of its registry row, run,
and its end written down; what comes next is the scheduler's, told by ``Next``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ingest.disk import is_disk_full, short_of_room
from ingest.document_parts import DocStatus, DocumentRecord
from ingest.index.registry import READY, Registry
from ingest.keys import doc_id_for
from ingest.loaders import UnreadableFile, UnsupportedFile, is_supported
from ingest.ocr.page_reader import NeedsOcr
from ingest.parsing import Cancelled
from ingest.pipeline.folder import FileInfo, inspect, is_candidate
from ingest.pipeline.index_job import IndexJob
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.process import Busy, Pipeline
from ingest.pipeline.progress import EventBus, EventKind, IngestEvent
from ingest.pipeline.queue import Job
from ingest.pipeline.runner import FileRunner
from ingest.pipeline.scans import TurnOver

log = logging.getLogger(__name__)

_FRESH_SECONDS = 2.0
"""Files modified longer ago than this are not checked for still being written."""

Next = Literal["done", "cancelled", "retry", "ocr", "requeue", "space"]
"""What the scheduler does with the path now: nothing, retry later, the OCR lane, the back
of its lane, or hold it until the disk has room."""


class FileHandler:
    """Runs one file taken off the queue and writes down how it ended."""

    def __init__(
        self,
        docs_dir: Path,
        registry: Registry,
        pipeline: Pipeline,
        events: EventBus,
        options: IndexOptions,
    ) -> None:
        self.docs_dir = docs_dir
        self.registry = registry
        self.pipeline = pipeline
        self.events = events
        self.options = options
        self.runner = FileRunner(
            pipeline, threads=options.threads(ocr=pipeline.ocr_parsers is not None)
        )
        """Runs each file on one bounded pool of threads, under its time budget."""

    async def handle(self, job: Job, on_settle: Callable[[], None]) -> tuple[Next, str]:
        """Look at ``job``'s file, decide, run it; returns what comes next, and why."""
        rel = job.rel
        info = await asyncio.to_thread(inspect, self.docs_dir, rel)
        if info is None or not is_candidate(rel):
            await self.remove(rel)
            return "done", ""
        record = self.registry.get_by_path(rel)  # read once: every decision below uses it
        refused = self._refused(info)
        if refused is not None:
            self.fail(rel, refused, retry=False, info=info)
            return "done", ""
        if self._unchanged(record, info):
            assert record is not None
            self.events.publish(finished(record))
            return "done", ""
        if await asyncio.to_thread(short_of_room, self.registry.db_path.parent):
            # A write that Chroma itself refuses can leave it stuck (docs/disk-full.md).
            return "space", ""
        run = IndexJob(job, self.docs_dir / rel, info, record, self.options.time_budget)
        try:
            await self._settle(info)
            outcome = await self.runner.run(run, on_settle, self.options.ocr_page_seconds)
        except Busy as busy:
            return "retry", str(busy)
        except NeedsOcr:
            # Read again, whole, in the OCR lane; what it embedded so far is resumed there.
            self.registry.upsert(rel, status=DocStatus.QUEUED)
            return "ocr", ""
        except TurnOver:
            return "requeue", ""  # to the back of the OCR lane; it resumes there
        except PermissionError:
            return "retry", "permission denied"
        except Cancelled:
            return "cancelled", ""  # the queue runs the path again, or it was stopped
        except FileNotFoundError:
            await self.remove(rel)
            return "done", ""
        except TimeoutError as late:
            reason = (
                f"took longer than its time budget ({late}) to index;"
                " Docent tries again when the file changes"
            )
            self.fail(rel, reason, retry=False, info=info)
            return "done", ""
        except (UnreadableFile, UnsupportedFile) as exc:
            reason = exc.reason if isinstance(exc, UnreadableFile) else str(exc)
            self.fail(rel, reason, retry=False, info=info)
            return "done", ""
        except Exception as exc:
            if is_disk_full(exc):  # not the file's fault: it waits for space
                return "space", ""
            log.exception("indexing %s failed", rel)
            self.fail(rel, f"indexing failed: {type(exc).__name__}: {exc}"[:300], retry=True)
            return "done", ""
        self.events.publish(finished(outcome.record))
        return "done", ""

    def _refused(self, info: FileInfo) -> str | None:
        """Why this file is never read, whatever its bytes; None if it may be."""
        if info.outside is not None:
            return (
                f"a link to {info.outside}, outside the documents folder: Docent never"
                " follows links out of the folder. Copy the file in instead."
            )
        if not is_supported(Path(info.rel)):
            return str(UnsupportedFile(Path(info.rel)))
        limit = self.options.max_file_bytes
        if info.size > limit:
            return (
                f"too large to index ({_mb(info.size)}; the limit is {_mb(limit)})."
                " Split the file, or raise DOCENT_MAX_FILE_MB."
            )
        return None

    def _unchanged(self, record: DocumentRecord | None, info: FileInfo) -> bool:
        """Same size and mtime as when last read, and settled: nothing to do."""
        if record is None or (record.size, record.mtime_ns) != (info.size, info.mtime_ns):
            return False
        if record.status == DocStatus.ERROR:
            return not record.retry
        if record.status != DocStatus.READY or record.content_key is None:
            return False
        content = self.registry.content(record.content_key)
        return content is not None and content.state == READY

    async def _settle(self, info: FileInfo) -> None:
        """Raise Busy if the file is still growing (only checked for fresh files)."""
        if time.time() - info.mtime_ns / 1e9 > _FRESH_SECONDS:
            return
        await asyncio.sleep(self.options.settle_seconds)
        after = await asyncio.to_thread(inspect, self.docs_dir, info.rel)
        if after is None:
            raise FileNotFoundError(info.rel)
        if (after.size, after.mtime_ns) != (info.size, info.mtime_ns):
            raise Busy("the file is still being written")

    def fail(self, rel: str, reason: str, *, retry: bool, info: FileInfo | None = None) -> None:
        """Mark ``rel`` failed for ``reason`` (``retry``: try it again at the next scan)."""
        stat: dict[str, Any] = {"size": info.size, "mtime_ns": info.mtime_ns} if info else {}
        record = self.registry.upsert(
            rel,
            status=DocStatus.ERROR,
            pages=None,
            chunks=0,
            error=reason,
            retry=retry,
            content_key=None,  # an old version's chunks would be stale now
            **stat,
        )
        self.events.publish(finished(record))

    async def remove(self, rel: str) -> None:
        """Forget ``rel`` (its file is gone): its row, and what OCR read of it."""
        record = self.registry.get_by_path(rel)
        if record is not None and record.sha256 is not None:
            await asyncio.to_thread(self.pipeline.forget_kept, record.sha256)
        doc_id = doc_id_for(rel)
        if self.registry.remove(doc_id):
            self.events.publish(IngestEvent("removed", rel, doc_id))


def finished(record: DocumentRecord) -> IngestEvent:
    """The event that says how a file ended: ready (or unchanged), or error."""
    kind: EventKind = "error" if record.status == DocStatus.ERROR else "ready"
    return IngestEvent(
        kind,
        record.path,
        record.id,
        pages_done=record.pages or 0,
        pages_total=record.pages,
        chunks=record.chunks,
        error=record.error,
        note=record.note,
    )


def _mb(size: int) -> str:
    mb = size / (1 << 20)
    return f"{mb:.0f} MB" if mb >= 10 else f"{mb:.1f} MB"
