"""What every OpenAI-compatible adapter shares: the typed errors, reading a server's
refusal, server-sent events, and JSON found in a reply's text.

The servers (LM Studio, llama.cpp's llama-server, vLLM, LocalAI, Jan) agree on the
endpoints but not on the details: each words its errors its own way, and not all of them
take every ``response_format``. So the adapters read what a server said before deciding
what it means.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx

from models.llm import LLMError, parse_json_object

SERVERS = "LM Studio's server (Developer → Start Server) or llama-server"
"""What a person most likely has to start, named in the error that says none answers."""


class ServerUnavailable(LLMError):
    """Nothing answers at the OpenAI-compatible server's URL."""

    def __init__(self, url: str) -> None:
        super().__init__(
            f"No model server answers at {url}. Start {SERVERS}, or set --llm-url.", host=url
        )


class ModelNotLoaded(LLMError):
    """The server answers but does not serve the model."""

    def __init__(self, url: str, model: str, loaded: Sequence[str] = ()) -> None:
        choices = f"choose one of: {', '.join(loaded)}" if loaded else "load another"
        super().__init__(
            f"The model '{model}' is not loaded in the server at {url}; load it, or {choices}.",
            host=url,
        )
        self.model = model


def said(text: str) -> str:
    """The message of an error body, however the server shaped it (OpenAI's
    ``{"error": {"message"}}``, vLLM's older ``{"message"}``, a bare string, plain text)."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()[:300]
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or json.dumps(error)
    return str(error)[:300]


def refusal(status: int, text: str, url: str, path: str) -> LLMError:
    """What a status of 400 and up means, for a person; a missing model is the caller's
    to name (it knows which models are loaded)."""
    message = said(text)
    if status in (401, 403):
        return LLMError(
            f"The model server at {url} refused Docent (HTTP {status}: {message}). "
            "Set DOCENT_LLM_API_KEY to the key it was started with.",
            host=url,
        )
    if status == 404:
        return LLMError(
            f"The server at {url} has no {path} (HTTP 404: {message}). Is it an "
            "OpenAI-compatible server? Its URL should be the base that ends in /v1.",
            host=url,
        )
    return LLMError(
        f"The model server at {url} answered with an error (HTTP {status}): {message}", host=url
    )


def says_model_missing(status: int, text: str) -> bool:
    # vLLM: "The model `x` does not exist."; LM Studio and OpenAI: "model ... not found" or
    # "does not exist"; a 404 for a wrong path names no model.
    words = said(text).lower()
    return status in (400, 404) and "model" in words and ("not" in words or "exist" in words)


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
    """The JSON of each ``data:`` line of a stream, until ``data: [DONE]`` or its end.

    The servers send one JSON document per ``data:`` line, so lines need no joining;
    comments (``:``) and blank separators are skipped. A server that fails mid-stream
    says so in a ``data: {"error": ...}`` line, raised here as an ``LLMError``.
    """
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise LLMError(
                f"The model server at {url} sent a stream Docent can't read: {data[:200]!r}",
                host=url,
            ) from exc
        if isinstance(chunk, dict) and chunk.get("error"):
            raise LLMError(
                f"The model server at {url} stopped with an error: {said(data)}", host=url
            )
        if isinstance(chunk, dict):
            yield chunk


_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def json_object_in(text: str, model: str, url: str) -> dict[str, Any]:
    """The JSON object a reply holds, as ``parse_json_object`` reads it, also when the
    model wrapped it (a server without ``response_format`` lets it): a ``<think>`` block
    first, a Markdown fence around it, or a sentence before or after it."""
    try:
        return parse_json_object(text, model, url)
    except LLMError as error:
        first = error
    text = _THINKING.sub("", text).strip()
    found = _FENCED.search(text)
    candidates = [found.group(1)] if found else []
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    for candidate in candidates:
        try:
            return parse_json_object(candidate, model, url)
        except LLMError:
            continue
    raise first
