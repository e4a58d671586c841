"""Follow-up questions offered after an answer, and which models are too slow for them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from app.services.turn import Turn
from graph.events import Suggestions

log = logging.getLogger(__name__)

Suggester = Callable[[str, str], Awaitable[list[str]]]
"""Follow-up questions for (question, answer); empty when there are none."""

SUGGEST_WITHIN = 10.0
"""Seconds to an answer's first word beyond which follow-up suggestions are not asked for,
and the router does not ask that model where its rules and probe can't tell (it searches).
A suggestion call reads about 600 tokens and writes about 60. With Qwen2.5-Coder-1.5B on two
CPU cores (bench/real_model.py) an answer's first word took 17 s on a quiet machine and
40–100 s on a loaded one, where a suggestion call ran past its 60 s budget: there they are
off. A server with a GPU starts answering within a few seconds."""


class FollowUps:
    """Offers follow-up suggestions after a turn's answer, when the model is quick enough."""

    def __init__(self, suggest: Suggester | None, within: float = SUGGEST_WITHIN) -> None:
        self._suggest = suggest
        self._within = within
        self._slow: set[str | None] = set()
        """The models (None: the configured one) whose last answer's first word came later
        than ``within``: the router does not ask them to route."""
        self._writing: set[asyncio.Task[None]] = set()
        """Suggestions being written: a new message drops them (``drop``)."""

    def is_slow(self, model: str | None) -> bool:
        """Whether ``model``'s last answer was slow to start (None: the configured one)."""
        return model in self._slow

    def drop(self) -> None:
        """Stop writing suggestions: the model server answers one request at a time."""
        for offer in self._writing:
            offer.cancel()

    async def after(self, turn: Turn, question: str, answer: str | None) -> None:
        """Note the turn's pace, then offer suggestions for its ``answer`` (None: none); not
        from a model slower to start than ``within`` (one costs as much as a short answer)."""
        waited = turn.first_word_after
        slow = waited is not None and waited > self._within
        if slow:
            self._slow.add(turn.model)
        elif waited is not None:  # a quick answer: the model is asked to route again
            self._slow.discard(turn.model)
        if answer is None or self._suggest is None:
            return
        if slow:
            log.info("no follow-up suggestions: the answer's first word took %.0f s", waited)
            return
        offer = asyncio.create_task(self._offer(turn, question, answer))
        self._writing.add(offer)
        offer.add_done_callback(self._writing.discard)
        try:
            await asyncio.wait([offer])
        finally:
            offer.cancel()

    async def _offer(self, turn: Turn, question: str, answer: str) -> None:
        assert self._suggest is not None
        try:
            suggestions = await self._suggest(question, answer)
        except Exception:  # optional extras must not turn a good answer into an error
            log.exception("follow-up suggestions failed in session %s", turn.session_id)
            return
        if suggestions:
            turn.emit(Suggestions(suggestions))
