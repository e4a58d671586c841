"""DocumentService: the documents in the folder, one service for the API, the window and MCP."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from app.services.document_errors import (
    DocumentError,
    DocumentNotFound,
    NoSpace,
    UnsupportedType,
)
from app.services.safe_upload import clean_name, safe_folder, write_file
from graph.records import DocumentView
from ingest.disk import DiskFull
from ingest.document_parts import DocumentRecord
from ingest.index.registry import Registry
from ingest.loaders import SUPPORTED_SUFFIXES, LoadedDocument
from ingest.loaders.sheets import SHEET_SUFFIXES
from ingest.parsing import ParserPool
from ingest.parsing.tasks import OcrMode, preview_frame
from ingest.pipeline.folder import inspect
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.progress import IngestEvent, LibraryProgress


@dataclass(frozen=True)
class SheetPage:
    """One sheet of a workbook as Docent indexed it: a row a line, each value labelled."""

    number: int
    name: str
    text: str
    """The page's text, so a passage's offsets in its page fall on the same characters."""


@dataclass(frozen=True)
class Added:
    """A file an upload put into the folder; ``created`` is False when the folder held
    those bytes already, and undoing the upload must leave that file alone."""

    view: DocumentView
    created: bool


PlacedLineRow = tuple[str, tuple[tuple[float, float], ...]]
"""A line OCR read, and its corners on the page (see ``ingest.document_parts.PlacedLine``)."""


class DocumentService:
    """List, add, remove and reindex the documents of the watched folder."""

    supported_suffixes: frozenset[str] = SUPPORTED_SUFFIXES
    sheet_suffixes: frozenset[str] = SHEET_SUFFIXES
    """Spreadsheets: each sheet is a page, which ``sheet`` reads back."""

    def __init__(
        self,
        docs_dir: Path,
        registry: Registry,
        indexer: Indexer,
        *,
        parsers: ParserPool,
        max_file_bytes: int,
        size_setting: str = "DOCENT_MAX_FILE_MB",
    ) -> None:
        self.docs_dir = Path(os.path.abspath(docs_dir))
        self.registry = registry
        self.indexer = indexer
        self.parsers = parsers
        self.max_file_bytes = max_file_bytes
        self.size_setting = size_setting
        """The setting that raises ``max_file_bytes``, named when a file is over it."""

    # -- reading ---------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the app has shut its stores: there is nothing left to read."""
        return self.registry.closed

    def list(self) -> list[DocumentView]:
        """Every document, sorted by path."""
        return [self._view(record) for record in self.registry.list()]

    def get(self, doc_id: str) -> DocumentView | None:
        """One document by id, if it exists."""
        record = self.registry.get(doc_id)
        return self._view(record) if record else None

    def file_path(self, doc_id: str) -> Path:
        """Where the document's file is; never a path outside the folder."""
        record = self._record(doc_id)
        info = inspect(self.docs_dir, record.path)
        if info is None:
            raise DocumentNotFound(f"{record.path} is no longer in the documents folder.")
        if info.outside is not None:
            raise DocumentNotFound(
                f"{record.path} is a link to a file outside the documents folder;"
                " Docent does not serve it."
            )
        return Path(os.path.realpath(self.docs_dir / record.path))

    def open(self, doc_id: str) -> LoadedDocument:
        """The document's file opened for reading, in a parser process (never this one);
        raises DocumentError, or what the loaders raise. A page that needs OCR raises
        NeedsOcr when OCR is on (its text is the index's: OCR is not run again here)."""
        ocr: OcrMode = "defer" if self.indexer.ocr_parsers is not None else "off"
        return self.parsers.open_document(self.file_path(doc_id), ocr=ocr)

    def refusal(self, name: str) -> str | None:
        """Why a file called ``name`` cannot be added (its type), or None when it can."""
        suffix = PurePosixPath(name).suffix.lower()
        if suffix in self.supported_suffixes:
            return None
        kinds = sorted(self.supported_suffixes)
        return (
            f"{name}: Docent cannot read {suffix or 'files without a type'}"
            f" files. It reads {', '.join(kinds[:-1])} and {kinds[-1]}."
        )

    def placed_lines(self, doc_id: str, page: int) -> builtins.list[PlacedLineRow]:
        """The lines OCR read on ``page`` of a document, each as its text and its corners
        (clockwise from the text's top left, as fractions of the page); [] for a page with
        text of its own, or one read before Docent kept where its lines were."""
        record = self.registry.get(doc_id)
        if record is None or record.content_key is None:
            return []
        placed = self.registry.placed_lines(record.content_key, page)
        return [(p.text, p.corners) for p in placed]

    def preview(self, doc_id: str, page: int | None) -> bytes:
        """Page ``page`` (1-based) of a picture document as PNG bytes, drawn in a parser
        process (a TIFF: browsers show none); raises DocumentError, or what loaders raise."""
        path = self.file_path(doc_id)
        with self.parsers.lease() as lease:
            data: bytes = lease.start(preview_frame, (str(path), (page or 1) - 1))
            return data

    def sheet(self, doc_id: str, page: int | None) -> SheetPage:
        """Sheet ``page`` (1-based) of a spreadsheet as its rows were indexed, read in a
        parser process; raises DocumentError, or what loaders raise."""
        number = page or 1
        name, blocks = "", []
        with self.open(doc_id) as document:
            for block in document.pages():
                if block.number == number:
                    name = name or next((s.path[-1] for s in block.sections if s.path), "")
                    blocks.append(block.text)  # a big sheet's blocks follow on, in order
                elif block.number is not None and block.number > number:
                    break
        return SheetPage(number, name or f"sheet {number}", "".join(blocks))

    def subscribe(self, listener: Callable[[IngestEvent], None]) -> Callable[[], None]:
        """Call ``listener`` on the event loop with every ingest event; returns unsubscribe."""
        return self.indexer.events.subscribe(listener)

    async def events(self) -> AsyncIterator[IngestEvent]:
        """The ingest events from now on, as an async iterator (for SSE and the window)."""
        inbox: asyncio.Queue[IngestEvent] = asyncio.Queue()
        unsubscribe = self.subscribe(inbox.put_nowait)
        try:
            while True:
                yield await inbox.get()
        finally:
            unsubscribe()

    def progress(self) -> LibraryProgress:
        """Files and chunks done of the current batch, with rate and ETA."""
        return self.indexer.events.library()

    def disk_full(self) -> DiskFull | None:
        """Why indexing waits for disk space; None when it has room."""
        return self.indexer.disk_full

    # -- changing --------------------------------------------------------------------

    async def add(
        self, name: str, data: AsyncIterator[bytes], *, folder: str | None = None
    ) -> Added:
        """Write an uploaded file into the folder (see ``write_file``) and queue it. On a
        full disk (the folder's, or the data dir's when the file can't be queued) nothing
        this call wrote stays, and NoSpace names the full disk."""
        clean = clean_name(name)
        refused = self.refusal(clean)
        if refused is not None:
            raise UnsupportedType(refused)
        target_dir = safe_folder(self.docs_dir, folder)
        limit = self.max_file_bytes
        final, created = await write_file(target_dir, clean, data, limit, self.size_setting)
        rel = final.relative_to(self.docs_dir).as_posix()
        try:
            self.indexer.enqueue(final)
        except DiskFull as full:
            if created:  # all or nothing: a file that can't be indexed does not stay
                with contextlib.suppress(FileNotFoundError):
                    final.unlink()
            raise NoSpace(full) from full
        record = self.registry.get_by_path(rel)
        assert record is not None
        return Added(self._view(record), created)

    async def undo(self, added: Iterable[Added]) -> None:
        """Remove what an upload created, never a file that was there before it."""
        for item in added:
            if item.created:
                with contextlib.suppress(DocumentNotFound):
                    await self.remove(item.view.id)

    async def remove(self, doc_id: str) -> None:
        """Delete the document's file (a link itself, never its target) and its chunks."""
        record = self._record(doc_id)
        full = self.docs_dir / record.path
        with contextlib.suppress(FileNotFoundError):
            await asyncio.to_thread(full.unlink)
        await self.indexer.remove(record.path)

    async def index_folder(
        self, on_event: Callable[[IngestEvent], None] | None = None
    ) -> builtins.list[DocumentView]:
        """Index the folder once and wait until it is done (``run.py ingest``); the
        documents looked at, each as it ended. ``on_event`` hears every ingest event."""
        return [self._view(record) for record in await self.indexer.index_all(on_event)]

    async def differences(self) -> builtins.list[str]:
        """Where the folder, the registry and the indexes disagree, one line each for a
        person; empty when they agree (``run.py status --check``). Changes nothing."""
        return (await self.indexer.check()).differences()

    async def reindex(self, doc_id: str | None = None) -> int:
        """Index one document again from scratch, or re-scan the folder (retrying files that
        failed, whatever the cause); returns files queued."""
        if doc_id is None:
            return await self.indexer.scan(retry_errors=True)
        record = self._record(doc_id)
        return int(await self.indexer.reindex(record.path))

    # -- internals -------------------------------------------------------------------

    def _record(self, doc_id: str) -> DocumentRecord:
        record = self.registry.get(doc_id)
        if record is None:
            raise DocumentNotFound(f"No document has the id {doc_id!r}; list them to find it.")
        return record

    def _view(self, record: DocumentRecord) -> DocumentView:
        live = self.indexer.events.document(record.path)
        return DocumentView(
            id=record.id,
            path=record.path,
            name=PurePosixPath(record.path).name,
            status=record.status.value,
            pages=record.pages,
            chunks=record.chunks,
            error=record.error,
            updated_at=record.updated_at,
            pages_done=live.pages_done if live else None,
            pages_total=live.pages_total if live else None,
            chunks_done=live.chunks_done if live else None,
            note=record.note,
        )


__all__ = [
    "Added",
    "DocumentError",
    "DocumentNotFound",
    "DocumentService",
    "DocumentView",
    "NoSpace",
    "UnsupportedType",
]
