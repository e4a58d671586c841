"""Cross-file embedding: chunks of the files in flight share one embedding call.

An embedder that sorts texts by length pads little only when it sees many at once. The
thread whose request opens a window embeds it (no batcher thread); two windows may be in
flight so the embedder never idles; a failed window is retried request by request, so one
file's bad text fails that file only; a file asks one batch at a time, first come first served.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from models.protocols import Embedder, SharesBatches

WINDOW = 256
"""Texts per shared call at most: enough to sort by length, little memory (≈1 KB each)."""

LEADERS = 2
"""Windows embedded at once at most."""

LINGER = 0.02
"""Seconds a window waits at most for files in flight that have not asked yet (a file
being parsed or stored must not keep the embedder idle)."""


def shares_batches(embedder: Embedder) -> bool:
    """Whether texts from several files may share one call to ``embedder`` (its
    ``shared_batches``: a call costs what its texts cost and keeps its cores busy)."""
    return isinstance(embedder, SharesBatches) and embedder.shared_batches


@dataclass(eq=False)
class _Request:
    texts: list[str]
    taken: bool = False
    """In a window being embedded."""
    done: threading.Event = field(default_factory=threading.Event)
    vectors: list[list[float]] | None = None
    error: BaseException | None = None


class EmbedBatcher:
    """Shares embedding calls between the files being indexed at the same time."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        window: int = WINDOW,
        linger: float = LINGER,
        leaders: int = LEADERS,
    ):
        self.embedder = embedder
        self.window = window
        self.linger = linger
        self.leaders = leaders
        self._cond = threading.Condition()
        self._pending: deque[_Request] = deque()
        self._leading = 0
        self._taken = 0
        """Requests in windows being embedded."""
        self._producers = 0
        self.calls = 0
        """Embedding calls made (for the benchmark: texts per call = chunks ÷ calls)."""

    @contextmanager
    def producing(self) -> Iterator[None]:
        """Mark a file in flight: a window waits (briefly) for its next request."""
        with self._cond:
            self._producers += 1
        try:
            yield
        finally:
            with self._cond:
                self._producers -= 1
                self._cond.notify_all()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``, embedded together with other files' waiting texts."""
        if not texts:
            return []
        request = _Request(list(texts))
        with self._cond:
            self._pending.append(request)
            self._cond.notify_all()
        while True:
            with self._cond:
                while not request.done.is_set() and (
                    request.taken or self._leading >= self.leaders
                ):
                    self._cond.wait()
                if request.done.is_set():
                    return self._result(request)
                self._leading += 1  # our request is still waiting: we embed the next window
                window = self._gather(request)
            try:
                if window:
                    self._run(window)
            finally:
                for waiting in window:  # only if the call was interrupted (Ctrl-C)
                    if not waiting.done.is_set():
                        _finish(waiting, error=RuntimeError("embedding was interrupted"))
                with self._cond:
                    self._leading -= 1
                    self._taken -= len(window)
                    self._cond.notify_all()

    def _gather(self, own: _Request) -> list[_Request]:
        """Take a window of requests (holding the lock); none if the other window took ``own``."""
        deadline = time.monotonic() + self.linger
        # Files whose texts are in the other window's call cannot ask again before it ends.
        while (
            not own.taken
            and self._size() < self.window
            and len(self._pending) + self._taken < self._producers
        ):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._cond.wait(remaining)
        if own.taken:
            return []
        window = [self._pending.popleft()]
        size = len(window[0].texts)
        while self._pending and size + len(self._pending[0].texts) <= self.window:
            size += len(self._pending[0].texts)
            window.append(self._pending.popleft())
        for request in window:
            request.taken = True
        self._taken += len(window)
        self._cond.notify_all()  # a leader still gathering may have nothing left to wait for
        return window

    def _size(self) -> int:
        return sum(len(request.texts) for request in self._pending)

    def _run(self, window: list[_Request]) -> None:
        """Embed the window in one call; after a failure, each request on its own."""
        texts = [text for request in window for text in request.texts]
        try:
            vectors = self.embedder.embed(texts)
            self.calls += 1
        except Exception as exc:
            if len(window) == 1:
                _finish(window[0], error=exc)
                return
            for request in window:
                self._run([request])
            return
        start = 0
        for request in window:
            end = start + len(request.texts)
            _finish(request, vectors=vectors[start:end])
            start = end

    @staticmethod
    def _result(request: _Request) -> list[list[float]]:
        if request.error is not None:
            raise request.error
        assert request.vectors is not None
        return request.vectors


def _finish(
    request: _Request,
    *,
    vectors: list[list[float]] | None = None,
    error: BaseException | None = None,
) -> None:
    request.vectors, request.error = vectors, error
    request.done.set()
