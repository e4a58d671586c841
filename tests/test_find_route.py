"""The find route: its tiers, the code's count in the answer, coverage, and scopes."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from graph import prompts
from graph.graph import build_graph
from ingest.index.keyword.index import KeywordScores
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn

CHUNKS = [
    make_chunk("home/x200.pdf", 9, "The X200 dishwasher has a warranty of two years."),
    make_chunk("home/kettle.md", None, "The kettle's warranty ends in March."),
    make_chunk("work/laptop.md", None, "The laptop warranty is handled by IT."),
    make_chunk("work/plants.md", None, "The office plants are watered on Fridays."),
    make_chunk("notes.md", None, "Invoice ABC-1234 paid; the shelf is oak."),
]


class RecordingKeyword:
    """The keyword index, noting which documents each search was limited to."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.filters: list[list[str] | None] = []

    def search(self, query: str, doc_ids: Collection[str] | None = None) -> KeywordScores:
        self.filters.append(sorted(doc_ids) if doc_ids is not None else None)
        return self.inner.search(query, doc_ids)

    def term_weights(self, query: str) -> dict[str, float]:
        return self.inner.term_weights(query)


def setup(llm: FakeChatModel, **options: Any) -> tuple[Library, Any, Any]:
    library = Library(CHUNKS)
    library.retriever.keyword = RecordingKeyword(library.retriever.keyword)
    deps = library.deps(llm, **{"probe_chat_below": 0.2, "probe_rag_above": 0.6, **options})
    return library, deps, build_graph(InMemorySaver())


async def test_which_documents_is_find_by_rule_and_the_count_is_the_codes() -> None:
    # The model guesses a count of its own; the answer's count still comes from the find.
    llm = FakeChatModel(default_reply="There are 7 of them: x200.pdf [1].")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which documents mention the warranty?"))["state"]
    assert (out["route"], out["routed_by"]) == ("find", "rules")
    assert out["trace"]["route"] == "find" and out["trace"]["routed_by"] == "rules"
    header = prompts.FIND_COUNT.format(
        matched=3, searched=5, verb="mention", topic="warranty", scope=""
    )
    assert out["answer"].startswith(header + "\n\n")
    assert {s["path"] for s in out["sources"]} == set(out["found"]["paths"])
    assert set(out["found"]["paths"]) == {"home/x200.pdf", "home/kettle.md", "work/laptop.md"}
    # The model was told the count and given each matching document's best passage.
    (prompt,) = [call for call in llm.history if call[0]["content"] == prompts.FIND_SYSTEM]
    assert "found 3 of 5 documents" in prompt[-1]["content"]
    assert out["coverage"] == {
        "documents_read": 3,
        "documents_matched": 3,
        "documents_in_scope": 5,
        "pages_read": 3,
    }


async def test_a_find_answer_names_its_files_with_their_counts_in_its_text() -> None:
    """A small model may answer just "[1]": the files are in the answer all the same."""
    llm = FakeChatModel(default_reply="[1]")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which documents mention the warranty?"))["state"]
    answer = out["answer"]
    lines = [line for line in answer.splitlines() if line.startswith("- `")]
    files = [p.rsplit("/", 1)[-1] for p in out["found"]["paths"]]
    counts = out["found"]["hits"]
    assert lines == [
        f"- `{f}`: {n} passage{'' if n == 1 else 's'}" for f, n in zip(files, counts, strict=True)
    ]
    assert sorted(files) == ["kettle.md", "laptop.md", "x200.pdf"] and all(counts)


async def test_how_many_with_no_match_says_none_without_asking_the_model() -> None:
    llm = FakeChatModel(default_reply="Several.")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "How many documents mention the greenhouse?"))["state"]
    assert out["route"] == "find"
    assert out["answer"] == prompts.FIND_NONE.format(searched=5, scope="", topic="greenhouse")
    assert llm.history == []
    assert out["coverage"]["documents_matched"] == 0 and out["coverage"]["documents_read"] == 0


async def test_the_llm_tier_may_choose_find_and_the_trace_says_so() -> None:
    llm = FakeChatModel(default_reply="Listed.")
    llm.enqueue_json({"route": "find"})
    # A probe band that nothing escapes: only the LLM decides.
    _, deps, graph = setup(llm, probe_chat_below=0.0, probe_rag_above=1.01)
    out = (await run_turn(graph, deps, "any pages on the dishwasher warranty"))["state"]
    assert (out["route"], out["routed_by"]) == ("find", "llm")
    assert out["route_reason"] == "LLM said find"


async def test_a_find_from_the_llm_for_a_message_naming_no_documents_searches() -> None:
    """A 1.5B model said find for a follow-up on a fact; the files would be counted."""
    llm = FakeChatModel(default_reply="Kraków [1].")
    llm.enqueue_json({"route": "find"})
    _, deps, graph = setup(llm, probe_chat_below=0.0, probe_rag_above=1.01)
    out = (await run_turn(graph, deps, "And what was the warranty before that?"))["state"]
    assert (out["route"], out["routed_by"]) == ("rag", "llm")
    assert out["route_reason"].startswith("LLM said find, but the message names no documents")
    assert out.get("found") is None


