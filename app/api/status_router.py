"""Status (health is in app/api/entry.py: it answers before the services exist)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends

from app.api.deps import ContainerDep
from app.api.schemas import IndexStatus, OllamaStatus, StatusResponse
from app.api.security import require_token
from ingest.types import DocStatus

router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/api/status")
async def status(c: ContainerDep) -> StatusResponse:
    health = await c.llm.health()
    docs = c.registry.list()
    chunks = await asyncio.to_thread(c.store.count)
    return StatusResponse(
        ollama=OllamaStatus(
            reachable=health.reachable,
            host=health.host,
            chat_model=c.llm.model,
            models=health.models,
            error=health.error,
        ),
        index=IndexStatus(
            documents=len(docs),
            chunks=chunks,
            queued=c.indexer.queued,
            errors=sum(1 for d in docs if d.status == DocStatus.ERROR),
        ),
        embed_model=c.embedder.name,
    )
