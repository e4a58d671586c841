"""Request and response bodies of the HTTP API (see shared/CONTRACT.md)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from graph.state import Mode


class ChatRequest(BaseModel):
    message: str
    session_id: str | None = None
    mode: Mode = "auto"
    stream: bool = True


class ChatResult(BaseModel):
    session_id: str
    answer: str
    sources: list[dict[str, Any]]
    trace: dict[str, Any]


class SearchRequest(BaseModel):
    query: str = Field(min_length=1)
    k: int = Field(5, ge=1, le=50)
    files: list[str] | None = Field(None, max_length=200)


class SearchResultPublic(BaseModel):
    file: str
    path: str
    page: int | None
    text: str
    score: float
    scores: dict[str, Any] | None = None


class SearchResponse(BaseModel):
    results: list[SearchResultPublic]


class DocumentPublic(BaseModel):
    id: str
    path: str
    status: str
    pages: int | None
    chunks: int
    error: str | None
    updated_at: str


class DocumentList(BaseModel):
    documents: list[DocumentPublic]


class OllamaStatus(BaseModel):
    reachable: bool
    host: str
    chat_model: str
    models: list[str]
    error: str | None = None


class IndexStatus(BaseModel):
    documents: int
    chunks: int
    queued: int
    errors: int


class StatusResponse(BaseModel):
    ollama: OllamaStatus
    index: IndexStatus
    embed_model: str
