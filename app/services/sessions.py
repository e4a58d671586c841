"""Session titles and times; the conversation itself lives in the checkpointer."""

from __future__ import annotations

import builtins
import re
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from graph.records import SessionPublic

TITLE_CHARS = 60
MAX_TITLE_CHARS = 200
"""Longest title a rename accepts; longer ones are refused, not cut."""
MAX_SEARCH_CHARS = 500
"""Longest text a session search takes: a few sentences to look for. SQLite refuses a LIKE
pattern past 50,000 bytes, and every word is a term of the FTS5 query."""


class SearchTooLong(ValueError):
    """A session search over ``MAX_SEARCH_CHARS``; the message says what to do."""


def _now() -> str:
    # Microseconds, so that two turns within one second still list in order.
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _short_title(text: str) -> str:
    title = " ".join(text.split())
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1].rstrip() + "…"
    return title or "New chat"


def fts_query(text: str) -> str:
    """``text`` as an FTS5 query: every word must occur, each as a prefix, quoted so that
    FTS5's own syntax (AND, NEAR, a stray quote) is only ever read as words."""
    words = re.findall(r"\w+", text)
    return " ".join('"' + w + '"*' for w in words)


class SessionIndex:
    """A small table in ``docent.db`` so the window and the API can list earlier sessions."""

    def __init__(self, db_path: Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(db_path, check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS sessions ("
                " id TEXT PRIMARY KEY, title TEXT NOT NULL,"
                " created_at TEXT NOT NULL, updated_at TEXT NOT NULL)"
            )
            # The words of every question and answer, so a search finds a chat by what
            # was said in it; the conversation itself stays in the checkpointer.
            self._db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS session_text USING fts5("
                " session_id UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 2')"
            )

    def touch(self, session_id: str, first_message: str) -> None:
        """Record activity; a new session takes its title from its first message."""
        now = _now()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at",
                (session_id, _short_title(first_message), now, now),
            )

    def list(self) -> list[SessionPublic]:
        """Most recently used first."""
        return self._select("", ())

    def create(self, session_id: str, title: str) -> None:
        """A new session with ``title`` (a branch of another chat takes its title)."""
        now = _now()
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO sessions (id, title, created_at, updated_at)"
                " VALUES (?, ?, ?, ?)",
                (session_id, _short_title(title), now, now),
            )

    def add_text(self, session_id: str, *texts: str) -> None:
        """Make ``texts`` findable by ``search``, in one row so a search's words may come from
        the question or its answer."""
        body = "\n\n".join(t for t in texts if t.strip())
        if not body:
            return
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO session_text (session_id, body) VALUES (?, ?)", (session_id, body)
            )

    def search(self, text: str) -> builtins.list[SessionPublic]:
        """Sessions whose title contains ``text`` (any case) or whose messages hold its
        words (each word as a prefix, through FTS5), most recently used first."""
        if len(text) > MAX_SEARCH_CHARS:
            raise SearchTooLong(
                f"The search is {len(text):,} characters; the limit is {MAX_SEARCH_CHARS:,}. "
                "Search for a few words of the chat."
            )
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        words = fts_query(text)
        if not words:
            return self._select("WHERE title LIKE ? ESCAPE '\\'", (pattern,))
        return self._select(
            "WHERE title LIKE ? ESCAPE '\\' OR id IN"
            " (SELECT session_id FROM session_text WHERE session_text MATCH ?)",
            (pattern, words),
        )

    def get(self, session_id: str) -> SessionPublic | None:
        found = self._select("WHERE id = ?", (session_id,))
        return found[0] if found else None

    def rename(self, session_id: str, title: str) -> SessionPublic | None:
        """Give the session a title of the user's choosing; None if there is no such session."""
        clean = " ".join(title.split())
        if not clean:
            raise ValueError("The title is empty.")
        if len(clean) > MAX_TITLE_CHARS:
            raise ValueError(
                f"The title is {len(clean)} characters long; the limit is {MAX_TITLE_CHARS}."
            )
        with self._lock, self._db:
            self._db.execute("UPDATE sessions SET title = ? WHERE id = ?", (clean, session_id))
        return self.get(session_id)

    def delete(self, session_id: str) -> bool:
        """Forget the session's row; True if there was one."""
        with self._lock, self._db:
            cursor = self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            self._db.execute("DELETE FROM session_text WHERE session_id = ?", (session_id,))
        return cursor.rowcount > 0

    def _select(self, where: str, args: tuple[str, ...]) -> builtins.list[SessionPublic]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, title, created_at, updated_at FROM sessions {where}"
                " ORDER BY updated_at DESC, created_at DESC",
                args,
            ).fetchall()
        return [SessionPublic(*row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
