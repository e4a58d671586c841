"""A chat whose answer was cut off (the app quit mid-answer) shows its question, says the
answer was interrupted, and asks it again at a click."""

from __future__ import annotations

import asyncio

from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.test_ui import FOUND
from tests.ui_parts import answer_shows, contents, llm, text_of

QUESTION = "Where is the spare key?"


async def _cut_off(container: Services, session_id: str) -> None:
    """A turn held at the model, then ended as quitting the app ends it (not a Stop)."""
    model = llm(container)
    model.stream_gate = asyncio.Semaphore(0)
    turn = container.chat.start_turn(session_id, QUESTION)
    await eventually(lambda: model.waiting == 1, what="the answer held at the model")
    assert turn.task is not None
    turn.task.cancel()
    await eventually(lambda: not container.chat.is_busy(session_id), what="the turn's end")
    model.stream_gate = None


async def test_an_interrupted_answer_offers_to_ask_again(
    user: User, container: Services, page: None
) -> None:
    await _cut_off(container, "cut")
    await user.open("/chat/cut")
    await user.should_see(marker="interrupted")
    assert [text_of(t) for t in contents(user, "user-text")] == [QUESTION]
    assert contents(user, "interrupted-text") == ["This answer was interrupted."]
    assert contents(user, "ask-again") == ["Ask again"]
    assert not contents(user, "answer")

    llm(container).enqueue(FOUND)
    before = len(llm(container).history)
    user.find(marker="ask-again").click()
    await eventually(lambda: answer_shows(user, "blue flowerpot"), what="the new answer")
    await eventually(lambda: not container.chat.is_busy("cut"), what="the turn's end")
    # The same question, answered once, in the same chat; nothing is interrupted any more.
    assert [text_of(t) for t in contents(user, "user-text")] == [QUESTION]
    assert not contents(user, "interrupted")
    answering = llm(container).history[before]  # the answer's call (suggestions' next)
    assert answering[-1]["content"].endswith(f"Question: {QUESTION}")
    saved = await container.chat.messages("cut")
    assert [(m["role"], m.get("interrupted")) for m in saved] == [
        ("user", None),
        ("assistant", None),
    ]
    assert saved[0]["content"] == QUESTION and "blue flowerpot" in saved[1]["content"]
