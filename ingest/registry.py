"""Document registry: one SQLite row per file in the documents folder (``docent.db``).

The registry says what Docent knows about each file (status, pages, chunks, the reason
it failed); the Chroma store holds the chunks. Other owners may keep their own tables in
the same file: ``apply_migrations`` versions each owner's schema separately.
"""

from __future__ import annotations

import builtins
import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ingest.types import DocStatus, DocumentRecord

_DOCUMENTS_SCHEMA: tuple[str, ...] = (
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
)

_COLUMNS = "id, path, status, pages, chunks, error, updated_at, sha256"
_UNSET: Any = object()


def doc_id_for(rel_path: str) -> str:
    """Stable id of a document: the first 16 hex digits of sha1 of its relative path."""
    return hashlib.sha1(rel_path.encode("utf-8")).hexdigest()[:16]


def connect(db_path: Path) -> sqlite3.Connection:
    """Open ``db_path`` the way Docent shares it between threads: WAL, busy timeout."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db_path, check_same_thread=False, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def apply_migrations(conn: sqlite3.Connection, owner: str, steps: Sequence[str]) -> None:
    """Run the steps of ``owner``'s schema that this database has not seen yet.

    Each owner (``documents``, later ``sessions``...) keeps its own version number in
    ``schema_versions``, so modules sharing the file never trip over each other.
    Append steps; never edit one that has shipped.
    """
    with conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions"
            " (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        row = conn.execute("SELECT version FROM schema_versions WHERE owner = ?", (owner,))
        found = row.fetchone()
        version = found[0] if found else 0
        for step in steps[version:]:
            conn.execute(step)
        if len(steps) > version:
            conn.execute(
                "INSERT INTO schema_versions (owner, version) VALUES (?, ?)"
                " ON CONFLICT(owner) DO UPDATE SET version = excluded.version",
                (owner, len(steps)),
            )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _record(row: tuple[Any, ...]) -> DocumentRecord:
    doc_id, path, status, pages, chunks, error, updated_at, sha256 = row
    return DocumentRecord(
        id=doc_id,
        path=path,
        status=DocStatus(status),
        pages=pages,
        chunks=chunks,
        error=error,
        updated_at=updated_at,
        sha256=sha256,
    )


class Registry:
    """The ``documents`` table; safe to call from any thread."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn = connect(db_path)
        self._lock = threading.RLock()
        with self._lock:
            apply_migrations(self._conn, "documents", _DOCUMENTS_SCHEMA)

    def upsert(
        self,
        rel_path: str,
        *,
        status: DocStatus,
        sha256: str | None = _UNSET,
        pages: int | None = _UNSET,
        chunks: int = _UNSET,
        error: str | None = _UNSET,
    ) -> DocumentRecord:
        """Create or update the row for ``rel_path``, writing only the fields passed.

        A field left out keeps its stored value; passing None writes NULL (a text file
        has no page count). ``error`` is cleared whenever ``status`` is not ERROR.
        """
        doc_id = doc_id_for(rel_path)
        status = DocStatus(status)
        with self._lock, self._conn:
            found = self._fetch("WHERE id = ?", (doc_id,))
            old = found[0] if found else None

            def pick(given: Any, stored: Any) -> Any:
                return stored if given is _UNSET else given

            if status != DocStatus.ERROR:
                error = None
            record = DocumentRecord(
                id=doc_id,
                path=rel_path,
                status=status,
                pages=pick(pages, old.pages if old else None),
                chunks=pick(chunks, old.chunks if old else 0),
                error=pick(error, old.error if old else None),
                updated_at=_now(),
                sha256=pick(sha256, old.sha256 if old else None),
            )
            self._conn.execute(
                f"INSERT INTO documents ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET status = excluded.status,"
                " pages = excluded.pages, chunks = excluded.chunks, error = excluded.error,"
                " updated_at = excluded.updated_at, sha256 = excluded.sha256",
                (
                    record.id,
                    record.path,
                    record.status.value,
                    record.pages,
                    record.chunks,
                    record.error,
                    record.updated_at,
                    record.sha256,
                ),
            )
        return record

    def get(self, doc_id: str) -> DocumentRecord | None:
        """The row with this id, if any."""
        rows = self._fetch("WHERE id = ?", (doc_id,))
        return rows[0] if rows else None

    def get_by_path(self, rel_path: str) -> DocumentRecord | None:
        """The row for this relative path, if any."""
        rows = self._fetch("WHERE path = ?", (rel_path,))
        return rows[0] if rows else None

    def remove(self, doc_id: str) -> bool:
        """Delete the row; True if there was one."""
        with self._lock, self._conn:
            cursor = self._conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            return cursor.rowcount > 0

    def counts(self) -> dict[DocStatus, int]:
        """How many documents are in each status (every status present, maybe 0)."""
        counts = dict.fromkeys(DocStatus, 0)
        with self._lock:
            rows = self._conn.execute(
                "SELECT status, COUNT(*) FROM documents GROUP BY status"
            ).fetchall()
        for status, count in rows:
            counts[DocStatus(status)] = count
        return counts

    def close(self) -> None:
        """Close the connection; the registry is unusable afterwards."""
        with self._lock:
            self._conn.close()

    def list(self) -> builtins.list[DocumentRecord]:
        """Every document, sorted by path."""
        return self._fetch("ORDER BY path", ())

    def _fetch(self, clause: str, params: tuple[Any, ...]) -> builtins.list[DocumentRecord]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM documents {clause}", params
            ).fetchall()
        return [_record(row) for row in rows]
