"""Docent's SQLite file (``docent.db``), shared between threads and between owners.

Several owners keep tables in the same file (the registry's ``documents``, the OCR
lane's kept pages, ...): ``apply_migrations`` versions each owner's schema separately.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path


def connect(db_path: Path) -> sqlite3.Connection:
    """Open ``db_path`` the way Docent shares it between threads: WAL, busy timeout."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db_path, check_same_thread=False, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def apply_migrations(conn: sqlite3.Connection, owner: str, steps: Sequence[str]) -> None:
    """Run the steps of ``owner``'s schema (versioned per owner) this database has not seen.
    Append steps; never edit one that has shipped."""
    with conn:
        # The write lock before reading the version: two connections opening a new file at
        # once (the OCR lane and a poll of its pages) both read version 0 and both created
        # the table; the second now waits, then reads the first one's version.
        conn.execute("BEGIN IMMEDIATE")
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
