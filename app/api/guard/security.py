"""The API token as a FastAPI dependency; the decision itself lives in app/api/guard/guard.py."""

from __future__ import annotations

from fastapi import Request

from app.api.errors import ApiError
from app.api.guard.guard import TOKEN_HELP, Access


def require_token(request: Request) -> None:
    """The guard already refused strangers; this keeps a route safe if it ever isn't there."""
    access: Access = request.app.state.access
    if not access.authorized(request.headers, request.url.scheme):
        raise ApiError(401, "unauthorized", TOKEN_HELP)
