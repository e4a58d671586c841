"""What the chat adapters share (``LLMError``, timeouts, JSON out of a reply) and the typed
errors of the Ollama adapters."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import ollama

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a TCP connection: a host that is down should be reported quickly."""

DEFAULT_TIMEOUT = 300.0
"""Seconds to wait for data once connected: loading a large model on CPU can take minutes."""

HEALTH_TIMEOUT = 5.0
"""Seconds a health check may take in total."""

NOT_ABOUT_JSON = (401, 403, 404, 408, 429, 503)
"""Refusals of a JSON request that asking for JSON another way would not change: the
key, the path or the model, a server busy or still loading. Any other refusal (a 400, or
llama-cpp-python's 500 for a ``json_schema``) moves the request to the next way."""

OLLAMA_ERRORS = (ollama.ResponseError, ConnectionError, httpx.TransportError)
"""What the ``ollama`` client raises when talking to the host fails: ``ConnectionError`` for
plain requests, but httpx's own errors (and timeouts) unchanged for streamed ones."""


class LLMError(Exception):
    """A failure talking to a local LLM host; ``str(error)`` is meant for a person."""

    def __init__(self, message: str, *, host: str | None = None) -> None:
        super().__init__(message)
        self.host = host


class OllamaUnavailable(LLMError):
    """Nothing answers at the Ollama host."""

    def __init__(self, host: str) -> None:
        super().__init__(
            f"Ollama is not running at {host}. Start it with `ollama serve`.", host=host
        )


class ModelNotFound(LLMError):
    """Ollama answers but does not have the model."""

    def __init__(self, host: str, model: str) -> None:
        super().__init__(
            f"The model '{model}' is not installed in Ollama at {host}. "
            f"Install it with `ollama pull {model}`.",
            host=host,
        )
        self.model = model


def to_llm_error(exc: BaseException, *, host: str, model: str) -> LLMError:
    """Translate an exception from the ``ollama`` client (see ``OLLAMA_ERRORS``) to ours."""
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404 and _says_model_missing(str(exc.error)):
            return ModelNotFound(host, model)
        status = f" (HTTP {exc.status_code})" if exc.status_code > 0 else ""
        return LLMError(f"Ollama at {host} answered with an error{status}: {exc.error}", host=host)
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        # Connected, then silence: Ollama is up but busy or slow, so `ollama serve` is no fix.
        return LLMError(
            f"Ollama at {host} took too long to answer with '{model}'. "
            "Try again, use a smaller model, or raise the timeout.",
            host=host,
        )
    if isinstance(exc, ConnectionError | httpx.TransportError):
        return OllamaUnavailable(host)
    return LLMError(f"Talking to Ollama at {host} failed: {exc}", host=host)


@contextmanager
def ollama_errors(host: str, model: str) -> Iterator[None]:
    """Re-raise failures of the ``ollama`` client inside the block as typed ``LLMError``s."""
    try:
        yield
    except OLLAMA_ERRORS as exc:
        raise to_llm_error(exc, host=host, model=model) from exc


def client_timeout(timeout: float | None) -> httpx.Timeout:
    """An httpx timeout that fails fast on connect and waits ``timeout`` for data."""
    return httpx.Timeout(timeout, connect=CONNECT_TIMEOUT)


def parse_json_object(content: str, model: str, host: str) -> dict[str, Any]:
    """A JSON-mode reply as a dict, or an ``LLMError`` saying what the model sent instead."""
    try:
        value = json.loads(content)
    except json.JSONDecodeError as exc:
        raise LLMError(
            f"The model '{model}' at {host} did not answer with valid JSON "
            f"({exc.msg}): {content[:200]!r}",
            host=host,
        ) from exc
    if not isinstance(value, dict):
        raise LLMError(
            f"The model '{model}' at {host} answered with JSON that is not an "
            f"object: {content[:200]!r}",
            host=host,
        )
    return value


_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def json_object_in(text: str, model: str, url: str) -> dict[str, Any]:
    """The JSON object a reply holds, also when an unconstrained model wrapped it in a
    ``<think>`` block, a Markdown fence, or a sentence before or after it."""
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


def same_model(a: str, b: str) -> bool:
    """Whether two Ollama model names mean the same model (``llama3.2`` is ``llama3.2:latest``)."""
    return _with_tag(a) == _with_tag(b)


def _with_tag(name: str) -> str:
    name = name.strip().lower()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _says_model_missing(error: str) -> bool:
    # Ollama says `model "x" not found, try pulling it first` (chat, embed) or
    # `model 'x' not found` (show, generate); a bare 404 from a proxy says neither.
    text = error.lower()
    return "model" in text and "not found" in text
