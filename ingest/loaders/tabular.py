"""CSV as one line of text per row, each value labelled with its column's header.

"City: Oslo; Population: 709000" finds and answers questions far better than
"Oslo,709000" cut away from its header. The standard library's csv module reads rows
from a stream, and its Sniffer guesses the delimiter and whether a header row exists.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

from ingest.loaders.base import BLOCK_CHARS, Document
from ingest.loaders.encoding import HEAD_BYTES, decode_stream, detect, samples
from ingest.loaders.errors import EMPTY_FILE, UnreadableFile
from ingest.types import Page

_DELIMITERS = ",;\t|"
_FIELD_LIMIT = 1 << 20


class CsvDocument(Document):
    """A CSV file; pages are runs of rendered rows, about a block long."""

    def __init__(self, path: Path, block_chars: int = BLOCK_CHARS) -> None:
        super().__init__(path)
        self.block_chars = block_chars
        size = path.stat().st_size
        with path.open("rb") as fh:
            windows = samples(fh, size)
        self.encoding = detect(windows)
        head = windows[0].decode(self.encoding, "replace").lstrip("\ufeff")
        if size <= HEAD_BYTES and not head.strip():
            raise UnreadableFile(EMPTY_FILE)
        sample = head[: head.rfind("\n") + 1] or head  # whole lines only
        try:
            self.dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, _DELIMITERS)
        except csv.Error:  # one column, or too irregular to tell: plain commas
            self.dialect = csv.excel

    def pages(self) -> Iterator[Page]:
        csv.field_size_limit(max(csv.field_size_limit(), _FIELD_LIMIT))
        offset = 0
        lines: list[str] = []
        size = 0
        with self.path.open("rb") as fh:
            rows: Iterator[list[str]] = csv.reader(
                _lines(decode_stream(fh, self.encoding)), self.dialect
            )
            try:
                header = next(rows, None)
                if header is None:
                    raise UnreadableFile(EMPTY_FILE)
                if not _is_header(header):
                    rows, header = chain([header], rows), []
                for row in rows:
                    line = _render(header, row)
                    if not line:
                        continue
                    lines.append(line)
                    size += len(line) + 1
                    if size >= self.block_chars:
                        page = "\n".join(lines) + "\n"
                        yield Page(number=None, text=page, offset=offset)
                        offset += len(page)
                        lines, size = [], 0
            except csv.Error as exc:
                raise UnreadableFile(
                    f"damaged CSV file ({exc}): check it in a spreadsheet"
                ) from exc
        if lines:
            yield Page(number=None, text="\n".join(lines) + "\n", offset=offset)
        elif not offset:
            raise UnreadableFile(EMPTY_FILE)


def _is_header(row: list[str]) -> bool:
    """Most CSV files start with a header row; one holding a bare number is data.

    (The Sniffer's own header test guesses wrong on small files.)
    """
    return not any(_is_number(cell) for cell in row)


def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return False
    return True


def _render(header: list[str], row: list[str]) -> str:
    """One row as "Header: value; …", skipping empty cells."""
    cells: list[str] = []
    for index, value in enumerate(row):
        value = " ".join(value.split())
        if not value:
            continue
        label = " ".join(header[index].split()) if index < len(header) else ""
        cells.append(f"{label}: {value}" if label else value)
    return "; ".join(cells)


def _lines(pieces: Iterator[str]) -> Iterator[str]:
    """Split decoded pieces at newlines, kept (csv.reader joins quoted multi-line values)."""
    rest = ""
    for piece in pieces:
        *lines, rest = (rest + piece).split("\n")
        for line in lines:
            yield line + "\n"
    if rest:
        yield rest
