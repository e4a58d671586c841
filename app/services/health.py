"""What the window says about the chat model server (Ollama or an OpenAI-compatible one),
and one shared check that tells every window of changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from models.llm import ModelNotFound, OllamaUnavailable, same_model
from models.protocols import ChatModel, Health, Reranker

log = logging.getLogger(__name__)

CHECK_SECONDS = 15.0
"""How often the one shared check asks the model server while all is well."""

RETRY_SECONDS = 5.0
"""How often it asks while something is wrong, so a fix shows up soon."""


@dataclass(frozen=True)
class Problem:
    """One thing that limits Docent, said so a person can fix it."""

    kind: str
    """'server_down', 'model_missing', ... : lets the window offer the right button."""
    message: str
    model: str | None = None
    """The missing model, for kind 'model_missing'."""


def chat_problem(health: Health, model: str) -> Problem | None:
    """What keeps the chat model server from writing answers with ``model``, in the
    adapter's own words where it has them; None when answers can be written."""
    if not health.reachable:
        return Problem("server_down", health.error or str(OllamaUnavailable(health.host)))
    if any(same_model(name, model) for name in health.models):
        return None
    # It answered without the model, or with an error (a key, a wrong URL) that its words say.
    return Problem("model_missing", health.error or str(ModelNotFound(health.host, model)), model)


@dataclass(frozen=True)
class HealthReport:
    """The latest check: the chat server's models and what is wrong, if anything."""

    checked: bool = False
    models: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


Listener = Callable[[HealthReport], None]


class HealthMonitor:
    """Asks the chat server now and then (one loop for the whole app) and tells listeners
    on change."""

    def __init__(self, llm: ChatModel, reranker: Reranker | None = None) -> None:
        self._llm = llm
        self._reranker = reranker
        """Asked for its ``problem`` (why reranking is off), when it has one to tell."""
        self._listeners: list[Listener] = []
        self.report = HealthReport()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on the event loop after every change; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def check_now(self) -> HealthReport:
        """Ask right away (the banner's Retry), publish the result and return it."""
        health = await self._llm.health()
        problems = []
        if chatting := chat_problem(health, self._llm.model):
            problems.append(chatting)
        reranking_off = self._reranker.problem if self._reranker is not None else None
        if reranking_off:
            problems.append(Problem("reranker_unavailable", reranking_off))
        report = HealthReport(True, sorted(health.models), problems)
        if report != self.report:
            self.report = report
            for listener in list(self._listeners):
                try:
                    listener(report)
                except Exception:  # one broken window must not silence the others
                    log.exception("health listener failed")
        return report

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="health-check")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _loop(self) -> None:
        while True:
            await self.check_now()
            wait = RETRY_SECONDS if self.report.problems else CHECK_SECONDS
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            except TimeoutError:
                pass
            self._wake.clear()

    def poke(self) -> None:
        """Check soon (after a model was chosen or pulled)."""
        self._wake.set()
