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

from models import openai_words as words
from models.llm import LLMError, parse_json_object


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
                f"The model server at {url} stopped with an error: {words.said(data)}", host=url
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
