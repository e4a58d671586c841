"""The real model adapter with each call counted, for the benchmarks that run a real server."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from models.llm import LLMError
from models.openai_chat import OpenAIChat
from models.protocols import Health, Message, Usage


class Tokenizer:
    """The server's own token counts (llama-cpp-python's ``/extras/tokenize``)."""

    def __init__(self, url: str) -> None:
        self.root = url.rstrip("/").removesuffix("/v1")
        self.works = True

    def count(self, messages: Sequence[Message]) -> int | None:
        return self.count_text("\n".join(m["content"] for m in messages))

    def count_text(self, text: str) -> int | None:
        if not self.works:
            return None
        try:
            reply = httpx.post(f"{self.root}/extras/tokenize", json={"input": text}, timeout=30)
            reply.raise_for_status()
            return len(reply.json()["tokens"])
        except (httpx.HTTPError, KeyError, ValueError):
            self.works = False
            return None


@dataclass(frozen=True)
class JsonCall:
    """One ``complete_json`` call: its seconds, whether a JSON object came back, and the way
    of asking for JSON the adapter settled on."""

    seconds: float
    parsed: bool
    mode: str


class CountedModel:
    """The real adapter, with each call counted, each JSON call timed (its failures kept)
    and the first piece of a stream timed."""

    def __init__(self, inner: OpenAIChat) -> None:
        self.inner = inner
        self.host, self.model = inner.host, inner.model
        self.calls: list[tuple[str, list[Message]]] = []
        """Each call's kind ("stream" or "json") and messages, in order."""
        self.json_failed: list[str] = []
        self.json_calls: list[JsonCall] = []
        self.first_piece_at: float | None = None
        """When the last stream's first non-blank piece came (``perf_counter``)."""
        self.prompt_tokens = 0
        self.answer_tokens = 0
        """The streams' tokens, summed: the server's usage chunk, or, from a server that
        sends none (llama-cpp-python's), its tokenizer over the messages and the answer."""
        self.tokens = Tokenizer(inner.host)

    @property
    def streams(self) -> int:
        return sum(kind == "stream" for kind, _ in self.calls)

    @property
    def json_ok(self) -> int:
        return sum(kind == "json" for kind, _ in self.calls) - len(self.json_failed)

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        self.calls.append(("stream", list(messages)))
        self.first_piece_at = None
        counted = usage if usage is not None else Usage()
        said: list[str] = []
        try:
            async for piece in self.inner.stream_chat(messages, counted):
                if self.first_piece_at is None and piece.strip():
                    self.first_piece_at = time.perf_counter()
                said.append(piece)
                yield piece
        finally:
            if counted.prompt_tokens is None:
                counted.prompt_tokens = self.tokens.count(messages)
                counted.answer_tokens = self.tokens.count_text("".join(said))
            self.prompt_tokens += counted.prompt_tokens or 0
            self.answer_tokens += counted.answer_tokens or 0

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        self.calls.append(("json", list(messages)))
        started = time.perf_counter()
        try:
            reply = await self.inner.complete_json(messages, schema, timeout=timeout)
        except LLMError as error:
            self.json_failed.append(str(error)[:160])
            self._timed(started, parsed=False)
            raise
        self._timed(started, parsed=True)
        return reply

    def _timed(self, started: float, *, parsed: bool) -> None:
        seconds = time.perf_counter() - started
        self.json_calls.append(JsonCall(seconds, parsed, self.inner.json_mode))

    async def health(self) -> Health:
        return await self.inner.health()

    @property
    def heard_at(self) -> float | None:
        return self.inner.heard_at

    def use(self, model: str) -> None:
        self.inner.use(model)
        self.model = model

    async def aclose(self) -> None:
        await self.inner.aclose()
