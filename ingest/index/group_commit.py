"""Group commit: writes that arrive while another is under way go out together, next.

A Chroma write call costs ~25 ms of CPU whatever it holds (2,048 chunks: 8.5 CPU s in
calls of 8, 2.9 in calls of 64), and files sharing an embedding call write at the same
moment: 70 files made 43 write calls this way, 66 without the 5 ms wait. A failed combined
write is retried part by part, so the writes must be idempotent (Chroma's upsert is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

LINGER = 0.005
"""Seconds a write waits for others about to start (a fifth of what a call costs)."""


@dataclass(eq=False)
class _Part(Generic[T]):
    items: Sequence[T]
    done: bool = False
    error: BaseException | None = None


class GroupCommit(Generic[T]):
    """Runs ``write`` on the records of every caller waiting, at most ``limit`` a call."""

    def __init__(
        self, write: Callable[[Sequence[T]], None], limit: int, *, linger: float = LINGER
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.write = write
        self.limit = limit
        self.linger = linger
        self.calls = 0
        """Calls made to ``write`` (for the benchmark)."""
        self._queued: list[_Part[T]] = []
        self._writing = False
        self._turn = threading.Condition()

    def submit(self, items: Sequence[T]) -> None:
        """Write ``items``, with whatever else is queued; returns once they are written."""
        (error,) = self.submit_parts([items])
        if error is not None:
            raise error

    def submit_parts(self, parts: Sequence[Sequence[T]]) -> list[Exception | None]:
        """Write several parts as one caller; returns each part's error, or None (a part's
        bad records fail that part only); an interrupt is raised."""
        mine = [_Part(items, done=not items) for items in parts]
        queued = [part for part in mine if not part.done]
        group: list[_Part[T]] = []
        with self._turn:
            self._queued.extend(queued)
            # A writer takes the whole queue, so our parts are written all together.
            while self._writing and queued and not queued[0].done:
                self._turn.wait()
            if queued and not queued[0].done:  # nobody is writing: this caller writes
                self._writing = True
                # Files whose vectors came back in the same embedding call are about to
                # write too: a moment's wait lets them share this call.
                self._turn.wait(self.linger)
                group, self._queued = self._queued, []
        if group:
            try:
                self._flush(group)
            finally:
                with self._turn:
                    self._writing = False
                    self._turn.notify_all()
        errors: list[Exception | None] = []
        for part in mine:
            if isinstance(part.error, Exception) or part.error is None:
                errors.append(part.error)
            else:
                raise part.error
        return errors

    def _flush(self, group: list[_Part[T]]) -> None:
        """Write the group's records; every part ends done, with its own error if any."""
        try:
            self._write_all([item for part in group for item in part.items])
        except Exception as error:
            if len(group) == 1:
                group[0].error = error
            else:
                for part in group:
                    try:
                        self._write_all(part.items)
                    except Exception as own:  # handed to the part's caller
                        part.error = own
        except BaseException as error:  # an interrupt: nobody's records are known written
            for part in group:
                part.error = error
            raise
        finally:
            for part in group:
                part.done = True

    def _write_all(self, items: Sequence[T]) -> None:
        for start in range(0, len(items), self.limit):
            self.calls += 1
            self.write(items[start : start + self.limit])
