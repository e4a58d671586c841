"""What the window says about the chat model server (Ollama or an OpenAI-compatible one),
and one shared check that tells every window of changes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.services.listeners import Listeners
from models.llm import ModelNotFound, OllamaUnavailable, same_model
from models.protocols import ChatModel, Health, HearsFromServer, Reranker

log = logging.getLogger(__name__)

CHECK_SECONDS = 15.0
"""How soon the one shared check asks the model server again while all is well..."""

MOST_CHECK_SECONDS = 120.0
"""...waiting twice as long after each check that changed nothing, up to this."""

RETRY_SECONDS = 5.0
"""How soon it asks again while something is wrong, so a fix shows up soon..."""

MOST_RETRY_SECONDS = 30.0
"""...and up to this while the same thing stays wrong."""


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


def next_wait(waited: float | None, report: HealthReport, changed: bool) -> float:
    """Seconds until the next check: the first interval after a change, then twice the last
    while nothing changes, up to a ceiling."""
    first, most = (
        (RETRY_SECONDS, MOST_RETRY_SECONDS)
        if report.problems
        else (CHECK_SECONDS, MOST_CHECK_SECONDS)
    )
    if waited is None or changed:
        return first
    return min(max(waited * 2, first), most)


class HealthMonitor:
    """Asks the chat server now and then (one loop for the whole app) and tells listeners
    on change. The adapter sends nothing while a request of Docent's is in flight to a
    server that serves one at a time (models/server_line.py)."""

    def __init__(self, llm: ChatModel, reranker: Reranker | None = None) -> None:
        self._llm = llm
        self._reranker = reranker
        """Asked for its ``problem`` (why reranking is off), when it has one to tell."""
        self._listeners = Listeners[HealthReport]("health listener failed")
        self.report = HealthReport()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._heard = llm if isinstance(llm, HearsFromServer) else None
        self._health: Health | None = None
        """The last reading of the server, republished when the server was heard since."""
        self._checked_at = 0.0

    def subscribe(self, listener: Callable[[HealthReport], None]) -> Callable[[], None]:
        """Call ``listener`` on the event loop after every change; returns the unsubscribe."""
        return self._listeners.subscribe(listener)

    async def check_now(self) -> HealthReport:
        """Ask right away (the banner's Retry), publish the result and return it."""
        self._checked_at = time.monotonic()
        try:
            self._health = await self._llm.health()
        except Exception as exc:  # a fault of ours: say so, and keep checking
            log.exception("checking the model server failed")
            error = f"Docent could not check the model server at {self._llm.host}: {exc}"
            self._health = Health(False, self._llm.host, error=error)
        return self._publish(self._health)

    async def check_due(self) -> HealthReport:
        """The timer's check: ask the server, unless it answered a request in full since
        the last check while all was well (that answer is as fresh a reading)."""
        heard = self._heard.heard_at if self._heard is not None else None
        fresh = heard is not None and heard > self._checked_at
        if fresh and self._health is not None and not self.report.problems:
            self._checked_at = time.monotonic()
            return self._publish(self._health)  # the reranker's part may have changed
        return await self.check_now()

    def _publish(self, health: Health) -> HealthReport:
        problems = []
        if chatting := chat_problem(health, self._llm.model):
            problems.append(chatting)
        reranking_off = self._reranker.problem if self._reranker is not None else None
        if reranking_off:
            problems.append(Problem("reranker_unavailable", reranking_off))
        report = HealthReport(True, sorted(health.models), problems)
        if report != self.report:
            self.report = report
            self._listeners.tell(report)
        return report

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="health-check")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        wait: float | None = None
        poked = True
        while True:
            before = self.report
            await (self.check_now() if poked else self.check_due())
            wait = next_wait(wait, self.report, poked or self.report != before)
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
                poked = True
            except TimeoutError:
                poked = False
            self._wake.clear()

    def poke(self) -> None:
        """Check soon (after a model was chosen or pulled)."""
        self._wake.set()
