"""POST /api/chat: a turn as an SSE stream, or as one JSON reply."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends
from sse_starlette import EventSourceResponse

from app.api.deps import ContainerDep
from app.api.errors import ApiError
from app.api.schemas import ChatRequest, ChatResult
from app.api.security import require_token
from app.chat import EmptyMessage, MessageTooLong, SessionBusy, Turn

router = APIRouter(dependencies=[Depends(require_token)])


@router.post("/api/chat", response_model=None)
async def chat(body: ChatRequest, c: ContainerDep) -> EventSourceResponse | ChatResult:
    try:
        turn = c.chat.start_turn(body.session_id, body.message, body.mode)
    except MessageTooLong as error:
        raise ApiError(413, "message_too_long", str(error)) from error
    except EmptyMessage as error:
        raise ApiError(422, "empty_message", str(error)) from error
    except SessionBusy as error:
        raise ApiError(429, "session_busy", str(error)) from error
    if body.stream:
        return EventSourceResponse(_sse(turn))
    final = await turn.result()
    if final.kind == "error":
        raise ApiError(500, "turn_failed", final.data["message"])
    return ChatResult(**final.data)


async def _sse(turn: Turn) -> AsyncIterator[dict[str, str]]:
    # If the client goes away this generator stops; the turn itself runs on and is saved.
    async for event in turn.events():
        yield {"event": event.kind, "data": json.dumps(event.data, ensure_ascii=False)}
