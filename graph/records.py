"""The records that cross a service boundary, declared once and read alike by the REST API, MCP and
the window. Those a turn's events and checkpoint carry are ``TypedDict``s (the JSON is the dict);
each record's class name is its name in ``/openapi.json``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from graph.trace_records import Feedback, Trace

Verdict = Literal["supported", "partly", "unsupported", "none", "unchecked"]
"""A sentence's: a passage says it (``supported``), says it but lacks ``missing`` (``partly``),
nothing says it (``unsupported``), nothing to check ("Thanks!": ``none``), or the check's time ran
out (``unchecked``, ``POST /api/verify``)."""

CHECKED: frozenset[Verdict] = frozenset({"supported", "partly", "unsupported"})
"""The verdicts of sentences that were checked against the passages."""


class Source(TypedDict):
    """One numbered passage an answer may cite (the contract's source shape)."""

    n: int
    file: str
    path: str
    page: int | None
    snippet: str
    score: float
    scores: NotRequired[dict[str, Any]]
    """Why it was retrieved: dense, bm25 (scores and ranks), fused and rerank."""
    cited: NotRequired[bool]
    """In the final answer's sources: whether the answer cites it. Written by the
    generator."""
    paths: NotRequired[list[str]]
    """Every path holding this text when identical files share it (``path`` is the first)."""
    start: NotRequired[int]
    """Where its passage starts in its page's text (the document's, without pages)."""
    end: NotRequired[int]
    ocr: NotRequired[bool]
    """True when the text was read by OCR from an image of the page (absent otherwise)."""
    ocr_confidence: NotRequired[float]
    """With ``ocr``: the page's mean recognition confidence (0..1)."""


class NumberedPassage(TypedDict):
    """One numbered passage of a turn: the source an answer may cite, and its whole text
    (which the model reads and the check holds the answer to; clients see the source)."""

    source: Source
    text: str


class SearchResultPublic(BaseModel):
    """One passage a search found (``POST /api/search``, MCP's ``search_documents``)."""

    file: str
    path: str = Field(description="Relative to the documents folder.")
    page: int | None = Field(description="1-based, for paged formats.")
    text: str
    score: float
    scores: dict[str, Any] | None = Field(
        None, description="Why it was found: dense, BM25, fused ranks."
    )
    ocr: bool = Field(False, description="The text was read from an image of the page (OCR).")
    ocr_confidence: float | None = Field(
        None, description="The page's mean OCR confidence (0..1); null for typed text."
    )


class SearchResponse(BaseModel):
    results: list[SearchResultPublic]


class FoundPassage(BaseModel):
    """A found document's best passage."""

    page: int | None
    text: str
    scores: dict[str, Any] = Field(description="dense, bm25, coverage, and literal.")


class FoundDocument(BaseModel):
    id: str = Field(description="The document's id, as `GET /api/documents` gives it.")
    file: str
    path: str = Field(description="Relative to the documents folder.")
    hits: int = Field(description="How many of its passages match.")
    best: FoundPassage


class FindResponse(BaseModel):
    """A find's result (``POST /api/find``, MCP's ``find_documents``)."""

    documents: list[FoundDocument] = Field(description="Every matching document, best first.")
    searched: int = Field(description="Documents looked through (the scope's, or all).")
    matched: int = Field(
        description="How many matched: the length of `documents`; count these, not the "
        "list you see."
    )


class SupportSource(TypedDict):
    """Where a sentence's support is: the span of a numbered passage."""

    n: Annotated[
        int, Field(description="The passage's number among those the text was checked against.")
    ]
    file: str
    path: str
    page: int | None
    text: Annotated[str, Field(description="The supporting span, as the passage has it.")]
    start: Annotated[int, Field(description="The span's offsets in its passage.")]
    end: int
    page_start: Annotated[
        int,
        Field(
            description="The span's offsets in its page's text (the document's, without "
            "pages), as Docent read it."
        ),
    ]
    page_end: int


class SentenceSupportPublic(TypedDict):
    """One sentence of a text checked against passages (``POST /api/verify``, MCP's
    ``verify``, and ``support`` in a turn's ``done``)."""

    text: Annotated[str, Field(description="The sentence: `text[start:end]` of what was checked.")]
    start: int
    end: int
    verdict: Annotated[
        Verdict,
        Field(
            description="`supported`, `partly` or `unsupported`; `none` for a sentence with "
            'nothing to check ("Thanks!"); `unchecked` for one left when the time budget of '
            "`POST /api/verify` (`DOCENT_VERIFY_SECONDS`) ran out."
        ),
    ]
    score: Annotated[float, Field(description="0..1: how closely the span says the same.")]
    missing: Annotated[
        list[str],
        Field(description="Numbers, dates and names of the sentence that its best passage lacks."),
    ]
    found: Annotated[
        dict[str, str],
        Field(description='For a missing item, what the span says in its place: {"15%": "12%"}.'),
    ]
    source: Annotated[
        SupportSource | None, Field(description="The best span; null when unsupported.")
    ]


class NearPassage(TypedDict):
    """A passage near a question the documents don't cover, cut to a few lines."""

    file: str
    path: str
    page: int | None
    text: str
    score: float


class Searched(TypedDict):
    """``done``'s ``searched``: what was looked at when the documents don't cover the
    question."""

    queries: list[str]
    files: list[str]
    """The files the search was limited to; empty: the whole library."""
    nearest: list[NearPassage]
    draft: NotRequired[str]
    """The model's answer, set aside."""
    floor: NotRequired[float]
    """The relevance floor, when nothing reached it."""


class Coverage(TypedDict):
    """``done``'s ``coverage``: how much the answer read."""

    documents_read: int
    documents_matched: int | None
    """A find's count of matching documents; None for the other routes."""
    documents_in_scope: int
    pages_read: int
    pages_total: NotRequired[int]
    """A whole reading's: the pages its documents have."""
    whole: NotRequired[bool]
    """True for a whole reading."""


class StoppedReading(TypedDict):
    """``done``'s ``resume``: a reading that left sections unread (stopped, or the call
    budget ran out), what it read, and the follow-up messages that take it up."""

    question: str
    """The reading's question, as first asked."""
    route: Literal["rag", "chat", "find", "document", "compare"]
    documents: list[str]
    aspect: str
    """What a comparison read for ("" for a summary)."""
    sections_read: int
    sections: int
    read: str
    """Which pages have notes, said for a person: "pages 1–18 of 66 of `long.pdf`"."""
    actions: list[str]
    """The follow-up messages worth offering ("Summarise what was read", "Continue
    reading")."""


INTERRUPTED_NOTICE = "This answer was interrupted."
INTERRUPTED = f"{INTERRUPTED_NOTICE} Ask again."
"""What stands in for an answer a crash or failure cut off (the window's card has Ask again)."""


class KeptMessage(TypedDict):
    """One message of a kept conversation, as the window, the API and an export read it:
    a question, or an answer with what was shown with it (each only when set)."""

    role: Literal["user", "assistant"]
    id: str | None
    content: str
    sources: list[Source]
    trace: Trace | None
    stopped: NotRequired[bool]
    support: NotRequired[list[SentenceSupportPublic]]
    searched: NotRequired[Searched]
    coverage: NotRequired[Coverage]
    resume: NotRequired[StoppedReading]
    draft: NotRequired[str]
    misses_question: NotRequired[bool]
    feedback: NotRequired[Feedback]
    versions: NotRequired[list[dict[str, Any]]]
    """The answers a Regenerate replaced, oldest first."""
    interrupted: NotRequired[bool]
    """Stands for an answer a crash or a failure cut off."""


class VerifyResponse(BaseModel):
    sentences: list[SentenceSupportPublic]


@dataclass(frozen=True)
class DocumentView:
    """A document as entry points show it: its registry record plus live progress."""

    id: str
    path: str
    name: str
    status: str
    pages: int | None
    chunks: int
    error: str | None
    updated_at: str
    pages_done: int | None = None
    """While indexing: pages read so far (None otherwise)."""
    pages_total: int | None = None
    """While indexing: the page count when the format knows it up front."""
    chunks_done: int | None = None
    """While indexing: chunks embedded so far."""
    note: str | None = None
    """When ready: what a person should know, e.g. "4 pages read with low confidence"."""


class DocumentList(BaseModel):
    documents: list[DocumentView]


@dataclass(frozen=True)
class SessionPublic:
    """A kept conversation: its id, title and times."""

    id: str
    title: str
    created_at: Annotated[str, Field(description="ISO 8601, UTC.")]
    updated_at: Annotated[str, Field(description="ISO 8601, UTC: the last message sent in it.")]
