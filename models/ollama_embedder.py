"""Embeddings from an Ollama server (``/api/embed``) behind the ``Embedder`` protocol."""

from __future__ import annotations

import math
from collections.abc import Sequence

import ollama

from models.llm import DEFAULT_TIMEOUT, LLMError, client_timeout, ollama_errors


class OllamaEmbedder:
    """``Embedder`` that asks Ollama for vectors; synchronous, so run it in a worker thread.

    ``name`` (``ollama-<model>``) may hold ``:`` or ``/``, which a collection name may not.
    """

    def __init__(
        self,
        host: str,
        model: str = "nomic-embed-text",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        batch_size: int = 64,
    ) -> None:
        self.host = host
        self.model = model
        self.name = f"ollama-{model}"
        self.batch_size = batch_size
        self._client = ollama.Client(host=host, timeout=client_timeout(timeout))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order; batches of ``batch_size`` per request."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            with ollama_errors(self.host, self.model):
                response = self._client.embed(model=self.model, input=batch)
            if len(response.embeddings) != len(batch):
                raise LLMError(
                    f"Ollama at {self.host} returned {len(response.embeddings)} embeddings "
                    f"for {len(batch)} texts with '{self.model}'.",
                    host=self.host,
                )
            vectors.extend(l2_normalise(vector) for vector in response.embeddings)
        return vectors

    def close(self) -> None:
        """Close the underlying HTTP connections."""
        self._client.close()


def l2_normalise(vector: Sequence[float]) -> list[float]:
    """The vector scaled to unit length; a zero vector stays zero."""
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        return [0.0] * len(vector)
    return [v / norm for v in vector]
