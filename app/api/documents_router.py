"""Documents: the list with their status, and search without an LLM."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends

from app.api.deps import ContainerDep
from app.api.errors import ApiError
from app.api.schemas import (
    DocumentList,
    DocumentPublic,
    SearchRequest,
    SearchResponse,
    SearchResultPublic,
)
from app.api.security import require_token

router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/api/documents")
async def list_documents(c: ContainerDep) -> DocumentList:
    return DocumentList(documents=[DocumentPublic.of(d) for d in c.documents.list()])


@router.post("/api/search")
async def search(body: SearchRequest, c: ContainerDep) -> SearchResponse:
    limit = c.settings.max_query_chars
    if len(body.query) > limit:
        raise ApiError(
            413,
            "query_too_long",
            f"The query is {len(body.query):,} characters; the limit is {limit:,}. "
            "Shorten it to the words that matter.",
        )
    found = await asyncio.to_thread(c.retriever.retrieve, body.query, body.files or (), body.k)
    return SearchResponse(
        results=[
            SearchResultPublic(
                file=p.file,
                path=p.path,
                page=p.page,
                text=p.text,
                score=round(p.score, 4),
                scores=p.scores(),
            )
            for p in found.passages
        ]
    )
