"""pypdf's own warnings go to Docent's log, once per message and file, never the console.

A person cannot act on "incorrect startxref pointer" (the document's status carries the
reason); a developer wants it in the log, at INFO, prefixed with its file.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar, Token

log = logging.getLogger(__name__)

_MAX_DISTINCT = 50
"""Distinct messages logged per file; a broken file can repeat one thousands of times."""


class PypdfLog:
    """While entered, pypdf's messages are logged as concerning file ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: set[str] = set()
        self._tokens: list[Token[PypdfLog | None]] = []

    def __enter__(self) -> PypdfLog:
        route_pypdf_log()
        self._tokens.append(_scope.set(self))
        return self

    def __exit__(self, *exc_info: object) -> None:
        _scope.reset(self._tokens.pop())


_scope: ContextVar[PypdfLog | None] = ContextVar("pypdf_scope", default=None)


class _ToDocentLog(logging.Handler):
    """Re-logs pypdf's records under this module's logger, at INFO."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record must not break a load
            message = str(record.msg)
        scope = _scope.get()
        if scope is None:
            log.info("pypdf: %s", message)
            return
        if message in scope.seen or len(scope.seen) >= _MAX_DISTINCT:
            return
        scope.seen.add(message)
        log.info("%s: pypdf: %s", scope.name, message)


def route_pypdf_log() -> None:
    """Send pypdf's records to Docent's log instead of the console (idempotent)."""
    pypdf_log = logging.getLogger("pypdf")
    if not any(isinstance(handler, _ToDocentLog) for handler in pypdf_log.handlers):
        pypdf_log.addHandler(_ToDocentLog())
    pypdf_log.propagate = False
