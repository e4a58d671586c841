"""How the OCR lane reads a file: in turns, keeping every page, up to the file's limit.

A 3,000-page TIFF held the one OCR worker for hours while a one-page scan waited, so a
file reading while another waits ends its turn after ``TURN_PAGES``. Every page is kept as
it comes, so a file picks up at its first page not kept, after its turn or a crash.
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
"""Pages a file reads by OCR before a waiting file has a turn (some 16 s at 4 s a page). A
turn costs a reopen and a replay: 0.7 s to open a 3,000-frame TIFF at frame 2,990, 0.2 s
to replay and chunk 500 pages of 2.7 KB."""


class TurnOver(Exception):
    """The file read its turn while another waits: it goes to the back of the OCR lane."""


class ScanReading(Closing):
    """A file in the OCR lane as a LoadedDocument: its kept pages, then the ones OCR reads;
    raises TurnOver after the last page of a turn cut short."""

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
    """Open ``path`` in the OCR lane's worker from its first page not kept; while
    ``others_waiting`` is set, it reads no more than its turn."""
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
