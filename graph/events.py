"""What a turn tells its caller: one typed union of events (the nodes send theirs through
LangGraph's custom stream, ``ChatService`` adds ``Done``, ``Failed``, ``Suggestions``), and
``payload``, the one place that turns them into the contract's chat-stream JSON."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from langchain_core.messages import AIMessage

from graph.records import Coverage, Searched, SentenceSupportPublic, StoppedReading
from graph.state import Route, Source
from graph.trace_records import Trace

NodeName = Literal["router", "rewriter", "retriever", "generator", "reader"]


@dataclass(frozen=True)
class Status:
    """Which node is working, and on what."""

    kind: ClassVar[Literal["status"]] = "status"
    node: NodeName
    text: str


@dataclass(frozen=True)
class Progress:
    """How far a long piece of work is (whole documents, many files)."""

    kind: ClassVar[Literal["progress"]] = "progress"
    done: int
    total: int
    text: str


@dataclass(frozen=True)
class Sources:
    """The numbered passages the answer may cite, before its first token."""

    kind: ClassVar[Literal["sources"]] = "sources"
    sources: list[Source]


@dataclass(frozen=True)
class Token:
    """A piece of the answer as the model writes it."""

    kind: ClassVar[Literal["token"]] = "token"
    text: str


@dataclass(frozen=True)
class Done:
    """The turn's answer, the sources it cites and its trace: the last event but suggestions."""

    kind: ClassVar[Literal["done"]] = "done"
    session_id: str
    answer: str
    sources: list[Source]
    trace: Trace
    stopped: bool = False
    """The user stopped the answer; what was written is kept."""
    support: list[SentenceSupportPublic] | None = None
    """One entry per sentence of the answer: its verdict and its span in a source (the
    shape of ``POST /api/verify``); None when the answer was not checked."""
    searched: Searched | None = None
    """When the documents don't cover the question: the queries, the files searched and
    the nearest passages."""
    coverage: Coverage | None = None
    """How much the answer read: documents read, matched and in scope, pages read; None
    for an answer without the documents."""
    resume: StoppedReading | None = None
    """A reading stopped part-way: what it had read, and the follow-up messages that use
    its notes (``graph/whole/resume.py``); None otherwise."""
    draft: str | None = None
    """The model's answer, unchecked, when the check set it aside (``answer`` says so)."""
    misses_question: bool = False
    """The answer's sentences may be true, but they don't seem to address the question."""


@dataclass(frozen=True)
class Failed:
    """The turn broke; ``message`` says what a person can do about it."""

    kind: ClassVar[Literal["error"]] = "error"
    message: str


@dataclass(frozen=True)
class Suggestions:
    """Follow-up questions, after ``Done``."""

    kind: ClassVar[Literal["suggestions"]] = "suggestions"
    suggestions: list[str]


@dataclass(frozen=True)
class NodeTimed:
    """How long a node took; the service keeps it for the trace, callers never see it."""

    node: NodeName
    ms: float


@dataclass(frozen=True)
class ReadSoFar:
    """How far a reading by sections has got, sent after each note: the service keeps the
    last one, so that a Stop saves what was read; callers never see it."""

    question: str
    """The question the reading answers (a resumed one's, as first asked)."""
    route: Route
    documents: list[str]
    """The paths being read."""
    aspect: str
    """What a comparison reads for ("" for a summary): part of its notes' key."""
    sections_read: int
    """Sections whose notes are kept (cached before, or written in this turn)."""
    sections: int
    read: str
    """Which pages have notes, said for a person: "pages 1–18 of 66 of `long.pdf`"."""


@dataclass(frozen=True)
class Recorded:
    """The turn's outcome as the recorder saved it, its last event: the service makes
    ``done`` of it without reading the checkpoint again; callers never see it."""

    answer: str
    sources: list[Source]
    trace: Trace
    message: AIMessage | None
    """The answer's message as saved (None if the turn wrote none)."""
    support: list[SentenceSupportPublic] | None = None
    searched: Searched | None = None
    coverage: Coverage | None = None
    unfinished: StoppedReading | None = None
    draft: str | None = None
    misses_question: bool = False


ClientEvent = Status | Progress | Sources | Token | Done | Failed | Suggestions
"""What the callers of a turn receive."""
TurnEvent = ClientEvent | NodeTimed | ReadSoFar | Recorded
"""Everything a turn's graph run and service produce."""


OPTIONAL = ("stopped", "support", "searched", "coverage", "resume", "draft", "misses_question")
"""Fields of ``done`` carried only where they apply."""


def payload(event: ClientEvent) -> dict[str, Any]:
    """The event's data exactly as the SSE stream carries it (``done``'s optional fields
    only when they apply)."""
    data = {f.name: getattr(event, f.name) for f in fields(event)}
    if isinstance(event, Done):
        for name in OPTIONAL:
            if data[name] in (None, False):
                del data[name]
    return data
