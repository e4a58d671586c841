"""What Docent says about an OpenAI-compatible server, in one place.

Standard library only: `run.py status` says the same as the adapter without importing
httpx or the Ollama client.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

SERVERS = "LM Studio's server (Developer → Start Server) or llama-server"
"""What a person most likely has to start, named in the error that says none answers."""


def server_down(url: str) -> str:
    return f"No model server answers at {url}. Start {SERVERS}, or set `--llm-url`."


def model_not_loaded(url: str, model: str, loaded: Sequence[str]) -> str:
    choices = f"choose one of: {', '.join(loaded)}" if loaded else "load another"
    return f"The model '{model}' is not loaded in the server at {url}; load it, or {choices}."


def too_slow(url: str, seconds: float) -> str:
    return f"The model server at {url} did not answer within {seconds:g} s."


def not_openai(url: str, problem: object) -> str:
    return f"Something answered at {url}, but not like an OpenAI-compatible server: {problem!r}"


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


def refusal(status: int, text: str, url: str, path: str) -> str:
    """What an answer of 400 and up to ``path`` means, for a person."""
    message = said(text)
    if status in (401, 403):
        return (
            f"The model server at {url} refused Docent (HTTP {status}: {message}). "
            "Set DOCENT_LLM_API_KEY to the key it was started with."
        )
    if status == 404:
        return (
            f"The server at {url} has no {path} (HTTP 404: {message}). Is it an "
            "OpenAI-compatible server? Its URL should be the base that ends in /v1."
        )
    return f"The model server at {url} answered with an error (HTTP {status}): {message}"
