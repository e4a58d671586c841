"""A bounded pool of daemon threads, for work that blocks and that nobody may wait on.

ThreadPoolExecutor joins its threads at exit, so one stuck in a call would keep the
process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any


def call_soon(loop: asyncio.AbstractEventLoop, func: Callable[..., Any], *args: Any) -> None:
    """``loop.call_soon_threadsafe(func, *args)`` from any thread; nothing once it closed."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for it any more
        loop.call_soon_threadsafe(func, *args)


class ThreadPool:
    """At most ``size`` daemon threads, started as needed, taking the calls in turn."""

    def __init__(self, size: int, name: str) -> None:
        self.size = size
        self.name = name
        self._calls: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._busy = 0

    @property
    def busy(self) -> int:
        """Calls given and not finished (waiting for a thread, or running)."""
        return self._busy

    def submit(self, call: Callable[[], None]) -> None:
        """Run ``call`` on an idle thread, a new one while under ``size``, or the next free."""
        with self._lock:
            self._busy += 1
            if self._idle:
                self._idle -= 1  # claimed: that thread takes this call
            elif self._threads < self.size:
                self._threads += 1
                name = f"{self.name}-{self._threads}"
                threading.Thread(target=self._serve, name=name, daemon=True).start()
        self._calls.put(call)

    def close(self) -> None:
        """Let the threads end after their call; a later ``submit`` starts new ones."""
        with self._lock:
            ending, self._idle = self._idle, 0
            self._threads -= ending
        for _ in range(ending):
            self._calls.put(None)

    def _serve(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            try:
                call()
            finally:
                with self._lock:
                    self._busy -= 1
                    self._idle += 1
