"""Session titles and times; the conversation itself lives in the checkpointer."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

TITLE_CHARS = 60


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    created_at: str
    updated_at: str


class SessionIndex:
    """A small table in ``docent.db`` so the window can list earlier sessions."""

    def __init__(self, db_path: Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(db_path, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS sessions ("
                " id TEXT PRIMARY KEY, title TEXT NOT NULL,"
                " created_at TEXT NOT NULL, updated_at TEXT NOT NULL)"
            )

    def touch(self, session_id: str, first_message: str) -> None:
        """Record activity; a new session takes its title from its first message."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        title = " ".join(first_message.split())
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1].rstrip() + "…"
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at",
                (session_id, title or "New chat", now, now),
            )

    def list(self) -> list[SessionInfo]:
        """Most recently used first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, title, created_at, updated_at FROM sessions"
                " ORDER BY updated_at DESC, created_at DESC"
            ).fetchall()
        return [SessionInfo(*row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
