"""What the graph tests stand on: the real retriever over in-memory indexes, and a turn run
the way ``ChatService`` runs one (its own search, passed as the run's context)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import HumanMessage

from graph.deps import GraphDeps
from graph.retrieval.floor import Floor
from graph.retrieval.retriever import RetrievalSettings, Retriever
from graph.turn_options import TurnOptions
from ingest.document_parts import Chunk
from ingest.index.keyword.index import KeywordIndex
from models.protocols import ChatModel, Reranker
from models.reranker import PassThroughReranker
from tests.fakes.dense import FakeDenseIndex, FakeLibrary
from tests.fakes.embedder import FakeEmbedder

DIMENSIONS = 1024
"""Wide enough that two different words almost never share a dimension of FakeEmbedder:
a question that shares no word with a chunk is about as far from it as can be."""


@dataclass
class Library:
    """Both indexes and the library over ``chunks``, written as the indexer would, and the
    retriever reading them; ``dense.filters`` and ``embedder.calls`` show what it did."""

    chunks: Sequence[Chunk]
    reranker: Reranker = field(default_factory=PassThroughReranker)
    embedder: FakeEmbedder = field(default_factory=lambda: FakeEmbedder(DIMENSIONS))
    settings: RetrievalSettings = field(default_factory=RetrievalSettings)

    def __post_init__(self) -> None:
        self.dense = FakeDenseIndex(self.embedder)
        self.keyword = KeywordIndex()
        by_doc: dict[str, list[Chunk]] = {}
        for chunk in self.chunks:
            by_doc.setdefault(chunk.doc_id, []).append(chunk)
        for doc_id, chunks in by_doc.items():
            self.dense.replace_document(doc_id, chunks)
            self.keyword.replace_document(doc_id, chunks)
        self.embedder.calls.clear()  # the library's own texts
        self.paths = sorted({c.path for c in self.chunks})
        self.retriever = Retriever(
            self.dense,
            self.keyword,
            self.embedder,
            self.reranker,
            FakeLibrary(self.paths),
            self.settings,
        )

    def files(self) -> list[str]:
        return list(self.paths)

    def deps(
        self,
        llm: ChatModel,
        known_files: Callable[[], list[str]] | None = None,
        **options: Any,
    ) -> GraphDeps:
        """The graph's dependencies over this library."""
        return GraphDeps(llm, self.retriever, known_files or self.files, TurnOptions(**options))

    @property
    def searches(self) -> list[list[str] | None]:
        """The documents each store search was limited to (None: the whole library)."""
        return self.dense.filters


def query_calls(embedder: FakeEmbedder, *texts: str) -> list[list[str]]:
    """The embedder's calls of ``texts`` alone: a search embeds its queries one a call,
    and an answer's check embeds the question (when its search didn't) with the passages."""
    return [call for call in embedder.calls if call and all(t in texts for t in call)]


def settings(**changes: Any) -> RetrievalSettings:
    """Retrieval settings; the relevance floor is off unless ``floor`` is given."""
    return RetrievalSettings(**{"floor": Floor(-1), **changes})


async def run_turn(
    graph: Any,
    deps: GraphDeps,
    text: str,
    mode: str = "auto",
    thread: str = "t1",
    *,
    opening: bool = False,
) -> dict[str, Any]:
    """One turn of ``graph`` in session ``thread``: its stream's events and the state after."""
    config = {"configurable": {"thread_id": thread}}
    inputs = {"messages": [HumanMessage(content=text)], "question": text, "mode": mode}
    context = deps.begin(text, mode, opening=opening)  # type: ignore[arg-type]
    try:
        stream = graph.astream(inputs, config, context=context, stream_mode="custom")
        events = [e async for e in stream]
    finally:
        context.search.close()
    state = (await graph.aget_state(config)).values
    return {"events": events, "state": state}
