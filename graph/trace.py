"""The turn's trace: node timings as the graph runs, then one record saved with the answer."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Protocol, cast

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph.events import NodeName, NodeTimed, Recorded
from graph.state import AgentState, NodeTiming
from graph.trace_records import CandidateTrace, Trace, Weighed
from graph.turn_context import TurnContext


class Node(Protocol):
    """A graph node: the state and the turn's runtime in, the state's update out."""

    def __call__(self, state: AgentState, runtime: Runtime[TurnContext]) -> Awaitable[AgentState]:
        """Run the node."""
        ...


def timed(name: NodeName, node: Node, *, first: bool = False) -> Node:
    """The node, adding how long it took to the turn's ``timings`` (and telling the caller).

    The ``first`` node of a turn starts the timings afresh and stamps the turn's start.
    """

    async def run(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
        started = time.perf_counter()
        begun_at = time.time()
        update = await node(state, runtime)
        ms = round((time.perf_counter() - started) * 1000, 1)
        runtime.stream_writer(NodeTimed(name, ms))
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


def build_trace(state: AgentState, candidates: Sequence[Weighed]) -> Trace:
    """Everything the turn did, for the ``done`` event and the saved answer; ``candidates``
    are those its search weighed, located (``Search.trace``)."""
    trace: Trace = {
        "route": state.get("route"),
        "routed_by": state.get("routed_by"),
        "route_reason": state.get("route_reason"),
        "probe_score": state.get("probe_score"),
        "mentions": _plain(state.get("mentioned") or []),
        "scope": _plain(state.get("aim") or []),
        "nodes": _plain(state.get("timings") or []),
        "queries": _plain(state.get("queries") or []),
        # On a find turn: the topic and the code's count of what matched.
        "found": _plain(state.get("found")),
        "candidates": _used(_plain(candidates), state),
    }
    trace.update(_plain(state.get("generation") or {}))
    return trace


def _used(candidates: list[dict[str, Any]], state: AgentState) -> list[CandidateTrace]:
    """Each candidate marked ``used`` when its passage went into the prompt (and ``cited``
    when the answer cites it), else with ``why`` not: what the search said, or trimmed."""
    given = {s["n"]: s for s in state.get("sources") or []}
    trimmed = bool(state.get("generation", {}).get("passages_trimmed"))
    out: list[CandidateTrace] = []
    for c in candidates:
        fate = {k: c.pop(k, None) for k in ("source", "left_out")}
        source = given.get(fate["source"]) if fate["source"] is not None else None
        if source is not None:
            c.update(used=True, cited=bool(source.get("cited")), source=source["n"])
        elif fate["source"] is not None:
            why = "trimmed: no room left in the model's context" if trimmed else "not sent"
            c.update(used=False, why=f"passage {fate['source']} {why}")
        else:
            c.update(used=False, why=fate["left_out"] or "no passage was made around it")
        out.append(cast(CandidateTrace, c))  # a Weighed, its fate put in place of the search's
    return out


async def record(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Assemble the trace and save it (and the final sources) on the answer message, and
    tell the caller the turn's outcome (``Recorded``), from the state it holds.

    Where each weighed candidate sits was read by the search once the answer was
    written, while it was checked (``Search.locate``, started by the generator): the
    store read would otherwise delay the first token or the end.
    """
    search = runtime.context.search
    candidates = await asyncio.to_thread(search.trace) if state.get("route") == "rag" else []
    trace = build_trace(state, candidates)
    sources = state.get("sources", [])
    answer = next(
        (m for m in reversed(state.get("messages", [])) if isinstance(m, AIMessage)), None
    )
    update: AgentState = {"trace": trace}
    saved = None
    if answer is not None:
        kwargs = {**answer.additional_kwargs, "sources": sources, "trace": trace}
        # Same id: add_messages replaces the generator's message instead of adding one.
        saved = AIMessage(content=answer.content, id=answer.id, additional_kwargs=kwargs)
        update["messages"] = [saved]
    runtime.stream_writer(
        Recorded(
            answer=state.get("answer", ""),
            sources=sources,
            trace=trace,
            message=saved,
            support=state.get("support"),
            searched=state.get("searched"),
            coverage=state.get("coverage"),
            unfinished=state.get("unfinished"),
            draft=state.get("draft"),
            misses_question=bool(state.get("misses_question")),
        )
    )
    return update
