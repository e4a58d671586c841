"""The rewriter node: turns the message into what the retriever searches for."""

from __future__ import annotations

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.routing import find_mentions
from graph.state import AgentState


async def rewrite(state: AgentState, deps: GraphDeps) -> AgentState:
    """Turn the message into a search query; for now the message without @mentions."""
    report_status("rewriter", prompts.STATUS_REWRITE)
    # The router already resolved the mentions; only those need stripping.
    _, query = find_mentions(state["question"], state.get("mentions") or [])
    return {"query": query or state["question"]}
