"""The router: mode, mentions, rules, the vector probe and the LLM, cheapest first."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.deps import GraphDeps
from graph.graph import build_graph
from graph.options import TurnOptions
from graph.rules import apply_rules
from models.llm import LLMError
from models.reranker import PassThroughReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import FakeSearch, make_chunk

CHUNKS = [
    make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros."),
    make_chunk("manuals/x200.pdf", 9, "The X200 dishwasher has a warranty of two years."),
    make_chunk("notes.md", None, "The office plants are watered on Fridays."),
]
# FakeSearch scores a chunk by the share of the query's words it contains.
OPTIONS = TurnOptions(probe_chat_below=0.2, probe_rag_above=0.6)


def make(llm: FakeChatModel, search: FakeSearch, **options: Any) -> Any:
    deps = GraphDeps(
        llm=llm,
        search=search,
        reranker=PassThroughReranker(),
        known_files=search.files,
        options=TurnOptions(**{**OPTIONS.__dict__, **options}),
    )
    return build_graph(deps, InMemorySaver())


async def turn(graph: Any, text: str, mode: str = "auto", thread: str = "t") -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}}
    inputs = {"messages": [HumanMessage(content=text)], "question": text, "mode": mode}
    events = [e async for e in graph.astream(inputs, config, stream_mode="custom")]
    state = (await graph.aget_state(config)).values
    return {"events": events, **state}


def json_calls(llm: FakeChatModel) -> int:
    return len(llm.schemas)


@pytest.mark.parametrize(
    ("text", "mode", "route", "tier"),
    [
        ("hello", "rag", "rag", "mode"),
        ("What was revenue?", "chat", "chat", "mode"),
        ("@q3.pdf hi", "chat", "chat", "mode"),
        ("@q3.pdf hi", "auto", "rag", "mention"),
        ("thanks a lot!", "auto", "chat", "rules"),
        ("Write me a poem about spring", "auto", "chat", "rules"),
        ("what is 17 * 23", "auto", "chat", "rules"),
        ("Summarize the report", "auto", "rag", "rules"),
        ("According to my notes, when are plants watered?", "auto", "rag", "rules"),
    ],
)
async def test_decisive_tiers(text: str, mode: str, route: str, tier: str) -> None:
    llm = FakeChatModel(default_reply="ok")
    out = await turn(make(llm, FakeSearch(CHUNKS)), text, mode)
    assert (out["route"], out["routed_by"]) == (route, tier)
    assert json_calls(llm) == 0


async def test_rule_chat_never_searches() -> None:
    search = FakeSearch(CHUNKS)
    await turn(make(FakeChatModel(default_reply="hi"), search), "good morning!")
    assert search.calls == []


async def test_empty_library_chats() -> None:
    out = await turn(make(FakeChatModel(default_reply="ok"), FakeSearch([])), "What was revenue?")
    assert (out["route"], out["routed_by"]) == ("chat", "library")


async def test_probe_far_from_every_chunk_is_chat() -> None:
    llm = FakeChatModel(default_reply="Canberra.")
    out = await turn(make(llm, FakeSearch(CHUNKS)), "Capital city, Australia?")
    assert (out["route"], out["routed_by"]) == ("chat", "probe")
    assert out["probe_score"] == 0.0
    assert json_calls(llm) == 0
    # Nothing in the library came near, and the answer says so before it chats.
    assert out["answer"] == prompts.NOT_RELEVANT + "\n\nCanberra."
    assert llm.history[-1][0]["content"] == prompts.ADAPTIVE_SYSTEM


async def test_probe_close_to_a_chunk_is_rag_and_the_retriever_reuses_its_search() -> None:
    search = FakeSearch(CHUNKS)
    llm = FakeChatModel(default_reply="12 million euros [1].")
    out = await turn(make(llm, search), "What was revenue in the third quarter?")
    assert (out["route"], out["routed_by"]) == ("rag", "probe")
    assert out["probe_score"] >= 0.6
    assert out["sources"][0]["file"] == "q3.pdf"
    assert len(search.calls) == 1, search.calls  # one search served router and retriever
    assert json_calls(llm) == 0


@pytest.mark.parametrize(
    ("reply", "route"),
    [
        ('{"route": "chat"}', "chat"),
        ('{"route": "documents"}', "rag"),
        ('{"route": "maybe"}', "rag"),
        ("definitely chat", "rag"),
        ("[1, 2]", "rag"),
    ],
)
async def test_ambiguous_asks_the_llm_and_malformed_json_searches(reply: str, route: str) -> None:
    llm = FakeChatModel(default_reply="fine")
    llm.enqueue(reply)
    # Shares 2 of 5 words with the dishwasher chunk: between the probe's thresholds.
    out = await turn(make(llm, FakeSearch(CHUNKS)), "Is two years normal, Sam?")
    assert (out["route"], out["routed_by"]) == (route, "llm")
    assert json_calls(llm) == 1
    assert llm.schemas[0] == prompts.ROUTE_SCHEMA


async def test_llm_failure_or_timeout_searches() -> None:
    llm = FakeChatModel(default_reply="fine")
    llm.enqueue_error(LLMError("Ollama is busy"))
    out = await turn(make(llm, FakeSearch(CHUNKS)), "Is two years normal, Sam?")
    assert (out["route"], out["routed_by"]) == ("rag", "llm")
    assert "Ollama is busy" in out["route_reason"]

    slow = FakeChatModel(default_reply='{"route": "chat"}')
    slow.json_delay = 5
    out = await turn(
        make(slow, FakeSearch(CHUNKS), route_timeout=0.01), "Is two years normal, Sam?"
    )
    assert out["route"] == "rag"


async def test_short_follow_up_after_a_search_searches_without_asking() -> None:
    llm = FakeChatModel(default_reply="ok")
    graph = make(llm, FakeSearch(CHUNKS))
    await turn(graph, "Summarize the X200 manual")
    llm.enqueue_json({"query": "warranty of the X200 dishwasher"})
    out = await turn(graph, "and what about its warranty?")
    assert (out["route"], out["routed_by"]) == ("rag", "rules")


async def test_follow_up_after_chat_is_not_forced_to_search() -> None:
    llm = FakeChatModel(default_reply="ok")
    graph = make(llm, FakeSearch(CHUNKS))
    await turn(graph, "hi there")
    out = await turn(graph, "and what about Mars?")
    assert out["routed_by"] != "rules"


@pytest.mark.parametrize(
    ("text", "after_search", "route"),
    [
        ("Hi!", False, "chat"),
        ("thank you so much", True, "chat"),
        ("who are you?", False, "chat"),
        ("Draft an email to my landlord about the broken heater", False, "chat"),
        ("translate 'see you soon' into Italian", False, "chat"),
        ("12 * (3 + 4)", False, "chat"),
        ("write a python function that adds two numbers", False, "chat"),
        ("what does the contract say about termination?", False, "rag"),
        ("as stated in the minutes, who attended?", False, "rag"),
        ("Give me the key points of this paper", False, "rag"),
        ("what's on page 12", False, "rag"),
        ("write a summary of the attached report", False, "rag"),
        ("and who signed it?", True, "rag"),
        ("and who signed it?", False, None),
        ("What is the capital of France?", False, None),
        ("How do I request leave?", False, None),
    ],
)
def test_rules(text: str, after_search: bool, route: str | None) -> None:
    rule = apply_rules(text, after_search=after_search)
    assert (rule.route if rule else None) == route


async def test_probe_scores_against_its_own_vector_search_when_given_one() -> None:
    search, dense = FakeSearch(CHUNKS), FakeSearch(CHUNKS)
    deps = GraphDeps(
        llm=FakeChatModel(default_reply="ok"),
        search=search,
        reranker=PassThroughReranker(),
        known_files=search.files,
        probe=dense,
        options=OPTIONS,
    )
    out = await turn(build_graph(deps, InMemorySaver()), "What was revenue in the third quarter?")
    assert (out["route"], out["routed_by"]) == ("rag", "probe")
    assert [call[0] for call in dense.calls] == ["What was revenue in the third quarter?"]
    assert len(search.calls) == 1  # the retriever's own search


def test_vector_probe_embeds_through_the_shared_cache() -> None:
    from graph.prefetch import VectorProbe
    from models.query_cache import CachedQueryEmbedder
    from tests.fakes.embedder import FakeEmbedder

    class Dense:
        def __init__(self) -> None:
            self.vectors: list[list[float]] = []

        def query_vector(self, vector: Any, k: int, doc_ids: Any = None) -> list[Any]:
            self.vectors.append(list(vector))
            return []

    embedder = FakeEmbedder()
    cached = CachedQueryEmbedder(embedder)
    dense = Dense()
    VectorProbe(dense, cached).search("what is the X200 warranty?", 20)
    cached.embed_query("what is the X200 warranty?")  # the retriever, later in the turn
    assert len(embedder.calls) == 1 and len(dense.vectors) == 1


async def test_small_talk_does_not_read_the_library() -> None:
    search = FakeSearch(CHUNKS)
    reads: list[int] = []

    def known() -> list[str]:
        reads.append(1)
        return search.files()

    deps = GraphDeps(
        llm=FakeChatModel(default_reply="hi"),
        search=search,
        reranker=PassThroughReranker(),
        known_files=known,
        options=OPTIONS,
    )
    out = await turn(build_graph(deps, InMemorySaver()), "thanks a lot!")
    assert (out["route"], out["routed_by"]) == ("chat", "rules")
    assert reads == []