async def test_a_code_in_a_find_question_matches_literally() -> None:
    llm = FakeChatModel(default_reply="notes.md [1].")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which files mention ABC-123?"))["state"]
    assert out["found"]["matched"] == 0  # ABC-1234 is another code
    out = (await run_turn(graph, deps, "Which files mention ABC-1234?", thread="t2"))["state"]
    assert out["found"]["paths"] == ["notes.md"] and out["found"]["literals"] == ["ABC-1234"]
    quoted = (await run_turn(graph, deps, 'Which files mention "ABC-1234"?', thread="t3"))["state"]
    assert quoted["answer"].startswith("**1 of 5 documents** mentions “ABC-1234”.")


async def test_a_folder_mention_scopes_both_indexes() -> None:
    llm = FakeChatModel(default_reply="Two years [1].")
    library, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "@home/ warranty of the dishwasher?", mode="rag"))["state"]
    assert out["aim"] == ["home/"] and out["trace"]["scope"] == ["home/"]
    assert {s["path"] for s in out["sources"]} <= {"home/x200.pdf", "home/kettle.md"}
    assert out["sources"]
    home = ["id-home/kettle.md", "id-home/x200.pdf"]
    assert library.searches[-1] == home
    assert library.retriever.keyword.filters[-1] == home  # type: ignore[attr-defined]
    assert out["coverage"]["documents_in_scope"] == 2


async def test_a_scoped_find_counts_only_its_folder() -> None:
    llm = FakeChatModel(default_reply="Listed [1].")
    library, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which files in @work/ mention the warranty?"))["state"]
    assert out["route"] == "find" and out["aim"] == ["work/"]
    assert out["found"]["paths"] == ["work/laptop.md"] and out["found"]["searched"] == 2
    work = ["id-work/laptop.md", "id-work/plants.md"]
    assert library.retriever.keyword.filters[-1] == work  # type: ignore[attr-defined]


async def test_a_scope_with_nothing_in_it_says_so() -> None:
    llm = FakeChatModel(default_reply="Made up.")
    _, deps, graph = setup(llm)
    config = {"configurable": {"thread_id": "e"}}
    inputs = {
        "messages": [("user", "warranty?")],
        "question": "warranty?",
        "mode": "rag",
        "scope": ["garage/"],
    }
    context = deps.begin("warranty?", "rag")
    try:
        out = await graph.ainvoke(inputs, config, context=context)
    finally:
        context.search.close()
    assert out["answer"] == prompts.EMPTY_SCOPE.format(scope="garage/")
    assert llm.history == [] and out["coverage"]["documents_in_scope"] == 0


async def test_a_sessions_scope_holds_across_turns_and_a_restart(tmp_path: Path) -> None:
    llm = FakeChatModel(default_reply="From the documents [1].")
    library, deps, _ = setup(llm)
    db = tmp_path / "sessions.db"
    async with aiosqlite.connect(db) as conn:
        graph = build_graph(AsyncSqliteSaver(conn))
        config = {"configurable": {"thread_id": "s"}}
        first = {
            "messages": [("user", "how long is the warranty?")],
            "question": "how long is the warranty?",
            "mode": "rag",
            "scope": ["work/"],
        }
        context = deps.begin("how long is the warranty?", "rag")
        try:
            await graph.ainvoke(first, config, context=context)
        finally:
            context.search.close()
        second = await run_turn(graph, deps, "and the warranty of the dishwasher?", "rag", "s")
        assert second["state"]["aim"] == ["work/"]
    # A new process: a new connection and graph over the same file.
    async with aiosqlite.connect(db) as conn:
        graph = build_graph(AsyncSqliteSaver(conn))
        third = (await run_turn(graph, deps, "what is watered?", "rag", "s"))["state"]
    assert third["scope"] == ["work/"] and third["aim"] == ["work/"]
    assert {s["path"] for s in third["sources"]} <= {"work/laptop.md", "work/plants.md"}
    assert library.searches[-1] == ["id-work/laptop.md", "id-work/plants.md"]


async def test_a_find_answer_saying_again_which_files_match_is_not_marked_wrong() -> None:
    """The real model's "Both of your documents mention parental leave." under the code's
    count was marked in red: "doesn't seem to answer your question · 0 of 1 found"."""
    llm = FakeChatModel(default_reply="All three of your documents mention the warranty.")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which documents mention the warranty?"))["state"]
    assert out["route"] == "find"
    assert [s["verdict"] for s in out["support"]] == ["none"]
    assert out["misses_question"] is False
    assert out["answer"].endswith("All three of your documents mention the warranty.")
    # A sentence that says something of its own is still checked.
    llm = FakeChatModel(default_reply="The kettle's warranty ends in June [2].")
    _, deps, graph = setup(llm)
    out = await run_turn(graph, deps, "Which documents mention the warranty?", thread="t2")
    assert [s["verdict"] for s in out["state"]["support"]] != ["none"]
