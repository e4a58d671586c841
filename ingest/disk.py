"""A full disk: recognised whichever layer hit it, and foreseen before the indexes hit it.

ENOSPC, EDQUOT, SQLITE_FULL and Chroma's own wording are one test, so the upload answers
507 and files wait instead of failing. The indexes must not learn it by failing (a failed
Chroma write can leave the store stuck: docs/disk-full.md), hence ``RESERVE`` and ``WRITE_FLOOR``.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import sqlite3
from pathlib import Path

_SQLITE_FULL = 13
_NO_SPACE_WORDS = ("no space left", "disk is full", "disk full", "quota exceeded")

RESERVE = 16 << 20
"""Free bytes below which the data dir's disk counts as full: files wait to be indexed
until this much is free again. Room for a few writes, with the journal each needs."""
WRITE_FLOOR = 4 << 20
"""Free bytes a write to the indexes must leave, or it is refused. Lower than
``RESERVE``: a file that started finishes its writes in between, and one that can't
waits for ``RESERVE`` again, instead of starting and stopping at the edge."""


class DiskFull(Exception):
    """A write failed, or would fail, because the disk holding ``path`` is full."""

    def __init__(self, path: Path, free: int | None = None) -> None:
        self.path = path
        self.free = free
        """Bytes free when Docent looked; None when a write failed for want of them."""
        kept = (
            f" (it has {_mb(free)} free, and Docent keeps {_mb(RESERVE)} free so that its"
            " index is never left half written)"
            if free is not None
            else ""
        )
        super().__init__(
            f"The disk holding {path} is full{kept}. Free some space on it; Docent carries"
            " on by itself once there is room."
        )


def free_bytes(folder: Path) -> int:
    """Bytes that can still be written on the disk holding ``folder``."""
    return shutil.disk_usage(folder).free


def short_of_room(folder: Path) -> DiskFull | None:
    """DiskFull when the disk holding ``folder`` has less than ``RESERVE`` free, else None."""
    free = free_bytes(folder)
    return DiskFull(folder, free) if free < RESERVE else None


def lacks_room(folder: Path, need: int = 0) -> DiskFull | None:
    """DiskFull when writing ``need`` bytes would leave less than ``WRITE_FLOOR``, else None."""
    free = free_bytes(folder)
    return DiskFull(folder, free) if free - need < WRITE_FLOOR else None


def ensure_room(folder: Path, need: int = 0) -> None:
    """Raise DiskFull unless writing ``need`` bytes in ``folder`` leaves ``WRITE_FLOOR``."""
    full = lacks_room(folder, need)
    if full is not None:
        raise full


def has_room(folder: Path) -> bool:
    """Whether files may start indexing again: ``RESERVE`` free, and a write succeeds
    (a quota can refuse what the file system says is free)."""
    return short_of_room(folder) is None and can_write(folder)


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


def _mb(size: int) -> str:
    mb = size / (1 << 20)
    if mb < 1:
        return f"{size >> 10} kB"
    return f"{mb:.0f} MB" if mb >= 10 else f"{mb:.1f} MB"
