"""A full disk, recognised whichever layer hit it: the OS, SQLite or Chroma.

Every store Docent writes reports "no space" its own way: an ``OSError`` with ENOSPC (or a
quota's EDQUOT), SQLite's SQLITE_FULL, and Chroma's Rust core an error whose text carries
the OS's words. One test for all of them lets the upload answer 507 and the indexer wait
for space instead of failing files for a reason that is not theirs.
"""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
from pathlib import Path

_SQLITE_FULL = 13
_NO_SPACE_WORDS = ("no space left", "disk is full", "disk full", "quota exceeded")


class DiskFull(Exception):
    """A write failed because the disk holding ``path`` is full."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"The disk holding {path} is full. Free some space on it; Docent carries on "
            "once writes succeed again."
        )


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) says the disk is full."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DiskFull):
            return True
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(current, sqlite3.Error) and (
            getattr(current, "sqlite_errorcode", None) == _SQLITE_FULL
            or "database or disk is full" in str(current)
        ):
            return True
        if any(words in str(current).lower() for words in _NO_SPACE_WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


def can_write(folder: Path, size: int = 1 << 20) -> bool:
    """Whether ``size`` bytes can be written to ``folder`` now (written, synced, removed)."""
    probe = folder / f".docent-space-{secrets.token_hex(4)}"
    try:
        with probe.open("xb") as handle:
            handle.write(b"\0" * size)
            handle.flush()
            os.fsync(handle.fileno())
        return True
    except OSError:
        return False
    finally:
        probe.unlink(missing_ok=True)
