"""The registry's tables: their schema steps, and a ``documents`` row as a DocumentRecord."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from ingest.document_parts import DocStatus, DocumentRecord, PlacedLine

DOCUMENTS_SCHEMA: tuple[str, ...] = (
    # v1
    """
    CREATE TABLE documents (
        id         TEXT PRIMARY KEY,
        path       TEXT NOT NULL UNIQUE,
        status     TEXT NOT NULL,
        pages      INTEGER,
        chunks     INTEGER NOT NULL DEFAULT 0,
        error      TEXT,
        updated_at TEXT NOT NULL,
        sha256     TEXT
    )
    """,
    # v2-v7: chunks keyed by content
    "ALTER TABLE documents ADD COLUMN content_key TEXT",
    "ALTER TABLE documents ADD COLUMN size INTEGER",
    "ALTER TABLE documents ADD COLUMN mtime_ns INTEGER",
    "ALTER TABLE documents ADD COLUMN retry INTEGER NOT NULL DEFAULT 1",
    "CREATE INDEX documents_content_key ON documents (content_key)",
    """
    CREATE TABLE contents (
        key        TEXT PRIMARY KEY,
        sha256     TEXT NOT NULL,
        state      TEXT NOT NULL,
        pages      INTEGER,
        chunks     INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    )
    """,
    # v8: which embedding model the index answers with
    "CREATE TABLE index_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # v9-v10: what a person should know about a ready document ("4 pages read with low
    # confidence"), kept with the content it describes
    "ALTER TABLE documents ADD COLUMN note TEXT",
    "ALTER TABLE contents ADD COLUMN note TEXT",
    # v11: where the lines OCR read sit on their pages, for the viewer's highlight
    """
    CREATE TABLE ocr_lines (
        key   TEXT NOT NULL,
        page  INTEGER NOT NULL,
        lines TEXT NOT NULL,
        PRIMARY KEY (key, page)
    )
    """,
)

NAMES = tuple(field.name for field in fields(DocumentRecord))
"""The ``documents`` columns: a DocumentRecord's fields, in its order."""
COLUMNS = ", ".join(NAMES)
FIELDS = tuple(name for name in NAMES if name not in ("id", "path", "status", "updated_at"))
"""The columns ``Registry.upsert`` takes as they are given."""
UPSERT = (
    f"INSERT INTO documents ({COLUMNS}) VALUES ({', '.join('?' * len(NAMES))})"
    " ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in NAMES if name not in ("id", "path"))
)
CONTENT_COLUMNS = "key, sha256, state, pages, chunks, note"


@dataclass(frozen=True)
class ContentRecord:
    """One content key in the indexes: ``writing`` until every index has all its chunks."""

    key: str
    sha256: str
    state: str
    pages: int | None
    chunks: int
    note: str | None = None


def lines_json(lines: Sequence[PlacedLine]) -> str:
    """Where OCR's lines sit on a page, as stored in ``ocr_lines``."""
    return json.dumps([[p.text, p.corners] for p in lines])


def placed_lines(stored: str) -> list[PlacedLine]:
    """OCR's lines on a page as ``lines_json`` stored them."""
    return [
        PlacedLine(text, tuple((x, y) for x, y in corners)) for text, corners in json.loads(stored)
    ]


def now() -> str:
    """The time a row is written, as stored (UTC, ISO 8601, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def document_record(row: tuple[Any, ...]) -> DocumentRecord:
    """A ``documents`` row, selected as ``COLUMNS``, as a DocumentRecord."""
    values = dict(zip(NAMES, row, strict=True))
    values.update(status=DocStatus(values["status"]), retry=bool(values["retry"]))
    return DocumentRecord(**values)


def document_row(record: DocumentRecord) -> tuple[Any, ...]:
    """A DocumentRecord as ``UPSERT``'s parameters."""
    return tuple(getattr(record, name) for name in NAMES)
