"""Reading ahead of a file's embedding: a loader thread cuts its pages into chunks."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ingest.document_parts import Chunk, Page, PlacedLine
from ingest.ocr.status_line import OcrTally
from ingest.parsing import Cancelled
from ingest.pipeline.chunker import chunk_pages
from ingest.pipeline.threads import ThreadPool

READ_AHEAD = 4
"""Batches the loader thread may prepare while the embedder works."""


@dataclass(frozen=True)
class Batch:
    """Chunks cut so far, with the pages read by then."""

    chunks: list[Chunk]
    pages_done: int


class ReadAhead:
    """Cuts each file's pages into chunk batches on a loader thread of ``loaders``."""

    def __init__(
        self,
        loaders: ThreadPool,
        embed_batch: int,
        chunk_size: int,
        chunk_overlap: int,
        timings: dict[str, float],
    ) -> None:
        self.loaders = loaders
        self.embed_batch = embed_batch
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.timings = timings
        """The pipeline's seconds per stage; chunking adds to ``chunk``."""

    def batches(
        self,
        pages: CountedPages,
        rel: str,
        name: str,
        sha: str,
        key: str,
        cancelled: threading.Event,
    ) -> Iterator[Batch]:
        """Chunk batches from a loader thread that runs up to ``READ_AHEAD`` batches ahead.

        A batch is what is ready when the file asks (up to ``embed_batch``): waiting for a
        full one left the embedder idle while small PDFs were parsed (pypdf holds the GIL).
        """
        ready: queue.Queue[Batch | BaseException | None] = queue.Queue(
            READ_AHEAD * self.embed_batch
        )
        stop = threading.Event()

        def offer(item: Batch | BaseException | None) -> bool:
            while not (stop.is_set() or cancelled.is_set()):
                try:
                    ready.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            thread = threading.current_thread()
            own, thread.name = thread.name, f"load {rel}"  # for py-spy and logs
            try:
                for batch in self._chunks(pages, rel, name, sha, key):
                    if not offer(batch):
                        return
                offer(None)
            except BaseException as exc:  # handed to the consumer, which re-raises it
                offer(exc)
            finally:
                thread.name = own

        def take() -> Batch | BaseException | None:
            while True:
                try:
                    return ready.get(timeout=0.1)
                except queue.Empty:
                    if cancelled.is_set():
                        raise Cancelled(rel) from None

        self.loaders.submit(produce)
        try:
            item = take()
            while isinstance(item, Batch):
                chunks, pages_done = list(item.chunks), item.pages_done
                while len(chunks) < self.embed_batch:
                    try:
                        item = ready.get_nowait()
                    except queue.Empty:
                        break
                    if not isinstance(item, Batch):  # the end, or the loader's error
                        break
                    chunks.extend(item.chunks)
                    pages_done = item.pages_done
                yield Batch(chunks, pages_done)
                if isinstance(item, Batch):
                    item = take()
            if isinstance(item, BaseException):
                raise item
        finally:
            stop.set()

    def _chunks(
        self, counted: CountedPages, rel: str, name: str, sha: str, key: str
    ) -> Iterator[Batch]:
        """Each chunk as it is cut, with the pages read so far; then, if the last pages had
        no text, an empty batch with the final page count."""
        reported = 0
        started = time.perf_counter()
        for index, piece in enumerate(chunk_pages(counted, self.chunk_size, self.chunk_overlap)):
            chunk = Chunk(
                doc_id=key,
                path=rel,
                file=name,
                page=piece.page,
                index=index,
                start=piece.start,
                end=piece.end,
                text=piece.text,
                sha256=sha,
                heading=piece.heading,
                ocr_confidence=piece.ocr_confidence,
            )
            self.timings["chunk"] += time.perf_counter() - started
            reported = counted.count
            yield Batch([chunk], reported)
            started = time.perf_counter()
        self.timings["chunk"] += time.perf_counter() - started
        if counted.count > reported:
            yield Batch([], counted.count)


class CountedPages:
    """Counts the pages a consumer has pulled (a page in blocks once), and those OCR read."""

    def __init__(
        self, pages: Iterator[Page], tally: OcrTally, on_page: Callable[[int], None]
    ) -> None:
        self._pages = pages
        self._tally = tally
        self._on_page = on_page
        self.count = 0
        self.placed: dict[int, tuple[PlacedLine, ...]] = {}
        """The lines OCR read on each page it read, where they sit."""

    def __iter__(self) -> Iterator[Page]:
        last: int | None = None
        for page in self._pages:
            if page.ocr is not None and page.ocr.lines and page.number is not None:
                self.placed[page.number] = page.ocr.lines
            if page.number is None or page.number != last:
                self.count += 1
                self._tally.add(page)
                self._on_page(self.count)
            last = page.number
            yield page
