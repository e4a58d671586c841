"""What the nodes tell the turn's caller, through LangGraph's custom stream."""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer


def emit(chunk: dict[str, Any]) -> None:
    """Send one chunk to the turn's caller; outside a graph run (a node called on its
    own, as tests and benchmarks do) there is no caller and it goes nowhere."""
    try:
        writer = get_stream_writer()
    except RuntimeError:
        return
    writer(chunk)


def report_status(node: str, text: str) -> None:
    """Tell the caller which node is working and on what (the SSE ``status`` event)."""
    emit({"status": {"node": node, "text": text}})
