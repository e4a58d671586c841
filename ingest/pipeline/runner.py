"""Files run through the pipeline on one bounded pool of threads, each under its time budget.

The threads are daemons nobody joins: a file past its budget or cancelled stops at once
for the indexer, its thread at its next check, so a frozen thread never holds up a stop.
A budget starts when a thread takes the file up, not when it was queued.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from ingest.pipeline.index_job import IndexJob
from ingest.pipeline.process import Outcome, Pipeline
from ingest.pipeline.threads import ThreadPool, call_soon


class FileRunner:
    """Runs one file's pipeline on the pool and waits for it within its budget."""

    def __init__(self, pipeline: Pipeline, *, threads: int) -> None:
        self.pipeline = pipeline
        self.pool = ThreadPool(threads, "index")

    async def run(
        self, job: IndexJob, on_settle: Callable[[], None], ocr_page_seconds: float
    ) -> Outcome:
        """Run the pipeline on ``job`` under its budget; raises what the pipeline raised, or
        TimeoutError. The budget stops at ``on_settle`` (the write's patience bounds it)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        settled: asyncio.Future[None] = loop.create_future()
        began: asyncio.Future[float] = loop.create_future()
        base = job.budget

        def on_open(pages: int | None) -> None:  # in the pipeline's thread
            if job.lane == "ocr":
                read = min(pages or 1, self.pipeline.ocr_max_pages)
                job.budget = base + ocr_page_seconds * read

        def settle_in_loop() -> None:
            on_settle()
            if not settled.done():
                settled.set_result(None)

        def finish(result: Any, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        def run() -> None:
            thread = threading.current_thread()
            name, thread.name = thread.name, f"index {job.rel}"  # for py-spy and logs
            call_soon(loop, _start, began, loop)
            try:
                result = self.pipeline.process(
                    job, on_settle=lambda: call_soon(loop, settle_in_loop), on_open=on_open
                )
            except BaseException as exc:
                call_soon(loop, finish, None, exc)
            else:
                call_soon(loop, finish, result, None)
            finally:
                thread.name = name

        self.pool.submit(run)
        try:
            # asyncio.wait, not wait_for: wait_for (3.11) can swallow a cancellation that
            # arrives as the thread finishes, and the worker would never stop.
            await asyncio.wait({began})
            either: set[asyncio.Future[Any]] = {future, settled}
            while not (future.done() or settled.done()):
                left = began.result() + job.budget - loop.time()  # the budget may grow
                if left <= 0:
                    break
                await asyncio.wait(either, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if settled.done() and not future.done():
                await asyncio.wait({future})
        except asyncio.CancelledError:
            # The thread stops at its next check and the file's parser process is killed
            # at once (the pool watches this event); nobody waits for either.
            job.cancelled.set()
            future.cancel()  # what the thread ends with later is nobody's to read
            raise
        if not future.done():
            job.cancelled.set()  # as above: the parser process past its budget is killed
            future.cancel()
            raise TimeoutError(duration(job.budget))
        return future.result()

    async def wait_stopped(self, timeout: float) -> None:
        """Wait ``timeout`` s at most for running files to stop; then let idle threads go."""
        deadline = time.monotonic() + timeout
        while self.pool.busy and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        self.pool.close()


def _start(began: asyncio.Future[float], loop: asyncio.AbstractEventLoop) -> None:
    if not began.done():
        began.set_result(loop.time())


def duration(seconds: float) -> str:
    """A time budget as a person reads it: "90 s", "1 min 30 s", "15 min", "2 h 5 min"."""
    if seconds < 60:
        return f"{round(seconds, 1):g} s"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    if minutes:
        parts.append(f"{minutes} min")
    if secs and not hours:
        parts.append(f"{secs} s")
    return " ".join(parts)
