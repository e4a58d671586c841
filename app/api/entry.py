"""The routes that answer from the first moment, before the services are built."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from app.api.guard.login import LoginLinks
from app.api.guard.security import require_token

PATHS = frozenset({"/api/health", "/api/login-link"})
"""Served without waiting for the services."""

public = APIRouter()
router = APIRouter(dependencies=[Depends(require_token)])


@public.get("/api/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.post("/api/login-link")
async def new_login_link(request: Request) -> dict[str, str]:
    """A fresh one-time login link for the window (what `run.py open` asks for)."""
    links: LoginLinks = request.app.state.login_links
    return {"url": links.issue(str(request.base_url))}
