"""Write-behind: files that are done embedding wait together, and one write takes them all.

A Chroma write costs about 35 ms of CPU however few chunks it holds (plus ~1 ms a chunk),
and writing each file's chunks on its own made two hundred small writes for 4,800 chunks.
A waiting file gives its worker slot back; a file is ready only once its chunks are
written, and a crash loses only chunks held, which the next start embeds again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext, suppress

HOLD = 256
"""Chunks held at most before they are written, whoever is waiting."""

PATIENCE = 5.0
"""Seconds a file waits at most for other files' chunks to share its write."""


class WriteBehind:
    """Counts the files working, and writes the held chunks when the files waiting need it;
    ``flush`` must give back what it took if interrupted (``VectorIndex.flush``)."""

    def __init__(
        self,
        flush: Callable[[], Mapping[str, BaseException]],
        *,
        hold: int = HOLD,
        patience: float = PATIENCE,
    ) -> None:
        self._flush_indexes = flush
        self.hold = hold
        self.patience = patience
        self._cond = threading.Condition()
        self._flushing = threading.Lock()  # one write at a time: "written up to" stays true
        self._working = 0
        self._held = 0
        """Chunks held since the last write began."""
        self._holds = 0
        """Holds so far; a file's own are all among the first ``_holds`` when it waits."""
        self._written = 0
        """Every hold up to this one is written (or failed, in ``_failed``)."""
        self._failed: dict[str, BaseException] = {}

    @contextmanager
    def working(self) -> Iterator[None]:
        """Mark a file that may still hold chunks: waiting files give it time to."""
        with self._cond:
            self._working += 1
        try:
            yield
        finally:
            with self._cond:
                self._working -= 1
                self._cond.notify_all()

    def held(self, count: int) -> None:
        """Note ``count`` chunks just held; write them all if ``hold`` are held."""
        with self._cond:
            self._holds += 1
            self._held += count
            full = self._held >= self.hold
        if full:
            self._write()

    def settle(self, key: str, *, now: bool = False) -> None:
        """Return once every chunk held so far is written; raise ``key``'s write error. Writes
        at once when ``now``, no file works or ``hold`` are held; else waits ``patience``."""
        deadline = time.monotonic() + self.patience
        with self._cond:
            target = self._holds
        while True:
            with self._cond:
                if self._written >= target:
                    break
                remaining = deadline - time.monotonic()
                if not (now or self._working == 0 or self._held >= self.hold or remaining <= 0):
                    self._cond.wait(remaining)
                    continue
            self._write()
        with self._cond:
            error = self._failed.pop(key, None)
        if error is not None:
            raise error

    @contextmanager
    def embedding(
        self, key: str, cancelled: threading.Event, on_settle: Callable[[], None], *, slow: bool
    ) -> Iterator[None]:
        """A file embedding ``key``: inside, its chunks are held; after, it settles them. A
        ``slow`` (OCR) file is not working: others waited for its pages (5.9 s, not 0.8)."""
        try:
            with nullcontext() if slow else self.working():
                yield
        except BaseException:
            # What the file held is written while its key is still busy, so reconcile
            # never collects the key and then sees its chunks arrive.
            on_settle()
            with suppress(Exception):  # the file fails for its own reason, not a write's
                self.settle(key, now=True)
            raise
        on_settle()
        self.settle(key, now=cancelled.is_set())

    def drain(self) -> None:
        """Write every held chunk now (the app is stopping)."""
        self._write()

    def _write(self) -> None:
        with self._flushing:
            with self._cond:
                upto = self._holds
                if self._written >= upto:  # written while this thread waited its turn
                    return
                self._held = 0
            failed = self._flush_indexes()
            with self._cond:
                self._failed.update(failed)
                self._written = upto
                self._cond.notify_all()
