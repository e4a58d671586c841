"""Documents: the list with their status, and search without an LLM."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends

from app.api.deps import ContainerDep
from app.api.errors import ApiError
from app.api.schemas import (
    DocumentList,
    SearchRequest,
    SearchResponse,
)
from app.api.security import require_token
from app.search import QueryTooLong, check_query_length, public_passages

router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/api/documents")
async def list_documents(c: ContainerDep) -> DocumentList:
    return DocumentList(documents=c.documents.list())


@router.post("/api/search")
async def search(body: SearchRequest, c: ContainerDep) -> SearchResponse:
    try:
        check_query_length(body.query, c.settings.max_query_chars)
    except QueryTooLong as exc:
        raise ApiError(413, "query_too_long", str(exc)) from exc
    found = await asyncio.to_thread(c.retriever.retrieve, body.query, body.files or (), body.k)
    return SearchResponse.model_validate({"results": public_passages(found)})
