"""One indexer per data dir: the process that indexes holds ``<data dir>/indexer.lock``.

Two processes writing one embedded store would corrupt it, and a second ``run.py
ingest`` next to a running app has nothing to add: the lock tells them apart. The
operating system drops the lock when the process dies, however it dies.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO


class AlreadyIndexing(Exception):
    """Another process indexes this data dir already; the message says which and what to do."""


class IndexLock:
    """An exclusive, non-blocking lock on a file; ``holder`` says who has it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def acquire(self) -> bool:
        """Take the lock if no other process holds it; True when this process has it."""
        if self._file is not None:
            return True
        try:
            import fcntl
        except ImportError:  # not on a POSIX system: no lock, as before
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")  # noqa: SIM115 - held open for the process's life
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle
        return True

    def holder(self) -> str | None:
        """The process id written by the holder, if the file has one."""
        try:
            return self.path.read_text().strip() or None
        except OSError:
            return None

    def release(self) -> None:
        """Let go of the lock (closing the file releases it)."""
        if self._file is not None:
            self._file.close()
            self._file = None
