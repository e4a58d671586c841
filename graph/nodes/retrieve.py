"""The retriever node: runs each query the rewriter wrote on the turn's ``Search``, merges their
passages, and numbers them as sources."""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath

from langgraph.runtime import Runtime

from graph import prompts
from graph.events import Sources, Status
from graph.nodes.find import find_passages
from graph.nodes.numbered import numbered_passage
from graph.records import NumberedPassage
from graph.retrieval.scored import Passage, Retrieval
from graph.scope import in_scope
from graph.state import AgentState, SearchQuery
from graph.turn_context import TurnContext


def numbered(passages: list[Passage]) -> list[NumberedPassage]:
    """Number the passages as sources, each with the scores that chose it."""
    out: list[NumberedPassage] = []
    for i, p in enumerate(passages, start=1):
        passage = numbered_passage(
            i,
            p.text,
            file=p.file,
            path=p.path,
            page=p.page,
            score=p.score,
            scores=p.scores(),
            start=p.start,
            end=p.end,
        )
        source = passage["source"]
        if len(p.paths) > 1:  # identical files: every path is a source
            source["paths"] = p.paths
        if p.ocr_confidence is not None:
            source["ocr"], source["ocr_confidence"] = True, p.ocr_confidence
        out.append(passage)
    return out


async def retrieve(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Search the mentioned files or the scope and number the passages; find turns find instead."""
    if state.get("route") == "find":
        return await find_passages(state, runtime)
    context, tell = runtime.context, runtime.stream_writer
    search = context.search
    mentions = state.get("mentions") or []
    aim = state.get("aim") or []
    within = in_scope(context.known_files(), aim) if aim else None
    if mentions:
        names = ", ".join(PurePosixPath(m).name for m in mentions)
        tell(Status("retriever", prompts.STATUS_RETRIEVE_FILES.format(files=names)))
    else:
        count = len(within if within is not None else context.known_files())
        status = prompts.STATUS_RETRIEVE_ONE if count == 1 else prompts.STATUS_RETRIEVE
        tell(Status("retriever", status.format(count=count)))

    def reranking(count: int) -> None:
        # The chip's own step between searching and writing; called in the search's
        # thread (the turn's stream writer is safe to call from there).
        status = prompts.STATUS_RERANK_ONE if count == 1 else prompts.STATUS_RERANK
        tell(Status("retriever", status.format(count=count)))

    queries = state.get("queries") or [SearchQuery(text=state["question"], files=mentions)]
    results = [
        await asyncio.to_thread(
            search.retrieve,
            q["text"],
            q["files"],
            whole=bool(q["files"]),
            within=within,
            on_rerank=reranking,
        )
        for q in queries
    ]
    for note in dict.fromkeys(n for r in results for n in r.notes):
        tell(Status("retriever", note))
    passages = _merge(results, search.top_k)
    turn_passages = numbered(passages)
    tell(Sources([p["source"] for p in turn_passages]))
    whole = any(r.full_documents for r in results)
    return {"passages": turn_passages, "found": None, "whole_documents": whole}


def _merge(results: list[Retrieval], top_k: int) -> list[Passage]:
    """Every query's passages, best first, no text twice; each lead learns its source or why not."""
    if any(r.full_documents for r in results):
        return [p for r in results if r.full_documents for p in r.passages]
    kept: list[Passage] = []
    for p in sorted((p for r in results for p in r.passages), key=lambda p: -p.score):
        clash = next(
            (
                n
                for n, k in enumerate(kept, start=1)
                if (k.doc_id, k.page) == (p.doc_id, p.page) and p.start < k.end and k.start < p.end
            ),
            None,
        )
        if clash is None:
            kept.append(p)
        else:
            for hit in p.hits:
                hit.left_out = f"its text overlaps passage {clash}, which was taken"
    for p in kept[top_k:]:
        for hit in p.hits:
            hit.left_out = f"not in the top {top_k} of the searches together"
    for n, p in enumerate(kept[:top_k], start=1):
        for hit in p.hits:
            hit.source = n
    return kept[:top_k]
