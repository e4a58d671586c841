"""The typed state that flows through the graph, and the shapes it carries."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from graph.records import Coverage, NumberedPassage, Searched, SentenceSupportPublic, StoppedReading
from graph.records import Source as Source
from graph.trace_records import FindRecord, NoReading, ReadingTrace, Trace

Mode = Literal["auto", "rag", "chat", "document"]
"""``document`` is the window's "Whole documents": read the named files whole."""
Route = Literal["rag", "chat", "find", "document", "compare"]
"""rag: answer from the best passages; chat: no search; find: every matching document;
document: read whole files for a summary or outline; compare: two or more side by side."""
RouteTier = Literal["mode", "library", "mention", "rules", "probe", "llm"]
"""Which of the router's tiers decided: the user's mode, an empty library, a resolved
@mention, the keyword rules, the vector probe, or the LLM."""


class Mention(TypedDict):
    """One @mention as typed, and what it resolved to."""

    said: str
    """The mention as it appears in the message, e.g. '@"Annual Report.pdf"'."""
    paths: list[str]
    """Documents it names; empty when nothing matched."""
    closest: list[str]
    """When nothing matched: the paths of the documents whose names come closest."""


class NodeTiming(TypedDict):
    """How long one node took in this turn."""

    node: str
    ms: float


class SearchQuery(TypedDict):
    """One search the retriever runs."""

    text: str
    files: list[str]
    """Relative paths to search in; empty means the whole library."""


class Resume(TypedDict):
    """A follow-up that takes up a reading the user stopped (graph/whole/resume.py)."""

    question: str
    """The reading's question, as first asked: the answer is to it."""
    route: Route
    documents: list[str]
    aspect: str
    """What the comparison read for, so that its notes are found again."""
    only_read: bool
    """Answer from the notes kept, reading nothing more; else read on where it stopped."""


class Generation(TypedDict):
    """The generator's (or the reader's) part of the trace."""

    model: str | None
    prompt_tokens: int | None
    answer_tokens: int | None
    ttft_ms: NotRequired[float | None]
    """The generator's: from the turn's start to the answer's first token."""
    context_tokens: int
    passages_trimmed: NotRequired[int]
    """The generator's: passages left out for want of room in the model's context."""
    check_ms: NotRequired[float | None]
    """The generator's: how long checking the answer took after its last token."""
    llm_error: str | None
    """Set when the model could not write (all or part of) the answer."""
    runaway: NotRequired[Literal["repeating", "long"] | None]
    """The reader's: why the answer was cut off for running away."""
    reading: NotRequired[ReadingTrace | NoReading]
    """The reader's: what the reading did."""


class AgentState(TypedDict, total=False):
    """State of one session; the checkpointer keeps it between turns."""

    messages: Annotated[list[AnyMessage], add_messages]
    """Conversation so far. Caller adds the user's message; generator adds the answer."""
    question: str
    """This turn's message text, as typed. Written by the caller."""
    mode: Mode
    """Caller's override: 'auto' lets the router decide. Written by the caller."""
    scope: list[str]
    """The session's scope (folders ending in "/", and files); empty: the whole library.
    Written by the caller when it changes; the checkpointer keeps it for later turns."""
    aim: list[str]
    """This turn's scope: its @folder/ mentions, else the session's. Written by the
    router."""
    route: Route
    """Whether this turn searches the documents. Written by the router."""
    mentions: list[str]
    """Documents named with @file, resolved to their paths. Written by the router."""
    queries: list[SearchQuery]
    """What the retriever searches for; it runs each and merges the hits. Written by the
    router for a message searched as it is, else by the rewriter."""
    passages: list[NumberedPassage]
    """The turn's numbered passages, each its source and its whole text, for the
    generator. Written by the retriever."""
    sources: list[Source]
    """The answer's sources: the passages that made it into the prompt, in the order it
    cites them. Written by the generator (the reader, for a whole reading)."""
    whole_passages: bool
    """The message asks for a summary, an outline or an explanation: the generator shows
    its passages whole, unfocused. Written by the router."""
    whole_documents: bool
    """The passages are whole documents (small @mentioned files given whole), which the
    generator shows whole, unfocused. Written by the retriever."""
    answer: str
    """The final answer text. Written by the generator."""
    found: FindRecord | None
    """On a find turn: the topic, the literals, how many documents were searched and
    matched, and the matched paths. Written by the retriever."""
    coverage: Coverage | None
    """How much of the library the answer read (the contract's ``coverage``), or None for
    an answer without the documents. Written by the generator."""
    routed_by: RouteTier
    """Which tier of the router decided the route. Written by the router."""
    route_reason: str
    """Why, in a few words (the rule's name, the probe's score, the LLM's verdict).
    Written by the router."""
    mentioned: list[Mention]
    """Every @mention as typed, matched or not (``mentions`` has the matched paths).
    Written by the router."""
    documents: list[str]
    """The files a whole-document or compare turn read, so "this document" in the next
    turn means them. Written by the reader (and by the service for a stopped one)."""
    resume: Resume | None
    """When this message takes up a stopped reading ("Continue reading"), what it takes
    up; else None. Written by the router."""
    unfinished: StoppedReading | None
    """A reading that left sections unread (``done``'s ``resume``): what it read and the
    follow-ups; else None. Written by the reader; the router clears it."""
    probe_score: float | None
    """Best vector similarity of the question to any chunk, when the probe ran. Written by
    the router."""
    timings: list[NodeTiming]
    """This turn's nodes and their milliseconds, in order. Written by the graph around
    each node."""
    turn_started: float
    """Wall-clock time (epoch seconds) this turn's first node started. Written by the
    graph."""
    support: list[SentenceSupportPublic] | None
    """One entry per sentence of the answer, in the contract's shape, or None when the
    answer was not checked (a chat answer, one cut off). Written by the generator."""
    searched: Searched | None
    """What was searched when the documents don't cover the question (queries, files,
    nearest passages), else None. Written by the generator."""
    draft: str | None
    """The model's answer, unchecked, when the check set it aside; else None. Written by
    the generator."""
    misses_question: bool
    """The checked answer doesn't seem to address the question. Written by the generator."""
    generation: Generation
    """The generator's part of the trace: model, token counts, time to first token,
    passages trimmed. Written by the generator."""
    trace: Trace
    """What happened in this turn (the contract's ``trace``). Written by the recorder."""
