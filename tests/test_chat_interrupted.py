"""A question whose answer was cut off stays in its session, marked interrupted, and can be
asked again; a running turn is not interrupted, and a Stop stays a Stop.

A restart is a second ChatService over the same stores while the first one's turn is
still held at the model: the new service has no turn running for the session, as an app
started after a crash has none. tests/test_crash_turn.py kills a real process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done, Failed, MessageRejected
from app.services.chat_export import export_markdown
from app.services.chat_record import INTERRUPTED
from app.services.sessions import SessionIndex
from graph.graph import build_graph
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library
from tests.running import eventually
from tests.ui_parts import side_calls

CHUNKS = [make_chunk("q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]
QUESTION = "What was revenue in the third quarter?"


def held_model() -> FakeChatModel:
    """Answers wait at ``stream_gate`` until the test lets them through."""
    llm = FakeChatModel()
    llm.responder = side_calls
    llm.stream_gate = asyncio.Semaphore(0)
    return llm


def services(tmp_path: Path, llm: FakeChatModel, count: int = 2) -> list[ChatService]:
    """``count`` services over one checkpointer and one session index: the app, and the
    app started again."""
    graph = build_graph(InMemorySaver())
    sessions = SessionIndex(tmp_path / "docent.db")
    deps = Library(CHUNKS).deps(llm)
    return [ChatService(graph, sessions, deps) for _ in range(count)]


def said(messages: list[dict]) -> list[tuple[str, str, bool]]:
    return [(m["role"], m["content"], bool(m.get("interrupted"))) for m in messages]


async def test_a_question_cut_off_mid_answer_is_kept_and_marked_interrupted(
    tmp_path: Path,
) -> None:
    llm = held_model()
    first, restarted = services(tmp_path, llm)
    turn = first.start_turn("s", QUESTION, "chat")
    await eventually(lambda: llm.waiting == 1, what="the answer held at the model")
    # Still answering: the question is saved, and it is not interrupted.
    assert said(await first.messages("s")) == [("user", QUESTION, False)]

    messages = await restarted.messages("s")
    assert said(messages) == [("user", QUESTION, False), ("assistant", INTERRUPTED, True)]
    assert messages[1]["sources"] == [] and messages[1]["id"] is None
    info = restarted._sessions.get("s")
    assert info is not None
    markdown = export_markdown(info, messages)
    assert QUESTION in markdown and "interrupted" in markdown

    # Quitting the app mid-answer (a cancel that is not a Stop) leaves the same.
    assert turn.task is not None
    turn.task.cancel()
    await eventually(lambda: not first.is_busy("s"), what="the turn to end")
    assert said(await first.messages("s")) == said(messages)


async def test_ask_again_answers_in_the_same_mode_and_the_cut_off_question_goes(
    tmp_path: Path,
) -> None:
    llm = held_model()
    first, restarted = services(tmp_path, llm)
    llm.stream_gate.release()  # type: ignore[union-attr]
    llm.enqueue("Hello there.")
    await first.start_turn("s", "Hello!", "chat").result()
    held = first.start_turn("s", QUESTION, "rag")
    await eventually(lambda: llm.waiting == 1, what="the answer held at the model")

    cut_off = await restarted.messages("s")
    assert said(cut_off)[2:] == [("user", QUESTION, False), ("assistant", INTERRUPTED, True)]
    llm.stream_gate = None
    llm.enqueue("Revenue was 12 million euros [1].")
    again = await restarted.ask_again("s", cut_off[2]["id"])
    assert again.question == QUESTION
    done = await again.result()
    assert isinstance(done, Done) and done.trace["route"] == "rag"  # asked as it was
    assert said(await restarted.messages("s")) == [
        ("user", "Hello!", False),
        ("assistant", "Hello there.", False),
        ("user", QUESTION, False),
        ("assistant", "Revenue was 12 million euros [1].", False),
    ]
    assert held.task is not None
    held.task.cancel()
    await eventually(lambda: not first.is_busy("s"), what="the held turn to end")


async def test_ask_again_refuses_a_question_that_has_its_answer(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.responder = side_calls
    (service,) = services(tmp_path, llm, 1)
    await service.start_turn("s", QUESTION).result()
    asked = (await service.messages("s"))[0]
    with pytest.raises(MessageRejected, match="Regenerate"):
        await service.ask_again("s", asked["id"])
    with pytest.raises(MessageRejected, match="not in this chat"):
        await service.ask_again("s", "no-such-message")


async def test_a_stop_before_the_first_word_stays_a_stop(tmp_path: Path) -> None:
    llm = held_model()
    (service,) = services(tmp_path, llm, 1)
    turn = service.start_turn("s", QUESTION, "chat")
    await eventually(lambda: llm.waiting == 1, what="the answer held at the model")
    assert service.cancel("s")
    done = await turn.result()
    assert isinstance(done, Done) and done.stopped
    messages = await service.messages("s")
    assert said(messages) == [("user", QUESTION, False), ("assistant", "", False)]
    assert messages[1]["stopped"] is True


async def test_a_failed_turn_leaves_its_question_to_ask_again(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.responder = side_calls
    llm.enqueue_error(RuntimeError("the model server went away"))
    (service,) = services(tmp_path, llm, 1)
    assert isinstance(await service.start_turn("s", QUESTION, "chat").result(), Failed)
    assert said(await service.messages("s")) == [
        ("user", QUESTION, False),
        ("assistant", INTERRUPTED, True),
    ]


async def test_a_clients_own_history_is_not_read_as_interrupted(tmp_path: Path) -> None:
    llm = FakeChatModel(default_reply="Noted.")
    (service,) = services(tmp_path, llm, 1)
    history = [{"role": "user", "content": "First thought."}]
    await service.start_turn("s", "Second thought.", "chat", history=history).result()  # type: ignore[list-item]
    assert said(await service.messages("s")) == [
        ("user", "First thought.", False),
        ("user", "Second thought.", False),
        ("assistant", "Noted.", False),
    ]
