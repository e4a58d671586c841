"""OpenAI-compatible /v1: Docent as a model for tools that speak the OpenAI API."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from sse_starlette import EventSourceResponse

from app.api.deps import ContainerDep
from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.api.routes.openai_schemas import (
    DOCENT_MODEL,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionRequest,
    Choice,
    ModelCard,
    ModelList,
)
from app.api.routes.turns import start_turn
from app.api.schemas import ERROR_RESPONSES, ErrorResponse
from app.services.chat import Done, Failed, Token, Turn
from graph.scope import folders_of
from models.llm import ModelNotFound, same_model
from models.openai_wire import ModelNotLoaded
from models.protocols import Message

if TYPE_CHECKING:
    from app.container import Services

router = APIRouter(prefix="/v1", tags=["openai"], dependencies=[Depends(require_token)])


@router.get("/models", responses=ERROR_RESPONSES)
async def list_models(c: ContainerDep) -> ModelList:
    """`docent` (the configured chat model) and the models the chat model server has."""
    health = await c.llm.health()
    owner = "ollama" if health.api == "ollama" else "model-server"
    # docent/<folder> answers from one folder of the library only.
    folders = [f"{DOCENT_MODEL}/{f.rstrip('/')}" for f in folders_of(c.registry.ready_paths())]
    return ModelList(
        data=[
            ModelCard(id=DOCENT_MODEL, owned_by="docent"),
            *(ModelCard(id=name, owned_by="docent") for name in folders),
            *(ModelCard(id=name, owned_by=owner) for name in health.models),
        ]
    )


@router.post(
    "/chat/completions",
    response_model=None,
    responses={
        **ERROR_RESPONSES,
        200: {
            "model": ChatCompletion,
            "description": "One completion, or with `stream: true` chat.completion.chunk "
            "events ending with `data: [DONE]`.",
        },
        404: {"model": ErrorResponse, "description": "No such model in the model server."},
        413: {"model": ErrorResponse, "description": "Last message over the length limit."},
        429: {"model": ErrorResponse, "description": "The session is still answering."},
        500: {"model": ErrorResponse, "description": "The turn failed (not streamed)."},
    },
)
async def chat_completions(
    body: ChatCompletionRequest, c: ContainerDep
) -> ChatCompletion | EventSourceResponse:
    """Answer the last user message, with the earlier messages as the conversation."""
    question = body.messages[-1]
    if question.role != "user":
        raise ApiError(
            422,
            "invalid_request",
            "Invalid request. messages: the last message must be the user's, "
            f"not '{question.role}'.",
        )
    history: list[Message] = [
        {"role": m.role, "content": m.text()}
        for m in body.messages[:-1]
        if m.role in ("user", "assistant")
    ]
    scope = _scope_of(body.model)
    model = None if scope is not None else await _chat_model(c, body.model)
    turn = start_turn(
        c.chat, None, question.text(), body.mode, history=history, model=model, scope=scope
    )
    completion_id = f"chatcmpl-{turn.session_id}"
    created = int(time.time())
    if body.stream:
        chunks = _chunks(turn, completion_id, created, body.model)
        # The same SSE as /api/chat (its keep-alive pings too), in the framing OpenAI's
        # own API uses: lines end in \n, and the cache header is theirs.
        return EventSourceResponse(chunks, sep="\n", headers={"Cache-Control": "no-cache"})
    final = await turn.result()
    if isinstance(final, Failed):
        raise ApiError(500, "turn_failed", final.message)
    return ChatCompletion(
        id=completion_id,
        created=created,
        model=body.model,
        choices=[Choice(message=AssistantMessage(content=final.answer))],
        sources=final.sources,
        session_id=turn.session_id,
        support=final.support,
    )


def _scope_of(name: str) -> str | None:
    """The folder a ``docent/<folder>`` model name aims at; None for any other name."""
    prefix = DOCENT_MODEL + "/"
    if not name.startswith(prefix):
        return None
    folder = name[len(prefix) :].strip("/")
    return folder + "/" if folder else ""


async def _chat_model(c: Services, name: str) -> str | None:
    """None for the configured model; the server's name otherwise, if the server has it."""
    if name == DOCENT_MODEL or same_model(name, c.llm.model):
        return None
    health = await c.llm.health()
    # An unreachable server is not the caller's mistake: the turn runs and degrades to passages.
    if health.reachable and not any(same_model(name, have) for have in health.models):
        missing = (
            ModelNotFound(health.host, name)
            if health.api == "ollama"
            else ModelNotLoaded(health.host, name, health.models)
        )
        raise ApiError(404, "model_not_found", f"{missing} Or ask for the model '{DOCENT_MODEL}'.")
    return name


async def _chunks(
    turn: Turn, completion_id: str, created: int, model: str
) -> AsyncIterator[dict[str, str]]:
    """The turn as chat.completion.chunk events; a client that leaves doesn't stop the turn."""

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, str]:
        body = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return {"data": json.dumps(body, ensure_ascii=False)}

    yield chunk({"role": "assistant", "content": ""})
    async for event in turn.events():
        if isinstance(event, Token):
            yield chunk({"content": event.text})
        elif isinstance(event, Done):
            extra = {"sources": event.sources, "session_id": event.session_id}
            if event.support is not None:
                extra["support"] = event.support
            yield chunk({}, "stop", **extra)
            break
        elif isinstance(event, Failed):
            error = {"code": "turn_failed", "message": event.message}
            yield {"data": json.dumps({"error": error}, ensure_ascii=False)}
            break
    yield {"data": "[DONE]"}
