"""The rewriter, retriever and generator nodes."""

from __future__ import annotations

import asyncio
import re
from pathlib import PurePosixPath

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.config import get_stream_writer

from graph import prompts
from graph.deps import GraphDeps
from graph.routing import find_mentions
from graph.state import AgentState, Source
from ingest.types import Hit
from models.llm import LLMError
from models.protocols import Message

SNIPPET_CHARS = 240


def _status(node: str, text: str) -> None:
    get_stream_writer()({"status": {"node": node, "text": text}})


async def rewrite(state: AgentState, deps: GraphDeps) -> AgentState:
    """Turn the message into a search query; for now the message without @mentions."""
    _status("rewriter", prompts.STATUS_REWRITE)
    # The router already resolved the mentions; only those need stripping.
    _, query = find_mentions(state["question"], state.get("mentions") or [])
    return {"query": query or state["question"]}


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
        _status("retriever", prompts.STATUS_RETRIEVE_FILES.format(files=names))
    else:
        count = len(deps.known_files())
        _status("retriever", prompts.STATUS_RETRIEVE.format(count=count))
    query = state.get("query") or state["question"]
    hits = await asyncio.to_thread(deps.search.search, query, deps.top_k * 2, mentions or None)
    if hits:
        scores = await asyncio.to_thread(deps.reranker.rerank, query, [h.chunk.text for h in hits])
        ranked = sorted(zip(scores, hits, strict=True), key=lambda pair: -pair[0])
        hits = [hit for _, hit in ranked[: deps.top_k]]
    sources = to_sources(hits)
    get_stream_writer()({"sources": sources})
    return {"sources": sources, "passages": [hit.chunk.text for hit in hits]}


def _page_label(page: int | None) -> str:
    return f", page {page}" if page is not None else ""


def _history(messages: list[AnyMessage], turns: int) -> list[Message]:
    """The last few question/answer pairs, without the message being answered now."""
    earlier = messages[:-1][-2 * turns :] if turns else []
    out: list[Message] = []
    for message in earlier:
        role = "user" if isinstance(message, HumanMessage) else "assistant"
        out.append({"role": role, "content": str(message.content)})
    return out


_MARKDOWN = re.compile(r"([\\`*_\[\]#<>|])")


def _md_escape(text: str) -> str:
    """Passages are shown as Markdown; their own * and _ must not turn into formatting."""
    return _MARKDOWN.sub(r"\\\1", text)


def _degraded(error: LLMError, sources: list[Source]) -> str:
    if not sources:
        return prompts.DEGRADED_CHAT.format(error=error)
    body = "".join(
        prompts.DEGRADED_SOURCE.format(
            n=s["n"], file=s["file"], page=_page_label(s["page"]), snippet=_md_escape(s["snippet"])
        )
        for s in sources
    )
    return prompts.DEGRADED_HEADER.format(error=error) + body.rstrip()


def _rag_messages(state: AgentState, deps: GraphDeps) -> list[Message]:
    blocks = "\n\n".join(
        prompts.SOURCE_BLOCK.format(
            n=s["n"], file=s["file"], page=_page_label(s["page"]), text=text
        )
        for s, text in zip(state.get("sources", []), state.get("passages", []), strict=True)
    )
    user = prompts.RAG_USER.format(sources=blocks, question=state["question"])
    return [
        {"role": "system", "content": prompts.RAG_SYSTEM},
        *_history(state.get("messages", []), deps.history_turns),
        {"role": "user", "content": user},
    ]


def _chat_messages(state: AgentState, deps: GraphDeps) -> list[Message]:
    return [
        {"role": "system", "content": prompts.CHAT_SYSTEM},
        *_history(state.get("messages", []), deps.history_turns),
        {"role": "user", "content": state["question"]},
    ]


async def generate(state: AgentState, deps: GraphDeps) -> AgentState:
    """Write the answer token by token from the numbered sources, or chat without them."""
    writer = get_stream_writer()
    rag = state.get("route") == "rag"
    sources = state.get("sources", []) if rag else []

    def finish(answer: str) -> AgentState:
        message = AIMessage(content=answer, additional_kwargs={"sources": sources})
        return {"answer": answer, "messages": [message]}

    if rag and not sources:
        # Nothing to cite means nothing to say: the model is not asked to improvise.
        answer = prompts.NOT_FOUND if deps.known_files() else prompts.NO_DOCUMENTS
        writer({"token": answer})
        return finish(answer)

    _status("generator", prompts.STATUS_GENERATE if rag else prompts.STATUS_GENERATE_CHAT)
    messages = _rag_messages(state, deps) if rag else _chat_messages(state, deps)
    pieces: list[str] = []
    try:
        async for piece in deps.llm.stream_chat(messages):
            pieces.append(piece)
            writer({"token": piece})
    except LLMError as error:
        tail = f"\n\n*(The answer was cut off: {error})*" if pieces else _degraded(error, sources)
        pieces.append(tail)
        writer({"token": tail})
    return finish("".join(pieces))
