"""Spreadsheets (xlsx, xls, ods) through python-calamine: each sheet a page named after it.

calamine reads all three formats in Rust, without pandas. Rows are rendered as CSV's are
(each value labelled with its header); a big sheet comes in blocks inside its page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from python_calamine import CalamineError, CalamineWorkbook, PasswordError, SheetTypeEnum

from ingest.document_parts import Page, Section
from ingest.loaders.base import BLOCK_CHARS, Document
from ingest.loaders.errors import (
    DAMAGED_OFFICE,
    LOCKED_OFFICE,
    NO_TEXT,
    UnreadableFile,
    detail,
)
from ingest.loaders.tabular import is_header, render_row

SHEET_SUFFIXES = frozenset({".xlsx", ".xls", ".ods"})
"""Spreadsheet files Docent reads."""
_KIND = "spreadsheet"


class SheetDocument(Document):
    """A workbook; each worksheet is a page (in blocks when it is big)."""

    def __init__(self, path: Path, block_chars: int = BLOCK_CHARS) -> None:
        super().__init__(path)
        self.block_chars = block_chars
        self._handle = path.open("rb")
        try:
            self._book = CalamineWorkbook.from_filelike(self._handle)
            self._sheets = [
                meta.name
                for meta in self._book.sheets_metadata
                if meta.typ == SheetTypeEnum.WorkSheet
            ]
        except PasswordError as exc:
            self.close()
            raise UnreadableFile(
                LOCKED_OFFICE.format(kind=_KIND, suffix=path.suffix.lower())
            ) from exc
        except (CalamineError, ValueError, OSError) as exc:
            self.close()
            raise UnreadableFile(DAMAGED_OFFICE.format(kind=_KIND, detail=detail(exc))) from exc
        self.page_count = len(self._sheets)

    def pages(self) -> Iterator[Page]:
        had_text = False
        try:
            for number, name in enumerate(self._sheets, start=1):
                for page in self._sheet(number, name):
                    had_text = True
                    yield page
        finally:
            self.close()
        if not had_text:
            raise UnreadableFile(NO_TEXT.format(kind=_KIND))

    def _sheet(self, number: int, name: str) -> Iterator[Page]:
        """The sheet's rows as text, in blocks of about ``block_chars``."""
        try:
            sheet = self._book.get_sheet_by_name(name)
            rows = sheet.iter_rows()
            lines: list[str] = []
            size = offset = 0
            header: list[str] | None = None
            for raw in rows:
                row = [_cell(value) for value in raw]
                if not any(row):
                    continue
                if header is None:
                    header = row if is_header(row) else []
                    if header:
                        continue
                line = render_row(header, row)
                lines.append(line)
                size += len(line) + 1
                if size >= self.block_chars:
                    yield self._page(number, name, offset, lines)
                    offset += size
                    lines, size = [], 0
            if lines:
                yield self._page(number, name, offset, lines)
            elif header and not offset:  # a header row only: still the sheet's words
                yield self._page(number, name, 0, [render_row([], header)])
        except CalamineError as exc:
            raise UnreadableFile(DAMAGED_OFFICE.format(kind=_KIND, detail=detail(exc))) from exc

    @staticmethod
    def _page(number: int, name: str, offset: int, lines: list[str]) -> Page:
        sections = (Section(start=0, path=(name,)),) if offset == 0 else ()
        return Page(number=number, text="\n".join(lines) + "\n", offset=offset, sections=sections)

    def close(self) -> None:
        self._handle.close()


def _cell(value: Any) -> str:
    """A cell as a person reads it: 709000 rather than 709000.0, dates in ISO form."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.time | dt.datetime):
        return value.isoformat()
    return " ".join(str(value).split())
