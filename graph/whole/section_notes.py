"""The section-note cache in SQLite, keyed by the section's text, model, prompt version and aspect:
a renamed file costs nothing, an edited one misses only its changed sections. The document key and
content hash are kept beside each note so a document's notes can be counted and forgotten."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS section_notes (
    section TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt TEXT NOT NULL,
    aspect TEXT NOT NULL,
    doc_key TEXT NOT NULL,
    note TEXT NOT NULL,
    PRIMARY KEY (section, model, prompt, aspect)
);
CREATE INDEX IF NOT EXISTS section_notes_doc ON section_notes (doc_key);
"""


class SectionNotes:
    """Notes by section; ``path`` None keeps them in memory (tests, one-off runs)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            str(path) if path is not None else ":memory:", check_same_thread=False, timeout=10
        )
        self._lock = threading.Lock()
        with self._lock, self._conn:
            self._conn.executescript(SCHEMA)

    def get(self, section: str, model: str, prompt: str, aspect: str) -> str | None:
        """The note for this section, model, prompt version and aspect, if one was written."""
        with self._lock:
            row = self._conn.execute(
                "SELECT note FROM section_notes WHERE section=? AND model=? AND prompt=? "
                "AND aspect=?",
                (section, model, prompt, aspect),
            ).fetchone()
        return str(row[0]) if row else None

    def put(
        self, section: str, model: str, prompt: str, aspect: str, doc_key: str, note: str
    ) -> None:
        """Keep a note; written at once, so a Stop keeps the sections already read."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO section_notes VALUES (?, ?, ?, ?, ?, ?)",
                (section, model, prompt, aspect, doc_key, note),
            )

    def count(self, doc_key: str | None = None) -> int:
        """Notes kept (for one document key, or all)."""
        query = "SELECT COUNT(*) FROM section_notes"
        with self._lock:
            if doc_key is None:
                return int(self._conn.execute(query).fetchone()[0])
            where = query + " WHERE doc_key=?"
            return int(self._conn.execute(where, (doc_key,)).fetchone()[0])

    def forget(self, doc_keys: Iterable[str]) -> None:
        """Drop the notes of documents whose content is gone from the library."""
        with self._lock, self._conn:
            self._conn.executemany(
                "DELETE FROM section_notes WHERE doc_key=?", [(key,) for key in doc_keys]
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()
