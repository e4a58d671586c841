"""The per-file pipeline: decide whether a file changed, then load → chunk → embed → write.

A touch, a rename or a duplicate costs no embedding; new content is embedded under its own
key and the registry switches the path to it only once every index holds every chunk, so an
interrupted document resumes. In the typed lane the first page that needs OCR raises
NeedsOcr and the file moves to the OCR lane, keeping the chunks embedded so far.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Literal

from ingest.document_parts import Chunk, DocStatus, DocumentRecord
from ingest.index.chunk_context import Outline
from ingest.index.registry import READY, Registry
from ingest.index.write_ports import ChunkIndex, VectorIndex
from ingest.keys import content_key, doc_id_for
from ingest.loaders import LoadedDocument, UnreadableFile
from ingest.ocr.status_line import OcrTally
from ingest.parsing import Cancelled, ParserPool
from ingest.parsing.tasks import OcrMode
from ingest.pipeline.folder import ReadFile, read_and_hash
from ingest.pipeline.index_job import IndexJob
from ingest.pipeline.index_options import PLACES, WAITING_PER_PLACE
from ingest.pipeline.kept_pages import KeptPages
from ingest.pipeline.progress import EventBus, IngestEvent
from ingest.pipeline.read_ahead import CountedPages, ReadAhead
from ingest.pipeline.scans import open_scan
from ingest.pipeline.source import open_source
from ingest.pipeline.threads import ThreadPool
from ingest.pipeline.vector_writes import VectorWrites
from ingest.pipeline.write_behind import WriteBehind
from models.protocols import Embedder

log = logging.getLogger(__name__)

EMBED_BATCH = 64
"""Chunks a file asks to embed at once, at most: small enough for steady progress and
bounded memory (the batcher joins several files' batches in one call)."""


class Busy(Exception):
    """The file cannot be read right now (locked, or still being written): try later."""


Kind = Literal["ready", "unchanged", "error"]


@dataclass(frozen=True)
class Outcome:
    """How one file ended: its record, and whether anything was embedded."""

    kind: Kind
    record: DocumentRecord
    embedded: int = 0


class Pipeline:
    """Loads, chunks, embeds and writes one file at a time per calling thread."""

    def __init__(
        self,
        registry: Registry,
        indexes: list[ChunkIndex],
        embedder: Embedder,
        events: EventBus,
        *,
        parsers: ParserPool,
        ocr_parsers: ParserPool | None = None,
        chunk_size: int = 1000,
        chunk_overlap: int = 150,
        embed_batch: int = EMBED_BATCH,
        ocr_max_pages: int = 500,
        loaders: int = PLACES * WAITING_PER_PLACE,
    ) -> None:
        self.registry = registry
        self.indexes = indexes
        self.embedder = embedder
        self.events = events
        self.parsers = parsers
        """The worker processes that parse files (the app never parses one itself)."""
        self.ocr_parsers = ocr_parsers
        """The OCR lane's worker; None when OCR is off."""
        self.ocr_max_pages = ocr_max_pages
        """Pages of one file OCR reads at most; the rest are left out, and it says so."""
        self.kept = KeptPages(registry.db_path)
        """The pages the OCR lane has read of files not indexed yet."""
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.embed_batch = embed_batch
        self.loaders = ThreadPool(loaders, "load")
        """The threads that read ahead of each file's embedding, one a file in flight."""
        self._busy_keys: set[str] = set()
        self._lock = threading.Lock()
        self.writes = WriteBehind(self._flush)
        self.timings: dict[str, float] = {"load": 0.0, "chunk": 0.0, "embed": 0.0, "store": 0.0}
        """Seconds spent per stage, summed over files (for the benchmark)."""
        self.vectors = VectorWrites(self.writes, self.timings)
        self.reader = ReadAhead(self.loaders, embed_batch, chunk_size, chunk_overlap, self.timings)

    def key_for(self, sha256: str) -> str:
        """The content key of these bytes under the current chunking."""
        return content_key(sha256, self.chunk_size, self.chunk_overlap)

    def busy_keys(self) -> set[str]:
        """Content keys being written now (reconcile must not collect them)."""
        with self._lock:
            return set(self._busy_keys)

    def forget_kept(self, sha256: str) -> None:
        """Drop the OCR lane's kept pages of these bytes, unless another path indexes them now."""
        if self.key_for(sha256) not in self.busy_keys():
            self.kept.forget(sha256)

    def sweep_kept(self) -> None:
        """Drop the kept pages of every file not queued or being indexed."""
        unfinished = (DocStatus.QUEUED, DocStatus.INDEXING)
        reading = {r.sha256 for r in self.registry.list() if r.status in unfinished}
        self.kept.keep_only(sha for sha in reading if sha is not None)

    def process(
        self,
        job: IndexJob,
        on_settle: Callable[[], None] | None = None,
        *,
        on_open: Callable[[int | None], None] | None = None,
    ) -> Outcome:
        """Bring one file's registry row and index entries up to date with its bytes,
        deciding from the row ``job`` carries.

        ``on_settle``: nothing more to embed, only writes to wait for (another file may
        start); ``on_open``: the page count (the budget may grow). Raises NeedsOcr in the
        typed lane, TurnOver in the OCR lane when another file waits for its turn.
        """
        full, info, record = job.full, job.info, job.record
        rel = info.rel
        read = job.read = read_and_hash(full, info.size)  # the one read of the file's bytes
        sha = read.sha256
        stat: dict[str, Any] = {"sha256": sha, "size": info.size, "mtime_ns": info.mtime_ns}
        key = self.key_for(sha)
        content = self.registry.content(key)
        if content is not None and content.state == READY:
            unchanged = record is not None and record.content_key == key
            status = DocStatus.READY
            if unchanged and record is not None and record.status == status:
                # A touch, or a rename whose row moved already: only the stat is new.
                return Outcome("unchanged", self.registry.upsert(rel, status=status, **stat))
            # A rename, a copy, or a change back: the content is indexed already.
            done = self.registry.finish_content(
                rel, key, pages=content.pages, chunks=content.chunks, note=content.note, **stat
            )
            return Outcome("unchanged" if unchanged else "ready", done)
        if record is not None and record.sha256 == sha and record.status == DocStatus.ERROR:
            if not record.retry:  # these bytes failed before; only new bytes are retried
                return Outcome("unchanged", self.registry.upsert(rel, status=record.status, **stat))
        with self._lock:
            if key in self._busy_keys:  # the same bytes at another path, being indexed now
                raise Busy("the same content is being indexed from another path")
            self._busy_keys.add(key)
        self.registry.upsert(rel, status=DocStatus.INDEXING, **stat)
        try:
            return self._index(job, read, key, on_settle or (lambda: None), on_open)
        finally:
            with self._lock:
                self._busy_keys.discard(key)

    def _index(
        self,
        job: IndexJob,
        read: ReadFile,
        key: str,
        on_settle: Callable[[], None],
        on_open: Callable[[int | None], None] | None,
    ) -> Outcome:
        full, info, cancelled, lane = job.full, job.info, job.cancelled, job.lane
        rel, sha = info.rel, read.sha256
        self.registry.begin_content(key, sha)
        vector_indexes = [ix for ix in self.indexes if isinstance(ix, VectorIndex)]
        plain_indexes = [ix for ix in self.indexes if not isinstance(ix, VectorIndex)]
        held = [ix.chunk_indexes(key) for ix in vector_indexes]  # resume what is there
        started = time.perf_counter()
        scanning = lane == "ocr" and self.ocr_parsers is not None
        loaded: LoadedDocument
        resumed = 0
        """Pages kept from an earlier turn or run: the file's progress starts there."""
        if lane == "ocr" and self.ocr_parsers is not None:
            scan = open_scan(
                full,
                read.data,
                self.ocr_parsers,
                cancelled,
                self.kept,
                sha,
                max_pages=self.ocr_max_pages,
                others_waiting=job.others_waiting,
            )
            loaded, resumed = scan, scan.first_page - 1
        else:
            ocr: OcrMode = "defer" if self.ocr_parsers is not None else "off"
            loaded = open_source(full, read.data, self.parsers, cancelled, ocr)
        self.timings["load"] += time.perf_counter() - started
        total = loaded.page_count
        if on_open is not None:
            on_open(total)
        doc_id = doc_id_for(rel)
        self._publish(IngestEvent("started", rel, doc_id, resumed, total, ocr=scanning))
        tally = OcrTally(limit=self.ocr_max_pages)

        def on_page(count: int) -> None:  # a scan's progress is its pages, not its chunks
            if scanning and count > resumed:  # (kept pages replayed: no step back)
                self._publish(IngestEvent("pages", rel, doc_id, count, total, ocr=True))

        everything: list[Chunk] = []
        outline = Outline()
        firsts: dict[tuple[int, int], tuple[str, Sequence[float]]] = {}
        count = embedded = pages = 0
        counted = CountedPages(loaded.pages(), tally, on_page)
        with self.writes.embedding(key, cancelled, on_settle, slow=scanning), ExitStack() as stack:
            embedders = [ix.embedder for ix in vector_indexes]
            for embedder in {id(e): e for e in embedders}.values():
                batcher = self.vectors.batcher(embedder)
                if batcher is not None:  # this file's batches may share calls with others'
                    stack.enter_context(batcher.producing())
            try:
                batches = self.reader.batches(counted, rel, full.name, sha, key, cancelled)
                for batch in batches:
                    if cancelled.is_set():
                        raise Cancelled(rel)
                    count += len(batch.chunks)
                    pages = batch.pages_done
                    if plain_indexes:
                        everything.extend(batch.chunks)
                    outline.add(batch.chunks)
                    embedded += self.vectors.write(key, batch.chunks, vector_indexes, held, firsts)
                    if not resumed or pages > resumed:
                        self._publish(
                            IngestEvent("pages", rel, doc_id, pages, total, count, ocr=scanning)
                        )
                # While the file is still in flight, so the outline shares a batch.
                self.vectors.write_document(key, outline, count, vector_indexes, firsts)
            finally:
                loaded.close()
        if count == 0:
            raise UnreadableFile("no text to index")
        if cancelled.is_set():
            raise Cancelled(rel)
        if read.data is None:  # parsed from disk: the parsed bytes must be the hashed ones
            after = full.stat()
            if (after.st_size, after.st_mtime_ns) != (info.size, info.mtime_ns):
                raise Busy("the file changed while it was read")
        started = time.perf_counter()
        for index in plain_indexes:
            index.replace_document(key, everything)
        self.timings["store"] += time.perf_counter() - started
        record = self.registry.finish_content(
            rel,
            key,
            pages=total,
            chunks=count,
            note=tally.note(),
            placed=counted.placed,
            sha256=sha,
        )
        if scanning:
            self.kept.forget(sha)  # indexed: its pages are in the indexes now
        return Outcome("ready", record, embedded)

    def _flush(self) -> dict[str, BaseException]:
        """Write what every vector index holds (``WriteBehind`` calls this)."""
        started = time.perf_counter()
        failed: dict[str, BaseException] = {}
        for index in [ix for ix in self.indexes if isinstance(ix, VectorIndex)]:
            failed.update(index.flush())
        self.timings["store"] += time.perf_counter() - started
        return failed

    def _publish(self, event: IngestEvent) -> None:
        self.events.publish_threadsafe(event)
