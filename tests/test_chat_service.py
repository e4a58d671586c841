"""ChatService: detached turns, one turn per session, every event to every subscriber."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import (
    ChatService,
    Done,
    EmptyMessage,
    Failed,
    MessageTooLong,
    SessionBusy,
    Sources,
    Status,
    Token,
)
from app.services.sessions import SessionIndex
from graph.graph import build_graph
from ingest.index.keyword.index import KeywordIndex
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import GatedEmbedder
from tests.fakes.search import make_chunk
from tests.graph_parts import DIMENSIONS, Library, query_calls

CHUNKS = [make_chunk("q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]


def make_service(
    tmp_path: Path, llm: FakeChatModel, max_chars: int = 16_000, library: Library | None = None
) -> ChatService:
    deps = (library or Library(CHUNKS)).deps(llm)
    return ChatService(
        build_graph(InMemorySaver()),
        SessionIndex(tmp_path / "docent.db"),
        deps,
        max_message_chars=max_chars,
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
    done = events[-1]
    assert isinstance(done, Done) and done.session_id == turn.session_id
    assert done.answer == "".join(e.text for e in events if isinstance(e, Token))
    assert done.trace["route"] == "rag"
    assert [n["node"] for n in done.trace["nodes"]] == ["router", "retriever", "generator"]
    assert all(n["ms"] >= 0 for n in done.trace["nodes"])
    (sources,) = [e.sources for e in events if isinstance(e, Sources)]
    assert [s["path"] for s in sources] == [s["path"] for s in done.sources] == ["q3.pdf"]
    assert isinstance(events[0], Status) and events[0].node == "router"


async def test_second_turn_for_a_busy_session_is_refused(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel(token_delay=0.05))
    first = service.start_turn("s1", "What was revenue?")
    with pytest.raises(SessionBusy):
        service.start_turn("s1", "And profit?")
    other = service.start_turn("s2", "What was revenue?")  # other sessions are not blocked
    await first.result()
    await other.result()
    again = service.start_turn("s1", "And profit?")
    assert isinstance(await again.result(), Done)


async def test_turn_finishes_and_is_saved_when_the_subscriber_leaves(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeChatModel(token_delay=0.02))
    turn = service.start_turn("s1", "What was revenue?")
    async for event in turn.events():
        if isinstance(event, Token):
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
    class DamagedIndex(KeywordIndex):
        def search(self, query: str, doc_ids: Any = None) -> Any:
            raise RuntimeError("index file is damaged")

    library = Library(CHUNKS)
    library.retriever.keyword = DamagedIndex()
    service = make_service(tmp_path, FakeChatModel(), library=library)
    turn = service.start_turn("s", "What was revenue?")
    final = await turn.result()
    assert isinstance(final, Failed)
    assert "index file is damaged" in final.message
    assert not service.is_busy("s")  # the session can be used again
    assert library.retriever.reader.users == 0  # its search is closed


async def test_a_new_sessions_first_message_starts_its_search_before_the_graph_runs(
    tmp_path: Path,
) -> None:
    class Announcing(GatedEmbedder):
        def __init__(self) -> None:
            super().__init__(DIMENSIONS)
            self.started = threading.Event()

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            self.started.set()
            return super().embed(texts)

    embedder = Announcing()
    library = Library(CHUNKS, embedder=embedder)
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    service = make_service(tmp_path, llm, library=library)
    embedder.hold()
    first = service.start_turn(None, "What was revenue?", "rag")
    # Nothing has been awaited, so the graph has not taken a step: the embedding began
    # with the turn.
    assert embedder.started.wait(5)
    embedder.open()
    await first.result()
    # Once: the search took it up (the answer's check embeds passages and sentences).
    assert query_calls(embedder, "What was revenue?") == [["What was revenue?"]]

    # A session with earlier messages, or a caller bringing its own history: the graph
    # rewrites the question against them first, so nothing is embedded from its words.
    embedder.calls.clear()
    llm.enqueue_json({"query": "revenue in the second quarter"})
    await service.start_turn(first.session_id, "and the quarter before?", "rag").result()
    rewritten = "revenue in the second quarter"
    assert query_calls(embedder, "and the quarter before?", rewritten) == [[rewritten]]
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
    embedder.calls.clear()
    llm.enqueue_json({"query": "revenue"})
    await service.start_turn(None, "What was revenue?", "rag", history=history).result()
    assert query_calls(embedder, "What was revenue?", "revenue") == [["revenue"]]
    assert library.retriever.reader.users == 0


async def test_a_turn_never_traces_to_langsmith_even_when_the_environment_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langchain_core.tracers.langchain import wait_for_all_tracers

    from tests.network_guard import only_loopback

    for name in ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING"):
        monkeypatch.setenv(name, "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2_not_a_real_key")
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    with only_loopback() as outward:
        turn = make_service(tmp_path, llm).start_turn(None, "What was revenue?")
        assert isinstance(await turn.result(), Done)
        wait_for_all_tracers()  # a tracer would have sent its runs by now
    assert outward == []


class LoggedSaver(InMemorySaver):
    """The checkpointer, noting each read and write of a checkpoint in order."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def aget_tuple(self, config: Any) -> Any:
        self.calls.append("read")
        return await super().aget_tuple(config)

    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append("write")
        return await super().aput(*args, **kwargs)


async def test_done_is_made_from_the_turn_not_read_back_from_the_checkpoint(
    tmp_path: Path,
) -> None:
    saver = LoggedSaver()
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    service = ChatService(
        build_graph(saver), SessionIndex(tmp_path / "docent.db"), Library(CHUNKS).deps(llm)
    )
    done = await service.start_turn(None, "What was revenue?").result()
    assert isinstance(done, Done)
    assert done.answer == "It was 12 million euros [1]."
    assert [s["path"] for s in done.sources] == ["q3.pdf"] and done.sources[0]["cited"]
    assert done.trace["route"] == "rag" and done.trace["candidates"]
    assert done.support is not None and done.coverage is not None
    assert saver.calls[-1] == "write"  # the turn's last save; nothing read back after it
    messages = await service.messages(done.session_id)
    assert messages[-1]["content"] == done.answer and messages[-1]["trace"] == done.trace


async def test_a_turn_cancelled_before_it_began_still_closes_its_search(tmp_path: Path) -> None:
    # A shutdown cancels every turn's task, some before they ever ran: their own cleanup,
    # which closes the search, never runs, so the turn closes it.
    library = Library(CHUNKS)
    service = make_service(tmp_path, FakeChatModel(), library=library)
    turn = service.start_turn(None, "What was revenue?", "rag")
    assert library.retriever.reader.users == 1 and turn.task is not None
    turn.task.cancel()
    await asyncio.wait([turn.task])
    assert not turn.begun and library.retriever.reader.users == 0
