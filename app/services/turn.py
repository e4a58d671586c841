"""A turn's event log, and why a message can't start one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from graph.events import ClientEvent, Done, Failed, Token


class SessionBusy(Exception):
    """A turn is already running for this session."""

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"Session {session_id} is still answering the previous message. "
            "Wait for it to finish, then send again."
        )
        self.session_id = session_id


class MessageRejected(ValueError):
    """The message can't be sent as it is."""


class EmptyMessage(MessageRejected):
    """Nothing to answer."""


class MessageTooLong(MessageRejected):
    """Over the configured length limit."""


@dataclass
class Turn:
    """A running or finished turn. Every subscriber sees every event, from the first.

    Events are kept in a log read by cursor, so a late or slow subscriber catches up
    instead of losing tokens; the log is as big as one answer. The answer is
    ``finished`` at ``done`` or ``error``; the turn is ``closed`` once nothing more
    follows (``suggestions`` may come after ``done``).
    """

    session_id: str
    question: str = ""
    """What is being answered: a window reopening the session before the question is
    checkpointed (the turn's first write) shows it from here."""
    question_id: str = ""
    """The question's message id: while the turn runs, it is not an interrupted one."""
    versions: list[dict[str, Any]] = field(default_factory=list)
    """The answers a Regenerate replaced, oldest first: kept on the new one."""
    _events: list[ClientEvent] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    finished: bool = False
    closed: bool = False
    task: asyncio.Task[None] | None = None
    stopping: bool = False
    """Set by ``ChatService.cancel``: the task's cancellation is a user's Stop, not a shutdown."""
    begun: bool = False
    """The task has begun: a task cancelled before it begins never runs its cleanup."""
    started: float = field(default_factory=time.monotonic)
    model: str | None = None
    """The chat model asked for this turn only (None: the configured one)."""
    first_word_after: float | None = None
    """Seconds from the start to the answer's first token: how fast the model server is."""

    def answer_in(self, task: asyncio.Task[None], close: Callable[[], None]) -> None:
        """Let ``task`` answer the turn; ``close`` (what ends the turn's search) is called
        also when the task is cancelled before it ever began (its own cleanup, which
        calls it, never runs)."""
        self.task = task

        def release(_task: asyncio.Task[None]) -> None:
            if not self.begun:  # a task that began closed it as its answer was written
                close()

        task.add_done_callback(release)

    def emit(self, event: ClientEvent) -> None:
        if isinstance(event, Token) and self.first_word_after is None:
            self.first_word_after = time.monotonic() - self.started
        self._events.append(event)
        if isinstance(event, Done | Failed):
            self.finished = True
        if isinstance(event, Failed):
            self.closed = True
        self._changed.set()

    def close(self) -> None:
        """Nothing more will be emitted: subscribers' ``events()`` end."""
        self.closed = True
        self._changed.set()

    async def events(self) -> AsyncIterator[ClientEvent]:
        """Every event of the turn: up to ``done`` or ``error``, then maybe
        ``suggestions``."""
        cursor = 0
        while True:
            while cursor < len(self._events):
                cursor += 1
                yield self._events[cursor - 1]
            if self.closed:
                return
            self._changed.clear()
            await self._changed.wait()

    async def result(self) -> Done | Failed:
        """Wait for the turn to end and return its ``done`` or ``error`` event."""
        async for event in self.events():
            if isinstance(event, Done | Failed):
                return event
        raise RuntimeError("turn ended without a final event")


def check_text(text: str, limit: int) -> None:
    """Refuse a message that is empty or over ``limit`` characters."""
    if not text.strip():
        raise EmptyMessage("The message is empty.")
    if len(text) > limit:
        raise MessageTooLong(
            f"The message is {len(text):,} characters long; the limit is {limit:,}."
        )
