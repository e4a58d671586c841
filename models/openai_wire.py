"""What every OpenAI-compatible adapter shares: JSON modes, typed errors, refusals, SSE.

The servers agree on the endpoints but word their errors their own way and differ in which
``response_format`` they take, so the adapters read what a server said before acting on it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
from httpx_sse import EventSource, SSEError

from models import openai_words as words
from models.llm import LLMError

JSON_MODES = ("json_schema", "json_object+schema", "json_object", "text")
"""How ``complete_json`` asks for JSON, best first. ``json_schema`` constrains the reply
to the schema (vLLM, llama-server, LM Studio, Ollama's /v1); ``json_object`` with the
schema beside it constrains it too where the server reads that (llama-cpp-python's server,
which answers ``json_schema`` with a 500; llama-server); bare ``json_object`` only to JSON
(LM Studio refuses it with a 400); "text" asks nothing and reads the JSON out of the reply.
Any refusal moves a call one step down; the first that works is where later calls start."""


class ServerUnavailable(LLMError):
    """Nothing answers at the OpenAI-compatible server's URL."""

    def __init__(self, url: str) -> None:
        super().__init__(words.server_down(url), host=url)


class ModelNotLoaded(LLMError):
    """The server answers but does not serve the model."""

    def __init__(self, url: str, model: str, loaded: Sequence[str] = ()) -> None:
        super().__init__(words.model_not_loaded(url, model, loaded), host=url)
        self.model = model


def refusal(status: int, text: str, url: str, path: str) -> LLMError:
    """What a status of 400 and up means, for a person; a missing model is the caller's
    to name (it knows which models are loaded)."""
    return LLMError(words.refusal(status, text, url, path), host=url)


MISSING = ("not found", "does not exist", "not loaded", "no models loaded")


def says_model_missing(status: int, text: str) -> bool:
    # vLLM: "The model `x` does not exist."; OpenAI: "... does not exist or you do not have
    # access to it"; LM Studio: "model ... not found", "No models loaded". A 404 for a wrong
    # path names no model; a 400 about the context names the model but no absence.
    said = words.said(text).lower()
    return status in (400, 404) and "model" in said and any(m in said for m in MISSING)


def transport_error(exc: httpx.TransportError, url: str, model: str) -> LLMError:
    """A failed connection or read, for a person."""
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        # Connected, then silence: the server is up but busy or slow; starting it is no fix.
        return LLMError(
            f"The model server at {url} took too long to answer with '{model}'. "
            "Try again, use a smaller model, or raise the timeout.",
            host=url,
        )
    return ServerUnavailable(url)


@contextmanager
def wire_errors(url: str, model: str) -> Iterator[None]:
    """Re-raise httpx's transport errors inside the block as typed ``LLMError``s."""
    try:
        yield
    except httpx.TransportError as exc:
        raise transport_error(exc, url, model) from exc


async def server_events(response: httpx.Response, url: str) -> AsyncIterator[dict[str, Any]]:
    """The JSON of each event of a stream, until ``data: [DONE]`` or its end; a mid-stream
    ``{"error": ...}`` event, or a reply that is no event stream, is raised as an ``LLMError``."""
    try:
        async for event in EventSource(response).aiter_sse():
            if event.data == "[DONE]":
                return
            try:
                chunk = json.loads(event.data)
            except ValueError as exc:
                raise LLMError(
                    f"The model server at {url} sent a stream Docent can't read: "
                    f"{event.data[:200]!r}",
                    host=url,
                ) from exc
            if isinstance(chunk, dict) and chunk.get("error"):
                raise LLMError(
                    f"The model server at {url} stopped with an error: {words.said(event.data)}",
                    host=url,
                )
            if isinstance(chunk, dict):
                yield chunk
    except SSEError as exc:
        raise LLMError(
            f"The model server at {url} answered a streamed chat without a stream ({exc}). "
            "Check that the URL is an OpenAI-compatible server's /v1.",
            host=url,
        ) from exc


def response_format(mode: str, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``response_format`` of one of ``JSON_MODES``."""
    if mode == "json_schema":
        # A schema-less call still wants an object; `strict` is left out, as OpenAI's
        # strict mode demands schema features the others don't check.
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema or {"type": "object"}},
        }
    if mode == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    return None
