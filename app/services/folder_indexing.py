"""Indexing the documents folder: the indexer's knobs, and starting and stopping what
indexes, once this process holds the data dir's one-indexer lock."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from app.settings import IngestSettings, PathSettings
from ingest.index.keyword.index import KeywordIndex
from ingest.index.vectors import ChromaStore
from ingest.pipeline.index_options import PLACES, IndexOptions
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.lock import AlreadyIndexing, IndexLock
from ingest.pipeline.watcher import FolderWatcher, WatcherUnavailable

log = logging.getLogger(__name__)


def index_options(ingest: IngestSettings) -> IndexOptions:
    """The indexer's knobs, from the settings of its group."""
    return IndexOptions(
        chunk_size=ingest.chunk_size,
        chunk_overlap=ingest.chunk_overlap,
        max_file_bytes=ingest.max_file_mb << 20,
        time_budget=ingest.file_time_budget,
        workers=PLACES,
        ocr_page_seconds=ingest.ocr_page_seconds,
        ocr_max_pages=ingest.ocr_max_pages,
    )


@dataclass(eq=False)
class FolderIndexing:
    """The keyword index's catch-up, the indexer, the folder watcher and the start-up scan."""

    indexer: Indexer
    keyword: KeywordIndex
    index_lock: IndexLock
    watcher: FolderWatcher | None = field(default=None, init=False)
    scan: asyncio.Task[int] | None = field(default=None, init=False)
    """The start-up scan; its result is the number of files it queued."""

    async def start(
        self, paths: PathSettings, store: ChromaStore, *, watch: bool, scan: bool
    ) -> bool:
        """Start indexing (and watching, scanning); False when another process indexes."""
        if not self.index_lock.acquire():
            pid = self.index_lock.holder()
            if watch or scan:
                raise AlreadyIndexing(
                    f"Another Docent{f' (process {pid})' if pid else ''} is using"
                    f" {paths.data_dir}. Stop it, or give this one its own"
                    " --data-dir."
                )
            # `ask` or `mcp` beside the running app: read only, the app does the indexing.
            log.info("another Docent (process %s) indexes this data dir; only reading", pid)
            return False
        # Before indexing starts: chunks the keyword index missed (a crash, or a library
        # indexed before it existed) come from the store, without embedding anything.
        added, removed = await asyncio.to_thread(self.keyword.catch_up, store)
        if added or removed:
            log.info("keyword index caught up: %d documents added, %d removed", added, removed)
        await self.indexer.start()
        if watch:
            self.watcher = FolderWatcher(paths.docs_dir, self.indexer, asyncio.get_running_loop())
            try:
                self.watcher.start()
            except WatcherUnavailable as error:
                # Serving without live updates beats not serving: the start-up scan
                # and reindex still pick files up.
                log.warning("%s", error)
                self.watcher = None
        if scan:
            self.scan = asyncio.create_task(self.indexer.scan(), name="startup-scan")
        return True

    def stop(self) -> None:
        """Stop watching the folder and the start-up scan (the indexer stops on its own)."""
        if self.watcher:
            self.watcher.stop()
        if self.scan and not self.scan.done():
            self.scan.cancel()
