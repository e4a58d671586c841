"""Builds the compiled graph from its dependencies and a checkpointer."""

from __future__ import annotations

import dataclasses
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.deps import GraphDeps
from graph.generate import generate
from graph.prefetch import PrefetchingSearch
from graph.retrieve import retrieve
from graph.rewrite import rewrite
from graph.routing import after_route, route
from graph.state import AgentState
from graph.trace import Node, record, timed


def build_graph(
    deps: GraphDeps, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    """router → rewriter → retriever → generator → recorder, with router → generator for
    chat. The search is wrapped so the router's early search serves the retriever."""
    deps = _prefetching(deps)
    builder = StateGraph(AgentState)
    builder.add_node("router", timed("router", route, deps, first=True))
    builder.add_node("rewriter", timed("rewriter", rewrite, deps))
    builder.add_node("retriever", timed("retriever", retrieve, deps))
    builder.add_node("generator", timed("generator", generate, deps))
    builder.add_node("recorder", _bind(record, deps))
    builder.add_edge(START, "router")
    builder.add_conditional_edges("router", after_route, ["rewriter", "generator"])
    builder.add_edge("rewriter", "retriever")
    builder.add_edge("retriever", "generator")
    builder.add_edge("generator", "recorder")
    builder.add_edge("recorder", END)
    return builder.compile(checkpointer=checkpointer)


def _prefetching(deps: GraphDeps) -> GraphDeps:
    """Wrap the searches so the router can start them early; the probe and the retriever
    share one wrapper when they share one search."""
    search = deps.search
    if not isinstance(search, PrefetchingSearch):
        search = PrefetchingSearch(search)
    probe = deps.probe
    if probe is None or probe is deps.search:
        probe = search
    elif not isinstance(probe, PrefetchingSearch):
        probe = PrefetchingSearch(probe)
    return dataclasses.replace(deps, search=search, probe=probe)


def _bind(node: Node, deps: GraphDeps) -> Any:
    """The node with its deps, untimed (the recorder only writes the record down)."""

    async def recorder(state: AgentState) -> AgentState:
        return await node(state, deps)

    return recorder
