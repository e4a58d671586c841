"""A support check run beside a streaming answer, so little is left after its last token: the
passages are embedded while the model thinks, each sentence as it completes, in a worker thread, one
call at a time (``SupportCheck`` is not thread-safe). The event loop never waits on it."""

from __future__ import annotations

import asyncio
import logging
import re

from graph.support.check import SupportCheck
from graph.support.verdicts import SentenceSupport

log = logging.getLogger(__name__)

_MAY_END = re.compile(r"[.!?…\n]")
"""A piece of text without any of these cannot complete a sentence."""


class LiveCheck:
    """One answer's check while it streams: ``start``, ``wrote`` per piece, ``finish``."""

    def __init__(self, check: SupportCheck) -> None:
        self.check = check
        self._written: list[str] = []
        self._pending = False
        """New text may complete a sentence the worker has not read yet."""
        self._worker: asyncio.Task[None] | None = None
        self._failed: BaseException | None = None

    def start(self) -> None:
        """Begin embedding the passages now."""
        self._wake()

    def wrote(self, piece: str) -> None:
        """The model wrote ``piece``; a sentence it completes is embedded soon after."""
        self._written.append(piece)
        if _MAY_END.search(piece):
            self._pending = True
            self._wake()

    async def finish(self, text: str) -> list[SentenceSupport] | None:
        """The check of ``text`` (the whole answer), or None when the embedder failed."""
        try:
            if self._worker is not None:
                await self._worker
            if self._failed is not None:
                raise self._failed
            return await asyncio.to_thread(self.check.check, text)
        except Exception:  # a check that can't run leaves the answer unchecked, not failed
            log.warning("the answer's support check failed", exc_info=True)
            return None

    def cancel(self) -> None:
        """Stop reading ahead (the answer was stopped); a call in its thread still ends."""
        if self._worker is not None:
            self._worker.cancel()

    def _wake(self) -> None:
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name="support-read-ahead")

    async def _work(self) -> None:
        try:
            await asyncio.to_thread(self.check.prepare)
            while self._pending:
                self._pending = False
                await asyncio.to_thread(self.check.read_ahead, "".join(self._written))
        except Exception as error:  # told by finish: the turn's answer stands unchecked
            self._failed = error
