"""POST /api/chat: a turn as an SSE stream, or as one JSON reply."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from sse_starlette import EventSourceResponse

from app.api.deps import ContainerDep
from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.api.routes.turns import start_turn
from app.api.schemas import ERROR_RESPONSES, ChatRequest, ChatResult, ErrorResponse
from app.services.chat import Failed, Turn
from graph.events import payload

router = APIRouter(tags=["chat"], dependencies=[Depends(require_token)])


@router.post(
    "/api/chat",
    response_model=None,
    responses={
        **ERROR_RESPONSES,
        200: {
            "description": "An SSE stream (`text/event-stream`), or with `stream: false` "
            "one JSON reply.",
            "model": ChatResult,
        },
        413: {"model": ErrorResponse, "description": "Message over the length limit."},
        429: {"model": ErrorResponse, "description": "The session is still answering."},
        500: {"model": ErrorResponse, "description": "The turn failed (`stream: false`)."},
    },
)
async def chat(body: ChatRequest, c: ContainerDep) -> EventSourceResponse | JSONResponse:
    """Answer a message: status, sources, tokens, then done (or error)."""
    turn = start_turn(c.chat, body.session_id, body.message, body.mode, scope=body.scope)
    if body.stream:
        return EventSourceResponse(_sse(turn))
    final = await turn.result()
    if isinstance(final, Failed):
        raise ApiError(500, "turn_failed", final.message)
    # As in the stream, `support` and `searched` only where they apply.
    return JSONResponse(ChatResult(**payload(final)).model_dump(exclude_unset=True))


async def _sse(turn: Turn) -> AsyncIterator[dict[str, str]]:
    # If the client goes away this generator stops; the turn itself runs on and is saved.
    async for event in turn.events():
        yield {"event": event.kind, "data": json.dumps(payload(event), ensure_ascii=False)}
