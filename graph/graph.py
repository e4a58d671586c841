"""Builds the compiled graph from its dependencies and a checkpointer."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.deps import GraphDeps
from graph.generate import generate
from graph.retrieve import retrieve
from graph.rewrite import rewrite
from graph.routing import after_route, route
from graph.state import AgentState

Node = Callable[[AgentState, GraphDeps], Awaitable[AgentState]]


def _timed(name: str, node: Node, deps: GraphDeps) -> Any:
    """Bind the node to its deps and report how long it took on the custom stream.

    Typed Any: LangGraph's node protocols want a parameter named ``state``, which a
    ``Callable`` type cannot say.
    """

    async def run(state: AgentState) -> AgentState:
        started = time.perf_counter()
        try:
            return await node(state, deps)
        finally:
            ms = round((time.perf_counter() - started) * 1000, 1)
            get_stream_writer()({"trace": {"node": name, "ms": ms}})

    run.__name__ = name
    return run


def build_graph(
    deps: GraphDeps, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    """router → rewriter → retriever → generator, with router → generator for chat."""
    builder = StateGraph(AgentState)
    builder.add_node("router", _timed("router", route, deps))
    builder.add_node("rewriter", _timed("rewriter", rewrite, deps))
    builder.add_node("retriever", _timed("retriever", retrieve, deps))
    builder.add_node("generator", _timed("generator", generate, deps))
    builder.add_edge(START, "router")
    builder.add_conditional_edges("router", after_route, ["rewriter", "generator"])
    builder.add_edge("rewriter", "retriever")
    builder.add_edge("retriever", "generator")
    builder.add_edge("generator", END)
    return builder.compile(checkpointer=checkpointer)
