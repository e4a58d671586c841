"""CSV as one line of text per row, each value labelled with its column's header.

"City: Oslo; Population: 709000" answers far better than "Oslo,709000" cut away from its
header. A row is capped (``ROW_CHARS``, then ``ROW_FIELDS``) before csv.reader builds it:
a 99 MB line of commas would otherwise be 33 million fields.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

from ingest.document_parts import Page
from ingest.loaders.base import BLOCK_CHARS, Document
from ingest.loaders.encoding import HEAD_BYTES, decode_stream, detect, samples
from ingest.loaders.errors import EMPTY_FILE, UnreadableFile

_DELIMITERS = ",;\t|"
_FIELD_LIMIT = 1 << 20
ROW_CHARS = 4 << 20
"""Longest row read (in characters): room for a few values at csv's own field limit."""
ROW_FIELDS = 100_000
"""Most fields in a row: spreadsheets stop at 16,384 columns."""
_WIDE_ROW = (
    "a row of this CSV file {what}, more than a table holds: check it in a spreadsheet"
    " (it may be a file made to exhaust memory)"
)
_TOO_LONG = _WIDE_ROW.format(what=f"is longer than {ROW_CHARS:,} characters")


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
            source = _Lines(decode_stream(fh, self.encoding))
            rows: Iterator[list[str]] = _checked(csv.reader(source, self.dialect), source)
            try:
                header = next(rows, None)
                if header is None:
                    raise UnreadableFile(EMPTY_FILE)
                if not is_header(header):
                    rows, header = chain([header], rows), []
                for row in rows:
                    line = render_row(header, row)
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


def is_header(row: list[str]) -> bool:
    """Most tables start with a header row; one holding a bare number is data (the
    Sniffer's own header test guesses wrong on small files)."""
    return not any(_is_number(cell) for cell in row)


def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return False
    return True


def render_row(header: list[str], row: list[str]) -> str:
    """One row as "Header: value; …", skipping empty cells."""
    cells: list[str] = []
    for index, value in enumerate(row):
        value = " ".join(value.split())
        if not value:
            continue
        label = " ".join(header[index].split()) if index < len(header) else ""
        cells.append(f"{label}: {value}" if label else value)
    return "; ".join(cells)


class _Lines:
    """Decoded pieces split at newlines, kept, refusing a row longer than ``ROW_CHARS``;
    the reader of rows sets ``row_chars`` back to 0 after each one."""

    def __init__(self, pieces: Iterator[str]) -> None:
        self._pieces = pieces
        self.row_chars = 0

    def __iter__(self) -> Iterator[str]:
        rest: list[str] = []  # pieces of a line not ended yet; joined once, not per piece
        waiting = 0
        for piece in self._pieces:
            *lines, tail = piece.split("\n")
            if lines:
                lines[0] = "".join(rest) + lines[0]
                rest, waiting = [], 0
                for line in lines:
                    self.row_chars += len(line) + 1
                    if self.row_chars > ROW_CHARS:
                        raise UnreadableFile(_TOO_LONG)
                    yield line + "\n"
            if tail:
                rest.append(tail)
                waiting += len(tail)
                if self.row_chars + waiting > ROW_CHARS:
                    raise UnreadableFile(_TOO_LONG)
        if rest:
            yield "".join(rest)


def _checked(rows: Iterator[list[str]], source: _Lines) -> Iterator[list[str]]:
    """The rows of ``rows``, refusing one with more than ``ROW_FIELDS`` fields."""
    for row in rows:
        if len(row) > ROW_FIELDS:
            raise UnreadableFile(_WIDE_ROW.format(what=f"has more than {ROW_FIELDS:,} fields"))
        source.row_chars = 0
        yield row
