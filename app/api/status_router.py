"""Status (health is in app/api/entry.py: it answers before the services exist)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.api.deps import StatusDep
from app.api.schemas import IndexStatus, ModelServerStatus, OllamaStatus, StatusResponse
from app.api.security import require_token

router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/api/status")
async def status(service: StatusDep) -> StatusResponse:
    found = await service.status()
    health = found.ollama
    server = ModelServerStatus(
        api=health.api,
        reachable=health.reachable,
        host=health.host,
        chat_model=found.chat_model,
        models=health.models,
        error=health.error,
    )
    return StatusResponse(
        ollama=OllamaStatus(**server.model_dump(exclude={"api"})),
        model_server=server,
        index=IndexStatus(
            documents=found.index.documents,
            chunks=found.index.chunks,
            queued=found.index.queued,
            errors=found.index.errors,
        ),
        embed_model=found.embed_model,
    )
