"""The turn's trace: node timings as the graph runs, then one record saved with the answer."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from langchain_core.messages import AIMessage

from graph.deps import GraphDeps
from graph.events import emit
from graph.state import AgentState, NodeTiming

Node = Callable[[AgentState, GraphDeps], Awaitable[AgentState]]


def timed(name: str, node: Node, deps: GraphDeps, *, first: bool = False) -> Any:
    """Bind the node to its deps and add how long it took to the turn's ``timings``.

    The ``first`` node of a turn starts the timings afresh and stamps the turn's start.
    Typed Any: LangGraph's node protocols want a parameter named ``state``, which a
    ``Callable`` type cannot say.
    """

    async def run(state: AgentState) -> AgentState:
        started = time.perf_counter()
        begun_at = time.time()
        update = await node(state, deps)
        ms = round((time.perf_counter() - started) * 1000, 1)
        emit({"trace": {"node": name, "ms": ms}})
        earlier: list[NodeTiming] = [] if first else list(state.get("timings") or [])
        extra: AgentState = {"timings": [*earlier, NodeTiming(node=name, ms=ms)]}
        if first:
            extra["turn_started"] = begun_at
        return {**update, **extra}

    run.__name__ = name
    return run


def _plain(value: Any) -> Any:
    """JSON-ready copy of what nodes put in the state (dicts, lists, dataclasses)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    return str(value)


def build_trace(state: AgentState) -> dict[str, Any]:
    """Everything the turn did, for the ``done`` event and the saved answer."""
    generation = state.get("generation") or {}
    # `candidates` is the retriever's (every passage it weighed, with its scores).
    candidates = cast(Mapping[str, Any], state).get("candidates") or []
    return {
        "route": state.get("route"),
        "routed_by": state.get("routed_by"),
        "route_reason": state.get("route_reason"),
        "probe_score": state.get("probe_score"),
        "mentions": _plain(state.get("mentioned") or []),
        "nodes": _plain(state.get("timings") or []),
        "queries": _plain(state.get("queries") or []),
        "candidates": _plain(candidates),
        **_plain(generation),
    }


async def record(state: AgentState, deps: GraphDeps) -> AgentState:
    """Assemble the trace and save it (and the final sources) on the answer message."""
    outlined = cast(Mapping[str, Any], state).get("candidates") or []
    if deps.retriever is not None and outlined:
        # The retriever kept only keys and scores, to start the answer sooner.
        located = await asyncio.to_thread(deps.retriever.locate, outlined)
        state = cast(AgentState, {**state, "candidates": located})
    trace = build_trace(state)
    answer = next(
        (m for m in reversed(state.get("messages", [])) if isinstance(m, AIMessage)), None
    )
    if answer is None:
        return {"trace": trace}
    kwargs = {**answer.additional_kwargs, "sources": state.get("sources", []), "trace": trace}
    # Same id: add_messages replaces the generator's message instead of adding one.
    saved = AIMessage(content=answer.content, id=answer.id, additional_kwargs=kwargs)
    return {"trace": trace, "messages": [saved]}
