"""The windows following a service: each hears every change, on the event loop."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Listeners(Generic[T]):
    """Listeners to one kind of change; one that raises is logged, and the others still hear."""

    def __init__(self, failed: str) -> None:
        self._failed = failed
        """What the log says when a listener raises."""
        self._listeners: list[Callable[[T], None]] = []

    def subscribe(self, listener: Callable[[T], None]) -> Callable[[], None]:
        """Call ``listener`` with every change; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def tell(self, change: T) -> None:
        """Give every listener ``change``."""
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:  # one broken window must not silence the others
                log.exception(self._failed)
