"""Document registry (``docent.db``): one row per file, and one per content in the indexes.

``documents`` says what Docent knows about each file (status, the reason it failed, and
which content answers for it); ``contents`` lists every content key that has chunks in
the indexes, ``writing`` while they are being written and ``ready`` once every index holds
all of them. A row points at a ready content only. Other owners may keep their own tables
in the same file (``ingest.index.database``); the tables' schema and row mapping are in
``ingest.index.registry_rows``.
"""

from __future__ import annotations

import builtins
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ingest.document_parts import DocStatus, DocumentRecord, PlacedLine
from ingest.index.database import apply_migrations, connect
from ingest.index.registry_rows import (
    COLUMNS,
    CONTENT_COLUMNS,
    DOCUMENTS_SCHEMA,
    FIELDS,
    document_record,
    lines_json,
    now,
)
from ingest.keys import doc_id_for

__all__ = ["ContentRecord", "Registry", "doc_id_for"]

_UNSET: Any = object()
WRITING, READY = "writing", "ready"


@dataclass(frozen=True)
class ContentRecord:
    """One content key in the indexes: ``writing`` until every index has all its chunks."""

    key: str
    sha256: str
    state: str
    pages: int | None
    chunks: int
    note: str | None = None


class Registry:
    """The ``documents`` and ``contents`` tables; safe to call from any thread."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn = connect(db_path)
        self._lock = threading.RLock()
        self.closed = False
        """True once ``close`` ran: work deferred to later (a timer) checks it first."""
        with self._lock:
            apply_migrations(self._conn, "documents", DOCUMENTS_SCHEMA)

    # -- documents -----------------------------------------------------------------

    def upsert(
        self,
        rel_path: str,
        *,
        status: DocStatus,
        sha256: str | None = _UNSET,
        pages: int | None = _UNSET,
        chunks: int = _UNSET,
        error: str | None = _UNSET,
        content_key: str | None = _UNSET,
        size: int | None = _UNSET,
        mtime_ns: int | None = _UNSET,
        retry: bool = _UNSET,
        note: str | None = _UNSET,
    ) -> DocumentRecord:
        """Create or update the row for ``rel_path``, writing only the fields passed.

        A field left out keeps its stored value; passing None writes NULL (a text file
        has no page count). ``error`` is cleared whenever ``status`` is not ERROR, and
        ``note`` whenever it is not READY.
        """
        with self._lock, self._conn:
            return self._upsert(
                rel_path,
                DocStatus(status),
                sha256=sha256,
                pages=pages,
                chunks=chunks,
                error=error,
                content_key=content_key,
                size=size,
                mtime_ns=mtime_ns,
                retry=retry,
                note=note,
            )

    def _upsert(self, rel_path: str, status: DocStatus, **given: Any) -> DocumentRecord:
        doc_id = doc_id_for(rel_path)
        found = self._fetch("WHERE id = ?", (doc_id,))
        old = (
            found[0] if found else DocumentRecord(doc_id, rel_path, status, None, 0, None, "", None)
        )
        given = {name: given.get(name, _UNSET) for name in FIELDS}
        if status != DocStatus.ERROR:
            given["error"] = None
            given["retry"] = True
        if status != DocStatus.READY:
            given["note"] = None
        values = {
            name: getattr(old, name) if value is _UNSET else value for name, value in given.items()
        }
        record = DocumentRecord(id=doc_id, path=rel_path, status=status, updated_at=now(), **values)
        self._conn.execute(
            f"INSERT INTO documents ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET status = excluded.status,"
            " pages = excluded.pages, chunks = excluded.chunks, error = excluded.error,"
            " updated_at = excluded.updated_at, sha256 = excluded.sha256,"
            " content_key = excluded.content_key, size = excluded.size,"
            " mtime_ns = excluded.mtime_ns, retry = excluded.retry, note = excluded.note",
            (
                record.id,
                record.path,
                record.status.value,
                record.pages,
                record.chunks,
                record.error,
                record.updated_at,
                record.sha256,
                record.content_key,
                record.size,
                record.mtime_ns,
                int(record.retry),
                record.note,
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
        """Delete the row; True if there was one. Its content stays until collected."""
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
            self.closed = True
            self._conn.close()

    def list(self) -> builtins.list[DocumentRecord]:
        """Every document, sorted by path."""
        return self._fetch("ORDER BY path", ())

    def ready_paths(self) -> builtins.list[str]:
        """Paths of the documents that can be searched, sorted: what a turn asks for,
        read without building a record per row."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT path FROM documents WHERE status = ? ORDER BY path",
                (DocStatus.READY.value,),
            ).fetchall()
        return [path for (path,) in rows]

    def _fetch(self, clause: str, params: tuple[Any, ...]) -> builtins.list[DocumentRecord]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {COLUMNS} FROM documents {clause}", params
            ).fetchall()
        return [document_record(row) for row in rows]

    # -- the two lookups readers need ------------------------------------------------

    def paths_for_keys(self, keys: Iterable[str]) -> dict[str, builtins.list[str]]:
        """Content key → the current paths whose chunks it is (sorted); unknown keys absent.

        A key no row points at is garbage awaiting collection, or a new version not
        switched to yet: readers drop its chunks, so a search sees one version per file.
        """
        wanted = sorted(set(keys))
        found: dict[str, builtins.list[str]] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self._conn.execute(
                    f"SELECT content_key, path FROM documents WHERE content_key IN ({marks})"
                    " ORDER BY path",
                    part,
                ).fetchall()
                for key, path in rows:
                    found.setdefault(key, []).append(path)
        return found

    def keys_for_files(self, files: Iterable[str]) -> set[str]:
        """Content keys of the documents named by relative path or by file name (any case)."""
        names = {name.replace("\\", "/").strip("/").lower() for name in files}
        keys: set[str] = set()
        with self._lock:
            rows = self._conn.execute(
                "SELECT path, content_key FROM documents WHERE content_key IS NOT NULL"
            ).fetchall()
        for path, key in rows:
            if path.lower() in names or PurePosixPath(path).name.lower() in names:
                keys.add(key)
        return keys

    def chunk_total(self) -> int:
        """Chunks the rows point at, each content counted once however many paths share it."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COALESCE(SUM(chunks), 0) FROM contents WHERE key IN"
                " (SELECT content_key FROM documents WHERE content_key IS NOT NULL)"
            ).fetchone()
        return int(row[0])

    # -- contents --------------------------------------------------------------------

    def content(self, key: str) -> ContentRecord | None:
        """The content row for ``key``, if any."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {CONTENT_COLUMNS} FROM contents WHERE key = ?", (key,)
            ).fetchone()
        return ContentRecord(*row) if row else None

    def contents(self) -> builtins.list[ContentRecord]:
        """Every content row."""
        with self._lock:
            rows = self._conn.execute(f"SELECT {CONTENT_COLUMNS} FROM contents").fetchall()
        return [ContentRecord(*row) for row in rows]

    def begin_content(self, key: str, sha256: str) -> None:
        """Note that ``key``'s chunks are about to be written (before the first write)."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO contents (key, sha256, state, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(key) DO NOTHING",
                (key, sha256, WRITING, now()),
            )

    def finish_content(
        self,
        rel_path: str,
        key: str,
        *,
        pages: int | None,
        chunks: int,
        note: str | None = None,
        placed: Mapping[int, Sequence[PlacedLine]] | None = None,
        **fields: Any,
    ) -> DocumentRecord:
        """In one transaction: ``key`` is ready in every index and ``rel_path`` points at it
        (``note``: what a person should know about it, shown with its status; ``placed``:
        the lines OCR read on each page it read, and where they sit, when it was read)."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE contents SET state = ?, pages = ?, chunks = ?, note = ?, updated_at = ?"
                " WHERE key = ?",
                (READY, pages, chunks, note, now(), key),
            )
            if placed is not None:  # (None: the content was read before; keep its lines)
                self._conn.execute("DELETE FROM ocr_lines WHERE key = ?", (key,))
                self._conn.executemany(
                    "INSERT INTO ocr_lines (key, page, lines) VALUES (?, ?, ?)",
                    [(key, page, lines_json(lines)) for page, lines in placed.items()],
                )
            return self._upsert(
                rel_path,
                DocStatus.READY,
                content_key=key,
                pages=pages,
                chunks=chunks,
                error=None,
                note=note,
                **fields,
            )

    def retry_errors(self, reasons: Iterable[str]) -> int:
        """Let files that failed for one of ``reasons`` be tried again (by the next scan),
        though their bytes did not change; returns how many."""
        reasons = list(reasons)
        marks = ",".join("?" * len(reasons))
        with self._lock, self._conn:
            cursor = self._conn.execute(
                f"UPDATE documents SET retry = 1 WHERE status = ? AND error IN ({marks})",
                (DocStatus.ERROR.value, *reasons),
            )
            return cursor.rowcount

    def reopen_content(self, key: str) -> None:
        """Mark a ready content as being written again (an index lost some of its chunks)."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE contents SET state = ?, updated_at = ? WHERE key = ?",
                (WRITING, now(), key),
            )

    def state(self, name: str) -> str | None:
        """A value the indexes keep about themselves (e.g. the active embedding model)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM index_state WHERE name = ?", (name,)
            ).fetchone()
        return row[0] if row else None

    def set_state(self, name: str, value: str) -> None:
        """Remember ``value`` under ``name``."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO index_state (name, value) VALUES (?, ?)"
                " ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    def drop_contents(self, keys: Iterable[str]) -> None:
        """Forget content rows (after their chunks left every index)."""
        rows = [(k,) for k in keys]
        with self._lock, self._conn:
            self._conn.executemany("DELETE FROM contents WHERE key = ?", rows)
            self._conn.executemany("DELETE FROM ocr_lines WHERE key = ?", rows)

    def placed_lines(self, key: str, page: int) -> builtins.list[PlacedLine]:
        """The lines OCR read on ``page`` of ``key``, where they sit ([] for a page that
        was not read by OCR)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT lines FROM ocr_lines WHERE key = ? AND page = ?", (key, page)
            ).fetchone()
        if row is None:
            return []
        return [
            PlacedLine(text, tuple((x, y) for x, y in corners))
            for text, corners in json.loads(row[0])
        ]
