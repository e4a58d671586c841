"""Embeddings from an OpenAI-compatible server (``/v1/embeddings``) behind ``Embedder``."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from models.llm import DEFAULT_TIMEOUT, LLMError, client_timeout
from models.ollama_embedder import l2_normalise
from models.openai_wire import ModelNotLoaded, refusal, says_model_missing, wire_errors


class OpenAIEmbedder:
    """``Embedder`` over an OpenAI-compatible server's ``/embeddings``; synchronous, so run it
    in a worker thread. ``name`` is ``openai-<model>``, the model as the server spells it."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        batch_size: int = 64,
        api_key: str | None = None,
    ) -> None:
        self.host = url.rstrip("/")
        self.model = model
        self.name = f"openai-{model}"
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = httpx.Client(
            base_url=self.host, timeout=client_timeout(timeout), headers=headers
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order; batches of ``batch_size`` per request."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            with wire_errors(self.host, self.model):
                response = self._client.post(
                    "/embeddings", json={"model": self.model, "input": batch}
                )
                if response.status_code >= 400:
                    raise self._refused(response)
            try:
                # The servers answer in order, but the API promises only each item's index.
                data = sorted(response.json()["data"], key=lambda item: item["index"])
                found = [l2_normalise(item["embedding"]) for item in data]
            except (ValueError, KeyError, TypeError) as exc:
                raise LLMError(
                    f"The model server at {self.host} answered /embeddings in a shape Docent "
                    f"can't read: {response.text[:200]!r}",
                    host=self.host,
                ) from exc
            if len(found) != len(batch):
                raise LLMError(
                    f"The model server at {self.host} returned {len(found)} embeddings "
                    f"for {len(batch)} texts with '{self.model}'.",
                    host=self.host,
                )
            vectors.extend(found)
        return vectors

    def close(self) -> None:
        """Close the underlying HTTP connections."""
        self._client.close()

    def _refused(self, response: httpx.Response) -> LLMError:
        if not says_model_missing(response.status_code, response.text):
            return refusal(response.status_code, response.text, self.host, "/embeddings")
        try:
            listed = [str(card["id"]) for card in self._client.get("/models").json()["data"]]
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            listed = []  # the message still says what is missing
        return ModelNotLoaded(self.host, self.model, listed)
