"""One file's run through the pipeline, made once by the indexer and handed down, so the
registry row is read once and every decision uses that same row.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from ingest.document_parts import DocumentRecord
from ingest.pipeline.folder import FileInfo, ReadFile
from ingest.pipeline.queue import Job, Lane


@dataclass
class IndexJob:
    """A file being indexed: where it is, what the registry said of it, and its budget."""

    job: Job
    """The queue's entry: the path, its lane, and the flags that cancel or end its turn."""
    full: Path
    info: FileInfo
    """The file's stat when it was taken off the queue."""
    record: DocumentRecord | None
    """The file's registry row when it was taken off the queue (None for a new file)."""
    budget: float
    """Seconds the file may take; in the OCR lane it grows once the page count is known."""
    read: ReadFile | None = field(default=None)
    """The file's sha256, and its bytes when small enough to keep; set once read."""

    @property
    def rel(self) -> str:
        return self.job.rel

    @property
    def lane(self) -> Lane:
        return self.job.lane

    @property
    def cancelled(self) -> threading.Event:
        return self.job.cancelled

    @property
    def others_waiting(self) -> threading.Event:
        return self.job.others_waiting
