"""One indexer per data dir: the process that indexes holds ``<data dir>/indexer.lock``.

Two processes writing one embedded store would corrupt it. The OS drops the lock however
the process dies, and a refused attempt writes nothing.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from filelock import FileLock, Timeout

INDEX_LOCK_FILE = "indexer.lock"


class AlreadyIndexing(Exception):
    """Another process indexes this data dir already; the message says which and what to do."""


class IndexLock:
    """An exclusive, non-blocking lock on a file; ``holder`` says who has it. A second
    IndexLock on the same path is refused, even in the same process: hand the instance on."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # thread_local=False: the window takes the lock on its main thread and the
        # services release it from the event loop's.
        self._lock = FileLock(path, thread_local=False)

    @property
    def held(self) -> bool:
        """Whether this instance holds the lock."""
        return self._lock.is_locked

    def acquire(self) -> bool:
        """Take the lock if no one else holds it; True when this instance has it."""
        if self.held:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(blocking=False)
        except Timeout:
            return False
        # The holder's process id, for the message a refused process prints.
        with suppress(OSError):  # Windows may refuse writes to a locked file; only a hint
            self.path.write_text(str(os.getpid()), encoding="ascii")
        return True

    def holder(self) -> str | None:
        """The process id written by the holder, if the file has one."""
        try:
            return self.path.read_text(encoding="ascii").strip() or None
        except (OSError, UnicodeDecodeError):
            return None

    def release(self) -> None:
        """Let go of the lock."""
        if self.held:
            self._lock.release()
