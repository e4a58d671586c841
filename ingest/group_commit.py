"""Group commit: records queued by several callers go out together, in few large calls.

A Chroma write call costs about 25 ms of CPU whatever it holds, on top of under 1 ms a
record: 2,048 chunks took 8.5 CPU seconds in calls of 8 and 2.9 in calls of 64. The
files being indexed share embedding calls (``ingest.batcher``), so their vectors come
back together, a handful of chunks each.

``queue`` holds a caller's records; ``wait`` returns once they are written. A waiter that
finds no write under way waits 5 ms for others, then writes everything queued in one
call; callers that arrive during a write queue up, and when it ends one of them writes
the queue. Once ``hold`` records are queued, the caller that queued the last of them
writes them at once, so memory stays bounded. ``submit`` is both: queue, then wait.
A combined write that fails is retried part by part, so one caller's bad records fail
that caller only; the writes must be idempotent (Chroma's upsert is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

T = TypeVar("T")

LINGER = 0.005
"""Seconds a write waits for others about to start (a fifth of what a call costs)."""


class Ticket:
    """Records queued by ``GroupCommit.queue``; pass it to ``GroupCommit.wait``."""


@dataclass(eq=False)
class _Part(Ticket, Generic[T]):
    items: Sequence[T]
    done: bool = False
    error: BaseException | None = None


class GroupCommit(Generic[T]):
    """Runs ``write`` on the records of every caller waiting, at most ``limit`` a call."""

    def __init__(
        self,
        write: Callable[[Sequence[T]], None],
        limit: int,
        *,
        hold: int | None = None,
        linger: float = LINGER,
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.write = write
        self.limit = limit
        self.hold = max(1, hold if hold is not None else limit)
        self.linger = linger
        self.calls = 0
        """Calls made to ``write`` (for the benchmark)."""
        self._queued: list[_Part[T]] = []
        self._held = 0
        """Records queued."""
        self._writing = False
        self._turn = threading.Condition()

    def submit(self, items: Sequence[T]) -> None:
        """Write ``items``, with whatever else is queued; returns once they are written."""
        if items:
            self.wait(self.queue(items))

    def queue(self, items: Sequence[T]) -> Ticket:
        """Queue ``items`` to go out with a later write; ``wait`` on the ticket to see them
        written. Once ``hold`` records are queued, this caller writes them all now."""
        part = _Part(items)
        with self._turn:
            self._queued.append(part)
            self._held += len(items)
            full = self._held >= self.hold
        if full:
            self.wait(part)
        return part

    def wait(self, ticket: Ticket) -> None:
        """Return once the ticket's records are written, writing the queue if no write is
        under way; raises the error of the write that held them."""
        part = cast(_Part[T], ticket)
        group: list[_Part[T]] = []
        with self._turn:
            while self._writing and not part.done:
                self._turn.wait()
            if not part.done:  # nobody is writing: this caller writes the queue
                self._writing = True
                # Files whose vectors came back in the same embedding call are about to
                # write too: a moment's wait lets them share this call.
                self._turn.wait(self.linger)
                group, self._queued, self._held = self._queued, [], 0
        if group:
            try:
                self._flush(group)
            finally:
                with self._turn:
                    self._writing = False
                    self._turn.notify_all()
        if part.error is not None:
            raise part.error

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
