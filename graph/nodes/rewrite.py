"""The rewriter node: turns a follow-up (or a message to rephrase) into searches; a message searched
as typed goes from the router to the retriever."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from graph import prompts
from graph.events import Status
from graph.mentions import strip_mentions
from graph.scope import drop_folder_mentions
from graph.state import AgentState, SearchQuery
from graph.turn_context import TurnContext
from models.llm import LLMError
from models.protocols import ChatModel

HISTORY_MESSAGES = 6
"""Earlier messages the rewriter reads to resolve references."""
HISTORY_CHARS = 600
"""Of each, at most this much: references point at names, not at whole answers."""
MAX_QUERY_CHARS = 500


async def rewrite(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Make the message standalone queries (one LLM call) per mentioned file, rephrased if asked."""
    context = runtime.context
    runtime.stream_writer(Status("rewriter", prompts.STATUS_REWRITE))
    mentions = state.get("mentions") or []
    # The router already resolved the mentions; only those need taking out.
    asked = drop_folder_mentions(state["question"], state.get("aim") or [])
    text = strip_mentions(asked, state.get("mentioned") or []) or state["question"]
    runtime.stream_writer(Status("rewriter", prompts.STATUS_REWRITE_ASK))
    standalone, rephrasings = await ask_rewrite(
        context.llm,
        state.get("messages", []),
        text,
        context.options.rephrasings,
        context.options.rewrite_timeout,
    )
    texts = list(dict.fromkeys([standalone or text, *rephrasings]))
    aims = [[path] for path in mentions] or [[]]
    return {"queries": [SearchQuery(text=query, files=f) for query in texts for f in aims]}


async def ask_rewrite(
    llm: ChatModel,
    messages: Sequence[AnyMessage],
    text: str,
    variants: int,
    timeout: float | None,
) -> tuple[str | None, list[str]]:
    """``text`` made standalone, and ``variants`` rephrasings, in one JSON call; (None, []) on any
    error, timeout or malformed reply."""
    system = prompts.REWRITE_SYSTEM.format(
        variants=prompts.REWRITE_VARIANTS.format(count=variants) if variants else "",
        variants_key=', "variants": ["...", "...", "..."]' if variants else "",
    )
    user = prompts.REWRITE_USER.format(history=_history(messages) or "(none)", question=text)
    try:
        reply = await llm.complete_json(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            prompts.rewrite_schema(variants),
            timeout=timeout,
        )
    except LLMError:
        return None, []
    query = _clean(reply.get("query"))
    found = reply.get("variants")
    rephrasings = [v for v in map(_clean, found) if v] if isinstance(found, list) else []
    return query, rephrasings[:variants]


def _clean(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return " ".join(value.split())[:MAX_QUERY_CHARS]


def _history(messages: Sequence[AnyMessage]) -> str:
    earlier = list(messages[:-1])[-HISTORY_MESSAGES:]
    lines = []
    for message in earlier:
        who = "User" if isinstance(message, HumanMessage) else "Assistant"
        content = " ".join(str(message.content).split())
        if len(content) > HISTORY_CHARS:
            content = content[: HISTORY_CHARS - 1] + "…"
        lines.append(f"{who}: {content}")
    return "\n".join(lines)
