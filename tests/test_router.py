"""The router: mode, mentions, rules, the vector probe and the LLM, cheapest first."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.events import NodeTimed, Status
from graph.graph import build_graph
from graph.nodes import rules
from graph.nodes.rules import apply_rules
from models.llm import LLMError
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn

CHUNKS = [
    make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros."),
    make_chunk("manuals/x200.pdf", 9, "The X200 dishwasher has a warranty of two years."),
    make_chunk("notes.md", None, "The office plants are watered on Fridays."),
]
# The fake embedder's vectors are bags of words: a question's cosine to a chunk is about
# the words they share, over the square root of the product of their lengths.
OPTIONS = {"probe_chat_below": 0.2, "probe_rag_above": 0.6}


class Router:
    """A graph over a library of ``chunks``; ``library.searches`` shows the store searches."""

    def __init__(self, llm: FakeChatModel, chunks: list[Any] = CHUNKS, **options: Any) -> None:
        self.library = Library(chunks)
        self.deps = self.library.deps(llm, **{**OPTIONS, **options})
        self.graph = build_graph(InMemorySaver())


def make(llm: FakeChatModel, chunks: list[Any] = CHUNKS, **options: Any) -> Router:
    return Router(llm, chunks, **options)


async def turn(router: Router, text: str, mode: str = "auto", thread: str = "t") -> dict[str, Any]:
    out = await run_turn(router.graph, router.deps, text, mode, thread)
    return {"events": out["events"], **out["state"]}


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
        ("Summarize the report", "auto", "document", "rules"),
        ("Summarize the policy on paid leave", "auto", "rag", "rules"),
        ("@q3.pdf give me an outline", "auto", "document", "rules"),
        ("what does @q3.pdf say about revenue", "auto", "rag", "mention"),
        ("compare @q3.pdf and @x200.pdf", "auto", "compare", "rules"),
        ("How do these two reports differ?", "auto", "compare", "rules"),
        ("@q3.pdf hi", "document", "document", "mode"),
        ("@q3.pdf and @x200.pdf", "document", "compare", "mode"),
        ("According to my notes, when are plants watered?", "auto", "rag", "rules"),
    ],
)
async def test_decisive_tiers(text: str, mode: str, route: str, tier: str) -> None:
    llm = FakeChatModel(default_reply="ok")
    out = await turn(make(llm), text, mode)
    assert (out["route"], out["routed_by"]) == (route, tier)
    assert json_calls(llm) == 0


async def test_general_knowledge_the_library_holds_is_searched_not_answered_from_memory() -> None:
    chunks = [
        *CHUNKS,
        make_chunk("warsaw.md", None, "Warsaw became the capital of Poland in 1596."),
    ]
    llm = FakeChatModel(default_reply="In 1596 [1].")
    held = await turn(make(llm, chunks), "When did Warsaw become the capital of Poland?")
    assert (held["route"], held["routed_by"]) == ("rag", "probe")
    assert held["sources"][0]["file"] == "warsaw.md"
    elsewhere = await turn(make(llm), "What is the capital of France?")
    assert (elsewhere["route"], elsewhere["routed_by"]) == ("chat", "rules")
    assert json_calls(llm) == 0


async def test_rule_chat_never_searches() -> None:
    router = make(FakeChatModel(default_reply="hi"))
    await turn(router, "good morning!")
    assert router.library.searches == [] and router.library.embedder.calls == []


async def test_empty_library_chats() -> None:
    out = await turn(make(FakeChatModel(default_reply="ok"), []), "What was revenue?")
    assert (out["route"], out["routed_by"]) == ("chat", "library")


async def test_probe_far_from_every_chunk_is_chat() -> None:
    llm = FakeChatModel(default_reply="Canberra.")
    out = await turn(make(llm), "Capital city, Australia?")
    assert (out["route"], out["routed_by"]) == ("chat", "probe")
    assert out["probe_score"] < OPTIONS["probe_chat_below"]
    assert json_calls(llm) == 0
    # Nothing in the library came near, and the answer says so before it chats.
    assert out["answer"] == prompts.NOT_RELEVANT + "\n\nCanberra."
    assert llm.history[-1][0]["content"] == prompts.ADAPTIVE_SYSTEM


async def test_probe_close_to_a_chunk_is_rag_and_the_retriever_reuses_its_search() -> None:
    llm = FakeChatModel(default_reply="12 million euros [1].")
    router = make(llm)
    out = await turn(router, "What was revenue in the third quarter?")
    assert (out["route"], out["routed_by"]) == ("rag", "probe")
    assert out["probe_score"] >= 0.6
    assert out["sources"][0]["file"] == "q3.pdf"
    # One embedding and one store search served router and retriever. (The answer check
    # embeds the passages, the answer's sentences and the question again after them.)
    question = ["What was revenue in the third quarter?"]
    calls = router.library.embedder.calls
    before_check = calls[: next(i for i, call in enumerate(calls) if call != question)]
    assert before_check == [question]
    assert router.library.searches == [None]
    assert json_calls(llm) == 0


@pytest.mark.parametrize(
    ("reply", "route"),
    [
        ('{"route": "chat"}', "chat"),
        ('{"route": "documents"}', "rag"),
        ('{"route": "document"}', "document"),
        ('{"route": "compare"}', "compare"),
        ('{"route": "maybe"}', "rag"),
        ("definitely chat", "rag"),
        ("[1, 2]", "rag"),
    ],
)
async def test_ambiguous_asks_the_llm_and_malformed_json_searches(reply: str, route: str) -> None:
    llm = FakeChatModel(default_reply="fine")
    llm.enqueue(reply)
    # Shares 2 of 5 words with the dishwasher chunk: between the probe's thresholds.
    out = await turn(make(llm), "Is two years normal, Sam?")
    assert (out["route"], out["routed_by"]) == (route, "llm")
    assert json_calls(llm) == 1
    assert llm.schemas[0] == prompts.ROUTE_SCHEMA


async def test_llm_failure_or_timeout_searches() -> None:
    llm = FakeChatModel(default_reply="fine")
    llm.enqueue_error(LLMError("Ollama is busy"))
    out = await turn(make(llm), "Is two years normal, Sam?")
    assert (out["route"], out["routed_by"]) == ("rag", "llm")
    assert "Ollama is busy" in out["route_reason"]

    slow = FakeChatModel(default_reply='{"route": "chat"}')
    slow.json_delay = 5
    out = await turn(make(slow, route_timeout=0.01), "Is two years normal, Sam?")
    assert out["route"] == "rag"


async def test_short_follow_up_after_a_search_searches_without_asking() -> None:
    llm = FakeChatModel(default_reply="ok")
    graph = make(llm)
    await turn(graph, "Summarize the X200 manual")
    llm.enqueue_json({"query": "warranty of the X200 dishwasher"})
    out = await turn(graph, "and what about its warranty?")
    assert (out["route"], out["routed_by"]) == ("rag", "rules")


async def test_follow_up_after_chat_is_not_forced_to_search() -> None:
    llm = FakeChatModel(default_reply="ok")
    graph = make(llm)
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
        ("What is the capital of France?", False, "chat"),
        ("Why is the sky blue?", False, None),
        ("How do I request leave?", False, None),
        # A greeting in front: the rules judge what follows it.
        ("Hi! What's 18% of 65?", False, "chat"),
        ("thanks a lot! Now tell me a joke", False, "chat"),
        ("Hello there, can you write me a short poem about rain?", False, "chat"),
        ("Hi! How do I request leave?", False, None),
        ("hey, what does the policy say about overtime?", False, "rag"),
        # Writing on text given after a colon is not about a document.
        ("Improve this paragraph: we was late because the bus were slow", False, "chat"),
        ("Summarize this paragraph of the report", False, "rag"),
        ("Make this sound more polite: send it now", False, "chat"),
        ("Is it 'affect' or 'effect' in my sentence?", False, "chat"),
        # Arithmetic and general knowledge no document answers.
        ("How many seconds are in a day?", False, "chat"),
        ("what is half of 350", False, "chat"),
        ("Is 97 a prime number?", False, "chat"),
        ("Who discovered penicillin?", False, "chat"),
        ("Give me a synonym for happy", False, "chat"),
        ("How many hours of leave do I earn each pay period?", False, None),
        ("How many days a week can I telework?", False, None),
        ("Who approves travel requests?", False, None),
    ],
)
def test_rules(text: str, after_search: bool, route: str | None) -> None:
    rule = apply_rules(text, after_search=after_search)
    assert (rule.route if rule else None) == route


@pytest.mark.parametrize(
    ("text", "route"),
    [
        # A count a text gives, of a thing that shares a document's name: a fact to find.
        ("How many notes can one LinnSequencer disk hold?", "rag"),
        ("How many pages does the travel card application have?", "rag"),
        ("How many files can a single upload contain?", "rag"),
        ("How many documents do I need to bring on my first day?", "rag"),
        # A count of documents: which of them, how many, list them.
        ("How many documents mention the travel card?", "find"),
        ("How many files do I have?", "find"),
        ("Which of my files talk about Slack?", "find"),
        ("list the reports that mention travel", "find"),
    ],
)
def test_a_count_of_things_is_not_a_count_of_documents(text: str, route: str) -> None:
    rule = apply_rules(text, after_search=False)
    assert rule is not None and rule.route == route


async def test_small_talk_does_not_read_the_library() -> None:
    reads: list[int] = []
    library = Library(CHUNKS)

    def known() -> list[str]:
        reads.append(1)
        return library.files()

    deps = library.deps(FakeChatModel(default_reply="hi"), known, **OPTIONS)
    out = await run_turn(build_graph(InMemorySaver()), deps, "thanks a lot!")
    assert (out["state"]["route"], out["state"]["routed_by"]) == ("chat", "rules")
    assert reads == []


@pytest.mark.parametrize(
    "text",
    [
        "summarize section 3 of @q3.pdf",
        "@q3.pdf explain the revenue table",
        "summarize what @q3.pdf says about revenue",
    ],
)
async def test_a_request_narrowed_to_a_part_of_a_file_searches_it(text: str) -> None:
    out = await turn(make(FakeChatModel(default_reply="ok")), text)
    assert (out["route"], out["routed_by"]) == ("rag", "mention")


def nodes_run(events: list[Any]) -> list[str]:
    return [e.node for e in events if isinstance(e, NodeTimed)]


async def test_a_message_searched_as_it_is_goes_from_the_router_to_the_retriever() -> None:
    # Moved from tests/test_rewrite.py (no history: passes through without an LLM call):
    # the router writes the query now, and the rewriter does not run.
    llm = FakeChatModel(default_reply="Two years [1].")
    out = await turn(make(llm), "According to the manual, what is the X200 warranty?")
    assert (out["route"], out["routed_by"]) == ("rag", "rules")
    assert out["queries"] == [
        {"text": "According to the manual, what is the X200 warranty?", "files": []}
    ]
    assert nodes_run(out["events"]) == ["router", "retriever", "generator"]
    assert not any(isinstance(e, Status) and e.node == "rewriter" for e in out["events"])
    assert json_calls(llm) == 0
    # A follow-up, and a message whose rephrasings are searched too, are the rewriter's.
    router = make(llm)
    await turn(router, "According to the manual, what is the X200 warranty?")
    llm.enqueue_json({"query": "warranty of the X200 dishwasher"})
    out = await turn(router, "and how long is it?")
    assert nodes_run(out["events"]) == ["router", "rewriter", "retriever", "generator"]
    assert out["queries"] == [{"text": "warranty of the X200 dishwasher", "files": []}]
    expanding = make(llm, expand_queries=True)
    llm.enqueue_json({"query": "X200 warranty", "variants": ["guarantee", "cover", "repair"]})
    out = await turn(expanding, "According to the manual, what is the X200 warranty?")
    assert nodes_run(out["events"]) == ["router", "rewriter", "retriever", "generator"]
    assert [q["text"] for q in out["queries"]] == ["X200 warranty", "guarantee", "cover", "repair"]


async def test_the_router_aims_a_query_at_each_mentioned_file() -> None:
    # Moved from tests/test_rewrite.py (one query per mentioned file, without history).
    llm = FakeChatModel(default_reply="ok")
    out = await turn(make(llm), "what do @x200 and @q3 say about warranties")
    assert (out["route"], out["routed_by"]) == ("rag", "mention")
    assert [(q["text"], q["files"]) for q in out["queries"]] == [
        ("what do x200.pdf and q3.pdf say about warranties", ["manuals/x200.pdf"]),
        ("what do x200.pdf and q3.pdf say about warranties", ["reports/q3.pdf"]),
    ]
    assert nodes_run(out["events"]) == ["router", "retriever", "generator"]
    assert json_calls(llm) == 0


async def test_an_opening_message_is_judged_by_the_rules_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judged: list[str] = []

    def counted(text: str, *, after_search: bool) -> rules.Rule | None:
        judged.append(text)
        return apply_rules(text, after_search=after_search)

    monkeypatch.setattr(rules, "apply_rules", counted)
    router = make(FakeChatModel(default_reply="Under the blue flowerpot [1]."))
    for text in ("Summarize the notes about the plants", "thanks a lot!"):
        out = await run_turn(router.graph, router.deps, text, thread=text, opening=True)
        assert out["state"]["routed_by"] == "rules"
    # Before the graph ran (to start the search early), and not again by the router or
    # when the answer's passages are focused.
    assert judged == ["Summarize the notes about the plants", "thanks a lot!"]


@pytest.mark.parametrize(
    "text", ["Thanks, that helps!", "great, thanks", "ok thanks, that was really helpful"]
)
def test_thanks_after_a_search_is_small_talk_not_a_follow_up(text: str) -> None:
    rule = apply_rules(text, after_search=True)
    assert rule is not None and rule.route == "chat"
