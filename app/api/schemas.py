"""Request and response bodies of the HTTP API (see shared/CONTRACT.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.services.sessions import MAX_TITLE_CHARS
from graph.records import Coverage, Searched, SentenceSupportPublic, SessionPublic, Source
from graph.state import Mode


class ChatRequest(BaseModel):
    message: str
    session_id: str | None = None
    mode: Mode = "auto"
    scope: str | list[str] | None = Field(
        None,
        description="Aim the session at a folder (`tax/`) or a list of folders and files; "
        'it keeps the scope for later messages. `""` is the whole library again.',
    )
    stream: bool = True


class ChatResult(BaseModel):
    session_id: str
    answer: str
    sources: list[Source]
    # The turn's Trace (and below, its StoppedReading resume) of graph/trace_records.py, which
    # mypy checks where they are made. Declared here as plain dicts: validating them as
    # TypedDicts would reorder their keys, turn an int into a float and drop a key the
    # record does not declare (a trace saved by an earlier version), changing the JSON.
    trace: dict[str, Any]
    support: list[SentenceSupportPublic] | None = Field(
        None, description="One entry per sentence of the answer, as `POST /api/verify` gives."
    )
    searched: Searched | None = Field(
        None, description="When the documents don't cover the question: what was searched."
    )
    coverage: Coverage | None = Field(
        None,
        description="How much the answer read: documents_read, documents_matched, "
        "documents_in_scope, pages_read.",
    )
    resume: dict[str, Any] | None = Field(
        None,
        description="A whole-document reading that left sections unread: what it read and "
        "the follow-up messages (`actions`) that take it up.",
    )
    draft: str | None = Field(
        None,
        description="The model's answer, unchecked, when the check set it aside "
        "(`answer` says so).",
    )
    misses_question: bool | None = Field(
        None, description="True when the answer doesn't seem to address the question."
    )


ScopeField = str | list[str] | None
"""A folder of the library ("tax/2024/"), or a list of folders (ending in "/") and files."""

SCOPE_DESCRIPTION = (
    "Only documents under this folder of the library, e.g. `tax/2024/`; or a list of "
    "folders (ending in `/`) and files."
)


class SearchRequest(BaseModel):
    query: str = Field(min_length=1)
    k: int = Field(5, ge=1, le=50)
    files: list[str] | None = Field(None, max_length=200)
    scope: ScopeField = Field(None, description=SCOPE_DESCRIPTION)


class FindRequest(BaseModel):
    query: str = Field(
        min_length=1,
        description='What to find. A quoted string ("force majeure") or a code (ABC-123) '
        "must appear literally.",
    )
    scope: ScopeField = Field(None, description=SCOPE_DESCRIPTION)
    files: list[str] | None = Field(
        None, max_length=200, description="Only these documents (paths or file names)."
    )


class VerifyRequest(BaseModel):
    text: str = Field(description="Any text: an answer, a note, a draft.")
    scope: ScopeField = Field(None, description=SCOPE_DESCRIPTION)
    files: list[str] | None = Field(
        None, max_length=200, description="Only these documents (paths or file names)."
    )


class ReindexRequest(BaseModel):
    id: str | None = Field(None, description="One document's id; leave out to re-scan all.")


class ReindexResult(BaseModel):
    queued: int = Field(description="How many files were queued for indexing.")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. `session_busy`.")
    message: str = Field(description="What went wrong and how to fix it, for a person.")


class ErrorResponse(BaseModel):
    """Every error the API returns: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


class SessionList(BaseModel):
    sessions: list[SessionPublic] = Field(description="Most recently used first.")


class MessagePublic(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    sources: list[dict[str, Any]] = Field(description="Numbered passages the answer cites.")
    trace: dict[str, Any] | None = Field(
        None, description="How the answer was made (route, per-node ms), when recorded."
    )
    support: list[dict[str, Any]] | None = Field(
        None, description="The answer's sentences checked against its sources."
    )
    searched: dict[str, Any] | None = Field(
        None, description="What was searched, when the documents don't cover the question."
    )
    coverage: dict[str, Any] | None = Field(
        None, description="How much of the library the answer read."
    )
    stopped: bool = Field(False, description="The user stopped the answer; what it wrote is kept.")
    resume: dict[str, Any] | None = Field(
        None,
        description="A whole-document reading stopped or cut short: what it read and the "
        "follow-up messages (`actions`) that take it up.",
    )
    draft: str | None = Field(
        None, description="The model's answer, unchecked, when the check set it aside."
    )
    misses_question: bool | None = Field(
        None, description="True when the answer doesn't seem to address the question."
    )
    interrupted: bool = Field(
        False,
        description="Stands for an answer that was cut off (the app was killed or quit "
        "mid-answer, or the turn failed): nothing of it was saved; ask the question again.",
    )


@dataclass(frozen=True)
class SessionDetail(SessionPublic):
    messages: list[MessagePublic]


class SessionRename(BaseModel):
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or wrong bearer token."},
    403: {"model": ErrorResponse, "description": "Host or Origin not allowed."},
    422: {"model": ErrorResponse, "description": "Invalid body; the message names the field."},
}
"""Errors any authenticated route can return, for the OpenAPI description."""
