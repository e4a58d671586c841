"""A deterministic embedder: bag of hashed words, so shared words mean nearby vectors."""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Sequence

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Implements ``models.protocols.Embedder`` without any model weights."""

    shared_batches = True
    """Like MiniLM: a call costs what its texts cost, so files may share one."""

    def __init__(self, dim: int = 64, name: str = "fake-embedder") -> None:
        self.dim = dim
        self.name = name
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._vector(text) for text in texts]

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vec[int.from_bytes(digest, "big") % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]


class GatedEmbedder(FakeEmbedder):
    """A ``FakeEmbedder`` whose calls can be held and let through one at a time, so a test
    can watch a document while it is being indexed (the pipeline embeds batch by batch)."""

    def __init__(self, dim: int = 64, name: str = "fake-embedder") -> None:
        super().__init__(dim, name)
        self._gate = threading.Semaphore(0)
        self._held = False
        self._changed = threading.Condition()
        self.waiting = 0
        """Calls blocked at the gate now."""

    def hold(self) -> None:
        """From now on each call waits for a ``release``."""
        self._held = True

    def release(self, calls: int = 1) -> None:
        """Let ``calls`` held calls through."""
        for _ in range(calls):
            self._gate.release()

    def open(self) -> None:
        """Stop holding: every waiting call goes through, and later ones don't wait."""
        self._held = False

    def wait_until_waiting(self, calls: int, timeout: float = 5) -> bool:
        """Block until ``calls`` calls are held at the gate; False if they never are."""
        with self._changed:
            return self._changed.wait_for(lambda: self.waiting >= calls, timeout)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._held:
            with self._changed:
                self.waiting += 1
                self._changed.notify_all()
            try:
                while self._held and not self._gate.acquire(timeout=0.05):
                    pass
            finally:
                with self._changed:
                    self.waiting -= 1
                    self._changed.notify_all()
        return super().embed(texts)
