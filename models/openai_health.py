"""Whether an OpenAI-compatible server is up, from its ``/models`` listing, which also says
whether it takes requests side by side.
"""

from __future__ import annotations

import asyncio

import httpx

from models import openai_words as words
from models.llm import HEALTH_TIMEOUT, same_model
from models.openai_wire import ModelNotLoaded, ServerUnavailable, refusal, transport_error
from models.protocols import Health
from models.server_line import ServerLine

SIDE_BY_SIDE = ("vllm", "llamacpp")
"""``/models``' ``owned_by`` on servers that batch requests (vLLM, llama-server), so a health
check may ask them while an answer streams. Others go one at a time: llama-cpp-python's
server ("me") cancels a streaming answer for any other request; LM Studio and Ollama's /v1
are not known to take two at once."""


class ModelListing:
    """What the server's ``/models`` said last, and the health it shows."""

    def __init__(self, host: str, line: ServerLine) -> None:
        self.host = host
        self.line = line
        """The chat adapter's line: a check takes its turn, and learns ``side_by_side``."""
        self.models: list[str] | None = None
        """The models the last answer to ``/models`` listed."""

    async def check(self, client: httpx.AsyncClient, model: str) -> Health:
        """Ask ``/models`` (unless a request in flight vouches for the server); never raises."""
        if not self.line.may_ask:
            return self._vouched(model)
        try:
            async with asyncio.timeout(2 * HEALTH_TIMEOUT), self.line.turn():
                response = await client.get("/models", timeout=HEALTH_TIMEOUT)
        except httpx.ReadTimeout:
            return self._busy_or_slow(model)
        except TimeoutError:
            return self._health(False, error=words.too_slow(self.host, HEALTH_TIMEOUT))
        except httpx.TransportError as exc:
            error = transport_error(exc, self.host, model)
            return self._health(not isinstance(error, ServerUnavailable), error=str(error))
        if response.status_code >= 400:
            refused = refusal(response.status_code, response.text, self.host, "/models")
            return self._health(True, error=str(refused))
        try:
            cards = response.json()["data"]
            models = [str(card["id"]) for card in cards]
        except (ValueError, KeyError, TypeError) as exc:
            return self._health(False, error=words.not_openai(self.host, exc))
        owners = {str(card.get("owned_by", "")).lower() for card in cards if isinstance(card, dict)}
        self.line.side_by_side = bool(owners & set(SIDE_BY_SIDE))
        self.models = models
        return self._vouched(model)

    def _vouched(self, model: str) -> Health:
        """Reachable, with the last listing (or, before any, the model Docent asks for)."""
        models = self.models if self.models is not None else [model]
        if any(same_model(name, model) for name in models):
            return self._health(True, models=models)
        missing = ModelNotLoaded(self.host, model, models)
        return self._health(True, models=models, error=str(missing))

    def _busy_or_slow(self, model: str) -> Health:
        # Connected, then silent. A one-at-a-time server that listed its models before is
        # busy (with another app's request, or one Docent gave up on): it is not down.
        if self.models is not None and not self.line.side_by_side:
            return self._vouched(model)
        return self._health(False, error=words.too_slow(self.host, HEALTH_TIMEOUT))

    def _health(
        self, reachable: bool, *, models: list[str] | None = None, error: str | None = None
    ) -> Health:
        return Health(reachable, self.host, models or [], error, api="openai")
