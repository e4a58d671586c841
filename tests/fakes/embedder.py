"""A deterministic embedder: bag of hashed words, so shared words mean nearby vectors."""

from __future__ import annotations

import hashlib
import math
import re
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
