"""A session's checkpointed messages as the window, the API and an export read them (their
shape, and the ``interrupted`` stand-in, are in docs/api.md), and the helpers that read and
write them in the graph's checkpoints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from graph.graph import TurnGraph
from graph.records import CHECKED, INTERRUPTED, KeptMessage
from graph.trace_records import Feedback
from models.protocols import Message

__all__ = [
    "CHECKED",
    "SHOWN",
    "Feedback",
    "answer_dict",
    "earlier_versions",
    "message_dicts",
    "rated",
    "with_extra",
]

SHOWN = ("support", "searched", "coverage", "resume", "draft", "misses_question")
"""Kept on an answer only when set."""


def answer_dict(message: AIMessage) -> KeptMessage:
    """One answer as ``{"role", "content", "sources", "trace", ...}``."""
    extra = message.additional_kwargs
    out: dict[str, Any] = {
        "role": "assistant",
        "id": message.id,
        "content": str(message.content),
        "sources": extra.get("sources", []),
        "trace": extra.get("trace"),
    }
    if extra.get("stopped"):
        out["stopped"] = True
    for shown in SHOWN:
        if extra.get(shown) is not None:
            out[shown] = extra[shown]
    feedback = (extra.get("trace") or {}).get("feedback")
    if feedback is not None:
        out["feedback"] = feedback
    if extra.get("versions"):
        out["versions"] = list(extra["versions"])
    return cast(KeptMessage, out)  # the turn wrote what it kept as these records


def message_dicts(messages: list[AnyMessage], asking: str | None = None) -> list[KeptMessage]:
    """The conversation, oldest first; a question left without an answer is followed by an
    ``interrupted`` one, unless it is ``asking``, the question a running turn answers."""
    out: list[KeptMessage] = []
    for at, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            out.append(
                {
                    "role": "user",
                    "id": message.id,
                    "content": str(message.content),
                    "sources": [],
                    "trace": None,
                }
            )
            if _cut_off(messages, at) and message.id != asking:
                out.append(interrupted_dict())
        elif isinstance(message, AIMessage):
            out.append(answer_dict(message))
    return out


def _cut_off(messages: list[AnyMessage], at: int) -> bool:
    """Whether question ``at`` was asked of Docent (a turn keeps its ``mode`` on it; a
    client's own history, as the OpenAI API passes it, has none) and has no answer."""
    asked = "mode" in messages[at].additional_kwargs
    return asked and not (at + 1 < len(messages) and isinstance(messages[at + 1], AIMessage))


def interrupted_dict() -> KeptMessage:
    """The answer a question cut off has: nothing saved, so nothing to rate or regenerate."""
    return {
        "role": "assistant",
        "id": None,
        "content": INTERRUPTED,
        "sources": [],
        "trace": None,
        "interrupted": True,
    }


def earlier_versions(message: AIMessage) -> list[dict[str, Any]]:
    """What a Regenerate of ``message`` keeps: its own earlier versions, then itself."""
    own = answer_dict(message)
    kept = own.get("versions", [])
    return [*kept, {k: v for k, v in own.items() if k not in ("versions", "id", "role")}]


def with_extra(message: AIMessage, **extra: Any) -> AIMessage:
    """``message`` with ``extra`` added; the same id, so saving it replaces the message."""
    kwargs = {**message.additional_kwargs, **extra}
    return AIMessage(content=message.content, id=message.id, additional_kwargs=kwargs)


def rated(message: AIMessage, feedback: Feedback | None) -> AIMessage:
    """``message`` with the user's thumbs up or down (None takes it back) in its trace."""
    trace = dict(message.additional_kwargs.get("trace") or {})
    if feedback is None:
        trace.pop("feedback", None)
    else:
        trace["feedback"] = feedback
    return with_extra(message, trace=trace)


def thread(session_id: str) -> RunnableConfig:
    """The graph's config for the session's conversation."""
    return {"configurable": {"thread_id": session_id}}


async def kept_messages(graph: TurnGraph, session_id: str) -> list[AnyMessage]:
    """The session's checkpointed messages."""
    return list((await graph.aget_state(thread(session_id))).values.get("messages", []))


async def write_messages(
    graph: TurnGraph, session_id: str, update: Any, as_node: str = "recorder"
) -> None:
    """Checkpoint ``update`` to the session's state as written by ``as_node``."""
    await graph.aupdate_state(thread(session_id), update, as_node=as_node)


def history_messages(history: Sequence[Message]) -> list[AnyMessage]:
    """User and assistant messages as the graph keeps them; system prompts are Docent's own."""
    out: list[AnyMessage] = []
    for message in history:
        if message["role"] == "user":
            out.append(HumanMessage(content=message["content"]))
        elif message["role"] == "assistant":
            out.append(AIMessage(content=message["content"]))
    return out


def first_user_text(history: Sequence[Message] | None) -> str | None:
    """The first user message's text in ``history``, if any."""
    return next((m["content"] for m in history or () if m["role"] == "user"), None)
