"""Builds the compiled graph; each run gets its turn's dependencies as its context."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.nodes.generate import generate
from graph.nodes.read import read
from graph.nodes.retrieve import retrieve
from graph.nodes.rewrite import rewrite
from graph.nodes.route import after_route, route
from graph.state import AgentState
from graph.trace import record, timed
from graph.turn_context import TurnContext

TurnGraph = CompiledStateGraph[AgentState, TurnContext, AgentState, AgentState]
"""The compiled graph: state in and out, a ``TurnContext`` per run."""


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> TurnGraph:
    """router → rewriter → retriever → generator → recorder, with router → retriever for a
    message searched as it is, router → generator for chat, and router → reader →
    recorder for whole documents and comparisons. A run takes
    its ``TurnContext`` as ``context`` (``GraphDeps.begin`` makes one)."""
    builder = StateGraph(AgentState, context_schema=TurnContext)
    builder.add_node("router", timed("router", route, first=True))
    builder.add_node("rewriter", timed("rewriter", rewrite))
    builder.add_node("retriever", timed("retriever", retrieve))
    builder.add_node("generator", timed("generator", generate))
    builder.add_node("reader", timed("reader", read))
    builder.add_node("recorder", record)  # untimed: it only writes the record down
    builder.add_edge(START, "router")
    builder.add_conditional_edges(
        "router", after_route, ["rewriter", "retriever", "generator", "reader"]
    )
    builder.add_edge("rewriter", "retriever")
    builder.add_edge("retriever", "generator")
    builder.add_edge("generator", "recorder")
    builder.add_edge("reader", "recorder")
    builder.add_edge("recorder", END)
    return builder.compile(checkpointer=checkpointer)
