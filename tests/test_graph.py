"""The graph end to end with in-process fakes: routing, retrieval, generation, failure."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.deps import GraphDeps
from graph.graph import build_graph
from graph.options import TurnOptions
from graph.retrieval.floor import Floor
from graph.retrieval.retriever import RetrievalSettings, Retriever
from graph.routing import warm_opening_question
from graph.state import Mode
from ingest.keyword import KeywordIndex
from ingest.types import Chunk
from models.llm import OllamaUnavailable
from models.protocols import Reranker
from models.query_cache import CachedQueryEmbedder
from models.reranker import FlashRankReranker, PassThroughReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.dense import FakeDenseIndex, FakeLibrary
from tests.fakes.embedder import FakeEmbedder, GatedEmbedder
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


class ScoresByLength:
    """A reranking model behind the ``Reranker`` protocol: longer passages score higher."""

    def __init__(self) -> None:
        self.calls = 0

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls += 1
        return [float(len(p)) for p in passages]


def retriever_graph(
    reranker: Reranker, embedder: FakeEmbedder | None = None, llm: FakeChatModel | None = None
) -> Any:
    """The graph over a real hybrid retriever (in-memory indexes) with ``reranker``."""
    return build_graph(retriever_deps(reranker, embedder, llm), InMemorySaver())


def retriever_deps(
    reranker: Reranker, embedder: FakeEmbedder | None = None, llm: FakeChatModel | None = None
) -> GraphDeps:
    """Dependencies with a real hybrid retriever over three small in-memory documents."""
    texts = {
        "reports/q3.pdf": "Revenue in the third quarter was 12 million euros.",
        "notes.md": "The office plants are watered on Fridays.",
        "other.pdf": "Revenue of the subsidiary was small.",
    }
    embedder = embedder or FakeEmbedder()
    dense, keyword = FakeDenseIndex(embedder), KeywordIndex()
    for path, text in texts.items():
        chunk = Chunk(f"id-{path}", path, path, None, 0, 0, len(text), text, "sha")
        dense.replace_document(chunk.doc_id, [chunk])
        keyword.replace_document(chunk.doc_id, [chunk])
    retriever = Retriever(
        dense,
        keyword,
        CachedQueryEmbedder(embedder),
        reranker,
        FakeLibrary(list(texts)),
        RetrievalSettings(floor=Floor(-1)),
    )
    return GraphDeps(
        llm=llm or FakeChatModel(default_reply="12 million euros [1]."),
        search=retriever,
        reranker=reranker,
        known_files=lambda: list(texts),
        retriever=retriever,
    )


def statuses(events: list[dict]) -> list[str]:
    return [e["status"]["text"] for e in events if "status" in e]


async def test_a_reranking_model_is_its_own_step_between_searching_and_writing() -> None:
    reranker = ScoresByLength()
    out = await run_turn(retriever_graph(reranker), "What was revenue?", mode="rag")
    said = statuses(out["events"])
    assert reranker.calls == 1
    searching = said.index("Searching 3 documents…")
    reranking = said.index("Reranking 3 passages…")
    assert searching < reranking < said.index("Writing the answer…")
    # The reranker's order is the answer's: the longest passage is source 1.
    assert out["state"]["sources"][0]["path"] == "reports/q3.pdf"


async def test_without_a_reranking_model_no_reranking_step_is_shown(tmp_path: Path) -> None:
    absent = FlashRankReranker(tmp_path / "models")  # its model is not on disk
    assert not absent.prepare(download=False)
    for reranker in (absent, PassThroughReranker()):
        out = await run_turn(retriever_graph(reranker), "What was revenue?", mode="rag")
        said = statuses(out["events"])
        assert "Searching 3 documents…" in said and "Writing the answer…" in said
        assert not any(s.endswith(("passages…", "passage…")) for s in said), said


async def test_a_search_turn_starts_embedding_its_question_at_the_router(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = GatedEmbedder()
    graph = retriever_graph(PassThroughReranker(), embedder)
    embedder.calls.clear()  # the library's own texts
    embedder.hold()
    at_search: list[int] = []
    search = Retriever.retrieve

    def retrieve(self: Retriever, *args: Any, **kwargs: Any) -> Any:
        # When the search begins, the question's embedding is already under way.
        deadline = time.monotonic() + 2
        while embedder.waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        at_search.append(embedder.waiting)
        embedder.open()
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Retriever, "retrieve", retrieve)
    out = await run_turn(graph, "According to the report, what was revenue?")
    assert out["state"]["route"] == "rag" and out["state"]["sources"]
    assert at_search == [1]
    assert embedder.calls == [["According to the report, what was revenue?"]]  # only once


def test_an_opening_question_that_may_search_starts_its_embedding() -> None:
    embedder = GatedEmbedder()
    deps = retriever_deps(PassThroughReranker(), embedder)
    embedder.calls.clear()  # the library's own texts
    nothing_early: list[tuple[str, Mode]] = [
        ("thanks a lot", "auto"),  # small talk
        ("Write me a haiku about autumn", "auto"),  # writing
        ("What was revenue?", "chat"),
        ("What does @notes.md say?", "auto"),  # the router resolves mentions first
    ]
    for text, mode in nothing_early:
        warm_opening_question(deps, text, mode)
    deps.options = TurnOptions(expand_queries=True)
    warm_opening_question(deps, "What was revenue?", "auto")
    assert embedder.calls == []

    deps.options = TurnOptions()
    warm_opening_question(deps, "According to the report, what was revenue?", "auto")  # rules
    warm_opening_question(deps, "What was revenue?", "auto")  # left to the probe
    warm_opening_question(deps, "plants", "rag")
    deadline = time.monotonic() + 5
    while len(embedder.calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(c[0] for c in embedder.calls) == [
        "According to the report, what was revenue?",
        "What was revenue?",
        "plants",
    ]


async def test_small_talk_and_follow_ups_embed_nothing_early() -> None:
    embedder, llm = FakeEmbedder(), FakeChatModel(default_reply="12 million euros [1].")
    graph = retriever_graph(PassThroughReranker(), embedder, llm)
    embedder.calls.clear()  # the library's own texts
    await run_turn(graph, "thanks a lot")
    assert embedder.calls == []  # chat: nothing searched, nothing embedded
    await run_turn(graph, "According to the report, what was revenue?", thread="t2")
    embedder.calls.clear()
    # A follow-up is rewritten before it is searched: its raw words are not embedded.
    llm.enqueue_json({"query": "revenue of the subsidiary"})
    await run_turn(graph, "and what about the subsidiary?", mode="rag", thread="t2")
    assert embedder.calls == [["revenue of the subsidiary"]]
