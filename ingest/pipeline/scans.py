"""How the OCR lane reads a file: in turns, keeping every page, up to the file's limit.

The lane has one OCR worker, and a scan takes seconds a page: a 3,000-page TIFF held it
for hours while a one-page scan dropped after it waited. So files take turns. A file
reads ``TURN_PAGES`` pages by OCR, and then, if another file waits in the lane, ends its
turn (``TurnOver``) and goes to the back of the lane; the next file's turn starts at
once, in the same worker, its models still loaded. Alone in the lane, a file reads on.

Every page read is kept (``KeptPages``) as it comes, so a file whose turn comes again,
or that is read again after a crash, starts at the first page not kept: the kept pages
are replayed from the database, not read again, and its chunks already embedded are not
embedded again (the pipeline resumes them). At most ``max_pages`` pages of a file are
read by OCR (DOCENT_OCR_MAX_PAGES); the pages past that are left out, and its note
says which.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from ingest.closing import Closing
from ingest.document_parts import Page
from ingest.parsing import ParserPool, RemoteDocument
from ingest.pipeline.kept_pages import KeptPages

TURN_PAGES = 4
"""Pages a file reads by OCR before it lets a waiting file have a turn: a one-page scan
waits at most this many pages of another file (some 16 s at 4 s a page). A turn costs
the file opened again and its kept pages replayed and chunked: measured here, 0.7 s to
open a 3,000-frame TIFF at frame 2,990, 0.2 s to replay and chunk 500 pages of 2.7 KB
(the most OCR reads of a file by default), 2.2 s for 3,000 such pages."""


class TurnOver(Exception):
    """The file read its turn of pages while another file waits in the OCR lane: it goes
    to the back of the lane and continues from its first page not read."""


class ScanReading(Closing):
    """A file in the OCR lane as a LoadedDocument: its kept pages, then the ones the OCR
    worker reads, each kept as it comes. Raises TurnOver after the last page of a turn
    cut short."""

    def __init__(
        self,
        remote: RemoteDocument,
        kept: KeptPages,
        sha256: str,
        first_page: int,
        others_waiting: threading.Event | None,
    ) -> None:
        self._remote = remote
        self._kept = kept
        self._sha256 = sha256
        self.first_page = first_page
        """The first page the worker reads; the ones before it are kept pages."""
        self._others_waiting = others_waiting
        self.page_count = remote.page_count
        self._read = 0
        """Pages OCR read in this turn."""
        self._cut = False

    def pages(self) -> Iterator[Page]:
        """The kept pages, then the pages read now; TurnOver when the turn was cut short."""
        yield from self._kept.pages(self._sha256, self.first_page)
        for page in self._remote.pages(self._reads_on):
            self._kept.keep(self._sha256, page)
            yield page
        if self._cut:
            raise TurnOver(f"read {self._read} pages by OCR; another file's turn")

    def _reads_on(self, page: Page) -> bool:
        """Whether the worker reads on after ``page`` (asked as it arrives)."""
        if page.ocr is not None and not page.ocr.left_out:
            self._read += 1
        last = page.number is not None and page.number >= (self.page_count or 0)
        waiting = self._others_waiting is not None and self._others_waiting.is_set()
        if self._read >= TURN_PAGES and waiting and not last:
            self._cut = True
        return not self._cut

    def close(self) -> None:
        self._remote.close()


def open_scan(
    path: Path,
    data: bytes | None,
    parsers: ParserPool,
    cancelled: threading.Event,
    kept: KeptPages,
    sha256: str,
    *,
    max_pages: int,
    others_waiting: threading.Event | None = None,
) -> ScanReading:
    """Open ``path`` (``data``: its bytes, read already) in the OCR lane's worker, from
    its first page not kept; ``others_waiting`` is set while another file waits for the
    lane (this one then reads no more than its turn)."""
    done = kept.kept(sha256)
    remote = parsers.open_scan(
        path,
        data,
        cancelled,
        first_page=done.next_page,
        seen_text=done.seen_text,
        ocr_pages=max(max_pages - done.ocr_read, 0),
    )
    return ScanReading(remote, kept, sha256, done.next_page, others_waiting)
