"""The generator node: writes the answer from the numbered sources, or chats without them."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.config import get_stream_writer

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.state import AgentState, Source
from models.llm import LLMError
from models.protocols import Message


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

    report_status("generator", prompts.STATUS_GENERATE if rag else prompts.STATUS_GENERATE_CHAT)
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
