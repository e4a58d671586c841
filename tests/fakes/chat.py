"""An in-process ``ChatModel`` with scripted replies, for tests that need no HTTP."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from models.llm import LLMError, OllamaUnavailable, parse_json_object
from models.protocols import Health, Message, Usage
from tests.fakes.ollama_server import split_tokens


@dataclass
class _Failure:
    error: Exception
    after: str


class FakeChatModel:
    """Implements ``models.protocols.ChatModel``; replies are served first in, first out.

    ``stream_chat`` and ``complete_json`` share one queue. With nothing queued the reply
    is ``default_reply`` if set, else it echoes the last user message (``Echo: ...`` as
    text, ``{"echo": "..."}`` as JSON).
    """

    def __init__(
        self,
        host: str = "http://fake-ollama:11434",
        model: str = "fake-chat",
        *,
        default_reply: str | None = None,
        token_delay: float = 0.0,
    ) -> None:
        self.host = host
        self.model = model
        self.default_reply = default_reply
        self.token_delay = token_delay
        """Seconds between streamed pieces; 0 still yields to the event loop."""
        self.reachable = True
        """Set to False and every call raises ``OllamaUnavailable``, as if Ollama were down."""
        self.history: list[list[Message]] = []
        """The messages of every call, in order."""
        self.schemas: list[dict[str, Any] | None] = []
        """The ``schema`` of every ``complete_json`` call, in order."""
        self.json_delay = 0.0
        """Seconds every ``complete_json`` call takes (to exercise callers' timeouts)."""
        self.responder: Callable[[Sequence[Message], dict[str, Any] | None], str | None] | None
        self.responder = None
        """Picks a reply from the call's messages and JSON schema (None for streamed calls)
        before the queue is used; returning None falls through to the queue. Lets a test
        answer by the kind of call (rewrite, suggestions) and keep the queue for answers,
        as ``FakeOllamaServer.responder`` does."""
        self.health_failure: Exception | None = None
        """Raised by the next ``health`` call, once: a fault on Docent's side of the call."""
        self.midway_gate: asyncio.Event | None = None
        """When set, a streamed reply yields its first piece, then waits for this event
        before the rest (holds an answer mid-way, for as long as a test needs)."""
        self.json_gate: asyncio.Event | None = None
        """When set, ``complete_json`` calls whose schema has ``gated_property`` wait for
        this event before replying (e.g. hold the follow-up suggestions only)."""
        self.gated_property = "suggestions"
        self.stream_gate: asyncio.Semaphore | None = None
        """When set, every ``stream_chat`` call takes one of its permits before replying: a
        test lets calls through one ``release()`` at a time (to Stop long work mid-way)."""
        self.waiting = 0
        """``stream_chat`` calls now waiting at ``stream_gate``."""
        self.tokens_allowed: int | None = None
        """The per-token gate, as ``FakeOllamaServer``'s: None lets pieces stream freely; a
        number is how many more may be yielded before the next waits (``hold_tokens``,
        ``release_tokens``)."""
        self.tokens_sent = 0
        """Streamed pieces yielded so far, all replies together."""
        self._more_tokens = asyncio.Event()
        self._replies: deque[str | _Failure] = deque()

    def enqueue(self, *replies: str) -> None:
        """Queue text replies for the next calls."""
        self._replies.extend(replies)

    def enqueue_json(self, obj: Any) -> None:
        """Queue a reply that is ``obj`` as JSON (for ``complete_json``)."""
        self._replies.append(json.dumps(obj))

    def enqueue_error(self, error: Exception, *, after: str = "") -> None:
        """Make the next call raise ``error``; a streamed call first yields ``after``'s words."""
        self._replies.append(_Failure(error, after))

    def hold_tokens(self, allowed: int = 0) -> None:
        """From now on each streamed piece waits at the gate; ``allowed`` pass first. A test
        holds an answer at a known piece for as long as it needs, then releases it."""
        self.tokens_allowed = allowed

    def release_tokens(self, count: int | None = None) -> None:
        """Let ``count`` more streamed pieces through, or open the gate (None)."""
        if count is None or self.tokens_allowed is None:
            self.tokens_allowed = None
        else:
            self.tokens_allowed += count
        self._more_tokens.set()

    async def _pass_token(self) -> None:
        while self.tokens_allowed == 0:
            self._more_tokens.clear()
            await self._more_tokens.wait()
        if self.tokens_allowed is not None:
            self.tokens_allowed -= 1
        self.tokens_sent += 1

    def use(self, model: str) -> None:
        """Answer as ``model`` from the next call on."""
        self.model = model

    async def aclose(self) -> None:
        """Nothing to let go of."""

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the next reply word by word; ``usage`` counts words, as tokens."""
        if self.stream_gate is not None:
            self.waiting += 1
            try:
                await self.stream_gate.acquire()
            finally:
                self.waiting -= 1
        reply = self._take(messages, json_mode=False, schema=None)
        text = reply.after if isinstance(reply, _Failure) else reply
        pieces = split_tokens(text)
        for index, piece in enumerate(pieces):
            await asyncio.sleep(self.token_delay if index else 0)
            if index == 1 and self.midway_gate is not None:
                await self.midway_gate.wait()
            await self._pass_token()
            yield piece
        if isinstance(reply, _Failure):
            raise reply.error
        if usage is not None:
            usage.prompt_tokens = sum(len(m["content"].split()) for m in messages)
            usage.answer_tokens = len(pieces)

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Return the next reply parsed as a JSON object."""
        self.schemas.append(schema)
        if self.json_gate is not None and self.gated_property in (schema or {}).get(
            "properties", {}
        ):
            await self.json_gate.wait()
        reply = self._take(messages, json_mode=True, schema=schema)
        if timeout is not None and self.json_delay > timeout:
            raise LLMError(f"{self.host} took longer than {timeout:g} s", host=self.host)
        await asyncio.sleep(self.json_delay)
        if isinstance(reply, _Failure):
            raise reply.error
        return parse_json_object(reply, self.model, self.host)

    async def health(self) -> Health:
        """Reachable with ``[model]`` unless ``reachable`` is False."""
        if self.health_failure is not None:
            failure, self.health_failure = self.health_failure, None
            raise failure
        if not self.reachable:
            return Health(False, self.host, error=str(OllamaUnavailable(self.host)))
        return Health(True, self.host, models=[self.model])

    def _take(
        self, messages: Sequence[Message], *, json_mode: bool, schema: dict[str, Any] | None
    ) -> str | _Failure:
        self.history.append([dict(m) for m in messages])
        if not self.reachable:
            raise OllamaUnavailable(self.host)
        if self.responder is not None and (text := self.responder(messages, schema)) is not None:
            return text
        if self._replies:
            return self._replies.popleft()
        if self.default_reply is not None:
            return self.default_reply
        last_user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        return json.dumps({"echo": last_user}) if json_mode else f"Echo: {last_user}"
