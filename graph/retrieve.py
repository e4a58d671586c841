"""The retriever node: finds the passages an answer may cite, and numbers them.

The work is ``graph.retrieval.Retriever``'s; this node runs each query the rewriter wrote,
merges their passages, reports what happened and writes sources, passages and candidates.
"""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath

from langgraph.config import get_stream_writer

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.retrieval.types import Passage, Retrieval
from graph.state import AgentState, SearchQuery, Source
from ingest.types import Hit
from models.reranker import reranking_active

SNIPPET_CHARS = 240
MAX_CANDIDATES_IN_TRACE = 60


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def to_sources(hits: list[Hit]) -> list[Source]:
    """Number the hits as the sources an answer cites."""
    sources = []
    for i, hit in enumerate(hits, start=1):
        source = Source(
            n=i,
            file=hit.chunk.file,
            path=hit.chunk.path,
            page=hit.chunk.page,
            snippet=_snippet(hit.chunk.text),
            score=round(hit.score, 4),
        )
        if len(hit.paths) > 1:  # identical files: every path is a source
            source["paths"] = list(hit.paths)
        if hit.chunk.ocr_confidence is not None:
            source["ocr"], source["ocr_confidence"] = True, hit.chunk.ocr_confidence
        sources.append(source)
    return sources


def passage_sources(passages: list[Passage]) -> list[Source]:
    """Number the passages as sources, each with the scores that chose it."""
    sources = []
    for i, p in enumerate(passages, start=1):
        source = Source(
            n=i,
            file=p.file,
            path=p.path,
            page=p.page,
            snippet=_snippet(p.text),
            score=round(p.score, 4),
            scores=p.scores(),
        )
        if len(p.paths) > 1:  # identical files: every path is a source
            source["paths"] = p.paths
        if p.ocr_confidence is not None:
            source["ocr"], source["ocr_confidence"] = True, p.ocr_confidence
        sources.append(source)
    return sources


async def retrieve(state: AgentState, deps: GraphDeps) -> AgentState:
    """Search (aimed at @mentioned files if any), then number the passages."""
    mentions = state.get("mentions") or []
    if mentions:
        names = ", ".join(PurePosixPath(m).name for m in mentions)
        report_status("retriever", prompts.STATUS_RETRIEVE_FILES.format(files=names))
    else:
        count = len(deps.known_files())
        status = prompts.STATUS_RETRIEVE_ONE if count == 1 else prompts.STATUS_RETRIEVE
        report_status("retriever", status.format(count=count))
    queries = state.get("queries") or [SearchQuery(text=state["question"], files=mentions)]
    if deps.retriever is None:
        return await _plain(queries, deps)
    results = [
        await asyncio.to_thread(
            deps.retriever.retrieve,
            q["text"],
            q["files"],
            deps.top_k,
            whole=bool(q["files"]),
            on_rerank=_report_rerank,
        )
        for q in queries
    ]
    for note in dict.fromkeys(n for r in results for n in r.notes):
        report_status("retriever", note)
    passages = _merge(results, deps.top_k)
    sources = passage_sources(passages)
    get_stream_writer()({"sources": sources})
    shown = [c for r in results for c in r.candidates[:MAX_CANDIDATES_IN_TRACE]]
    # Where each candidate sits is read once the answer has started (``record``): the
    # store read would otherwise delay the first token.
    return {
        "sources": sources,
        "passages": [p.text for p in passages],
        "candidates": deps.retriever.outline(shown),
    }


def _report_rerank(count: int) -> None:
    """The chip's own step between searching and writing; called in the search's thread
    (the turn's stream writer is safe to call from there)."""
    status = prompts.STATUS_RERANK_ONE if count == 1 else prompts.STATUS_RERANK
    report_status("retriever", status.format(count=count))


def _merge(results: list[Retrieval], top_k: int) -> list[Passage]:
    """Every query's passages, best first, none repeating text another already holds."""
    if any(r.full_documents for r in results):
        return [p for r in results if r.full_documents for p in r.passages]
    kept: list[Passage] = []
    for p in sorted((p for r in results for p in r.passages), key=lambda p: -p.score):
        clash = any(
            (k.doc_id, k.page) == (p.doc_id, p.page) and p.start < k.end and k.start < p.end
            for k in kept
        )
        if not clash:
            kept.append(p)
    return kept[:top_k]


async def _plain(queries: list[SearchQuery], deps: GraphDeps) -> AgentState:
    """Without a hybrid retriever: the plain search, reranked, best ``top_k``."""
    best: dict[tuple[str, int], Hit] = {}
    for query in queries:
        found = await asyncio.to_thread(
            deps.search.search, query["text"], deps.top_k * 2, query["files"] or None
        )
        for hit in found:
            key = (hit.chunk.doc_id, hit.chunk.index)
            if key not in best or hit.score > best[key].score:
                best[key] = hit
    hits = sorted(best.values(), key=lambda hit: -hit.score)
    if hits:
        text = " ".join(q["text"] for q in queries)
        if reranking_active(deps.reranker):
            _report_rerank(len(hits))
        scores = await asyncio.to_thread(deps.reranker.rerank, text, [h.chunk.text for h in hits])
        ranked = sorted(zip(scores, hits, strict=True), key=lambda pair: -pair[0])
        hits = [hit for _, hit in ranked[: deps.top_k]]
    sources = to_sources(hits)
    get_stream_writer()({"sources": sources})
    return {"sources": sources, "passages": [hit.chunk.text for hit in hits], "candidates": []}
