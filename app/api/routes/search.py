"""Searching the library and checking a text against it, without an LLM."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, Depends

from app.api.deps import SearchDep
from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.api.schemas import (
    ERROR_RESPONSES,
    ErrorResponse,
    FindRequest,
    SearchRequest,
    VerifyRequest,
)
from app.services.search import EmptyQuery, EmptyScope, QueryTooLong, TextTooLong
from graph.records import FindResponse, SearchResponse, VerifyResponse
from graph.scope import BadScope

router = APIRouter(dependencies=[Depends(require_token)], tags=["search"])

TOO_LONG: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorResponse, "description": "Over the length limit."}
}
NO_SCOPE: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No document in the scope (and files)."}
}


@contextmanager
def _refusals() -> Iterator[None]:
    """The search service's refusals as the API's errors, alike for every route here."""
    try:
        yield
    except QueryTooLong as error:
        raise ApiError(413, "query_too_long", str(error)) from error
    except TextTooLong as error:
        raise ApiError(413, "text_too_long", str(error)) from error
    except (EmptyQuery, BadScope) as error:
        raise ApiError(422, "invalid_request", str(error)) from error
    except EmptyScope as error:
        raise ApiError(404, "scope_empty", str(error)) from error


@router.post("/api/search", responses={**ERROR_RESPONSES, **TOO_LONG, **NO_SCOPE})
async def search(body: SearchRequest, service: SearchDep) -> SearchResponse:
    """The passages that best match the query, past the relevance floor."""
    with _refusals():
        results = await service.search(body.query, body.files or (), body.k, body.scope)
    return SearchResponse(results=results)


@router.post("/api/find", responses={**ERROR_RESPONSES, **TOO_LONG, **NO_SCOPE})
async def find(body: FindRequest, service: SearchDep) -> FindResponse:
    """Every document with at least one passage about the query, with no top-k: how many
    were searched, how many matched, and each one's best passage."""
    with _refusals():
        return await service.find(body.query, body.scope, body.files or ())


@router.post("/api/verify", responses={**ERROR_RESPONSES, **TOO_LONG, **NO_SCOPE})
async def verify(body: VerifyRequest, service: SearchDep) -> VerifyResponse:
    """Check a text against the library, sentence by sentence: a verdict for each, the
    numbers, dates and names its best passage lacks, and the span that supports it."""
    with _refusals():
        checked = await service.verify(body.text, body.files or (), body.scope)
    return VerifyResponse(sentences=checked)
