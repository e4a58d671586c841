"""Tasks for parser processes that only tests run: a reader stuck on its file, and one
that raises what it is given. Module-level, so a worker imports them by name."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def stuck_reading(path: str, data: bytes | None) -> Iterator[Any]:
    """Opens like ``read_document`` (no page count), then hangs before the first page, as
    a parser caught in a pathological file would. ``<path>.parsing`` holds its pid once
    it hangs."""
    yield None
    Path(f"{path}.parsing").write_text(str(os.getpid()))
    threading.Event().wait()


def raising(error: BaseException, data: bytes | None) -> Iterator[Any]:
    """Raises ``error`` where a loader would."""
    raise error
    yield  # a generator, as every task is


def pid_alive(pid: int) -> bool:
    """Whether a process with this id still exists (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def address_space_mb(pid: int) -> float:
    """A process's address space (VmSize), which RLIMIT_AS caps."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmSize for {pid}")


def guarded_reading(path: str, data: bytes | None) -> Iterator[Any]:
    """``read_document`` with OCR, in a worker where every connection beyond this machine
    is refused and listed: its pages, then that list as its last item."""
    from ingest.parsing.tasks import read_document
    from tests.network_guard import only_loopback

    with only_loopback() as attempts:
        yield from read_document(path, "read", data)
    yield list(attempts)
