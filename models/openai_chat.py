"""OpenAI-compatible chat adapter (`OpenAIChat`): LM Studio, llama-server, vLLM, LocalAI, Jan.

Written over httpx rather than the ``openai`` package: Docent uses two endpoints here
(``/models`` and ``/chat/completions``), whose stream is a dozen lines to read, and it has
to read each server's own refusal to decide what to retry without (see ``JSON_MODES``).
The package would add about a second of imports to every start-up and retry on its own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from models import openai_words as words
from models.llm import DEFAULT_TIMEOUT, HEALTH_TIMEOUT, LLMError, client_timeout, same_model
from models.openai_wire import (
    ModelNotLoaded,
    ServerUnavailable,
    json_object_in,
    refusal,
    says_model_missing,
    server_events,
    wire_errors,
)
from models.protocols import Health, Message, Usage

JSON_MODES = ("json_schema", "json_object", None)
"""How ``complete_json`` asks for JSON, best first. ``json_schema`` constrains the reply
to the schema (vLLM, llama-server, LM Studio, Ollama's /v1); ``json_object`` only to
JSON (LM Studio refuses it); None asks nothing and reads the JSON out of the text. A
server's 400 naming ``response_format`` moves the adapter one step down, for good."""

OPTIONAL_FIELDS = ("stream_options",)
"""Fields a server may refuse (with a 400 naming them) that the reply can do without: the
stream's token counts come from ``stream_options``."""


class OpenAIChat:
    """``ChatModel`` backed by any server that speaks the OpenAI chat-completions API.

    ``url`` is the server's base, ending in ``/v1``. Building one makes no network call;
    ``health()`` says whether the server answers. The server decides the context size
    (llama-server ``-c``, LM Studio's load settings): Docent fits its prompts to its own
    ``context_tokens`` and caps each reply at ``max_tokens``.
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_tokens: int | None = None,
        api_key: str | None = None,
    ) -> None:
        self.host = url.rstrip("/")
        self.model = model
        self.max_tokens = max_tokens
        self._json_modes = list(JSON_MODES)
        self._refused: set[str] = set()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = httpx.AsyncClient(
            base_url=self.host, timeout=client_timeout(timeout), headers=headers
        )

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text pieces as the server streams them (reasoning is left
        out); ``usage`` gets the token counts of the stream's last chunk, when sent."""
        body = self._body(messages, stream=True)
        body["stream_options"] = {"include_usage": True}
        with wire_errors(self.host, self.model):
            response = await self._post(body)
            try:
                async for chunk in server_events(response, self.host):
                    for choice in chunk.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content")
                        if text:
                            yield text
                    counts = chunk.get("usage")
                    if counts and usage is not None:
                        usage.prompt_tokens = counts.get("prompt_tokens")
                        usage.answer_tokens = counts.get("completion_tokens")
            finally:
                # Release the connection now, also when the caller stops early.
                await response.aclose()

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One reply parsed as a JSON object, constrained by ``schema`` where the server
        can; past ``timeout`` seconds (if given) an ``LLMError``."""
        body = self._body(messages, stream=False)
        try:
            async with asyncio.timeout(timeout):
                with wire_errors(self.host, self.model):
                    response = await self._post(body, json_reply=True, schema=schema)
                    try:
                        raw = await response.aread()
                    finally:
                        await response.aclose()
        except TimeoutError as exc:
            raise LLMError(
                f"The model server at {self.host} took longer than {timeout:g} s to answer "
                f"with '{self.model}'.",
                host=self.host,
            ) from exc
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                f"The model server at {self.host} answered in a shape Docent can't read: "
                f"{raw[:200]!r}",
                host=self.host,
            ) from exc
        return json_object_in(content, self.model, self.host)

    async def health(self) -> Health:
        """Whether the server answers and which models it lists; never raises.

        ``error`` is also set when it answers but does not list ``self.model``.
        """
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                with wire_errors(self.host, self.model):
                    response = await self._client.get("/models")
        except TimeoutError:
            return self._health(False, error=words.too_slow(self.host, HEALTH_TIMEOUT))
        except ServerUnavailable as exc:
            return self._health(False, error=str(exc))
        except LLMError as exc:  # connected, then too slow
            return self._health(True, error=str(exc))
        if response.status_code >= 400:
            refused = refusal(response.status_code, response.text, self.host, "/models")
            return self._health(True, error=str(refused))
        try:
            models = [str(card["id"]) for card in response.json()["data"]]
        except (ValueError, KeyError, TypeError) as exc:
            return self._health(False, error=words.not_openai(self.host, exc))
        if any(same_model(name, self.model) for name in models):
            return self._health(True, models=models)
        missing = ModelNotLoaded(self.host, self.model, models)
        return self._health(True, models=models, error=str(missing))

    def use(self, model: str) -> None:
        """Answer with ``model`` from the next call on."""
        self.model = model

    async def aclose(self) -> None:
        """Close the underlying HTTP connections."""
        await self._client.aclose()

    # -- the wire ----------------------------------------------------------------------

    def _body(self, messages: Sequence[Message], *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), "stream": stream}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def _response_format(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        mode = self._json_modes[0]
        if mode == "json_schema":
            # A schema-less call still wants an object; `strict` is left out, as OpenAI's
            # strict mode demands schema features the others don't check.
            return {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema or {"type": "object"}},
            }
        return {"type": mode} if mode else None

    async def _post(
        self,
        body: dict[str, Any],
        *,
        json_reply: bool = False,
        schema: dict[str, Any] | None = None,
    ) -> httpx.Response:
        """POST a chat completion and return its (streamed) response once it is a 200,
        leaving out what the server refuses; an ``LLMError`` saying what went wrong else.

        ``json_reply`` asks for JSON (``schema`` if given) as well as the server can."""
        while True:
            if json_reply:
                body["response_format"] = self._response_format(schema)
            body = {k: v for k, v in body.items() if v is not None and k not in self._refused}
            request = self._client.build_request("POST", "/chat/completions", json=body)
            response = await self._client.send(request, stream=True)
            if response.status_code < 400:
                return response
            try:
                text = (await response.aread()).decode("utf-8", "replace")
            finally:
                await response.aclose()
            if not self._give_up_what_was_refused(body, response.status_code, text):
                raise await self._error(response.status_code, text)

    def _give_up_what_was_refused(self, body: dict[str, Any], status: int, text: str) -> bool:
        """Step down from a field of ``body`` the server's 400 names; False if none."""
        if status not in (400, 422):
            return False
        said = words.said(text).lower()
        if "response_format" in body and any(
            name in said for name in ("response_format", "json_schema", "json_object")
        ):
            self._json_modes.pop(0)  # never past None: None sends no response_format
            return True
        for name in OPTIONAL_FIELDS:
            if name in body and name in said:
                self._refused.add(name)
                return True
        return False

    async def _error(self, status: int, text: str) -> LLMError:
        if says_model_missing(status, text):
            health = await self.health()  # which models it has, for the message
            return ModelNotLoaded(self.host, self.model, health.models)
        return refusal(status, text, self.host, "/chat/completions")

    def _health(
        self, reachable: bool, *, models: list[str] | None = None, error: str | None = None
    ) -> Health:
        return Health(reachable, self.host, models or [], error, api="openai")
