"""RemoteDocument: a LoadedDocument whose file is parsed in a parser process, a page ahead.

Closing it before the last page kills its worker, which the pool replaces.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ingest.closing import Closing
from ingest.document_parts import Page
from ingest.parsing.wire import End, Item, Task


class Lease(Protocol):
    """One worker held for one task (``pool.Lease`` implements it)."""

    # Protocols here, not the pool's classes: the pool makes remote documents, so this
    # module must not import it back.
    @property
    def pid(self) -> int | None:
        """The worker's process id."""
        ...

    def start(self, task: Task, args: tuple[Any, ...], payload: bytes | None = None) -> Any:
        """Run ``task(*args, payload)`` in the worker; returns its first item."""
        ...

    def ask_next(self) -> None:
        """Ask for the task's next item."""
        ...

    def receive(self) -> Item | End:
        """The reply to the last request."""
        ...

    def release(self) -> None:
        """Give the worker back."""
        ...


class Leases(Protocol):
    """Where a worker is leased from (``pool.ParserPool`` implements it)."""

    def lease(self, cancelled: threading.Event | None = None) -> Lease:
        """A worker of one's own for one task."""
        ...


class RemoteDocument(Closing):
    """A document being read in a worker process (see ``ingest.loaders.LoadedDocument``)."""

    def __init__(self, lease: Lease, page_count: int | None) -> None:
        self._lease = lease
        self.page_count = page_count

    @classmethod
    def open(
        cls,
        pool: Leases,
        task: Task,
        args: tuple[Any, ...],
        data: bytes | None,
        cancelled: threading.Event | None,
    ) -> RemoteDocument:
        """Run ``task(*args, data)`` (a document reader, see ``tasks.read_document``)."""
        lease = pool.lease(cancelled)
        try:
            page_count = lease.start(task, args, data)
        except BaseException:
            lease.release()
            raise
        return cls(lease, page_count)

    @property
    def pid(self) -> int | None:
        """The process reading the file."""
        return self._lease.pid

    def pages(self, more: Callable[[Page], bool] | None = None) -> Iterator[Page]:
        """The pages in order; may end by raising what the loader raised. After the page
        ``more`` says no to, the worker goes back whole (a kill costs OCR its models)."""
        lease = self._lease
        try:
            lease.ask_next()
            while isinstance(reply := lease.receive(), Item):
                if more is not None and not more(reply.value):
                    yield reply.value
                    return
                lease.ask_next()  # the worker parses the next page while this one is used
                yield reply.value
        finally:
            self.close()

    def close(self) -> None:
        """Give the worker back (killed, if it is still reading); safe from any thread."""
        self._lease.release()
