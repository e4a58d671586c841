"""A parser process: runs the tasks the pool sends, one at a time, under a memory limit.

It leaves when its pipe closes or the app is gone, and retires after a task that passed
``retire_kb`` of peak memory or ran out: a process rarely gives memory back.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

from ingest.parsing.wire import (
    End,
    Failed,
    Item,
    Next,
    Ready,
    Reply,
    Start,
    WireError,
    encode,
    out_of_memory,
)

log = logging.getLogger(__name__)

RETIRE_KB = 256 << 10
"""Peak resident memory after which a worker is replaced once its task is done."""


def serve(conn: Connection, memory_limit: int, retire_kb: int = RETIRE_KB) -> None:
    """The worker's main loop: answer requests until the pipe closes or it retires."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the app's; it stops us
    _exit_with_app()
    _limit_memory(memory_limit)
    try:
        conn.send(Ready())
    except OSError:
        return
    task: Iterator[Any] | None = None
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        reply, task = _answer(conn, request, task, retire_kb)
        try:
            try:
                conn.send(reply)
            except MemoryError:  # pickling a page needs memory too
                reply, task = _OUT_OF_MEMORY, None
                conn.send(reply)
        except OSError:  # the app let go of this worker mid-task
            return
        if not isinstance(reply, Item) and reply.retire:
            return


_OUT_OF_MEMORY = Failed(WireError("memory"), retire=True)
"""Built ahead: when memory has run out, the reply that says so must not need any."""


def _answer(
    conn: Connection, request: Start | Next, task: Iterator[Any] | None, retire_kb: int
) -> tuple[Reply, Iterator[Any] | None]:
    """The reply to ``request``, and the task that is running after it."""
    failed: Failed = _OUT_OF_MEMORY
    try:
        if isinstance(request, Start):
            payload = conn.recv_bytes() if request.has_payload else None
            task = request.task(*request.args, payload)
        if task is None:
            raise RuntimeError("a parser process was asked for more with no task running")
        return Item(next(task)), task
    except StopIteration:
        return End(retire=_peak_kb() > retire_kb), None
    except MemoryError:
        pass  # nothing may be allocated while the frames that hold the memory live
    except BaseException as error:
        try:
            failed = Failed(encode(error), retire=out_of_memory(error) or _peak_kb() > retire_kb)
        except MemoryError:  # a loader's wrapped MemoryError: the memory is still held
            pass
    # The exception, its traceback and the task's frames are gone by now.
    return failed, None


def _exit_with_app() -> None:
    """Leave when the app's process ends, whatever this one is doing."""
    app = multiprocessing.parent_process()
    if app is None:
        return

    def watch() -> None:
        wait([app.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-app", daemon=True).start()


def _limit_memory(limit: int) -> None:
    """Cap this process's address space at ``limit`` bytes, where the system can."""
    try:
        import resource
    except ImportError:  # Windows: no such limit; the file's time budget still holds
        log.warning("parser processes run without a memory limit on this system")
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError) as error:  # macOS refuses it
        log.warning("parser processes run without a memory limit: %s", error)


def _peak_kb() -> int:
    """This process's peak resident memory in KiB (0 where the system cannot tell)."""
    try:
        import resource
    except ImportError:
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes there, KiB here
