"""The work queue: which path the pipeline takes next, and what is running now.

Each path waits at most once; small files go first, and at most one over ``SMALL_BYTES``
runs at a time so small ones are not starved. Two lanes, "typed" and "ocr", so a long scan
never stands in front of a typed file; in the OCR lane files take turns, fewest turns
first. Call everything on the event loop.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
from dataclasses import dataclass, field
from typing import Literal

SMALL_BYTES = 4 << 20
"""Files up to this size never wait behind a bigger one."""

URGENT, BACKGROUND = 0, 1
"""Priority classes: a change just seen (watcher, upload) goes before a start-up scan."""

Lane = Literal["typed", "ocr"]
LANES: tuple[Lane, ...] = ("typed", "ocr")


@dataclass
class Job:
    """A path taken off the queue, with the flag that cancels its work."""

    rel: str
    size: int
    cancelled: threading.Event = field(default_factory=threading.Event)
    lane: Lane = "typed"
    others_waiting: threading.Event = field(default_factory=threading.Event)
    """Set while another path waits in the OCR lane: a scan then ends its turn."""


class WorkQueue:
    """Deduplicated, prioritised paths; running jobs; retry timers; idle tracking."""

    def __init__(self) -> None:
        self._small: list[tuple[int, int, int, str]] = []
        self._big: list[tuple[int, int, int, str]] = []
        self._scans: list[tuple[int, int, int, int, str]] = []
        """The OCR lane's waiting paths by turns had, priority, then size or turn's end."""
        self._turns: dict[str, int] = {}
        """Turns each path of the OCR lane has had (while it has more to read)."""
        self._lanes: dict[str, Lane] = {}
        """The lane of each waiting path."""
        self._waiting: dict[str, int] = {}
        self._running: dict[str, Job] = {}
        self._again: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._seq = itertools.count()
        self._wake = {lane: asyncio.Event() for lane in LANES}
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False

    def put(self, rel: str, *, size: int = 0, urgent: bool = False, lane: Lane = "typed") -> bool:
        """Queue ``rel`` in ``lane``; False if it was already waiting. A running job for it
        is cancelled, and the path runs again once it is done."""
        self._turns.pop(rel, None)  # new work on the path: its turns start again
        return self._put(rel, size=size, urgent=urgent, lane=lane)

    def _put(self, rel: str, *, size: int, urgent: bool, lane: Lane) -> bool:
        self._cancel_timer(rel)
        self._idle.clear()
        if rel in self._running:
            self._running[rel].cancelled.set()
            self._run_again(rel, size, lane)
            return True
        if rel in self._waiting:
            return False
        self._waiting[rel] = size
        self._lanes[rel] = lane
        entry = (URGENT if urgent else BACKGROUND, size, next(self._seq), rel)
        if lane == "ocr":
            turns = self._turns.get(rel, 0)
            first = size if turns == 0 else 0
            heapq.heappush(self._scans, (turns, entry[0], first, entry[2], rel))
            for job in self._running.values():
                if job.lane == "ocr":
                    job.others_waiting.set()
        else:
            heapq.heappush(self._small if size <= SMALL_BYTES else self._big, entry)
        self._wake[lane].set()
        return True

    def hand_over(self, job: Job, lane: Lane) -> None:
        """Run ``job``'s path again in ``lane`` once the job is done (it needs that lane)."""
        self._run_again(job.rel, job.size, lane)

    def requeue(self, job: Job) -> None:
        """Queue ``job``'s path again once done, behind its lane's paths with fewer turns."""
        self._turns[job.rel] = self._turns.get(job.rel, 0) + 1
        self._run_again(job.rel, job.size, job.lane)

    def retry_later(self, rel: str, delay: float, *, size: int = 0, lane: Lane = "typed") -> None:
        """Queue ``rel`` again after ``delay`` seconds (a busy file)."""
        self._cancel_timer(rel)
        self._idle.clear()
        loop = asyncio.get_running_loop()
        self._timers[rel] = loop.call_later(delay, self._fire_timer, rel, size, lane)

    def cancel(self, rel: str) -> bool:
        """Cancel the running work on ``rel``, if any (the caller queues what comes next)."""
        job = self._running.get(rel)
        if job is None:
            return False
        job.cancelled.set()
        return True

    async def get(self, lane: Lane = "typed") -> Job | None:
        """The next job of ``lane`` (a big file only while none runs); None once closed."""
        while not self._closed:
            job = self._pop(lane)
            if job is not None:
                return job
            self._wake[lane].clear()
            await self._wake[lane].wait()
        return None

    def done(self, job: Job) -> None:
        """The worker finished ``job`` (whatever its outcome)."""
        if self._running.get(job.rel) is job:
            del self._running[job.rel]
        if job.rel in self._again:
            self._again.discard(job.rel)
            size = self._waiting.pop(job.rel, job.size)
            lane = self._lanes.get(job.rel, job.lane)
            self._put(job.rel, size=size, urgent=True, lane=lane)
        else:
            self._turns.pop(job.rel, None)
        self._wake["typed"].set()  # a big slot may have freed up
        self._update_idle()

    @property
    def pending(self) -> int:
        """Paths not finished: waiting, waiting to retry, or running."""
        return len(self._waiting.keys() | self._timers.keys() | self._running.keys())

    def running(self) -> list[Job]:
        """The jobs being worked on now."""
        return list(self._running.values())

    def waiting(self, lane: Lane) -> int:
        """How many paths wait in ``lane`` (not running)."""
        return sum(
            1 for rel in self._waiting if rel not in self._running and self._lanes.get(rel) == lane
        )

    async def wait_idle(self) -> None:
        """Return once nothing is waiting, retrying or running."""
        await self._idle.wait()

    @property
    def idle(self) -> bool:
        return self._idle.is_set()

    def close(self) -> list[str]:
        """Drop waiting paths and timers, cancel running jobs; returns the dropped paths."""
        dropped = sorted(self._waiting.keys() | self._timers.keys())
        for handle in self._timers.values():
            handle.cancel()
        waiting = (self._timers, self._waiting, self._small, self._big, self._scans, self._turns)
        for part in (*waiting, self._lanes, self._again):
            part.clear()
        for job in self._running.values():
            job.cancelled.set()
        self._closed = True
        for wake in self._wake.values():
            wake.set()
        self._idle.set()
        return dropped

    def reopen(self) -> None:
        """Accept work again after ``close`` (a restarted indexer)."""
        self._closed = False

    def _pop(self, lane: Lane) -> Job | None:
        while True:
            if lane == "ocr":
                if not self._scans:
                    return None
                rel = heapq.heappop(self._scans)[-1]
            elif self._small:
                rel = heapq.heappop(self._small)[-1]
            elif self._big and not any(
                job.size > SMALL_BYTES and job.lane == "typed" for job in self._running.values()
            ):
                rel = heapq.heappop(self._big)[-1]
            else:
                return None
            if rel not in self._waiting or rel in self._running or self._lanes.get(rel) != lane:
                continue  # a stale entry: the path was re-queued with another size or lane
            size = self._waiting.pop(rel)
            self._lanes.pop(rel, None)
            job = Job(rel, size, lane=lane)
            self._running[rel] = job
            if lane == "ocr" and self.waiting("ocr"):
                job.others_waiting.set()
            return job

    def _run_again(self, rel: str, size: int, lane: Lane) -> None:
        """Queue ``rel`` in ``lane`` once its running job is done."""
        self._idle.clear()
        self._again.add(rel)
        self._waiting[rel] = size
        self._lanes[rel] = lane

    def _fire_timer(self, rel: str, size: int, lane: Lane) -> None:
        self._timers.pop(rel, None)
        self.put(rel, size=size, lane=lane)

    def _cancel_timer(self, rel: str) -> None:
        handle = self._timers.pop(rel, None)
        if handle is not None:
            handle.cancel()

    def _update_idle(self) -> None:
        if not self._waiting and not self._timers and not self._running:
            self._idle.set()
