"""Documents: the list with their status, and search without an LLM."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends

from app.api.deps import ContainerDep
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
    return DocumentList(
        documents=[
            DocumentPublic(
                id=d.id,
                path=d.path,
                status=d.status.value,
                pages=d.pages,
                chunks=d.chunks,
                error=d.error,
                updated_at=d.updated_at,
            )
            for d in c.registry.list()
        ]
    )


@router.post("/api/search")
async def search(body: SearchRequest, c: ContainerDep) -> SearchResponse:
    hits = await asyncio.to_thread(c.store.search, body.query, body.k, body.files or None)
    return SearchResponse(
        results=[
            SearchResultPublic(
                file=h.chunk.file,
                path=h.chunk.path,
                page=h.chunk.page,
                text=h.chunk.text,
                score=round(h.score, 4),
            )
            for h in hits
        ]
    )
