"""The rewriter node: turns the message into what the retriever searches for."""

from __future__ import annotations

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.routing import find_mentions
from graph.state import AgentState, SearchQuery


async def rewrite(state: AgentState, deps: GraphDeps) -> AgentState:
    """Turn the message into search queries; for now one: the message without @mentions,
    aimed at the mentioned files."""
    report_status("rewriter", prompts.STATUS_REWRITE)
    mentions = state.get("mentions") or []
    # The router already resolved the mentions; only those need stripping.
    _, text = find_mentions(state["question"], mentions)
    return {"queries": [SearchQuery(text=text or state["question"], files=mentions)]}
