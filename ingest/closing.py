"""``with`` for the readers' classes: leaving the block calls ``close``."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """A resource (a file, a zip, a worker process) let go by ``close``."""

    def close(self) -> None:
        """Let the resource go; safe to call more than once."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
