"""Ollama chat adapter (`OllamaChat`) and the typed errors every Ollama adapter raises."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import ollama

from models.protocols import Health, Message, ModelInfo, PullProgress, Usage

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a TCP connection: a host that is down should be reported quickly."""

DEFAULT_TIMEOUT = 300.0
"""Seconds to wait for data once connected: loading a large model on CPU can take minutes."""

HEALTH_TIMEOUT = 5.0
"""Seconds a health check may take in total."""

OLLAMA_ERRORS = (ollama.ResponseError, ConnectionError, httpx.TransportError)
"""What the ``ollama`` client raises when talking to the host fails.

The client turns ``httpx.ConnectError`` into the builtin ``ConnectionError`` for plain
requests but lets it (and timeouts) through unchanged for streamed ones.
"""


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


class OllamaChat:
    """``ChatModel`` backed by an Ollama server through ``ollama.AsyncClient``.

    Building one makes no network call; use ``health()`` to find out whether the host
    answers. Call ``aclose()`` when done; the client is bound to the event loop that
    first uses it.
    """

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

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text pieces as Ollama streams them (thinking is left out).

        ``usage`` gets the token counts of Ollama's final chunk.
        """
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
                    if chunk.message.content:
                        yield chunk.message.content
                    if chunk.done and usage is not None:
                        usage.prompt_tokens = chunk.prompt_eval_count
                        usage.answer_tokens = chunk.eval_count
            finally:
                # Release the HTTP connection now, also when the caller stops early.
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Return one reply parsed as a JSON object, constrained by ``schema`` if given.

        Past ``timeout`` seconds (if given) the request is abandoned with an ``LLMError``.
        """
        try:
            async with asyncio.timeout(timeout):
                with ollama_errors(self.host, self.model):
                    response = await self._client.chat(
                        model=self.model,
                        messages=list(messages),
                        stream=False,
                        format=schema or "json",
                        options=self.options,
                        keep_alive=self.keep_alive,
                    )
        except TimeoutError as exc:
            raise LLMError(
                f"Ollama at {self.host} took longer than {timeout:g} s to answer with "
                f"'{self.model}'.",
                host=self.host,
            ) from exc
        return parse_json_object(response.message.content or "", self.model, self.host)

    async def health(self) -> Health:
        """Whether the host answers and which models it has; never raises.

        ``error`` is also set when the host answers but lacks ``self.model``.
        """
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
        """Close the underlying HTTP connections."""
        await self._client.close()
