"""Taking up a reading the user stopped: what is saved with it, and the follow-ups.

A summary of a long document on a CPU takes many minutes, and its notes are kept section
by section as they are written (graph/whole/section_notes.py). When the user stops it, the
stopped answer keeps ``resume``: the question, the documents, the comparison's aspect and
how far the reading got. Two follow-up messages then use it, from the window's buttons or
from any client as plain messages: "Summarise what was read" answers from the notes kept
(reading nothing more) and "Continue reading" reads on from the first section without a
note, taking the earlier ones from the cache.
"""

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
    """The follow-ups worth offering: a summary of what was read only when some but not
    all of it was; reading on always (with every note kept, it writes the answer)."""
    if 0 < read < total:
        return [reading_prompts.SUMMARISE_READ, reading_prompts.CONTINUE_READING]
    return [reading_prompts.CONTINUE_READING]


def asked_to_resume(question: str, messages: Sequence[AnyMessage]) -> Resume | None:
    """The reading this message takes up: it is one of the follow-ups, and the answer
    before it is a stopped reading; else None."""
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
