"""OpenAI-compatible chat adapter (`OpenAIChat`): LM Studio, llama-server, vLLM, LocalAI, Jan,
llama-cpp-python's server.

Over httpx, not the ``openai`` package: two endpoints, and each server's own refusal must be
read to decide what to retry without; the package adds ~1 s of imports and retries on its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from models import openai_words as words
from models.answer_end import AnswerWatch
from models.llm import (
    DEFAULT_TIMEOUT,
    HEALTH_TIMEOUT,
    NOT_ABOUT_JSON,
    LLMError,
    client_timeout,
    json_object_in,
)
from models.openai_health import ModelListing
from models.openai_wire import (
    JSON_MODES,
    ModelNotLoaded,
    refusal,
    response_format,
    says_model_missing,
    server_events,
    transport_error,
    wire_errors,
)
from models.protocols import Health, Message, Usage
from models.server_line import ServerLine

OPTIONAL_FIELDS = ("stream_options",)
"""Fields a server may refuse (with a 400 naming them) that the reply can do without: the
stream's token counts come from ``stream_options``."""


class OpenAIChat:
    """``ChatModel`` over a server's OpenAI chat-completions API; ``url`` ends in ``/v1``.

    The server decides the context size (llama-server ``-c``, LM Studio's load settings), so
    Docent fits its prompts to its own ``context_tokens`` and caps replies at ``max_tokens``.
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_tokens: int | None = None,
        api_key: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """``options``: sampling fields sent with every request (``{"temperature": 0}``)."""
        self.host = url.rstrip("/")
        self.model = model
        self.max_tokens = max_tokens
        self.options = dict(options or {})
        self._json_from = 0
        """Index in ``JSON_MODES`` of the first way of asking for JSON worth trying."""
        self._refused: set[str] = set()
        self.line = ServerLine()
        """Every request to the server goes through it (models/server_line.py)."""
        self.listing = ModelListing(self.host, self.line)
        """What the server's ``/models`` said last, and the health it shows."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = httpx.AsyncClient(
            base_url=self.host, timeout=client_timeout(timeout), headers=headers
        )

    @property
    def heard_at(self) -> float | None:
        """``time.monotonic()`` when the server last answered a request in full."""
        return self.line.heard_at

    @property
    def json_mode(self) -> str:
        """The ``JSON_MODES`` entry the next call tries first: the one that last worked."""
        return JSON_MODES[self._json_from]

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text pieces (no reasoning); ``usage`` gets the token counts.

        A stream that ends before its finish reason raises ``AnswerCutShort``, one with no
        text ``EmptyAnswer``; one that stopped at ``max_tokens`` sets ``usage.hit_limit``."""
        body = self._body(messages, stream=True)
        body["stream_options"] = {"include_usage": True}
        watch = AnswerWatch(self.host, self.model)
        async with self.line.turn():
            with wire_errors(self.host, self.model):
                response = await self._post(body)
            try:
                async for chunk in server_events(response, self.host):
                    for choice in chunk.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content")
                        if text:
                            watch.text(text)
                            yield text
                        if choice.get("finish_reason"):
                            watch.finish = str(choice["finish_reason"])
                    counts = chunk.get("usage")
                    if counts and usage is not None:
                        usage.prompt_tokens = counts.get("prompt_tokens")
                        usage.answer_tokens = counts.get("completion_tokens")
            except httpx.TimeoutException as exc:
                raise transport_error(exc, self.host, self.model) from exc
            except httpx.TransportError as exc:
                raise watch.broke(exc) from exc
            finally:
                # Release the connection now, also when the caller stops early.
                await response.aclose()
            watch.ended(usage)
            self.line.heard()

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One reply parsed as a JSON object, constrained by ``schema`` where the server can.

        ``timeout`` holds only on a server that takes requests side by side. A one-at-a-time
        server goes on with a reply given up on and the next request waits for it anyway, so
        there the call waits (a 1.5B model on CPU took 20-40 s for a rewrite, past 20 s)."""
        limit = timeout if self.line.side_by_side else None
        async with self.line.turn() as handover:
            asking = asyncio.ensure_future(self._json_reply(messages, schema))
            try:
                async with asyncio.timeout(limit):
                    return await asyncio.shield(asking)
            except BaseException as exc:
                if self.line.side_by_side:
                    asking.cancel()
                else:
                    handover.leave(asking)
                if isinstance(exc, TimeoutError):
                    raise LLMError(
                        f"The model server at {self.host} took longer than {timeout:g} s "
                        f"to answer with '{self.model}'.",
                        host=self.host,
                    ) from exc
                raise

    async def health(self) -> Health:
        """Whether the server answers and lists ``self.model``; never raises.

        While a request is in flight to a one-at-a-time server nothing is sent: the last
        listing stands."""
        return await self.listing.check(self._client, self.model)

    def use(self, model: str) -> None:
        """Answer with ``model`` from the next call on."""
        self.model = model

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self.line.aclose()
        await self._client.aclose()

    # -- the wire ----------------------------------------------------------------------

    def _body(self, messages: Sequence[Message], *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            **self.options,
            "model": self.model,
            "messages": list(messages),
            "stream": stream,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    async def _json_reply(
        self, messages: Sequence[Message], schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The reply's JSON object, asked for in the best way the server takes.

        When a step down brings no JSON either, the first refusal is raised."""
        body = self._body(messages, stream=False)
        modes = [m for m in JSON_MODES[self._json_from :] if schema or m != "json_object+schema"]
        refused: LLMError | None = None
        for mode in modes:
            body["response_format"] = response_format(mode, schema)
            with wire_errors(self.host, self.model):
                response = await self._post(body, refusals=True)
                try:
                    raw = await response.aread()
                finally:
                    await response.aclose()
            if response.status_code >= 400:
                error = await self._error(response.status_code, raw.decode("utf-8", "replace"))
                if response.status_code in NOT_ABOUT_JSON or mode == modes[-1]:
                    raise refused or error
                refused = refused or error
                continue
            self.line.heard()
            try:
                content = str(json.loads(raw)["choices"][0]["message"]["content"] or "")
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise LLMError(
                    f"The model server at {self.host} answered in a shape Docent can't "
                    f"read: {raw[:200]!r}",
                    host=self.host,
                ) from exc
            try:
                found = json_object_in(content, self.model, self.host)
            except LLMError as error:
                if refused is not None:  # the server's words say more than a reply without JSON
                    raise refused from error
                raise
            self._json_from = JSON_MODES.index(mode)
            return found
        raise AssertionError("unreachable: the last mode raises")  # pragma: no cover

    async def _post(self, body: dict[str, Any], *, refusals: bool = False) -> httpx.Response:
        """POST a chat completion, dropping optional fields the server refuses; the streamed
        200 response, else an ``LLMError`` (with ``refusals``, the refusal response)."""
        while True:
            body = {k: v for k, v in body.items() if v is not None and k not in self._refused}
            request = self._client.build_request("POST", "/chat/completions", json=body)
            response = await self._client.send(request, stream=True)
            if response.status_code < 400:
                return response
            try:
                raw = await response.aread()
            finally:
                await response.aclose()
            text = raw.decode("utf-8", "replace")
            if self._give_up_what_was_refused(body, response.status_code, text):
                continue
            if refusals:
                return response
            raise await self._error(response.status_code, text)

    def _give_up_what_was_refused(self, body: dict[str, Any], status: int, text: str) -> bool:
        """Leave out for good an optional field of ``body`` the server's 400 names."""
        if status not in (400, 422):
            return False
        said = words.said(text).lower()
        for name in OPTIONAL_FIELDS:
            if name in body and name in said:
                self._refused.add(name)
                return True
        return False

    async def _error(self, status: int, text: str) -> LLMError:
        if says_model_missing(status, text):
            loaded = self.listing.models or []
            try:  # which models it has now, for the message; the line is already ours
                listing = await self._client.get("/models", timeout=HEALTH_TIMEOUT)
                loaded = [str(card["id"]) for card in listing.json()["data"]]
            except (httpx.HTTPError, ValueError, KeyError, TypeError):
                pass
            return ModelNotLoaded(self.host, self.model, loaded)
        return refusal(status, text, self.host, "/chat/completions")
