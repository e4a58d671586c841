"""Follow-up suggestions after `done`, and the trace saved with each answer."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done, Suggestions
from app.services.sessions import SessionIndex
from graph import prompts
from graph.graph import build_graph
from graph.nodes.suggest import suggest_followups
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library
from tests.running import eventually

CHUNKS = [make_chunk("q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]


def make_service(tmp_path: Path, llm: FakeChatModel, *, suggestions: bool = True) -> ChatService:
    deps = Library(CHUNKS).deps(llm)
    return ChatService(
        build_graph(InMemorySaver()),
        SessionIndex(tmp_path / "docent.db"),
        deps,
        suggest=partial(suggest_followups, deps) if suggestions else None,
    )


async def test_suggestions_arrive_after_done(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    llm.enqueue_json({"suggestions": ["And Q2?", "Why so high?", "What about costs?", "extra"]})
    turn = make_service(tmp_path, llm).start_turn(None, "What does the report say on revenue?")
    events = [e async for e in turn.events()]
    assert [e.kind for e in events][-2:] == ["done", "suggestions"]
    assert events[-1] == Suggestions(["And Q2?", "Why so high?", "What about costs?"])
    assert llm.schemas[-1] == prompts.SUGGEST_SCHEMA
    assert "It was 12 million euros" in llm.history[-1][-1]["content"]


async def test_done_does_not_wait_for_suggestions_and_frees_the_session(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    llm.enqueue_json({"suggestions": ["a?", "b?", "c?"]})
    llm.json_gate = asyncio.Event()  # the suggestions are written only once let through
    service = make_service(tmp_path, llm)
    turn = service.start_turn("s", "What does the report say on revenue?")
    final = await turn.result()
    assert isinstance(final, Done)
    assert not turn.closed  # the suggestions are still being written
    assert not service.is_busy("s")
    llm.json_gate.set()
    await eventually(lambda: turn.closed, what="suggestions")
    assert [e.kind async for e in turn.events()][-1] == "suggestions"


async def test_malformed_or_failed_suggestions_just_end_the_stream(tmp_path: Path) -> None:
    for reply in ("not json", '{"suggestions": "three"}', '{"other": 1}'):
        llm = FakeChatModel()
        llm.enqueue("It was 12 million euros [1].", reply)
        turn = make_service(tmp_path, llm).start_turn(None, "What does the report say?")
        kinds = [e.kind async for e in turn.events()]
        assert kinds[-1] == "done", reply


async def test_suggestions_can_be_switched_off(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    turn = make_service(tmp_path, llm, suggestions=False).start_turn(None, "the report?")
    assert [e.kind async for e in turn.events()][-1] == "done"
    assert llm.schemas == []


async def test_done_carries_the_trace_and_messages_return_it_later(tmp_path: Path) -> None:
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    service = make_service(tmp_path, llm, suggestions=False)
    final = await service.start_turn("s", "What does the report say on revenue?").result()
    assert isinstance(final, Done)
    trace = final.trace
    assert trace["route"] == "rag" and trace["routed_by"] == "rules"
    assert [n["node"] for n in trace["nodes"]] == ["router", "retriever", "generator"]
    assert final.sources[0]["cited"] is True
    messages = await service.messages("s")
    assert messages[1]["trace"] == trace
    assert messages[1]["sources"] == final.sources
    assert messages[0]["trace"] is None


async def test_a_new_message_drops_the_suggestions_still_being_written(tmp_path: Path) -> None:
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    suggested = '{"suggestions": ["a?", "b?", "c?"]}'
    llm.responder = lambda _messages, schema: suggested if schema else None
    llm.json_gate = asyncio.Event()  # a slow model's suggestions, held until let through
    service = make_service(tmp_path, llm)
    first = service.start_turn("s", "What does the report say on revenue?")
    assert isinstance(await first.result(), Done)
    await eventually(lambda: prompts.SUGGEST_SCHEMA in llm.schemas, what="suggestions asked")
    # The model server answers one request at a time: the next question goes first.
    second = service.start_turn("t", "And what was revenue in the third quarter?")
    await eventually(lambda: first.closed, what="the first turn's suggestions dropped")
    llm.json_gate.set()
    final = await second.result()
    assert isinstance(final, Done) and "12 million" in final.answer
    assert [e.kind async for e in first.events()][-1] == "done"  # no suggestions


async def test_a_server_slow_to_start_answering_is_asked_for_no_suggestions(
    tmp_path: Path,
) -> None:
    llm = FakeChatModel(default_reply="It was 12 million euros [1].")
    llm.enqueue_json({"suggestions": ["a?", "b?", "c?"]})
    deps = Library(CHUNKS).deps(llm)
    # Any wait for the first word is too long for this service: no clock is raced.
    service = ChatService(
        build_graph(InMemorySaver()),
        SessionIndex(tmp_path / "docent.db"),
        deps,
        suggest=partial(suggest_followups, deps),
        suggest_within=0.0,
    )
    turn = service.start_turn(None, "What does the report say on revenue?")
    assert [e.kind async for e in turn.events()][-1] == "done"
    assert prompts.SUGGEST_SCHEMA not in llm.schemas


async def test_a_slow_model_is_not_asked_to_route_after_its_first_slow_answer(
    tmp_path: Path,
) -> None:
    """bench/router_eval.py --url: a 1.5B model on a CPU routed worse than searching."""

    def service(within: float) -> tuple[ChatService, FakeChatModel]:
        llm = FakeChatModel(default_reply="It was 12 million euros [1].")
        # Every message falls between the probe's bars: only the model could tell.
        deps = Library(CHUNKS).deps(llm, probe_chat_below=0.0, probe_rag_above=1.01)
        chat = ChatService(
            build_graph(InMemorySaver()),
            SessionIndex(tmp_path / f"docent-{within}.db"),
            deps,
            suggest_within=within,
        )
        return chat, llm

    for within, asked in ((0.0, False), (float("inf"), True)):
        chat, llm = service(within)
        await chat.start_turn(None, "anything on revenue").result()
        assert llm.schemas.count(prompts.ROUTE_SCHEMA) == 1  # nothing measured yet
        final = await chat.start_turn(None, "anything on the quarter").result()
        assert isinstance(final, Done)
        assert (llm.schemas.count(prompts.ROUTE_SCHEMA) == 2) is asked
        if not asked:
            assert final.trace["route"] == "rag"
            assert final.trace["route_reason"] == prompts.ROUTE_MODEL_SLOW
