"""Sessions: list, read, rename and delete the conversations kept on this machine."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Response

from app.api.deps import ChatDep, SessionsDep
from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.api.schemas import (
    ERROR_RESPONSES,
    ErrorResponse,
    MessagePublic,
    SessionDetail,
    SessionList,
    SessionRename,
)
from app.services.chat import SessionBusy
from app.services.chat_export import MEDIA_TYPES, ExportFormat
from app.services.sessions import MAX_SEARCH_CHARS, SearchTooLong
from graph.records import SessionPublic

router = APIRouter(
    prefix="/api/sessions",
    tags=["sessions"],
    dependencies=[Depends(require_token)],
    responses=ERROR_RESPONSES,
)
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No session with that id."}
}


def _not_found(session_id: str) -> ApiError:
    return ApiError(
        404,
        "session_not_found",
        f"There is no session '{session_id}'. `GET /api/sessions` lists the ones there are.",
    )


SEARCH = Query(
    None,
    description="Keep the sessions whose title contains this, or whose messages hold its "
    f"words; at most {MAX_SEARCH_CHARS:,} characters (more gets 422).",
)


@router.get("")
async def list_sessions(sessions: SessionsDep, q: str | None = SEARCH) -> SessionList:
    """Every session, most recently used first; `q` keeps those whose title contains it."""
    try:
        found = sessions.search(q) if q else sessions.list()
    except SearchTooLong as error:
        raise ApiError(422, "invalid_request", str(error)) from error
    return SessionList(sessions=found)


@router.get("/{session_id}", responses=NOT_FOUND)
async def read_session(session_id: str, sessions: SessionsDep, chat: ChatDep) -> SessionDetail:
    """The session's messages, with the sources and trace of each answer."""
    info = sessions.get(session_id)
    if info is None:
        raise _not_found(session_id)
    messages = await chat.messages(session_id)
    return SessionDetail(
        info.id,
        info.title,
        info.created_at,
        info.updated_at,
        messages=[MessagePublic.model_validate(m) for m in messages],
    )


@router.get(
    "/{session_id}/export",
    response_class=Response,
    responses={**NOT_FOUND, 200: {"content": {m: {} for m in MEDIA_TYPES.values()}}},
)
async def export_session(
    session_id: str, chat: ChatDep, format: ExportFormat = "markdown"
) -> Response:
    """The chat as a file to keep: Markdown with each answer's sources, or JSON with
    sources, traces, feedback and earlier versions."""
    exported = await chat.export(session_id, format)
    if exported is None:
        raise _not_found(session_id)
    name, text = exported
    quoted = quote(name)
    return Response(
        text,
        media_type=MEDIA_TYPES[format],
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quoted}"},
    )


@router.patch("/{session_id}", responses=NOT_FOUND)
async def rename_session(
    session_id: str, body: SessionRename, sessions: SessionsDep
) -> SessionPublic:
    """Give the session a new title."""
    try:
        info = sessions.rename(session_id, body.title)
    except ValueError as error:
        raise ApiError(422, "invalid_request", f"Invalid request. title: {error}") from error
    if info is None:
        raise _not_found(session_id)
    return info


@router.delete(
    "/{session_id}",
    status_code=204,
    response_class=Response,
    responses={**NOT_FOUND, 429: {"model": ErrorResponse, "description": "Still answering."}},
)
async def delete_session(session_id: str, chat: ChatDep) -> Response:
    """Delete the session and its conversation; refused while it is still answering."""
    try:
        existed = await chat.delete_session(session_id)
    except SessionBusy as error:
        raise ApiError(429, "session_busy", str(error)) from error
    if not existed:
        raise _not_found(session_id)
    return Response(status_code=204)
