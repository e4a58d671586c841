"""The generator: numbered sources, citation order, context budget, history window, notices."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.budget import estimate_tokens, history_window, message_tokens
from graph.citations import cited_numbers, order_by_citation
from graph.events import Token
from graph.graph import build_graph
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn, settings

CHUNKS = [
    make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros."),
    make_chunk("reports/q2.pdf", 2, "Revenue in the second quarter was 9 million euros."),
    make_chunk("notes.md", None, "Revenue targets are set by the board every quarter."),
]


def make(llm: FakeChatModel, chunks: list[Any] = CHUNKS, top_k: int = 5, **options: Any) -> Any:
    """A graph over ``chunks`` with its dependencies; the relevance floor is off."""
    deps = Library(chunks, settings=settings(top_k=top_k)).deps(llm, **options)
    return build_graph(InMemorySaver()), deps


async def turn(made: Any, text: str, mode: str = "rag", thread: str = "t") -> dict[str, Any]:
    out = await run_turn(*made, text, mode, thread)
    return {"events": out["events"], **out["state"]}


def prompt_tokens(messages: list[dict[str, str]]) -> int:
    return sum(message_tokens(m) for m in messages)


async def test_prompt_numbers_sources_and_tells_the_model_to_cite_only_them() -> None:
    llm = FakeChatModel(default_reply="9 [2] then 12 [1].")
    await turn(make(llm), "What was revenue per quarter?")
    system, user = llm.history[0][0]["content"], llm.history[0][-1]["content"]
    assert "[1] q3.pdf, page 4:\nRevenue in the third quarter" in user
    assert "[3] notes.md:\nRevenue targets" in user
    assert "only facts stated in the sources" in system and "[1]" in system


async def test_cited_sources_first_in_citation_order_then_the_rest_marked() -> None:
    llm = FakeChatModel(
        default_reply="Revenue in the second quarter was 9 million euros [2]. "
        "Revenue in the third quarter was 12 million euros [1]."
    )
    out = await turn(make(llm), "What was revenue per quarter?")
    assert [(s["n"], s["cited"]) for s in out["sources"]] == [(2, True), (1, True), (3, False)]
    saved = out["messages"][-1]
    assert saved.additional_kwargs["sources"] == out["sources"]


def test_citation_forms() -> None:
    assert cited_numbers("a [3] b [1, 2] c [4-5] d [1] e [2024 report] f [x]") == [3, 1, 2, 4, 5]
    sources = [
        {"n": n, "file": "f", "path": "f", "page": None, "snippet": "", "score": 1.0}
        for n in (1, 2, 3)
    ]
    ordered = order_by_citation(sources, "only [3] and [9]")  # type: ignore[arg-type]
    assert [(s["n"], s["cited"]) for s in ordered] == [(3, True), (1, False), (2, False)]


async def test_passages_are_trimmed_lowest_ranked_first_to_fit_the_context() -> None:
    long = [
        make_chunk(f"doc{i}.pdf", 1, f"Revenue detail number {i}. " + "word " * 300, index=i)
        for i in range(8)
    ]
    llm = FakeChatModel(default_reply="ok [1]")
    out = await turn(
        make(llm, long, top_k=8, context_tokens=1600, answer_tokens=400), "Revenue detail?"
    )
    sent = llm.history[0]
    assert prompt_tokens(sent) <= 1600 - 400
    user = sent[-1]["content"]
    kept = [s for s in out["sources"]]
    assert 0 < len(kept) < 8
    assert out["generation"]["passages_trimmed"] == 8 - len(kept)
    # The best-ranked passages stayed, the lowest-ranked went.
    assert sorted(s["n"] for s in kept) == list(range(1, len(kept) + 1))
    assert f"[{len(kept)}] " in user and f"[{len(kept) + 1}] " not in user


async def test_a_question_too_long_for_the_context_is_cut_to_fit() -> None:
    llm = FakeChatModel(default_reply="ok")
    question = "Revenue? " + "please " * 3000
    await turn(make(llm, context_tokens=1024, answer_tokens=256), question, mode="chat")
    assert prompt_tokens(llm.history[0]) <= 1024 - 256
    assert llm.history[0][-1]["content"].endswith(prompts.TRIMMED_QUESTION)


def test_history_window_is_by_tokens_newest_first_and_starts_with_a_question() -> None:
    messages: list[Any] = []
    for i in range(10):
        messages += [
            HumanMessage(content=f"question {i} " + "x " * 50),
            AIMessage(content=f"answer {i} " + "y " * 150),
        ]
    messages.append(HumanMessage(content="now"))
    window = history_window(messages, 500)
    assert sum(message_tokens(m) for m in window) <= 500
    assert window[0]["role"] == "user"
    assert window[-1]["content"].startswith("answer 9")
    assert len(history_window(messages, 5000)) > len(window)
    assert history_window(messages, 0) == []


async def test_history_reaches_the_model_within_its_budget() -> None:
    llm = FakeChatModel(default_reply="fine " * 400)
    graph = make(llm, history_tokens=300)
    for i in range(4):
        await turn(graph, f"tell me something {i}", mode="chat")
    last = llm.history[-1]
    history = last[1:-1]
    assert history and sum(message_tokens(m) for m in history) <= 300
    assert history[0]["role"] == "user"


async def test_unmatched_mention_says_which_files_come_closest() -> None:
    llm = FakeChatModel(default_reply="Revenue was 12 million euros [1].")
    out = await turn(make(llm), "what was revenue in @q4.pdf", mode="auto")
    first_line = out["answer"].splitlines()[0]
    assert first_line.startswith("I found no document called `@q4.pdf`. The closest are ")
    assert "`q2.pdf`, `q3.pdf`" in first_line
    assert out["answer"].endswith("Revenue was 12 million euros [1].")
    tokens = "".join(e.text for e in out["events"] if isinstance(e, Token))
    assert tokens == out["answer"]


async def test_token_estimate_never_undercounts_a_word_or_mark() -> None:
    for text in ("a, b, c.", "東京は大きい", "supercalifragilistic", "12345678"):
        pieces = len(text.split()) + sum(not c.isalnum() and not c.isspace() for c in text)
        assert estimate_tokens(text) >= pieces


async def test_token_estimate_counts_ascii_text_as_mixed_text_is_counted() -> None:
    # Plain ASCII takes a shortcut; appending one wide character forces the general count,
    # which must then be exactly one more.
    for text in ("a, b, c.", "supercalifragilistic", "x_y__z 12345678 ab-cd", "", "  ...  "):
        assert estimate_tokens(text + " é") == estimate_tokens(text) + 1
    assert estimate_tokens("supercalifragilistic") == 5  # 20 letters, 4 to a piece
    assert estimate_tokens("naïve") == 2  # 4 narrow letters, 1 wide
    assert estimate_tokens("東京は") == 3  # one per wide character
    assert estimate_tokens("a—b") == 3  # a wide mark still separates two words
    assert estimate_tokens("café\u00a0au lait") == 4  # a wide space is no token


async def test_trace_records_route_nodes_queries_model_tokens_and_first_token() -> None:
    llm = FakeChatModel(default_reply="12 million euros [1].")
    out = await turn(make(llm), "What does the report say about revenue?", mode="auto")
    trace = out["trace"]
    assert (trace["route"], trace["routed_by"]) == ("rag", "rules")
    assert [n["node"] for n in trace["nodes"]] == ["router", "retriever", "generator"]
    assert all(n["ms"] >= 0 for n in trace["nodes"])
    assert trace["queries"] == [{"text": "What does the report say about revenue?", "files": []}]
    assert trace["model"] == "fake-chat"
    assert trace["prompt_tokens"] > 0 and trace["answer_tokens"] == 4
    assert trace["ttft_ms"] is not None and trace["ttft_ms"] >= 0
    assert out["messages"][-1].additional_kwargs["trace"] == trace
    # A chat turn has its own trace, not the last one's.
    chat = await turn(make(llm), "hello!", mode="auto")
    assert chat["trace"]["route"] == "chat" and chat["trace"]["queries"] == []
    assert [n["node"] for n in chat["trace"]["nodes"]] == ["router", "generator"]
