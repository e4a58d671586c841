"""Status: it answers from the light services, before the search and the chat have loaded
(health is in app/api/entry.py: it answers before anything)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.services.status import StatusService
from app.startup import ServicesFailed

PATHS = frozenset({"/api/status"})
"""Served once the light services are open, without waiting for the rest."""

router = APIRouter(dependencies=[Depends(require_token)])


class OllamaStatus(BaseModel):
    reachable: bool
    host: str
    chat_model: str
    models: list[str]
    error: str | None = None


class ModelServerStatus(OllamaStatus):
    """The chat model server, whichever API it speaks; ``ollama`` says the same."""

    api: Literal["ollama", "openai"] = Field(
        description="'ollama', or 'openai' for an OpenAI-compatible server (LM Studio, vLLM…)."
    )


class IndexStatus(BaseModel):
    documents: int
    chunks: int
    queued: int
    errors: int
    waiting_for_space: int = Field(
        0, description="Of the files queued, those waiting for the data dir's disk to have room."
    )
    disk_full: str | None = Field(
        None,
        description="While the data dir's disk is too full to index: why, naming the disk "
        "and the fix; null while it has room.",
    )


class StatusResponse(BaseModel):
    ollama: OllamaStatus = Field(
        description="The chat model server, as the contract names it (also when it is not Ollama)."
    )
    model_server: ModelServerStatus
    index: IndexStatus
    embed_model: str
    starting: bool = Field(
        False,
        description="True while search, indexing and chat are still loading; a question "
        "asked meanwhile waits for them.",
    )


async def get_status(request: Request) -> StatusService:
    try:
        return await request.app.state.starting.status()
    except ServicesFailed as error:
        raise ApiError(503, "unavailable", f"Docent could not start: {error}") from error


@router.get("/api/status")
async def status(service: Annotated[StatusService, Depends(get_status)]) -> StatusResponse:
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
            waiting_for_space=found.index.waiting_for_space,
            disk_full=found.index.disk_full,
        ),
        embed_model=found.embed_model,
        starting=found.starting,
    )
