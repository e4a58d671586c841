"""Typed FastAPI dependencies shared by the routers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request

from app.api.errors import ApiError
from app.services.chat import ChatService
from app.services.documents import DocumentService
from app.services.search import SearchService
from app.services.sessions import SessionIndex
from app.startup import ServicesFailed

if TYPE_CHECKING:
    from app.container import Services


async def get_container(request: Request) -> Services:
    """The services, waiting for them while Docent is still starting."""
    try:
        return await request.app.state.starting.services()
    except ServicesFailed as error:
        raise ApiError(503, "unavailable", f"Docent could not start: {error}") from error


ContainerDep = Annotated["Services", Depends(get_container)]


async def get_documents(c: ContainerDep) -> DocumentService:
    return c.documents


async def get_chat(c: ContainerDep) -> ChatService:
    return c.chat


async def get_sessions(c: ContainerDep) -> SessionIndex:
    return c.sessions


async def get_search(c: ContainerDep) -> SearchService:
    return c.search


# Routers name the service they use (not the container): these resolve it, waiting for
# the services while Docent starts.
DocumentsDep = Annotated[DocumentService, Depends(get_documents)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
SessionsDep = Annotated[SessionIndex, Depends(get_sessions)]
SearchDep = Annotated[SearchService, Depends(get_search)]
