"""ChatService: detached turns, one turn per session, every event to every subscriber."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from app.chat import ChatService, EmptyMessage, MessageTooLong, SessionBusy
from app.sessions import SessionIndex
from graph.deps import GraphDeps
from graph.graph import build_graph
from graph.state import Mode
from models.reranker import PassThroughReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import FakeSearch, make_chunk

CHUNKS = [make_chunk("q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]


def make_service(
    tmp_path: Path,
    llm: FakeChatModel,
    max_chars: int = 16_000,
    prepare: Callable[[str, Mode], None] | None = None,
) -> ChatService:
    search = FakeSearch(CHUNKS)
    deps = GraphDeps(
        llm=llm, search=search, reranker=PassThroughReranker(), known_files=search.files
    )
    return ChatService(
        build_graph(deps, InMemorySaver()),
        SessionIndex(tmp_path / "docent.db"),
        max_message_chars=max_chars,
        prepare=prepare,
    )


async def test_events_arrive_in_contract_order(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    turn = make_service(tmp_path, llm).start_turn(None, "What was revenue?")
    events = [e async for e in turn.events()]
    kinds = [e.kind for e in events]
    assert kinds[0] == "status" and kinds[-1] == "done"
    assert kinds.index("sources") < kinds.index("token")
    assert set(kinds[kinds.index("token") : -1]) == {"token"}
    done = events[-1].data
    assert done["session_id"] == turn.session_id
    assert done["answer"] == "".join(e.data["text"] for e in events if e.kind == "token")
    assert done["trace"]["route"] == "rag"
    assert [n["node"] for n in done["trace"]["nodes"]] == [
        "router",
        "rewriter",
        "retriever",
        "generator",
    ]
    assert all(n["ms"] >= 0 for n in done["trace"]["nodes"])


async def test_second_turn_for_a_busy_session_is_refused(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel(token_delay=0.05))
    first = service.start_turn("s1", "What was revenue?")
    with pytest.raises(SessionBusy):
        service.start_turn("s1", "And profit?")
    other = service.start_turn("s2", "What was revenue?")  # other sessions are not blocked
    await first.result()
    await other.result()
    again = service.start_turn("s1", "And profit?")
    assert (await again.result()).kind == "done"


async def test_turn_finishes_and_is_saved_when_the_subscriber_leaves(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel(token_delay=0.02))
    turn = service.start_turn("s1", "What was revenue?")
    async for event in turn.events():
        if event.kind == "token":
            break  # the caller goes away mid-answer
    assert turn.task is not None
    await asyncio.wait_for(turn.task, 5)
    messages = await service.messages("s1")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"].startswith("Echo:")
    assert messages[1]["sources"][0]["file"] == "q3.pdf"


async def test_late_subscriber_sees_the_whole_turn(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel())
    turn = service.start_turn(None, "What was revenue?")
    early = [e.kind async for e in turn.events()]
    late = [e.kind async for e in turn.events()]
    assert early == late and late[-1] == "done"


async def test_messages_are_checked_before_a_turn_starts(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel(), max_chars=20)
    with pytest.raises(MessageTooLong):
        service.start_turn(None, "x" * 21)
    with pytest.raises(EmptyMessage):
        service.start_turn(None, "   ")


async def test_sessions_are_listed_with_their_first_message(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel())
    await service.start_turn("a", "What was revenue?").result()
    await service.start_turn("a", "thanks").result()
    sessions = SessionIndex(tmp_path / "docent.db").list()
    assert [(s.id, s.title) for s in sessions] == [("a", "What was revenue?")]


async def test_an_unexpected_failure_ends_the_turn_with_an_error(tmp_path: Path) -> None:
    class BrokenSearch(FakeSearch):
        def search(self, query: str, k: int = 5, files: Any = None) -> list[Any]:
            raise RuntimeError("index file is damaged")

    search = BrokenSearch(CHUNKS)
    deps = GraphDeps(
        llm=FakeChatModel(), search=search, reranker=PassThroughReranker(), known_files=search.files
    )
    service = ChatService(build_graph(deps, InMemorySaver()), SessionIndex(tmp_path / "d.db"))
    turn = service.start_turn("s", "What was revenue?")
    final = await turn.result()
    assert final.kind == "error"
    assert "index file is damaged" in final.data["message"]
    assert not service.is_busy("s")  # the session can be used again


async def test_a_new_sessions_first_message_is_prepared_before_the_graph_runs(
    tmp_path: Path,
) -> None:
    prepared: list[tuple[str, str, int]] = []
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    service = make_service(
        tmp_path, llm, prepare=lambda text, mode: prepared.append((text, mode, len(llm.history)))
    )

    first = service.start_turn(None, "What was revenue?", "rag")
    assert prepared == [("What was revenue?", "rag", 0)]  # before the graph took a step
    await first.result()
    # A session with earlier messages, or a caller bringing its own history: the graph
    # rewrites the question against them first, so nothing is prepared from its words.
    await service.start_turn(first.session_id, "and the quarter before?").result()
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
    await service.start_turn(None, "What was revenue?", history=history).result()
    assert len(prepared) == 1
