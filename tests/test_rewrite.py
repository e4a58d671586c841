"""The rewriter: one JSON call for a follow-up, safe fallbacks (a message without history
never reaches it: the router writes its queries, tests/test_router.py)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from graph.mentions import find_mentions, matched_paths
from graph.nodes.rewrite import rewrite
from graph.state import AgentState
from graph.turn_context import TurnContext
from graph.turn_options import TurnOptions
from models.llm import LLMError
from tests.fakes.chat import FakeChatModel
from tests.graph_parts import Library

FILES = ["manuals/x200.pdf", "manuals/z9.pdf"]
HISTORY = [
    HumanMessage(content="What is the X200?"),
    AIMessage(content="The X200 is a dishwasher [1]."),
]


def runtime_for(llm: FakeChatModel, **options: Any) -> Runtime[TurnContext]:
    """The rewriter's runtime outside a graph run: a turn's context, no stream to write to."""
    search = Library([]).retriever.begin()
    return Runtime(context=TurnContext(llm, search, lambda: FILES, TurnOptions(**options)))


def state(text: str, history: list[Any] | None = None) -> AgentState:
    mentioned = find_mentions(text, FILES)
    return {
        "question": text,
        "messages": [*(history or []), HumanMessage(content=text)],
        "mentioned": mentioned,
        "mentions": matched_paths(mentioned),
    }


async def run(llm: FakeChatModel, s: AgentState, **options: Any) -> list[tuple[str, list[str]]]:
    runtime = runtime_for(llm, **options)
    try:
        out = await rewrite(s, runtime)
    finally:
        runtime.context.search.close()
    return [(q["text"], q["files"]) for q in out["queries"]]


async def test_history_makes_one_call_for_a_standalone_query() -> None:
    llm = FakeChatModel()
    llm.enqueue_json({"query": "warranty of the X200 dishwasher"})
    got = await run(llm, state("and what about its warranty?", HISTORY))
    assert got == [("warranty of the X200 dishwasher", [])]
    assert len(llm.history) == 1
    prompt = llm.history[0][-1]["content"]
    assert "User: What is the X200?" in prompt and "its warranty" in prompt


async def test_one_query_per_mentioned_file() -> None:
    # Without history the router writes these (tests/test_router.py); with it, each
    # rewritten query is aimed at every mentioned file.
    llm = FakeChatModel()
    llm.enqueue_json({"query": "x200.pdf and z9.pdf warranty length"})
    got = await run(llm, state("and how long are @x200 and @z9 covered?", HISTORY))
    assert got == [
        ("x200.pdf and z9.pdf warranty length", ["manuals/x200.pdf"]),
        ("x200.pdf and z9.pdf warranty length", ["manuals/z9.pdf"]),
    ]


async def test_every_failure_falls_back_to_the_raw_question() -> None:
    question = "and what about its warranty?"
    for reply in ("not json", '{"q": "x"}', '{"query": ""}', '{"query": 7}', "[1]"):
        llm = FakeChatModel()
        llm.enqueue(reply)
        assert await run(llm, state(question, HISTORY)) == [(question, [])], reply
    failing = FakeChatModel()
    failing.enqueue_error(LLMError("Ollama is not running"))
    assert await run(failing, state(question, HISTORY)) == [(question, [])]
    slow = FakeChatModel(default_reply='{"query": "too late"}')
    slow.json_delay = 5
    assert await run(slow, state(question, HISTORY), rewrite_timeout=0.01) == [(question, [])]


async def test_expansion_is_off_by_default_and_adds_three_variants_when_on() -> None:
    llm = FakeChatModel()
    llm.enqueue_json({"query": "X200 warranty", "variants": ["a", "b", "c", "d"]})
    got = await run(llm, state("X200 warranty?"), expand_queries=True)
    assert [text for text, _ in got] == ["X200 warranty", "a", "b", "c"]
    assert llm.schemas[0] is not None and llm.schemas[0]["properties"]["variants"]["maxItems"] == 3
    assert TurnOptions().expand_queries is False


async def test_expansion_with_malformed_variants_keeps_the_query() -> None:
    llm = FakeChatModel()
    llm.enqueue_json({"query": "X200 warranty", "variants": "many"})
    got = await run(llm, state("X200 warranty?"), expand_queries=True)
    assert got == [("X200 warranty", [])]
