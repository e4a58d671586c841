"""The records of a turn's trace (``done``'s ``trace``), declared once and read alike by the REST
API, MCP and the window (graph/records.py holds the others)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

Feedback = Literal["up", "down"]
"""The user's thumbs up or down on an answer."""


class FindRecord(TypedDict):
    """The trace's ``found`` on a find turn: the topic and the code's count of what
    matched."""

    topic: str
    literals: list[str]
    scope: str
    """The scope, said for a person ("the whole library")."""
    searched: int
    matched: int
    paths: list[str]
    """The matching documents' paths, best first."""
    hits: list[int]
    """How many passages of each matched (as ``paths``)."""


class SkippedSections(TypedDict):
    """A document's sections a whole reading left unread."""

    path: str
    sections: list[str]


class NoReading(TypedDict):
    """The trace's ``reading`` when nothing was read (no document to read): empty."""


class ReadingTrace(TypedDict):
    """The trace's ``reading``: what a whole-document or compare reading did."""

    documents: list[str]
    pages: int
    sections: int
    note_calls: int
    notes_cached: int
    tokens_sent_for_notes: int
    skipped: list[SkippedSections]
    notes_cut: bool
    """Notes were cut to fit the answer's prompt."""
    whole: NotRequired[bool]
    """The documents were given to the model whole, without notes."""
    calls: NotRequired[int]
    """The model calls, the answer's included."""


class CandidatePlace(TypedDict):
    """Where a candidate a search weighed sits: its path now, page and chunk index."""

    path: str
    page: int | None
    index: int
    ocr: NotRequired[bool]
    """True when OCR read its page (absent otherwise)."""
    ocr_confidence: NotRequired[float | None]


class CandidateScores(TypedDict):
    """Why a candidate was retrieved: each stage's score (None where it did not run)."""

    dense: float | None
    dense_rank: int | None
    bm25: float | None
    bm25_rank: int | None
    fused: float | None
    proximity: float | None
    sentence: float | None
    rerank: float | None


class Weighed(CandidatePlace, CandidateScores):
    """A candidate a search weighed, located, for the trace: with the number of the source
    its passage became, or why none was made around it."""

    source: int | None
    left_out: str | None


class CandidateTrace(CandidatePlace, CandidateScores):
    """One candidate a search weighed, in the trace: where it is, its scores, and whether
    its passage reached the model (``used``, and ``cited`` by the answer) or why not."""

    used: bool
    cited: NotRequired[bool]
    source: NotRequired[int]
    """The number of the passage it went into."""
    why: NotRequired[str]
    """Why it was not used."""


class TraceNode(TypedDict):
    """How long one node took in a turn."""

    node: str
    ms: float


class TraceQuery(TypedDict):
    """One search the turn ran."""

    text: str
    files: list[str]


class TraceMention(TypedDict):
    """One @mention as typed, and what it resolved to."""

    said: str
    paths: list[str]
    closest: list[str]


class Trace(TypedDict):
    """``done``'s ``trace``: what happened in a turn. A stopped turn's has only ``route``
    (null) and ``nodes``; the generation's keys are the generator's or the reader's. The
    keys are declared in the order the trace has them."""

    route: Literal["rag", "chat", "find", "document", "compare"] | None
    routed_by: NotRequired[str | None]
    route_reason: NotRequired[str | None]
    probe_score: NotRequired[float | None]
    mentions: NotRequired[list[TraceMention]]
    scope: NotRequired[list[str]]
    nodes: list[TraceNode]
    queries: NotRequired[list[TraceQuery]]
    found: NotRequired[FindRecord | None]
    candidates: NotRequired[list[CandidateTrace]]
    model: NotRequired[str | None]
    prompt_tokens: NotRequired[int | None]
    answer_tokens: NotRequired[int | None]
    ttft_ms: NotRequired[float | None]
    context_tokens: NotRequired[int]
    passages_trimmed: NotRequired[int]
    """How many passages were left out for want of room in the model's context."""
    check_ms: NotRequired[float | None]
    llm_error: NotRequired[str | None]
    runaway: NotRequired[Literal["repeating", "long"] | None]
    reading: NotRequired[ReadingTrace | NoReading]
    feedback: NotRequired[Feedback]
    """The user's thumbs up or down, once rated."""
