"""KeptPages: the pages the OCR lane has read, kept per file (by sha256) until it is indexed,
so a scan read again after a crash or its turn picks up at its first page not kept.

A commit per page: in WAL mode with ``synchronous=NORMAL`` a committed page survives the
app being killed; a power cut may cost the last few, read again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.document_parts import Page, PageOcr, PlacedLine, Section
from ingest.index.database import apply_migrations, connect

_SCHEMA: tuple[str, ...] = (
    # v1
    """
    CREATE TABLE ocr_pages (
        sha256 TEXT NOT NULL,
        page   INTEGER NOT NULL,
        ocr    INTEGER NOT NULL,
        text   INTEGER NOT NULL,
        body   TEXT NOT NULL,
        PRIMARY KEY (sha256, page)
    )
    """,
)


@dataclass(frozen=True)
class Kept:
    """What is kept of a file: how far it was read, and what the pages held."""

    next_page: int
    """The first page not kept (1 when none is)."""
    ocr_read: int
    """Of the kept pages, how many OCR read (they count toward the file's limit)."""
    seen_text: bool
    """Whether any kept page holds text."""


class KeptPages:
    """The ``ocr_pages`` table; safe from any thread, connected on first use (again after
    ``close``)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def keep(self, sha256: str, page: Page) -> None:
        """Keep ``page`` of the file with these bytes (a page without a number is not)."""
        if page.number is None:
            return
        read = page.ocr is not None and not page.ocr.left_out
        self._change(
            "INSERT OR REPLACE INTO ocr_pages (sha256, page, ocr, text, body)"
            " VALUES (?, ?, ?, ?, ?)",
            (sha256, page.number, int(read), int(bool(page.text.strip())), _dump(page)),
        )

    def kept(self, sha256: str) -> Kept:
        """How far the file was read: its pages from 1 without a gap."""
        rows = self._rows(
            "SELECT page, ocr, text FROM ocr_pages WHERE sha256 = ? ORDER BY page", (sha256,)
        )
        next_page, ocr_read, seen_text = 1, 0, False
        for page, ocr, text in rows:
            if page != next_page:
                break  # a gap: the pages after it are read again
            next_page += 1
            ocr_read += ocr
            seen_text = seen_text or bool(text)
        return Kept(next_page, ocr_read, seen_text)

    def pages(self, sha256: str, before: int) -> Iterator[Page]:
        """The kept pages numbered below ``before``, in order, a few at a time."""
        after = 0
        while True:
            rows = self._rows(
                "SELECT page, body FROM ocr_pages WHERE sha256 = ? AND page > ?"
                " AND page < ? ORDER BY page LIMIT 64",
                (sha256, after, before),
            )
            if not rows:
                return
            for number, body in rows:
                yield _load(number, body)
            after = rows[-1][0]

    def forget(self, sha256: str) -> None:
        """Drop the pages of the file with these bytes (it is indexed, or gone)."""
        self._change("DELETE FROM ocr_pages WHERE sha256 = ?", (sha256,))

    def keep_only(self, sha256s: Iterable[str]) -> int:
        """Drop the pages of every file but these; returns how many files' pages went."""
        wanted = set(sha256s)
        with self._lock:
            conn = self._connection()
            held = {sha for (sha,) in conn.execute("SELECT DISTINCT sha256 FROM ocr_pages")}
            gone = held - wanted
            with conn:
                conn.executemany("DELETE FROM ocr_pages WHERE sha256 = ?", [(s,) for s in gone])
        return len(gone)

    def close(self) -> None:
        """Close the connection (the next call opens it again)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with self._lock:
            return self._connection().execute(sql, params).fetchall()

    def _change(self, sql: str, params: tuple[Any, ...]) -> None:
        """Run one write in its own transaction (a commit per page: see the module)."""
        with self._lock, self._connection() as conn:
            conn.execute(sql, params)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = connect(self.db_path)
            apply_migrations(conn, "ocr_pages", _SCHEMA)
            self._conn = conn
        return self._conn


def _dump(page: Page) -> str:
    body: dict[str, Any] = {"text": page.text, "offset": page.offset}
    if page.sections:
        body["sections"] = [[s.start, list(s.path)] for s in page.sections]
    if page.ocr is not None:
        ocr = page.ocr
        body["ocr"] = {
            "confidence": ocr.confidence,
            "unread": ocr.unread,
            "left_out": ocr.left_out,
            "lines": [[line.text, line.corners] for line in ocr.lines],
        }
    return json.dumps(body, ensure_ascii=False)


def _load(number: int, body: str) -> Page:
    data = json.loads(body)
    sections = tuple(Section(start, tuple(path)) for start, path in data.get("sections", ()))
    ocr: PageOcr | None = None
    if (read := data.get("ocr")) is not None:
        lines = tuple(
            PlacedLine(text, tuple((x, y) for x, y in corners)) for text, corners in read["lines"]
        )
        ocr = PageOcr(read["confidence"], read["unread"], lines, read["left_out"])
    return Page(number, data["text"], data["offset"], sections, ocr)
