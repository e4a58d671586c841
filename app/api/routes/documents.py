"""Documents: the list with their status."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.api.deps import DocumentsDep
from app.api.guard.security import require_token
from graph.records import DocumentList

router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/api/documents")
async def list_documents(documents: DocumentsDep) -> DocumentList:
    return DocumentList(documents=documents.list())
