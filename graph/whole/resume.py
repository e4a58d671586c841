"""Taking up a reading the user stopped. Its notes are kept section by section, and the stopped
answer keeps ``resume``; "Summarise what was read" answers from the notes kept, "Continue reading"
reads on from the first section without a note (window buttons or plain messages)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from graph.events import ReadSoFar
from graph.records import StoppedReading
from graph.state import Resume, Route
from graph.whole import reading_prompts

_SUMMARISE = frozenset(
    {
        "summarise what was read",
        "summarise what you read",
        "summarise what has been read",
        "summarise the notes so far",
        "summarise what you have read",
    }
)
_CONTINUE = frozenset(
    {"continue", "continue reading", "go on", "keep reading", "read on", "resume", "read the rest"}
)


def resume_record(kept: ReadSoFar) -> StoppedReading:
    """What a stopped answer keeps of its reading, with the follow-ups it offers."""
    return {
        "question": kept.question,
        "route": kept.route,
        "documents": list(kept.documents),
        "aspect": kept.aspect,
        "sections_read": kept.sections_read,
        "sections": kept.sections,
        "read": kept.read,
        "actions": actions(kept.sections_read, kept.sections),
    }


def actions(read: int, total: int) -> list[str]:
    """The follow-ups to offer: reading on always; a summary only if some, not all, was read."""
    if 0 < read < total:
        return [reading_prompts.SUMMARISE_READ, reading_prompts.CONTINUE_READING]
    return [reading_prompts.CONTINUE_READING]


def asked_to_resume(question: str, messages: Sequence[AnyMessage]) -> Resume | None:
    """The reading this follow-up takes up, when the answer before it is a stopped reading."""
    said = _normal(question)
    if said not in _SUMMARISE and said not in _CONTINUE:
        return None
    earlier = list(messages)
    if earlier and isinstance(earlier[-1], HumanMessage):
        earlier = earlier[:-1]  # this message itself
    last = earlier[-1] if earlier else None
    if not isinstance(last, AIMessage):
        return None
    kept = last.additional_kwargs.get("resume")
    if not isinstance(kept, dict):
        return None
    return Resume(
        question=str(kept["question"]),
        route=cast(Route, kept["route"]),
        documents=list(kept["documents"]),
        aspect=str(kept.get("aspect", "")),
        only_read=said in _SUMMARISE,
    )


def _normal(text: str) -> str:
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return " ".join(words).replace("summarize", "summarise")
