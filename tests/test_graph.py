"""The graph end to end with in-process fakes: routing, retrieval, generation, failure."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.deps import GraphDeps
from graph.graph import build_graph
from models.llm import OllamaUnavailable
from models.reranker import PassThroughReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import FakeSearch, make_chunk

CHUNKS = [
    make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros."),
    make_chunk("notes.md", None, "The office plants are watered on Fridays."),
    make_chunk("other.pdf", 2, "Revenue of the subsidiary was small."),
]


def make_graph(llm: FakeChatModel, search: FakeSearch) -> Any:
    deps = GraphDeps(
        llm=llm, search=search, reranker=PassThroughReranker(), known_files=search.files
    )
    return build_graph(deps, InMemorySaver())


async def run_turn(graph: Any, text: str, mode: str = "auto", thread: str = "t1") -> dict:
    config = {"configurable": {"thread_id": thread}}
    inputs = {"messages": [HumanMessage(content=text)], "question": text, "mode": mode}
    events = [e async for e in graph.astream(inputs, config, stream_mode="custom")]
    state = (await graph.aget_state(config)).values
    return {"events": events, "state": state}


def kinds(events: list[dict]) -> list[str]:
    return [next(iter(e)) for e in events if "trace" not in e]


async def test_rag_turn_streams_tokens_after_numbered_sources() -> None:
    llm = FakeChatModel()
    llm.enqueue("Revenue was 12 million euros [1].")
    out = await run_turn(make_graph(llm, FakeSearch(CHUNKS)), "What was revenue in the quarter?")

    order = kinds(out["events"])
    assert order.index("sources") < order.index("token")
    assert order.count("token") > 1
    tokens = "".join(e["token"] for e in out["events"] if "token" in e)
    assert tokens == out["state"]["answer"] == "Revenue was 12 million euros [1]."
    top = out["state"]["sources"][0]
    assert (top["n"], top["file"], top["page"]) == (1, "q3.pdf", 4)
    prompt = llm.history[0][-1]["content"]
    assert "[1] q3.pdf, page 4:\nRevenue in the third quarter was 12 million euros." in prompt
    assert llm.history[0][0]["content"] == prompts.RAG_SYSTEM
    assert [t["node"] for e in out["events"] if (t := e.get("trace"))] == [
        "router",
        "rewriter",
        "retriever",
        "generator",
    ]


async def test_mention_aims_retrieval_at_that_file() -> None:
    search = FakeSearch(CHUNKS)
    llm = FakeChatModel(default_reply="ok")
    out = await run_turn(make_graph(llm, search), "@other.pdf what about revenue?")
    assert search.calls[0][2] == ["other.pdf"]
    assert "@" not in search.calls[0][0]
    assert {s["file"] for s in out["state"]["sources"]} == {"other.pdf"}


async def test_small_talk_goes_straight_to_the_generator() -> None:
    search = FakeSearch(CHUNKS)
    llm = FakeChatModel(default_reply="Hello!")
    out = await run_turn(make_graph(llm, search), "hello!")
    assert search.calls == []
    assert out["state"]["route"] == "chat"
    assert out["state"]["answer"] == "Hello!"
    assert llm.history[0][0]["content"] == prompts.CHAT_SYSTEM


async def test_mode_override_beats_the_heuristic() -> None:
    search = FakeSearch(CHUNKS)
    await run_turn(make_graph(FakeChatModel(), search), "hello revenue", mode="rag")
    assert len(search.calls) == 1
    search.calls.clear()
    await run_turn(make_graph(FakeChatModel(), search), "What was revenue?", mode="chat")
    assert search.calls == []


async def test_nothing_found_says_so_then_chats_without_claiming_the_documents() -> None:
    llm = FakeChatModel(default_reply="Leonardo da Vinci painted it.")
    out = await run_turn(make_graph(llm, FakeSearch(CHUNKS)), "Who painted Mona Lisa?", mode="rag")
    answer = out["state"]["answer"]
    assert answer.startswith(prompts.NOT_RELEVANT + "\n\n")
    assert answer.endswith("Leonardo da Vinci painted it.")
    assert out["state"]["sources"] == []
    assert llm.history[0][0]["content"] == prompts.ADAPTIVE_SYSTEM


async def test_ollama_down_degrades_to_cited_passages() -> None:
    llm = FakeChatModel()
    llm.reachable = False
    out = await run_turn(make_graph(llm, FakeSearch(CHUNKS)), "What was revenue in the quarter?")
    answer = out["state"]["answer"]
    assert "Ollama is not running" in answer
    assert "[1] `q3.pdf`, page 4" in answer
    assert "12 million euros" in answer
    assert "".join(e["token"] for e in out["events"] if "token" in e) == answer


async def test_failure_mid_stream_keeps_what_was_said() -> None:
    llm = FakeChatModel()
    llm.enqueue_error(OllamaUnavailable("http://x"), after="Revenue was")
    out = await run_turn(make_graph(llm, FakeSearch(CHUNKS)), "What was revenue?")
    assert out["state"]["answer"].startswith("Revenue was")
    assert "cut off" in out["state"]["answer"]


async def test_chat_turn_does_not_inherit_last_turns_sources() -> None:
    graph = make_graph(FakeChatModel(default_reply="ok"), FakeSearch(CHUNKS))
    first = await run_turn(graph, "What was revenue?")
    assert first["state"]["sources"]
    second = await run_turn(graph, "thanks")
    assert second["state"]["sources"] == []
    assert len(second["state"]["messages"]) == 4


async def test_history_reaches_the_model() -> None:
    llm = FakeChatModel(default_reply="ok")
    graph = make_graph(llm, FakeSearch(CHUNKS))
    await run_turn(graph, "What was revenue?")
    await run_turn(graph, "And the plants watered when?")
    answering = llm.history[-1]  # the rewriter's JSON call came before it
    roles = [m["role"] for m in answering]
    assert roles == ["system", "user", "assistant", "user"]
    assert answering[1]["content"] == "What was revenue?"


async def test_the_search_status_counts_the_library_in_words() -> None:
    async def searching(chunks: list[Any]) -> list[str]:
        graph = make_graph(FakeChatModel(default_reply="ok"), FakeSearch(chunks))
        out = await run_turn(graph, "What was revenue?", mode="rag")
        return [
            s["text"]
            for e in out["events"]
            if (s := e.get("status")) and s.get("node") == "retriever"
        ]

    assert await searching(CHUNKS[:1]) == ["Searching 1 document…"]
    assert await searching(CHUNKS) == ["Searching 3 documents…"]
