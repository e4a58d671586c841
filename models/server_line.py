"""An adapter's line to its model server: who may talk to the server now.

vLLM and llama-server batch requests side by side and Ollama queues them, but
llama-cpp-python's server cancels the answer it is streaming when any other request arrives
(even ``GET /models``) and ends the stream as if done. So unless a server is known to take
requests side by side, a request waits for the one before it, and a health check sends
nothing while one is in flight (that request already shows the server is alive).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ServerLine:
    """Requests to one model server, one at a time unless ``side_by_side``."""

    def __init__(self, *, side_by_side: bool = False) -> None:
        self.side_by_side = side_by_side
        """The server takes a request while another is in flight without harm to it
        (it batches or queues them). False until known: waiting is safe, cancelling is not."""
        self.heard_at: float | None = None
        """``time.monotonic()`` when the server last answered a request in full."""
        self._lock = asyncio.Lock()
        self._in_flight = 0
        self._waiting = 0
        self._left: set[asyncio.Task[object]] = set()

    @property
    def busy(self) -> bool:
        """Whether a request is in flight, or waiting for its turn."""
        return self._in_flight > 0 or self._waiting > 0

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn."""
        return self._waiting

    @property
    def may_ask(self) -> bool:
        """Whether a health check may send a request now without waiting or disturbing."""
        return self.side_by_side or not self.busy

    def heard(self) -> None:
        """The server just answered a request in full."""
        self.heard_at = time.monotonic()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[Handover]:
        """Hold the line for one request; on a one-at-a-time server, wait for it first.

        A request given up on that the server goes on with can be handed over: the line stays
        held until that task ends."""
        handover = Handover()
        if self.side_by_side:
            self._in_flight += 1
            try:
                yield handover
            finally:
                self._in_flight -= 1
            return
        self._waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1
        self._in_flight += 1
        try:
            yield handover
        finally:
            task = handover.task
            if task is None or task.done():
                self._release()
            else:
                self._left.add(task)
                task.add_done_callback(self._released_after)

    async def aclose(self) -> None:
        """Stop the requests left running (the adapter is closing)."""
        for task in list(self._left):
            task.cancel()
        await asyncio.gather(*self._left, return_exceptions=True)

    def _release(self) -> None:
        self._in_flight -= 1
        self._lock.release()

    def _released_after(self, task: asyncio.Task[object]) -> None:
        self._left.discard(task)
        if not task.cancelled() and task.exception() is None:
            self.heard()
        self._release()


class Handover:
    """A request the caller stopped waiting for, left to hold the line until it ends."""

    task: asyncio.Task[object] | None = None

    def leave(self, task: asyncio.Task[object]) -> None:
        """Keep the line held until ``task`` ends (a one-at-a-time server still works on it)."""
        self.task = task
