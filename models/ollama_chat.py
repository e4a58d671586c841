"""Ollama chat adapter (`OllamaChat`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx
import ollama

from models.answer_end import AnswerWatch
from models.llm import (
    DEFAULT_TIMEOUT,
    HEALTH_TIMEOUT,
    NOT_ABOUT_JSON,
    LLMError,
    ModelNotFound,
    OllamaUnavailable,
    client_timeout,
    json_object_in,
    ollama_errors,
    same_model,
    to_llm_error,
)
from models.protocols import Health, Message, ModelInfo, PullProgress, Usage
from models.server_line import ServerLine

JSON_FORMATS = ("schema", "json", "text")
"""How ``complete_json`` asks Ollama for JSON, best first: the schema as ``format`` (Ollama
0.5+), ``format: "json"``, or nothing (JSON read out of the text). A refusal moves a call one
step down; the first that works is where later calls start."""


class OllamaChat:
    """``ChatModel`` over an Ollama server; its client is bound to the first loop that uses it."""

    def __init__(
        self,
        host: str,
        model: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        keep_alive: str | None = None,
        options: dict[str, Any] | None = None,
        num_ctx: int | None = None,
    ) -> None:
        self.host = host
        self.model = model
        self.keep_alive = keep_alive
        self.options = dict(options) if options else None
        if num_ctx is not None:
            # Ollama's own default (2,048 tokens) silently cuts long prompts from the front.
            self.options = {**(self.options or {}), "num_ctx": num_ctx}
        self._client = ollama.AsyncClient(host=host, timeout=client_timeout(timeout))
        self.line = ServerLine(side_by_side=True)
        """Every request goes through it; Ollama queues requests, so none waits here."""
        self._json_from = 0
        """Index in ``JSON_FORMATS`` of the first way of asking for JSON worth trying."""

    @property
    def heard_at(self) -> float | None:
        """``time.monotonic()`` when Ollama last answered a request in full."""
        return self.line.heard_at

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text pieces (no thinking); ``usage`` gets the final chunk's counts.

        A stream that ends before that chunk raises ``AnswerCutShort``, one with no text
        ``EmptyAnswer``."""
        watch = AnswerWatch(self.host, self.model)
        began = False
        async with self.line.turn():
            with ollama_errors(self.host, self.model):
                stream = await self._client.chat(
                    model=self.model,
                    messages=list(messages),
                    stream=True,
                    options=self.options,
                    keep_alive=self.keep_alive,
                )
                try:
                    async for chunk in stream:
                        began = True
                        if chunk.message.content:
                            watch.text(chunk.message.content)
                            yield chunk.message.content
                        if chunk.done:
                            watch.finish = chunk.done_reason or "stop"
                            if usage is not None:
                                usage.prompt_tokens = chunk.prompt_eval_count
                                usage.answer_tokens = chunk.eval_count
                except httpx.TransportError as exc:
                    if began and not isinstance(exc, httpx.TimeoutException):
                        raise watch.broke(exc) from exc
                    raise
                finally:
                    # Release the HTTP connection now, also when the caller stops early.
                    if isinstance(stream, AsyncGenerator):  # ollama's stream is one
                        await stream.aclose()
            watch.ended(usage)
            self.line.heard()

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Return one reply parsed as a JSON object, constrained by ``schema`` if given.

        Past ``timeout`` seconds an ``LLMError``: Ollama stops work on a request its client left.
        """
        try:
            async with asyncio.timeout(timeout), self.line.turn():
                return await self._json_reply(messages, schema)
        except TimeoutError as exc:
            raise LLMError(
                f"Ollama at {self.host} took longer than {timeout:g} s to answer with "
                f"'{self.model}'.",
                host=self.host,
            ) from exc

    async def _json_reply(
        self, messages: Sequence[Message], schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The reply's JSON object, asked for in the best way Ollama takes.

        When a step down brings no JSON either, the first refusal is raised."""
        forms = [f for f in JSON_FORMATS[self._json_from :] if schema or f != "schema"]
        refused: LLMError | None = None
        for form in forms:
            with ollama_errors(self.host, self.model):
                try:
                    response = await self._client.chat(
                        model=self.model,
                        messages=list(messages),
                        stream=False,
                        format=schema if form == "schema" else ("json" if form == "json" else None),
                        options=self.options,
                        keep_alive=self.keep_alive,
                    )
                except ollama.ResponseError as exc:
                    if exc.status_code in NOT_ABOUT_JSON:
                        raise
                    refused = refused or to_llm_error(exc, host=self.host, model=self.model)
                    if form == forms[-1]:
                        raise refused from exc
                    continue
            self.line.heard()
            try:
                found = json_object_in(response.message.content or "", self.model, self.host)
            except LLMError as error:
                if refused is not None:  # the server's words say more than a reply without JSON
                    raise refused from error
                raise
            self._json_from = JSON_FORMATS.index(form)
            return found
        raise AssertionError("unreachable: the last form raises")  # pragma: no cover

    async def health(self) -> Health:
        """Whether the host answers and has ``self.model``; never raises."""
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                with ollama_errors(self.host, self.model):
                    listing = await self._client.list()
        except TimeoutError:
            return Health(
                reachable=False,
                host=self.host,
                error=f"Ollama at {self.host} did not answer within {HEALTH_TIMEOUT:g} seconds.",
            )
        except OllamaUnavailable as exc:
            return Health(reachable=False, host=self.host, error=str(exc))
        except LLMError as exc:
            return Health(reachable=True, host=self.host, error=str(exc))
        except Exception as exc:  # a health check must not take the caller down
            return Health(
                reachable=False,
                host=self.host,
                error=f"Something answered at {self.host}, but not like Ollama: {exc}",
            )
        models = [m.model for m in listing.models if m.model]
        missing = not any(same_model(name, self.model) for name in models)
        error = str(ModelNotFound(self.host, self.model)) if missing else None
        return Health(reachable=True, host=self.host, models=models, error=error)

    async def describe_models(self) -> list[ModelInfo]:
        """Every installed model with its size and quantisation (``/api/tags``) and what it
        can do (``/api/show``'s ``capabilities``: 'completion' answers, 'embedding' embeds)."""
        with ollama_errors(self.host, self.model):
            listing = await self._client.list()
        names = [m.model for m in listing.models if m.model]

        async def capabilities(name: str) -> tuple[str, ...] | None:
            try:
                with ollama_errors(self.host, name):
                    shown = await self._client.show(name)
            except LLMError:  # an older Ollama, or a model half pulled: it doesn't say
                return None
            return tuple(shown.capabilities) if shown.capabilities is not None else None

        found = await asyncio.gather(*(capabilities(n) for n in names))
        out = []
        for entry, caps in zip((m for m in listing.models if m.model), found, strict=True):
            details = entry.details
            out.append(
                ModelInfo(
                    name=str(entry.model),
                    size=int(entry.size) if entry.size is not None else None,
                    parameters=details.parameter_size if details else None,
                    quantization=details.quantization_level if details else None,
                    capabilities=caps,
                )
            )
        return out

    async def pull(self, model: str) -> AsyncIterator[PullProgress]:
        """Download ``model`` into Ollama, yielding its progress as Ollama streams it."""
        with ollama_errors(self.host, model):
            stream = await self._client.pull(model, stream=True)
            async for step in stream:
                yield PullProgress(step.status or "", step.completed, step.total)

    def use(self, model: str) -> None:
        """Answer with ``model`` from the next call on."""
        self.model = model

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self.line.aclose()
        await self._client.close()
