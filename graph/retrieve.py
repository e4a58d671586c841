"""The retriever node: finds the passages an answer may cite, and numbers them."""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath

from langgraph.config import get_stream_writer

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.state import AgentState, SearchQuery, Source
from ingest.types import Hit

SNIPPET_CHARS = 240


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def to_sources(hits: list[Hit]) -> list[Source]:
    """Number the hits as the sources an answer cites."""
    return [
        Source(
            n=i,
            file=hit.chunk.file,
            path=hit.chunk.path,
            page=hit.chunk.page,
            snippet=_snippet(hit.chunk.text),
            score=round(hit.score, 4),
        )
        for i, hit in enumerate(hits, start=1)
    ]


async def retrieve(state: AgentState, deps: GraphDeps) -> AgentState:
    """Search the store (aimed at @mentioned files if any) and number the passages."""
    mentions = state.get("mentions") or []
    if mentions:
        names = ", ".join(PurePosixPath(m).name for m in mentions)
        report_status("retriever", prompts.STATUS_RETRIEVE_FILES.format(files=names))
    else:
        count = len(deps.known_files())
        report_status("retriever", prompts.STATUS_RETRIEVE.format(count=count))
    queries = state.get("queries") or [SearchQuery(text=state["question"], files=mentions)]
    hits = await _search_all(queries, deps)
    if hits:
        query = " ".join(q["text"] for q in queries)
        scores = await asyncio.to_thread(deps.reranker.rerank, query, [h.chunk.text for h in hits])
        ranked = sorted(zip(scores, hits, strict=True), key=lambda pair: -pair[0])
        hits = [hit for _, hit in ranked[: deps.top_k]]
    sources = to_sources(hits)
    get_stream_writer()({"sources": sources})
    return {"sources": sources, "passages": [hit.chunk.text for hit in hits]}


async def _search_all(queries: list[SearchQuery], deps: GraphDeps) -> list[Hit]:
    """Every query's hits, best score first, each chunk once."""
    best: dict[tuple[str, int], Hit] = {}
    for query in queries:
        found = await asyncio.to_thread(
            deps.search.search, query["text"], deps.top_k * 2, query["files"] or None
        )
        for hit in found:
            key = (hit.chunk.doc_id, hit.chunk.index)
            if key not in best or hit.score > best[key].score:
                best[key] = hit
    return sorted(best.values(), key=lambda hit: -hit.score)
