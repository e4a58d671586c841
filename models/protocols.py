"""The small protocols every model adapter implements; fakes implement them too."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""


@dataclass(frozen=True)
class Health:
    """What an LLM host says about itself."""

    reachable: bool
    host: str
    models: list[str] = field(default_factory=list)
    error: str | None = None
    api: Literal["ollama", "openai"] = "ollama"
    """The protocol the host speaks: Ollama's own, or the OpenAI API (LM Studio, vLLM...)."""


@dataclass
class Usage:
    """What one streamed reply cost, filled in by the model when the stream ends."""

    prompt_tokens: int | None = None
    answer_tokens: int | None = None
    hit_limit: bool = False
    """The reply stopped at the token cap (finish reason 'length'), not where the model
    meant to end it."""


@runtime_checkable
class ChatModel(Protocol):
    """A chat LLM that can stream tokens and answer in JSON."""

    host: str
    model: str

    def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text pieces as they arrive; fill ``usage`` at the end.

        A stream cut short, or one with no text, raises an ``LLMError`` that says so."""
        ...

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Return one reply parsed as a JSON object (Ollama ``format``).

        Past ``timeout`` seconds, counted from the request's turn, it raises ``LLMError``. An
        adapter may wait on where giving up frees nothing (a one-at-a-time server goes on with
        a request given up on, holding the next one back all the same).
        """
        ...

    async def health(self) -> Health:
        """Whether the host answers, and which models it has."""
        ...

    def use(self, model: str) -> None:
        """Answer with ``model`` from the next call on (the window's model menu)."""
        ...

    async def aclose(self) -> None:
        """Let go of the connections to the host."""
        ...


@runtime_checkable
class HearsFromServer(Protocol):
    """A chat model that knows when its server last answered in full (a health reading)."""

    @property
    def heard_at(self) -> float | None:
        """``time.monotonic()`` of the server's last whole answer; None before the first."""
        ...


@dataclass(frozen=True)
class PullProgress:
    """One step of downloading a model: what the host is doing and, while downloading, how far."""

    status: str
    completed: int | None = None
    total: int | None = None

    @property
    def fraction(self) -> float | None:
        """Share of the current layer downloaded (0..1), when the host says."""
        if not self.total or self.completed is None:
            return None
        return min(1.0, self.completed / self.total)


@dataclass(frozen=True)
class ModelInfo:
    """One model a host has, as its model menu shows it."""

    name: str
    size: int | None = None
    """Bytes on disk."""
    parameters: str | None = None
    """'3.2B'."""
    quantization: str | None = None
    """'Q4_K_M'."""
    capabilities: tuple[str, ...] | None = None
    """What the host says the model can do ('completion', 'embedding', 'vision', 'tools');
    None when it does not say."""


@runtime_checkable
class DescribesModels(Protocol):
    """A host that tells each model's size, quantisation and capabilities (Ollama does)."""

    async def describe_models(self) -> list[ModelInfo]:
        """Every installed model; LLMError if the host can't be asked."""
        ...


@runtime_checkable
class PullsModels(Protocol):
    """A chat model's host that can download models (Ollama can; most servers can't)."""

    def pull(self, model: str) -> AsyncIterator[PullProgress]:
        """Download ``model``, yielding progress; LLMError if the host refuses."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. Synchronous: callers run it in a worker thread."""

    name: str
    """Stable id of the model; one Chroma collection per name."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order."""
        ...


@runtime_checkable
class SharesBatches(Protocol):
    """An embedder that says whether texts from several files may share one call."""

    shared_batches: bool
    """True when a call costs what its texts cost (none holds the others up) and one call
    already keeps every core it may use busy."""


@runtime_checkable
class Reranker(Protocol):
    """Scores passages against a query; higher is more relevant."""

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in the passages' order."""
        ...

    @property
    def problem(self) -> str | None:
        """Why it can't rerank now (its model is missing), or None when it can."""
        ...
