"""Document registry (``docent.db``): one row per file, and one per content in the indexes.

A content is ``writing`` until every index holds all its chunks, then ``ready``; a file's
row points at a ready content only. Schema and row mapping: ``ingest.index.registry_rows``.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ingest.document_parts import DocStatus, DocumentRecord, PlacedLine
from ingest.index.database import apply_migrations, connect
from ingest.index.registry_rows import (
    COLUMNS,
    CONTENT_COLUMNS,
    DOCUMENTS_SCHEMA,
    FIELDS,
    UPSERT,
    ContentRecord,
    document_record,
    document_row,
    lines_json,
    now,
    placed_lines,
)
from ingest.keys import doc_id_for

__all__ = ["Registry", "doc_id_for"]

_UNSET: Any = object()
WRITING, READY = "writing", "ready"


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
        """Create or update the row for ``rel_path``, writing only the fields passed (None
        writes NULL); ``error`` is cleared unless ERROR, ``note`` unless READY."""
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
        old = self.get(doc_id) or DocumentRecord(doc_id, rel_path, status, None, 0, None, "", None)
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
        self._conn.execute(UPSERT, document_row(record))
        return record

    def get(self, doc_id: str) -> DocumentRecord | None:
        """The row with this id, if any."""
        return next(iter(self._fetch("WHERE id = ?", (doc_id,))), None)

    def get_by_path(self, rel_path: str) -> DocumentRecord | None:
        """The row for this relative path, if any."""
        return next(iter(self._fetch("WHERE path = ?", (rel_path,))), None)

    def remove(self, doc_id: str) -> bool:
        """Delete the row; True if there was one. Its content stays until collected."""
        return self._change("DELETE FROM documents WHERE id = ?", (doc_id,)) > 0

    def counts(self) -> dict[DocStatus, int]:
        """How many documents are in each status (every status present, maybe 0)."""
        rows = self._rows("SELECT status, COUNT(*) FROM documents GROUP BY status")
        return dict.fromkeys(DocStatus, 0) | {DocStatus(status): count for status, count in rows}

    def close(self) -> None:
        """Close the connection; the registry is unusable afterwards."""
        with self._lock:
            self.closed = True
            self._conn.close()

    def list(self) -> builtins.list[DocumentRecord]:
        """Every document, sorted by path."""
        return self._fetch("ORDER BY path", ())

    def ready_paths(self) -> builtins.list[str]:
        """Paths of the searchable documents, sorted, read without building records."""
        rows = self._rows(
            "SELECT path FROM documents WHERE status = ? ORDER BY path", (DocStatus.READY.value,)
        )
        return [path for (path,) in rows]

    def _fetch(self, clause: str, params: tuple[Any, ...]) -> builtins.list[DocumentRecord]:
        rows = self._rows(f"SELECT {COLUMNS} FROM documents {clause}", params)
        return [document_record(row) for row in rows]

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _one(self, sql: str, params: Sequence[Any]) -> Any:
        with self._lock:
            return self._conn.execute(sql, params).fetchone()

    def _change(self, sql: str, params: Sequence[Any]) -> int:
        """Run one write in its own transaction; how many rows it changed."""
        with self._lock, self._conn:
            return self._conn.execute(sql, params).rowcount

    def paths_for_keys(self, keys: Iterable[str]) -> dict[str, builtins.list[str]]:
        """Content key → the current paths whose chunks it is (sorted); keys no row points at
        are absent, and readers drop their chunks, so a search sees one version per file."""
        wanted = sorted(set(keys))
        found: dict[str, builtins.list[str]] = {}
        with self._lock:  # (one snapshot across the parts)
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self._rows(
                    f"SELECT content_key, path FROM documents WHERE content_key IN ({marks})"
                    " ORDER BY path",
                    part,
                )
                for key, path in rows:
                    found.setdefault(key, []).append(path)
        return found

    def keys_for_files(self, files: Iterable[str]) -> set[str]:
        """Content keys of the documents named by relative path or by file name (any case)."""
        names = {name.replace("\\", "/").strip("/").lower() for name in files}
        rows = self._rows("SELECT path, content_key FROM documents WHERE content_key IS NOT NULL")
        return {
            key
            for path, key in rows
            if path.lower() in names or PurePosixPath(path).name.lower() in names
        }

    def chunk_total(self) -> int:
        """Chunks the rows point at, each content counted once however many paths share it."""
        row = self._one(
            "SELECT COALESCE(SUM(chunks), 0) FROM contents WHERE key IN"
            " (SELECT content_key FROM documents WHERE content_key IS NOT NULL)",
            (),
        )
        return int(row[0])

    def content(self, key: str) -> ContentRecord | None:
        """The content row for ``key``, if any."""
        row = self._one(f"SELECT {CONTENT_COLUMNS} FROM contents WHERE key = ?", (key,))
        return ContentRecord(*row) if row else None

    def contents(self) -> builtins.list[ContentRecord]:
        """Every content row."""
        return [
            ContentRecord(*row) for row in self._rows(f"SELECT {CONTENT_COLUMNS} FROM contents")
        ]

    def begin_content(self, key: str, sha256: str) -> None:
        """Note that ``key``'s chunks are about to be written (before the first write)."""
        self._change(
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
        (``placed``: the lines OCR read per page, None when the content was read before)."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE contents SET state = ?, pages = ?, chunks = ?, note = ?, updated_at = ?"
                " WHERE key = ?",
                (READY, pages, chunks, note, now(), key),
            )
            if placed is not None:
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
        """Let the next scan retry files that failed for one of ``reasons``; how many."""
        reasons = list(reasons)
        marks = ",".join("?" * len(reasons))
        return self._change(
            f"UPDATE documents SET retry = 1 WHERE status = ? AND error IN ({marks})",
            (DocStatus.ERROR.value, *reasons),
        )

    def reopen_content(self, key: str) -> None:
        """Mark a ready content as being written again (an index lost some of its chunks)."""
        self._change(
            "UPDATE contents SET state = ?, updated_at = ? WHERE key = ?", (WRITING, now(), key)
        )

    def state(self, name: str) -> str | None:
        """A value the indexes keep about themselves (e.g. the active embedding model)."""
        row = self._one("SELECT value FROM index_state WHERE name = ?", (name,))
        return row[0] if row else None

    def set_state(self, name: str, value: str) -> None:
        """Remember ``value`` under ``name``."""
        self._change(
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
        """The lines OCR read on ``page`` of ``key``, where they sit ([] if not OCR'd)."""
        row = self._one("SELECT lines FROM ocr_lines WHERE key = ? AND page = ?", (key, page))
        return placed_lines(row[0]) if row else []
