"""The graph end to end with in-process fakes: routing, retrieval, generation, failure."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.deps import GraphDeps
from graph.events import NodeTimed, Recorded, Sources, Status, Token
from graph.graph import build_graph
from graph.state import Mode
from models.llm import OllamaUnavailable
from models.protocols import Reranker
from models.reranker import FlashRankReranker, PassThroughReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import GatedEmbedder
from tests.fakes.search import make_chunk
from tests.graph_parts import DIMENSIONS, Library, query_calls, run_turn, settings
from tests.running import eventually

CHUNKS = [
    make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros."),
    make_chunk("notes.md", None, "The office plants are watered on Fridays."),
    make_chunk("other.pdf", 2, "Revenue of the subsidiary was small."),
]


class Turns:
    """One graph over one library, as the app keeps them: every turn begins its own search."""

    def __init__(self, llm: FakeChatModel, library: Library, **options: Any) -> None:
        self.llm, self.library = llm, library
        self.deps = library.deps(llm, **options)
        self.graph = build_graph(InMemorySaver())

    async def run(self, text: str, mode: str = "auto", thread: str = "t1") -> dict[str, Any]:
        return await run_turn(self.graph, self.deps, text, mode, thread)


def turns(llm: FakeChatModel, chunks: Sequence[Any] = CHUNKS, **options: Any) -> Turns:
    return Turns(llm, Library(chunks), **options)


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events if not isinstance(e, NodeTimed | Recorded)]


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token))


async def test_rag_turn_streams_tokens_after_numbered_sources() -> None:
    llm = FakeChatModel()
    llm.enqueue("Revenue was 12 million euros [1].")
    out = await turns(llm).run("What was revenue in the quarter?")

    order = kinds(out["events"])
    assert order.index("sources") < order.index("token")
    assert order.count("token") > 1
    assert text_of(out["events"]) == out["state"]["answer"] == "Revenue was 12 million euros [1]."
    top = out["state"]["sources"][0]
    assert (top["n"], top["file"], top["page"]) == (1, "q3.pdf", 4)
    prompt = llm.history[0][-1]["content"]
    assert "[1] q3.pdf, page 4:\nRevenue in the third quarter was 12 million euros." in prompt
    assert llm.history[0][0]["content"] == prompts.RAG_SYSTEM
    # A new chat's first message is searched as it is: the router writes its query.
    assert [e.node for e in out["events"] if isinstance(e, NodeTimed)] == [
        "router",
        "retriever",
        "generator",
    ]


async def test_a_mentioned_file_that_fits_is_given_whole() -> None:
    rig = turns(FakeChatModel(default_reply="ok"))
    out = await rig.run("@other.pdf what about revenue?")
    assert rig.library.searches == []  # nothing searched: read whole
    assert [s["file"] for s in out["state"]["sources"]] == ["other.pdf"]
    # One list: each passage carries the source it is cited as.
    passages = out["state"]["passages"]
    assert [(p["source"]["file"], p["text"]) for p in passages] == [
        ("other.pdf", "Revenue of the subsidiary was small.")
    ]


async def test_mention_aims_retrieval_at_that_file() -> None:
    too_big = Library(CHUNKS, settings=settings(context_chars=10))
    rig = Turns(FakeChatModel(default_reply="ok"), too_big)
    out = await rig.run("@other.pdf what about revenue?")
    assert rig.library.searches == [["id-other.pdf"]]
    assert "@" not in rig.library.embedder.calls[-1][0]
    assert {s["file"] for s in out["state"]["sources"]} == {"other.pdf"}


async def test_small_talk_goes_straight_to_the_generator() -> None:
    llm = FakeChatModel(default_reply="Hello!")
    rig = turns(llm)
    out = await rig.run("hello!")
    assert rig.library.searches == [] and rig.library.embedder.calls == []
    assert out["state"]["route"] == "chat"
    assert out["state"]["answer"] == "Hello!"
    assert llm.history[0][0]["content"] == prompts.CHAT_SYSTEM


async def test_mode_override_beats_the_heuristic() -> None:
    rig = turns(FakeChatModel())
    await rig.run("hello revenue", mode="rag")
    assert len(rig.library.searches) == 1
    rig.library.searches.clear()
    await rig.run("What was revenue?", mode="chat", thread="t2")
    assert rig.library.searches == []


async def test_nothing_found_says_so_then_chats_without_claiming_the_documents() -> None:
    llm = FakeChatModel(default_reply="Leonardo da Vinci painted it.")
    out = await turns(llm).run("Who painted Mona Lisa?", mode="rag")
    answer = out["state"]["answer"]
    assert answer.startswith(prompts.NOT_RELEVANT + "\n\n")
    assert answer.endswith("Leonardo da Vinci painted it.")
    assert out["state"]["sources"] == []
    assert llm.history[0][0]["content"] == prompts.ADAPTIVE_SYSTEM


async def test_ollama_down_degrades_to_cited_passages() -> None:
    llm = FakeChatModel()
    llm.reachable = False
    out = await turns(llm).run("What was revenue in the quarter?")
    answer = out["state"]["answer"]
    assert "Ollama is not running" in answer
    assert "[1] `q3.pdf`, page 4" in answer
    assert "12 million euros" in answer
    assert text_of(out["events"]) == answer


HANDBOOK = (
    "The facilities handbook covers the building on Elm Street. It was revised in March after "
    "the renovation of the ground floor. Visitors sign in at the front desk and wear a badge "
    "at all times. The canteen opens at eight and closes at three, except on Fridays. Parking "
    "is behind the building, and bicycles go in the shed by the side entrance. Deliveries come "
    "to the loading bay before noon. Cleaners come in the evening, after six, and the windows "
    "are washed in spring and autumn. The heating is set by the facilities team and cannot be "
    "changed in the rooms. Lost property is kept for a month at the front desk. The "
    "meeting rooms on the first floor are booked through the intranet. Printers are on every "
    "floor beside the lifts. The spare key to the archive room is kept by the caretaker, Mr. "
    "Olsen, in the blue cabinet. The fire alarm is tested every Monday at ten."
)


async def test_without_a_model_each_passage_shows_its_part_that_answers() -> None:
    llm = FakeChatModel()
    llm.reachable = False
    chunks = [
        make_chunk("handbook.md", None, HANDBOOK),
        make_chunk("keys.md", None, "Archive keys: ask the caretaker."),  # short: whole
    ]
    out = await turns(llm, chunks).run("Who keeps the spare key to the archive room?", mode="rag")
    answer = out["state"]["answer"]
    assert "Ollama is not running" in answer
    flat = " ".join(answer.replace(">", " ").split())
    assert "The spare key to the archive room is kept by the caretaker, Mr. Olsen" in flat
    assert "Archive keys: ask the caretaker." in flat
    assert "…" in flat and "Deliveries come to the loading bay" not in flat  # not all of it


async def test_failure_mid_stream_keeps_what_was_said() -> None:
    llm = FakeChatModel()
    llm.enqueue_error(OllamaUnavailable("http://x"), after="Revenue was")
    out = await turns(llm).run("What was revenue?")
    assert out["state"]["answer"].startswith("Revenue was")
    assert "cut off" in out["state"]["answer"]


async def test_chat_turn_does_not_inherit_last_turns_sources_or_trace() -> None:
    rig = turns(FakeChatModel(default_reply="ok"))
    first = await rig.run("What was revenue?")
    assert first["state"]["sources"] and first["state"]["trace"]["candidates"]
    second = await rig.run("thanks")
    assert second["state"]["sources"] == [] and second["state"]["trace"]["candidates"] == []
    assert len(second["state"]["messages"]) == 4


async def test_history_reaches_the_model() -> None:
    llm = FakeChatModel(default_reply="ok")
    rig = turns(llm)
    await rig.run("What was revenue?")
    await rig.run("And the plants watered when?")
    answering = llm.history[-1]  # the rewriter's JSON call came before it
    roles = [m["role"] for m in answering]
    assert roles == ["system", "user", "assistant", "user"]
    assert answering[1]["content"] == "What was revenue?"


async def test_the_search_status_counts_the_library_in_words() -> None:
    async def searching(chunks: list[Any]) -> list[str]:
        out = await turns(FakeChatModel(default_reply="ok"), chunks).run("What was revenue?", "rag")
        return [e.text for e in out["events"] if isinstance(e, Status) and e.node == "retriever"]

    assert await searching(CHUNKS[:1]) == ["Searching 1 document…"]
    assert await searching(CHUNKS) == ["Searching 3 documents…"]


async def test_the_trace_locates_what_the_search_weighed_once_the_answer_is_written() -> None:
    rig = turns(FakeChatModel(default_reply="12 million euros [1]."))
    out = await rig.run("What was revenue in the quarter?")
    (sources,) = [e.sources for e in out["events"] if isinstance(e, Sources)]
    trace = out["state"]["trace"]
    weighed = trace["candidates"]
    assert {c["path"] for c in weighed} == set(rig.library.paths)
    assert all({"path", "page", "index", "dense", "bm25", "fused"} <= set(c) for c in weighed)
    assert weighed[0]["path"] == sources[0]["path"] == "reports/q3.pdf"
    saved = out["state"]["messages"][-1].additional_kwargs
    assert saved["trace"] == trace and saved["sources"] == out["state"]["sources"]


class ScoresByLength:
    """A reranking model behind the ``Reranker`` protocol: longer passages score higher."""

    problem = None

    def __init__(self) -> None:
        self.calls = 0

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls += 1
        return [float(len(p)) for p in passages]


def reranked(reranker: Reranker, llm: FakeChatModel | None = None, **options: Any) -> Turns:
    """Turns over the three chunks with ``reranker`` and no relevance floor."""
    library = Library(CHUNKS, reranker=reranker, settings=settings())
    return Turns(llm or FakeChatModel(default_reply="12 million euros [1]."), library, **options)


def statuses(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, Status)]


async def test_a_reranking_model_is_its_own_step_between_searching_and_writing() -> None:
    reranker = ScoresByLength()
    out = await reranked(reranker).run("What was revenue?", mode="rag")
    said = statuses(out["events"])
    assert reranker.calls == 1
    searching = said.index("Searching 3 documents…")
    reranking = said.index("Reranking 3 passages…")
    assert searching < reranking < said.index("Reading the 3 passages found…")
    # The reranker's order is the answer's: the longest passage is source 1.
    assert out["state"]["sources"][0]["path"] == "reports/q3.pdf"


async def test_without_a_reranking_model_no_reranking_step_is_shown(tmp_path: Path) -> None:
    absent = FlashRankReranker(tmp_path / "models")  # its model is not on disk
    assert not absent.prepare(download=False)
    for reranker in (absent, PassThroughReranker()):
        out = await reranked(reranker).run("What was revenue?", mode="rag")
        said = statuses(out["events"])
        assert "Searching 3 documents…" in said and "Reading the 3 passages found…" in said
        assert not any(s.endswith(("passages…", "passage…")) for s in said), said


async def test_the_probe_and_the_retrieval_share_one_embedding_and_one_store_search() -> None:
    rig = turns(FakeChatModel(default_reply="12 million euros [1]."))
    out = await rig.run("What was revenue in the third quarter?")
    assert (out["state"]["route"], out["state"]["routed_by"]) == ("rag", "probe")
    assert out["state"]["sources"][0]["file"] == "q3.pdf"
    question = "What was revenue in the third quarter?"
    assert query_calls(rig.library.embedder, question) == [[question]]
    assert rig.library.searches == [None]  # the probe's search served the retrieval

    await rig.run("What was revenue in the third quarter?", thread="t2")
    assert len(rig.library.searches) == 2  # a new turn, a new search: nothing kept between


class HeldAtTheSearch(GatedEmbedder):
    """Once ``armed``, holds each embedding until the turn's retrieval has begun, noting
    whether it was already under way by then."""

    def __init__(self) -> None:
        super().__init__(DIMENSIONS)
        self.armed = False
        self.searching = threading.Event()
        self.early: list[bool] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.armed:
            self.early.append(not self.searching.is_set())
            assert self.searching.wait(5), "the search never began"
        return super().embed(texts)


async def test_a_search_turn_starts_embedding_its_question_at_the_router() -> None:
    embedder = HeldAtTheSearch()
    library = Library(CHUNKS, embedder=embedder, settings=settings())
    search_keywords = library.keyword.search

    def keywords(*args: Any, **kwargs: Any) -> Any:
        # The keyword side runs beside the query's embedding: the retrieval has begun.
        embedder.searching.set()
        return search_keywords(*args, **kwargs)

    library.keyword.search = keywords  # type: ignore[method-assign]
    embedder.armed = True
    rig = Turns(FakeChatModel(default_reply="12 million euros [1]."), library)
    out = await rig.run("According to the report, what was revenue?")
    assert out["state"]["route"] == "rag" and out["state"]["sources"]
    # Under way before the search, and only once (the answer's check embeds after it).
    assert embedder.early[0] and not any(embedder.early[1:])
    question = "According to the report, what was revenue?"
    assert query_calls(embedder, question) == [[question]]


async def test_an_opening_question_that_may_search_starts_its_embedding() -> None:
    embedder = GatedEmbedder(DIMENSIONS)
    library = Library(CHUNKS, embedder=embedder)
    deps = library.deps(FakeChatModel())
    expanding = library.deps(FakeChatModel(), expand_queries=True)
    nothing_early: list[tuple[str, Mode, GraphDeps, bool]] = [
        ("thanks a lot", "auto", deps, True),  # small talk
        ("Write me a haiku about autumn", "auto", deps, True),  # writing
        ("What was revenue?", "chat", deps, True),
        ("What does @notes.md say?", "auto", deps, True),  # the router resolves mentions
        ("What was revenue?", "auto", expanding, True),  # the rewriter's variants are searched
        ("What was revenue?", "auto", deps, False),  # not a new session's first message
    ]
    for text, mode, with_deps, opening in nothing_early:
        with_deps.begin(text, mode, opening=opening).search.close()
    assert embedder.calls == []

    embedder.hold()
    early = [
        ("According to the report, what was revenue?", "auto"),  # a rule says search
        ("What was revenue?", "auto"),  # left to the probe
        ("plants", "rag"),
    ]
    for text, mode in early:
        search = deps.begin(text, mode, opening=True).search
        try:
            # Under way before anything asked for it; the probe then takes it up.
            await eventually(lambda: embedder.waiting == 1, what="the early embedding")
            embedder.release()
            assert search.probe(text) > 0
        finally:
            search.close()
    assert embedder.calls == [[text] for text, _ in early]  # once each


async def test_small_talk_and_follow_ups_embed_nothing_early() -> None:
    llm = FakeChatModel(default_reply="12 million euros [1].")
    rig = reranked(PassThroughReranker(), llm)
    embedder = rig.library.embedder
    await rig.run("thanks a lot")
    assert embedder.calls == []  # chat: nothing searched, nothing embedded
    await rig.run("According to the report, what was revenue?", thread="t2")
    embedder.calls.clear()
    # A follow-up is rewritten before it is searched: its raw words are not embedded.
    llm.enqueue_json({"query": "revenue of the subsidiary"})
    await rig.run("and what about the subsidiary?", mode="rag", thread="t2")
    said, rewritten = "and what about the subsidiary?", "revenue of the subsidiary"
    assert query_calls(embedder, said, rewritten) == [[rewritten]]


async def test_the_graph_takes_its_chat_model_from_the_turn() -> None:
    configured, other = FakeChatModel(default_reply="one"), FakeChatModel(default_reply="two")
    rig = turns(configured)
    context = rig.deps.begin("hello there", llm=other)
    try:
        config = {"configurable": {"thread_id": "t"}}
        inputs = {"messages": [], "question": "hello there", "mode": "chat"}
        tokens = [
            e.text
            async for e in rig.graph.astream(inputs, config, context=context, stream_mode="custom")
            if isinstance(e, Token)
        ]
    finally:
        context.search.close()
    assert "".join(tokens) == "two" and configured.history == []
    assert rig.library.retriever.reader.users == 0
