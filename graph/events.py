"""What the nodes tell the turn's caller, through LangGraph's custom stream."""

from __future__ import annotations

from langgraph.config import get_stream_writer


def report_status(node: str, text: str) -> None:
    """Tell the caller which node is working and on what (the SSE ``status`` event)."""
    get_stream_writer()({"status": {"node": node, "text": text}})
