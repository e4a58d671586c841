"""What crosses the pipe between the app and a parser process, errors included.

The worker says ``Ready``; the app sends ``Start`` (a payload of bytes follows unpickled)
and ``Next``; the worker answers ``Item``, ``End`` or ``Failed``. Errors come back as the
types the indexer tells apart, OSError by errno.
"""

from __future__ import annotations

import pickle
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from xml.etree.ElementTree import ParseError
from xml.parsers.expat import ExpatError
from xml.parsers.expat import errors as expat_errors

from ingest.loaders import UnreadableFile, UnsupportedFile
from ingest.ocr.page_reader import NeedsOcr

Task = Callable[..., Iterator[Any]]
"""Runs in the worker: ``task(*args, payload)``; its first item answers ``Start``."""

_EXPAT_NO_MEMORY = expat_errors.codes[expat_errors.XML_ERROR_NO_MEMORY]
"""The code of expat's ParseError when its own allocation failed ("out of memory")."""


@dataclass(frozen=True)
class Ready:
    """A new worker is set up and waits for its first request."""


@dataclass(frozen=True)
class Start:
    """Run ``task(*args, payload)``; ``has_payload`` says whether bytes follow."""

    task: Task
    args: tuple[Any, ...]
    has_payload: bool


@dataclass(frozen=True)
class Next:
    """The running task's next item."""


@dataclass(frozen=True)
class WireError:
    """An exception, as it crosses the pipe."""

    kind: Literal["unreadable", "unsupported", "ocr", "os", "memory", "other"]
    message: str = ""
    errno: int | None = None
    filename: str | None = None
    pickled: bytes | None = None
    """The exception itself, for kind "other", when it survives pickling."""
    trace: str = ""
    """The worker's traceback, for kind "other" (for the log)."""


@dataclass(frozen=True)
class Item:
    """One item of the task."""

    value: Any


@dataclass(frozen=True)
class End:
    """The task has no more items; with ``retire`` the worker leaves after this reply."""

    retire: bool = False


@dataclass(frozen=True)
class Failed:
    """The task raised ``error``; with ``retire`` the worker leaves after this reply."""

    error: WireError
    retire: bool = False


Reply = Item | End | Failed


def encode(error: BaseException) -> WireError:
    """``error`` for the pipe (in the worker). Allocates little when memory ran out."""
    if out_of_memory(error):
        return WireError("memory")
    if isinstance(error, UnreadableFile):
        return WireError("unreadable", error.reason)
    if isinstance(error, UnsupportedFile):
        return WireError("unsupported", filename=str(error.path))
    if isinstance(error, NeedsOcr):
        return WireError("ocr")
    if isinstance(error, OSError):
        filename = None if error.filename is None else str(error.filename)
        return WireError("os", error.strerror or str(error), error.errno, filename)
    trace = "".join(traceback.format_exception(error))
    pickled: bytes | None
    try:
        pickled = pickle.dumps(error)
        pickle.loads(pickled)  # some exceptions pickle but cannot be rebuilt
    except Exception:
        pickled = None
    return WireError("other", f"{type(error).__name__}: {error}", pickled=pickled, trace=trace)


def decode(error: WireError, memory_reason: str) -> BaseException:
    """The exception to raise for ``error`` (``memory_reason``: for a file out of memory)."""
    if error.kind == "memory":
        return UnreadableFile(memory_reason)
    if error.kind == "unreadable":
        return UnreadableFile(error.message)
    if error.kind == "unsupported":
        return UnsupportedFile(Path(error.filename or ""))
    if error.kind == "ocr":
        return NeedsOcr()
    if error.kind == "os":
        if error.errno is None:
            return OSError(error.message)
        return OSError(error.errno, error.message, error.filename)  # the errno's subclass
    pickled = error.pickled
    rebuilt = pickle.loads(pickled) if pickled is not None else None
    if not isinstance(rebuilt, BaseException):
        rebuilt = RuntimeError(error.message)
    rebuilt.add_note(f"raised in a parser process:\n{error.trace}")
    return rebuilt


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it, expat's "out of memory" too) says memory ran out."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return True
        if isinstance(current, ParseError | ExpatError) and current.code == _EXPAT_NO_MEMORY:
            return True
        pending += [current.__cause__, current.__context__]
    return False
